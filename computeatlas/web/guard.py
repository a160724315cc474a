"""What stands between the ``/data/`` form and abuse: signed form tokens, a per-address rate
limit, and a capped request body.

- **Form token (CSRF and idempotency).** ``GET /data/`` sets a random cookie and puts in
  the form a token signed with the site secret (itsdangerous) that binds a one-time key to
  that cookie. A POST is accepted only with a valid, unexpired token whose cookie matches,
  so another site cannot post the form in a visitor's name. The one-time key is the
  ledger's idempotency key, so a token is used once: sending the same form twice records
  one request, and the second answer (409) says so and gives a refreshed form.
- **Rate limit.** ``limits`` (moving window) per client address, IPv6 grouped by /64;
  :attr:`Settings.rate_limit` (``$COMPUTEATLAS_RATE_LIMIT``, default ``10/minute;100/day``),
  storage :attr:`Settings.rate_limit_storage`: by default (empty) the ledger's own database
  (:class:`~computeatlas.ledger.rate_limits.SQLStorage`), so every worker of
  ``serve --workers N`` and every instance on that database shares one count; ``memory://``
  counts in each process separately (N workers allow up to N times the limit), ``redis://…``
  in Redis. The count is keyed by an HMAC of the address with the site secret, so no storage
  holds the address itself. Each limit is hit atomically, shortest window first; a post
  refused by one limit is not counted by the longer ones after it. The client address is
  the connection's peer; ``X-Forwarded-For`` is believed only from
  ``settings.trusted_proxies`` (none by default, :func:`client_address`), so behind a proxy
  list the proxy's address there.
- **Minimum time.** The token carries the time the form was served; a post sooner than
  ``settings.form_min_seconds`` (default 1 s: sooner than a page renders and is filled in;
  autofill takes a person about two) after it is :class:`TooFast`, which the form answers
  exactly as it answers a filled-in honeypot field, without saying which.
- **Body cap.** :func:`read_body` stops reading at :data:`MAX_BODY` bytes.

The secret is :attr:`Settings.secret` (``$COMPUTEATLAS_SECRET``) or, when empty, a random key kept in
``<var>/secret.key`` (created once, mode 0600) so that restarts and workers share it.
Instances behind a load balancer must share one ``$COMPUTEATLAS_SECRET``.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import ipaddress
import math
import os
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from limits import parse_many, storage, strategies
from starlette.requests import Request

from computeatlas.core.errors import PageError
from computeatlas.core.settings import Settings
from computeatlas.ledger.database import database_url
from computeatlas.ledger.rate_limits import SQLStorage  # noqa: F401 - importing it registers the sqlite:// and postgresql:// schemes with limits

MAX_BODY = 16 * 1024
"""Largest accepted form body, in bytes (the form's fields together are under 1 KiB)."""

TOKEN_MAX_AGE = 2 * 60 * 60
"""Seconds a form token stays valid."""

COOKIE = "atlas_form"
DEFAULT_RATE = "10/minute;100/day"
_COOKIE_SHAPE = re.compile(r"[A-Za-z0-9_-]{20,64}")
_KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{16,64}")


class PayloadTooLarge(PageError):
    """413: the request body is over :data:`MAX_BODY`."""

    status = 413


class UnsupportedMediaType(PageError):
    """415: the form was not sent as ``application/x-www-form-urlencoded``."""

    status = 415


class ServiceUnavailable(PageError):
    """503: the form cannot work just now (its secret or the ledger cannot be read or written)."""

    status = 503


class TokenError(ValueError):
    """A form token that is missing, forged, expired, or not this browser's."""


class TooFast(Exception):
    """A good token sent back sooner than the minimum time after the form was served.

    ``key`` is the token's one-time key and ``seconds`` how long the form was open. Not a
    :class:`TokenError`: its reason is never shown (a bot must not learn what tripped it)."""

    def __init__(self, key: str, seconds: float) -> None:
        self.key = key
        self.seconds = seconds
        super().__init__(f"form sent {seconds:.2f} s after it was served")


def load_secret(var: Path, configured: str = "") -> bytes:
    """The signing secret: ``configured`` (:attr:`Settings.secret`), else ``var/secret.key`` (created atomically).

    Raises ``ValueError`` when ``configured`` is under 16 characters, and
    ``OSError`` when ``var`` or the key file cannot be created or read.
    """
    env = configured
    if env:
        if len(env) < 16:
            raise ValueError("COMPUTEATLAS_SECRET must be at least 16 characters")
        return env.encode()
    path = var / "secret.key"
    if not path.exists():
        var.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = var / f".secret.{os.getpid()}.{secrets.token_hex(4)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(secrets.token_urlsafe(48))
        try:
            os.link(tmp, path)  # atomic: the first worker's key wins, others read it
        except FileExistsError:
            pass
        finally:
            tmp.unlink()
    return path.read_text().strip().encode()


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


@functools.lru_cache(maxsize=16)
def trusted_networks(entries: tuple[str, ...]) -> tuple[Network, ...]:
    """The networks of ``settings.trusted_proxies`` (addresses or CIDR networks, e.g.
    ``("127.0.0.1", "10.0.0.0/8")``). Raises ``ValueError`` naming an entry that is neither."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"trusted_proxies: {entry!r} is not an IP address or network") from None
    return tuple(networks)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip())
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def client_address(request: Request, trusted_proxies: tuple[str, ...] = ()) -> str:
    """The client's address: the connection's peer, unless the peer is one of
    ``trusted_proxies``; then the ``X-Forwarded-For`` list is read from the right (the
    entries our proxies appended) and the first address that is not a trusted proxy is the
    client. With no trusted proxies (the default) the header is ignored, so a client cannot
    choose its own address by sending one. Raises ``ValueError`` for a malformed
    ``trusted_proxies`` entry."""
    host = request.client.host if request.client else "unknown"
    networks = trusted_networks(tuple(trusted_proxies))
    peer = _address(host)
    if not networks or peer is None or not any(peer in n for n in networks):
        return host
    hops = [h for value in request.headers.getlist("x-forwarded-for") for h in value.split(",")]
    for hop in reversed(hops):
        address = _address(hop)
        if address is None:
            return host  # a malformed entry: trust nothing left of it, count the proxy itself
        if not any(address in n for n in networks):
            return str(address)
    return host


def client_key(request: Request, trusted_proxies: tuple[str, ...] = ()) -> str:
    """The rate-limit key of the client (:func:`client_address`): its IP address, an IPv6
    address as its /64 network."""
    host = client_address(request, trusted_proxies)
    address = _address(host)
    if address is None:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        return str(ipaddress.ip_network(f"{address}/64", strict=False))
    return str(address)


async def read_body(request: Request, limit: int = MAX_BODY) -> bytes:
    """The request body, read up to ``limit`` bytes; raises :class:`PayloadTooLarge` beyond."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise PayloadTooLarge("Form too large", f"The form sent {declared} bytes; at most {limit} are accepted.")
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise PayloadTooLarge("Form too large", f"The form sent more than {limit} bytes; at most {limit} are accepted.")
        chunks.append(chunk)
    return b"".join(chunks)


class FormGuard:
    """Issues and checks form tokens and applies the per-address rate limit.

    ``secret`` signs tokens and keys the rate-limit counts; ``rate`` is a ``limits`` string such
    as ``"10/minute;100/day"``; ``storage_uri`` a ``limits`` storage URI (``memory://``,
    ``redis://host``, or a ledger URL such as ``sqlite:///var/ledger.sqlite3``, see
    :class:`~computeatlas.ledger.rate_limits.SQLStorage`). Raises ``ValueError`` for a bad rate
    and :class:`limits.errors.ConfigurationError` for an unknown storage.
    """

    def __init__(self, secret: bytes, rate: str = DEFAULT_RATE, storage_uri: str = "memory://", max_age: int = TOKEN_MAX_AGE) -> None:
        self.serializer = URLSafeTimedSerializer(secret, salt="computeatlas.dataset-form")
        self.rates = sorted(parse_many(rate), key=lambda item: item.get_expiry())
        self._key_secret = hmac.new(secret, b"computeatlas.rate-limit", hashlib.sha256).digest()
        self.storage = storage.storage_from_string(storage_uri, wrap_exceptions=True)
        self.limiter = strategies.MovingWindowRateLimiter(self.storage)
        self.max_age = max_age
        self.clock: Callable[[], float] = time.time
        """Seconds since the epoch; tests replace it to move time on."""

    @classmethod
    def from_settings(cls, settings: Settings) -> FormGuard:
        """A guard configured by ``settings`` (see the module docstring).

        Raises ``OSError`` when the secret in ``settings.var`` cannot be read or created, and
        ``ValueError`` for a too-short ``secret`` or a bad rate limit.
        """
        return cls(
            load_secret(settings.var.resolve(), settings.secret),
            settings.rate_limit or DEFAULT_RATE,
            settings.rate_limit_storage or database_url(settings),
        )

    @staticmethod
    def cookie_of(request: Request) -> str | None:
        """This browser's form cookie, when it has a well-formed one."""
        value = request.cookies.get(COOKIE, "")
        return value if _COOKIE_SHAPE.fullmatch(value) else None

    @staticmethod
    def new_cookie() -> str:
        """A fresh random cookie value."""
        return secrets.token_urlsafe(24)

    @staticmethod
    def _bind(cookie: str) -> str:
        return hashlib.sha256(cookie.encode()).hexdigest()[:24]

    def issue(self, cookie: str, key: str | None = None) -> str:
        """A signed token binding the one-time ``key`` (new when None) to ``cookie``, with the
        time it was issued (seconds since the epoch, to the millisecond)."""
        key = key if key and _KEY_SHAPE.fullmatch(key) else secrets.token_urlsafe(18)
        return self.serializer.dumps({"k": key, "c": self._bind(cookie), "t": round(self.clock(), 3)})

    def verify(self, token: str, cookie: str | None, min_seconds: float = 0.0) -> str:
        """The one-time key in ``token``; raises :class:`TokenError` saying what is wrong, and
        :class:`TooFast` when an otherwise good token comes back less than ``min_seconds``
        seconds after it was issued (people take longer than that to fill in the form)."""
        if not token:
            raise TokenError("The form arrived without its security token.")
        if cookie is None:
            raise TokenError("Your browser did not send back the form's cookie (are cookies blocked for this site?).")
        try:
            payload = self.serializer.loads(token, max_age=self.max_age)
        except SignatureExpired:
            raise TokenError("The form was open for too long and has expired.") from None
        except BadSignature:
            raise TokenError("The form's security token is not valid.") from None
        if not isinstance(payload, dict) or not _KEY_SHAPE.fullmatch(str(payload.get("k", ""))):
            raise TokenError("The form's security token is not valid.")
        if payload.get("c") != self._bind(cookie):
            raise TokenError("The form was opened in another browser or session.")
        issued = payload.get("t")
        if min_seconds > 0 and isinstance(issued, int | float):
            seconds = self.clock() - float(issued)
            if seconds < min_seconds:
                raise TooFast(str(payload["k"]), seconds)
        return str(payload["k"])

    def key_of(self, token: str) -> str | None:
        """The one-time key of a token with a good signature (expired or not), else None."""
        try:
            payload = self.serializer.loads(token)
        except BadSignature:
            return None
        return str(payload.get("k")) if isinstance(payload, dict) else None

    def rate_key(self, address: str) -> str:
        """The key the counts of ``address`` are kept under: an HMAC-SHA256 of it (32 hex digits)."""
        return hmac.new(self._key_secret, address.encode(), hashlib.sha256).hexdigest()[:32]

    def allow(self, address: str) -> int | None:
        """Count one submission from ``address``: None when allowed, else seconds until it may retry.

        Each limit, shortest window first, admits the post atomically in the storage (so two
        workers cannot both take a limit's last place) or refuses it, and then the longer
        limits are not hit. Blocks on the storage (a database transaction): call it from a
        worker thread. Raises :class:`limits.errors.StorageError` when the storage fails."""
        key = self.rate_key(address)
        for item in self.rates:
            if not self.limiter.hit(item, "dataset-form", key):
                reset = self.limiter.get_window_stats(item, "dataset-form", key).reset_time
                return max(1, math.ceil(reset - time.time()))
        return None

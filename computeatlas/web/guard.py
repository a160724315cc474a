"""What stands between the ``/data/`` form and abuse: signed form tokens, a per-address rate
limit, and a capped request body.

- **Form token (CSRF and idempotency).** ``GET /data/`` sets a random cookie and puts in
  the form a token signed with the site secret (itsdangerous) that binds a one-time key to
  that cookie. A POST is accepted only with a valid, unexpired token whose cookie matches,
  so another site cannot post the form in a visitor's name. The one-time key is the
  ledger's idempotency key: sending the same form twice records one request.
- **Rate limit.** ``limits`` (moving window) per client address, IPv6 grouped by /64;
  :attr:`Settings.rate_limit` (``$COMPUTEATLAS_RATE_LIMIT``), storage
  :attr:`Settings.rate_limit_storage` (default ``memory://``, per process; use
  ``redis://…`` to share a limit between instances). Behind a proxy, run uvicorn with
  ``--proxy-headers`` so the client address is the visitor's.
- **Body cap.** :func:`read_body` stops reading at :data:`MAX_BODY` bytes.

The secret is :attr:`Settings.secret` (``$COMPUTEATLAS_SECRET``) or, when empty, a random key kept in
``<var>/secret.key`` (created once, mode 0600) so that restarts and workers share it.
Instances behind a load balancer must share one ``$COMPUTEATLAS_SECRET``.
"""

from __future__ import annotations

import hashlib
import ipaddress
import math
import os
import re
import secrets
import time
from pathlib import Path

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from limits import parse_many, storage, strategies
from starlette.requests import Request

from computeatlas.core.errors import PageError
from computeatlas.core.settings import Settings

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
        var.mkdir(parents=True, exist_ok=True)
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


def client_key(request: Request) -> str:
    """The rate-limit key of the client: its IP address, an IPv6 address as its /64 network."""
    host = request.client.host if request.client else "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return str(address.ipv4_mapped)
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

    ``secret`` signs tokens; ``rate`` is a ``limits`` string such as ``"10/minute;100/day"``;
    ``storage_uri`` a ``limits`` storage (``memory://``, ``redis://host``).
    """

    def __init__(self, secret: bytes, rate: str = DEFAULT_RATE, storage_uri: str = "memory://", max_age: int = TOKEN_MAX_AGE) -> None:
        self.serializer = URLSafeTimedSerializer(secret, salt="computeatlas.dataset-form")
        self.rates = parse_many(rate)
        self.limiter = strategies.MovingWindowRateLimiter(storage.storage_from_string(storage_uri))
        self.max_age = max_age

    @classmethod
    def from_settings(cls, settings: Settings) -> FormGuard:
        """A guard configured by ``settings`` (see the module docstring).

        Raises ``OSError`` when the secret in ``settings.var`` cannot be read or created, and
        ``ValueError`` for a too-short ``secret`` or a bad rate limit.
        """
        return cls(
            load_secret(settings.var.resolve(), settings.secret),
            settings.rate_limit or DEFAULT_RATE,
            settings.rate_limit_storage or "memory://",
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
        """A signed token binding the one-time ``key`` (new when None) to ``cookie``."""
        key = key if key and _KEY_SHAPE.fullmatch(key) else secrets.token_urlsafe(18)
        return self.serializer.dumps({"k": key, "c": self._bind(cookie)})

    def verify(self, token: str, cookie: str | None) -> str:
        """The one-time key in ``token``; raises :class:`TokenError` saying what is wrong."""
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
        return str(payload["k"])

    def key_of(self, token: str) -> str | None:
        """The one-time key of a token with a good signature (expired or not), else None."""
        try:
            payload = self.serializer.loads(token)
        except BadSignature:
            return None
        return str(payload.get("k")) if isinstance(payload, dict) else None

    def allow(self, address: str) -> int | None:
        """Count one submission from ``address``: None when allowed, else seconds until it may retry."""
        for item in self.rates:
            if not self.limiter.test(item, "dataset-form", address):
                reset = self.limiter.get_window_stats(item, "dataset-form", address).reset_time
                return max(1, math.ceil(reset - time.time()))
        for item in self.rates:
            self.limiter.hit(item, "dataset-form", address)
        return None

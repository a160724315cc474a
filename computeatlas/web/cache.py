"""The page cache: rendered pages and shared page data, kept in the app's one cache
(:class:`computeatlas.core.cache.Cache`, namespaces ``page`` and ``page data``), keyed by
data version, date and URL, bounded in bytes with everything else the app keeps.

The catalog is immutable for the life of an app, but some pages also depend on the date
(a cloud offer's age, its stale flag, the price spread over fresh offers) and on the
price-observation store, which a new import changes without a restart. So the key of a
cached response is today's date, the store's version
(:meth:`~computeatlas.cloud.store.Store.version`) and its path and query string: a page is
rendered at most once per URL per day and per import, and older entries are never served
(they age out of the LRU). The catalog's data version is part of every key as well. Every
cached response carries an ``ETag`` (data version + key hash) and ``Last-Modified`` (the
catalog's newest verified date); a conditional request that matches gets ``304 Not Modified``.

Only a request whose query parameters the route declares is cached: unknown parameters are
ignored by every page, so caching each variant (``?utm_source=…``) would let visitors fill
memory with copies of one page. The app's cache bounds what is kept, in bytes.
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import inspect
import typing
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass
from email.utils import format_datetime
from typing import Any, TypeVar

from fastapi import params as fastapi_params
from pydantic import BaseModel
from starlette.requests import Request
from starlette.responses import Response

from computeatlas.core.cache import Cache

LIVE_SUFFIXES = ("/history", "/current", "/feed.xml")
"""Paths ending so (a history window, the current prices document, a feed) query the
price-observation store on every request and are never cached; so does ``/api/prices/``,
which the app adds as a ``live`` prefix. Pages that show prices from the store (``/cloud/``,
``/cloud/{provider}``, ``/cloud/prices/{id}``, the accelerator page's rental range, the
estimate) are cached, keyed on the store's version besides the date."""


PAGES = "page"
"""The namespace of rendered responses in the app's cache."""

PAGE_DATA = "page data"
"""The namespace of page data shared by a page and its JSON twin."""

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Entry:
    """A cached response: status, body bytes and the headers worth replaying."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]
    etag: str


@functools.cache
def declared_query(endpoint: Callable[..., Any]) -> frozenset[str]:
    """The query parameter names ``endpoint`` declares: its ``Query()`` parameters (by alias)
    and the fields (by alias) of a pydantic model it takes as ``Annotated[Model, Query()]``."""
    hints = typing.get_type_hints(endpoint, include_extras=True)
    names: set[str] = set()
    for name, param in inspect.signature(endpoint).parameters.items():
        hint = hints.get(name)
        extras = typing.get_args(hint)[1:] if typing.get_origin(hint) is typing.Annotated else ()
        marker = next((e for e in extras if isinstance(e, fastapi_params.Query)), None)
        if marker is None and isinstance(param.default, fastapi_params.Query):
            marker = param.default
        if marker is None:
            continue
        model = typing.get_args(hint)[0] if extras else hint
        if isinstance(model, type) and issubclass(model, BaseModel):
            names.update(field.alias or key for key, field in model.model_fields.items())
        else:
            names.add(marker.alias or name)
    return frozenset(names)


class PageCache:
    """Rendered GET responses and shared page data for one data ``version``, kept in ``cache``
    (the app's one cache: namespaces :data:`PAGES` and :data:`PAGE_DATA`).

    ``enabled`` False (or a cache of 0 bytes) keeps nothing; ``skip`` lists path prefixes
    never cached (forms with per-visitor tokens, health checks) and ``live`` those answered
    from the observation store; ``today`` and ``store_version`` give the date and the store's
    version that are part of every key, with ``version``.
    """

    def __init__(
        self,
        version: str,
        last_modified: dt.date | None,
        cache: Cache,
        skip: tuple[str, ...] = (),
        today: Callable[[], dt.date] = dt.date.today,
        live: tuple[str, ...] = (),
        store_version: Callable[[], str] = lambda: "",
        enabled: bool = True,
    ) -> None:
        self.version = version
        self.last_modified = (
            format_datetime(dt.datetime.combine(last_modified, dt.time(), tzinfo=dt.UTC), usegmt=True) if last_modified else None
        )
        self.cache = cache
        self.enabled = enabled and cache.max_bytes > 0
        self.skip = skip
        self.today = today
        self.live = live
        self.store_version = store_version

    def clear(self) -> None:
        """Forget every rendered page and the shared page data, and reset their hit and miss counts."""
        self.cache.clear(PAGES)
        self.cache.clear(PAGE_DATA)

    def cacheable(self, request: Request) -> bool:
        """GET and HEAD requests outside the skipped prefixes and the live price paths, when the cache is on."""
        path = request.url.path
        return (
            self.enabled
            and request.method in ("GET", "HEAD")
            and not path.startswith(self.skip)
            and not path.endswith(LIVE_SUFFIXES)
            and not path.startswith(self.live)
        )

    def key(self, request: Request) -> str:
        """The cache key of ``request``: today's date, the store's version, its path and its query string."""
        return f"{self.today().isoformat()} {self.store_version()} {request.url.path}" + (
            "?" + request.url.query if request.url.query else ""
        )

    def lookup(self, request: Request) -> Entry | None:
        """The cached response for ``request``, counting a hit or a miss (namespace :data:`PAGES`)."""
        found: Entry | None = self.cache.get(PAGES, (self.version, self.key(request)))
        return found

    def entry(self, request: Request, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> Entry:
        """The entry for a rendered response to ``request`` (``headers`` as ASGI sends them;
        only the content type and location are replayed), not yet kept."""
        etag = '"' + hashlib.sha256(f"{self.version}{self.key(request)}".encode()).hexdigest()[:20] + '"'
        keep = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in headers if k.lower() in (b"content-type", b"location"))
        return Entry(status, body, keep, etag)

    def store(self, request: Request, entry: Entry) -> bool:
        """Keep ``entry`` for ``request`` (its size: the body's length and its headers' lengths,
        B) unless it alone exceeds the cache's bound; the least recently used entries go until
        it fits. Returns whether it was kept."""
        size = len(entry.body) + len(entry.etag) + sum(len(k) + len(v) for k, v in entry.headers)
        return self.cache.put(PAGES, (self.version, self.key(request)), entry, size=size)

    def shared(self, name: str, build: Callable[[], T]) -> T:
        """The page data ``name`` (e.g. ``"accelerator aws-trainium-3"``), built by ``build``
        once per data version, date and store version, as a page is: a page and its JSON twin
        (``/silicon/x`` and ``/api/accelerators/x``) serve the same object instead of building it
        twice. Kept in namespace :data:`PAGE_DATA`; with the cache off nothing is. The object is
        shared: read it, do not change it."""
        if not self.enabled:
            return build()
        return self.cache.get_or_build(PAGE_DATA, (self.version, self.today().isoformat(), self.store_version(), name), build)

    def replay(self, entry: Entry, request: Request) -> Response:
        """The response for a cached ``entry``: 304 when the request's ``If-None-Match``
        names its ETag, else the body with ETag, Cache-Control and Last-Modified."""
        headers = dict(entry.headers)
        headers["ETag"] = entry.etag
        headers["Cache-Control"] = "public, max-age=300"
        if self.last_modified:
            headers["Last-Modified"] = self.last_modified
        if entry.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers={k: v for k, v in headers.items() if k != "content-type"})
        return Response(entry.body, status_code=entry.status, headers=headers)


def known_query(scope: MutableMapping[str, Any], request: Request) -> bool:
    """True when every query parameter of ``request`` is one the matched route declares."""
    route = scope.get("route")
    endpoint = getattr(route, "endpoint", None)
    if endpoint is None:
        return not request.query_params
    return set(request.query_params.keys()) <= declared_query(endpoint)

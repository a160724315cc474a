"""In-memory response cache for rendered pages, keyed by URL, valid for one data version.

The catalog is immutable for the life of an app, so a successful GET response is a pure
function of its URL: the first request renders it, later ones are served from memory with
no template work. Every cached response carries an ``ETag`` (data version + URL hash) and
``Last-Modified`` (the catalog's newest verified date); a conditional request that
matches gets ``304 Not Modified``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import OrderedDict
from dataclasses import dataclass
from email.utils import format_datetime

from starlette.requests import Request
from starlette.responses import Response


@dataclass(frozen=True, slots=True)
class Entry:
    """A cached response: status, body bytes and the headers worth replaying."""

    status: int
    body: bytes
    headers: tuple[tuple[str, str], ...]
    etag: str


class PageCache:
    """A bounded LRU of rendered GET responses for one data ``version``.

    ``max_entries`` bounds memory when visitors vary query strings; ``skip`` lists path
    prefixes never cached (forms with per-visitor tokens, health checks).
    """

    def __init__(
        self, version: str, last_modified: dt.date | None, max_entries: int = 4096, skip: tuple[str, ...] = ()
    ) -> None:
        self.version = version
        self.last_modified = (
            format_datetime(dt.datetime.combine(last_modified, dt.time(), tzinfo=dt.UTC), usegmt=True)
            if last_modified
            else None
        )
        self.max_entries = max_entries
        self.skip = skip
        self._entries: OrderedDict[str, Entry] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    def clear(self) -> None:
        """Forget every entry and reset the hit and miss counts."""
        self._entries.clear()
        self.hits = self.misses = 0

    def cacheable(self, request: Request) -> bool:
        """GET and HEAD requests outside the skipped prefixes."""
        return request.method in ("GET", "HEAD") and not request.url.path.startswith(self.skip)

    @staticmethod
    def key(request: Request) -> str:
        """The cache key of ``request``: its path and query string."""
        return request.url.path + ("?" + request.url.query if request.url.query else "")

    def lookup(self, request: Request) -> Entry | None:
        """The cached response for ``request``, counting a hit or a miss."""
        entry = self._entries.get(self.key(request))
        if entry is None:
            self.misses += 1
            return None
        self.hits += 1
        self._entries.move_to_end(self.key(request))
        return entry

    def store(self, request: Request, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> Entry:
        """Keep a rendered 200 for ``request``; ``headers`` as ASGI sends them (only the
        content type and location are replayed). The oldest entry goes past ``max_entries``."""
        key = self.key(request)
        etag = '"' + hashlib.sha256(f"{self.version}{key}".encode()).hexdigest()[:20] + '"'
        keep = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in headers if k.lower() in (b"content-type", b"location"))
        entry = Entry(status, body, keep, etag)
        self._entries[key] = entry
        if len(self._entries) > self.max_entries:
            self._entries.popitem(last=False)
        return entry

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

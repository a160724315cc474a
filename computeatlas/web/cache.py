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
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.utils import format_datetime

from starlette.requests import Request
from starlette.responses import Response

Handler = Callable[[Request], Awaitable[Response]]


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

    def cacheable(self, request: Request) -> bool:
        """GET and HEAD requests outside the skipped prefixes."""
        return request.method in ("GET", "HEAD") and not request.url.path.startswith(self.skip)

    async def respond(self, request: Request, call_next: Handler) -> Response:
        """Serve ``request`` from the cache, or render it with ``call_next`` and keep a 200."""
        key = request.url.path + ("?" + request.url.query if request.url.query else "")
        entry = self._entries.get(key)
        if entry is None:
            self.misses += 1
            response = await call_next(request)
            if response.status_code != 200:
                return response
            body = b"".join([chunk async for chunk in response.body_iterator])  # type: ignore[attr-defined]
            etag = '"' + hashlib.sha256(f"{self.version}{key}".encode()).hexdigest()[:20] + '"'
            keep = tuple((k, v) for k, v in response.headers.items() if k.lower() in ("content-type", "location"))
            entry = Entry(response.status_code, body, keep, etag)
            self._entries[key] = entry
            if len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)
        else:
            self.hits += 1
            self._entries.move_to_end(key)
        headers = dict(entry.headers)
        headers["ETag"] = entry.etag
        headers["Cache-Control"] = "public, max-age=300"
        if self.last_modified:
            headers["Last-Modified"] = self.last_modified
        if entry.etag in request.headers.get("if-none-match", ""):
            return Response(status_code=304, headers={k: v for k, v in headers.items() if k != "content-type"})
        return Response(entry.body, status_code=entry.status, headers=headers)

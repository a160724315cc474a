"""GET requests to an ASGI app in-process, for the static build.

:class:`LocalClient` calls the app the way a server would (one HTTP scope per request, the
app's lifespan around them all) and collects each answer, with no HTTP client, socket or
thread in between: the static build asks the app for some 1,600 URLs, and a test client
(an HTTP client handing each request to the app on another thread) cost more per request
than many of the pages. The app sees the same request as from Starlette's test client:
method, scheme, host, path and query string; no cookies are kept between requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote, urlsplit

import anyio
from starlette.types import ASGIApp, Message

USER_AGENT = b"computeatlas-build"
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Answer:
    """One response: its status, headers (names lower-case, as the app sent them) and body."""

    status: int
    headers: tuple[tuple[str, str], ...]
    body: bytes

    def header(self, name: str, default: str | None = None) -> str | None:
        """The first value of header ``name`` (any case), or ``default``."""
        wanted = name.lower()
        return next((value for key, value in self.headers if key == wanted), default)

    @property
    def is_redirect(self) -> bool:
        """A 3xx answer with a ``Location`` header."""
        return 300 <= self.status < 400 and self.header("location") is not None


class LocalClient:
    """GET requests to ``app`` as served at ``origin`` (``https://host[:port]``); use
    :meth:`running` around the requests so the app's lifespan (startup, shutdown) runs."""

    def __init__(self, app: ASGIApp, origin: str) -> None:
        parts = urlsplit(origin)
        self.app = app
        self.scheme = parts.scheme
        self.host = parts.netloc.encode("ascii")
        self.server = (parts.hostname or "", parts.port or (443 if parts.scheme == "https" else 80))

    @asynccontextmanager
    async def running(self) -> AsyncIterator[LocalClient]:
        """The app's lifespan context (a Starlette or FastAPI app's startup and shutdown) around the block."""
        router: Any = getattr(self.app, "router", None)
        if router is None:
            yield self
            return
        async with router.lifespan_context(self.app):
            yield self

    async def get(self, target: str) -> Answer:
        """GET ``target`` (a path, with a query string if any) and return the whole answer.
        An exception the app lets through is raised here, as a test client raises it."""
        path, _, query = target.partition("?")
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": self.scheme,
            "path": unquote(path), "raw_path": path.encode("ascii"), "root_path": "", "query_string": query.encode("ascii"),
            "headers": [(b"host", self.host), (b"user-agent", USER_AGENT)], "client": ("127.0.0.1", 0), "server": self.server,
            "extensions": {}, "state": {},
        }
        status = 0
        headers: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []
        sent = False

        async def receive() -> Message:
            nonlocal sent
            if sent:
                return {"type": "http.disconnect"}
            sent = True
            return {"type": "http.request", "body": b"", "more_body": False}

        async def send(message: Message) -> None:
            nonlocal status, headers
            if message["type"] == "http.response.start":
                status, headers = message["status"], list(message.get("headers", []))
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, send)
        decoded = tuple((k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in headers)
        return Answer(status, decoded, b"".join(chunks))


def run(function: Callable[..., Awaitable[T]], *args: Any) -> T:
    """``function(*args)`` run to completion in an event loop of its own: on this thread, or on a
    new one when this thread already runs a loop (a notebook, Playwright's sync API), where
    a second loop cannot start."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(function, *args)
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(anyio.run, function, *args).result()


__all__ = ["Answer", "LocalClient", "run"]

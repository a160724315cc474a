"""GET requests to an ASGI app in-process, for the static build.

:class:`LocalClient` hands each request straight to the app through httpx's ASGI transport
(no socket, no thread in between) inside the app's lifespan: the static build asks the app
for some 1,600 URLs, and a test client (an HTTP client handing each request to the app on
another thread) cost more per request than many of the pages. The app sees what a server
would give it: method, scheme, host, path and query string; no cookies are kept between
requests.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import anyio
import httpx
from starlette.types import ASGIApp

USER_AGENT = "computeatlas-build"
T = TypeVar("T")


class LocalClient:
    """GET requests to ``app`` as served at ``origin`` (``https://host[:port]``); use
    :meth:`running` around the requests so the app's lifespan (startup, shutdown) runs."""

    def __init__(self, app: ASGIApp, origin: str) -> None:
        self.app = app
        self.origin = origin.rstrip("/")
        self.transport = httpx.ASGITransport(app=app)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[LocalClient]:
        """The app's lifespan context (a Starlette or FastAPI app's startup and shutdown) around the block."""
        router: Any = getattr(self.app, "router", None)
        if router is None:
            yield self
            return
        async with router.lifespan_context(self.app):
            yield self

    async def get(self, target: str) -> httpx.Response:
        """GET ``target`` (a path, with a query string if any) and return the whole answer
        (redirects are answers, not followed). An exception the app lets through is raised
        here, as a test client raises it."""
        request = httpx.Request("GET", self.origin + target, headers={"user-agent": USER_AGENT})
        response = await self.transport.handle_async_request(request)
        await response.aread()
        return response


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


__all__ = ["LocalClient", "run"]

"""The web application: one FastAPI app over one immutable catalog.

:func:`create_app` loads (or is given) the catalog, refuses to start on invalid data
(raising :class:`~computeatlas.core.catalog.CatalogError` with every problem), mounts the
route table from :mod:`computeatlas.web.routes`, and turns every error into a clear
page or JSON body — never a traceback.
"""

from __future__ import annotations

import functools
import logging
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import computeatlas
from computeatlas.core.catalog import Catalog, load
from computeatlas.core.errors import NotFound, PageError
from computeatlas.core.settings import Settings
from computeatlas.web import routes
from computeatlas.web.cache import PageCache

HERE = Path(__file__).resolve().parent
log = logging.getLogger("computeatlas.web")

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "X-Frame-Options": "DENY",
}


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled template code kept in memory and shared by every app in the process, so a
    second app (the static build's, a test's) does not compile the templates again. Jinja2
    keys it by template and checks the source's checksum, so an edited template compiles anew."""

    def __init__(self) -> None:
        self._code: dict[str, bytes] = {}

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        code = self._code.get(bucket.key)
        if code is not None:
            bucket.bytecode_from_string(code)

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        self._code[bucket.key] = bucket.bytecode_to_string()


COMPILED = CompiledTemplates()


def templates() -> Jinja2Templates:
    """The Jinja2 environment (autoescaping on) with the site's filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=jinja2.select_autoescape(),
        bytecode_cache=COMPILED,
    )
    env.globals["version"] = computeatlas.__version__
    return Jinja2Templates(env=env)


APP_OPTIONS: dict[str, Any] = {
    "title": "Compute Atlas",
    "version": computeatlas.__version__,
    "description": "A sourced, verified reference for AI accelerators. Every figure has a state "
    "(published, not published, not applicable, not comparable), a basis and a source.",
    "docs_url": None,
    "redoc_url": None,
}


@functools.cache
def site_routes() -> tuple[BaseRoute, ...]:
    """The route table (:mod:`computeatlas.web.routes`) as FastAPI routes, made once per
    process and mounted by every app: making them (signatures, the pydantic models of
    parameters and responses) is most of what building an app costs. A route holds no
    per-app state; they are made on an app with the same options, so they behave as if
    added to each one (dependency overrides, which the site does not use, would be that
    app's)."""
    maker = FastAPI(**APP_OPTIONS)
    first = len(maker.router.routes)
    for route in routes.ROUTES:
        maker.add_api_route(
            route.path,
            route.endpoint,
            methods=list(route.methods),
            name=route.name,
            response_class=route.response_class,
            include_in_schema=route.in_schema,
            summary=route.summary,
            response_model=route.response_model,
        )
        if "GET" in route.methods:  # every page answers HEAD; the server sends no body for it
            maker.add_api_route(route.path, route.endpoint, methods=["HEAD"], name=f"{route.name}_head",
                                response_class=route.response_class, include_in_schema=False)
    return tuple(maker.router.routes[first:])


def create_app(catalog: Catalog | None = None, settings: Settings | None = None) -> FastAPI:
    """Build the app over ``catalog`` (default: :func:`computeatlas.load` of the data folder)
    with ``settings`` (default: :meth:`Settings.from_env`), kept as ``app.state.settings``.

    Raises :class:`~computeatlas.core.catalog.CatalogError` when the data does not validate, so
    the server never starts on bad data.
    """
    settings = settings if settings is not None else Settings.from_env()
    catalog = catalog if catalog is not None else load()
    app = FastAPI(**APP_OPTIONS)
    app.state.catalog = catalog
    app.state.settings = settings
    app.state.all_paths = routes.all_paths
    app.state.cache = PageCache(catalog.version, catalog.last_verified, skip=("/healthz", "/static/", "/data/"))
    app.state.templates = templates()
    app.mount("/static", StaticFiles(directory=str(HERE / "static")), name="static")
    app.router.routes.extend(site_routes())
    app.add_middleware(SiteMiddleware)

    @app.exception_handler(PageError)
    async def page_error(request: Request, exc: PageError) -> Response:
        return _error_response(request, exc.status, exc.title, exc.detail, exc.suggestions, getattr(exc, "headers", None))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            return await page_error(request, NotFound("No such page", f"Nothing lives at {request.url.path}."))
        return _error_response(request, exc.status_code, "Request not accepted", str(exc.detail), headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        first = exc.errors()[0] if exc.errors() else {"loc": ("request",), "msg": "invalid"}
        where = ".".join(str(p) for p in first["loc"] if p not in ("query", "path", "body"))
        return _error_response(request, 400, "Bad request", f"parameter '{where}': {first['msg']}")

    return app


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class SiteMiddleware:
    """Plain ASGI middleware around the whole site: serves cached pages
    (:class:`~computeatlas.web.cache.PageCache`) without entering the app, keeps rendered
    200s, adds :data:`SECURITY_HEADERS` to every response, and turns an unhandled error
    into a plain 500 page (logged), never a traceback. Plain ASGI rather than Starlette's
    ``BaseHTTPMiddleware``, which costs a task group and a body stream per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive)
        cache: PageCache = scope["app"].state.cache

        async def send_secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for key, value in SECURITY_HEADERS.items():
                    headers.setdefault(key, value)
            await send(message)

        cacheable = cache.cacheable(request)
        if cacheable:
            entry = cache.lookup(request)
            if entry is not None:
                await cache.replay(entry, request)(scope, receive, send_secured)
                return
        started = False
        status = 0
        held: list[tuple[bytes, bytes]] = []
        chunks: list[bytes] = []

        async def send_kept(message: Message) -> None:
            nonlocal started, status, held
            if message["type"] == "http.response.start":
                started, status, held = True, message["status"], list(message.get("headers", []))
                if cacheable and status == 200:
                    return  # held until the body is complete, then kept and replayed
            elif message["type"] == "http.response.body" and cacheable and status == 200:
                chunks.append(message.get("body", b""))
                if not message.get("more_body", False):
                    entry = cache.store(request, status, b"".join(chunks), held)
                    await cache.replay(entry, request)(scope, receive, send_secured)
                return
            await send_secured(message)

        try:
            await self.app(scope, receive, send_kept)
        except Exception:  # the last line of defence: log it, show a plain page
            log.exception("unhandled error on %s", request.url.path)
            if started:
                raise
            response = _error_response(request, 500, "Something went wrong on our side", "The error was logged.")
            await response(scope, receive, send_secured)


def _error_response(
    request: Request,
    status: int,
    title: str,
    detail: str,
    suggestions: list[tuple[str, str]] | None = None,
    headers: Mapping[str, str] | None = None,
) -> Response:
    """An error as JSON for ``/api/`` paths and as an HTML page elsewhere.

    Control characters a visitor put in the URL are replaced, never echoed; ``headers``
    (``Allow`` on a 405, ``Retry-After`` on a 429) are kept.
    """
    suggestions = suggestions or []
    detail = _CONTROL.sub("\ufffd", detail)
    if request.url.path.startswith("/api/"):
        body: dict[str, object] = {"error": title, "detail": detail, "status": status}
        if suggestions:
            body["suggestions"] = [{"name": name, "url": url} for name, url in suggestions]
        return JSONResponse(body, status_code=status, headers=dict(headers or {}))
    tpl: Jinja2Templates = request.app.state.templates
    html = tpl.get_template("error.html").render(
        request=request,
        status=status,
        title=title,
        detail=detail,
        suggestions=suggestions,
        page_title=title,
        data_version=request.app.state.catalog.version,
    )
    return HTMLResponse(html, status_code=status, headers=dict(headers or {}))

"""The web application: one FastAPI app over one immutable catalog.

:func:`create_app` loads (or is given) the catalog, refuses to start on invalid data
(raising :class:`~computeatlas.core.catalog.CatalogError` with every problem), mounts the
route table from :mod:`computeatlas.web.routes`, and turns every error into a clear
page or JSON body — never a traceback.
"""

from __future__ import annotations

import functools
import gc
import logging
import re
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import jinja2
import jinja2.bccache
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi.templating import Jinja2Templates
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

import computeatlas
from computeatlas.catalog import Catalog, load
from computeatlas.cloud import history
from computeatlas.cloud.offer_words import amount_text
from computeatlas.cloud.queries import AmbiguousParam
from computeatlas.cloud.regions import region_label
from computeatlas.cloud.store import Store
from computeatlas.core.cache import Cache, use
from computeatlas.core.errors import NotFound, PageError
from computeatlas.core.numbers import data_number, figure_text
from computeatlas.core.offer_words import pricing_words, source_words
from computeatlas.core.settings import Settings
from computeatlas.core.urls import Urls, site_path
from computeatlas.economics.token_prices import token_store
from computeatlas.pages import price_table
from computeatlas.web import openapi, price_charts, routes
from computeatlas.web.cache import PageCache, known_query
from computeatlas.web.page import Moved, json_response_class
from computeatlas.web.params import input_error, with_choices

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

WORDS_KEPT = 4096
"""How many distinct answers of each word filter (pricing kind, source, region) the templates keep."""


def templates(urls: Urls | None = None) -> Jinja2Templates:
    """The Jinja2 environment (autoescaping on, compiled code shared through :data:`COMPILED`)
    with the site's globals: ``version``, ``url(name, **params)`` (:meth:`Urls.path`),
    ``post_url(name)`` (:meth:`Urls.post`, a form's action), ``form_url(name)`` (:meth:`Urls.form`,
    a GET form that needs a server, or None), ``served_url(name, **params)`` (:meth:`Urls.served`,
    a link or None), ``static_build`` and ``absolute_url(path)`` (:meth:`Urls.absolute`), and the filter ``link`` (:meth:`Urls.link`: a view object's site
    path under the base path)."""
    urls = urls or Urls()
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=jinja2.select_autoescape(),
        bytecode_cache=COMPILED,
    )
    env.globals["version"] = computeatlas.__version__
    env.globals["url"] = urls.path
    env.globals["post_url"] = urls.post
    env.globals["form_url"] = urls.form
    env.globals["served_url"] = urls.served
    env.globals["static_build"] = urls.static
    env.globals["absolute_url"] = urls.absolute
    env.filters["link"] = urls.link
    # The words of a pricing kind, a source and a region are pure functions of a few distinct values: a price
    # table of hundreds of rows asks them the same few questions, so each is worked out once (bounded).
    env.filters["pricing_words"] = functools.lru_cache(maxsize=WORDS_KEPT)(pricing_words)
    env.filters["amount"] = amount_text  # a price as published: 2474.5845, never float noise
    env.filters["data_number"] = data_number
    env.filters["source_words"] = functools.lru_cache(maxsize=WORDS_KEPT)(source_words)
    env.filters["provider_name"] = lambda ident, catalog: catalog.providers[ident].name if ident in catalog.providers else ident
    env.globals["sort_values"] = price_table.sort_values  # what a price table's row sorts by, for table.js
    env.globals["numeric_sorts"] = sorted(price_table.NUMERIC_SORTS)
    env.globals["observed_sorts"] = price_table.OBSERVED_COLUMNS
    env.globals["region_label"] = functools.lru_cache(maxsize=WORDS_KEPT)(region_label)
    env.globals["price_charts"] = price_charts.price_charts  # the charts a price page opens with, read from the store
    env.globals["has_price_charts"] = price_charts.has_price_charts
    env.globals["price_performance_chart"] = price_charts.performance_chart
    env.filters["figure"] = lambda value: figure_text(value) if isinstance(value, str) else value  # separators; unit as written
    return Jinja2Templates(env=env)


APP_OPTIONS: dict[str, Any] = {
    "title": "Compute Atlas",
    "version": computeatlas.__version__,
    "description": "A sourced, verified reference for AI accelerators. Every figure has a state "
    "(published, not published, not applicable, not comparable), a basis and a source.",
    "docs_url": None,
    "redoc_url": None,
}


def _make_routes(urls: Urls) -> tuple[BaseRoute, ...]:
    """The route table (:mod:`computeatlas.web.routes`) as FastAPI routes under ``urls``'s base
    path, JSON bodies linked through ``urls``; made on a throwaway app with the same options."""
    maker = FastAPI(**APP_OPTIONS)
    first = len(maker.router.routes)
    linked_json = json_response_class(urls)
    for route in routes.ROUTES:
        response_class = linked_json if route.response_class is JSONResponse else route.response_class
        maker.add_api_route(
            urls.prefixed(route.path),
            route.endpoint,
            methods=list(route.methods),
            name=route.name,
            response_class=response_class,
            include_in_schema=route.in_schema,
            summary=route.summary,
            response_model=route.response_model,
        )
        if "GET" in route.methods:  # every page answers HEAD; the server sends no body for it
            maker.add_api_route(
                urls.prefixed(route.path),
                route.endpoint,
                methods=["HEAD"],
                name=f"{route.name}_head",
                response_class=response_class,
                include_in_schema=False,
            )
    return tuple(maker.router.routes[first:])


@functools.cache
def site_routes(base_path: str, origin: str) -> tuple[BaseRoute, ...]:
    """The routes of a live deployment at ``base_path`` on ``origin``, made once per process and
    mounted by every app with those settings: making them (signatures, the pydantic models
    of parameters and responses) is most of what building an app costs. A route holds no
    per-app state. A static build's registry (which knows its files) gets routes of its own."""
    return _make_routes(Urls(base_path, origin))


def _stores_version(*stores: Store) -> Callable[[], str]:
    """The versions of the observation stores a page may read (rental and token prices), as one
    string for the page cache's key: an import into either changes it."""
    return lambda: "|".join(store.version() for store in stores)


def create_app(catalog: Catalog | None = None, settings: Settings | None = None, urls: Urls | None = None) -> FastAPI:
    """Build the app over ``catalog`` (default: :func:`computeatlas.load` of the data folder)
    with ``settings`` (default: :meth:`Settings.from_env`), kept as ``app.state.settings``,
    the app's one cache (:class:`~computeatlas.core.cache.Cache` of ``settings.page_cache_bytes``,
    active during each request) as ``app.state.cache`` and its page view
    (:class:`~computeatlas.web.cache.PageCache`) as ``app.state.pages``,
    and ``urls`` (default: the registry for the settings' base path and public origin; the
    static build passes one that links to its files), kept as ``app.state.urls``.

    Raises :class:`~computeatlas.core.catalog.CatalogError` when the data does not validate, so
    the server never starts on bad data.
    """
    settings = settings if settings is not None else Settings.from_env()
    catalog = catalog if catalog is not None else load(settings.data)
    app = FastAPI(**APP_OPTIONS, openapi_url=Urls(settings.base_path).path("openapi"))
    app.state.catalog = catalog
    app.state.settings = settings
    app.state.urls = urls = urls if urls is not None else Urls(settings.base_path, settings.public_origin)
    app.state.all_paths = routes.all_paths
    app.state.cache = cache = Cache(settings.page_cache_bytes)  # the one cache: pages, page data, store answers, charts
    app.state.pages = PageCache(
        catalog.version,
        catalog.last_verified,
        cache,
        skip=tuple(
            urls.prefixed(site_path(name, **params))
            for name, params in (
                ("health", {}),
                ("static", {"file": ""}),
                ("data_page", {}),
                ("cloud_status", {}),
                ("api_status_collectors", {}),
            )
        ),
        today=lambda: history.utcnow().date(),  # price pages age with the date; tests replace history.utcnow
        live=(urls.prefixed(site_path("api_prices", ident="")),),
        store_version=_stores_version(Store(settings.prices_dir), token_store(settings.data / "tokens")),
        enabled=settings.page_cache,
    )
    app.state.templates = templates(urls)
    app.mount(urls.prefixed("/static"), StaticFiles(directory=str(HERE / "static")), name="static")
    live = urls.files is None and not urls.live
    app.router.routes.extend(site_routes(urls.base_path, urls.origin) if live else _make_routes(urls))
    app.router.redirect_slashes = False  # Starlette's builds an absolute URL from the Host header; see _other_slash

    app.add_middleware(SiteMiddleware)
    openapi.install(app, urls.base_path)

    @app.exception_handler(PageError)
    async def page_error(request: Request, exc: PageError) -> Response:
        if isinstance(exc, AmbiguousParam) and not exc.suggestions:
            exc = with_choices(request, exc)
        return _error_response(request, exc.status, exc.title, exc.detail, exc.suggestions, getattr(exc, "headers", None))

    @app.exception_handler(Moved)
    async def moved(request: Request, exc: Moved) -> Response:
        return RedirectResponse(exc.location, status_code=301)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            other = _other_slash(app, request)
            if other is not None:
                return RedirectResponse(other, status_code=301)
            return await page_error(request, NotFound("No such page", f"Nothing lives at {request.url.path}."))
        return _error_response(request, exc.status_code, "Request not accepted", str(exc.detail), headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        return await page_error(request, input_error(exc))

    settle()
    return app


def settle() -> None:
    """Collect the garbage of starting, then leave every object alive now (the catalog, the
    templates, the routes: about 140,000) out of the cyclic collector's later passes
    (``gc.freeze``). A full collection otherwise walks them all, tens of milliseconds inside
    whichever request triggers it; they live as long as the app, and reference counting
    still frees any of them that is let go."""
    gc.collect()
    gc.freeze()


def _other_slash(app: FastAPI, request: Request) -> str | None:
    """For a path nothing answers, the same path with its trailing slash added or removed
    when a route answers that, as a relative URL (path and query) — never built from the
    request's Host header, so a redirect cannot send a visitor to another host."""
    path = request.url.path
    other = path[:-1] if path.endswith("/") and path != "/" else path + "/"
    scope = {**request.scope, "path": other, "raw_path": other.encode()}
    if not any(route.matches(scope)[0] is Match.FULL for route in app.router.routes):
        return None
    query = request.url.query
    return other + (f"?{query}" if query else "")


_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


class SiteMiddleware:
    """Plain ASGI middleware around the whole site: serves cached pages
    (:class:`~computeatlas.web.cache.PageCache`) without entering the app, keeps rendered
    200s, adds :data:`SECURITY_HEADERS` to every response, and turns an unhandled error
    into a plain 500 page (logged), never a traceback. The app's cache is the
    :func:`~computeatlas.core.cache.active` one while a request runs. Plain ASGI rather than Starlette's
    ``BaseHTTPMiddleware``, which costs a task group and a body stream per request."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with use(scope["app"].state.cache):
            await self._serve(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        cache: PageCache = scope["app"].state.pages

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
                    entry = cache.entry(request, status, b"".join(chunks), held)
                    if known_query(scope, request):  # a URL with parameters no page reads is not kept
                        cache.store(request, entry)
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
    if request.url.path.startswith(request.app.state.urls.prefixed("/api/")):
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

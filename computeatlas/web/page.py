"""What every page module shares: the route entry, the catalog of a request, rendering.

Each layer's module (``silicon``, ``compare``, ``cloud`` …) defines ``ROUTES``, a tuple of
:class:`Route`; :mod:`computeatlas.web.routes` joins them into the one route table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from computeatlas.catalog import Catalog
from computeatlas.core.errors import Ambiguous, NotFound, ParamError, closest
from computeatlas.core.settings import Settings
from computeatlas.core.urls import Urls, pattern, site_path
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.resolve import AmbiguousName, ResolveError, resolve_id
from computeatlas.web.cache import PageCache

T = TypeVar("T")


@dataclass(frozen=True)
class Route:
    """One entry of the route table: the handler and its route ``name``, whose path comes
    from the URL registry (:data:`computeatlas.core.urls.PATTERNS`). API routes set
    ``in_schema`` and a ``response_model``."""

    endpoint: Callable[..., Any]
    name: str
    response_class: type[Response] = HTMLResponse
    response_model: Any = None
    methods: Sequence[str] = ("GET",)
    in_schema: bool = False
    summary: str | None = None

    @property
    def path(self) -> str:
        """The route's path pattern (without the base path), from the URL registry."""
        return pattern(self.name)


def settings_of(request: Request) -> Settings:
    """The settings of the app serving ``request``."""
    return request.app.state.settings


def urls_of(request: Request) -> Urls:
    """The URL registry of the app serving ``request`` (base path and public origin from its settings)."""
    return request.app.state.urls


def page_cache_of(request: Request) -> PageCache:
    """The page cache of the app serving ``request`` (its :meth:`~PageCache.shared` page data too)."""
    return request.app.state.pages


def catalog_of(request: Request) -> Catalog:
    """The immutable catalog the app serves."""
    return request.app.state.catalog


def linked(value: Any, urls: Urls) -> Any:
    """A JSON document with every ``…url`` field that holds a site path (``/silicon/x``, as view
    objects hold them) made a link by ``urls`` (:meth:`Urls.link`: under the base path, or to
    a static build's file); absolute URLs (sources) and every other field are kept."""
    if isinstance(value, dict):
        return {k: urls.link(v) if isinstance(v, str) and k.endswith("url") else linked(v, urls) for k, v in value.items()}
    if isinstance(value, list):
        return [linked(v, urls) for v in value]
    return value


def json_response_class(urls: Urls) -> type[JSONResponse]:
    """The JSON response class of an app whose links ``urls`` makes: bodies pass through :func:`linked`."""

    class LinkedJSONResponse(JSONResponse):
        def render(self, content: Any) -> bytes:
            return super().render(linked(content, urls))

    return LinkedJSONResponse


def slash_redirect(request: Request, target: str, fragment: str = "") -> RedirectResponse:
    """A 301 from a section's address without its slash (``/cloud``) to ``target`` (its index),
    keeping the request's query string (``/cloud?provider=aws`` → ``/cloud/?provider=aws``), then ``fragment``."""
    query = request.url.query
    return RedirectResponse(target + (f"?{query}" if query else "") + fragment, status_code=301)


def canonical_url(request: Request) -> str:
    """The page's canonical address: the public origin (from the settings, never the request's
    Host header) and the path, without the query string."""
    urls = urls_of(request)
    return urls.absolute(urls.site(request.url.path))


def render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    """Render ``template`` with the catalog, data version and canonical URL in the context."""
    catalog = catalog_of(request)
    html = request.app.state.templates.get_template(template).render(
        request=request, catalog=catalog, data_version=catalog.version, canonical_url=canonical_url(request), **context
    )
    return HTMLResponse(html, status_code=status)


def refuse_repeats(request: Request, declared: Iterable[str]) -> None:
    """Raise :class:`ParamError` (400) naming a ``declared`` query parameter given more than
    once (several values go in one parameter, separated by commas). Other parameters are ignored."""
    names = set(declared)
    seen: set[str] = set()
    for key, _ in request.query_params.multi_items():
        if key in names and key in seen:
            raise ParamError(key, "given more than once; separate several values with commas")
        seen.add(key)


def find_record(records: Mapping[str, T], ident: str, what: str, url: str, name: Callable[[T], str]) -> T:
    """The record ``ident`` of ``records``; raises :class:`NotFound` suggesting the closest
    ids and names, each linked as ``url.format(id)``. ``what`` names the kind ("accelerator")."""
    record = records.get(ident)
    if record is not None:
        return record
    by_name = {name(r).lower(): key for key, r in records.items()}
    near = closest(ident, list(records) + list(by_name))
    ids = list(dict.fromkeys(by_name.get(n, n) for n in near))
    suggestions = [(name(records[i]), url.format(i)) for i in ids]
    raise NotFound(f"No such {what}", f"There is no {what} with id '{ident}'.", suggestions)


class Moved(Exception):  # a redirect, not an error
    """Raised by a handler whose URL names a record by another name: the app answers
    ``301 Moved Permanently`` to ``location``."""

    def __init__(self, location: str) -> None:
        super().__init__(location)
        self.location = location


def _route_name(request: Request) -> str | None:
    route = request.scope.get("route")
    name = getattr(route, "name", None)
    return name.removesuffix("_head") if isinstance(name, str) else None


def find_accelerator(request: Request, ident: str) -> Accelerator:
    """The accelerator ``ident`` names in the path of ``request``.

    An id is served; an alias or a name (``Trn3``) that :func:`~computeatlas.silicon.resolve.resolve_id`
    resolves to one id raises :class:`Moved` to the same route at that id (the query string
    kept), as ``computeatlas show`` resolves it. A name several parts share (``A100``) raises
    :class:`~computeatlas.core.errors.Ambiguous` (300) listing every one to choose from, never
    picking one; anything else :class:`NotFound` listing the closest ids.
    """
    catalog = catalog_of(request)
    found = catalog.accelerators.get(ident)
    if found is not None:
        return found
    name = _route_name(request)
    try:
        target = resolve_id(catalog, ident)
    except AmbiguousName as exc:
        urls = urls_of(request)
        suggestions = [
            (f"{c.name} ({c.id})", urls.path(name, ident=c.id) if name else site_path("silicon_page", ident=c.id)) for c in exc.options
        ]
        raise Ambiguous("Which accelerator?", exc.message, suggestions) from None
    except ResolveError:
        return find_record(catalog.accelerators, ident, "accelerator", urls_of(request).template("silicon_page"), lambda a: a.name)
    if name is None:
        raise NotFound("No such accelerator", f"There is no accelerator with id '{ident}'.")
    query = request.url.query
    raise Moved(urls_of(request).path(name, ident=target) + (f"?{query}" if query else ""))

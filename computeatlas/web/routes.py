"""The route table: every page and API endpoint of the site, in one list.

Page handlers and API handlers build the same view objects (:mod:`computeatlas.views`,
:mod:`computeatlas.table`); pages render them with Jinja2, the API returns them as JSON.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from computeatlas import table
from computeatlas.catalog import Catalog
from computeatlas.model import Accelerator
from computeatlas.views import AcceleratorSummary, AcceleratorView, accelerator_view, summary_view
from computeatlas.web.errors import BadRequest, NotFound, closest

ID_PATH = Path(description="accelerator id, e.g. 'aws-trainium-3'", max_length=100)


def _catalog(request: Request) -> Catalog:
    return request.app.state.catalog


def _render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    catalog = _catalog(request)
    html = request.app.state.templates.get_template(template).render(
        request=request, catalog=catalog, data_version=catalog.version, **context
    )
    return HTMLResponse(html, status_code=status)


def find_accelerator(catalog: Catalog, ident: str) -> Accelerator:
    """The accelerator ``ident`` names; raises :class:`NotFound` listing the closest ids."""
    acc = catalog.accelerators.get(ident)
    if acc is not None:
        return acc
    by_name = {a.name.lower(): a.id for a in catalog.accelerators.values()}
    near = closest(ident, list(catalog.accelerators) + list(by_name))
    ids = list(dict.fromkeys(by_name.get(n, n) for n in near))
    suggestions = [(catalog.accelerators[i].name, f"/silicon/{i}") for i in ids]
    raise NotFound("No such accelerator", f"There is no accelerator with id '{ident}'.", suggestions)


def _table_query(request: Request) -> table.Query:
    try:
        return table.parse_query(dict(request.query_params), _catalog(request))
    except table.QueryError as exc:
        raise BadRequest("Bad query parameter", str(exc)) from None


# --- pages ---------------------------------------------------------------------------


def home(request: Request) -> HTMLResponse:
    """The front page: what the atlas is and the layers."""
    catalog = _catalog(request)
    return _render(request, "home.html", page_title="Compute Atlas", count=len(catalog.accelerators))


def silicon_index(request: Request) -> HTMLResponse:
    """The table of all accelerators, sortable and filterable by query parameters."""
    catalog = _catalog(request)
    query = _table_query(request)
    return _render(
        request,
        "silicon_index.html",
        page_title="Accelerators",
        query=query,
        rows=table.rows(catalog, query),
        columns=table.COLUMNS,
        choices={key: table.choices(catalog, key) for key in table.CHOICE_FILTERS},
    )


def silicon_page(request: Request, ident: str = ID_PATH) -> HTMLResponse:
    """One accelerator: specifications with states, bases and sources."""
    catalog = _catalog(request)
    view = accelerator_view(catalog, find_accelerator(catalog, ident))
    return _render(request, "accelerator.html", page_title=view.name, view=view)


def silicon_redirect(request: Request) -> Response:
    """``/silicon`` without the slash goes to the table."""
    return RedirectResponse("/silicon/", status_code=301)


# --- API -----------------------------------------------------------------------------


def api_accelerators(
    request: Request,
    sort: str | None = Query(None, description="column key, '-key' for descending: " + ", ".join(table.BY_KEY)),
    vendor: str | None = Query(None, description="vendor id(s), comma-separated"),
    availability: str | None = Query(None, description="buy, rent, cloud-only (comma-separated)"),
    workload: str | None = Query(None, description="training, inference, both (comma-separated)"),
    form_factor: str | None = Query(None, description="form factor(s), comma-separated"),
) -> list[AcceleratorSummary]:
    """Every accelerator (filtered and sorted like ``/silicon/``; ``{column}_min``/``_max`` ranges too)."""
    rows = table.rows(_catalog(request), _table_query(request))
    return [summary_view(r.accelerator) for r in rows]


def api_accelerator(request: Request, ident: str = ID_PATH) -> AcceleratorView:
    """One accelerator with every spec's state, basis, figure (canonical unit) and source."""
    catalog = _catalog(request)
    return accelerator_view(catalog, find_accelerator(catalog, ident))


def health(request: Request) -> JSONResponse:
    """Liveness, with the data version served."""
    catalog = _catalog(request)
    return JSONResponse({"status": "ok", "data_version": catalog.version, "accelerators": len(catalog.accelerators)})


@dataclass(frozen=True)
class Route:
    """One entry of the route table."""

    path: str
    endpoint: Callable[..., Any]
    name: str
    response_class: type[Response] = HTMLResponse
    response_model: Any = None
    methods: Sequence[str] = ("GET",)
    in_schema: bool = False
    summary: str | None = None


ROUTES: tuple[Route, ...] = (
    Route("/", home, "home"),
    Route("/silicon", silicon_redirect, "silicon_redirect", Response),
    Route("/silicon/", silicon_index, "silicon_index"),
    Route("/silicon/{ident}", silicon_page, "silicon_page"),
    Route("/api/accelerators", api_accelerators, "api_accelerators", JSONResponse, list[AcceleratorSummary], in_schema=True, summary="List accelerators"),
    Route("/api/accelerators/{ident}", api_accelerator, "api_accelerator", JSONResponse, AcceleratorView, in_schema=True, summary="One accelerator"),
    Route("/healthz", health, "health", JSONResponse),
)

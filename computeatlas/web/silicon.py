"""Silicon pages and API: the front page, the accelerator table and one accelerator."""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from computeatlas.core.catalog import Catalog
from computeatlas.core.citation import citation
from computeatlas.core.errors import BadRequest
from computeatlas.pages.accelerator import AcceleratorView, accelerator_view
from computeatlas.silicon import table
from computeatlas.silicon.specs import AcceleratorSummary, summary_view
from computeatlas.web.charts import silicon_charts
from computeatlas.web.page import (
    Route,
    catalog_of,
    find_accelerator,
    render,
    single_params,
)

ID_PATH = Path(description="accelerator id, e.g. 'aws-trainium-3'", max_length=100)


def _table_query(request: Request) -> table.Query:
    try:
        return table.parse_query(single_params(request), catalog_of(request))
    except table.QueryError as exc:
        raise BadRequest("Bad query parameter", str(exc)) from None


# --- pages ---------------------------------------------------------------------------


def home(request: Request) -> HTMLResponse:
    """The front page: what the atlas is and the layers."""
    catalog = catalog_of(request)
    return render(request, "home.html", page_title="Compute Atlas", count=len(catalog.accelerators))


def silicon_index(request: Request) -> HTMLResponse:
    """The table of all accelerators, sortable and filterable by query parameters."""
    catalog = catalog_of(request)
    query = _table_query(request)
    return render(
        request,
        "silicon_index.html",
        page_title="Accelerators",
        query=query,
        rows=table.rows(catalog, query),
        columns=table.COLUMNS,
        choices={key: table.choices(catalog, key) for key in table.CHOICE_FILTERS},
        charts=silicon_charts(catalog),
    )


def silicon_page(request: Request, ident: str = ID_PATH) -> HTMLResponse:
    """One accelerator: specifications with states, bases and sources."""
    catalog = catalog_of(request)
    view = accelerator_view(catalog, find_accelerator(catalog, ident))
    cite = citation(view.id, view.name, str(request.url.replace(query="", fragment="")), view.verified, view.data_version)
    return render(request, "accelerator.html", page_title=view.name, view=view, cite=cite)


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
    rows = table.rows(catalog_of(request), _table_query(request))
    return [summary_view(r.accelerator) for r in rows]


def api_accelerator(request: Request, ident: str = ID_PATH) -> AcceleratorView:
    """One accelerator with every spec's state, basis, figure (canonical unit) and source."""
    catalog = catalog_of(request)
    return accelerator_view(catalog, find_accelerator(catalog, ident))


def health(request: Request) -> JSONResponse:
    """Liveness, with the data version served."""
    catalog = catalog_of(request)
    return JSONResponse({"status": "ok", "data_version": catalog.version, "accelerators": len(catalog.accelerators)})


def static_paths(catalog: Catalog) -> Iterable[str]:
    """Every silicon page and API document, for the static build."""
    yield from ("/", "/silicon/", "/api/accelerators")
    for ident in catalog.accelerators:
        yield f"/silicon/{ident}"
        yield f"/api/accelerators/{ident}"


ROUTES: tuple[Route, ...] = (
    Route("/", home, "home"),
    Route("/silicon", silicon_redirect, "silicon_redirect", Response),
    Route("/silicon/", silicon_index, "silicon_index"),
    Route("/silicon/{ident}", silicon_page, "silicon_page"),
    Route("/api/accelerators", api_accelerators, "api_accelerators", JSONResponse, list[AcceleratorSummary], in_schema=True, summary="List accelerators"),
    Route("/api/accelerators/{ident}", api_accelerator, "api_accelerator", JSONResponse, AcceleratorView, in_schema=True, summary="One accelerator"),
    Route("/healthz", health, "health", JSONResponse),
)

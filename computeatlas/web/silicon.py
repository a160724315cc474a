"""Silicon pages and API: the front page, the accelerator table and one accelerator."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response
from pydantic import BaseModel

from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.amounts import CASE_FREE, UNITS
from computeatlas.core.amounts import MAX_LENGTH as AMOUNT_MAX_LENGTH
from computeatlas.core.citation import citation
from computeatlas.core.settings import Settings
from computeatlas.core.urls import site_path
from computeatlas.pages.accelerator import AcceleratorView, accelerator_view
from computeatlas.pages.accelerator_list import AcceleratorSummary, summary_view
from computeatlas.pages.cheapest import price_column as shared_price_column
from computeatlas.pages.filter_statement import silicon_statement
from computeatlas.silicon import table
from computeatlas.silicon.resolve import ResolveError, resolve_id
from computeatlas.web.charts import silicon_charts
from computeatlas.web.page import (
    Route,
    canonical_url,
    catalog_of,
    find_accelerator,
    page_cache_of,
    refuse_repeats,
    render,
    settings_of,
    slash_redirect,
    urls_of,
)

ID_PATH = Path(description="accelerator id, e.g. 'aws-trainium-3'", max_length=100)


TableQuery = Annotated[table.TableParams, Query()]
"""The table's declared query parameters (unknown ones are ignored)."""


def _table_query(request: Request, params: BaseModel) -> table.Query:
    """The parsed table query; a :class:`~computeatlas.silicon.table.QueryError` (400) names a
    bad parameter. ``columns`` may be given once per column (what the page's column picker, a
    form of checkboxes, sends) or once as a comma-separated list."""
    refuse_repeats(request, set(type(params).model_fields) - {"columns"})
    picked = request.query_params.getlist("columns")
    if len(picked) > 1:  # validated again as one list (its length too)
        return table.parse_query({**params.model_dump(exclude_none=True), "columns": ",".join(picked)}, catalog_of(request))
    return table.parse_query(params, catalog_of(request))


# --- pages ---------------------------------------------------------------------------


def home(request: Request) -> HTMLResponse:
    """The front page: what the atlas is and the layers. It reads no price (counting the
    store's current offers costs a scan of the freshness window, too much for the front page)."""
    catalog, settings = catalog_of(request), settings_of(request)
    return render(request, "home.html", page_title="Compute Atlas", count=len(catalog.accelerators), freshness_days=settings.freshness_days)


def price_column(catalog: Catalog, settings: Settings) -> dict[str, dict[str, table.Cell]]:
    """The table's columns read from outside the records: the cheapest price by the one rule
    (:func:`~computeatlas.cloud.cheapest_price.cheapest_prices`), read from the store now."""
    return shared_price_column(catalog, Store(settings.prices_dir), history.utcnow(), settings.freshness_days)


def index_context(catalog: Catalog, settings: Settings, query: table.Query) -> dict[str, Any]:
    """What the table of all accelerators renders (``silicon_index.html``), for ``query``: the
    rows with the cheapest-price column, the columns, the filter choices and the charts.
    Shared by the page and the render benchmark."""
    rows = table.rows(catalog, query, price_column(catalog, settings))
    return dict(
        page_title="Accelerators",
        query=query,
        rows=rows,
        statement=silicon_statement(query, len(rows), len(catalog.accelerators)),
        unfiltered={k: v for k, v in query.params().items() if k in ("sort", "columns")},
        columns=table.COLUMNS,
        freshness_days=settings.freshness_days,
        choices={key: table.choices(catalog, key) for key in table.CHOICE_FILTERS},
        charts=silicon_charts(catalog),
        table_spec=table_spec(),
    )


def table_spec() -> dict[str, Any]:
    """What the table's script (``static/table.js``, which filters and sorts the rows of a
    static copy of ``/silicon/`` in the browser) needs to read the query as
    :func:`~computeatlas.silicon.table.parse_query` does: each column's label and whether it
    sorts by number, each range column's display unit, its size in canonical units
    (``scale``) and the units a visitor may write (each one's size in canonical units; byte
    units are matched as written, compute and power units ignoring case), the choice
    filters, the columns shown by default (``shown``) and the longest value. The script shows no figure of its own: it reorders and
    hides the rows the server rendered."""
    columns: dict[str, Any] = {}
    for col in table.COLUMNS:
        entry: dict[str, Any] = {"label": col.label, "by_number": col.sortable_by_number}
        if col.numeric and col.dimension is not None:
            entry.update(
                unit=col.unit,
                scale=col.scale,
                units=dict(UNITS[col.dimension]),
                fold=col.dimension in CASE_FREE,
            )
        columns[col.key] = entry
    return {
        "columns": columns,
        "shown": list(table.DEFAULT_COLUMNS),
        "choices": list(table.CHOICE_FILTERS),
        "max_value": table.MAX_VALUE,
        "max_amount": AMOUNT_MAX_LENGTH,
    }


def answered_query(request: Request, declared: Iterable[str]) -> str:
    """The part of the request's query string the page answered: its declared parameters only
    (a page cached for ``?sort=-memory`` is served for ``?sort=-memory&utm_source=x`` too, and
    must say the same), as written when nothing else was given."""
    names = set(declared)
    items = request.query_params.multi_items()
    if all(k in names for k, _ in items):
        return request.url.query
    return urlencode([(k, v) for k, v in items if k in names])


def silicon_index(request: Request, params: TableQuery) -> HTMLResponse:
    """The table of all accelerators, sortable and filterable by query parameters."""
    context = index_context(catalog_of(request), settings_of(request), _table_query(request, params))
    return render(request, "silicon_index.html", answered=answered_query(request, type(params).model_fields), **context)


def _accelerator_view(request: Request, ident: str) -> AcceleratorView:
    """The accelerator view with the rental range read from the observation store now; built
    once per date and store version for the page and its JSON twin (:meth:`PageCache.shared`,
    the page cache's key: both answers are cached on it anyway)."""
    settings = settings_of(request)
    acc = find_accelerator(request, ident)
    return page_cache_of(request).shared(
        f"accelerator {acc.id}",
        lambda: accelerator_view(
            catalog_of(request),
            acc,
            store=Store(settings.prices_dir),
            now=history.utcnow(),
            freshness_days=settings.freshness_days,
            rates=rates_of(settings),
        ),
    )


def silicon_page(request: Request, ident: str = ID_PATH) -> HTMLResponse:
    """One accelerator: specifications with states, bases and sources."""
    view = _accelerator_view(request, ident)
    cite = citation(view.id, view.name, canonical_url(request), view.verified, view.data_version)
    return render(request, "accelerator.html", page_title=view.name, view=view, cite=cite)


def silicon_redirect(request: Request) -> Response:
    """``/silicon`` without the slash goes to the table."""
    return slash_redirect(request, urls_of(request).path("silicon_index"))


# --- API -----------------------------------------------------------------------------


def api_accelerators(request: Request, params: TableQuery) -> list[AcceleratorSummary]:
    """Every accelerator (filtered and sorted like ``/silicon/``; ``{column}_min``/``_max`` ranges too)."""
    query = _table_query(request, params)
    rows = table.rows(
        catalog_of(request), query, price_column(catalog_of(request), settings_of(request)) if query.sort == "price" else None
    )
    return [summary_view(r.accelerator) for r in rows]


def api_accelerator(request: Request, ident: str = ID_PATH) -> AcceleratorView:
    """One accelerator with every spec's state, basis, figure (canonical unit) and source."""
    return _accelerator_view(request, ident)


def health(request: Request) -> JSONResponse:
    """Liveness, with the data version served and the app's cache in figures (this process's:
    :meth:`~computeatlas.core.cache.Cache.report`, bytes estimated)."""
    catalog = catalog_of(request)
    return JSONResponse(
        {
            "status": "ok",
            "data_version": catalog.version,
            "accelerators": len(catalog.accelerators),
            "cache": request.app.state.cache.report(),
        }
    )


def static_paths(catalog: Catalog) -> Iterable[str]:
    """Every silicon page and API document, for the static build."""
    yield from (site_path(n) for n in ("home", "silicon_index", "api_accelerators"))
    for ident in catalog.accelerators:
        yield site_path("silicon_page", ident=ident)
        yield site_path("api_accelerator", ident=ident)


def redirect_paths(catalog: Catalog) -> Iterable[str]:
    """Every other name of a part that its page answers with a redirect (a 301 to the page at
    its id): each alias, family alias and part number that names exactly one part, for the
    static build's redirect pages. A name that could mean several parts (``H100``) is not
    one (its page lists the candidates), and nor is a name with a dot or a slash, which a
    static host cannot serve as a page folder."""
    seen: set[str] = set(catalog.accelerators)
    for acc in catalog.accelerators.values():
        for name in (*acc.aliases, *acc.family_aliases, *acc.part_numbers):
            if name in seen or "." in name or "/" in name:
                continue
            seen.add(name)
            try:
                if resolve_id(catalog, name) == acc.id:
                    yield site_path("silicon_page", ident=name)
            except ResolveError:
                continue


ROUTES: tuple[Route, ...] = (
    Route(home, "home"),
    Route(silicon_redirect, "silicon_redirect", Response),
    Route(silicon_index, "silicon_index"),
    Route(silicon_page, "silicon_page"),
    Route(api_accelerators, "api_accelerators", JSONResponse, list[AcceleratorSummary], in_schema=True, summary="List accelerators"),
    Route(api_accelerator, "api_accelerator", JSONResponse, AcceleratorView, in_schema=True, summary="One accelerator"),
    Route(health, "health", JSONResponse),
)

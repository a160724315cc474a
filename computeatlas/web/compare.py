"""Comparison pages and API: curated pairs, any 2–6 parts side by side, and search by name.

- ``/compare/``: the curated comparisons and a form to compare any parts;
- ``/compare/{a}-vs-{b}``: one pair at its canonical URL (ids sorted); the other order,
  or aliases (``/compare/trn3-vs-ironwood``), redirect to it with 301;
- ``/compare/?ids=a,b,c``: 3 to 6 parts (two ids redirect to the pair's URL);
- ``/search?q=``: a name or word people use → the page of the one hit when it alone matches,
  and exactly, else every hit ranked with its kind: parts, systems, models, providers, energy
  topics and comparisons (see :mod:`computeatlas.silicon.search`, :mod:`computeatlas.pages.search`);
- ``/api/compare?ids=…``, ``/api/compare/{a}-vs-{b}`` and ``/api/search?q=…``: the same
  objects as JSON; ``/api/search-index``: the index the static site searches in the browser;
  ``/api/compare/parts/{ident}``: one part's cells in every comparison, from which the static
  site's script shows any pair (see :mod:`computeatlas.pages.comparison_columns`).

Every bad input is a 4xx naming what was wrong (see :class:`computeatlas.silicon.comparison.CompareError`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated
from urllib.parse import quote

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.cloud.cheapest_price import cheapest_prices
from computeatlas.cloud.store import Store
from computeatlas.core.cache import active
from computeatlas.core.errors import BadRequest, NotFound, PageError, ParamError
from computeatlas.core.urls import site_path
from computeatlas.pages import search as search_pages
from computeatlas.pages.compare_prices import with_prices
from computeatlas.pages.comparison import ComparisonView, comparison_view
from computeatlas.pages.comparison_columns import ComparisonColumn, comparison_column
from computeatlas.pages.providers import every_offer, shown_providers
from computeatlas.silicon import comparison_parts, resolve
from computeatlas.silicon.curated import pair_id
from computeatlas.silicon.related import title_of
from computeatlas.web.page import Moved, Route, catalog_of, render, settings_of, slash_redirect, urls_of

MAX_QUERY = 2000
"""Longest ``ids`` value accepted, in characters (``q`` is a name: at most :data:`resolve.MAX_NAME`)."""

PAIR_PATH = Path(description="two accelerator ids joined by '-vs-', e.g. 'nvidia-h100-sxm-vs-nvidia-h200-sxm'", max_length=400)
IDS_DESCRIPTION = (
    f"{comparison_parts.MIN_PARTS} to {comparison_parts.MAX_PARTS} accelerator ids, aliases or names, comma-separated "
    "(e.g. 'nvidia-h100-sxm,H200'); may be repeated"
)
Q_DESCRIPTION = "an id, alias, name or words of one, e.g. 'Trn3', 'H100 SXM5 80GB', 'TPU', 'Blackwell', 'Llama 3.3 70B' or 'coreweave'"


class CompareParams(BaseModel):
    """The query of ``/compare/`` and ``/api/compare``; other parameters are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    ids: list[str] | None = Field(None, description=IDS_DESCRIPTION)


class ApiCompareParams(CompareParams):
    """The query of ``/api/compare``: ``ids`` is required there (without it the answer is a 400)."""

    ids: list[str] = Field(..., min_length=1, description=IDS_DESCRIPTION)


class SearchParams(BaseModel):
    """The query of ``/search``; other parameters are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    q: str | None = Field(None, max_length=resolve.MAX_NAME, description=Q_DESCRIPTION)


def _page_error(exc: comparison_parts.CompareError) -> PageError:
    suggestions = [(f"{c.name} ({c.id})", search_pages.page_of(c.id)) for c in exc.options]
    if exc.status == 404:
        return NotFound("No such accelerator", exc.message, suggestions)
    return BadRequest("Cannot compare these", exc.message, suggestions)


def _build(request: Request, catalog: Catalog, names: list[str]) -> ComparisonView:
    """The comparison of ``names`` with its price rows read from the observation store now."""
    try:
        view = comparison_view(catalog, names)
    except comparison_parts.CompareError as exc:
        raise _page_error(exc) from None
    settings = settings_of(request)
    return with_prices(catalog, view, Store(settings.prices_dir), history.utcnow(), settings.freshness_days)


def _ids_param(params: CompareParams | ApiCompareParams) -> list[str] | None:
    """The ``ids`` values (comma-separated or repeated), or None when the parameter is absent."""
    if params.ids is None:
        return None
    if sum(len(v) for v in params.ids) > MAX_QUERY:
        raise ParamError("ids", f"longer than {MAX_QUERY} characters")
    return comparison_parts.split_ids(params.ids)


def _resolved(catalog: Catalog, names: list[str]) -> list[str]:
    try:
        return comparison_parts.resolve_parts(catalog, names)
    except comparison_parts.CompareError as exc:
        raise _page_error(exc) from None


def _pair_ids(catalog: Catalog, pair: str) -> list[str]:
    """The two ids ``{a}-vs-{b}`` names (ids, aliases or names); raises :class:`NotFound` or
    :class:`BadRequest` naming what was wrong."""
    if "-vs-" not in pair:
        raise NotFound(
            "No such comparison",
            f"'{pair}' is not a pair: a comparison URL reads /compare/{{a}}-vs-{{b}}, e.g. /compare/nvidia-h100-sxm-vs-nvidia-h200-sxm.",
        )
    pieces = pair.split("-vs-")
    first_error: comparison_parts.CompareError | None = None
    for n in range(1, len(pieces)):  # an id could itself contain "-vs-": take the split whose sides both resolve
        try:
            return comparison_parts.resolve_parts(catalog, ["-vs-".join(pieces[:n]), "-vs-".join(pieces[n:])])
        except comparison_parts.CompareError as exc:
            first_error = first_error or exc
    raise _page_error(first_error)  # type: ignore[arg-type]


# --- pages ---------------------------------------------------------------------------


def compare_index(request: Request, params: Annotated[CompareParams, Query()]) -> Response:
    """The curated comparisons and a form; with ``?ids=`` a comparison of 3 to 6 parts."""
    catalog = catalog_of(request)
    names = _ids_param(params)
    if names is None:
        curated = sorted(((title_of(catalog, c), c) for c in catalog.comparisons.values()), key=lambda tc: tc[0].lower())
        return render(
            request,
            "compare_index.html",
            page_title="Compare accelerators",
            curated=curated,
            choices=[(a.id, a.name) for a in catalog.accelerators.values()],
            slots=comparison_parts.MAX_PARTS,
        )
    ids = _resolved(catalog, names)
    if len(ids) == 2:
        return RedirectResponse(urls_of(request).path("compare_pair", pair=pair_id(*ids)), status_code=302)
    if ids != names:  # aliases or names given: send to the one URL for this list
        return RedirectResponse(urls_of(request).path("compare_index") + "?ids=" + quote(",".join(ids), safe=","), status_code=302)
    view = _build(request, catalog, ids)
    return render(request, "compare.html", page_title=view.title, view=view)


def compare_pair(request: Request, pair: str = PAIR_PATH) -> Response:
    """One pair at its canonical URL; other spellings and orders redirect there (301)."""
    catalog = catalog_of(request)
    ids = _pair_ids(catalog, pair)
    canonical = pair_id(*ids)
    if pair != canonical:
        return RedirectResponse(urls_of(request).path("compare_pair", pair=canonical), status_code=301)
    view = _build(request, catalog, ids)
    return render(request, "compare.html", page_title=view.title, view=view)


def compare_redirect(request: Request) -> Response:
    """``/compare`` without the slash goes to the index."""
    return slash_redirect(request, urls_of(request).path("compare_index"))


def _shown(request: Request) -> dict[str, str]:
    """Every provider with a page (recorded, or shown by its prices: offers of any age, so
    this depends only on the store's contents), id → display name, kept in the active cache
    per data version and store version."""
    catalog, settings = catalog_of(request), settings_of(request)
    store = Store(settings.prices_dir)

    def build() -> dict[str, str]:
        every = every_offer(catalog, store, history.utcnow(), settings.freshness_days, settings.hours_per_month)
        named = {o.provider: o.provider_name for o in every} | {i: p.name for i, p in catalog.providers.items()}
        return {i: named[i] for i in shown_providers(catalog, every)}

    return active().get_or_build(search_pages.INDEXES, ("providers", catalog.version, store.version()), build)


def search(request: Request, params: Annotated[SearchParams, Query()]) -> Response:
    """Find anything with a page by id, alias, name or words: when the only match is exact it
    redirects (302) to its page; otherwise every hit is listed with its kind, exact matches
    first, then prefixes, then word matches (an ambiguous
    name lists its candidates; nothing is picked); no match is a 404 page with suggestions."""
    catalog = catalog_of(request)
    q = params.q
    if q is None or not q.strip():
        return render(request, "search.html", page_title="Search the atlas", result=None, q="")
    try:
        result = search_pages.search_result(catalog, q, _shown(request))
    except resolve.ResolveError as exc:
        raise BadRequest("Bad search", f"query parameter 'q': {exc.message}") from None
    if result.match is not None and len(result.matches) == 1:
        return RedirectResponse(urls_of(request).link(result.match.url), status_code=302)
    status = 404 if result.status == "unknown" else 200
    return render(request, "search.html", status=status, page_title=f"Search: {q}", result=result, q=q)


# --- API -----------------------------------------------------------------------------


def api_compare(request: Request, params: Annotated[ApiCompareParams, Query()]) -> ComparisonView:
    """2 to 6 accelerators aligned by spec: states, bases, sources, ratios where comparable,
    the headline compute format and derived figures. A pair comes in its page's order."""
    return _build(request, catalog_of(request), _ids_param(params) or [])


def api_compare_pair(request: Request, pair: str = PAIR_PATH) -> ComparisonView:
    """One pair as ``/compare/{a}-vs-{b}`` shows it (ids sorted in the URL); another order or
    spelling redirects (301) to the canonical URL."""
    catalog = catalog_of(request)
    ids = _pair_ids(catalog, pair)
    canonical = pair_id(*ids)
    if pair != canonical:
        raise Moved(urls_of(request).path("api_compare_pair", pair=canonical))
    return _build(request, catalog, ids)


def api_compare_part(
    request: Request, ident: str = Path(description="an accelerator id, e.g. 'nvidia-h100-sxm'", max_length=200)
) -> ComparisonColumn:
    """One accelerator's cells as every comparison shows them (without the ratios, which
    depend on the other part) and, for each uncurated pair it is shown first in, the pair's
    title, headline, rows and the other part's ratios: what the static site's script arranges
    into any pair's page. An alias is not an id here: a 404 names the closest ids."""
    catalog, settings = catalog_of(request), settings_of(request)
    if ident not in catalog.accelerators:
        options = [resolve.candidate(catalog, i) for i in resolve.closest_ids(catalog, ident)]
        raise _page_error(comparison_parts.CompareError(f"No accelerator has the id '{ident}'.", 404, options))
    cheapest = cheapest_prices(Store(settings.prices_dir), history.utcnow(), settings.freshness_days, catalog)
    return comparison_column(catalog, ident, cheapest, settings.freshness_days)


def api_search(request: Request, q: str = Query(..., max_length=resolve.MAX_NAME, description=Q_DESCRIPTION)) -> search_pages.SearchResult:
    """Every hit a name or words may mean, each with its ``kind`` (accelerator, system, model,
    provider, energy topic, comparison), ranked: exact id, alias and name matches first, then
    hits whose id, alias or name begins with the query (``gpt-oss``), then hits whose words
    begin with the query's words (``TPU``, ``Blackwell``, ``MI300``).
    ``match`` is set only for one exact match; an ambiguous name lists its candidates; an
    unknown one the closest ids."""
    try:
        return search_pages.search_result(catalog_of(request), q, _shown(request))
    except resolve.ResolveError as exc:
        raise BadRequest("Bad search", f"query parameter 'q': {exc.message}") from None


def api_search_index(request: Request) -> search_pages.SearchIndex:
    """The search index the static site's script searches (the same ranking as ``/api/search``)."""
    return search_pages.search_index(catalog_of(request), _shown(request))


def static_paths(catalog: Catalog) -> Iterable[str]:
    """The comparison index, every curated pair's page and JSON, the search page and its index,
    and every part's comparison column (the static site's script shows any other pair from
    them), for the static build; query-string URLs (``?ids=``, ``?q=``) need a server."""
    yield site_path("compare_index")
    yield site_path("search")
    yield site_path("api_search_index")
    for ident in catalog.comparisons:
        yield site_path("compare_pair", pair=ident)
    for ident in catalog.comparisons:
        yield site_path("api_compare_pair", pair=ident)
    for ident in catalog.accelerators:
        yield site_path("api_compare_part", ident=ident)


def redirect_paths(catalog: Catalog) -> Iterable[str]:
    """The other order of every curated pair (``/compare/b-vs-a``), which the app redirects
    (301) to the pair's one URL: for the static build's redirect pages."""
    for curated in catalog.comparisons.values():
        first, second = sorted(curated.parts)  # the pair's id is pair_id(first, second)
        yield site_path("compare_pair", pair=f"{second}-vs-{first}")


ROUTES: tuple[Route, ...] = (
    Route(compare_redirect, "compare_redirect", Response),
    Route(compare_index, "compare_index", HTMLResponse),
    Route(compare_pair, "compare_pair", HTMLResponse),
    Route(search, "search", HTMLResponse),
    Route(api_compare, "api_compare", JSONResponse, ComparisonView, in_schema=True, summary="Compare 2 to 6 accelerators"),
    Route(
        api_compare_pair,
        "api_compare_pair",
        JSONResponse,
        ComparisonView,
        in_schema=True,
        summary="Compare one pair of accelerators",
    ),
    Route(
        api_compare_part,
        "api_compare_part",
        JSONResponse,
        ComparisonColumn,
        in_schema=True,
        summary="One accelerator's cells in every comparison",
    ),
    Route(
        api_search,
        "api_search",
        JSONResponse,
        search_pages.SearchResult,
        in_schema=True,
        summary="Find accelerators by name, alias or words",
    ),
    Route(
        api_search_index,
        "api_search_index",
        JSONResponse,
        search_pages.SearchIndex,
        in_schema=True,
        summary="The search index of the static site",
    ),
)

"""Comparison pages and API: curated pairs, any 2–6 parts side by side, and search by name.

- ``/compare/``: the curated comparisons and a form to compare any parts;
- ``/compare/{a}-vs-{b}``: one pair at its canonical URL (ids sorted); the other order,
  or aliases (``/compare/trn3-vs-ironwood``), redirect to it with 301;
- ``/compare/?ids=a,b,c``: 3 to 6 parts (two ids redirect to the pair's URL);
- ``/search?q=``: a name people use → the part's page, the candidates, or suggestions;
- ``/api/compare?ids=…`` and ``/api/search?q=…``: the same objects as JSON.

Every bad input is a 4xx naming what was wrong (see :class:`computeatlas.silicon.comparison.CompareError`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated
from urllib.parse import quote

from fastapi import Path, Query, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from computeatlas.core.catalog import Catalog
from computeatlas.core.errors import BadRequest, InputError, NotFound, PageError
from computeatlas.core.urls import site_path
from computeatlas.silicon import comparison as compare
from computeatlas.silicon import resolve
from computeatlas.silicon.curated import pair_id
from computeatlas.silicon.related import title_of
from computeatlas.web.page import Route, catalog_of, render, urls_of

MAX_QUERY = 2000
"""Longest ``ids`` value accepted, in characters (``q`` is a name: at most :data:`resolve.MAX_NAME`)."""

PAIR_PATH = Path(description="two accelerator ids joined by '-vs-', e.g. 'nvidia-h100-sxm-vs-nvidia-h200-sxm'", max_length=400)
IDS_DESCRIPTION = (
    f"{compare.MIN_PARTS} to {compare.MAX_PARTS} accelerator ids, aliases or names, comma-separated "
    "(e.g. 'nvidia-h100-sxm,H200'); may be repeated"
)
Q_DESCRIPTION = "an id, alias or exact name, e.g. 'Trn3' or 'H100 SXM5 80GB'"


class CompareParams(BaseModel):
    """The query of ``/compare/`` and ``/api/compare``; other parameters are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    ids: list[str] | None = Field(None, description=IDS_DESCRIPTION)


class ApiCompareParams(CompareParams):
    """The query of ``/api/compare``: ``ids`` is required there (without it the answer is a 400)."""

    ids: list[str] = Field(..., min_length=1, description=IDS_DESCRIPTION)  # type: ignore[assignment]


class SearchParams(BaseModel):
    """The query of ``/search``; other parameters are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    q: str | None = Field(None, max_length=resolve.MAX_NAME, description=Q_DESCRIPTION)


def _page_error(exc: compare.CompareError) -> PageError:
    suggestions = [(f"{c.name} ({c.id})", c.url) for c in exc.options]
    if exc.status == 404:
        return NotFound("No such accelerator", exc.message, suggestions)
    return BadRequest("Cannot compare these", exc.message, suggestions)


def _build(catalog: Catalog, names: list[str]) -> compare.ComparisonView:
    try:
        return compare.build(catalog, names)
    except compare.CompareError as exc:
        raise _page_error(exc) from None


def _ids_param(params: CompareParams | ApiCompareParams) -> list[str] | None:
    """The ``ids`` values (comma-separated or repeated), or None when the parameter is absent."""
    if params.ids is None:
        return None
    if sum(len(v) for v in params.ids) > MAX_QUERY:
        raise InputError("ids", f"longer than {MAX_QUERY} characters")
    return compare.split_ids(params.ids)


def _resolved(catalog: Catalog, names: list[str]) -> list[str]:
    try:
        return compare.resolve_parts(catalog, names)
    except compare.CompareError as exc:
        raise _page_error(exc) from None


# --- pages ---------------------------------------------------------------------------


def compare_index(request: Request, params: Annotated[CompareParams, Query()]) -> Response:
    """The curated comparisons and a form; with ``?ids=`` a comparison of 3 to 6 parts."""
    catalog = catalog_of(request)
    names = _ids_param(params)
    if names is None:
        curated = sorted(
            ((title_of(catalog, c), c) for c in catalog.comparisons.values()), key=lambda tc: tc[0].lower()
        )
        return render(
            request,
            "compare_index.html",
            page_title="Compare accelerators",
            curated=curated,
            choices=[(a.id, a.name) for a in catalog.accelerators.values()],
            slots=compare.MAX_PARTS,
        )
    ids = _resolved(catalog, names)
    if len(ids) == 2:
        return RedirectResponse(urls_of(request).path("compare_pair", pair=pair_id(*ids)), status_code=302)
    if ids != names:  # aliases or names given: send to the one URL for this list
        return RedirectResponse(urls_of(request).path("compare_index") + "?ids=" + quote(",".join(ids), safe=","), status_code=302)
    view = _build(catalog, ids)
    return render(request, "compare.html", page_title=view.title, view=view)


def compare_pair(request: Request, pair: str = PAIR_PATH) -> Response:
    """One pair at its canonical URL; other spellings and orders redirect there (301)."""
    catalog = catalog_of(request)
    if "-vs-" not in pair:
        raise NotFound("No such comparison", f"'{pair}' is not a pair: a comparison URL reads /compare/{{a}}-vs-{{b}}, e.g. /compare/nvidia-h100-sxm-vs-nvidia-h200-sxm.")
    pieces = pair.split("-vs-")
    splits = [("-vs-".join(pieces[:n]), "-vs-".join(pieces[n:])) for n in range(1, len(pieces))]
    first_error: compare.CompareError | None = None
    ids: list[str] | None = None
    for left, right in splits:  # an id could itself contain "-vs-": take the split whose sides both resolve
        try:
            ids = compare.resolve_parts(catalog, [left, right])
            break
        except compare.CompareError as exc:
            first_error = first_error or exc
    if ids is None:
        raise _page_error(first_error)  # type: ignore[arg-type]
    canonical = pair_id(*ids)
    if pair != canonical:
        return RedirectResponse(urls_of(request).path("compare_pair", pair=canonical), status_code=301)
    view = _build(catalog, ids)
    return render(request, "compare.html", page_title=view.title, view=view)


def compare_redirect(request: Request) -> Response:
    """``/compare`` without the slash goes to the index."""
    return RedirectResponse(urls_of(request).path("compare_index"), status_code=301)


def search(request: Request, params: Annotated[SearchParams, Query()]) -> Response:
    """Find a part by id, alias or exact name: one match redirects (302) to its page; an
    ambiguous name lists the candidates; an unknown one is a 404 page with suggestions."""
    catalog = catalog_of(request)
    q = params.q
    if q is None or not q.strip():
        return render(request, "search.html", page_title="Find an accelerator", result=None, q="")
    try:
        result = resolve.resolve(catalog, q)
    except resolve.ResolveError as exc:
        raise BadRequest("Bad search", f"query parameter 'q': {exc.message}") from None
    if result.match is not None:
        return RedirectResponse(result.match.url, status_code=302)
    status = 404 if result.status == "unknown" else 200
    return render(request, "search.html", status=status, page_title=f"Search: {q}", result=result, q=q)


# --- API -----------------------------------------------------------------------------


def api_compare(request: Request, params: Annotated[ApiCompareParams, Query()]) -> compare.ComparisonView:
    """2 to 6 accelerators aligned by spec: states, bases, sources, ratios where comparable,
    the headline compute format and derived figures. A pair comes in its page's order."""
    return _build(catalog_of(request), _ids_param(params) or [])


def api_search(request: Request, q: str = Query(..., max_length=resolve.MAX_NAME, description=Q_DESCRIPTION)) -> resolve.Resolution:
    """Resolve a name people use (id, alias, exact name) to accelerator ids; an ambiguous
    name lists every candidate, an unknown one the closest ids."""
    try:
        return resolve.resolve(catalog_of(request), q)
    except resolve.ResolveError as exc:
        raise BadRequest("Bad search", f"query parameter 'q': {exc.message}") from None


def static_paths(catalog: Catalog) -> Iterable[str]:
    """The comparison index, every curated pair's page and the (empty) search page, for the
    static build; query-string URLs (``?ids=``, ``?q=``, ``/api/compare``) are live only."""
    yield site_path("compare_index")
    yield site_path("search")
    for ident in catalog.comparisons:
        yield site_path("compare_pair", pair=ident)


ROUTES: tuple[Route, ...] = (
    Route(compare_redirect, "compare_redirect", Response),
    Route(compare_index, "compare_index", HTMLResponse),
    Route(compare_pair, "compare_pair", HTMLResponse),
    Route(search, "search", HTMLResponse),
    Route(api_compare, "api_compare", JSONResponse, compare.ComparisonView, in_schema=True, summary="Compare 2 to 6 accelerators"),
    Route(api_search, "api_search", JSONResponse, resolve.Resolution, in_schema=True, summary="Find an accelerator by name or alias"),
)

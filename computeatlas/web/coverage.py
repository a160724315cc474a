"""Coverage page and API: how much of the silicon table is sourced, and by whom.

``/silicon/coverage`` and ``/api/coverage`` are built from one view
(:func:`computeatlas.silicon.coverage.coverage_view`). This module sits before
:mod:`computeatlas.web.silicon` in the route table so that ``/silicon/coverage`` is not
read as an accelerator id.
"""

from __future__ import annotations

from collections.abc import Iterable

from fastapi import Request
from fastapi.responses import HTMLResponse, JSONResponse

from computeatlas.catalog import Catalog
from computeatlas.core.urls import site_path
from computeatlas.silicon.coverage import CORE_FIELDS, Coverage, coverage_view, percent
from computeatlas.web.page import Route, catalog_of, render


def coverage_page(request: Request) -> HTMLResponse:
    """Per accelerator and core field: published (read on the maker's own site, the maker's document via a copy,
    or other sources), disputed, not yet sourced; totals per field and per maker."""
    view = coverage_view(catalog_of(request))
    return render(
        request,
        "coverage.html",
        page_title="Coverage of the silicon table",
        view=view,
        headings=[label for _, label in CORE_FIELDS],
        percent=percent,
    )


def api_coverage(request: Request) -> Coverage:
    """The coverage report: every accelerator's core fields by state, per field, per maker and in total."""
    return coverage_view(catalog_of(request))


def static_paths(catalog: Catalog) -> Iterable[str]:
    """The coverage page and its JSON, for the static build."""
    yield from (site_path("coverage"), site_path("api_coverage"))


ROUTES: tuple[Route, ...] = (
    Route(coverage_page, "coverage"),
    Route(api_coverage, "api_coverage", JSONResponse, Coverage, in_schema=True, summary="Coverage of the silicon table"),
)

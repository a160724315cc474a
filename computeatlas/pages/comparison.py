"""A comparison page and ``/api/compare``: the comparison the records give
(:func:`computeatlas.silicon.comparison.build`) with its links.

One canonical URL per pair (``/compare/{a}-vs-{b}``); three or more parts are listed in the
query (``/compare/?ids=a,b,c``), in the order shown.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.core.urls import site_path
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.comparison import build
from computeatlas.silicon.comparison_views import ComparisonTable, CuratedView, HeadlineView, PairGap, RowView
from computeatlas.silicon.curated import pair_id


class PartView(BaseModel):
    """One accelerator in a comparison (a column)."""

    id: str
    name: str
    vendor: str
    availability: str
    verified: dt.date
    url: str
    api_url: str
    data_file: str


class ComparisonView(BaseModel):
    """A whole comparison: the page data and the body of ``/api/compare``."""

    ids: list[str]
    title: str
    url: str = Field(description="the page: /compare/{a}-vs-{b} for a pair, /compare/?ids=… for more")
    api_url: str = Field(description="this document: /api/compare/{a}-vs-{b} for a pair, /api/compare?ids=… for more")
    parts: list[PartView]
    reference: str = Field(description="the part ratios are taken against (the first)")
    curated: CuratedView | None = None
    headline: HeadlineView
    gaps: list[PairGap] = Field(description="pairs with no shared dense per-accelerator number format")
    rows: list[RowView]
    derived: list[RowView] = Field(description="derived from published figures, each with its formula")
    prices: list[RowView] = Field(
        default_factory=list, description="the cheapest current on-demand price and price-performance; empty where prices were not read"
    )
    data_version: str
    kind: Literal["comparison"] = "comparison"


def comparison_view(catalog: SiliconCatalog, names: Sequence[str]) -> ComparisonView:
    """The comparison of ``names`` (2–6 ids, aliases or names) with its links; raises
    :class:`~computeatlas.silicon.comparison.CompareError` for bad input."""
    return with_links(catalog, build(catalog, names))


def with_links(catalog: SiliconCatalog, table: ComparisonTable) -> ComparisonView:
    """``table`` with its page and API paths and each part's page, API path and data file."""
    ids = table.ids
    pair = len(ids) == 2
    listed = "?ids=" + ",".join(ids)
    return ComparisonView(
        ids=ids,
        title=table.title,
        url=site_path("compare_pair", pair=pair_id(*ids)) if pair else site_path("compare_index") + listed,
        api_url=site_path("api_compare_pair", pair=pair_id(*ids)) if pair else site_path("api_compare") + listed,
        parts=[
            PartView(
                **dict(part),
                url=site_path("silicon_page", ident=part.id),
                api_url=site_path("api_accelerator", ident=part.id),
                data_file=catalog.files[f"accelerators/{part.id}"],
            )
            for part in table.parts
        ],
        reference=table.reference,
        curated=table.curated,
        headline=table.headline,
        gaps=table.gaps,
        rows=table.rows,
        derived=table.derived,
        data_version=table.data_version,
    )


__all__ = ["ComparisonView", "PartView", "comparison_view", "with_links"]

"""One part's share of every comparison it can be in: what the static site's script
(``static/compare.js``) arranges into the page of a pair that was not built in advance.

A comparison's cells are each part's own (the same in every comparison: see
:class:`~computeatlas.silicon.comparison_views.CellView`) except the fields that depend on the
other part (:data:`~computeatlas.silicon.comparison_views.PAIR_FIELDS`: the ratio, its
words, why there is none). So :func:`comparison_column` holds

- the part's own cells, one per row key any comparison can have, as the comparison code
  makes them (:func:`~computeatlas.silicon.comparison.own_cells`,
  :func:`~computeatlas.pages.compare_prices.own_price_cells`: :attr:`ComparisonColumn.cells`), and
- for each pair the part is shown first in (the reference, whose ratios are taken against
  it), what belongs to the pair only, from the real comparison of the pair
  (:func:`~computeatlas.pages.comparison.comparison_view` and its price rows, the code behind
  ``/compare/{a}-vs-{b}``): its title, headline, which rows each table has with their
  headings, and the other part's ratio fields (:class:`PairView`, :attr:`ComparisonColumn.rows`).

Every figure and every sentence is the server's, as the live page shows it; the script
only puts them in place. Curated pairs are not listed: their pages are built (they carry
a verdict the columns do not hold).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.catalog import Catalog
from computeatlas.cloud.cheapest_price import CheapestPrice
from computeatlas.core.numbers import data_number
from computeatlas.pages.compare_prices import own_price_cells, price_rows
from computeatlas.pages.comparison import PartView, comparison_view
from computeatlas.silicon.comparison import own_cells
from computeatlas.silicon.comparison_views import CellView, HeadlineView, RowView
from computeatlas.silicon.curated import pair_id

TABLES = ("rows", "derived", "prices")
"""The tables of a comparison page, in the order shown (the fields of the comparison view)."""


class RowHead(BaseModel):
    """A row's heading: everything of a :class:`RowView` but its cells."""

    key: str
    label: str
    group: str
    number_format: str | None = None
    unit: str | None = None
    formula: str | None = None
    note: str | None = None


class PairCell(BaseModel):
    """The second part's fields in one row of a pair that depend on the first (the reference)."""

    ratio: float | None = None
    ratio_data: str | None = Field(None, description="the ratio as the page's data-ratio attribute writes it (six significant figures)")
    ratio_display: str | None = None
    ratio_reason: str | None = None


class PairView(BaseModel):
    """What a pair adds to its parts' columns: the title, the headline, the row keys of each
    table in order, and the second part's ratio fields where it has any."""

    ids: list[str] = Field(description="the pair in the order shown; the first is the reference")
    title: str
    headline: HeadlineView = Field(description="the headline's number format and words (its row is in the tables)")
    rows: list[str]
    derived: list[str]
    prices: list[str]
    ratios: dict[str, PairCell] = Field(description="row key → the second part's ratio fields, for rows where it has any")


class ComparisonColumn(BaseModel):
    """One part's cells in every comparison, and the pairs it is the reference of (the body of
    ``/api/compare/parts/{ident}``)."""

    part: PartView
    rows: dict[str, RowHead] = Field(description="row key → heading, for every row of the pairs this part is shown first in")
    cells: dict[str, CellView] = Field(description="row key → this part's cell in any comparison, without the pair's fields")
    pairs: dict[str, PairView] = Field(description="other part's id → the pair, for each uncurated pair this part is shown first in")
    data_version: str
    kind: Literal["comparison_column"] = "comparison_column"


def _pair_cell(cell: CellView) -> PairCell | None:
    if cell.ratio is None and cell.ratio_display is None and cell.ratio_reason is None:
        return None
    ratio_data = data_number(cell.ratio) if cell.ratio is not None else None
    return PairCell(ratio=cell.ratio, ratio_data=ratio_data, ratio_display=cell.ratio_display, ratio_reason=cell.ratio_reason)


def _head(row: RowView) -> RowHead:
    return RowHead(**row.model_dump(mode="json", include=set(RowHead.model_fields)))


def comparison_column(catalog: Catalog, ident: str, cheapest: dict[str, CheapestPrice], freshness_days: int) -> ComparisonColumn:
    """The column of accelerator ``ident`` (an id; ``KeyError`` for another name), with the
    price rows from ``cheapest`` (by accelerator id, as
    :func:`~computeatlas.cloud.cheapest_price.cheapest_prices` gives them) and the freshness
    window they were read in (days). Builds the comparison of each uncurated pair the part
    is shown first in (with every part whose id sorts after its own)."""
    cells = own_cells(catalog, ident)
    cells |= own_price_cells(catalog, cells, cheapest.get(ident))
    part: PartView | None = None
    heads: dict[str, RowHead] = {}
    pairs: dict[str, PairView] = {}
    for other in sorted(catalog.accelerators):
        if other <= ident or pair_id(ident, other) in catalog.comparisons:
            continue  # the other part leads the pair (shown first), or the pair's page is built
        view = comparison_view(catalog, [ident, other])
        view.prices = price_rows(catalog, view, cheapest, freshness_days)
        part = view.parts[0]
        tables = [row for table in TABLES for row in getattr(view, table)]
        heads.update((row.key, _head(row)) for row in tables if row.key not in heads)
        pairs[other] = PairView(
            ids=view.ids,
            title=view.title,
            headline=view.headline.model_copy(update={"row": None}),
            rows=[r.key for r in view.rows],
            derived=[r.key for r in view.derived],
            prices=[r.key for r in view.prices],
            ratios={row.key: found for row in tables if (found := _pair_cell(row.cells[1])) is not None},
        )
    if part is None:
        part = comparison_view(catalog, [ident, next(i for i in catalog.accelerators if i != ident)]).parts[0]  # leads no pair
    return ComparisonColumn(part=part, rows=heads, cells=cells, pairs=pairs, data_version=catalog.version)


__all__ = ["TABLES", "ComparisonColumn", "PairCell", "PairView", "RowHead", "comparison_column"]

"""A comparison as values: its parts (columns), rows of cells, headline and gaps (built by
:func:`computeatlas.silicon.comparison.build`; the page layer adds the links)."""

from __future__ import annotations

import datetime as dt
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.core.citation import SourceView
from computeatlas.core.claims import NumberFormat
from computeatlas.core.links import LinkDirection
from computeatlas.core.states import State


class Part(BaseModel):
    """One accelerator in a comparison (a column), before the page adds its links."""

    id: str
    name: str
    vendor: str
    availability: str
    verified: dt.date


class CellView(BaseModel):
    """One part's value in a row, with its state, basis, source and date.

    ``ratio`` is this cell ÷ the reference part's cell, set only when both are comparable
    figures in the same unit, format and sparsity. The fields in :data:`PAIR_FIELDS`
    (``is_reference``, ``ratio``, ``ratio_display``, ``ratio_reason``) depend on the other
    parts of the comparison; every other field is the part's own and the same in every
    comparison it is in (the static site's comparisons rely on it). ``state`` is a spec state
    (``published`` …, ``not_collected``), a derived figure's state (``derived`` …), or a price
    cell's (``published``, ``stale``, ``no_price``); ``state_label`` is its :attr:`State.label`
    and ``display`` what the cell shows (the figure, or the state in words).
    """

    id: str
    state: State
    state_label: str
    display: str
    comparable: bool
    amount: float | None = Field(None, description="canonical unit of the row")
    direction: LinkDirection | None = Field(
        None, description="interconnect rows: what the bandwidth counts (per_direction, bidirectional, not_stated)"
    )
    basis: str | None = None
    basis_label: str | None = Field(None, description="the basis in words: 'chip', 'package', 'package of 2 GCDs'")
    per_device: str | None = Field(None, description="derived per-device figure of a multi-device package, e.g. '64 GB per GCD'")
    device: str | None = Field(None, description="a multi-device package: what the maker calls each device ('GCD'); None for one device")
    per_device_amount: float | None = Field(None, description="a multi-device package: the derived per-device figure, canonical unit")
    source: SourceView | None = None
    vendor_source: bool = Field(False, description="the source is the vendor, who sells this part")
    attribution: str | None = Field(None, description="a dense figure the maker does not print: 'from Yobitel, not from NVIDIA'")
    verified: dt.date
    note: str | None = None
    published_text: str | None = None
    memory_type: str | None = None
    sparse: str | None = Field(None, description="the sparsity figure, shown, never compared")
    disputed: bool = False
    dispute_to_weigh: bool = Field(
        False, description="the disagreement is maker against maker, or the figure has no maker source: shown as a badge"
    )
    secondary: str | None = Field(None, description="the figure converted to the row's unit where the source stated it in another")
    other_claims: list[str] = Field(default_factory=list)
    worked: str | None = Field(None, description="derived rows: the formula with this part's figures")
    reason: str | None = Field(None, description="derived and price rows: why there is no value")
    url: str | None = Field(None, description="price rows: the page the observed price was read from")
    is_reference: bool = False
    ratio: float | None = None
    ratio_display: str | None = None
    ratio_reason: str | None = Field(
        None, description="why a published figure has no ratio to the reference's: counted another way, or not comparable per device"
    )


PAIR_FIELDS = frozenset({"is_reference", "ratio", "ratio_display", "ratio_reason"})
"""The fields of a :class:`CellView` that depend on the other parts of its comparison."""


class RowView(BaseModel):
    """One spec (or derived figure) across every part."""

    key: str
    label: str
    group: Literal["memory", "compute", "power", "interconnect", "software", "derived", "price"]
    number_format: NumberFormat | None = None
    unit: str | None = None
    formula: str | None = None
    note: str | None = None
    cells: list[CellView]


class HeadlineView(BaseModel):
    """The headline compute comparison: a shared dense format, or why there is none."""

    number_format: NumberFormat | None
    text: str
    row: RowView | None = None


class PairGap(BaseModel):
    """Two parts with no number format both publish as a dense per-accelerator figure."""

    a: str
    b: str
    text: str


class CuratedView(BaseModel):
    """The words a curated comparison adds above the generated rows."""

    id: str
    title: str
    framing: str
    verdict: str
    verified: dt.date
    sources: list[SourceView]


class ComparisonTable(BaseModel):
    """A whole comparison as the records give it: the parts (columns), the aligned rows, the
    headline and the gaps. :func:`computeatlas.pages.comparison.comparison_view` adds the
    links and makes it the page data and the body of ``/api/compare``."""

    ids: list[str]
    title: str
    parts: list[Part]
    reference: str = Field(description="the part ratios are taken against (the first)")
    curated: CuratedView | None = None
    headline: HeadlineView
    gaps: list[PairGap] = Field(description="pairs with no shared dense per-accelerator number format")
    rows: list[RowView]
    derived: list[RowView] = Field(description="derived from published figures, each with its formula")
    data_version: str


__all__ = ["PAIR_FIELDS", "CellView", "ComparisonTable", "CuratedView", "HeadlineView", "PairGap", "Part", "RowView"]

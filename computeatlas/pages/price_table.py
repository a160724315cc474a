"""Price tables a person reads (the price page ``/cloud/prices/{id}``, ``/cloud/`` and
``/cloud/{provider}``): sorted on the server by a ``sort`` query parameter, as the silicon
table is (``sort=price`` ascending, ``sort=-price`` descending; a row without the value sorts
last either way), so the links work without scripts and in the static copy.

The words come from one place each: provider names from the catalog, pricing kinds from
:func:`computeatlas.core.presentation.pricing_words`, regions from
:func:`computeatlas.cloud.regions.region_label`, and the source as the provider's page or the
upstream file (:func:`computeatlas.core.presentation.source_words`), never our CSV path.
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar
from urllib.parse import urlencode

from pydantic import BaseModel, Field

from computeatlas.cloud.history import SeriesPoint
from computeatlas.cloud.regions import region_label
from computeatlas.core.errors import ParamError
from computeatlas.core.offer_words import pricing_words

Row = TypeVar("Row")

OBSERVED_SORTS: dict[str, Callable[[Any], Any]] = {
    "provider": lambda p: p.provider_name.casefold() if hasattr(p, "provider_name") else p.provider.casefold(),
    "instance": lambda p: p.instance_type.casefold(),
    "region": lambda p: region_label(p.provider, p.region).casefold() if p.region else None,
    "pricing": lambda p: pricing_words(p.pricing, p.term),
    "price": lambda p: (
        p.usd_per_accelerator_hour if hasattr(p, "usd_per_accelerator_hour") else (p.per_accelerator_hour if p.usd_comparable else None)
    ),
    "collected": lambda p: p.collected,
    "variant": lambda p: (p.variant if isinstance(p.variant, str) else p.variant.key) or None,
}
"""The sortable columns of a price table: key → the value a row sorts by (None sorts last)."""


class SortState(BaseModel):
    """The sort a table was drawn in: the column key ('' = as listed) and the direction."""

    key: str = ""
    descending: bool = False

    def link(self, column: str, params: dict[str, str]) -> str:
        """The query string that sorts by ``column`` (ascending first, then the other way), keeping ``params``."""
        value = f"-{column}" if self.key == column and not self.descending else column
        return "?" + urlencode({**{k: v for k, v in params.items() if v and k != "sort"}, "sort": value})

    def aria(self, column: str) -> str | None:
        """The ``aria-sort`` value of ``column``'s header, or None when the table is not sorted by it."""
        return ("descending" if self.descending else "ascending") if self.key == column else None


def parse_sort(text: str | None, columns: Sequence[str] = tuple(OBSERVED_SORTS)) -> SortState:
    """``price`` → ascending, ``-price`` → descending; empty is the table as listed. Raises
    :class:`~computeatlas.core.errors.ParamError` (400) naming ``sort`` for any other key."""
    raw = (text or "").strip()
    key = raw.removeprefix("-")
    if not key:
        return SortState()
    if key not in columns:
        raise ParamError("sort", f"{raw!r} is not a column; sort by one of {', '.join(columns)} (a leading '-' sorts the other way)")
    return SortState(key=key, descending=raw.startswith("-"))


def sort_rows(rows: Sequence[Row], state: SortState) -> list[Row]:
    """``rows`` in ``state``'s order (stable; rows without the value last, whichever the direction)."""
    if not state.key:
        return list(rows)
    value = OBSERVED_SORTS[state.key]
    present = [r for r in rows if value(r) is not None]
    missing = [r for r in rows if value(r) is None]
    return sorted(present, key=value, reverse=state.descending) + missing


HISTORY_TABLE_ROWS = 200
"""The most rows the price page's history table lists: those of the newest collection dates that
fit, whole dates only (a year of one provider fits; the chart draws the whole window and the
history API gives the whole series)."""


class SeriesTable(BaseModel):
    """The rows of a price page's history table: the series' points on its newest dates."""

    points: list[SeriesPoint] = Field(description="the points on the newest ``dates`` dates, oldest first")
    dates: int = Field(description="collection dates listed")
    total_dates: int = Field(description="collection dates in the whole series")
    total_points: int = Field(description="points (a date and a provider each) in the whole series")


def newest_rows(series: Sequence[SeriesPoint], rows: int = HISTORY_TABLE_ROWS) -> SeriesTable:
    """The points of ``series`` (ordered by date) on its newest collection dates, as many whole
    dates as fit in ``rows`` points (always the newest date, however many points it has).
    Raises ValueError for ``rows`` < 1."""
    if rows < 1:
        raise ValueError(f"rows must be at least 1, not {rows}")
    per_date = Counter(p.date for p in series)
    kept: set[dt.date] = set()
    listed = 0
    for day in sorted(per_date, reverse=True):
        if kept and listed + per_date[day] > rows:
            break
        kept.add(day)
        listed += per_date[day]
    points = [p for p in series if p.date in kept]
    return SeriesTable(points=points, dates=len(kept), total_dates=len(per_date), total_points=len(series))


__all__ = ["HISTORY_TABLE_ROWS", "OBSERVED_SORTS", "SeriesTable", "SortState", "newest_rows", "parse_sort", "sort_rows"]

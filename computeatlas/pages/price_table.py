"""Price tables a person reads (the price page ``/cloud/prices/{id}``, ``/cloud/`` and
``/cloud/{provider}``): sorted on the server by a ``sort`` query parameter, as the silicon
table is (``sort=price`` ascending, ``sort=-price`` descending; a row without the value sorts
last either way), by any column the table shows (:data:`OFFER_COLUMNS`, :data:`OBSERVED_COLUMNS`),
so the links work without scripts. A second table on a page has a parameter of its own: the
price page's history table ``history_sort`` (:data:`HISTORY_COLUMNS`, :func:`history_sorts`),
``/cloud/``'s "seen before, not current" table ``seen_sort`` (:data:`SEEN_COLUMNS`,
:func:`seen_sorts`); each sort link keeps the other parameters. Each row carries the values it sorts by
(:func:`sort_values`), which the static copy's ``table.js`` sorts by in the browser the same way.

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
from computeatlas.core.offer_words import pricing_words, source_words

Row = TypeVar("Row")


def _published(p: Any) -> float | None:
    """The price as published, per hour of what it prices (an instance, or one accelerator),
    in USD: an offer's hourly price through its USD share, an observation's per
    accelerator-hour USD figure times its accelerators; None without a USD figure."""
    if hasattr(p, "price_per_hour"):  # an offer
        usd = p.usd_per_accelerator_hour
        if usd is None or not p.per_accelerator_hour:
            return None
        return float(p.price_per_hour * usd / p.per_accelerator_hour)
    if p.usd_per_accelerator_hour is None:
        return None
    return float(p.usd_per_accelerator_hour * (p.accelerators or 1))


OBSERVED_SORTS: dict[str, Callable[[Any], Any]] = {
    "accelerator": lambda p: p.accelerator_name.casefold() if hasattr(p, "accelerator_name") else None,
    "provider": lambda p: (p.provider_name or p.provider).casefold(),
    "instance": lambda p: p.instance_type.casefold(),
    "region": lambda p: region_label(p.provider, p.region).casefold() if p.region else None,
    "pricing": lambda p: pricing_words(p.pricing, p.term),
    "published": _published,
    "price": lambda p: p.usd_per_accelerator_hour,
    "discount": lambda p: getattr(p, "discount", None),
    "collected": lambda p: p.collected.astimezone(dt.UTC).isoformat(),
    "variant": lambda p: (p.variant if isinstance(p.variant, str) else p.variant.key) or None,
    "source": lambda p: source_words(p.source_url).casefold(),
}
"""The sortable columns of a price table: key → the value a row sorts by (None sorts last):
text (case folded), a number (USD; a price without a USD figure has none) or the collection
time as ISO 8601 text. ``price`` and ``published`` sort by USD, so a converted price stands
among the dollar ones at its converted figure."""

OFFER_COLUMNS = ("accelerator", "provider", "price", "variant", "instance", "pricing", "published", "region", "collected", "source")
"""The columns of an offer table (``/cloud/``, ``/cloud/{provider}``), in order: each sorts."""

OBSERVED_COLUMNS = ("provider", "instance", "region", "pricing", "published", "price", "discount", "variant", "collected", "source")
"""The columns of a part's current-price table (``/cloud/prices/{id}``), in order: each sorts."""

NUMERIC_SORTS = frozenset({"published", "price", "discount", "median", "observations"})
"""The sort keys whose values are numbers (the others are text)."""


Sorts = dict[str, Callable[[Any], Any]]
"""A table's sortable columns: key → the value a row sorts by (None sorts last)."""

HISTORY_COLUMNS = ("date", "provider", "median", "observations")
"""The columns of a price page's history table, in order: each sorts (by ``history_sort``)."""

SEEN_COLUMNS = ("accelerator", "price", "provider", "instance", "seen", "source")
"""The columns of ``/cloud/``'s "seen before, not current" table, in order: each sorts (by ``seen_sort``)."""


def history_sorts(provider_name: Callable[[str], str]) -> Sorts:
    """The sorts of the history table (:data:`HISTORY_COLUMNS`) of :class:`SeriesPoint` rows:
    the date as ISO text, the provider by the name shown (``provider_name`` of its id; "all
    providers" for the pooled series), the median (USD per accelerator-hour) and observations as numbers."""
    return {
        "date": lambda p: p.date.isoformat(),
        "provider": lambda p: ("all providers" if p.provider == "all" else provider_name(p.provider)).casefold(),
        "median": lambda p: p.median,
        "observations": lambda p: p.observations,
    }


def seen_sorts(accelerator_name: Callable[[str], str], provider_name: Callable[[str], str]) -> Sorts:
    """The sorts of the "seen before, not current" table (:data:`SEEN_COLUMNS`) of
    :class:`~computeatlas.cloud.cheapest_price.CheapestPrice` rows: names as shown (case
    folded), the price in USD per accelerator-hour, the collection time as ISO 8601 text."""
    return {
        "accelerator": lambda c: accelerator_name(c.accelerator).casefold(),
        "price": lambda c: c.per_accelerator_hour,
        "provider": lambda c: provider_name(c.provider).casefold(),
        "instance": lambda c: c.instance_type.casefold(),
        "seen": lambda c: c.collected.astimezone(dt.UTC).isoformat(),
        "source": lambda c: source_words(c.source_url).casefold(),
    }


def sort_values(row: Any, columns: Sequence[str], sorts: Sorts | None = None) -> dict[str, str]:
    """The values ``row`` sorts by in each of ``columns`` (keys of ``sorts``, by default
    :data:`OBSERVED_SORTS`), as text for the page (the static copy's script sorts by them:
    numbers as ``repr`` of the float, text as is), leaving out the columns it has no value in
    (which sort last)."""
    sorts = OBSERVED_SORTS if sorts is None else sorts
    out = {}
    for key in columns:
        value = sorts[key](row)
        if value is not None:
            out[key] = repr(float(value)) if key in NUMERIC_SORTS else str(value)
    return out


class SortState(BaseModel):
    """The sort a table was drawn in: the column key ('' = as listed), the direction, and the
    query parameter it is read from (``sort``; another when a page has two sorted tables)."""

    key: str = ""
    descending: bool = False
    name: str = "sort"

    def link(self, column: str, params: dict[str, str]) -> str:
        """The query string that sorts by ``column`` (ascending first, then the other way), keeping ``params``."""
        value = f"-{column}" if self.key == column and not self.descending else column
        return "?" + urlencode({**{k: v for k, v in params.items() if v and k != self.name}, self.name: value})

    def param(self) -> str:
        """The parameter's value this state was parsed from (``'-price'``; ``''`` for the table as listed)."""
        return ("-" if self.descending else "") + self.key if self.key else ""

    def aria(self, column: str) -> str | None:
        """The ``aria-sort`` value of ``column``'s header, or None when the table is not sorted by it."""
        return ("descending" if self.descending else "ascending") if self.key == column else None


def parse_sort(text: str | None, columns: Sequence[str] = OBSERVED_COLUMNS, name: str = "sort") -> SortState:
    """``price`` → ascending, ``-price`` → descending; empty is the table as listed. Raises
    :class:`~computeatlas.core.errors.ParamError` (400) naming the parameter ``name`` and the
    ``columns`` for any other key."""
    raw = (text or "").strip()
    key = raw.removeprefix("-")
    if not key:
        return SortState(name=name)
    if key not in columns:
        raise ParamError(name, f"{raw!r} is not a column; sort by one of {', '.join(columns)} (a leading '-' sorts the other way)")
    return SortState(key=key, descending=raw.startswith("-"), name=name)


def sort_rows(rows: Sequence[Row], state: SortState, sorts: Sorts | None = None) -> list[Row]:
    """``rows`` in ``state``'s order by ``sorts`` (by default :data:`OBSERVED_SORTS`; stable;
    rows without the value last, whichever the direction)."""
    if not state.key:
        return list(rows)
    value = (OBSERVED_SORTS if sorts is None else sorts)[state.key]
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


__all__ = [
    "HISTORY_COLUMNS",
    "HISTORY_TABLE_ROWS",
    "NUMERIC_SORTS",
    "OBSERVED_COLUMNS",
    "OBSERVED_SORTS",
    "OFFER_COLUMNS",
    "SEEN_COLUMNS",
    "SeriesTable",
    "SortState",
    "Sorts",
    "history_sorts",
    "newest_rows",
    "parse_sort",
    "seen_sorts",
    "sort_rows",
    "sort_values",
]

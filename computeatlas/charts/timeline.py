"""Time charts: lines over dates, with gaps where nothing was observed.

A :class:`TimeChart` (pydantic) holds every plotted series with its points, what is left
out and why, the method and the gap rule in words, and its links (page, SVG for wide and
narrow screens, JSON and CSV of exactly the plotted points). The same object feeds the SVG
(:mod:`computeatlas.charts.lines`), the page and the API, so they cannot disagree.

**The gap rule** (:func:`segments`): a series' *interval* is the median number of days
between its consecutive points, never less than :data:`MIN_INTERVAL_DAYS` (the periods are
at least a week). Two consecutive points are joined by a line only when they are at most
:data:`GAP_FACTOR` × the interval apart and never more than :data:`MAX_BRIDGE_DAYS`; a
longer stretch without observations is a gap, and each run of joined points is one
``segment``. A point alone in its segment is drawn as a mark without a line.

**Pricing kinds** are told apart by dash pattern and legend words, never by colour alone
(:func:`kind_words`, :func:`dash_patterns`): on-demand solid, spot dotted, committed and
reserved dashed (one pattern per term), capacity blocks dash-dot.
"""

from __future__ import annotations

import datetime as dt
import itertools
import statistics
from collections.abc import Sequence

from pydantic import BaseModel, Field

from computeatlas.cloud.observations import PricingKind

GAP_FACTOR = 2.0
"""Two points further apart than this many times their series' interval are not joined."""
MAX_BRIDGE_DAYS = 45
"""No line bridges more days than this, whatever the interval (a snapshot source taken twice
six months apart is two marks, not a line across the months between)."""
MIN_INTERVAL_DAYS = 7
"""The smallest interval a series is given: points are at most one per week."""


class TimePoint(BaseModel):
    """One plotted point: a value on a date, with what it was made from."""

    date: dt.date = Field(description="the x position: the collection date of the value (or the period's first day)")
    value: float = Field(description="the y value in the chart's unit")
    segment: int = Field(description="points of one series with the same segment are joined; a new segment starts after a gap")
    period: dt.date = Field(description="first day of the period (week or month) the value stands for")
    observations: int = Field(description="observations (or providers, see the chart's method) the value was chosen from")
    note: str = Field("", description="who and what set the value, in words")


class TimeSeries(BaseModel):
    """One line: a provider's pricing kind, a market measure, or a part."""

    id: str = Field(description="stable series id, e.g. 'aws/on_demand/'")
    label: str = Field(description="legend words, e.g. 'AWS, spot'")
    group: str = Field(description="what the colour stands for (a provider, a part)")
    kind: str = Field(description="what the dash pattern stands for, in words (e.g. 'on-demand', 'committed, 1 year')")
    interval_days: float = Field(description="the series' interval used by the gap rule (median days between points)")
    points: list[TimePoint]
    url: str = Field("", description="a page about the series (the part, the provider)")


class TimeExclusion(BaseModel):
    """Something not plotted, and why (e.g. "AWS: 58 observations, variant not stated")."""

    name: str
    reason: str
    url: str = ""


class TimeChart(BaseModel):
    """A time chart's data, words and links; the same object feeds the SVG, the page and the API."""

    key: str = Field(description="stable chart id")
    title: str
    description: str = Field(description="text alternative: what the chart shows, in one paragraph")
    method: str = Field(description="how each value is computed, in words (written on the page)")
    gap_rule: str = Field(description="when a line is broken, in words (written on the page)")
    y_label: str
    y_unit: str
    log_scale: bool = False
    series: list[TimeSeries]
    kinds: list[str] = Field(description="the dash-pattern legend entries, in order")
    dashes: list[list[int]] = Field(description="the dash pattern of each entry of ``kinds`` (SVG stroke-dasharray; [] = solid)")
    excluded: list[TimeExclusion]
    window_start: dt.date | None = Field(None, description="first day of the freshness window (prices observed since are current)")
    window_end: dt.date = Field(description="the day the chart was made for (the freshness window's last day)")
    freshness_days: int
    svg_url: str | None = Field(description="the picture (600-pixel plot); None when nothing is plotted")
    narrow_svg_url: str | None = Field(description="the picture for narrow screens (300-pixel plot); None when nothing is plotted")
    page_url: str
    api_url: str
    csv_url: str
    data_version: str
    links: list[tuple[str, str]] = Field(default_factory=list, description="(words, site path) of related charts")
    variant: str | None = Field(None, description="the variant key plotted, for a chart of one part ('' = offers that state none)")

    def model_post_init(self, context: object, /) -> None:
        """A chart with nothing plotted has no picture to link."""
        if not self.series:
            self.svg_url = self.narrow_svg_url = None

    @property
    def point_count(self) -> int:
        """Plotted points over every series."""
        return sum(len(s.points) for s in self.series)


def interval_days(dates: Sequence[dt.date]) -> float:
    """The median number of days between consecutive ``dates`` (sorted), at least
    :data:`MIN_INTERVAL_DAYS`; :data:`MIN_INTERVAL_DAYS` for fewer than two dates."""
    gaps = [(b - a).days for a, b in itertools.pairwise(dates)]
    return max(float(MIN_INTERVAL_DAYS), statistics.median(gaps)) if gaps else float(MIN_INTERVAL_DAYS)


def segments(dates: Sequence[dt.date]) -> tuple[list[int], float]:
    """The segment number of each of ``dates`` (sorted, one series) under the gap rule, and the
    interval it used: a new segment starts where the step from the previous date is longer
    than ``min(GAP_FACTOR × interval, MAX_BRIDGE_DAYS)`` days."""
    interval = interval_days(dates)
    limit = min(GAP_FACTOR * interval, MAX_BRIDGE_DAYS)
    out, current = [], 0
    for i, day in enumerate(dates):
        if i and (day - dates[i - 1]).days > limit:
            current += 1
        out.append(current)
    return out, interval


def gap_rule_words(period: str) -> str:
    """The gap rule as the page writes it, for points at most one per ``period``."""
    return (
        f"Lines join points of one series only across short stretches: at most {GAP_FACTOR:g} × the series' usual "
        f"interval (the median number of days between its points, at least {MIN_INTERVAL_DAYS} days, as the points are at "
        f"most one per {period}) and never more than {MAX_BRIDGE_DAYS} days. A longer stretch without observations is a gap "
        "in the line; a point alone is a mark without a line."
    )


_KIND_WORDS = {
    PricingKind.ON_DEMAND: "on-demand",
    PricingKind.SPOT: "spot",
    PricingKind.COMMITTED: "committed",
    PricingKind.RESERVED: "reserved",
    PricingKind.CAPACITY_BLOCK: "capacity block",
    PricingKind.MARKETPLACE: "marketplace",
    PricingKind.MONTHLY: "monthly term",
    PricingKind.WEEKLY: "weekly term",
}
_DASHES = {
    PricingKind.ON_DEMAND: [],
    PricingKind.SPOT: [2, 3],
    PricingKind.COMMITTED: [9, 4],
    PricingKind.RESERVED: [5, 5],
    PricingKind.CAPACITY_BLOCK: [12, 3, 2, 3],
    PricingKind.MARKETPLACE: [1, 4],
    PricingKind.MONTHLY: [7, 2, 1, 2],
    PricingKind.WEEKLY: [3, 7],
}


def kind_words(pricing: str, term: str) -> str:
    """A pricing kind and term in legend words: ``("committed", "1 year")`` → "committed, 1 year",
    ``("on_demand", "")`` → "on-demand"; a term that only repeats the kind is left out."""
    kind = PricingKind(pricing)
    words = _KIND_WORDS[kind]
    term = term.strip()
    if not term or term.lower() == words or term.lower().replace(" ", "_") == kind.value:
        return words
    return f"{words}, {'term not stated' if term.lower() == 'not stated' else term}"


def dash_patterns(kinds: Sequence[tuple[str, str]]) -> list[list[int]]:
    """The dash pattern of each ``(pricing, term)``: the kind's own pattern for its first term,
    then the same pattern with one more short dash per further term (so two terms of one
    kind never share a pattern)."""
    seen: dict[str, int] = {}
    out = []
    for pricing, _term in kinds:
        n = seen.get(pricing, 0)
        seen[pricing] = n + 1
        base = list(_DASHES[PricingKind(pricing)])
        out.append(base + [2, 3] * n if base else ([] if n == 0 else [14, 3] + [2, 3] * (n - 1)))
    return out


CSV_COLUMNS = ("series", "label", "group", "kind", "date", "value", "unit", "segment", "period", "observations", "note")
"""The columns of a time chart's CSV: one row per plotted point, in the order of the JSON."""


def csv_rows(chart: TimeChart) -> list[list[str | int | float | None]]:
    """Every plotted point of ``chart`` as a CSV row (:data:`CSV_COLUMNS`), series by series."""
    return [
        [s.id, s.label, s.group, s.kind, p.date.isoformat(), p.value, chart.y_unit, p.segment, p.period.isoformat(), p.observations, p.note]
        for s in chart.series
        for p in s.points
    ]


__all__ = [
    "CSV_COLUMNS",
    "GAP_FACTOR",
    "MAX_BRIDGE_DAYS",
    "MIN_INTERVAL_DAYS",
    "TimeChart",
    "TimeExclusion",
    "TimePoint",
    "TimeSeries",
    "csv_rows",
    "dash_patterns",
    "gap_rule_words",
    "interval_days",
    "kind_words",
    "segments",
]

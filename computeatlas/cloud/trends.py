"""Price trends from the observation store: the lowest observed price per provider, pricing
kind and period, computed by DuckDB (one aggregate query per chart; never a Python loop over
observations). A part's queries take a window of collection dates (``since``/``until``, the
price page's), so only those date partitions are read.

What the history charts plot (:mod:`computeatlas.charts.timeline`):

- :func:`lows`: one row per provider × pricing kind × term × period (ISO week, or calendar
  month) of one accelerator in one variant: the lowest USD price per accelerator-hour
  observed in the period, how many observations it was chosen from, the first and last
  collection date inside the period, the date the low was seen, and the offer (instance,
  region) that set it;
- :func:`left_out`: the accepted observations of the part that no line of :func:`lows`
  holds, counted per provider and reason (variant not stated, another variant, another
  currency, no price per accelerator-hour);
- :func:`part_lows`: per accelerator, stated variant and month, the lowest on-demand USD
  price per accelerator-hour and the number of providers observed (price-performance);
- :func:`chart_variant` / :func:`chart_variants`: the variant a part's charts use, the one
  its price page's spread uses (:func:`~computeatlas.cloud.spreads.default_variant` over
  the current offers), else the variant most of its on-demand offers ever stated.

Units: USD per accelerator-hour (only USD observations are plotted: no exchange rate is
applied to a history). Periods start on a Monday (week) or the 1st (month), UTC dates.
Accepted rows only (held rows never enter a chart).
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import Counter, defaultdict
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.cloud.cheapest_price import default_variant
from computeatlas.cloud.observed_price import CURRENT_COLUMNS
from computeatlas.cloud.store import Store

Period = Literal["week", "month"]
"""The length of one aggregated period: an ISO week (Monday first) or a calendar month."""


class PeriodLow(BaseModel):
    """The lowest observed USD price per accelerator-hour of one provider, pricing kind and term in one period."""

    provider: str
    pricing: str
    term: str
    period: dt.date = Field(description="first day of the period (a Monday, or the 1st of a month)")
    low: float = Field(description="USD per accelerator-hour: the lowest observation of the period")
    observations: int = Field(description="accepted USD observations of the period it was chosen from")
    first: dt.date = Field(description="first collection date inside the period")
    last: dt.date = Field(description="last collection date inside the period")
    seen: dt.date = Field(description="the first collection date inside the period at which the low was observed")
    instance_type: str = Field(description="the offer that set the low (the first by name among equal lows)")
    region: str


class LeftOut(BaseModel):
    """Accepted observations of a part that no line holds, by provider and reason."""

    provider: str
    reason: str
    observations: int


class PartLow(BaseModel):
    """The lowest on-demand USD price per accelerator-hour of one part and stated variant in one month."""

    accelerator: str
    variant: str
    period: dt.date = Field(description="the 1st of the month")
    low: float = Field(description="USD per accelerator-hour")
    provider: str = Field(description="the provider that set the low (the first by id among equal lows)")
    providers: int = Field(description="providers with an on-demand USD observation of this variant that month")


_USD = "status = 'accepted' AND currency = 'USD' AND per_accelerator_hour IS NOT NULL"


_MONTH_LOWS = (
    "SELECT accelerator, coalesce(variant, '') AS variant, month AS period, provider, min(low) AS low FROM monthly "
    "WHERE currency = 'USD' AND low IS NOT NULL AND pricing = 'on_demand' AND coalesce(accelerator, '') <> '' GROUP BY ALL"
)
"""Per part, stated variant, month and provider, the lowest on-demand USD price per accelerator-hour of the accepted
observations: from the store's monthly roll-up (:func:`computeatlas.cloud.views.rollup`), not the history."""


def _trunc(period: Period) -> str:
    return f"CAST(date_trunc('{period}', date) AS DATE)"


def _part(store: Store, accelerator: str) -> bool:
    """True when ``accelerator`` has an accepted observation (else nothing is read for it)."""
    return accelerator in store.observed_accelerators()


_REASON = (
    "CASE WHEN coalesce(variant, '') <> $2 THEN CASE WHEN coalesce(variant, '') = '' THEN 'variant not stated' "
    "ELSE 'another variant (' || variant || ')' END WHEN NOT priced THEN 'no price per accelerator-hour' "
    "WHEN currency <> 'USD' THEN 'priced in ' || currency || ', not USD' END"
)
"""Why an accepted observation is in no line of the chart variant (the parameter ``$2``; NULL: it is plotted)."""


def _lows_sql(period: Period) -> str:
    # The least of the dates' struct minimums is the period's (the lowest price, then the first date, then the offer
    # by name): the low and the observation that set it, in one pass.
    return (
        f"SELECT '{period}' AS kind, provider, pricing, term, period, best.p AS low, observations, first, last, best.d AS seen, "
        f"best.i AS instance_type, best.r AS region, NULL AS reason FROM (SELECT provider, pricing, term, {_trunc(period)} AS period, "
        "min(best) AS best, CAST(sum(observations) AS BIGINT) AS observations, min(date) AS first, max(date) AS last "
        "FROM part WHERE currency = 'USD' AND priced AND variant = $2 GROUP BY ALL)"
    )


def _chart_rows(store: Store, accelerator: str, variant: str, since: dt.date | None, until: dt.date | None) -> list[dict[str, object]]:
    """What a part's two history charts plot and leave out, from one DuckDB query over the
    accepted observations of ``accelerator`` collected in [since, until], as the store's
    per-date roll-up ``lows`` holds them (:func:`computeatlas.cloud.views.lows`; only those
    dates are read): the lows of ``variant`` per provider, pricing kind, term and week
    (``kind='week'``) and month (``'month'``), and the observations left out per provider,
    pricing kind and reason (``'left_out'``). A few hundred rows, kept by the store's result
    cache, so the charts of one page read the store once."""
    if not _part(store, accelerator):
        return []
    left = (
        f"SELECT 'left_out' AS kind, provider, pricing, NULL, NULL, NULL, CAST(sum(observations) AS BIGINT), NULL, NULL, NULL, NULL, "
        f"NULL, reason FROM (SELECT provider, pricing, observations, {_REASON} AS reason FROM part) WHERE reason IS NOT NULL GROUP BY ALL"
    )
    return store.query(
        "WITH part AS MATERIALIZED (SELECT * FROM lows WHERE accelerator = $1) "
        f"{_lows_sql('week')} UNION ALL {_lows_sql('month')} UNION ALL {left} ORDER BY kind, provider, pricing, term, period, reason",
        [accelerator, variant],
        since,
        until,
        accelerator,
    )


def lows(
    store: Store,
    accelerator: str,
    variant: str,
    period: Period = "week",
    pricing: str | None = None,
    since: dt.date | None = None,
    until: dt.date | None = None,
) -> list[PeriodLow]:
    """Per provider, pricing kind, term and ``period`` of ``accelerator`` in ``variant`` (a key
    such as ``sxm-80gb``; '' = the observations that state none), the lowest USD price per
    accelerator-hour among the accepted observations collected in [since, until] (dates,
    inclusive; None = unbounded; only those date partitions are read); ``pricing`` (e.g.
    ``on_demand``) keeps one kind. Ordered by provider, pricing, term and period. Computed by
    DuckDB (:func:`_chart_rows`: a row per period, never one per observation). Raises
    ValueError for an unknown ``period``."""
    if period not in ("week", "month"):
        raise ValueError(f"period must be 'week' or 'month', not {period!r}")
    return [
        PeriodLow.model_validate(r)
        for r in _chart_rows(store, accelerator, variant, since, until)
        if r["kind"] == period and (pricing is None or r["pricing"] == pricing)
    ]


def left_out(
    store: Store, accelerator: str, variant: str, pricing: str | None = None, since: dt.date | None = None, until: dt.date | None = None
) -> list[LeftOut]:
    """The accepted observations of ``accelerator`` (of ``pricing`` when given) collected in
    [since, until] that :func:`lows` does not plot for ``variant``, counted per provider and
    reason (DuckDB counts them per provider, pricing kind and reason: :func:`_chart_rows`)."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in _chart_rows(store, accelerator, variant, since, until):
        if r["kind"] == "left_out" and (pricing is None or r["pricing"] == pricing):
            counts[(str(r["provider"]), str(r["reason"]))] += int(r["observations"])  # type: ignore[call-overload]
    return [LeftOut(provider=p, reason=r, observations=n) for (p, r), n in sorted(counts.items())]


def part_lows(store: Store) -> list[PartLow]:
    """Per accelerator, stated variant ('' when none) and month, the lowest on-demand USD price
    per accelerator-hour of every part ever observed, with the number of providers behind it."""
    rows = store.query(
        "SELECT accelerator, variant, period, min(low) AS low, arg_min(provider, (low, provider)) AS provider, "
        f"count(DISTINCT provider) AS providers FROM ({_MONTH_LOWS}) GROUP BY ALL ORDER BY accelerator, variant, period"
    )
    return [PartLow.model_validate(r) for r in rows]


class IndexPoint(BaseModel):
    """One month of a chained like-for-like price index (:func:`chained_lows`)."""

    period: dt.date = Field(description="the 1st of the month")
    level: float = Field(description="USD per accelerator-hour: the chain's level this month")
    chain: int = Field(description="a new chain starts where no provider was observed in this month and the one before")
    providers: int = Field(description="providers observed this month")
    common: list[str] = Field(description="providers observed in this month and the one before (empty at a chain's start)")
    ratio: float | None = Field(description="the median of the common providers' month-on-month ratios; None at a chain's start")
    anchor: str = Field("", description="at a chain's start: the provider that set the month's lowest price")


def provider_month_lows(store: Store) -> dict[tuple[str, str], dict[dt.date, dict[str, float]]]:
    """``{(accelerator, variant): {month: {provider: lowest on-demand USD price per
    accelerator-hour that month}}}`` over every accepted observation (one DuckDB query)."""
    rows = store.query(f"{_MONTH_LOWS} ORDER BY accelerator, variant, period, provider")
    out: dict[tuple[str, str], dict[dt.date, dict[str, float]]] = {}
    for r in rows:
        out.setdefault((r["accelerator"], r["variant"]), {}).setdefault(r["period"], {})[r["provider"]] = r["low"]
    return out


def chained_lows(months: Mapping[dt.date, Mapping[str, float]]) -> list[IndexPoint]:
    """A like-for-like price index over ``months`` (``{month: {provider: low}}``): a chain starts
    at its first month's lowest price (USD per accelerator-hour); each following month moves
    the level by the median of ``low this month ÷ low the month before`` over the providers
    observed in both, so a provider that appears or disappears never moves the line; where no
    provider was observed in both months, the chain breaks and a new one starts at that
    month's lowest. Months are taken in order; one without observations is simply absent."""
    out: list[IndexPoint] = []
    previous: Mapping[str, float] = {}
    level, chain = 0.0, -1
    for period in sorted(months):
        lows = months[period]
        common = sorted(set(lows) & set(previous))
        if common:
            ratio = statistics.median(lows[p] / previous[p] for p in common)
            level *= ratio
            out.append(IndexPoint(period=period, level=level, chain=chain, providers=len(lows), common=common, ratio=ratio))
        else:
            chain += 1
            anchor = min(lows, key=lambda p: (lows[p], p))
            level = lows[anchor]
            out.append(IndexPoint(period=period, level=level, chain=chain, providers=len(lows), common=[], ratio=None, anchor=anchor))
        previous = lows
    return out


def charted(store: Store, variants: Mapping[str, str]) -> dict[str, tuple[bool, bool]]:
    """Per part of ``variants`` (its chart variant, :func:`chart_variants`): whether its price
    history chart plots anything (an accepted USD price of that variant) and whether its
    spread chart does (a month with two or more providers' on-demand USD prices of it). Two
    store queries for every part together: what the static build's list of chart files needs,
    without drawing each chart."""
    priced = {
        (r["accelerator"], r["variant"])
        for r in store.query(
            "SELECT DISTINCT accelerator, coalesce(variant, '') AS variant FROM monthly WHERE currency = 'USD' AND low IS NOT NULL "
            "AND coalesce(accelerator, '') <> ''"
        )
    }
    spread = {
        (r["accelerator"], r["variant"])
        for r in store.query(
            f"SELECT DISTINCT accelerator, variant FROM ({_MONTH_LOWS}) GROUP BY accelerator, variant, period HAVING count(DISTINCT provider) >= 2"
        )
    }
    return {acc: ((acc, v) in priced, (acc, v) in spread) for acc, v in variants.items()}


def _history_variants(store: Store, accelerator: str | None, since: dt.date | None = None, until: dt.date | None = None) -> dict[str, str]:
    """Per part, the stated variant most of its on-demand offers (provider, instance, region,
    term) named in [since, until] (None = unbounded), ties to the first key in alphabetical
    order (:func:`default_variant`'s rule): the offers are counted by DuckDB."""
    where, params = ("AND accelerator = ?", [accelerator]) if accelerator else ("", [])
    source = (
        "monthly WHERE"  # the monthly roll-up: its offers are the accepted observations' (rolled up from the window's where it is partial)
    )
    rows = store.query(
        "SELECT accelerator, variant, count(*) AS offers FROM (SELECT DISTINCT accelerator, variant, provider, instance_type, region, "
        f"term FROM {source} pricing = 'on_demand' AND coalesce(variant, '') NOT IN ('', 'not-stated') "
        f"AND coalesce(accelerator, '') <> '' {where}) GROUP BY ALL",
        params,
        since,
        until,
        accelerator,
    )
    best: dict[str, tuple[int, str]] = {}
    for r in rows:
        mine = (-r["offers"], r["variant"])
        if r["accelerator"] not in best or mine < best[r["accelerator"]]:
            best[r["accelerator"]] = mine
    return {acc: variant for acc, (_, variant) in best.items()}


def chart_variant(
    store: Store, accelerator: str, now: dt.datetime, freshness_days: int, since: dt.date | None = None, until: dt.date | None = None
) -> str:
    """The variant ``accelerator``'s charts use: the price page's (the stated variant most current
    on-demand offers name), else the one most on-demand offers named in the chart's window
    [since, until] (None = unbounded: ever); '' when none did."""
    if not _part(store, accelerator):
        return ""
    offers = store.current(accelerator, now, freshness_days, columns=CURRENT_COLUMNS)  # as the price page reads them: asked once
    current = default_variant((r["variant"] or "", r["pricing"]) for r in offers)
    return current or _history_variants(store, accelerator, since, until).get(accelerator, "")


def chart_variants(store: Store, now: dt.datetime, freshness_days: int) -> dict[str, str]:
    """:func:`chart_variant` of every observed part: the current offers counted per part,
    variant and pricing by the store (one query), and the history asked (one more) only when
    some part has no current on-demand offer of a stated variant."""
    counted: dict[str, Counter[tuple[str, str]]] = defaultdict(Counter)
    for r in store.current_counts(now, freshness_days, ("variant", "pricing")):
        if r["accelerator"]:
            counted[r["accelerator"]][(r["variant"] or "", r["pricing"])] += r["offers"]
    current = {acc: default_variant(counted[acc].elements()) if acc in counted else "" for acc in store.observed_accelerators()}
    past = _history_variants(store, None) if not all(current.values()) else {}  # the history only for a part with no current variant
    return {acc: variant or past.get(acc, "") for acc, variant in current.items()}


__all__ = [
    "IndexPoint",
    "LeftOut",
    "PartLow",
    "Period",
    "PeriodLow",
    "chained_lows",
    "chart_variant",
    "chart_variants",
    "charted",
    "left_out",
    "lows",
    "part_lows",
    "provider_month_lows",
]

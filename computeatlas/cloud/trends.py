"""Price trends from the observation store: the lowest observed price per provider, pricing
kind and period, computed by DuckDB (one aggregate query, never a Python loop over rows).

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
from collections import defaultdict
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.cloud.spreads import default_variant
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


def _trunc(period: Period) -> str:
    if period not in ("week", "month"):
        raise ValueError(f"period must be 'week' or 'month', not {period!r}")
    return f"CAST(date_trunc('{period}', date) AS DATE)"


def lows(store: Store, accelerator: str, variant: str, period: Period = "week", pricing: str | None = None) -> list[PeriodLow]:
    """Per provider, pricing kind, term and ``period`` of ``accelerator`` in ``variant`` (a key
    such as ``sxm-80gb``; '' = the observations that state none), the lowest USD price per
    accelerator-hour; ``pricing`` (e.g. ``on_demand``) keeps one kind. Ordered by provider,
    pricing, term and period. Raises ValueError for an unknown ``period``."""
    if accelerator not in store.observed_accelerators():
        return []
    kind, params = ("AND pricing = ?", [pricing]) if pricing else ("", [])
    rows = store.query(
        f"SELECT provider, pricing, term, {_trunc(period)} AS period, min(per_accelerator_hour) AS low, count(*) AS observations, "
        "min(date) AS first, max(date) AS last, arg_min(date, (per_accelerator_hour, date)) AS seen, "
        "arg_min(instance_type, (per_accelerator_hour, instance_type, region)) AS instance_type, "
        "arg_min(region, (per_accelerator_hour, instance_type, region)) AS region "
        f"FROM latest WHERE {_USD} AND accelerator = ? AND coalesce(variant, '') = ? {kind} "
        "GROUP BY provider, pricing, term, period ORDER BY provider, pricing, term, period",
        [accelerator, variant, *params], accelerator=accelerator)
    return [PeriodLow.model_validate(r) for r in rows]


def left_out(store: Store, accelerator: str, variant: str, pricing: str | None = None) -> list[LeftOut]:
    """The accepted observations of ``accelerator`` (of ``pricing`` when given) that
    :func:`lows` does not plot for ``variant``, counted per provider and reason."""
    if accelerator not in store.observed_accelerators():
        return []
    kind, params = ("AND pricing = ?", [pricing]) if pricing else ("", [])
    rows = store.query(
        "SELECT provider, CASE WHEN coalesce(variant, '') <> ? THEN "
        "  CASE WHEN coalesce(variant, '') = '' THEN 'variant not stated' ELSE 'another variant (' || variant || ')' END "
        "WHEN per_accelerator_hour IS NULL THEN 'no price per accelerator-hour' "
        "ELSE 'priced in ' || currency || ', not USD' END AS reason, count(*) AS observations "
        f"FROM latest WHERE status = 'accepted' AND accelerator = ? {kind} "
        "AND NOT (coalesce(variant, '') = ? AND currency = 'USD' AND per_accelerator_hour IS NOT NULL) "
        "GROUP BY ALL ORDER BY provider, reason",
        [variant, accelerator, *params, variant], accelerator=accelerator)
    return [LeftOut.model_validate(r) for r in rows]


def part_lows(store: Store) -> list[PartLow]:
    """Per accelerator, stated variant ('' when none) and month, the lowest on-demand USD price
    per accelerator-hour of every part ever observed, with the number of providers behind it."""
    rows = store.query(
        f"SELECT accelerator, coalesce(variant, '') AS variant, {_trunc('month')} AS period, min(per_accelerator_hour) AS low, "
        "arg_min(provider, (per_accelerator_hour, provider)) AS provider, count(DISTINCT provider) AS providers "
        f"FROM latest WHERE {_USD} AND pricing = 'on_demand' AND coalesce(accelerator, '') <> '' "
        "GROUP BY ALL ORDER BY accelerator, variant, period")
    return [PartLow.model_validate(r) for r in rows]


def _history_variants(store: Store, accelerator: str | None) -> dict[str, str]:
    """Per part, the stated variant most of its on-demand offers (provider, instance, region,
    term) ever named (:func:`default_variant` over every accepted observation)."""
    where, params = ("AND accelerator = ?", [accelerator]) if accelerator else ("", [])
    rows = store.query(
        "SELECT DISTINCT accelerator, variant, provider, instance_type, region, term FROM latest WHERE status = 'accepted' "
        f"AND pricing = 'on_demand' AND coalesce(variant, '') <> '' AND coalesce(accelerator, '') <> '' {where}",
        params, accelerator=accelerator)
    offers: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in rows:
        offers[r["accelerator"]].append((r["variant"], "on_demand"))
    return {acc: default_variant(pairs) for acc, pairs in offers.items()}


def chart_variant(store: Store, accelerator: str, now: dt.datetime, freshness_days: int) -> str:
    """The variant ``accelerator``'s charts use: the price page's (the stated variant most current
    on-demand offers name), else the one most on-demand offers ever named; '' when none ever did."""
    if accelerator not in store.observed_accelerators():
        return ""
    current = default_variant((r["variant"] or "", r["pricing"]) for r in store.current(accelerator, now, freshness_days))
    return current or _history_variants(store, accelerator).get(accelerator, "")


def chart_variants(store: Store, now: dt.datetime, freshness_days: int) -> dict[str, str]:
    """:func:`chart_variant` of every observed part, from two store queries."""
    current: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for r in store.current(None, now, freshness_days):
        if r["accelerator"]:
            current[r["accelerator"]].append((r["variant"] or "", r["pricing"]))
    past = _history_variants(store, None)
    return {acc: default_variant(current.get(acc, ())) or past.get(acc, "") for acc in store.observed_accelerators()}


__all__ = ["LeftOut", "PartLow", "Period", "PeriodLow", "chart_variant", "chart_variants", "left_out", "lows", "part_lows"]

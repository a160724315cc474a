"""Current prices and price history of one accelerator, queried from the observation store
at request time (nothing is loaded at start; staleness is measured from ``now``).

- :func:`current_view`: the newest accepted observation of each offer (provider, instance,
  region, pricing, term) within the freshness window, each with its age, the like-for-like
  spread of the chosen variant (on-demand, USD, fresh; variant-not-stated rows left out),
  and spot, reserved and term prices beside the same instance's on-demand price with the
  discount.
- :func:`history_view`: every accepted observation in a date window (filters: provider,
  pricing, variant, region), and the series pages tabulate: per collection date and
  provider, the median on-demand USD price per accelerator-hour with its number of
  observations (never a median over all providers: the set seen changes from date to date).

Units: prices per accelerator-hour in the observation's currency; medians in USD (only
USD observations enter them).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel, Field

from computeatlas.cloud.cheapest_price import (
    CheapestPrice,
    cheapest_price,
    default_variant,
    excluded_because,
    rule_variant,
    sole_keys,
)
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.spreads import (
    ObservedSpread,
    SpreadEnd,
    spread,
)
from computeatlas.cloud.store import Store, observation_of
from computeatlas.core.catalog import Catalog

HISTORY_FILTERS = ("provider", "pricing", "variant", "region")
"""Columns :func:`history_view` filters on (exact match)."""

HISTORY_LIMIT = 5000
"""At most this many observations are listed by one history request (the series covers all)."""


class ObservedOffer(BaseModel):
    """Which offer (provider, instance, region, pricing, term) was observed, and when (UTC)."""

    collected: dt.datetime
    provider: str
    instance_type: str
    region: str
    pricing: str
    term: str


class ObservedPrice(ObservedOffer):
    """One observation as outputs show it."""

    amount: float = Field(description="as published, in currency per unit")
    currency: str
    unit: str
    accelerators: int | None
    per_accelerator_hour: float | None = Field(description="in currency; derived")
    variant: str = Field(description="variant key; '' = variant not stated")
    qualifiers: list[str]
    source_url: str
    via: str
    age_days: int | None = None
    stale: bool | None = None
    discount: float | None = Field(None, description="1 - this price ÷ the same instance's on-demand price (spot, reserved, terms)")
    usd_per_accelerator_hour: float | None = Field(None, description="in USD: the price itself for USD, else through the dated rate in 'rate'; None without a rate")
    rate: str | None = Field(None, description="the dated exchange rate used, with its source (non-USD prices only)")
    provider_name: str = Field("", description="the provider's name as the catalog records it (its id when it has no record)")


class SeriesPoint(BaseModel):
    """The median on-demand USD price per accelerator-hour on one date, and how many observations made it."""

    date: dt.date
    provider: str = Field(description="a provider id")
    median: float
    observations: int


class CurrentView(BaseModel):
    """Current prices of one accelerator as of ``as_of``."""

    accelerator: str
    as_of: dt.datetime
    freshness_days: int
    prices: list[ObservedPrice]
    variant: str
    spread: ObservedSpread
    cheapest: CheapestPrice | None = Field(None, description="the cheapest price by the one rule (computeatlas.cloud.cheapest_price); "
                                                 "when no observation is current, the newest one with current=false and its age")
    last_seen: list[ObservedPrice] = Field(default_factory=list, description="when no observation is current: the newest observation "
                                                                              "of each offer on the newest date any was seen, not current")


class HistoryView(BaseModel):
    """Accepted observations of one accelerator in a window, and the median series."""

    accelerator: str
    since: dt.date | None
    until: dt.date | None
    filters: dict[str, str]
    observations: list[ObservedPrice] = Field(description="oldest first; the newest HISTORY_LIMIT when truncated")
    truncated: bool = Field(description="True when the window holds more observations than are listed (narrow it with since/until)")
    series: list[SeriesPoint]


_STORED = frozenset(ObservedPrice.model_fields) - {"age_days", "stale", "rate", "provider_name"}
"""The fields of :class:`ObservedPrice` read from a stored row (the others are worked out)."""


def _shown(row: dict[str, Any], rates: RateTable, now: dt.datetime | None = None) -> ObservedPrice:
    keep = {k: v for k, v in row.items() if k in _STORED}
    shown = ObservedPrice.model_validate(keep | {"qualifiers": list(row.get("qualifiers") or [])})
    if now is not None:
        shown.age_days = (now - row["collected"]).days
    if shown.per_accelerator_hour is not None:
        usd, rate = rates.to_usd(shown.per_accelerator_hour, shown.currency, shown.collected.date())
        shown.usd_per_accelerator_hour = usd
        if rate is not None:
            shown.rate = f"1 {rate.currency} = {rate.usd_per_unit:g} USD on {rate.date} ({rate.source_title}, {rate.source_url})"
    return shown


class ObservedRange(BaseModel):
    """The current on-demand USD range of one accelerator over the fresh offers the one rule
    counts (:mod:`computeatlas.cloud.cheapest_price`: its default variant), for the accelerator
    page's card and "Where you rent this"; ``last_seen`` when none is current."""

    as_of: dt.datetime
    freshness_days: int
    variant: str = Field("", description="the variant key the range is for")
    offers: int = Field(description="fresh on-demand USD offers of the variant with a price per accelerator-hour")
    providers: list[str]
    cheapest: SpreadEnd | None
    dearest: SpreadEnd | None
    newest: dt.date | None = Field(description="collection date of the newest of these observations")
    last_seen: CheapestPrice | None = Field(None, description="no offer current: the newest price the rule would take, not current")


class PricesView(BaseModel):
    """The observed-price page of one accelerator and the body of ``/api/prices/{id}``:
    current prices (spread, discounts) and the median history with observation counts."""

    accelerator: str
    current: CurrentView
    history: HistoryView


class PriceChange(ObservedOffer):
    """One entry of an accelerator's price feed: an offer (provider, instance, region,
    pricing, term) first observed, or observed at another price than its previous observation."""

    currency: str
    per_accelerator_hour: float
    previous: float | None = Field(description="the offer's previous observed price per accelerator-hour; None when first observed")
    previous_collected: dt.datetime | None
    source_url: str
    via: str

    @property
    def key(self) -> str:
        """A stable id for the entry (the offer and the collection time)."""
        return f"{self.provider}/{self.instance_type}/{self.region}/{self.pricing}/{self.term}/{self.collected.isoformat()}"


FEED_LIMIT = 100
"""At most this many entries in one feed, newest first."""


def price_changes(store: Store, accelerator: str, limit: int = FEED_LIMIT) -> list[PriceChange]:
    """The newest ``limit`` price changes of ``accelerator``'s offers, newest first: each offer's
    first observation, and each observation whose price per accelerator-hour differs from the
    same offer's previous one (an unchanged price is no entry). Accepted observations only."""
    # The price page's question first (the newest HISTORY_LIMIT + 1, in the same order as the
    # whole history): the store has usually just answered it; only a longer history is read again.
    rows = store.history(accelerator, None, None, limit=HISTORY_LIMIT + 1)
    if len(rows) > HISTORY_LIMIT:
        rows = store.history(accelerator, None, None, limit=None)
    last: dict[tuple[str, ...], dict[str, Any]] = {}
    changes: list[PriceChange] = []
    for row in sorted(rows, key=lambda r: r["collected"]):
        if row.get("per_accelerator_hour") is None:
            continue
        offer = (row["provider"], row["instance_type"], row["region"], row["pricing"], row["term"], row["currency"])
        before = last.get(offer)
        last[offer] = row
        if before is not None and abs(before["per_accelerator_hour"] - row["per_accelerator_hour"]) < 1e-9:
            continue
        changes.append(PriceChange(
            collected=row["collected"], provider=row["provider"], instance_type=row["instance_type"], region=row["region"],
            pricing=row["pricing"], term=row["term"], currency=row["currency"], per_accelerator_hour=row["per_accelerator_hour"],
            previous=before["per_accelerator_hour"] if before else None, previous_collected=before["collected"] if before else None,
            source_url=row["source_url"], via=row["via"]))
    return list(reversed(changes))[:limit]


def utcnow() -> dt.datetime:
    """The time "current" is measured at (tests replace it)."""
    return dt.datetime.now(dt.UTC)


def observed_range(view: CurrentView) -> ObservedRange:
    """The on-demand USD range of ``view``'s fresh prices that the one rule counts (its
    variant), both ends named and dated; the cheap end is ``view.cheapest``."""
    on_demand = sorted((p for p in view.prices if not p.stale and excluded_because(
                            p.pricing, p.currency, p.per_accelerator_hour, p.variant, view.variant, p.collected, view.as_of,
                            view.freshness_days) is None),
                       key=lambda p: (p.per_accelerator_hour or 0.0, -p.collected.timestamp(), p.provider))

    def end(p: ObservedPrice) -> SpreadEnd:
        return SpreadEnd(per_accelerator_hour=p.per_accelerator_hour or 0.0, provider=p.provider, instance_type=p.instance_type,
                         region=p.region, collected=p.collected, source_url=p.source_url)

    stale = view.cheapest if view.cheapest is not None and not view.cheapest.current else None
    return ObservedRange(as_of=view.as_of, freshness_days=view.freshness_days, variant=view.variant, offers=len(on_demand), last_seen=stale,
                         providers=sorted({p.provider for p in on_demand}),
                         cheapest=end(on_demand[0]) if on_demand else None, dearest=end(on_demand[-1]) if on_demand else None,
                         newest=max(p.collected for p in on_demand).date() if on_demand else None)


def current_view(store: Store, accelerator: str, now: dt.datetime, freshness_days: int = 90, variant: str | None = None,
                 rates: RateTable | None = None, catalog: Catalog | None = None) -> CurrentView:
    """Current prices of ``accelerator``; ``variant`` chooses the spread (default: the variant
    most on-demand offers state, by the one rule); ``rates`` gives non-USD prices a USD figure
    with the rate beside it; ``catalog`` names the single-variant parts (their offers are their
    one variant). When no observation is current, ``last_seen`` lists the newest ones, not current."""
    sole = sole_keys(catalog)
    rows = store.current(accelerator, now, freshness_days)
    shown = [_shown(r, rates or RateTable([]), now) for r in rows]
    names = {ident: p.name for ident, p in catalog.providers.items()} if catalog is not None else {}
    for price in shown:
        price.stale = (price.age_days or 0) > freshness_days
        price.variant = rule_variant(price.variant, accelerator, sole)
        price.provider_name = names.get(price.provider, price.provider)
    on_demand = {(p.provider, p.instance_type, p.region): p.per_accelerator_hour for p in shown if p.pricing == PricingKind.ON_DEMAND}
    for price in shown:
        base = on_demand.get((price.provider, price.instance_type, price.region))
        if price.pricing != PricingKind.ON_DEMAND and base and price.per_accelerator_hour is not None:
            price.discount = 1 - price.per_accelerator_hour / base
    if variant is None:
        variant = default_variant((p.variant, p.pricing) for p in shown)
    observed = spread([observation_of(r) for r in rows], accelerator, variant, now, freshness_days, sole)
    cheapest = cheapest_price(store, accelerator, now, freshness_days, variant if variant and variant != "all" else None, catalog,
                              current_only=False)
    last: list[ObservedPrice] = []
    if not rows:
        old = store.newest(None, now, accelerator)
        newest = max((r["collected"].astimezone(dt.UTC).date() for r in old), default=None)
        last = [_shown(r, rates or RateTable([]), now) for r in old if r["collected"].astimezone(dt.UTC).date() == newest]
        for price in last:
            price.stale, price.variant = True, rule_variant(price.variant, accelerator, sole)
            price.provider_name = names.get(price.provider, price.provider)
    return CurrentView(accelerator=accelerator, as_of=now, freshness_days=freshness_days, prices=shown, variant=variant, spread=observed,
                       cheapest=cheapest, last_seen=last)


def history_view(store: Store, accelerator: str, since: dt.date | None = None, until: dt.date | None = None,
                 limit: int | None = HISTORY_LIMIT, rates: RateTable | None = None, **filters: str | None) -> HistoryView:
    """Accepted observations of ``accelerator`` in [since, until] (the newest ``limit``;
    ``truncated`` says when there were more) and the median series over all of them."""
    rows = store.history(accelerator, since, until, limit=limit + 1 if limit else None, **filters)
    truncated = bool(limit) and len(rows) > (limit or 0)
    if truncated:
        rows = rows[1:]
    series = [SeriesPoint.model_validate(r) for r in store.series(accelerator, since, until, **filters)]
    return HistoryView(accelerator=accelerator, since=since, until=until, filters={k: v for k, v in filters.items() if v},
                       observations=[_shown(r, rates or RateTable([])) for r in rows], truncated=truncated, series=series)


__all__ = ["FEED_LIMIT", "HISTORY_FILTERS", "CurrentView", "HistoryView", "ObservedPrice", "ObservedRange", "PriceChange",
           "PricesView", "SeriesPoint", "current_view", "history_view", "observed_range", "price_changes", "utcnow"]

"""The current prices of one accelerator, queried from the observation store at request time
(staleness is measured from ``now``).

- :func:`current_view`: the newest accepted observation of each offer (provider, instance,
  region, pricing, term) within the freshness window, each with its age, the like-for-like
  spread of the chosen variant (on-demand, USD, fresh; variant-not-stated rows left out),
  and spot, reserved and term prices beside the same instance's on-demand price with the
  discount.
- :func:`observed_range`: the on-demand USD range of those prices that the one rule counts,
  for the accelerator page's card.

Units: prices per accelerator-hour in the observation's currency; the range in USD.
"""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, Field

from computeatlas.cloud.catalog import CloudCatalog as Catalog
from computeatlas.cloud.cheapest_price import CheapestPrice, cheapest_price, default_variant, excluded_because, newest_of, price_ends
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.observed_price import CURRENT_COLUMNS, ObservedPrice, shown_price
from computeatlas.cloud.offer_words import offer_id
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.spreads import ObservedSpread, SpreadEnd, spread_of_rows
from computeatlas.cloud.store import Store
from computeatlas.cloud.variants import rule_variant, sole_keys


class CurrentView(BaseModel):
    """Current prices of one accelerator as of ``as_of``."""

    accelerator: str
    as_of: dt.datetime
    freshness_days: int
    prices: list[ObservedPrice]
    variant: str
    spread: ObservedSpread
    cheapest: CheapestPrice | None = Field(
        None,
        description="the cheapest price by the one rule (computeatlas.cloud.cheapest_price); "
        "when no observation is current, the newest one with current=false and its age",
    )
    last_seen: list[ObservedPrice] = Field(
        default_factory=list,
        description="when no observation is current: the newest observation of each offer on the newest date any was seen, not current",
    )
    filters: dict[str, str] = Field(
        default_factory=dict,
        description="the exact-match filters (provider, pricing, region) ``prices`` and ``last_seen`` were narrowed by; "
        "the spread and the cheapest price are of every current offer",
    )
    offers: int | None = Field(None, description="when filtered: how many current prices there were before the filters")

    def narrowed(self, filters: dict[str, str]) -> CurrentView:
        """This view with ``prices`` and ``last_seen`` kept to the rows whose column equals each
        of ``filters`` (provider, pricing, region: the store's spellings); unchanged without any."""
        if not filters:
            return self
        keep = [p for p in self.prices if all(getattr(p, k) == v for k, v in filters.items())]
        seen = [p for p in self.last_seen if all(getattr(p, k) == v for k, v in filters.items())]
        return self.model_copy(update={"prices": keep, "last_seen": seen, "filters": dict(filters), "offers": len(self.prices)})


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


def _offer_of(p: ObservedPrice) -> str:
    return offer_id(p.provider, p.instance_type, p.pricing, p.term, p.region, p.collected.astimezone(dt.UTC).date())


def observed_range(view: CurrentView) -> ObservedRange:
    """The on-demand USD range of ``view``'s fresh prices that the one rule counts (its
    variant), both ends named and dated; the cheap end is ``view.cheapest``."""
    on_demand = [
        p
        for p in view.prices
        if not p.stale
        and excluded_because(
            p.pricing, p.currency, p.per_accelerator_hour, p.variant, view.variant, p.collected, view.as_of, view.freshness_days
        )
        is None
    ]
    ends = price_ends(on_demand, lambda p: p.per_accelerator_hour or 0.0, lambda p: p.collected, _offer_of)

    def end(p: ObservedPrice) -> SpreadEnd:
        return SpreadEnd(
            per_accelerator_hour=p.per_accelerator_hour or 0.0,
            provider=p.provider,
            instance_type=p.instance_type,
            region=p.region,
            collected=p.collected,
            source_url=p.source_url,
        )

    stale = view.cheapest if view.cheapest is not None and not view.cheapest.current else None
    return ObservedRange(
        as_of=view.as_of,
        freshness_days=view.freshness_days,
        variant=view.variant,
        offers=len(on_demand),
        last_seen=stale,
        providers=sorted({p.provider for p in on_demand}),
        cheapest=end(ends[0]) if ends else None,
        dearest=end(ends[1]) if ends else None,
        newest=max(p.collected for p in on_demand).date() if on_demand else None,
    )


def current_view(
    store: Store,
    accelerator: str,
    now: dt.datetime,
    freshness_days: int = 90,
    variant: str | None = None,
    rates: RateTable | None = None,
    catalog: Catalog | None = None,
    since: dt.date | None = None,
) -> CurrentView:
    """Current prices of ``accelerator``; ``variant`` chooses the spread (default: the variant
    most on-demand offers state, by the one rule); ``rates`` gives non-USD prices a USD figure
    with the rate beside it; ``catalog`` names the single-variant parts (their offers are their
    one variant). When no observation is current, ``last_seen`` lists the newest ones, not current.
    ``since`` (a price page's window, :func:`page_window`) bounds what is read for the cheapest
    price and ``last_seen`` first; older observations are read only when none since then counts
    (the answer is the same either way)."""
    sole = sole_keys(catalog)
    rows = store.current(accelerator, now, freshness_days, columns=CURRENT_COLUMNS)
    shown = [shown_price(r, rates or RateTable([]), now) for r in rows]
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
    observed = spread_of_rows(rows, accelerator, variant, now, freshness_days, sole)
    # Every fresh observation is after ``start``: a window shorter than the freshness window reads the freshness window.
    start = min(dt.datetime.combine(since, dt.time(), dt.UTC), now - dt.timedelta(days=freshness_days)) if since else None
    cheapest = cheapest_price(
        store, accelerator, now, freshness_days, variant if variant and variant != "all" else None, catalog, current_only=False, since=start
    )
    last: list[ObservedPrice] = []
    if not rows:
        old = (newest_of(store, accelerator, start, now) if start else []) or store.newest(None, now, accelerator)
        newest = max((r["collected"].astimezone(dt.UTC).date() for r in old), default=None)
        last = [shown_price(r, rates or RateTable([]), now) for r in old if r["collected"].astimezone(dt.UTC).date() == newest]
        for price in last:
            price.stale, price.variant = True, rule_variant(price.variant, accelerator, sole)
            price.provider_name = names.get(price.provider, price.provider)
    return CurrentView(
        accelerator=accelerator,
        as_of=now,
        freshness_days=freshness_days,
        prices=shown,
        variant=variant,
        spread=observed,
        cheapest=cheapest,
        last_seen=last,
    )


__all__ = ["CurrentView", "ObservedRange", "current_view", "observed_range"]

"""The like-for-like spread over observations: one accelerator, one variant, on-demand, USD,
within the freshness window, accepted rows only; both ends named, dated and linked.

An observation whose variant is not stated (``variant == ''``) is never in a per-variant
spread; a held observation is never an end. Prices are per accelerator-hour in USD (an
observation in another currency is left out: one currency per spread).

:func:`cheapest_on_demand` is the spread's cheapest end as one call, for the helpers that
need one current price per part (the estimate, a price column, a token-cost bound).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel, Field

from computeatlas.cloud.observations import Observation, PricingKind, Status
from computeatlas.cloud.offers import row_id
from computeatlas.cloud.store import Store, observation_of


class SpreadEnd(BaseModel):
    """One end of a spread: the price per accelerator-hour and where and when it was read."""

    per_accelerator_hour: float
    provider: str
    instance_type: str
    region: str
    collected: dt.datetime
    source_url: str


class ObservedSpread(BaseModel):
    """Dearest ÷ cheapest over ``counted`` observations (``ratio`` None below two)."""

    accelerator: str
    variant: str
    counted: int
    cheapest: SpreadEnd | None
    dearest: SpreadEnd | None
    ratio: float | None


def _end(o: Observation) -> SpreadEnd:
    return SpreadEnd(per_accelerator_hour=o.per_accelerator_hour or 0.0, provider=o.provider, instance_type=o.instance_type,
                     region=o.region, collected=o.collected, source_url=o.source_url)


def spread(observations: Iterable[Observation], accelerator: str, variant: str, now: dt.datetime,
           freshness_days: int = 90) -> ObservedSpread:
    """The spread of ``accelerator`` in ``variant`` (a key such as ``sxm-80gb``) as of ``now``."""
    since = now - dt.timedelta(days=freshness_days)
    inside = sorted(
        (o for o in observations
         if o.accelerator == accelerator and o.variant == variant and variant and o.status is Status.ACCEPTED
         and o.pricing is PricingKind.ON_DEMAND and o.currency == "USD" and o.per_accelerator_hour is not None
         and since <= o.collected <= now),
        key=lambda o: (o.per_accelerator_hour, -o.collected.timestamp()))
    if not inside:
        return ObservedSpread(accelerator=accelerator, variant=variant, counted=0, cheapest=None, dearest=None, ratio=None)
    cheapest, dearest = inside[0], inside[-1]
    ratio = (dearest.per_accelerator_hour or 0) / (cheapest.per_accelerator_hour or 1) if len(inside) > 1 else None
    return ObservedSpread(accelerator=accelerator, variant=variant, counted=len(inside), cheapest=_end(cheapest),
                          dearest=_end(dearest), ratio=ratio)


def default_variant(offers: Iterable[tuple[str, str]]) -> str:
    """The variant a spread uses when none is asked: of ``(variant key, pricing)`` pairs, the
    stated variant (not '') that most on-demand offers name, ties to the first key in
    alphabetical order; '' when no on-demand offer states one. ``pricing`` may be spelled
    ``on_demand`` or ``on-demand``."""
    counts = Counter(v for v, kind in offers if v and kind.replace("-", "_") == PricingKind.ON_DEMAND)
    return min(counts, key=lambda k: (-counts[k], k)) if counts else ""


class CheapestPrice(BaseModel):
    """The cheapest fresh on-demand observation of one accelerator in one stated variant:
    USD per accelerator-hour, named (provider, instance, region, offer id), dated and sourced."""

    accelerator: str
    variant: str = Field(description="the variant key compared like for like, e.g. 'sxm-80gb'")
    per_accelerator_hour: float = Field(description="USD per accelerator-hour, on-demand")
    provider: str
    instance_type: str
    region: str
    collected: dt.datetime = Field(description="when the observation was collected (UTC)")
    source_url: str
    offer_id: str = Field(description="the offer's stable id (see computeatlas.cloud.offers.offer_id)")
    counted: int = Field(description="fresh on-demand USD observations of this variant it was chosen from")
    freshness_days: int
    as_of: dt.datetime


def cheapest_on_demand(store: Store, accelerator: str, now: dt.datetime, freshness_days: int = 90,
                       variant: str | None = None) -> CheapestPrice | None:
    """The cheapest current on-demand price of ``accelerator``, in USD per accelerator-hour.

    Read from ``store`` at call time: the newest accepted observation of each offer
    collected within ``freshness_days`` before ``now`` (UTC), then the same like-for-like
    rules as :func:`spread`: on-demand only, USD only (no exchange rate), one stated
    ``variant`` (default: :func:`default_variant`, the one the price page's spread uses;
    an observation whose variant is not stated never counts — unless no offer of the part
    states one, when its offers are compared as one and ``variant`` reads ''), held rows
    never. Ties go to the most recently collected. None when no observation qualifies.
    """
    return _cheapest(store.current(accelerator, now, freshness_days), accelerator, now, freshness_days, variant)


def cheapest_by_accelerator(store: Store, now: dt.datetime, freshness_days: int = 90) -> dict[str, CheapestPrice]:
    """:func:`cheapest_on_demand` (each part's default variant) of every accelerator with a
    qualifying observation, from one store query over every part's current observations."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in store.current(None, now, freshness_days):
        if row["accelerator"]:
            groups.setdefault(row["accelerator"], []).append(row)
    found = {acc: _cheapest(rows, acc, now, freshness_days, None) for acc, rows in groups.items()}
    return {acc: price for acc, price in found.items() if price is not None}


def _cheapest(rows: list[dict[str, Any]], accelerator: str, now: dt.datetime, freshness_days: int,
              variant: str | None) -> CheapestPrice | None:
    chosen = default_variant((r["variant"] or "", r["pricing"]) for r in rows) if variant is None else variant
    observations = [observation_of(r) for r in rows]
    if variant is None and not chosen:
        # No offer of this part states a variant (an L4 is an L4): there is nothing to mix up,
        # so its offers are compared as one; with any variant stated, only that variant counts.
        observations = [o.model_copy(update={"variant": "as-listed"}) for o in observations if not o.variant]
        found = spread(observations, accelerator, "as-listed", now, freshness_days)
    else:
        found = spread(observations, accelerator, chosen, now, freshness_days)
    end = found.cheapest
    if end is None:
        return None
    row = next(r for r in rows if (r["provider"], r["instance_type"], r["region"], r["collected"], r["per_accelerator_hour"])
               == (end.provider, end.instance_type, end.region, end.collected, end.per_accelerator_hour))
    return CheapestPrice(accelerator=accelerator, variant=chosen, per_accelerator_hour=end.per_accelerator_hour,
                         provider=end.provider, instance_type=end.instance_type, region=end.region, collected=end.collected,
                         source_url=end.source_url, offer_id=row_id(row), counted=found.counted, freshness_days=freshness_days,
                         as_of=now)


__all__ = ["CheapestPrice", "ObservedSpread", "SpreadEnd", "cheapest_by_accelerator", "cheapest_on_demand", "default_variant", "spread"]

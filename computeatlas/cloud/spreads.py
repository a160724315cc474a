"""The like-for-like spread over observations: one accelerator, one variant, on-demand, USD,
within the freshness window, accepted rows only; both ends named, dated and linked.

An observation whose variant is not stated (``variant == ''``) is never in a per-variant
spread; a held observation is never an end. Prices are per accelerator-hour in USD (an
observation in another currency is left out: one currency per spread).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable

from pydantic import BaseModel

from computeatlas.cloud.observations import Observation, PricingKind, Status


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


__all__ = ["ObservedSpread", "SpreadEnd", "spread"]

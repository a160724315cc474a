"""The like-for-like spread over observations: one accelerator, one variant, on-demand, USD,
within the freshness window, accepted rows only; both ends named, dated and linked.

What counts is the one rule of :mod:`computeatlas.cloud.cheapest_price` (its
:func:`~computeatlas.cloud.cheapest_price.excluded_because`): an observation whose variant is
not stated is never in a per-variant spread (a single-variant part's offers are its one
variant); a held observation is never an end. Prices are per accelerator-hour in USD (an
observation in another currency is left out: one currency per spread). Both ends are chosen
by :func:`~computeatlas.cloud.cheapest_price.price_ends`, the ranking of the cheapest price
(:func:`~computeatlas.cloud.cheapest_price.cheapest_price`) and of the offers' spread
(:func:`computeatlas.cloud.pricing.spread_of`): ties go to the most recently collected, then
the offer id.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping

from pydantic import BaseModel

from computeatlas.cloud.cheapest_price import excluded_because, price_ends
from computeatlas.cloud.observations import Observation, Status
from computeatlas.cloud.offer_words import offer_id
from computeatlas.cloud.variants import rule_variant


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
    return SpreadEnd(
        per_accelerator_hour=o.per_accelerator_hour or 0.0,
        provider=o.provider,
        instance_type=o.instance_type,
        region=o.region,
        collected=o.collected,
        source_url=o.source_url,
    )


def _offer_id(o: Observation) -> str:
    return offer_id(o.provider, o.instance_type, o.pricing.value, o.term, o.region, o.collected.astimezone(dt.UTC).date())


def spread(
    observations: Iterable[Observation],
    accelerator: str,
    variant: str,
    now: dt.datetime,
    freshness_days: int = 90,
    sole: Mapping[str, str] | None = None,
) -> ObservedSpread:
    """The spread of ``accelerator`` in ``variant`` (a key such as ``sxm-80gb``) as of ``now``;
    ``sole`` maps single-variant parts to their one variant key
    (:func:`~computeatlas.cloud.cheapest_price.sole_keys`)."""
    inside = [
        o
        for o in observations
        if o.accelerator == accelerator
        and variant
        and o.status is Status.ACCEPTED
        and o.collected <= now
        and excluded_because(
            o.pricing.value,
            o.currency,
            o.per_accelerator_hour,
            rule_variant(o.variant, accelerator, sole or {}),
            variant,
            o.collected,
            now,
            freshness_days,
        )
        is None
    ]
    ends = price_ends(inside, lambda o: o.per_accelerator_hour or 0.0, lambda o: o.collected, _offer_id)
    if ends is None:
        return ObservedSpread(accelerator=accelerator, variant=variant, counted=0, cheapest=None, dearest=None, ratio=None)
    cheapest, dearest = ends
    ratio = (dearest.per_accelerator_hour or 0) / (cheapest.per_accelerator_hour or 1) if len(inside) > 1 else None
    return ObservedSpread(
        accelerator=accelerator, variant=variant, counted=len(inside), cheapest=_end(cheapest), dearest=_end(dearest), ratio=ratio
    )


__all__ = ["ObservedSpread", "SpreadEnd", "spread"]

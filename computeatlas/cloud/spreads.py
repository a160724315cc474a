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
from typing import Any, NamedTuple

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


class _Priced(NamedTuple):
    """What the spread reads of one observation (an :class:`Observation` or a stored row)."""

    accelerator: str
    accepted: bool
    pricing: str
    currency: str
    per_accelerator_hour: float | None
    variant: str
    collected: dt.datetime
    provider: str
    instance_type: str
    region: str
    term: str
    source_url: str


def _end(o: _Priced) -> SpreadEnd:
    return SpreadEnd(
        per_accelerator_hour=o.per_accelerator_hour or 0.0,
        provider=o.provider,
        instance_type=o.instance_type,
        region=o.region,
        collected=o.collected,
        source_url=o.source_url,
    )


def _offer_id(o: _Priced) -> str:
    return offer_id(o.provider, o.instance_type, o.pricing, o.term, o.region, o.collected.astimezone(dt.UTC).date())


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
    priced = (
        _Priced(
            o.accelerator,
            o.status is Status.ACCEPTED,
            o.pricing.value,
            o.currency,
            o.per_accelerator_hour,
            o.variant,
            o.collected,
            o.provider,
            o.instance_type,
            o.region,
            o.term,
            o.source_url,
        )
        for o in observations
    )
    return _spread(priced, accelerator, variant, now, freshness_days, sole)


def spread_of_rows(
    rows: Iterable[dict[str, Any]],
    accelerator: str,
    variant: str,
    now: dt.datetime,
    freshness_days: int = 90,
    sole: Mapping[str, str] | None = None,
) -> ObservedSpread:
    """:func:`spread` over stored rows as the store gives them (``accelerator``, ``collected``
    (aware), ``pricing``, ``currency``, ``per_accelerator_hour``, ``variant``, ``provider``,
    ``instance_type``, ``region``, ``term``, ``source_url``; ``status``, when absent, is
    accepted, as every row of :meth:`~computeatlas.cloud.store.Store.current` is): the same
    answer as over the rows made observations, without validating each row again."""
    priced = (
        _Priced(
            r["accelerator"],
            r.get("status", Status.ACCEPTED.value) == Status.ACCEPTED.value,
            r["pricing"],
            r["currency"],
            r["per_accelerator_hour"],
            r["variant"] or "",
            r["collected"].astimezone(dt.UTC),
            r["provider"],
            r["instance_type"],
            r["region"] or "",
            r["term"] or "",
            r["source_url"] or "",
        )
        for r in rows
    )
    return _spread(priced, accelerator, variant, now, freshness_days, sole)


def _spread(
    observations: Iterable[_Priced],
    accelerator: str,
    variant: str,
    now: dt.datetime,
    freshness_days: int,
    sole: Mapping[str, str] | None,
) -> ObservedSpread:
    inside = [
        o
        for o in observations
        if o.accelerator == accelerator
        and variant
        and o.accepted
        and o.collected <= now
        and excluded_because(
            o.pricing,
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


__all__ = ["ObservedSpread", "SpreadEnd", "spread", "spread_of_rows"]

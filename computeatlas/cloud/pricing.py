"""The price spread over current offers, and the price view of one accelerator.

Nothing here is written in a data file: every figure is computed from the offers' newest
accepted observations in the store (:mod:`computeatlas.cloud.offers`), with the
arithmetic kept beside it.

- **Spread** (:func:`spread_of`): for one accelerator and ONE stated variant, the cheapest
  and the dearest on-demand USD price per accelerator-hour within a date window (stale
  offers left out unless asked; an offer whose variant is not stated is never in a
  per-variant spread), both ends named, dated and linked, and dearest ÷ cheapest.
- **Price view** (:func:`price_view`): every offer of one part, each marked in or out of the
  spread with the reason, and its dot position on a USD axis.

The offer derivation lives in :mod:`computeatlas.cloud.offers` and the filters in
:mod:`computeatlas.cloud.queries`; import their names from there.
"""

from __future__ import annotations

import datetime as dt
import math
from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.cloud.cheapest_price import CheapestPrice, default_variant, excluded_because, price_ends
from computeatlas.cloud.offer_words import NOT_STATED, amount_text, unit_word
from computeatlas.cloud.offers import (
    COMPARISON_CURRENCY,
    STALE_AFTER_DAYS,
    OfferPrice,
)
from computeatlas.cloud.queries import (
    ALL_VARIANTS,
    PriceQuery,
    PricingQueryError,
)
from computeatlas.cloud.variants import Variant, record_variant
from computeatlas.core.states import State
from computeatlas.silicon.records import Accelerator

# --- the spread ----------------------------------------------------------------------

SPREAD_FORMULA = (
    "dearest ÷ cheapest on-demand USD price per accelerator-hour, for one variant, "
    "over the newest observation of each offer within the window; offers observed longer ago than the freshness window "
    f"(settings; {STALE_AFTER_DAYS} days by default) are left out unless asked, and so are offers whose variant is not stated"
)


class SpreadEnd(BaseModel):
    """One end of a spread: the offer, who sells it, when it was seen and where it is."""

    offer_id: str
    provider: str
    provider_name: str
    instance_type: str
    region_label: str
    seen: dt.date
    source_url: str
    per_accelerator_hour: float
    display: str
    arithmetic: str
    url: str


class Spread(BaseModel):
    """The price spread of one accelerator: derived from the offers, never written.

    ``state`` is :attr:`State.DERIVED` (two or more offers: both ends and ``ratio`` =
    dearest ÷ cheapest), :attr:`State.SINGLE_OFFER` (one offer, no spread) or
    :attr:`State.NO_OFFERS` (nothing qualifies); ``state_label`` is its label, and
    ``counted_text`` says what it was computed from in words ("computed from 10 offers").
    """

    accelerator: str
    variant: Variant | None = Field(description="the variant priced; None when every variant was mixed on request")
    all_variants: bool
    pricing: Literal["on-demand"] = "on-demand"
    currency: str = COMPARISON_CURRENCY
    since: dt.date | None
    until: dt.date | None
    region: str | tuple[str, ...] | None = Field(description="the region, or the regions, the spread is narrowed to")
    include_stale: bool
    as_of: dt.date
    state: State
    state_label: str = Field(description="the state's words (State.label)")
    counted_text: str = Field(description="'computed from 10 offers', or the state's words when not computed")
    cheapest: SpreadEnd | None
    dearest: SpreadEnd | None
    ratio: float | None = Field(description="dearest ÷ cheapest, when two or more offers count")
    ratio_text: str
    counted: int = Field(description="offers inside the spread")
    formula: str = SPREAD_FORMULA


class PriceRow(BaseModel):
    """An offer on a price page: whether it counts in the spread, why not, and its dot
    position (0–100 % of ``scale_max``) when it has a USD price per accelerator-hour."""

    offer: OfferPrice
    in_spread: bool
    excluded_because: str | None
    position: int | None


class VariantChoice(BaseModel):
    """A variant an accelerator is rented in, with how many offers name it."""

    key: str
    label: str
    offers: int
    selected: bool


class PriceView(BaseModel):
    """The price page of one accelerator and the body of ``/api/prices/{accelerator}``."""

    accelerator: str
    accelerator_name: str
    availability: str
    unit: str
    query: PriceQuery
    variants: list[VariantChoice]
    spread: Spread
    rows: list[PriceRow]
    scale_max: float | None = Field(description="right end of the dot plot, USD per accelerator-hour")
    stale_after_days: int = STALE_AFTER_DAYS
    as_of: dt.date
    cheapest: CheapestPrice | None = Field(
        None,
        description="the part's cheapest price by the one rule (computeatlas.cloud.cheapest_price), "
        "current, or its newest one with current=false; None where not read",
    )


def _exclusion(p: OfferPrice, variant: str, query: PriceQuery, freshness_days: int) -> str | None:
    """Why ``p`` is outside the spread, in words; None when it counts."""
    stated = "" if p.variant.key == NOT_STATED else p.variant.key
    chosen = None if variant == ALL_VARIANTS else variant
    # the one rule (kind, separability, currency, variant); the window is the query's, below
    ruled = excluded_because(p.pricing.value, p.currency, p.per_accelerator_hour, stated, chosen, p.collected, p.collected, freshness_days)
    if ruled is not None:
        return f"another variant ({p.variant.label})" if ruled.startswith("another variant") else ruled
    if query.region is not None and p.region not in query.values("region"):
        return f"another region ({p.region_label})"
    if query.since is not None and p.seen < query.since:
        return f"seen {p.seen}, before the window starts ({query.since})"
    if query.until is not None and p.seen > query.until:
        return f"seen {p.seen}, after the window ends ({query.until})"
    if p.stale and not query.include_stale:
        return f"not current: seen {p.age_days} days ago (more than {freshness_days})"
    return None


def _end(p: OfferPrice) -> SpreadEnd:
    return SpreadEnd(
        offer_id=p.id,
        provider=p.provider,
        provider_name=p.provider_name,
        instance_type=p.instance_type,
        region_label=p.region_label,
        seen=p.seen,
        source_url=p.source_url,
        per_accelerator_hour=p.per_accelerator_hour or 0.0,
        display=p.display,
        arithmetic=p.arithmetic,
        url=p.url,
    )


def _choose_variant(acc: Accelerator, prices: list[OfferPrice], asked: str | None) -> tuple[str, Variant | None]:
    """The variant key the spread uses (or ``all``) and its Variant; the default is the
    stated variant most on-demand offers name (as the observed-price page chooses it), else
    the part's own record variant (then nothing is counted)."""
    by_key = {p.variant.key: p.variant for p in prices}
    record = record_variant(acc)
    by_key.setdefault(record.key, record)
    if asked == ALL_VARIANTS:
        return ALL_VARIANTS, None
    if asked is not None:
        if asked not in by_key:
            raise PricingQueryError(
                f"parameter 'variant': {acc.id} has no variant {asked!r}; choose one of "
                + ", ".join(sorted(by_key))
                + f" or '{ALL_VARIANTS}'"
            )
        return asked, by_key[asked]
    chosen = default_variant((p.variant.key, p.pricing.value) for p in prices if p.variant.key != NOT_STATED)
    return (chosen, by_key[chosen]) if chosen else (record.key, record)


def spread_of(
    acc: Accelerator, prices: list[OfferPrice], query: PriceQuery, on: dt.date, freshness_days: int = STALE_AFTER_DAYS
) -> tuple[Spread, list[PriceRow]]:
    """Compute the spread of ``acc`` over ``prices`` (its offers) and mark every offer.

    Raises :class:`PricingQueryError` when ``query.variant`` names a variant the part
    is not offered in. Both ends are chosen by
    :func:`~computeatlas.cloud.cheapest_price.price_ends`, as the cheapest price and the
    observed spread are: ties go to the most recently collected offer, then the offer id.
    """
    key, variant = _choose_variant(acc, prices, query.variant)
    reasons = {p.id: _exclusion(p, key, query, freshness_days) for p in prices}
    inside = [p for p in prices if reasons[p.id] is None]
    ends = price_ends(inside, lambda p: p.per_accelerator_hour or 0.0, lambda p: p.collected, lambda p: p.id)
    cheapest, dearest = (_end(ends[0]), _end(ends[1])) if ends else (None, None)
    ratio, state, ratio_text = None, State.NO_OFFERS, "no spread: no on-demand USD offer qualifies"
    if len(inside) == 1:
        state, ratio_text = State.SINGLE_OFFER, "no spread: only one offer qualifies"
    elif len(inside) > 1 and cheapest and dearest:
        ratio, state = dearest.per_accelerator_hour / cheapest.per_accelerator_hour, State.DERIVED
        ratio_text = f"{amount_text(dearest.per_accelerator_hour)} ÷ {amount_text(cheapest.per_accelerator_hour)} ≈ {ratio:.2f}×"
    spread = Spread(
        accelerator=acc.id,
        variant=variant,
        all_variants=key == ALL_VARIANTS,
        since=query.since,
        until=query.until,
        region=query.region,
        include_stale=query.include_stale,
        as_of=on,
        state=state,
        state_label=state.label,
        counted_text=f"computed from {len(inside)} offers" if state is State.DERIVED else state.label,
        cheapest=cheapest,
        dearest=dearest,
        ratio=ratio,
        ratio_text=ratio_text,
        counted=len(inside),
    )
    plotted = [p.per_accelerator_hour for p in prices if p.usd_comparable and p.per_accelerator_hour]
    top = scale_top(max(plotted)) if plotted else None
    rows = [
        PriceRow(
            offer=p,
            in_spread=reasons[p.id] is None,
            excluded_because=reasons[p.id],
            position=round(100 * (p.per_accelerator_hour / top)) if top and p.usd_comparable and p.per_accelerator_hour else None,
        )
        for p in prices
    ]
    return spread, rows


def scale_top(highest: float) -> float:
    """The right end of a price axis: ``highest`` rounded up to a whole number (to a
    tenth below 1)."""
    return float(math.ceil(highest)) if highest >= 1 else math.ceil(highest * 10) / 10


def price_view(
    acc: Accelerator,
    prices: list[OfferPrice],
    query: PriceQuery | None = None,
    on: dt.date | None = None,
    freshness_days: int = STALE_AFTER_DAYS,
) -> PriceView:
    """Every offer of ``acc`` in ``prices`` (current offers from the store, see
    :func:`~computeatlas.cloud.offers.current_offers`) with its derived price, the spread
    chosen by ``query`` as of ``on`` and the dot-plot positions. Raises
    :class:`PricingQueryError` for an unknown variant."""
    on = on or dt.datetime.now(dt.UTC).date()
    query = query or PriceQuery()
    prices = sorted(
        (p for p in prices if p.accelerator == acc.id),
        key=lambda p: (not p.usd_comparable, p.per_accelerator_hour or 0.0, p.provider_name, p.id),
    )
    spread, rows = spread_of(acc, prices, query, on, freshness_days)
    counts = Counter(p.variant.key for p in prices)
    labels = {p.variant.key: p.variant.label for p in prices}
    chosen = spread.variant.key if spread.variant else ALL_VARIANTS
    variants = [
        VariantChoice(key=k, label=labels[k], offers=n, selected=k == chosen)
        for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]
    top = max((r.offer.per_accelerator_hour or 0.0 for r in rows if r.position is not None), default=None)
    return PriceView(
        accelerator=acc.id,
        accelerator_name=acc.name,
        availability=acc.availability.value,
        unit=unit_word(acc),
        query=query,
        variants=variants,
        spread=spread,
        rows=rows,
        scale_max=scale_top(top) if top else None,
        stale_after_days=freshness_days,
        as_of=on,
    )


__all__ = ["SPREAD_FORMULA", "PriceRow", "PriceView", "Spread", "SpreadEnd", "VariantChoice", "price_view", "scale_top", "spread_of"]

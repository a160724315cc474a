"""The price per accelerator-hour an estimate uses, and where it came from: given, an offer, or the cheapest.

A price given by the visitor is used as given; an offer's is read from its stored observation
(:func:`computeatlas.cloud.offers.offer_price`); with neither, the part's cheapest current
on-demand USD price by the one rule (:func:`computeatlas.cloud.cheapest_price.cheapest_price`),
named and dated. With no current price the newest one is named, not current, and no cost is computed.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from computeatlas.cloud.offer_words import amount_text, unit_word
from computeatlas.core.states import State
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.prices import PriceSource, cheapest_offer, chosen_offer
from computeatlas.silicon.records import Accelerator


class PriceInput(BaseModel):
    """The price per accelerator-hour the cost uses, and where it came from.

    Read through :class:`~computeatlas.economics.prices.PriceSource`. From an offer it is
    derived by :func:`computeatlas.cloud.offers.offer_price` from the offer's stored observation: ``instance`` prices ÷ ``accelerators_per_instance``;
    ``accelerator`` prices as published. It stays in the offer's currency. With neither an
    offer nor a price given it is the cheapest fresh on-demand USD observation of the part
    (origin ``cheapest``), named and dated like an offer.
    """

    outcome: State
    per_accelerator_hour: float | None = None
    currency: str = "USD"
    origin: str = Field(description="'user', 'offer', 'cheapest' (the cheapest fresh on-demand observation) or 'none'")
    working: str | None = None
    offer_id: str | None = None
    provider: str | None = None
    instance_type: str | None = None
    pricing: str | None = None
    term: str | None = None
    region: str | None = None
    seen: str | None = None
    stale: bool = Field(False, description="the offer was seen long enough ago to be stale (cloud layer's rule)")
    source_url: str | None = None
    offer_url: str | None = Field(None, description="the offer on its accelerator's price page")


def offer_price(catalog: EconomicsCatalog, acc: Accelerator, ident: str, prices: PriceSource | None) -> PriceInput:
    """The price of the offer ``ident`` of ``acc`` (:func:`~computeatlas.economics.prices.chosen_offer`, which raises
    :class:`~computeatlas.economics.inputs.EstimateError` for an unknown offer or one of another part)."""
    offer = chosen_offer(catalog, acc, ident, prices)
    return PriceInput(
        outcome=State.DERIVED, per_accelerator_hour=offer.per_accelerator_hour, currency=offer.currency, origin="offer",
        working=offer.arithmetic, offer_id=offer.id, provider=offer.provider_name, instance_type=offer.instance_type,
        pricing=offer.pricing.value, term=offer.term, region=offer.region, seen=offer.seen.isoformat(),
        stale=offer.stale, source_url=offer.source_url, offer_url=offer.url,
    )  # fmt: skip


def cheapest_price(catalog: EconomicsCatalog, acc: Accelerator, prices: PriceSource | None) -> PriceInput:
    """The cheapest fresh on-demand USD observation of ``acc``, or "no price" when none qualifies."""
    found, shown = cheapest_offer(catalog, acc, prices)
    if found is None:
        return PriceInput(outcome=State.NO_PRICE, origin="none")
    unit = unit_word(acc)
    if not found.current:
        return PriceInput(
            outcome=State.NO_PRICE,
            origin="none",
            stale=True,
            seen=found.collected.date().isoformat(),
            source_url=found.source_url,
            provider=shown.provider_name if shown else found.provider,
            instance_type=found.instance_type,
            offer_id=found.offer_id,
            working=(
                f"no current price: {found.seen}, {amount_text(found.per_accelerator_hour)} USD per {unit}-hour "
                f"on demand (variant {found.variant}); costs use current prices only"
            ),
        )
    working = (
        f"cheapest of {found.counted} fresh on-demand USD observation(s) of variant {found.variant} in the "
        f"{found.freshness_days} days to {found.as_of.date()}: {amount_text(found.per_accelerator_hour)} USD per {unit}-hour"
    )
    return PriceInput(
        outcome=State.DERIVED, per_accelerator_hour=found.per_accelerator_hour, currency="USD", origin="cheapest",
        working=working + (f" ({shown.arithmetic})" if shown else ""), offer_id=found.offer_id,
        provider=shown.provider_name if shown else found.provider, instance_type=found.instance_type,
        pricing="on-demand", term=shown.term if shown else None, region=found.region or None, seen=found.collected.date().isoformat(),
        source_url=found.source_url, offer_url=shown.url if shown else None,
    )  # fmt: skip


__all__ = ["PriceInput", "cheapest_price", "offer_price"]

"""Where the estimate reads its price: the observation store, as of one moment.

:class:`PriceSource` names the store, the time and the settings' freshness window;
:func:`chosen_offer` resolves an offer id the visitor gave (a clear 404 listing the part's
current offers when it names none, a 400 when it rents another part) and
:func:`cheapest_offer` gives the cheapest price of a part by the one rule
(:func:`computeatlas.cloud.cheapest_price.cheapest_price`), named and dated: current, or its
newest one marked not current (the estimate then computes no cost and says so). Prices are per
accelerator-hour in the observation's currency (USD for the cheapest).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from computeatlas.cloud.cheapest_price import CheapestPrice, cheapest_price
from computeatlas.cloud.offers import STALE_AFTER_DAYS, OfferLink, OfferPrice, current_offers, find_offer
from computeatlas.cloud.store import Store
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.inputs import EstimateError
from computeatlas.silicon.records import Accelerator

MAX_OFFER_SUGGESTIONS = 8
"""How many of a part's offers an unknown offer id lists; the rest are counted (``more``)."""


@dataclass(frozen=True, slots=True)
class PriceSource:
    """Where the estimate reads prices: the observation ``store`` as of ``now`` (UTC), with the
    settings' freshness window and hours per month; ``link`` gives each offer's page (the page
    layer's :data:`~computeatlas.cloud.offers.OfferLink`)."""

    store: Store
    now: dt.datetime
    freshness_days: int = STALE_AFTER_DAYS
    hours_per_month: float = 730.0
    link: OfferLink = field(kw_only=True)

    def current(self, catalog: EconomicsCatalog, accelerator: str) -> list[OfferPrice]:
        """The current offers of ``accelerator`` (newest accepted observation within the window)."""
        return current_offers(
            catalog,
            self.store,
            self.now,
            self.freshness_days,
            accelerator=accelerator,
            hours_per_month=self.hours_per_month,
            link=self.link,
        )


def offer_label(offer: OfferPrice) -> str:
    """An offer in words that tell it from its neighbours: provider, instance, pricing and
    term, region and the price as published, e.g. ``aws · p5.48xlarge · capacity-block
    (Capacity Block) · US East (Ohio) · 39.33 USD/h per instance``."""
    terms = offer.pricing.value + (f" ({offer.term})" if offer.term else "")
    price = f"{offer.price_text} {offer.currency}/h per {offer.price_basis.value}"
    return " · ".join((offer.provider, offer.instance_type, terms, offer.region or "region not stated", price))


def chosen_offer(catalog: EconomicsCatalog, acc: Accelerator, ident: str, prices: PriceSource | None) -> OfferPrice:
    """The stored offer ``ident`` names, priced as of ``prices.now``.

    Raises :class:`EstimateError`: 404 when no accepted observation has that id (listing up
    to :data:`MAX_OFFER_SUGGESTIONS` current offers of ``acc`` and how many more), 400 when
    the offer rents another part."""
    offer = (
        find_offer(catalog, prices.store, ident, prices.now, prices.freshness_days, prices.hours_per_month, link=prices.link)
        if prices
        else None
    )
    if offer is None:
        own = prices.current(catalog, acc.id) if prices else []
        hint = [(offer_label(o), o.id) for o in own[:MAX_OFFER_SUGGESTIONS]]
        more = max(len(own) - MAX_OFFER_SUGGESTIONS, 0)
        raise EstimateError("offer", f"no offer with id {ident!r}" + ("" if own else f"; the atlas has no current offers for {acc.id}"),
                            404, hint, more=more, accelerator=acc.id)  # fmt: skip
    if offer.accelerator != acc.id:
        raise EstimateError("offer", f"offer {ident!r} rents {offer.accelerator}, not {acc.id}")
    return offer


def cheapest_offer(
    catalog: EconomicsCatalog, acc: Accelerator, prices: PriceSource | None
) -> tuple[CheapestPrice | None, OfferPrice | None]:
    """The cheapest price of ``acc`` by the one rule and its offer as lists show it: current, or
    the newest one with ``current`` False (None, None when none qualifies or no store is given)."""
    found = cheapest_price(prices.store, acc.id, prices.now, prices.freshness_days, catalog=catalog, current_only=False) if prices else None
    if found is None or prices is None:
        return None, None
    return found, find_offer(
        catalog, prices.store, found.offer_id, prices.now, prices.freshness_days, prices.hours_per_month, link=prices.link
    )


__all__ = ["MAX_OFFER_SUGGESTIONS", "PriceSource", "cheapest_offer", "chosen_offer", "offer_label"]

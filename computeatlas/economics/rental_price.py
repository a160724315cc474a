"""The price per accelerator-hour a bound uses: the cheapest price by the one rule
(:func:`computeatlas.cloud.cheapest_price.cheapest_prices`: one stated variant, on-demand, USD,
within the freshness window; current prices only — a part whose newest price is older is left
out of the ranking and listed with why, :func:`left_out`), or a price the visitor chose: an
offer of the cloud layer (by its stable id) or a figure of their own.
"""

from __future__ import annotations

import datetime as dt
import math

from pydantic import BaseModel, Field

from computeatlas.cloud import cheapest_price
from computeatlas.cloud.cheapest_price import CheapestPrice
from computeatlas.cloud.offers import find_offer, unlinked
from computeatlas.cloud.queries import PricingQueryError, accelerator_id
from computeatlas.cloud.spreads import SpreadEnd
from computeatlas.cloud.store import Store
from computeatlas.core.errors import NotFound, ParamError, closest
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.errors import UnknownId


class RentalPrice(SpreadEnd):
    """A price per accelerator-hour [USD], named and dated: who, which instance, where, when,
    and where it was read."""

    freshness_days: int
    origin: str = "the cheapest fresh on-demand observation"

    @property
    def text(self) -> str:
        """The price in words, e.g. ``1.99 USD per accelerator-hour, voltage-park On-Demand (Ethernet), read 2026-09-20``."""
        if self.origin == "given by you":
            return f"{self.per_accelerator_hour:.4g} USD per accelerator-hour, given by you"
        return (
            f"{self.per_accelerator_hour:.4g} USD per accelerator-hour, {self.provider} {self.instance_type}"
            f"{' (' + self.region + ')' if self.region else ''}, read {self.collected.date().isoformat()}"
            f"{'' if self.origin.startswith('the cheapest') else ' (' + self.origin + ')'}"
        )


def _rental(found: CheapestPrice) -> RentalPrice:
    return RentalPrice(per_accelerator_hour=found.per_accelerator_hour, provider=found.provider, instance_type=found.instance_type,
                       region=found.region or "", collected=found.collected, source_url=found.source_url,
                       freshness_days=found.freshness_days)  # fmt: skip


def current_rental_prices(catalog: EconomicsCatalog, store: Store, now: dt.datetime, freshness_days: int = 90) -> dict[str, RentalPrice]:
    """The bound's price of every catalogued part with a CURRENT price by the one rule
    (:func:`computeatlas.cloud.cheapest_price.cheapest_prices`), by accelerator id."""
    found = cheapest_price.current_prices(cheapest_price.cheapest_prices(store, now, freshness_days, catalog))
    return {acc: _rental(p) for acc, p in found.items() if acc in catalog.accelerators}


class LeftOut(BaseModel):
    """A part a cost ranking leaves out, and why (e.g. "no current price: last seen 2026-03-21, 257 days ago")."""

    accelerator: str
    accelerator_name: str
    reason: str
    url: str = Field("", description="the accelerator's page (set by computeatlas.pages.economics)")


def left_out(catalog: EconomicsCatalog, store: Store, now: dt.datetime, freshness_days: int, ranked: set[str]) -> list[LeftOut]:
    """The rented or observed parts not in a ranking over ``ranked``, each with why
    (:func:`computeatlas.cloud.cheapest_price.left_out`)."""
    prices = cheapest_price.cheapest_prices(store, now, freshness_days, catalog)
    return [
        LeftOut(accelerator=a, accelerator_name=catalog.accelerators[a].name, reason=why)
        for a, why in cheapest_price.left_out(catalog, prices, ranked, store)
    ]


MAX_PRICE = 1e6
"""Highest price per accelerator-hour a visitor may give (USD); anything above is surely a typo."""


def chosen_price(
    catalog: EconomicsCatalog,
    store: Store,
    now: dt.datetime,
    offer: str | None = None,
    price: str | None = None,
    accelerator: str | None = None,
) -> tuple[str, RentalPrice] | None:
    """The price a visitor chose instead of the cheapest observation: an offer of the cloud layer
    (``offer``, its derived price per accelerator-hour), or ``price`` USD per accelerator-hour for
    ``accelerator``. None when neither is given.

    A blank value is one not given; ``accelerator`` is an id, alias or name (a name several
    parts share is a :class:`~computeatlas.cloud.queries.AmbiguousParam`, 300, listing them).
    Raises :class:`~computeatlas.core.errors.NotFound` (404) for an unknown offer, and
    :class:`~computeatlas.economics.errors.UnknownId` for an unknown accelerator (naming the closest),
    :class:`~computeatlas.core.errors.ParamError` (400) for a price that is
    not a finite number above zero and at most :data:`MAX_PRICE`, a price without an accelerator or one without a price,
    an offer in another currency, one whose price per accelerator is not separable, or an offer
    and a price given together (one of them would be ignored without a word).
    """
    offer, price, accelerator = (v.strip() if v and v.strip() else None for v in (offer, price, accelerator))  # blank: not given
    if offer and price is not None:
        raise ParamError("price", "give an offer or a price, not both: the offer's price would replace yours")
    if offer:
        found = find_offer(catalog, store, offer, now, link=unlinked)  # the bound's price names no page
        if found is None:
            raise NotFound(
                "No such offer", f"no offer with id {offer!r} (ids end in the date the price was read; the cloud pages list them)", []
            )
        if found.per_accelerator_hour is None:
            raise ParamError("offer", f"{offer!r} is a bundle whose price per accelerator is not separable ({found.arithmetic})")
        if found.currency != "USD":
            raise ParamError("offer", f"{offer!r} is priced in {found.currency}; the bound compares USD prices only")
        return found.accelerator, RentalPrice(per_accelerator_hour=found.per_accelerator_hour, provider=found.provider,
                                              instance_type=found.instance_type, region=found.region or "", collected=found.collected,
                                              source_url=found.source_url, freshness_days=0, origin=f"chosen offer {offer}")  # fmt: skip
    if price is None:
        if accelerator:
            raise ParamError(
                "accelerator", f"{accelerator!r} is given without a price: add price (USD per accelerator-hour) or leave accelerator out"
            )
        return None
    try:
        value = float(price)
    except ValueError:
        raise ParamError("price", f"{price!r} is not a number (USD per accelerator-hour)") from None
    if not (math.isfinite(value) and 0 < value <= MAX_PRICE):
        raise ParamError("price", f"{price!r} must be a finite number above 0 and at most {MAX_PRICE:,.0f} USD per accelerator-hour")
    if not accelerator:
        raise ParamError("accelerator", "name the accelerator the price is for")
    try:  # an id, alias or name, as every other accelerator parameter reads it; a shared name lists the parts
        accelerator = accelerator_id(catalog, accelerator)
    except PricingQueryError:
        near = closest(accelerator, list(catalog.accelerators))
        raise UnknownId("accelerator", "No such accelerator", f"no accelerator with id, alias or name {accelerator!r}",
                        [(catalog.accelerators[i].name, i) for i in near]) from None  # fmt: skip
    return accelerator, RentalPrice(per_accelerator_hour=value, provider="", instance_type="", region="", collected=now, source_url="",
                                    freshness_days=0, origin="given by you")  # fmt: skip


__all__ = ["MAX_PRICE", "LeftOut", "RentalPrice", "chosen_price", "current_rental_prices", "left_out"]

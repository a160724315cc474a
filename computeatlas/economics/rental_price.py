"""The price per accelerator-hour a bound uses: the cheapest fresh on-demand observation.

One small function (:func:`cheapest_on_demand`) so that it can be swapped for the cloud
package's own public function once it exists; until then it asks the observation store the
same question ``/cloud/prices/{id}`` asks (:meth:`computeatlas.cloud.store.Store.current`:
the newest accepted observation of each offer within the freshness window), keeping
on-demand prices in USD with a price per accelerator-hour, and takes the lowest.
"""

from __future__ import annotations

import datetime as dt
import math
from typing import Any

from pydantic import BaseModel

from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.pricing import offer_price
from computeatlas.cloud.store import Store
from computeatlas.core.catalog import Catalog
from computeatlas.core.errors import InputError, NotFound, closest
from computeatlas.core.urls import site_path


class RentalPrice(BaseModel):
    """A price per accelerator-hour [USD], named and dated: who, which instance, where, when,
    and where it was read."""

    per_accelerator_hour: float
    provider: str
    instance_type: str
    region: str
    collected: dt.datetime
    source_url: str
    freshness_days: int
    origin: str = "the cheapest fresh on-demand observation"

    @property
    def text(self) -> str:
        """The price in words, e.g. ``1.99 USD per accelerator-hour, voltage-park On-Demand (Ethernet), read 2026-09-20``."""
        if self.origin == "given by you":
            return f"{self.per_accelerator_hour:.4g} USD per accelerator-hour, given by you"
        return (f"{self.per_accelerator_hour:.4g} USD per accelerator-hour, {self.provider} {self.instance_type}"
                f"{' (' + self.region + ')' if self.region else ''}, read {self.collected.date().isoformat()}"
                f"{'' if self.origin.startswith('the cheapest') else ' (' + self.origin + ')'}")


def cheapest_on_demand(store: Store, accelerator: str, now: dt.datetime, freshness_days: int = 90) -> RentalPrice | None:
    """The cheapest on-demand USD price per accelerator-hour of ``accelerator`` among the
    current observations (collected within ``freshness_days`` before ``now``), or None."""
    return _cheapest(store.current(accelerator, now, freshness_days), freshness_days)


def cheapest_by_accelerator(store: Store, now: dt.datetime, freshness_days: int = 90) -> dict[str, RentalPrice]:
    """:func:`cheapest_on_demand` for every accelerator with a current observation, in one store query."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in store.current(None, now, freshness_days):
        groups.setdefault(row["accelerator"], []).append(row)
    return {acc: price for acc, rows in groups.items() if acc and (price := _cheapest(rows, freshness_days)) is not None}


def _cheapest(rows: list[dict[str, Any]], freshness_days: int) -> RentalPrice | None:
    rows = [r for r in rows if r["pricing"] == PricingKind.ON_DEMAND and r["currency"] == "USD" and r["per_accelerator_hour"]]
    if not rows:
        return None
    best = min(rows, key=lambda r: (r["per_accelerator_hour"], -r["collected"].timestamp()))
    return RentalPrice(per_accelerator_hour=best["per_accelerator_hour"], provider=best["provider"], instance_type=best["instance_type"],
                       region=best["region"] or "", collected=best["collected"], source_url=best["source_url"] or "",
                       freshness_days=freshness_days)  # fmt: skip


MAX_PRICE = 1e6
"""Highest price per accelerator-hour a visitor may give (USD); anything above is surely a typo."""


def chosen_price(catalog: Catalog, now: dt.datetime, offer: str | None = None, price: str | None = None,
                 accelerator: str | None = None) -> tuple[str, RentalPrice] | None:
    """The price a visitor chose instead of the cheapest observation: an offer of the cloud layer
    (``offer``, its derived price per accelerator-hour), or ``price`` USD per accelerator-hour for
    ``accelerator``. None when neither is given.

    Raises :class:`~computeatlas.core.errors.NotFound` (404) for an unknown offer or accelerator
    (naming the closest), :class:`~computeatlas.core.errors.InputError` (400) for a price that is
    not a finite number above zero and at most :data:`MAX_PRICE`, a price without an accelerator,
    an offer in another currency, or one whose price per accelerator is not separable.
    """
    if offer:
        found = catalog.offers.get(offer)
        if found is None:
            near = closest(offer, list(catalog.offers))
            raise NotFound("No such offer", f"no offer with id {offer!r}", [(i, site_path("cloud_prices", ident=catalog.offers[i].accelerator)) for i in near])
        derived = offer_price(catalog, found)
        if derived.per_accelerator_hour is None:
            raise InputError("offer", f"{offer!r} is a bundle whose price per accelerator is not separable ({derived.arithmetic})")
        if found.currency != "USD":
            raise InputError("offer", f"{offer!r} is priced in {found.currency}; the bound compares USD prices only")
        seen = dt.datetime.combine(found.seen, dt.time(), tzinfo=dt.UTC)
        return found.accelerator, RentalPrice(per_accelerator_hour=derived.per_accelerator_hour, provider=found.provider,
                                              instance_type=found.instance_type, region=found.region or "", collected=seen,
                                              source_url=found.source_url, freshness_days=0, origin=f"chosen offer {offer}")  # fmt: skip
    if price is None or not price.strip():
        if accelerator:
            raise InputError("price", "give a price in USD per accelerator-hour with the accelerator")
        return None
    try:
        value = float(price)
    except ValueError:
        raise InputError("price", f"{price!r} is not a number (USD per accelerator-hour)") from None
    if not (math.isfinite(value) and 0 < value <= MAX_PRICE):
        raise InputError("price", f"{price!r} must be a finite number above 0 and at most {MAX_PRICE:,.0f} USD per accelerator-hour")
    if not accelerator:
        raise InputError("accelerator", "name the accelerator the price is for")
    if accelerator not in catalog.accelerators:
        near = closest(accelerator, list(catalog.accelerators))
        raise NotFound("No such accelerator", f"no accelerator with id {accelerator!r}",
                       [(catalog.accelerators[i].name, site_path("silicon_page", ident=i)) for i in near])  # fmt: skip
    return accelerator, RentalPrice(per_accelerator_hour=value, provider="", instance_type="", region="", collected=now, source_url="",
                                    freshness_days=0, origin="given by you")  # fmt: skip


__all__ = ["MAX_PRICE", "RentalPrice", "cheapest_by_accelerator", "cheapest_on_demand", "chosen_price"]

"""The price per accelerator-hour a bound uses: the cheapest fresh on-demand observation.

One small function (:func:`cheapest_on_demand`) so that it can be swapped for the cloud
package's own public function once it exists; until then it asks the observation store the
same question ``/cloud/prices/{id}`` asks (:meth:`computeatlas.cloud.store.Store.current`:
the newest accepted observation of each offer within the freshness window), keeping
on-demand prices in USD with a price per accelerator-hour, and takes the lowest.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from pydantic import BaseModel

from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.store import Store


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

    @property
    def text(self) -> str:
        """The price in words, e.g. ``1.99 USD per accelerator-hour, voltage-park On-Demand (Ethernet), read 2026-09-20``."""
        return (f"{self.per_accelerator_hour:.4g} USD per accelerator-hour, {self.provider} {self.instance_type}"
                f"{' (' + self.region + ')' if self.region else ''}, read {self.collected.date().isoformat()}")


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


__all__ = ["RentalPrice", "cheapest_by_accelerator", "cheapest_on_demand"]

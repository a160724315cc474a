"""The cheapest current on-demand price of every accelerator, for the silicon table and comparisons.

One store query (:meth:`~computeatlas.cloud.store.Store.current` over all accelerators),
kept to the same offers as the accelerator page's range
(:func:`~computeatlas.cloud.history.observed_range`): the newest accepted observation of
each offer within the freshness window, on-demand, in USD, with a price per
accelerator-hour. This is the one function to swap when the cloud package offers its own
"cheapest fresh on-demand observation per accelerator".
"""

from __future__ import annotations

import datetime as dt

from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.spreads import SpreadEnd
from computeatlas.cloud.store import Store
from computeatlas.core.catalog import Catalog
from computeatlas.core.presentation import grouped
from computeatlas.silicon.table import Cell

NONE_OBSERVED = "none observed"
"""The price cell of a part with no fresh on-demand USD observation (not a zero, not an estimate)."""


def cheapest_on_demand(store: Store, now: dt.datetime, freshness_days: int) -> dict[str, SpreadEnd]:
    """The cheapest fresh on-demand USD price per accelerator-hour of each accelerator
    observed in the ``freshness_days`` before ``now``, by accelerator id, with its
    provider, instance, region, collection time and source page. An accelerator with no
    such observation is absent (its price is not a number we hold, never zero). Ties go
    to the provider first in name order."""
    best: dict[str, SpreadEnd] = {}
    for row in store.current(None, now, freshness_days):
        price = row.get("per_accelerator_hour")
        if row.get("pricing") != PricingKind.ON_DEMAND or row.get("currency") != "USD" or price is None:
            continue
        held = best.get(row["accelerator"])
        if held is None or (price, row["provider"]) < (held.per_accelerator_hour, held.provider):
            best[row["accelerator"]] = SpreadEnd(
                per_accelerator_hour=price, provider=row["provider"], instance_type=row["instance_type"],
                region=row["region"], collected=row["collected"], source_url=row["source_url"],
            )
    return best


def price_text(price: float) -> str:
    """A price per accelerator-hour as pages show it: cents, thousands separators (``"1.99"``, ``"10.50"``)."""
    whole = grouped(round(price, 2))
    head, _, cents = whole.partition(".")
    return f"{head}.{(cents + '00')[:2]}"


def price_cells(catalog: Catalog, cheapest: dict[str, SpreadEnd]) -> dict[str, Cell]:
    """The silicon table's ``price`` cells by accelerator id: the cheapest price (USD per
    accelerator-hour) dated and linked to where it was read, or "none observed"."""
    cells = {}
    for ident in catalog.accelerators:
        end = cheapest.get(ident)
        if end is None:
            cells[ident] = Cell(text=NONE_OBSERVED)
            continue
        provider = catalog.providers[end.provider].name if end.provider in catalog.providers else end.provider
        cells[ident] = Cell(text=price_text(end.per_accelerator_hour), number=end.per_accelerator_hour,
                            note=f"{provider}, {end.collected.date().isoformat()}", url=end.source_url)
    return cells


__all__ = ["NONE_OBSERVED", "cheapest_on_demand", "price_cells", "price_text"]

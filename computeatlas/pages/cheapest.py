"""The cheapest current on-demand price of every accelerator, for the silicon table and comparisons.

The cloud layer's one rule (:func:`computeatlas.cloud.spreads.cheapest_by_accelerator`, one
store query over every part): the newest accepted observation of each offer within the
freshness window, on-demand, in USD, in the part's default variant (an offer that does not
state its variant is never the cheap end) — the same price the estimate and the token-cost
bound use, and the cheap end of the price page's spread.
"""

from __future__ import annotations

import datetime as dt

from computeatlas.cloud.spreads import CheapestPrice, cheapest_by_accelerator
from computeatlas.cloud.store import Store
from computeatlas.core.catalog import Catalog
from computeatlas.core.presentation import grouped
from computeatlas.silicon.table import Cell

NONE_OBSERVED = "none observed"
"""The price cell of a part with no fresh on-demand USD observation (not a zero, not an estimate)."""


def cheapest_on_demand(store: Store, now: dt.datetime, freshness_days: int) -> dict[str, CheapestPrice]:
    """The cheapest fresh on-demand USD price per accelerator-hour of each accelerator, by id,
    named and dated (see the module docstring). An accelerator with no such observation is
    absent (its price is not a number we hold, never zero)."""
    return cheapest_by_accelerator(store, now, freshness_days)


def price_text(price: float) -> str:
    """A price per accelerator-hour as pages show it: cents, thousands separators (``"1.99"``, ``"10.50"``)."""
    whole = grouped(round(price, 2))
    head, _, cents = whole.partition(".")
    return f"{head}.{(cents + '00')[:2]}"


def price_cells(catalog: Catalog, cheapest: dict[str, CheapestPrice]) -> dict[str, Cell]:
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

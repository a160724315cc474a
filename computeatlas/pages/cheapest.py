"""The cheapest current on-demand price of every accelerator, for the silicon table and comparisons.

The cloud layer's one rule (:func:`computeatlas.cloud.spreads.cheapest_by_accelerator`, one
store query over every part): the newest accepted observation of each offer within the
freshness window, on-demand, in USD, in the part's default variant (an offer that does not
state its variant is never the cheap end) — the same price the estimate and the token-cost
bound use, and the cheap end of the price page's spread.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections import OrderedDict

from computeatlas.cloud.spreads import CheapestPrice, cheapest_by_accelerator
from computeatlas.cloud.store import Store
from computeatlas.core.catalog import Catalog
from computeatlas.core.presentation import grouped
from computeatlas.silicon.table import Cell

NONE_OBSERVED = "none observed"
"""The price cell of a part with no fresh on-demand USD observation (not a zero, not an estimate)."""


KEPT = 8
"""How many answers of :func:`cheapest_on_demand` are kept (least recently used out first)."""

_kept: OrderedDict[tuple[str, str, dt.datetime, int], dict[str, CheapestPrice]] = OrderedDict()
_lock = threading.Lock()


def cheapest_on_demand(store: Store, now: dt.datetime, freshness_days: int) -> dict[str, CheapestPrice]:
    """The cheapest fresh on-demand USD price per accelerator-hour of each accelerator, by id,
    named and dated (see the module docstring). An accelerator with no such observation is
    absent (its price is not a number we hold, never zero).

    Worked out once per store, store version (:meth:`Store.version`: an import changes it)
    and minute of ``now`` (the window the store reads, see :meth:`Store.current`) and kept:
    the silicon table and every comparison page of that minute ask the same question (a
    static build asks it some 400 times). The answer is shared: read it, do not change it.
    """
    key = (str(store.root), store.version(), now.replace(second=0, microsecond=0), freshness_days)
    with _lock:
        found = _kept.get(key)
        if found is not None:
            _kept.move_to_end(key)
            return found
    found = cheapest_by_accelerator(store, now, freshness_days)
    with _lock:
        _kept[key] = found
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return found


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


__all__ = ["KEPT", "NONE_OBSERVED", "cheapest_on_demand", "price_cells", "price_text"]

"""The silicon table's price column: each part's cheapest price by the one rule
(:func:`computeatlas.cloud.cheapest_price.cheapest_prices`: fresh, on-demand, USD, the part's
default variant, held rows never), dated and linked; where no observation of a part is
current, its newest one with its date and age, marked not current (never ranked: the cell has
no number to sort by, so it sorts after every current price).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping

from computeatlas.catalog import Catalog
from computeatlas.cloud.cheapest_price import CheapestPrice, cheapest_prices
from computeatlas.cloud.offer_words import amount_text
from computeatlas.cloud.store import Store
from computeatlas.core.numbers import grouped
from computeatlas.silicon.table import Cell

NONE_OBSERVED = "none observed"
"""The price cell of a part with no on-demand USD observation the rule takes (not a zero, not an estimate)."""


def price_text(price: float) -> str:
    """A price per accelerator-hour as every page shows it: :func:`~computeatlas.cloud.offer_words.amount_text`
    (two to four decimals, rounded half up: ``"1.99"``, ``"0.558"``, ``"2.4638"``) with thousands separators."""
    head, _, decimals = amount_text(price).partition(".")
    return f"{grouped(int(head))}.{decimals}" if head.lstrip("-").isdigit() else amount_text(price)


def provider_name(catalog: Catalog, ident: str) -> str:
    """The provider's name as the catalog records it, or its id when it has no record."""
    return catalog.providers[ident].name if ident in catalog.providers else ident


def price_cells(catalog: Catalog, cheapest: Mapping[str, CheapestPrice]) -> dict[str, Cell]:
    """The silicon table's ``price`` cells by accelerator id: the cheapest price (USD per
    accelerator-hour) dated and linked to where it was read; "not current: last seen …" with
    the old price; or "none observed"."""
    cells = {}
    for ident in catalog.accelerators:
        end = cheapest.get(ident)
        if end is None:
            cells[ident] = Cell(text=NONE_OBSERVED)
        elif not end.current:
            cells[ident] = Cell(
                text=f"not current: {price_text(end.per_accelerator_hour)}",
                note=f"{provider_name(catalog, end.provider)}, {end.seen}",
                url=end.source_url,
            )
        else:
            cells[ident] = Cell(
                text=price_text(end.per_accelerator_hour),
                number=end.per_accelerator_hour,
                note=f"{provider_name(catalog, end.provider)}, {end.collected.date().isoformat()}",
                url=end.source_url,
            )
    return cells


def price_column(catalog: Catalog, store: Store, now: dt.datetime, freshness_days: int) -> dict[str, dict[str, Cell]]:
    """The silicon table's columns read from outside the records (``table.rows(given=...)``):
    the ``price`` cells of :func:`price_cells`, by the one rule, from ``store`` at ``now``."""
    return {"price": price_cells(catalog, cheapest_prices(store, now, freshness_days, catalog))}


__all__ = ["NONE_OBSERVED", "price_cells", "price_column", "price_text", "provider_name"]

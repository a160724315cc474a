"""Price meets specs in a comparison: the cheapest current on-demand price of each part and
what a dollar-hour buys.

Rows (each cell dated and linked where it holds a price):

- cheapest on-demand price, USD per accelerator-hour (the one rule:
  :func:`~computeatlas.cloud.cheapest_price.cheapest_prices`); a part with no current price shows
  its newest one, not current ("last seen …"), and gets no price-performance figure;
- dense compute per USD-hour at the comparison's headline number format: dense FLOP/s (OP/s
  for an integer format) ÷ that price, in TFLOPS per USD/hour;
- memory per USD-hour: memory (GB) ÷ that price.

A price-performance cell is derived from a published figure and an observed price: where
the figure is not a published per-accelerator number it carries the figure's state
("not published" …); where no current price is observed it says so. Never an estimate.
"""

from __future__ import annotations

import datetime as dt

from computeatlas.catalog import Catalog
from computeatlas.cloud.cheapest_price import CheapestPrice, cheapest_prices
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.numbers import grouped, sig3, tera_unit
from computeatlas.core.states import State
from computeatlas.pages.cheapest import price_text, provider_name
from computeatlas.pages.comparison import ComparisonView
from computeatlas.silicon.comparison import with_ratios
from computeatlas.silicon.comparison_views import CellView, RowView

NONE_OBSERVED_STATE = State.NO_PRICE
"""The state of a price cell with no on-demand USD observation at all."""
NONE_OBSERVED_LABEL = "no current on-demand price observed"
"""What such a cell shows (and a price-performance cell beside it)."""
NOT_CURRENT_STATE = State.STALE
"""The state of a price cell whose newest observation is older than the freshness window."""


def _price_cell(catalog: Catalog, base: CellView, end: CheapestPrice | None) -> CellView:
    if end is None:
        return CellView(
            id=base.id,
            state=NONE_OBSERVED_STATE,
            state_label=NONE_OBSERVED_STATE.label,
            display=NONE_OBSERVED_LABEL,
            comparable=False,
            verified=base.verified,
        )
    provider = provider_name(catalog, end.provider)
    if not end.current:
        return CellView(
            id=base.id,
            state=NOT_CURRENT_STATE,
            state_label=NOT_CURRENT_STATE.label,
            display=f"not current: {end.seen}",
            comparable=False,
            verified=end.collected.date(),
            note=f"{provider}, {end.instance_type}, {price_text(end.per_accelerator_hour)} USD per hour",
            url=end.source_url,
        )
    return CellView(
        id=base.id,
        state=State.PUBLISHED,
        state_label=State.PUBLISHED.label,
        display=f"{price_text(end.per_accelerator_hour)} USD per hour",
        comparable=True,
        amount=end.per_accelerator_hour,
        verified=end.collected.date(),
        note=f"{provider}, {end.instance_type}, collected {end.collected.date().isoformat()}",
        url=end.source_url,
    )


def _per_dollar(figure: CellView, price: CellView, scale: float, unit: str, what: str) -> CellView:
    """``figure`` (canonical amount ÷ ``scale``) per USD-hour of ``price``, or the reason there is none."""
    if figure.amount is None or not figure.comparable:
        return CellView(
            id=figure.id,
            state=figure.state,
            state_label=figure.state_label,
            display=figure.state_label,
            comparable=False,
            verified=figure.verified,
            reason=f"{what}: {figure.state_label}",
        )
    if price.amount is None:
        words = (
            f"no current price: {price.display.removeprefix('not current: ')}" if price.state is NOT_CURRENT_STATE else NONE_OBSERVED_LABEL
        )
        return CellView(
            id=figure.id,
            state=NONE_OBSERVED_STATE,
            state_label=NONE_OBSERVED_STATE.label,
            display=words,
            comparable=False,
            verified=figure.verified,
        )
    value = figure.amount / scale / price.amount
    return CellView(
        id=figure.id,
        state=State.DERIVED,
        state_label=State.DERIVED.label,
        display=f"{sig3(value)} {unit}",
        comparable=True,
        amount=value,
        verified=min(figure.verified, price.verified),
        worked=f"{grouped(figure.amount / scale)} ÷ {price_text(price.amount)} USD/hour = {sig3(value)} {unit}",
    )


def _compute_per_dollar(compute: CellView, price: CellView, fmt: NumberFormat) -> CellView:
    return _per_dollar(compute, price, 1e12, f"{tera_unit(fmt)} per USD/hour", f"{fmt.value} dense compute")


def _memory_per_dollar(memory: CellView, price: CellView) -> CellView:
    return _per_dollar(memory, price, 1e9, "GB per USD/hour", "memory")


def _not_shared(price: CellView) -> CellView:
    """A compute-per-dollar cell where the parts share no dense number format."""
    words = "not comparable: no number format shared"
    return CellView(
        id=price.id,
        state=State.NOT_COMPARABLE,
        state_label=State.NOT_COMPARABLE.label,
        display=words,
        comparable=False,
        verified=price.verified,
    )


def own_price_cells(catalog: Catalog, cells: dict[str, CellView], cheapest: CheapestPrice | None) -> dict[str, CellView]:
    """One part's cell in every price row a comparison can have, by row key, from its own
    spec ``cells`` (:func:`computeatlas.silicon.comparison.own_cells`) and its cheapest current
    price (None when none is observed): the cells :func:`price_rows` puts in its rows, before
    ratios."""
    price = _price_cell(catalog, cells["memory"], cheapest)
    found = {"price.on_demand": price, "price.compute_per_usd": _not_shared(price)}
    for fmt in NumberFormat:
        found[f"price.compute_per_usd.{fmt.value}"] = _compute_per_dollar(cells[f"compute.{fmt.value}"], price, fmt)
    return found | {"price.memory_per_usd": _memory_per_dollar(cells["memory"], price)}


def price_rows(catalog: Catalog, view: ComparisonView, cheapest: dict[str, CheapestPrice], freshness_days: int) -> list[RowView]:
    """The price row and the price-performance rows of ``view`` from ``cheapest`` (by accelerator id)."""
    by_key = {r.key: r for r in view.rows}
    reference = view.parts[0].name
    prices = [_price_cell(catalog, c, cheapest.get(c.id)) for c in by_key["memory"].cells]
    rows = [
        RowView(
            key="price.on_demand",
            label="Cheapest on-demand price, USD per accelerator-hour",
            group="price",
            unit="USD/h",
            note=f"Lowest fresh on-demand USD observation in the last {freshness_days} days, any provider, in the part's most-offered stated variant (all its offers when none states one).",
            cells=prices,
        )
    ]
    fmt = view.headline.number_format
    if fmt is not None:
        unit = f"{tera_unit(fmt)} per USD/hour"
        compute = by_key[f"compute.{fmt.value}"].cells
        rows.append(
            RowView(
                key=f"price.compute_per_usd.{fmt.value}",
                label=f"Dense {fmt.value} per USD-hour",
                group="price",
                number_format=fmt,
                unit=unit,
                formula=f"= dense {fmt.value} ({tera_unit(fmt)}) ÷ cheapest on-demand price (USD/hour)",
                cells=[_compute_per_dollar(c, p, fmt) for c, p in zip(compute, prices, strict=True)],
            )
        )
    else:
        rows.append(
            RowView(
                key="price.compute_per_usd",
                label="Dense compute per USD-hour",
                group="price",
                note="These parts share no number format all publish as a dense per-accelerator figure (see Headline compute), so compute per dollar is not set side by side.",
                cells=[_not_shared(p) for p in prices],
            )
        )
    rows.append(
        RowView(
            key="price.memory_per_usd",
            label="Memory per USD-hour",
            group="price",
            unit="GB per USD/hour",
            formula="= memory (GB) ÷ cheapest on-demand price (USD/hour)",
            cells=[_memory_per_dollar(c, p) for c, p in zip(by_key["memory"].cells, prices, strict=True)],
        )
    )
    return [with_ratios(r, reference) for r in rows]


def with_prices(catalog: Catalog, view: ComparisonView, store: Store, now: dt.datetime, freshness_days: int) -> ComparisonView:
    """``view`` with its price rows filled from ``store``'s current observations as of ``now``
    (the web page, ``/api/compare`` and ``computeatlas compare`` all call this)."""
    view.prices = price_rows(catalog, view, cheapest_prices(store, now, freshness_days, catalog), freshness_days)
    return view


__all__ = ["NONE_OBSERVED_LABEL", "NONE_OBSERVED_STATE", "NOT_CURRENT_STATE", "own_price_cells", "price_rows", "with_prices"]

"""CLI commands for the economics layer: ``estimate`` (our roofline bound) and ``claims``."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from computeatlas.cli.base import (
    DataOption,
    PricesOption,
    app,
    fail,
    find_accelerator_id,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cloud import history
from computeatlas.cloud.store import Store
from computeatlas.economics.estimate import estimate as run_estimate
from computeatlas.economics.inputs import DoesNotFit, EstimateError, parse_request
from computeatlas.economics.prices import PriceSource
from computeatlas.energy.views import economics_view


@app.command()
def estimate(
    accelerator: Annotated[str, typer.Argument(help="Accelerator id, e.g. nvidia-h200-sxm.")],
    params: Annotated[str, typer.Option("--params", help="Model parameters, a whole number from 1e6 to 1e15: 70e9, 70000000000 or 70B.")],
    number_format: Annotated[str, typer.Option("--format", help="Number format of the weights and compute: FP8, BF16, FP4 ...")],
    utilisation: Annotated[str, typer.Option("--utilisation", help="Share of dense peak compute reached at large batch, from 0.001 to 1, e.g. 0.5 or 50%.")],
    price: Annotated[str | None, typer.Option("--price", help="Price in USD per accelerator-hour, from 0.0001 to 1e6 (or use --offer).")] = None,
    offer: Annotated[str | None, typer.Option("--offer", help="An offer id from the price store (e.g. lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20; see computeatlas prices) to take the price from; with neither --price nor --offer, the cheapest current on-demand USD price is used.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON instead of tables.")] = False,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Upper bound on decode tokens/s and lower bound on cost per million tokens, from published figures.

    Batch 1 is memory-bound (bandwidth ÷ weight bytes); large batch is compute-bound
    (dense FLOP/s × utilisation ÷ 2 × parameters). Inputs: a whole parameter count from 1e6
    to 1e15, utilisation from 0.001 to 1, a price from 0.0001 to 1e6 USD per
    accelerator-hour. Exits 2 on bad input, including a model that does not fit in one
    accelerator's memory (with the minimum number needed) and an unknown offer (listing
    some of the part's offers and how many more there are).
    """
    settings = settings_for(data=data, prices=prices)
    catalog = load_catalog(settings)
    source = PriceSource(Store(settings.prices_dir), history.utcnow(), settings.freshness_days, settings.hours_per_month)
    try:
        request = parse_request(accelerator, params, number_format, utilisation, price, offer)
        find_accelerator_id(catalog, request.accelerator)
        result = run_estimate(catalog, request, source)
    except DoesNotFit as exc:
        raise fail(f"Does not fit: {exc.reason}.") from None
    except EstimateError as exc:
        label = "Offers for this accelerator" if exc.param == "offer" else "Closest"
        more = f" (and {exc.more} more; see computeatlas prices {exc.accelerator})" if exc.more and exc.accelerator else ""
        near = f" {label}: {', '.join(i for _, i in exc.suggestions)}{more}." if exc.suggestions else ""
        raise fail(f"--{exc.param}: {exc.reason}.{near}") from None
    if as_json:
        out.print_json(result.model_dump_json())
        return
    out.print(f"[bold]{result.params_display} parameters in {result.number_format.value} on {result.accelerator_name}[/bold]")
    out.print(f"{result.label.capitalize()}.", highlight=False)
    fit = "fits in one accelerator" if result.fits.value == "computed" else f"fit on one accelerator {result.fits.value}"
    out.print(f"Weights: {result.weight_display} (weights only); {fit}.", highlight=False)
    inputs = Table(title="Published figures used", show_lines=False)
    for heading in ("input", "as published", "basis", "source"):
        inputs.add_column(heading)
    for f in (result.memory, result.memory_bandwidth, result.compute):
        shown = f.value if f.usable else f"{f.state_label}" + (f": {f.value}" if f.value else "")
        inputs.add_row(f.label, shown or "", f.basis or "", f.source_url or "")
    p = result.price
    inputs.add_row("Price per accelerator-hour", p.working or p.outcome.value, "", p.source_url or ("given by you" if p.origin == "user" else ""))
    inputs.add_row("Utilisation", f"{result.utilisation:g}", "", "given by you")
    out.print(inputs)
    bounds = Table(title="Results", show_lines=False)
    for heading in ("bound", "value", "formula", "working or reason"):
        bounds.add_column(heading)
    for b in (result.decode_batch1, result.decode_compute_bound, result.cost_batch1, result.cost_compute_bound):
        bounds.add_row(b.label, b.display, b.formula, b.working or b.reason or "")
    out.print(bounds)
    out.print("Assumptions:")
    for n, text in enumerate(result.assumptions, 1):
        out.print(f" {n}. {text}", highlight=False)


@app.command()
def claims(data: DataOption = None) -> None:
    """List the economics claims: the claimant's figure, what the claimant sells, the model and date."""
    view = economics_view(load_catalog(data))
    for label, group in view.groups.items():
        grid = Table(title=label, show_lines=False)
        for heading in ("claim", "claimant", "sells", "figure (their words)", "model", "date"):
            grid.add_column(heading)
        for c in group:
            grid.add_row(c.id, c.claimant, c.claimant_sells.value + (" (these parts)" if c.sells_these_parts else ""),
                         c.display, c.model, c.date.isoformat())  # fmt: skip
        out.print(grid)

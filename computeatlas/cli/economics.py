"""CLI commands for the economics layer: ``estimate`` (our roofline bound), ``claims`` and ``tokens`` (one model side by side)."""

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
from computeatlas.cli.tables import Footnotes, print_table, say
from computeatlas.cloud import history
from computeatlas.cloud.store import Store
from computeatlas.core.errors import Ambiguous, BadRequest, NotFound, ParamError
from computeatlas.core.numbers import significant
from computeatlas.economics.bound_settings import request_from
from computeatlas.economics.errors import UnknownId
from computeatlas.economics.estimate import estimate as run_estimate
from computeatlas.economics.inputs import EstimateError, parse_request
from computeatlas.economics.model_view import find_model, model_view
from computeatlas.economics.prices import PriceSource
from computeatlas.economics.rental_price import chosen_price
from computeatlas.economics.token_prices import token_store
from computeatlas.pages.cloud_links import offer_page
from computeatlas.pages.economics import linked_estimate, linked_view
from computeatlas.pages.energy import economics_view


@app.command()
def estimate(
    accelerator: Annotated[str, typer.Argument(help="Accelerator id, e.g. nvidia-h200-sxm.")],
    number_format: Annotated[str, typer.Option("--format", help="Number format of the weights and compute: FP8, BF16, FP4 ...")],
    utilisation: Annotated[
        str, typer.Option("--utilisation", help="Share of dense peak compute and bandwidth, from 0.001 to 1, e.g. 0.5 or 50%.")
    ],
    model: Annotated[str | None, typer.Option("--model", help="Model id, e.g. llama-3-3-70b (or give --params).")] = None,
    params: Annotated[
        str | None,
        typer.Option("--params", help="Parameters of a dense model, a whole number from 1e6 to 1e15: 70e9 or 70B (or give --model)."),
    ] = None,
    price: Annotated[
        str | None, typer.Option("--price", help="Price in USD per accelerator-hour, from 0.0001 to 1e6 (or use --offer).")
    ] = None,
    offer: Annotated[
        str | None,
        typer.Option(
            "--offer",
            help="An offer id from the price store (e.g. lambda-1x-nvidia-h100-sxm-on-demand-2026-09-20; see computeatlas prices) to take the price from; with neither --price nor --offer, the cheapest current on-demand USD price is used.",
        ),
    ] = None,
    context: Annotated[str | None, typer.Option("--context", help="Tokens per sequence (default 1024).")] = None,
    batch: Annotated[str | None, typer.Option("--batch", help="Sequences decoded together (default: the largest that fits).")] = None,
    accelerators: Annotated[
        str | None, typer.Option("--accelerators", help="N accelerators (default: the fewest that hold the model).")
    ] = None,
    kv_bits: Annotated[str | None, typer.Option("--kv-bits", help="Bits per cached element: 4, 8, 16 (default) or 32.")] = None,
    mix: Annotated[str | None, typer.Option("--mix", help="Input:output tokens of the blended cost (default 3:1).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON instead of tables.")] = False,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """The model pages' bound for one model on one accelerator: prefill and decode tokens/s and cost per million tokens.

    Weights and KV cache on N accelerators (the fewest that hold them unless --accelerators is
    given); decode is the lower of memory-bound and compute-bound. Inputs: a model id or a
    whole parameter count from 1e6 to 1e15 (a dense model whose KV cache is not yet collected),
    utilisation from 0.001 to 1, a price from 0.0001 to 1e6 USD per accelerator-hour. Exits 2
    on bad input, including an unknown model or offer (listing some of the part's offers and
    how many more there are).
    """
    settings = settings_for(data=data, prices=prices)
    catalog = load_catalog(settings)
    source = PriceSource(Store(settings.prices_dir), history.utcnow(), settings.freshness_days, settings.hours_per_month, link=offer_page)
    try:
        request = parse_request(accelerator, params, number_format, utilisation, price, offer, model, context, batch, accelerators,
                                kv_bits, mix)  # fmt: skip
        find_accelerator_id(catalog, request.accelerator)
        result = run_estimate(catalog, request, source)
    except EstimateError as exc:
        label = "Offers for this accelerator" if exc.param == "offer" else "Closest"
        more = f" (and {exc.more} more; see computeatlas prices {exc.accelerator})" if exc.more and exc.accelerator else ""
        near = f" {label}: {', '.join(i for _, i in exc.suggestions)}{more}." if exc.suggestions else ""
        raise fail(f"--{exc.param.replace('_', '-')}: {exc.reason}.{near}") from None
    if as_json:
        out.print_json(linked_estimate(result).model_dump_json())
        return
    row = result.result
    say(out, f"{result.model_name} ({result.params_display} parameters) in {result.number_format.value} on {result.accelerator_name}")
    say(out, f"{result.label.capitalize()}.")
    inputs, notes = Table(title="Published figures used", show_lines=False), Footnotes()
    for heading in ("input", "as published", "basis", "source"):
        inputs.add_column(heading)
    for f in (result.memory, result.memory_bandwidth, result.compute):
        shown = f.value if f.usable else f"{f.state_label}" + (f": {f.value}" if f.value else "")
        inputs.add_row(f.label, shown or "", f.basis or "", notes.cite(f.source_url))
    p = result.price
    inputs.add_row(
        "Price per accelerator-hour",
        p.working or p.outcome.label,
        "",
        notes.cite(p.source_url) or ("given by you" if p.origin == "user" else ""),
    )
    inputs.add_row("Utilisation", f"{result.utilisation:g}", "", "given by you")
    print_table(out, inputs)
    notes.print(out)
    if row.bound is None:
        raise fail(f"{row.state.label}: {row.reason}.")
    b = row.bound
    say(out, f"{b.accelerators} × {result.accelerator_name}, batch {b.batch if b.batch is not None else '—'}, context {b.context} tokens.")
    bounds = Table(title="Results", show_lines=False)
    for heading in ("figure", "value", "formula", "working or reason"):
        bounds.add_column(heading)
    figures = (b.weights, b.kv_per_token, b.memory_need, b.prefill, b.decode_memory, b.decode_compute, b.decode)
    for fig in (*figures, row.cost_input, row.cost_output, row.cost_blended, b.tokens_per_joule):
        if fig is not None:
            value = f"{significant(fig.amount)} {fig.unit}" if fig.amount is not None else fig.state.label
            bounds.add_row(fig.label, value, fig.formula, fig.working or fig.reason or "")
    print_table(out, bounds)
    say(out, "Assumptions:")
    for n, text in enumerate(result.assumptions, 1):
        say(out, f" {n}. {text}")


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
        print_table(out, grid)


@app.command()
def tokens(
    model: Annotated[str, typer.Argument(help="Model id, e.g. llama-3-3-70b (see /economics/ for the list).")],
    number_format: Annotated[str | None, typer.Option("--format", help="Number format of weights and compute (default FP8).")] = None,
    context: Annotated[
        str | None, typer.Option("--context", help="Tokens per sequence, prompt and output together (default 1024).")
    ] = None,
    mix: Annotated[str | None, typer.Option("--mix", help="Input:output tokens of the blended cost (default 3:1).")] = None,
    utilisation: Annotated[
        str | None, typer.Option("--utilisation", help="Share of peak, 0.001 to 1 (default 1: a bound; below 1 an estimate).")
    ] = None,
    kv_bits: Annotated[
        str | None, typer.Option("--kv-bits", help="Bits per cached key or value element: 4, 8, 16 (default) or 32.")
    ] = None,
    batch: Annotated[str | None, typer.Option("--batch", help="Sequences decoded together (default: the largest that fits).")] = None,
    accelerators: Annotated[
        str | None, typer.Option("--accelerators", help="N accelerators (default: the fewest that hold the model).")
    ] = None,
    offer: Annotated[
        str | None,
        typer.Option("--offer", help="An offer id (see computeatlas prices) whose price replaces its accelerator's cheapest observation."),
    ] = None,
    price: Annotated[
        str | None, typer.Option("--price", help="A price in USD per accelerator-hour (above 0, at most 1e6) for --accelerator.")
    ] = None,
    accelerator: Annotated[str | None, typer.Option("--accelerator", help="The accelerator id --price is for.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON instead of tables.")] = False,
    data: DataOption = None,
) -> None:
    """What a million tokens of MODEL costs: market prices, published claims and the bound, side by side.

    Market prices per million input and output tokens (per provider, dated, with the spread);
    the claims that concern the model (claimant and interest; compared only when their basis is
    stated); the upper bound on throughput (lower bound on cost) per accelerator at today's
    cheapest fresh on-demand price, ranked by output cost. A market price below the lowest bound
    is flagged. Exits 2 on an unknown model (naming the closest) or a bad setting.
    """
    settings = settings_for(data=data)
    catalog = load_catalog(settings)
    try:
        now = history.utcnow()
        chosen = chosen_price(catalog, Store(settings.prices_dir), now, offer, price, accelerator)
        view = model_view(catalog, find_model(catalog, model), request_from(number_format, context, mix, utilisation, kv_bits, batch, accelerators),
                          Store(settings.prices_dir), token_store(settings.data / "tokens"), now, settings.freshness_days, chosen)  # fmt: skip
    except NotFound as exc:
        ids = [i for _, i in exc.near] if isinstance(exc, UnknownId) else [url.rsplit("/", 1)[-1] for _, url in exc.suggestions]
        near = f" Closest: {', '.join(ids)}." if ids else ""
        raise fail(f"{exc.detail}.{near}") from None
    except BadRequest as exc:
        raise fail(f"--{exc.param}: {exc.reason}" if isinstance(exc, ParamError) else exc.detail) from None
    except Ambiguous as exc:  # --accelerator names several parts (A100): the message lists their ids
        raise fail(exc.detail.replace("parameter '", "option '--")) from None
    if as_json:
        out.print_json(linked_view(view).model_dump_json())
        return
    say(out, f"{view.name} ({view.developer}, {'mixture of experts' if view.architecture == 'moe' else 'dense'})")
    market = Table(title="Market prices, USD per million tokens (the newest of each provider's product)")
    for heading in ("provider", "product", "input", "output", "collected", "flag"):
        market.add_column(heading)
    for m in view.current:
        market.add_row(m.provider_name, m.product, significant(m.input_per_million), significant(m.output_per_million),
                       m.collected.date().isoformat() + (f" (stale: {m.age_days} days old)" if m.stale else ""), "; ".join(m.flags))  # fmt: skip
    print_table(out, market)
    if view.spread.ratio and view.spread.cheapest and view.spread.dearest:
        which = (
            ""
            if view.spread.fresh
            else f" (no current price: the newest are stale, collected by {view.spread.newest}, {view.spread.age_days} days ago)"
        )
        say(
            out,
            f"Output-price spread {view.spread.ratio:.2f}×{which}: {view.spread.cheapest.provider_name} {significant(view.spread.cheapest.output_per_million)} "
            f"to {view.spread.dearest.provider_name} {significant(view.spread.dearest.output_per_million)} USD.",
        )
    for c in view.claims:
        say(out, f"Claim {c.id}: {c.claimant} (sells: {c.claimant_sells}) {significant(c.value)} {c.unit} — {c.comparison}")
    if not view.claims:
        say(out, "No published claim in the atlas concerns this model.")
    what = "The bound" if view.settings["utilisation"] == "1" else f"The estimate (utilisation {view.settings['utilisation']})"
    grid = Table(
        title=f"{what} at today's cheapest on-demand price ({view.label}; {view.settings['format']}, {view.settings['context']}-token context)"
    )
    for heading in (
        "accelerator",
        "price used",
        "N × batch",
        "decode tokens/s",
        "input USD/M",
        "output USD/M",
        f"blended {view.settings['mix']}",
    ):
        grid.add_column(heading)
    for b in view.bounds:
        if b.bound is None:
            grid.add_row(b.accelerator_name, b.price.text if b.price else "no fresh price", "", b.reason or b.state.label, "", "", "")
            continue
        cell = lambda f: significant(f.amount) if f is not None and f.amount is not None else (f.state.label if f is not None else "")
        grid.add_row(b.accelerator_name, b.price.text if b.price else "no fresh price", f"{b.bound.accelerators} × {b.bound.batch or '—'}",
                     cell(b.bound.decode), cell(b.cost_input), cell(b.cost_output), cell(b.cost_blended))  # fmt: skip
    print_table(out, grid)
    for left in view.left_out:
        say(out, f"Left out: {left.accelerator_name} — {left.reason}")

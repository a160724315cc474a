"""CLI commands that list what the price-observation store holds: ``prices held`` (the held
observations, or how much of the store the instance table places) and ``prices history``
(one accelerator's accepted observations as CSV). Each is thin over
:mod:`computeatlas.cloud.store`; errors are one line each, never a traceback; exit 2 for bad
input. The commands that fill the store are in :mod:`computeatlas.cli.intake`; ``prices
runs``, ``status``, ``repair`` and ``compact`` in :mod:`computeatlas.cli.price_store`."""

from __future__ import annotations

import datetime as dt
import json
import sys
from typing import Annotated

import typer
from rich.table import Table

from computeatlas.cli.base import (
    DataOption,
    PricesOption,
    fail,
    find_accelerator_id,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cli.cloud import prices_app
from computeatlas.cli.price_store import existing_store
from computeatlas.cli.tables import print_table, say
from computeatlas.cloud import history as history_clock
from computeatlas.cloud.observations import PricingKind
from computeatlas.cloud.placement import PlacementReport, placement
from computeatlas.cloud.queries import PricingQueryError, pricing_kind, provider_id
from computeatlas.cloud.rules import RULES
from computeatlas.cloud.store import Store
from computeatlas.core.numbers import significant
from computeatlas.pages.providers import every_offer, shown_providers
from computeatlas.publish.exports.csv import write_rows


@prices_app.command("held")
def held(
    run: Annotated[str | None, typer.Option(help="Only rows of this import run.")] = None,
    limit: Annotated[int, typer.Option(help="At most this many rows (0: all).")] = 200,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines (one object per held row) instead of a table.")] = False,
    summary: Annotated[
        bool,
        typer.Option(
            "--summary",
            help="Instead of the rows: the placed share per provider (observations our "
            "instance table places), with the instance names it lacks.",
        ),
    ] = False,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """List held observations for the operator, newest first, with the rules that held them.
    Held rows are never shown to visitors as prices. With --summary, how much of the store
    the instance table places, per provider (goal: 95% of the hyperscalers', 90% of all)."""
    store = (
        existing_store(settings_for(data=data, prices=prices).prices_dir)
        if summary
        else Store(settings_for(data=data, prices=prices).prices_dir)
    )
    if summary:
        _print_placement(placement(store, {p.id: p.kind.value for p in load_catalog(data).providers.values()}), as_json)
        return
    rows = store.held(run=run, limit=limit or None)
    if as_json:
        for row in rows:  # one JSON document per line (JSON lines): amounts are numbers, times ISO 8601
            typer.echo(json.dumps(row, default=_json_default, ensure_ascii=False))
        return
    grid = Table(title=f"{len(rows)} held observations" + (f" of run {run}" if run else ""))
    for heading in ("collected", "provider", "instance", "region", "pricing", "price", "rules", "reasons"):
        grid.add_column(heading)
    for r in rows:
        grid.add_row(
            f"{r['collected']:%Y-%m-%d %H:%M}",
            r["provider"],
            r["instance_type"],
            r["region"],
            r["pricing"] + (f" ({r['term']})" if r["term"] else ""),
            f"{significant(r['amount'], 6)} {r['currency']}/{r['unit']}",
            ", ".join(r["rules"]),
            "; ".join(r["reasons"]),
        )
    print_table(out, grid, markup=False)
    say(out, "Rules: " + "; ".join(f"{k}: {v}" for k, v in RULES.items()))


def _json_default(value: object) -> object:
    """A held row's value that JSON has no type for: a time or date as ISO 8601, else its text."""
    return value.isoformat() if isinstance(value, dt.date | dt.datetime) else str(value)


def _print_placement(report: PlacementReport, as_json: bool) -> None:
    """The placement report as a table (or one JSON document)."""
    if as_json:
        out.print_json(report.model_dump_json())
        return
    grid = Table(title="Observations placed by our instance table (newest decision per observation)")
    for heading, justify in (
        ("provider", "left"),
        ("kind", "left"),
        ("observations", "right"),
        ("placed", "right"),
        ("share", "right"),
        ("most frequent unplaced names", "left"),
    ):
        grid.add_column(heading, justify=justify)  # type: ignore[arg-type]
    for p in report.providers:
        grid.add_row(
            p.provider,
            p.kind,
            f"{p.observations:,}",
            f"{p.placed:,}",
            f"{p.share:.1%}",
            ", ".join(f"{name} ({n:,})" for name, n in p.missing),
        )
    print_table(out, grid, markup=False)
    for label, share in (("hyperscalers (goal 95%)", report.hyperscaler_share), ("overall (goal 90%)", report.overall_share)):
        say(out, f"Placed, {label}: " + (f"{share:.1%}" if share is not None else "no observations"))


@prices_app.command("history")
def history(
    ident: Annotated[str, typer.Argument(help="Accelerator id, e.g. nvidia-h100-sxm.")],
    since: Annotated[str | None, typer.Option(help="From this collection date (YYYY-MM-DD).")] = None,
    until: Annotated[str | None, typer.Option(help="Up to this collection date (YYYY-MM-DD).")] = None,
    provider: Annotated[str | None, typer.Option(help="Only this provider id (any case).")] = None,
    pricing: Annotated[str | None, typer.Option(help="Only this pricing kind (on_demand, also written on-demand; spot, …).")] = None,
    variant: Annotated[str | None, typer.Option(help="Only this variant key (sxm-80gb).")] = None,
    region: Annotated[str | None, typer.Option(help="Only this region, as the provider names it.")] = None,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Print every accepted observation of one accelerator as CSV (oldest first): the
    price as published and per accelerator-hour, with where and when it was read."""
    settings = settings_for(data=data, prices=prices)
    catalog = load_catalog(data)
    acc = find_accelerator_id(catalog, ident)
    bounds = {}
    for name, text in (("since", since), ("until", until)):
        try:
            bounds[name] = dt.date.fromisoformat(text) if text else None
        except ValueError:
            raise fail(f"option '--{name}': {text!r} is not a date (write YYYY-MM-DD)") from None
    if bounds["since"] and bounds["until"] and bounds["since"] > bounds["until"]:
        raise fail(f"option '--since': {since} is after --until {until}: the window is empty")
    try:  # the one reading of each, as the web filters read them
        pricing = PricingKind(pricing_kind(pricing).value.replace("-", "_")).value if pricing is not None else None
        if provider is not None:
            known = shown_providers(catalog, every_offer(catalog, Store(settings.prices_dir), history_clock.utcnow(),
                                                         settings.freshness_days, settings.hours_per_month))  # fmt: skip
            provider = provider_id(provider, known)
    except PricingQueryError as exc:
        raise fail(str(exc).replace("parameter '", "option '--")) from None
    rows = Store(settings.prices_dir).history(
        acc, bounds["since"], bounds["until"], provider=provider, pricing=pricing, variant=variant, region=region
    )
    columns = (
        "collected",
        "provider",
        "instance_type",
        "region",
        "pricing",
        "term",
        "amount",
        "currency",
        "unit",
        "accelerators",
        "per_accelerator_hour",
        "variant",
        "qualifiers",
        "source_url",
        "via",
        "run",
    )
    write_rows(sys.stdout, columns, ([" ".join(r[c]) if c == "qualifiers" else r[c] for c in columns] for r in rows))

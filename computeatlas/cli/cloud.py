"""CLI commands for the cloud layer: ``prices`` — ``show`` (offers of one accelerator and its
spread; ``computeatlas prices ID`` is short for ``prices show ID``), ``import``, ``collect``,
``held``, ``history`` and ``runs`` over the observation store."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from computeatlas.cli.base import (
    AtlasGroup,
    DataOption,
    app,
    fail,
    find_accelerator_id,
    load_catalog,
    out,
)
from computeatlas.cli.tables import print_table
from computeatlas.cloud import pricing


class PricesGroup(AtlasGroup):
    """The ``prices`` group: a first argument that is not a subcommand is an accelerator for ``show``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Insert ``show`` before an accelerator id given directly (``prices nvidia-h100-sxm``)."""
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["show", *args]
        return super().parse_args(ctx, args)


prices_app = typer.Typer(cls=PricesGroup, no_args_is_help=True, help="Prices: offers and spreads, and the observation store "
                         "(import, collect, held, history, runs). 'prices ID' is short for 'prices show ID'.")
app.add_typer(prices_app, name="prices")


@prices_app.command("show")
def prices(
    ident: Annotated[str, typer.Argument(help="Accelerator id, e.g. nvidia-h100-sxm.")],
    variant: Annotated[str | None, typer.Option(help="Variant key, e.g. sxm-80gb ('all' mixes every variant); default: the part's own variant.")] = None,
    pricing_: Annotated[str | None, typer.Option("--pricing", help="List only on-demand, spot or reserved offers, or several comma-separated (the spread is always on-demand).")] = None,
    region: Annotated[str | None, typer.Option(help="Only offers in this region, as the offer names it, or in any of several comma-separated (narrows the spread too).")] = None,
    since: Annotated[str | None, typer.Option(help="Only offers seen on or after this date (YYYY-MM-DD).")] = None,
    until: Annotated[str | None, typer.Option(help="Only offers seen on or before this date (YYYY-MM-DD).")] = None,
    include_stale: Annotated[bool, typer.Option("--include-stale", help=f"Count offers seen more than {pricing.STALE_AFTER_DAYS} days ago in the spread.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON (/api/prices/ID) instead of a table.")] = False,
    data: DataOption = None,
) -> None:
    """Show every offer for one accelerator with its price per accelerator-hour (and the
    arithmetic), then the spread: cheapest and dearest on-demand USD price for one variant."""
    catalog = load_catalog(data)
    acc = catalog.accelerators[find_accelerator_id(catalog, ident)]
    params = {"variant": variant, "pricing": pricing_, "region": region, "since": since, "until": until,
              "include_stale": "true" if include_stale else None}
    try:
        query = pricing.parse_query(params, catalog)
        view = pricing.price_view(catalog, acc, query)
    except pricing.PricingQueryError as exc:
        raise fail(str(exc).replace("parameter '", "option '--").replace("include_stale", "include-stale")) from None
    listed = pricing.PriceQuery(pricing=query.pricing, region=query.region, variant=query.variant, since=query.since, until=query.until)
    view.rows = [r for r in view.rows if pricing.matches(r.offer, listed)]
    if as_json:
        out.print_json(view.model_dump_json())
        return
    grid = Table(title=f"{acc.name}: {len(view.rows)} offers (price per {view.unit}-hour derived from the published price)")
    for heading in ("offer", "provider", "variant", "instance", "pricing", "per " + view.unit + "-hour (arithmetic)", "region", "seen", "in spread"):
        grid.add_column(heading)
    for r in view.rows:
        o = r.offer
        grid.add_row(
            o.id, o.provider_name, f"{o.variant_published} [{o.variant.label}]", o.instance_type,
            o.pricing.value + (f" ({o.term})" if o.term else ""),
            o.arithmetic + (f" — {o.currency_note}" if o.currency_note else ""),
            o.region_label, f"{o.seen}" + (" stale" if o.stale else ""),
            "yes" if r.in_spread else f"no: {r.excluded_because}",
        )
    print_table(out, grid, markup=False)
    s = view.spread
    scope = f"on-demand USD, variant {s.variant.label if s.variant else 'all (mixed as asked)'}"
    if s.state == "computed" and s.cheapest and s.dearest:
        out.print(f"Spread ({scope}): {s.ratio_text} over {s.counted} offers", markup=False, highlight=False)
        for label, end in (("cheapest", s.cheapest), ("dearest", s.dearest)):
            out.print(f"  {label}: {end.display} — {end.provider_name}, {end.instance_type}, seen {end.seen}, {end.source_url}", markup=False, highlight=False)
    else:
        out.print(f"Spread ({scope}): {s.ratio_text}", markup=False, highlight=False)
    out.print(f"Variants: {', '.join(f'{v.key} ({v.offers})' for v in view.variants) or 'none'}; stale = seen more than "
              f"{pricing.STALE_AFTER_DAYS} days before {s.as_of}.", markup=False, highlight=False)

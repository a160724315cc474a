"""CLI commands for the cloud layer: ``prices`` — ``show`` (the current offers of one
accelerator from the observation store, and its spread; ``computeatlas prices ID`` is short
for ``prices show ID``), ``import``, ``collect``, ``held``, ``history`` and ``runs``."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table

from computeatlas.cli.base import (
    AtlasGroup,
    DataOption,
    PricesOption,
    app,
    fail,
    find_accelerator_id,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cli.tables import print_table, say
from computeatlas.cloud import history, pricing, queries
from computeatlas.cloud.cheapest_price import cheapest_price
from computeatlas.cloud.offer_words import amount_text
from computeatlas.cloud.offers import OfferPrice, current_offers, regions_of
from computeatlas.cloud.runs import rates_of
from computeatlas.cloud.store import Store
from computeatlas.core.offer_words import pricing_words
from computeatlas.core.states import State
from computeatlas.pages.cloud_links import offer_page


class PricesGroup(AtlasGroup):
    """The ``prices`` group: a first argument that is not a subcommand is an accelerator for ``show``."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        """Insert ``show`` before an accelerator id given directly (``prices nvidia-h100-sxm``)."""
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["show", *args]
        return super().parse_args(ctx, args)


prices_app = typer.Typer(
    cls=PricesGroup,
    no_args_is_help=True,
    help="Prices: offers and spreads, and the observation store "
    "(import, collect, held, history, runs). 'prices ID' is short for 'prices show ID'.",
)
app.add_typer(prices_app, name="prices")


@prices_app.command("show")
def prices(
    ident: Annotated[str, typer.Argument(help="Accelerator id, e.g. nvidia-h100-sxm.")],
    variant: Annotated[
        str | None, typer.Option(help="Variant key, e.g. sxm-80gb ('all' mixes every variant); default: the part's own variant.")
    ] = None,
    pricing_: Annotated[
        str | None,
        typer.Option(
            "--pricing",
            help="List only on_demand (also written on-demand), spot, committed, reserved, capacity_block, marketplace, monthly or weekly offers, or several comma-separated (the spread is always on-demand).",
        ),
    ] = None,
    region: Annotated[
        str | None,
        typer.Option(
            help="Only offers in this region, as the offer names it, or in any of several comma-separated (narrows the spread too)."
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="Only offers observed on or after this date (YYYY-MM-DD); default: the freshness window.")
    ] = None,
    until: Annotated[str | None, typer.Option(help="Only offers observed on or before this date (YYYY-MM-DD).")] = None,
    include_stale: Annotated[
        bool,
        typer.Option(
            "--include-stale",
            help="Also list, and count in the spread, offers whose newest observation is older than the freshness window (90 days by default).",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the view (offers, spread, variants) as JSON instead of a table.")] = False,
    prices_: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Show the current offers of one accelerator (the newest accepted observation of each
    offer in the store, within the freshness window) with the price per accelerator-hour
    and the arithmetic, then the spread: cheapest and dearest on-demand USD price for one
    stated variant."""
    settings = settings_for(data=data, prices=prices_)
    catalog = load_catalog(settings)
    acc = catalog.accelerators[find_accelerator_id(catalog, ident)]
    params = {
        "variant": variant,
        "pricing": pricing_,
        "region": region,
        "since": since,
        "until": until,
        "include_stale": "true" if include_stale else None,
    }
    store, now = Store(settings.prices_dir), history.utcnow()
    read: dict[tuple[object, ...], list[OfferPrice]] = {}

    def offers_for(q: queries.PriceQuery) -> list[OfferPrice]:
        key = (q.since, q.until, q.include_stale)
        if key not in read:
            read[key] = current_offers(
                catalog,
                store,
                now,
                settings.freshness_days,
                q.since,
                q.until,
                q.include_stale,
                acc.id,
                settings.hours_per_month,
                link=offer_page,
                rates=rates_of(settings),
            )
        return read[key]

    try:
        query = queries.parse_query(params, catalog, regions=lambda q: regions_of(offers_for(q)))
        view = pricing.price_view(acc, offers_for(query), query, now.date(), settings.freshness_days)
    except queries.PricingQueryError as exc:
        raise fail(str(exc).replace("parameter '", "option '--").replace("include_stale", "include-stale")) from None
    listed = queries.PriceQuery(
        pricing=query.pricing,
        region=query.region,
        variant=query.variant,
        since=query.since,
        until=query.until,
        include_stale=query.include_stale,
    )
    view.rows = [r for r in view.rows if queries.matches(r.offer, listed)]
    view.cheapest = cheapest_price(store, acc.id, now, settings.freshness_days, catalog=catalog, current_only=False)
    if as_json:
        out.print_json(view.model_dump_json())
        return
    grid = Table(title=f"{acc.name}: {len(view.rows)} offers (price per {view.unit}-hour derived from the published price)")
    for heading in (
        "offer",
        "provider",
        "variant",
        "instance",
        "pricing",
        "per " + view.unit + "-hour (arithmetic)",
        "region",
        "seen",
        "in spread",
    ):
        grid.add_column(heading)
    for r in view.rows:
        o = r.offer
        grid.add_row(
            o.id,
            o.provider_name,
            f"{o.variant_published} [{o.variant.label}]",
            o.instance_type,
            pricing_words(o.pricing, o.term),
            o.arithmetic + (f" — {o.currency_note}" if o.currency_note else ""),
            o.region_label,
            f"{o.seen}" + (" stale" if o.stale else ""),
            "yes" if r.in_spread else f"no: {r.excluded_because}",
        )
    print_table(out, grid, markup=False)
    s = view.spread
    scope = f"on-demand USD, variant {s.variant.label if s.variant else 'all (mixed as asked)'}"
    if s.state is State.DERIVED and s.cheapest and s.dearest:
        say(out, f"Spread ({scope}): {s.ratio_text} over {s.counted} offers")
        for label, end in (("cheapest", s.cheapest), ("dearest", s.dearest)):
            say(
                out,
                f"  {label}: {end.display} — {end.provider_name}, {end.instance_type}, seen {end.seen}, {end.source_url}",
            )
    else:
        say(out, f"Spread ({scope}): {s.ratio_text}")
    c = view.cheapest
    if c is None:
        say(out, "Cheapest price: none observed (no on-demand USD price of a stated variant).")
    else:
        state = c.seen if c.current else f"NOT CURRENT, {c.seen}"
        say(
            out,
            f"Cheapest price: {amount_text(c.per_accelerator_hour)} USD per {view.unit}-hour on demand, variant {c.variant} — "
            f"{c.provider}, {c.instance_type}, {state} ({c.offer_id})",
        )
    say(
        out,
        f"Variants: {', '.join(f'{v.key} ({v.offers})' for v in view.variants) or 'none'}; stale = observed more than "
        f"{settings.freshness_days} days before {s.as_of}.",
    )

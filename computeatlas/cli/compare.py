"""CLI for comparisons and names: ``computeatlas compare a b [c …]`` and alias resolution."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.markup import escape
from rich.table import Table

from computeatlas.catalog import Catalog
from computeatlas.cli.base import DataOption, WideOption, app, fail, load_catalog, out, settings_for
from computeatlas.cli.tables import print_table, say
from computeatlas.cloud import history
from computeatlas.cloud.store import Store
from computeatlas.core.states import State
from computeatlas.pages.compare_prices import with_prices
from computeatlas.pages.comparison import ComparisonView, comparison_view
from computeatlas.silicon import comparison_parts, comparison_views, resolve


def accelerator_id(catalog: Catalog, name: str) -> str:
    """The id ``name`` (id, alias or exact name) resolves to; else exit 2 with the
    candidates (ambiguous) or the closest ids (unknown)."""
    try:
        return resolve.resolve_id(catalog, name)
    except resolve.ResolveError as exc:
        raise fail(exc.message) from None


def _cell_text(cell: comparison_views.CellView, price: bool) -> str:
    text = cell.display  # the figure, or the state in words
    if cell.state is State.PUBLISHED_AS_TEXT:
        text = f"{cell.state_label}: {cell.display}"
    if cell.state is State.PUBLISHED and cell.basis:
        text += f" /{cell.basis}"
    if cell.ratio_display:
        text += f" ({cell.ratio_display})"
    if cell.dispute_to_weigh:
        text += " (disputed)"
    if price and cell.state is State.PUBLISHED and cell.note:
        text += f" ({cell.note})"
    return escape(text)


def _grid(view: ComparisonView, rows: list[comparison_views.RowView], title: str) -> Table:
    grid = Table(title=title, show_lines=False)
    grid.add_column("spec", no_wrap=True)
    for part in view.parts:
        grid.add_column(escape(part.name))
    for row in rows:
        grid.add_row(escape(row.label), *(_cell_text(c, row.group == "price") for c in row.cells))
    return grid


@app.command("compare")
def compare_cmd(
    names: Annotated[
        list[str], typer.Argument(help="2 to 6 accelerators: ids, aliases or names (e.g. nvidia-h100-sxm H200 Trn3).", show_default=False)
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON (/api/compare) instead of tables.")] = False,
    wide: WideOption = False,
    data: DataOption = None,
) -> None:
    """Compare 2 to 6 accelerators side by side, with ratios where both figures are comparable."""
    settings = settings_for(data=data)
    catalog = load_catalog(settings)
    try:
        view = comparison_view(catalog, comparison_parts.split_ids(names))
    except comparison_parts.CompareError as exc:
        raise fail(exc.message) from None
    view = with_prices(catalog, view, Store(settings.prices_dir), history.utcnow(), settings.freshness_days)
    if as_json:
        out.print_json(view.model_dump_json())
        return
    say(out, view.title)
    if view.curated:
        say(out, view.curated.framing)
        say(out, view.curated.verdict)
    say(out, view.headline.text)
    for gap in view.gaps if len(view.parts) > 2 else []:
        say(out, f"- {gap.text}")
    print_table(out, _grid(view, view.rows, f"Per accelerator; compute dense; ratios against {view.parts[0].name}"), wide=wide)
    print_table(out, _grid(view, view.derived, "Derived from published figures"), wide=wide)
    for row in view.derived:
        say(out, f"{row.label}: {row.formula}")
    print_table(out, _grid(view, view.prices, "Price meets specs: cheapest current on-demand price and what a USD-hour buys"), wide=wide)
    say(out, f"Data version {view.data_version} · page {view.url}")

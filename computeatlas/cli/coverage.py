"""``computeatlas coverage``: how much of the silicon table is sourced, and by whom."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from computeatlas.cli.base import DataOption, app, load_catalog, out
from computeatlas.cli.tables import print_table
from computeatlas.core.provenance import ReadAt
from computeatlas.silicon.coverage import CORE_FIELDS, Coverage, Tally, coverage_view, percent

_MARKS: dict[ReadAt | None, str] = {ReadAt.MAKER_HOSTED: "*", ReadAt.MAKER_COPY: "°"}


def _row(label: str, t: Tally) -> list[str]:
    return [
        label,
        f"{t.published}/{t.figures}",
        percent(t.published_share),
        f"{t.maker_hosted} ({percent(t.maker_hosted_share)})",
        f"{t.via_copy} ({percent(t.via_copy_share)})",
        f"{t.elsewhere} ({percent(t.elsewhere_share)})",
        str(t.disputed),
        str(t.not_sourced),
        str(t.not_collected),
    ]


@app.command()
def coverage(
    parts: Annotated[bool, typer.Option("--parts", help="Also list every accelerator's core fields by state.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON (/api/coverage) instead of tables.")] = False,
    data: DataOption = None,
) -> None:
    """Coverage of the core fields: share published; of those, read on the maker's own site, the maker's document via a copy, or other sources; disputed; not yet sourced."""
    view = coverage_view(load_catalog(data))
    if as_json:
        out.print_json(view.model_dump_json())
        return
    headings = (
        "published",
        "share",
        "maker-hosted",
        "maker's doc via a copy",
        "other sources",
        "disputed",
        "not yet sourced",
        "not yet collected",
    )
    fields = Table(title=f"Core fields of {len(view.parts)} accelerators (data version {view.data_version})")
    fields.add_column("field")
    for heading in headings:
        fields.add_column(heading, justify="right")
    for f in view.fields:
        fields.add_row(*_row(f.label, f.tally))
    fields.add_row(*_row("All core fields", view.total), style="bold")
    print_table(out, fields)
    makers = Table(title="Where each maker's published figures were read (shares of published)")
    makers.add_column("maker")
    makers.add_column("parts", justify="right")
    for heading in headings:
        makers.add_column(heading, justify="right")
    for m in view.makers:
        label, *rest = _row(m.name, m.tally)
        makers.add_row(label, str(m.parts), *rest)
    print_table(out, makers)
    _print_goals(view)
    _print_unsourced(view)
    if parts:
        grid = Table(
            title="Every accelerator (state of each core field; * read on the maker's own site; ° the maker's document via a copy; ≠ disputed)"
        )
        grid.add_column("id", no_wrap=True)
        for _, label in CORE_FIELDS:
            grid.add_column(label)
        for p in view.parts:
            grid.add_row(p.id, *(c.label + _MARKS.get(c.read_at, "") + (" ≠" if c.disputed else "") for c in p.cells))
        print_table(out, grid)


def _print_goals(view: Coverage) -> None:
    """The maker-hosted goals, met or not; for each goal not met, the shortfall per part."""
    if not view.goals:
        return
    goals = Table(title="Maker-hosted goals (data/coverage/goals.toml): share of published figures read on the maker's own hosts")
    for heading in ("scope", "goal", "maker-hosted", "met", "figures short"):
        goals.add_column(heading, justify="left" if heading == "scope" else "right")
    for g in view.goals:
        goals.add_row(g.name, percent(g.goal), percent(g.share), "yes" if g.met else "no", str(g.shortfall))
    print_table(out, goals)
    for g in view.goals:
        if g.met:
            continue
        short = Table(
            title=f"{g.name}: goal {percent(g.goal)} not met ({percent(g.share)}); parts with figures not read on the maker's hosts"
        )
        for heading in ("id", "not maker-hosted", "via a copy", "other sources", "fields"):
            short.add_column(heading, justify="left" if heading in ("id", "fields") else "right")
        for p in g.parts:
            short.add_row(p.id, str(p.not_maker_hosted), str(p.via_copy), str(p.elsewhere), ", ".join(p.fields))
        print_table(out, short)


def _print_unsourced(view: Coverage) -> None:
    """The parts researched and not added (data/coverage/unsourced.toml), with where we looked."""
    if not view.unsourced:
        return
    table = Table(title=f"{len(view.unsourced)} parts researched and not added: no source we could read (data/coverage/unsourced.toml)")
    for heading in ("part", "maker", "Epoch list", "searched", "date"):
        table.add_column(heading)
    for u in view.unsourced:
        table.add_row(u.name, u.vendor_name, "yes" if u.epoch_listed else "no", "; ".join(u.searched), u.date.isoformat())
    print_table(out, table)

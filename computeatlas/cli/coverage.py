"""``computeatlas coverage``: how much of the silicon table is sourced, and by whom."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from computeatlas.cli.base import DataOption, app, load_catalog, out
from computeatlas.cli.tables import print_table
from computeatlas.core.provenance import ReadAt
from computeatlas.silicon.coverage import CORE_FIELDS, Tally, coverage_view, percent

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

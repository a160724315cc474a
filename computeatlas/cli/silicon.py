"""CLI commands for the catalog and the silicon layer: validate, serve, show, list, schema."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from computeatlas import catalog as catalog_mod
from computeatlas import table as table_mod
from computeatlas.catalog import CatalogError
from computeatlas.cli.base import DataOption, app, fail, load_catalog, out
from computeatlas.cli.compare import (
    accelerator_id,  # -- comparisons (issue 3): show accepts aliases --
)
from computeatlas.views import accelerator_view


@app.command()
def validate(data: DataOption = None) -> None:
    """Check every data file; list every problem (file, field, text) and exit 1 if any."""
    catalog, problems = catalog_mod.check(data)
    if problems:
        typer.echo(str(CatalogError(problems)), err=True)
        raise typer.Exit(1)
    counts = ", ".join(f"{len(records)} {name}" for name, records in catalog.collections.items() if records)
    typer.echo(f"OK: {counts} (data version {catalog.version}).")


@app.command()
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port to listen on.", min=1, max=65535)] = 8000,
    workers: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 1,
    data: DataOption = None,
) -> None:
    """Serve the site and API; refuses to start on invalid data."""
    import os

    import uvicorn

    if data is not None:
        os.environ["COMPUTEATLAS_DATA"] = str(data)
    catalog = load_catalog(data)  # fail here, with every problem, before binding a port
    out.print(f"Serving {len(catalog.accelerators)} accelerators on http://{host}:{port}/")
    uvicorn.run("computeatlas.web.app:create_app", factory=True, host=host, port=port, workers=workers, log_level="warning")


@app.command("list")
def list_(
    sort: Annotated[str | None, typer.Option(help="Column key, '-key' for descending: " + ", ".join(table_mod.BY_KEY))] = None,
    vendor: Annotated[str | None, typer.Option(help="Vendor id(s), comma-separated.")] = None,
    availability: Annotated[str | None, typer.Option(help="buy, rent, cloud-only (comma-separated).")] = None,
    workload: Annotated[str | None, typer.Option(help="training, inference, both (comma-separated).")] = None,
    form_factor: Annotated[str | None, typer.Option(help="Form factor(s), comma-separated.")] = None,
    min_: Annotated[list[str] | None, typer.Option("--min", help="COLUMN=VALUE lower bound, e.g. memory=80 or 'memory=80 GB'.")] = None,
    max_: Annotated[list[str] | None, typer.Option("--max", help="COLUMN=VALUE upper bound.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    data: DataOption = None,
) -> None:
    """List accelerators with the same filters and sorting as the web table."""
    catalog = load_catalog(data)
    params = {k: v for k, v in {"sort": sort, "vendor": vendor, "availability": availability, "workload": workload, "form_factor": form_factor}.items() if v is not None}
    for end, items in (("min", min_ or []), ("max", max_ or [])):
        for item in items:
            column, sep, value = item.partition("=")
            if not sep:
                raise fail(f"--{end} {item!r}: write COLUMN=VALUE, e.g. memory=80")
            params[f"{column.strip()}_{end}"] = value
    try:
        rows = table_mod.rows(catalog, table_mod.parse_query(params, catalog))
    except table_mod.QueryError as exc:
        raise fail(str(exc)) from None
    if as_json:
        out.print_json(json.dumps([{c.key: r.cells[c.key].text for c in table_mod.COLUMNS} | {"id": r.accelerator.id} for r in rows]))
        return
    shown = [c for c in table_mod.COLUMNS if c.numeric or c.key == "availability"]
    grid = Table(title=f"{len(rows)} accelerators (per accelerator; compute dense)", show_lines=False)
    grid.add_column("id", no_wrap=True)
    for column in shown:
        grid.add_column(column.heading, justify="right" if column.numeric else "left")
    for r in rows:
        grid.add_row(r.accelerator.id, *(r.cells[c.key].text for c in shown))
    out.print(grid)


@app.command()
def show(
    ident: Annotated[str, typer.Argument(help="Accelerator id, alias or name, e.g. aws-trainium-3 or Trn3.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the API's JSON instead of a table.")] = False,
    data: DataOption = None,
) -> None:
    """Show one accelerator: every spec with its state, basis and source."""
    catalog = load_catalog(data)
    view = accelerator_view(catalog, catalog.accelerators[accelerator_id(catalog, ident)])  # ids, aliases, names (issue 3)
    if as_json:
        out.print_json(view.model_dump_json())
        return
    out.print(f"[bold]{view.name}[/bold] — {view.vendor} · {view.family} · {view.availability}")
    out.print(view.summary, markup=False, highlight=False)
    grid = Table(show_lines=False)
    for heading in ("spec", "state", "value", "basis", "sparse (2:4 or as noted)", "source"):
        grid.add_column(heading)
    for spec in view.specs:
        value = spec.primary.display if spec.state.value == "published" else (spec.published_text or "")
        if spec.memory_type:
            value += f" {spec.memory_type}"
        if spec.disputed:
            value += " (disputed: " + "; ".join(o.display for o in spec.other_claims) + ")"
        src = spec.primary.source
        grid.add_row(
            spec.label,
            spec.state_label,
            value,
            spec.primary.basis or "",
            spec.sparse.value if spec.sparse else "",
            f"{src.publisher}: {src.url}" if src else "",
        )
    out.print(grid)
    out.print(f"Verified {view.verified} · from {view.data_file} · data version {view.data_version}")


@app.command()
def schema(out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the JSON Schema files to.")] = Path("schema")) -> None:
    """Write the JSON Schema of the data files, generated from the records."""
    from computeatlas.schema import write_schemas

    for path in write_schemas(out_dir):
        out.print(f"wrote {path}")


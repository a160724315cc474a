"""CLI commands for the catalog and the silicon layer: validate, serve, show, list, schema."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import Annotated

import typer
import uvicorn
from rich.table import Table

from computeatlas.cli.base import (
    DataOption,
    app,
    check_out_path,
    fail,
    load_catalog,
    out,
)
from computeatlas.cli.compare import (
    accelerator_id,  # show accepts ids, aliases and names
)
from computeatlas.core import catalog as catalog_mod
from computeatlas.core.catalog import CatalogError
from computeatlas.pages.accelerator import accelerator_view
from computeatlas.silicon import table as table_mod


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
    """Serve the site and API; refuses to start on invalid data, or when the dataset
    request ledger (and the form's secret beside it) cannot be opened or created."""
    import os

    catalog = load_catalog(data)  # fail here, with every problem, before binding a port
    check_ledger()
    if data is not None:  # the app factory runs in uvicorn's workers and reads the folder from here
        os.environ["COMPUTEATLAS_DATA"] = str(data)
    out.print(f"Serving {len(catalog.accelerators)} accelerators on http://{host}:{port}/")
    if workers == 1:
        uvicorn.run("computeatlas.web.app:create_app", factory=True, host=host, port=port, log_level="warning")
        return
    # With several workers uvicorn binds the socket itself with protocol 0, so asyncio never
    # sets TCP_NODELAY on accepted connections and every keep-alive response waits ~40 ms on
    # Nagle's algorithm (Kludex/uvicorn#3149). The same supervisor, with a TCP socket:
    from uvicorn.supervisors import Multiprocess

    config = TcpConfig("computeatlas.web.app:create_app", factory=True, host=host, port=port, workers=workers, log_level="warning")
    try:
        sock = config.bind_socket()
    except SystemExit:
        raise fail(f"Not starting: cannot listen on {host}:{port}.", 1) from None
    Multiprocess(config, sockets=[sock]).run()


class TcpConfig(uvicorn.Config):
    """uvicorn's config whose shared listening socket says it is TCP, so that asyncio sets
    TCP_NODELAY on every accepted connection (uvicorn binds it with protocol 0)."""

    def bind_socket(self) -> socket.socket:
        """The bound socket, re-read so that its protocol is ``IPPROTO_TCP``."""
        sock = super().bind_socket()
        if sock.family in (socket.AF_INET, socket.AF_INET6):
            sock = socket.socket(fileno=sock.detach())  # family, type and protocol read from the socket
        return sock


def check_ledger() -> None:
    """Exit 1 with one line naming the folder (or database) when the ``/data/`` form could
    not work: the ledger cannot be opened or created (:meth:`Ledger.open`), or the form's
    signing secret cannot be read or created (:meth:`FormGuard.from_env`)."""
    from limits.errors import ConfigurationError

    from computeatlas.ledger import Ledger, LedgerUnavailable, var_dir
    from computeatlas.web.guard import FormGuard

    hint = "Set COMPUTEATLAS_VAR to a writable folder (or COMPUTEATLAS_DATABASE_URL to a database)"
    try:
        Ledger.open().close()
    except LedgerUnavailable as exc:
        raise fail(f"Not starting: the request ledger at {exc.where} cannot be opened or created: {exc.reason}. {hint}.", 1) from None
    try:
        FormGuard.from_env(var_dir())
    except OSError as exc:
        raise fail(f"Not starting: the form secret in folder {var_dir()} cannot be read or created: {exc.strerror or exc}. "
                   f"{hint}, or set COMPUTEATLAS_SECRET.", 1) from None
    except (ValueError, ConfigurationError) as exc:  # a short COMPUTEATLAS_SECRET, a bad rate limit or its storage
        raise fail(f"Not starting: {exc}.", 1) from None


def _cli_option(param: str) -> str:
    """The ``list`` option a table query parameter came from: ``memory_min`` → ``--min memory``."""
    column, _, end = param.rpartition("_")
    if end in ("min", "max") and param in table_mod.RANGE_PARAMS:
        return f"--{end} {column}"
    return "--" + param.replace("_", "-")


def _cli_text(reason: str) -> str:
    """``reason`` with every range parameter it names (``memory_max``) spelled as the option (``--max memory``)."""
    return re.sub(r"\b[a-z0-9_]+_(?:min|max)\b", lambda m: _cli_option(m.group(0)) if m.group(0) in table_mod.RANGE_PARAMS else m.group(0), reason)


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
    numeric = [c.key for c in table_mod.COLUMNS if f"{c.key}_min" in table_mod.RANGE_PARAMS]
    for end, items in (("min", min_ or []), ("max", max_ or [])):
        for item in items:
            column, sep, value = item.partition("=")
            if not sep:
                raise fail(f"--{end} {item!r}: write COLUMN=VALUE, e.g. memory=80")
            if f"{column.strip()}_{end}" not in table_mod.RANGE_PARAMS:
                raise fail(f"--{end} {column.strip()}: no numeric column '{column.strip()}'; choose one of {', '.join(numeric)}")
            params[f"{column.strip()}_{end}"] = value
    try:
        rows = table_mod.rows(catalog, table_mod.parse_query(params, catalog))
    except table_mod.QueryError as exc:
        raise fail(f"{_cli_option(exc.param)}: {_cli_text(exc.reason)}") from None
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
    view = accelerator_view(catalog, catalog.accelerators[accelerator_id(catalog, ident)])  # ids, aliases, names
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
    """Write the JSON Schema of the data files, generated from the records.

    Exits 2 when ``--out`` is a file (or under one), 1 when the system refuses to write it.
    """
    from computeatlas.publish.schema import write_schemas

    check_out_path("--out", out_dir, folder=True)

    for path in write_schemas(out_dir):
        out.print(f"wrote {path}")


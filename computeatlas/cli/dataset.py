"""CLI commands for the dataset and the request ledger: ``export`` and ``requests …``.

``computeatlas export --format csv --out silicon.csv`` writes the silicon table;
``computeatlas requests list | export --email | erase --email | purge --older-than DAYS``
are the operator's tools over the ledger (``$COMPUTEATLAS_DATABASE_URL``, else SQLite in
``$COMPUTEATLAS_VAR``, default ``./var``).
"""

from __future__ import annotations

import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from computeatlas.cli.base import DataOption, app, fail, load_catalog, out
from computeatlas.exports import FOLDER_FORMATS, FORMATS, build
from computeatlas.ledger import (
    DEFAULT_RETENTION_DAYS,
    Ledger,
    LedgerEntry,
    database_url,
)


class ExportFormat(StrEnum):
    """Formats ``computeatlas export`` writes."""

    CSV = "csv"
    JSON = "json"
    PARQUET = "parquet"
    SQLITE = "sqlite"
    DATAPACKAGE = "datapackage"
    HUGGINGFACE = "huggingface"


@app.command("export")
def export(
    format_: Annotated[ExportFormat, typer.Option("--format", help="csv, json, parquet (needs the 'parquet' extra), sqlite, datapackage (folder), huggingface (folder).")],
    out_path: Annotated[Path, typer.Option("--out", help="File to write; a folder for datapackage and huggingface.")],
    data: DataOption = None,
) -> None:
    """Write the silicon table (one row per accelerator, CC-BY-NC-4.0) in one format."""
    catalog = load_catalog(data)
    if format_.value in FOLDER_FORMATS and out_path.exists() and not out_path.is_dir():
        raise fail(f"--out {out_path}: {format_.value} writes a folder, and this is a file.")
    if format_.value not in FOLDER_FORMATS and out_path.is_dir():
        raise fail(f"--out {out_path}: {format_.value} writes a file, and this is a folder.")
    from computeatlas.exports.parquet import ParquetUnavailable

    try:
        written = FORMATS[format_.value](build(catalog), out_path)
    except ParquetUnavailable as exc:
        raise fail(str(exc)) from None
    for path in written:
        out.print(f"wrote {path}", highlight=False)


requests_app = typer.Typer(
    name="requests",
    help="Operator commands for the dataset request ledger (list, export or erase one person's data, purge old rows).",
    no_args_is_help=True,
)
app.add_typer(requests_app, name="requests")

DatabaseOption = Annotated[
    str | None,
    typer.Option("--database", help="Ledger URL (default: $COMPUTEATLAS_DATABASE_URL, else SQLite in $COMPUTEATLAS_VAR or ./var)."),
]


def _open(database: str | None) -> Ledger:
    try:
        return Ledger.open(database or database_url())
    except Exception as exc:  # a bad URL or an unreachable server: one clear line, no traceback
        raise fail(f"cannot open the ledger at {database or database_url()}: {exc}", 1) from None


def _dump(entries: list[LedgerEntry]) -> str:
    return json.dumps([e.model_dump(mode="json") for e in entries], ensure_ascii=False, indent=2)


@requests_app.command("list")
def list_requests(
    limit: Annotated[int, typer.Option(help="Show at most this many, newest first.", min=1)] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
    database: DatabaseOption = None,
) -> None:
    """List recorded dataset requests, newest first."""
    ledger = _open(database)
    try:
        entries, total = ledger.list(limit), ledger.count()
    finally:
        ledger.close()
    if as_json:
        typer.echo(_dump(entries))
        return
    grid = Table(title=f"{len(entries)} of {total} requests (newest first)")
    for heading in ("id", "recorded (UTC)", "kind", "name", "email", "organisation", "use"):
        grid.add_column(heading, no_wrap=heading in ("id", "email"))
    for e in entries:
        grid.add_row(str(e.id), e.created_at.strftime("%Y-%m-%d %H:%M"), e.kind, e.name, e.email, e.organisation, e.intended_use)
    out.print(grid)


@requests_app.command("export")
def export_requests(
    email: Annotated[str, typer.Option(help="The person's email address (any letter case).")],
    database: DatabaseOption = None,
) -> None:
    """Print, as JSON, everything the ledger holds for one email address (for an access request)."""
    ledger = _open(database)
    try:
        entries = ledger.export(email)
    finally:
        ledger.close()
    typer.echo(_dump(entries))
    typer.echo(f"{len(entries)} request(s) for {email}.", err=True)


@requests_app.command("erase")
def erase_requests(
    email: Annotated[str, typer.Option(help="The person's email address (any letter case).")],
    database: DatabaseOption = None,
) -> None:
    """Delete every request made with one email address (for an erasure request)."""
    ledger = _open(database)
    try:
        erased = ledger.erase(email)
    finally:
        ledger.close()
    typer.echo(f"Erased {erased} request(s) for {email}.")


@requests_app.command("purge")
def purge_requests(
    older_than: Annotated[int, typer.Option("--older-than", help="Delete requests recorded more than this many days ago.", min=0)] = DEFAULT_RETENTION_DAYS,
    database: DatabaseOption = None,
) -> None:
    """Delete requests older than the retention period (default 365 days)."""
    ledger = _open(database)
    try:
        purged = ledger.purge(older_than)
    finally:
        ledger.close()
    typer.echo(f"Purged {purged} request(s) older than {older_than} days.")

"""CLI commands for the dataset and the request ledger: ``export`` and ``requests …``.

``computeatlas export --format csv --out silicon.csv`` writes the silicon table;
``computeatlas requests list | export --email | erase --email | purge --older-than DAYS |
purge-expired`` are the operator's tools over the ledger (``$COMPUTEATLAS_DATABASE_URL``, else SQLite in
``$COMPUTEATLAS_VAR``, default ``./var``).

What visitors typed (names, emails, organisations) is printed literally: table cells are
:class:`rich.text.Text` (never parsed as rich markup or emoji codes) and the other commands
print plain text and JSON through ``typer.echo``, which interprets nothing.

``erase`` and ``purge`` delete rows: each first says how many it will delete and asks for
confirmation, unless ``--yes`` is given; without a terminal to ask on (a script, a pipe)
and without ``--yes`` they refuse (exit 2). ``--dry-run`` only prints the count.
``purge-expired`` deletes what the retention (365 days) says must go, without asking, for
a daily cron job where the app is not run by ``computeatlas serve`` (which does it itself).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table
from rich.text import Text

from computeatlas.cli.base import (
    DataOption,
    app,
    check_out_path,
    fail,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cli.tables import print_table, say
from computeatlas.ledger import (
    DEFAULT_RETENTION_DAYS,
    MAX_RETENTION_DAYS,
    Ledger,
    LedgerEntry,
    LedgerUnavailable,
    WalPurge,
    database_url,
)
from computeatlas.publish.exports import FOLDER_FORMATS, FORMATS, build


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
    format_: Annotated[
        ExportFormat,
        typer.Option(
            "--format", help="csv, json, parquet (needs the 'parquet' extra), sqlite, datapackage (folder), huggingface (folder)."
        ),
    ],
    out_text: Annotated[str, typer.Option("--out", help="File to write; a folder for datapackage and huggingface.")],
    data: DataOption = None,
) -> None:
    """Write the silicon table (one row per accelerator, CC-BY-NC-4.0) in one format.

    Exits 2 when ``--out`` is the wrong kind (a file for a folder format, or the other
    way round, a path ending in ``/`` for a file format, or under a file), 1 when the
    system refuses to write it (naming the path and the reason).
    """
    catalog = load_catalog(data)
    folder = format_.value in FOLDER_FORMATS
    out_path = Path(out_text)
    if not folder and out_text.endswith(("/", os.sep)):
        raise fail(
            f"--out {out_text}: {format_.value} writes a file, and a path ending in '/' names a folder; "
            f"give a file name, e.g. {out_text}compute-atlas-silicon.{format_.value}."
        )
    if folder and out_path.exists() and not out_path.is_dir():
        raise fail(f"--out {out_path}: {format_.value} writes a folder, and this is a file.")
    if not folder and out_path.is_dir():
        raise fail(f"--out {out_path}: {format_.value} writes a file, and this is a folder.")
    check_out_path("--out", out_path, folder=folder)
    from computeatlas.publish.exports.parquet import ParquetUnavailable

    try:
        written = FORMATS[format_.value](build(catalog), out_path)
    except ParquetUnavailable as exc:
        raise fail(str(exc)) from None
    except sqlite3.Error as exc:  # SQLite names no path: say which file it could not write
        raise fail(f"Error: cannot write {out_path}: {exc}", 1) from None
    for path in written:
        say(out, f"wrote {path}")


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


YesOption = Annotated[bool, typer.Option("--yes", "-y", help="Delete without asking for confirmation.")]
DryRunOption = Annotated[bool, typer.Option("--dry-run", help="Only print how many requests would be deleted; delete nothing.")]


def _open(database: str | None) -> Ledger:
    try:
        return Ledger.open(database or database_url(settings_for()))
    except LedgerUnavailable as exc:  # a bad URL, an unwritable folder, an unreachable server: one line
        raise fail(f"cannot open the ledger at {exc.where}: {exc.reason}", 1) from None


def _interactive() -> bool:
    """True when there is a terminal to ask for confirmation on."""
    return sys.stdin is not None and sys.stdin.isatty()


def _confirm(what: str, yes: bool) -> None:
    """Ask before deleting ``what`` (e.g. "3 request(s) for x@example.org"); exit unless confirmed.

    ``yes`` skips the question; with no terminal and no ``yes``, exit 2 saying to add ``--yes``.
    A "no" exits 1 having deleted nothing.
    """
    if yes:
        return
    if not _interactive():
        raise fail(f"This would delete {what}. Not deleting without confirmation: add --yes (or --dry-run to only count).")
    typer.echo(f"This will delete {what}.", err=True)
    if not typer.confirm("Delete them?", default=False, err=True):
        raise fail("Nothing was deleted.", 1)


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
    for e in entries:  # Text cells: what a visitor typed is printed as typed, never read as rich markup
        grid.add_row(
            str(e.id),
            e.created_at.strftime("%Y-%m-%d %H:%M"),
            Text(e.kind),
            Text(e.name),
            Text(e.email),
            Text(e.organisation),
            Text(e.intended_use),
        )
    print_table(out, grid, emoji=False, highlight=False)


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
    yes: YesOption = False,
    dry_run: DryRunOption = False,
    purge_wal: Annotated[
        bool,
        typer.Option(
            "--purge-wal",
            help="PostgreSQL: then also close and checkpoint the write-ahead log that still holds the erased rows "
            "(VACUUM FULL pg_statistic, pg_switch_wal(), CHECKPOINT: those this user may run), and say what still holds them.",
        ),
    ] = False,
    database: DatabaseOption = None,
) -> None:
    """Delete every request made with one email address (for an erasure request).

    Says how many requests it will delete and asks first, unless --yes; --dry-run only counts.
    On PostgreSQL the erased rows stay in the server's write-ahead log until its segments are
    removed: --purge-wal runs the commands that move them out (also when nothing is left to
    erase, e.g. after setting wal_recycle = off) and prints each step and what remains; without
    it, a PostgreSQL erase ends by offering it.
    """
    ledger = _open(database)
    try:
        count = ledger.count(email=email)
        what = f"{count} request(s) for {email}"
        if dry_run:
            say(out, f"Would erase {what} (dry run: nothing deleted).")
            return
        if count:
            _confirm(what, yes)
        erased = ledger.erase(email) if count else 0
        say(out, f"Erased {erased} request(s) for {email}.")
        postgres = ledger.engine.dialect.name == "postgresql"
        if purge_wal:
            _print_purge(ledger.purge_wal())
        elif postgres and erased:
            typer.echo(
                "PostgreSQL keeps the erased rows in its write-ahead log (pg_wal) until those segments are removed: "
                f"run `computeatlas requests erase --email {email} --purge-wal` to close and checkpoint it now "
                "(see the README on erasure).",
                err=True,
            )
    finally:
        ledger.close()


def _print_purge(report: WalPurge) -> None:
    """Each step of a WAL purge (done, or why not), then what still holds the erased rows."""
    for step in report.steps:
        say(out, f"{'done' if step.done else 'NOT DONE'}: {step.command}" + (f" ({step.note})" if step.note else ""))
    if report.settings:
        say(out, "settings: " + ", ".join(f"{k}={v}" for k, v in report.settings.items()))
    for left in report.remaining:
        say(out, f"remaining: {left}")


@requests_app.command("purge")
def purge_requests(
    older_than: Annotated[
        int,
        typer.Option(
            "--older-than",
            min=1,
            max=MAX_RETENTION_DAYS,
            help=f"Delete requests recorded more than this many days ago: 1 to {MAX_RETENTION_DAYS} (100 years).",
        ),
    ] = DEFAULT_RETENTION_DAYS,
    yes: YesOption = False,
    dry_run: DryRunOption = False,
    database: DatabaseOption = None,
) -> None:
    """Delete requests older than the retention period (default 365 days).

    Says how many requests it will delete and asks first, unless --yes; --dry-run only counts.
    """
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)  # one cut-off for the count and the delete
    ledger = _open(database)
    try:
        count = ledger.count(older_than_days=older_than, now=now)
        what = f"{count} request(s) older than {older_than} days (recorded before {now - dt.timedelta(days=older_than):%Y-%m-%d %H:%M} UTC)"
        if dry_run:
            say(out, f"Would purge {what} (dry run: nothing deleted).")
            return
        if count:
            _confirm(what, yes)
        purged = ledger.purge(older_than, now=now) if count else 0
    finally:
        ledger.close()
    say(out, f"Purged {purged} request(s) older than {older_than} days.")


@requests_app.command("purge-expired")
def purge_expired(
    dry_run: DryRunOption = False,
    database: DatabaseOption = None,
) -> None:
    """Delete requests older than the promised retention (365 days), without asking.

    For a cron job or timer where the app is not run by `computeatlas serve` (which purges
    at start-up and every hour by itself). --dry-run only counts.
    """
    now = dt.datetime.now(dt.UTC).replace(tzinfo=None)
    ledger = _open(database)
    try:
        if dry_run:
            count = ledger.count(older_than_days=DEFAULT_RETENTION_DAYS, now=now)
            say(out, f"Would purge {count} request(s) older than {DEFAULT_RETENTION_DAYS} days (dry run: nothing deleted).")
            return
        purged = ledger.purge(DEFAULT_RETENTION_DAYS, now=now)
    finally:
        ledger.close()
    say(out, f"Purged {purged} request(s) older than {DEFAULT_RETENTION_DAYS} days.")

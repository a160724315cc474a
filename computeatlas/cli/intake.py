"""CLI commands that bring price observations into the store: ``prices import`` (files of a
known format; ``prices collect``, the providers' own price sources, is
:mod:`computeatlas.cli.collection`). Each is thin over
:mod:`computeatlas.cloud.runs`; errors are one line each (file, line, column), never a
traceback; exit 2 for bad input, 1 for a failed collection or an import that rejected
rows (held rows are not errors)."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from computeatlas.catalog import Catalog
from computeatlas.cli.base import (
    DataOption,
    PricesOption,
    err,
    fail,
    load_catalog,
    out,
    settings_for,
)
from computeatlas.cli.cloud import prices_app
from computeatlas.cli.tables import print_table, say
from computeatlas.cloud import import_summary, runs
from computeatlas.cloud.import_summary import ImportCounts
from computeatlas.cloud.importers import formats
from computeatlas.cloud.observations import InputFailed
from computeatlas.cloud.store import Store
from computeatlas.cloud.writers import StoreBusy
from computeatlas.economics.token_import import FORMATS as TOKEN_FORMATS
from computeatlas.economics.token_import import import_token_files
from computeatlas.economics.token_prices import token_store


def _unreadable(exc: InputFailed) -> typer.Exit:
    """Print every problem of a file that could not be read (file, line, column) and give the exit (2)."""
    for error in exc.errors:
        typer.echo(f"Error: {error}", err=True)
    return typer.Exit(2)


def _print_json(summary: ImportCounts) -> None:
    """An import run's counts and errors as JSON."""
    out.print_json(json.dumps({"run": summary.run, **summary.counts(), "errors": [str(e) for e in summary.errors]}))


def _waiting(lock: str) -> None:
    """Say why an import waits: another writer holds the store's lock."""
    say(err, f"another import or collection is writing to this store (lock {lock}): waiting for it to finish …")


def _print_counts(groups: Iterable[tuple[str, Counter[str]]]) -> None:
    """One line per non-empty count of ``groups`` (title, counts), most common first."""
    for title, counts in groups:
        if counts:
            say(out, f"{title}: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))


def _print_rejected(errors: Sequence[object]) -> None:
    """The first 50 rejected rows, one line each, on stderr."""
    for error in errors[:50]:
        say(err, f"rejected: {error}")


def _exit_if_rejected(summary: ImportCounts) -> None:
    """Exit 1, saying how many, when the run rejected a row (its other rows were imported)."""
    if summary.rejected:
        rest = "the rest were imported" if summary.accepted + summary.held else "no other row was added"
        say(err, f"{summary.rejected} row(s) rejected (named above); {rest}")
        raise typer.Exit(1)


def _utc(text: str, unreadable: str) -> dt.datetime:
    """``text`` as an ISO 8601 time (``Z`` for UTC); exit 2 with ``unreadable`` when it is not one."""
    try:
        return dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise fail(unreadable) from None


def _progress() -> Progress:
    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=err, transient=False)


def _print_summary(summary: import_summary.Summary) -> None:
    added = summary.accepted + summary.held
    grid = Table(title=f"Import run {summary.run} ({summary.format})" if added else f"Nothing added ({summary.format}): no run written")
    grid.add_column("rows")
    grid.add_column("count", justify="right")
    for label, value in (
        ("read", summary.read),
        ("accepted (added)", summary.accepted),
        ("held (added)", summary.held),
        ("rejected", summary.rejected),
        ("skipped (not rental prices)", summary.skipped),
        ("already stored (nothing added)", summary.already_stored),
        ("combined split bills", summary.combined),
    ):
        grid.add_row(label, str(value))
    print_table(out, grid)
    _print_counts(
        (
            ("held by rule", summary.held_by_rule),
            ("held by provider", summary.held_by_provider),
            ("accepted by provider", summary.accepted_by_provider),
            ("rejected by reason", summary.rejected_by_reason),
            ("skipped by reason", summary.skipped_by_reason),
        )
    )
    _print_rejected(summary.errors)
    if len(summary.errors) > 50:
        say(err, f"… and {len(summary.errors) - 50} more rejected rows")
    if summary.read == 0:
        say(err, "warning: the file holds a header and no rows: nothing was imported")


def _import_tokens(
    files: list[Path],
    store: Store,
    catalog: Catalog,
    as_json: bool,
    fmt: str = "tokens",
    commit: str | None = None,
    published: dt.datetime | None = None,
) -> None:
    """A token-price format of ``prices import`` (:data:`TOKEN_FORMATS`): per-token prices into the
    token store; exits 1 when a row was rejected, 2 when a file could not be read."""
    try:
        summary = import_token_files(files, store, catalog.models.values(), fmt=fmt, commit=commit, published=published)
    except InputFailed as exc:
        raise _unreadable(exc) from None
    if as_json:
        _print_json(summary)
    else:
        say(
            out,
            f"Token-price run {summary.run}: read {summary.read}, accepted {summary.accepted}, held {summary.held}, "
            f"rejected {summary.rejected}, skipped {summary.skipped}, already stored {summary.already_stored}",
        )
        _print_counts(
            (
                ("held by rule", summary.held_by_rule),
                ("accepted by provider", summary.accepted_by_provider),
                ("held by provider", summary.held_by_provider),
                ("skipped by reason", summary.skipped_by_reason),
            )
        )
    _print_rejected(summary.errors)
    _exit_if_rejected(summary)


@prices_app.command("import")
def import_(
    fmt: Annotated[
        str,
        typer.Argument(
            metavar="FORMAT",
            help=" | ".join(formats()) + " | " + " | ".join(f"{k} ({v}, into the token store)" for k, v in TOKEN_FORMATS.items()) + ".",
        ),
    ],
    files: Annotated[list[Path], typer.Argument(help="The files to import (CSV, or JSON for genai-prices and litellm).")],
    provider: Annotated[
        str | None, typer.Option(help="For a format that names no cloud (skypilot): our provider id, e.g. google-cloud.")
    ] = None,
    collected: Annotated[
        str | None,
        typer.Option(
            help="For a format that carries no date (skypilot, gpuhunt-tpu; one version of fullstack-cloud-gpus; genai-prices or litellm under another file name): when it was fetched or published, ISO 8601 UTC."
        ),
    ] = None,
    commit: Annotated[
        str | None,
        typer.Option(help="genai-prices or litellm under another file name: the upstream commit (7+ hex digits), with --collected."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    prices: PricesOption = None,
    tokens: Annotated[
        Path | None,
        typer.Option("--tokens", help="token formats only (tokens, genai-prices, litellm): the token-price store (default: DATA/tokens)."),
    ] = None,
    data: DataOption = None,
) -> None:
    """Import price observations from FILES of FORMAT into the store: each row is placed
    through the instance table, checked by the integrity rules, and appended (accepted or
    held) as one atomic run. Importing the same file twice adds nothing.

    Exit status: 0 when every row was imported (held rows are not errors: list them with
    `prices held`); 1 when any row was rejected (a bad cell; the other rows are still
    imported and each rejected row is named by file, line and column); 2 when nothing
    could be imported (a missing or unreadable file, an unknown format, a missing column).

    FORMAT ``tokens`` (OpenComputePrices CSV), ``genai-prices`` (pydantic/genai-prices
    data.json) and ``litellm`` (LiteLLM's table via tokencost) read per-token prices (per
    million input and output tokens) into the token-price store instead, placing product
    names through the model records' alias table (computeatlas.economics.token_prices); a
    JSON file's commit date is its collection time (known by its upstream file name, or give
    --commit and --collected)."""
    if fmt not in TOKEN_FORMATS and fmt not in formats():
        raise fail(f"unknown format {fmt!r}; choose one of {', '.join([*formats(), *TOKEN_FORMATS])}")
    for path in files:
        if path.is_dir():
            raise fail(f"{path}: is a directory, not a file (name the CSV files in it)")
        if path.exists() and not path.is_file():
            raise fail(f"{path}: is not a regular file (a device, pipe or socket): give a CSV file")
        if not path.exists():
            raise fail(f"{path}: no such file")
    options: dict[str, object] = {}
    if fmt in ("skypilot", "gpuhunt-tpu"):
        when = _utc(
            collected or "", "option '--collected': give the catalog's fetch or publication time, ISO 8601 UTC (2026-03-21T06:19:35Z)"
        )
        if when.tzinfo is None or (fmt == "skypilot" and not provider):
            raise fail(
                "a SkyPilot catalog needs --provider and --collected (UTC, ending in Z)"
                if fmt == "skypilot"
                else "a gpuhunt TPU table needs --collected: its upstream commit date, UTC (2024-12-23T00:00:00Z)"
            )
        options = {"provider": provider, "collected": when} if fmt == "skypilot" else {"collected": when}
    elif fmt == "fullstack-cloud-gpus" and collected is not None:  # one version of the table: its commit date
        when = _utc(collected, "option '--collected': give the version's commit date, ISO 8601 UTC (2025-03-07T19:25:40Z)")
        if when.tzinfo is None:
            raise fail("option '--collected': the time must be UTC (end it with Z)")
        options = {"collected": when}
    settings = settings_for(data=data, prices=prices)
    catalog = load_catalog(data)
    if fmt in TOKEN_FORMATS:
        published = None
        if collected or commit:
            if not (collected and commit):
                raise fail("give --commit and --collected together (the upstream commit and its date, UTC, ending in Z)")
            published = _utc(collected or "", "option '--collected': give the commit's date, ISO 8601 UTC (2026-08-21T00:00:00Z)")
            if published.tzinfo is None:
                raise fail("option '--collected': give the commit's date in UTC, ending in Z")
        _import_tokens(files, token_store(tokens or settings.data / "tokens"), catalog, as_json, fmt, commit, published)
        return
    total = sum(p.read_bytes().count(b"\n") for p in files)
    try:
        with _progress() as bar:
            task = bar.add_task(f"importing {len(files)} file(s)", total=total)
            summary = runs.import_files(fmt, files, settings, catalog, progress=lambda n: bar.advance(task, n), on_wait=_waiting, **options)
    except InputFailed as exc:
        raise _unreadable(exc) from None
    except StoreBusy as exc:
        raise fail(str(exc), 1) from None
    if as_json:
        _print_json(summary)
    else:
        _print_summary(summary)
    _exit_if_rejected(summary)

"""CLI commands over the price store's files: ``prices runs``, ``status``, ``repair`` and
``compact`` (a thin layer over :class:`computeatlas.cloud.store.Store`). Exit 2 for bad input,
1 for a store that needs repair or is busy."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import duckdb
import typer

from computeatlas.cli.base import DataOption, PricesOption, fail, out, settings_for
from computeatlas.cli.cloud import prices_app
from computeatlas.cli.tables import say
from computeatlas.cloud import history
from computeatlas.cloud.collection import SOURCES
from computeatlas.cloud.collection_status import AttemptView, CollectorsStatus, collectors_status, hours_words
from computeatlas.cloud.compaction import CompactionRefused
from computeatlas.cloud.layout import period_of, pointer
from computeatlas.cloud.store import Store
from computeatlas.cloud.writers import StoreBusy, unreadable


def existing_store(folder: Path) -> Store:
    """The store at ``folder``; exits 2 naming it when there is no folder there (a mistyped
    ``--prices`` must not read as a clean, empty store)."""
    if not folder.is_dir():
        what = "is a file, not a store folder" if folder.exists() else "does not exist"
        raise fail(f"no price store at {folder}: it {what} (give --prices the store's folder, e.g. data/prices)")
    return Store(folder)


def current_problem(store: Store) -> str | None:
    """Why the store's current table is not used (answers then come from the history), or None."""
    if not store.committed():
        return None
    table = store.current_file()
    if table is not None:
        return (
            f"unreadable ({table.relative_to(store.root)} is not a Parquet file; answers come from the history)"
            if unreadable([table])
            else None
        )
    if not (store.root / "current.json").is_file():
        return "missing (the current prices are worked out from the history on every question)"
    found = pointer(store.root)
    if found is None:
        return "current.json is not readable or names no file of current/ (answers come from the history)"
    if not (store.root / str(found["file"])).is_file():
        return f"current.json names {found['file']}, which is not there (answers come from the history)"
    return "older than the newest run (a writer stopped before naming the new one; answers come from the history)"


@prices_app.command("runs")
def runs_(prices: PricesOption = None, data: DataOption = None) -> None:
    """List the import runs in the store with their counts."""
    for manifest in Store(settings_for(data=data, prices=prices).prices_dir).runs():
        counts = manifest.get("counts", {})
        say(
            out,
            f"{manifest['run']}  {manifest.get('format', '')}  read {counts.get('read', 0)}, accepted {counts.get('accepted', 0)}, "
            f"held {counts.get('held', 0)}, rejected {counts.get('rejected', 0)}  "
            + ", ".join(i["file"] for i in manifest.get("inputs", [])),
        )


def _shown(store: Store, path: Path) -> str:
    return str(path.relative_to(store.root)) if path.is_relative_to(store.root) else str(path)


@prices_app.command("status")
def status(
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the collectors' status as JSON (what /api/status/collectors serves) instead.")
    ] = False,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Report what killed or failed writers left in the store: Parquet files no manifest
    names (orphans, never read), the runs they belong to (runs without a manifest), staging
    leftovers, files a manifest names that are missing, and unreadable manifests; then each
    collector's state (what /cloud/status shows): its last attempt and last success, its
    newest current price, its failures, and whether it is overdue against the schedule
    (COMPUTEATLAS_COLLECTION_SCHEDULE_HOURS). Exit 0 when there is nothing to act on, 1 when
    there is any (``prices repair`` removes orphans and staging; an overdue or failing
    collector, or an unreadable attempt record, counts too)."""
    settings = settings_for(data=data, prices=prices)
    store = existing_store(settings.prices_dir)
    collectors = collectors_status(store, history.utcnow(), settings.collection_schedule_hours, settings.freshness_days, expected=SOURCES)
    troubled = collectors.attention
    if as_json:
        out.print_json(collectors.model_dump_json())
        if troubled:
            raise typer.Exit(1)
        return
    found = store.leftovers()
    broken = [p for p in unreadable(store.files()) if p.is_file()]  # the missing ones are listed as missing
    say(out, f"store {store.root}: {len(store.runs())} committed run(s)")
    for title, items in (
        ("orphan Parquet files (no manifest names them)", [_shown(store, p) for p in found.orphans]),
        ("runs without a manifest", list(found.runs_without_manifest)),
        ("staging leftovers", [_shown(store, p) for p in found.staging]),
        ("files a manifest names that are missing", list(found.missing)),
        ("unreadable manifests", [_shown(store, p) for p in found.broken_manifests]),
        ("files a compaction replaced, still there", [_shown(store, p) for p in found.replaced]),
        ("unreadable Parquet files a manifest names (pages answer 503 until restored from a backup)", [_shown(store, p) for p in broken]),
    ):
        say(out, f"{title}: {len(items)}")
        for item in items:
            say(out, f"  {item}")
    stale = current_problem(store)
    say(out, f"current table: {stale or 'up to date'}")
    _print_collectors(collectors)
    if found or stale or broken or troubled:
        raise typer.Exit(1)


def _attempt_words(attempt: AttemptView | None) -> str:
    if attempt is None:
        return "none recorded"
    run = f" (run {attempt.run})" if attempt.run else ""
    return (
        f"{attempt.finished:%Y-%m-%d %H:%M} UTC, {hours_words(attempt.age_hours)} ago: {attempt.result}, "
        f"{attempt.rows_read} rows read, {attempt.accepted} accepted, {attempt.held} held{run}"
    )


def _print_collectors(view: CollectorsStatus) -> None:
    """The collectors' status as lines (the same object /cloud/status renders)."""

    say(
        out,
        f"collectors: {len(view.sources)} source(s), scheduled every {view.schedule_hours:g} hours, as of {view.as_of:%Y-%m-%d %H:%M} UTC",
    )
    for s in view.sources:
        say(out, f"  {s.source}: {s.schedule}" + (" (needs attention)" if s.attention else "") + "".join(f"; {note}" for note in s.notes))
        say(out, f"    last attempt: {_attempt_words(s.last_attempt)}")
        say(out, f"    last success: {_attempt_words(s.last_success)}")
        if s.newest_price is not None and s.newest_price_age_hours is not None:
            stale = f" (not current: older than {view.freshness_days} days)" if s.newest_price_stale else ""
            say(
                out,
                f"    newest current price: {s.newest_price:%Y-%m-%d %H:%M} UTC, {hours_words(s.newest_price_age_hours)} old{stale}; "
                f"{s.current_offers} current offer(s)",
            )
        else:
            say(out, "    newest current price: none from this source")
        say(out, f"    failures: {len(s.failures)}" + (" (newest first)" if s.failures else ""))
        for f in s.failures:
            say(out, f"      {f.finished:%Y-%m-%d %H:%M} UTC: {f.error or 'no error recorded'}")
    say(out, f"collection problems (records or prices that cannot be read): {len(view.problems)}")
    for problem in view.problems:
        say(out, f"  {problem}")


@prices_app.command("repair")
def repair(
    yes: Annotated[bool, typer.Option("--yes", help="Remove them (without it, only list what would be removed).")] = False,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Remove what no manifest names (orphan Parquet files, staging leftovers, files a
    compaction replaced) and write the current table again when it is missing or older than
    the newest run: what an import, collection or compaction that was killed left. Without
    ``--yes`` it only lists them (a dry run).
    Nothing a committed run wrote is touched; the removal holds the store's write lock, so it
    never races an import. Missing files and unreadable manifests are reported by
    ``prices status`` and left for the operator."""
    store = existing_store(settings_for(data=data, prices=prices).prices_dir)
    found = store.leftovers().removable
    stale = current_problem(store)
    if not found and not stale:
        say(out, f"store {store.root}: nothing to remove")
        _beyond_repair(store)
        return
    if not yes:
        for path in found:
            say(out, f"would remove {_shown(store, path)}")
        if stale:
            say(out, f"would write the current table again from the history (it is {stale})")
        say(out, f"{len(found) + bool(stale)} item(s) to repair; run again with --yes to repair them")
        return
    try:
        removed = store.remove_leftovers()
        written = store.refresh_current() if stale else None
    except StoreBusy as exc:
        raise fail(str(exc), 1) from None
    for path in removed:
        say(out, f"removed {_shown(store, path)}")
    if written is not None:
        say(
            out,
            f"current table written from the history: {written['file']} ({written['rows']} offers)",
        )
    say(out, f"{len(removed) + (written is not None)} item(s) repaired")
    _beyond_repair(store)


def _beyond_repair(store: Store) -> None:
    """Exit 1 naming what ``repair`` cannot fix (missing or unreadable files a manifest names,
    unreadable manifests): those need the files back from a backup."""
    left = store.leftovers()
    lost = [
        *left.missing,
        *(_shown(store, p) for p in left.broken_manifests),
        *(_shown(store, p) for p in unreadable(store.files()) if p.is_file()),
    ]
    if lost:
        for item in lost:
            say(out, f"cannot repair: {item}")
        say(out, "restore these from a backup of the store; nothing else was changed")
        raise typer.Exit(1)


def _period(text: str | None) -> str | None:
    if text is None:
        return None
    try:
        return period_of(text)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--period") from None


@prices_app.command("compact")
def compact(
    period: Annotated[
        str | None, typer.Option("--period", help="A month (YYYY-MM) or a day (YYYY-MM-DD); every month with run files when not given.")
    ] = None,
    prices: PricesOption = None,
    data: DataOption = None,
) -> None:
    """Rewrite a month's (or a day's) run files as one Parquet file sorted by accelerator and
    collection time, without changing any answer. The run manifests stay as the record of what
    came in when; the replaced files are removed once the compaction is committed. Holds the
    store's write lock (exit 1 when another writer holds it too long)."""
    chosen = _period(period)
    store = existing_store(settings_for(data=data, prices=prices).prices_dir)
    try:
        done = store.compact(chosen)
    except CompactionRefused as exc:
        raise fail(str(exc)) from None
    except StoreBusy as exc:
        raise fail(str(exc), 1) from None
    except duckdb.Error as exc:  # a file it should read is damaged: nothing was changed
        raise fail(
            f"compaction stopped, nothing was changed: {str(exc).splitlines()[0][:300]} (run `computeatlas prices status`)", 1
        ) from None
    for item in done:
        if item.file is None:
            said = "no observations" if item.files == 0 else "already one compacted file"
            say(out, f"{item.period}: {said}, nothing to do")
        else:
            say(
                out,
                f"{item.period}: {item.rows} rows from {item.files} file(s) into {item.file.relative_to(store.root)}",
            )
    if not done:
        say(out, f"store {store.root}: no run files to compact")

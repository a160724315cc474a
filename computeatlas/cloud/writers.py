"""One writer at a time on a store folder, and what a killed writer left behind.

:func:`write_lock` holds an OS lock on ``<store>/.lock`` (the ``filelock`` library:
``flock`` on POSIX, so the kernel releases it when the process dies and a killed import
never leaves the store locked). The same thread may take it again inside (it is counted);
another process or thread waits, and after the timeout gets :class:`StoreBusy`.

:func:`leftovers` lists what no committed run owns: Parquet files that no manifest's run
wrote (an import killed after moving its files, before its manifest), the staging folder's
entries (one killed earlier), files a manifest names that are missing, and manifests that
are not readable JSON. :func:`remove_leftovers` removes the first two (no manifest names
them, no query reads them) under the lock. Used through
:class:`~computeatlas.cloud.store.Store`.
"""

from __future__ import annotations

import contextlib
import json
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout
from pydantic import BaseModel, SerializeAsAny, TypeAdapter

from computeatlas.cloud.current_table import unused
from computeatlas.cloud.layout import COMPACTED, compactions, replaced, run_of

LOCK_NAME = ".lock"
"""The lock file of a store (in its root); it is never removed, only locked and unlocked."""

STAGING = ".staging"
"""The folder (in a store's root) where a run's files are written before they are moved into place."""

LOCK_TIMEOUT_SECONDS = 600.0
"""How long a writer waits for another to finish before it is refused (:class:`StoreBusy`)."""

JSON_CHUNK_ROWS = 50_000
"""How many rows :func:`json_chunks` serialises in one call (one file each)."""


def json_chunks(rows: Sequence[BaseModel], folder: Path) -> list[str]:
    """``rows`` written as JSON arrays of :data:`JSON_CHUNK_ROWS` rows each in ``folder``
    (one serialiser call per chunk, not per row); the files' paths."""
    kind = type(rows[0])
    same = all(type(r) is kind for r in rows)
    adapter: TypeAdapter[list[Any]] = TypeAdapter(list[kind] if same else list[SerializeAsAny[BaseModel]])  # type: ignore[valid-type]
    paths = []
    for i in range(0, len(rows), JSON_CHUNK_ROWS):
        path = folder / f"rows-{i // JSON_CHUNK_ROWS:05d}.json"
        path.write_bytes(adapter.dump_json(list(rows[i : i + JSON_CHUNK_ROWS])))
        paths.append(str(path))
    return paths


_LOCKS: dict[str, FileLock] = {}
_GUARD = threading.Lock()


class StoreBusy(RuntimeError):
    """Another process (an import or a collection) held the store's lock for longer than the
    timeout: nothing was stored."""


@contextlib.contextmanager
def write_lock(root: Path, timeout: float = LOCK_TIMEOUT_SECONDS, on_wait: Callable[[str], None] | None = None) -> Iterator[None]:
    """Hold the write lock of the store at ``root`` for the ``with`` block (``timeout`` in
    seconds; raises :class:`StoreBusy` when it runs out). Creates ``root`` if needed.
    ``on_wait`` is called with the lock file's path when another writer holds it (so a CLI
    can say why it waits)."""
    root.mkdir(parents=True, exist_ok=True)
    path = str((root / LOCK_NAME).resolve())
    with _GUARD:  # one FileLock per path and process, so a nested take is counted, not a deadlock
        lock = _LOCKS.setdefault(path, FileLock(path))
    try:
        try:
            lock.acquire(timeout=0)
        except Timeout:
            if on_wait:
                on_wait(path)
            lock.acquire(timeout=timeout)
    except Timeout:
        raise StoreBusy(
            f"another import or collection is writing to the price store at {root} (it holds {path}); waited "
            f"{timeout:g} s: nothing was stored; try again when it has finished"
        ) from None
    try:
        yield
    finally:
        lock.release()


@dataclass(frozen=True)
class Leftovers:
    """What killed or failed writers left in a store: ``orphans`` (Parquet files of runs
    without a manifest, and compacted files no compaction manifest names),
    ``runs_without_manifest`` (those run ids), ``staging`` (entries of the staging folder),
    ``replaced`` (files a committed compaction replaced, still there), ``old_current`` (current
    tables no longer named, but the newest of them), ``missing`` ("run: file" a manifest names
    that is not there) and ``broken_manifests`` (not readable JSON). :func:`remove_leftovers`
    removes :attr:`removable`; the last two are for the operator to look at."""

    orphans: tuple[Path, ...] = ()
    runs_without_manifest: tuple[str, ...] = ()
    staging: tuple[Path, ...] = ()
    missing: tuple[str, ...] = ()
    broken_manifests: tuple[Path, ...] = ()
    replaced: tuple[Path, ...] = ()
    old_current: tuple[Path, ...] = ()

    @property
    def removable(self) -> tuple[Path, ...]:
        """What :func:`remove_leftovers` removes."""
        return (*self.orphans, *self.staging, *self.replaced, *self.old_current)

    def __bool__(self) -> bool:
        return bool(self.orphans or self.staging or self.missing or self.broken_manifests or self.replaced)


def leftovers(root: Path, committed: Iterable[str]) -> Leftovers:
    """The :class:`Leftovers` of the store at ``root`` whose committed runs are ``committed``
    (manifest names); lists folders and reads manifests, no Parquet."""
    runs = set(committed)
    observations, manifests, staging_dir = root / "observations", root / "runs", root / STAGING
    done = compactions(root)
    gone = replaced(done)
    orphans = [p for p in sorted(observations.glob("date=*/*.parquet")) if run_of(p) not in runs] if observations.is_dir() else []
    old = (
        [p for p in sorted(observations.glob("date=*/*.parquet")) if run_of(p) in runs and str(p.relative_to(root)) in gone]
        if observations.is_dir()
        else []
    )
    named = {c.file for c in done}
    written = {p.stem for p in (root / "compactions").glob("*.json")}  # a manifest there, readable or not
    unread = sorted(p for p in (root / "compactions").glob("*.json") if p.stem not in {c.id for c in done})
    for path in sorted((root / COMPACTED).glob("period=*/*.parquet")):
        ident = path.stem.split("-", 1)[-1]  # part-<id>, or a roll-up <kind>-<id> that goes with its file
        relative = str(path.with_name(f"part-{ident}.parquet").relative_to(root))
        if relative in gone:
            old.append(path)
        elif relative not in named and ident not in written:  # never the file of a manifest that cannot be read
            orphans.append(path)
    staging = sorted(staging_dir.iterdir()) if staging_dir.is_dir() else []
    missing: list[str] = []
    broken: list[Path] = []
    for path in sorted(manifests.glob("*.json")) if manifests.is_dir() else []:
        try:
            files = json.loads(path.read_text(encoding="utf-8")).get("files", [])
        except (OSError, ValueError, AttributeError):
            broken.append(path)
            continue
        missing += [f"{path.stem}: {name}" for name in files if str(name) not in gone and not (root / str(name)).is_file()]
    missing += [f"compaction {c.id}: {c.file}" for c in done if c.file not in gone and not (root / c.file).is_file()]
    runs_without = sorted({run_of(p) for p in orphans if p.parent.parent == observations})
    return Leftovers(
        tuple(orphans), tuple(runs_without), tuple(staging), tuple(missing), tuple(broken + unread), tuple(old), tuple(unused(root))
    )


def unreadable(paths: Iterable[Path]) -> list[Path]:
    """Those of ``paths`` (Parquet files a manifest names) that are missing or whose footer
    cannot be read (truncated, overwritten): a store that needs its operator. Reads footers only."""
    import duckdb

    bad = []
    with duckdb.connect() as con:
        for path in paths:
            try:
                con.execute("SELECT num_rows FROM parquet_file_metadata(?)", [str(path)]).fetchall()
            except duckdb.Error:
                bad.append(path)
    return bad


def remove_leftovers(root: Path, committed: Iterable[str]) -> list[Path]:
    """Remove the :attr:`Leftovers.removable` of the store at ``root`` (the caller holds the
    write lock, so no writer is between moving its files and writing its manifest); return
    what was removed. Emptied date folders go too."""
    found = leftovers(root, committed).removable
    for path in found:
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)
    for folder in {p.parent for p in found if p.parent.parent in (root / "observations", root / COMPACTED)}:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return list(found)


__all__ = [
    "JSON_CHUNK_ROWS",
    "LOCK_NAME",
    "LOCK_TIMEOUT_SECONDS",
    "STAGING",
    "Leftovers",
    "StoreBusy",
    "json_chunks",
    "leftovers",
    "remove_leftovers",
    "unreadable",
    "write_lock",
]

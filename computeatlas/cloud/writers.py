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
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock, Timeout

LOCK_NAME = ".lock"
"""The lock file of a store (in its root); it is never removed, only locked and unlocked."""

STAGING = ".staging"
"""The folder (in a store's root) where a run's files are written before they are moved into place."""

LOCK_TIMEOUT_SECONDS = 600.0
"""How long a writer waits for another to finish before it is refused (:class:`StoreBusy`)."""

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
        raise StoreBusy(f"another import or collection is writing to the price store at {root} (it holds {path}); waited "
                        f"{timeout:g} s: nothing was stored; try again when it has finished") from None
    try:
        yield
    finally:
        lock.release()


def run_of(part: Path) -> str:
    """The run id in a Parquet file's name (``part-<run>-<n>.parquet``)."""
    return part.stem[len("part-"):].rsplit("-", 1)[0]


@dataclass(frozen=True)
class Leftovers:
    """What killed or failed writers left in a store: ``orphans`` (Parquet files of runs
    without a manifest), ``runs_without_manifest`` (those run ids), ``staging`` (entries of the
    staging folder), ``missing`` ("run: file" a manifest names that is not there) and
    ``broken_manifests`` (not readable JSON). :func:`remove_leftovers` removes ``orphans``
    and ``staging`` (:attr:`removable`); the other two are for the operator to look at."""

    orphans: tuple[Path, ...] = ()
    runs_without_manifest: tuple[str, ...] = ()
    staging: tuple[Path, ...] = ()
    missing: tuple[str, ...] = ()
    broken_manifests: tuple[Path, ...] = ()

    @property
    def removable(self) -> tuple[Path, ...]:
        """What :func:`remove_leftovers` removes."""
        return (*self.orphans, *self.staging)

    def __bool__(self) -> bool:
        return bool(self.orphans or self.staging or self.missing or self.broken_manifests)


def leftovers(root: Path, committed: Iterable[str]) -> Leftovers:
    """The :class:`Leftovers` of the store at ``root`` whose committed runs are ``committed``
    (manifest names); lists folders and reads manifests, no Parquet."""
    runs = set(committed)
    observations, manifests, staging_dir = root / "observations", root / "runs", root / STAGING
    orphans = [p for p in sorted(observations.glob("date=*/*.parquet")) if run_of(p) not in runs] if observations.is_dir() else []
    staging = sorted(staging_dir.iterdir()) if staging_dir.is_dir() else []
    missing: list[str] = []
    broken: list[Path] = []
    for path in sorted(manifests.glob("*.json")) if manifests.is_dir() else []:
        try:
            named = json.loads(path.read_text(encoding="utf-8")).get("files", [])
        except (OSError, ValueError, AttributeError):
            broken.append(path)
            continue
        missing += [f"{path.stem}: {name}" for name in named if not (root / str(name)).is_file()]
    return Leftovers(tuple(orphans), tuple(sorted({run_of(p) for p in orphans})), tuple(staging), tuple(missing), tuple(broken))


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
    for folder in {p.parent for p in found if p.parent.parent == root / "observations"}:
        with contextlib.suppress(OSError):
            folder.rmdir()  # only when empty
    return list(found)


__all__ = ["LOCK_NAME", "LOCK_TIMEOUT_SECONDS", "STAGING", "Leftovers", "StoreBusy", "leftovers", "remove_leftovers", "run_of", "write_lock"]

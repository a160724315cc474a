"""The folder of an append-only dataset (:class:`computeatlas.cloud.dataset.Dataset`): its
committed runs (a manifest each under ``runs/``), the files a date window reads
(:mod:`computeatlas.cloud.layout`, the listing kept in the active cache, namespace
:data:`LISTINGS`), its write lock and what killed writers left
(:mod:`computeatlas.cloud.writers`), and the pointer to its current table.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from computeatlas.cloud import current_table
from computeatlas.cloud.layout import Files, compactions
from computeatlas.cloud.layout import active as chosen
from computeatlas.cloud.writers import LOCK_TIMEOUT_SECONDS, Leftovers, leftovers, remove_leftovers, write_lock
from computeatlas.core.cache import active

LISTINGS = "store listings"
"""The namespace of the file listings (one per store, committed runs and compactions, and date window) in the active cache."""

_COMMITTED: dict[str, tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]]] = {}  # root -> (mtimes, runs, compactions)


def mtime_ns(path: Path) -> int:
    """The modification time of ``path`` in nanoseconds, 0 when it does not exist."""
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return 0


class RunFolder:
    """The folder ``root`` of a dataset of rows: ``columns`` (name → DuckDB type), ``key`` (the columns naming
    one observation), ``order`` (which row of a key is its newest decision, SQL), ``cluster``
    (the sort of compacted files and the current table) and ``offer`` (the columns naming one
    offer: with it, every run also writes the current table). Rows must carry ``rules``,
    ``status`` and ``run``."""

    def __init__(
        self,
        root: Path,
        columns: Mapping[str, str],
        key: Sequence[str],
        order: str,
        cluster: Sequence[str],
        offer: Sequence[str] | None = None,
    ) -> None:
        self.root = Path(root)
        self.columns = dict(columns)
        self.key = tuple(key)
        self._order = order
        self.cluster = tuple(cluster)
        self.offer = tuple(offer) if offer else None
        self._version: tuple[int, str] | None = None  # (runs folder's mtime in ns, version)
        self._checked = -1.0  # time.monotonic() of the last stat

    @property
    def observations_dir(self) -> Path:
        """Where the date partitions of the run files live."""
        return self.root / "observations"

    @property
    def runs_dir(self) -> Path:
        """Where the run manifests live."""
        return self.root / "runs"

    def order(self) -> str:
        """The SQL order that puts a key's newest decision first."""
        return self._order

    def runs(self) -> list[dict[str, Any]]:
        """Every committed run's manifest, oldest first (one that is not readable JSON is
        left out: :meth:`leftovers` names it)."""
        out = []
        for run in self.committed():
            try:
                manifest = json.loads((self.runs_dir / f"{run}.json").read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(manifest, dict):
                out.append({"run": run, **manifest})
        return out

    def committed(self) -> tuple[str, ...]:
        """The committed runs' ids, sorted (listed again only when the runs folder changes)."""
        return self._listing()[0]

    def _listing(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        stamps = (mtime_ns(self.runs_dir), mtime_ns(self.root / "compactions"))
        known = _COMMITTED.get(str(self.root))
        if known is not None and known[0] == stamps and stamps != (0, 0):
            return known[1], known[2]
        runs = tuple(sorted(p.stem for p in self.runs_dir.glob("*.json"))) if self.runs_dir.is_dir() else ()
        done = tuple(c.id for c in compactions(self.root))
        _COMMITTED[str(self.root)] = (stamps, runs, done)
        return runs, done

    # --- one writer at a time, and what a killed one left (computeatlas.cloud.writers) -----

    def writing(
        self, timeout: float = LOCK_TIMEOUT_SECONDS, on_wait: Callable[[str], None] | None = None
    ) -> contextlib.AbstractContextManager[None]:
        """The store's write lock for a ``with`` block (:func:`~computeatlas.cloud.writers.write_lock`):
        every writer holds it; raises :class:`~computeatlas.cloud.writers.StoreBusy` after
        ``timeout`` seconds; ``on_wait`` is told the lock file while another writer holds it."""
        return write_lock(self.root, timeout, on_wait)

    def leftovers(self) -> Leftovers:
        """What killed or failed writers left (:class:`~computeatlas.cloud.writers.Leftovers`)."""
        return leftovers(self.root, self.committed())

    def remove_leftovers(self, timeout: float = LOCK_TIMEOUT_SECONDS) -> list[Path]:
        """Remove, under the write lock, what no manifest names, the staging folder's entries,
        files a compaction replaced and old current tables; return what was removed."""
        with self.writing(timeout):
            return remove_leftovers(self.root, self.committed())

    def files(self, first: dt.date | None = None, last: dt.date | None = None) -> list[Path]:
        """The Parquet files a query of the window [``first``, ``last``] reads (run files and
        compacted files; dates inclusive, None = unbounded)."""
        return list(self._files(first, last).all)

    def _files(self, first: dt.date | None, last: dt.date | None) -> Files:
        """The files of the window, chosen by folder and file names and manifests (each file
        costs about a millisecond to open, so DuckDB opens only those); kept per listing."""
        runs, done = self._listing()
        if not runs:
            return Files()
        key = (str(self.root), runs, done, first, last)
        known: Files | None = active().get(LISTINGS, key)
        if known is None:
            known = chosen(self.root, runs, compactions(self.root), first, last)
            active().put(LISTINGS, key, known)
        return known

    def current_file(self) -> Path | None:
        """The current table's file when it is fresh (written for the store's committed runs); else None."""
        found = current_table.fresh(self.root, version_of(self.committed())) if self.offer else None
        return self.root / str(found["file"]) if found else None

    def current_pointer(self) -> dict[str, Any] | None:
        """The fresh current table's pointer (``file``, ``rows``, ``newest``, ``accelerators``), or None."""
        return current_table.fresh(self.root, version_of(self.committed())) if self.offer else None


def forget_listings() -> None:
    """Forget every kept listing of committed runs and files (a compaction removed a file
    between a listing and its read: the next query lists again)."""
    active().clear(LISTINGS)
    _COMMITTED.clear()


def version_of(committed: Sequence[str]) -> str:
    """The version string of a store whose committed runs are ``committed`` (sorted ids)."""
    return ",".join(committed)[-64:] + f"#{len(committed)}" if committed else "#0"


__all__ = ["LISTINGS", "RunFolder", "forget_listings", "version_of"]

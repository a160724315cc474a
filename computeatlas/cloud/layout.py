"""The folders of an observation store and which of their files a query reads.

Layout under a store's root (see :mod:`computeatlas.cloud.store` for why)::

    observations/date=YYYY-MM-DD/part-<run>-<n>.parquet   a run's rows of one collection date
    runs/<run>.json                                         the run's manifest, written last
    compacted/period=<P>/part-<compaction>.parquet          runs' rows of period P (a month YYYY-MM or a
                                                            day YYYY-MM-DD) rewritten as one file sorted
                                                            by accelerator and collection time
    compactions/<compaction>.json                           what that file replaced, written last
    current/current-<run>.parquet                           the newest accepted row of every offer
    current.json                                            which current file is the current one

A committed run's files and a committed compaction's file never change. A compaction's
manifest lists the files it ``replaces`` (run files, or an earlier compaction's file of a
shorter or the same period); from then on those are not read (and are removed).
:func:`active` picks, from folder listings and manifests only (no Parquet is opened), the
files a date window reads: the committed runs' files no committed compaction replaced, and
the committed compactions' files nothing replaced.
"""

from __future__ import annotations

import calendar
import contextlib
import datetime as dt
import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

OBSERVATIONS, RUNS, COMPACTED, COMPACTIONS, CURRENT, POINTER = "observations", "runs", "compacted", "compactions", "current", "current.json"


def run_of(part: Path) -> str:
    """The run id in a run file's name (``part-<run>-<n>.parquet``)."""
    return part.stem[len("part-") :].rsplit("-", 1)[0]


@dataclass(frozen=True)
class Compaction:
    """One committed compaction: its ``id``, the ``period`` it covers (``YYYY-MM`` or
    ``YYYY-MM-DD``), its file and the files it replaced (all relative to the store's root)."""

    id: str
    period: str
    file: str
    replaces: tuple[str, ...]
    rows: int

    @property
    def first(self) -> dt.date:
        """The period's first date."""
        return dt.date.fromisoformat(self.period if len(self.period) == 10 else self.period + "-01")

    @property
    def last(self) -> dt.date:
        """The period's last date (inclusive)."""
        if len(self.period) == 10:
            return self.first
        start = self.first
        return start.replace(day=calendar.monthrange(start.year, start.month)[1])


def period_of(text: str) -> str:
    """``text`` checked as a compaction period: a month ``YYYY-MM`` or a day ``YYYY-MM-DD``.
    Raises ``ValueError`` naming it otherwise."""
    try:
        if len(text) == 7:
            dt.date.fromisoformat(text + "-01")
            return text
        if len(text) == 10:
            dt.date.fromisoformat(text)
            return text
    except ValueError:
        pass
    raise ValueError(f"period {text!r} is neither a month (YYYY-MM) nor a day (YYYY-MM-DD)")


def compactions(root: Path) -> list[Compaction]:
    """Every committed compaction of the store at ``root``, oldest first (a manifest that is
    not readable JSON of the expected shape is left out)."""
    folder = root / COMPACTIONS
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            out.append(Compaction(path.stem, str(data["period"]), str(data["file"]), tuple(map(str, data["replaces"])), int(data["rows"])))
        except (OSError, ValueError, KeyError, TypeError):
            continue
    return out


@dataclass(frozen=True)
class Files:
    """The Parquet files one query reads: ``runs`` (date from the ``date=`` folder) and
    ``compacted`` (a ``date`` column and a ``newest`` flag in the file)."""

    runs: tuple[Path, ...] = ()
    compacted: tuple[Path, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.runs or self.compacted)

    @property
    def all(self) -> tuple[Path, ...]:
        """Every file, run files first."""
        return (*self.runs, *self.compacted)


def replaced(done: Iterable[Compaction]) -> set[str]:
    """The files (relative paths) the compactions ``done`` replaced."""
    return {name for c in done for name in c.replaces}


def active(root: Path, committed: Iterable[str], done: list[Compaction], first: dt.date | None, last: dt.date | None) -> Files:
    """The files of the window [``first``, ``last``] (dates, inclusive; None = unbounded):
    run files of ``committed`` runs in the window's date folders, and compacted files whose
    period meets the window, less what ``done`` replaced."""
    gone = replaced(done)
    runs = set(committed)
    observations = root / OBSERVATIONS
    low, high = f"date={first.isoformat()}" if first else "", f"date={last.isoformat()}" if last else "date=~"
    chosen: list[Path] = []
    if observations.is_dir():
        for folder in sorted(observations.iterdir()):
            if folder.name.startswith("date=") and low <= folder.name <= high:
                chosen += [
                    p
                    for p in sorted(folder.glob("part-*.parquet"))
                    if run_of(p) in runs and f"{OBSERVATIONS}/{folder.name}/{p.name}" not in gone
                ]
    compacted = [
        root / c.file for c in done if c.file not in gone and (first is None or c.last >= first) and (last is None or c.first <= last)
    ]
    return Files(tuple(chosen), tuple(compacted))


_POINTERS: dict[str, tuple[tuple[int, int, int], dict[str, Any] | None]] = {}  # root -> (stat of current.json, its pointer)


def pointer(root: Path) -> dict[str, Any] | None:
    """The current table's pointer (``current.json``): ``file``, ``version`` (the store's
    version it was written for), ``newest`` (ISO time of its newest row), ``rows``. None when
    there is none or it is not readable. Parsed again only when the file changes (its
    modification time, size or inode: a new pointer is written under another name and renamed
    into place); a page asks for it about a dozen times."""
    path = root / POINTER
    try:
        stat = os.stat(path)
    except OSError:
        return None
    stamp = (stat.st_mtime_ns, stat.st_size, stat.st_ino)
    known = _POINTERS.get(str(root))
    if known is not None and known[0] == stamp:
        return dict(known[1]) if known[1] is not None else None
    found = _read_pointer(path)
    _POINTERS[str(root)] = (stamp, found)
    return dict(found) if found is not None else None


def _read_pointer(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or not {"file", "version", "newest"} <= set(data):
        return None
    file = data["file"]  # a file of the current/ folder, never a path out of the store
    if not isinstance(file, str) or not re.fullmatch(rf"{CURRENT}/current-[A-Za-z0-9_.-]+\.parquet", file) or ".." in file:
        return None
    return data


class Compactable(Protocol):
    """What a compaction (:func:`computeatlas.cloud.compaction.compact`) needs of a store: a
    :class:`~computeatlas.cloud.dataset.Dataset` is one. Declared here so that the compaction
    and the dataset that calls it do not import each other."""

    root: Path
    key: tuple[str, ...]
    cluster: tuple[str, ...]
    offer: tuple[str, ...] | None

    def order(self) -> str:
        """The SQL order that puts a key's newest decision first."""

    def committed(self) -> tuple[str, ...]:
        """The committed runs' ids, sorted."""

    def writing(self) -> contextlib.AbstractContextManager[None]:
        """The store's write lock for a ``with`` block."""

    def remove_leftovers(self) -> list[Path]:
        """Remove, under the write lock, what no manifest names; return what was removed."""


__all__ = [
    "COMPACTED",
    "COMPACTIONS",
    "CURRENT",
    "OBSERVATIONS",
    "POINTER",
    "RUNS",
    "Compactable",
    "Compaction",
    "Files",
    "active",
    "compactions",
    "period_of",
    "pointer",
    "replaced",
    "run_of",
]

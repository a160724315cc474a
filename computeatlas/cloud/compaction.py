"""Compaction: a month's or a day's run files rewritten as one Parquet file, without changing any answer.

Every import adds a file per collection date, so a year of collections every six hours from
30 sources is tens of thousands of small files, and opening a file costs about a millisecond.
:func:`compact` rewrites the active files of one period (a month ``YYYY-MM`` or a day
``YYYY-MM-DD``: its run files and any earlier compacted file of it or of its days) into
``compacted/period=<P>/part-<id>.parquet``:

- the same rows, every column kept (``date`` becomes a column of the file), so ``obs`` and
  ``latest`` answer the same (a test compares every query before and after);
- sorted by the store's cluster columns (accelerator and collection time for rental prices), in row groups of :data:`ROW_GROUP_ROWS`, so a
  part's history reads only its own row groups;
- each row flagged ``newest`` when it is its key's newest decision (the store's rule), so
  reading the newest decisions is a filter;
- for a store of offers, the roll-ups of those decisions beside it (``monthly-<id>.parquet``,
  ``daily-<id>.parquet`` and ``lows-<id>.parquet``, :data:`computeatlas.cloud.views.ROLLUPS`):
  the market-wide charts, a price page's median series and its charts' weekly and monthly
  lows read a few thousand rows instead of the history.

The run manifests stay: they are the record of what came in when (each row keeps its
``run``). The compaction commits by writing ``compactions/<id>.json`` (an atomic rename)
naming the file and the files it replaced; only then are those removed. A killed compaction
leaves either nothing visible (no manifest) or a committed one whose replaced files are
leftovers (never read, removed by the next writer). It holds the store's write lock.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import duckdb

from computeatlas.cloud.layout import COMPACTED, COMPACTIONS, Compaction, active, compactions, period_of
from computeatlas.cloud.views import DATED, ROLLUPS, compacted_rows, literal, newest_flag, run_rows, summary_of
from computeatlas.cloud.writers import STAGING

if TYPE_CHECKING:
    from computeatlas.cloud.layout import Compactable as Store

ROW_GROUP_ROWS = 32_768
"""Rows per row group of a compacted file: small enough that a part's rows of a month span
few groups (the scan skips the others by their min/max accelerator and time)."""


ROLLUP_ROW_GROUP_ROWS = 2048
"""Rows per row group of a per-date roll-up (:data:`~computeatlas.cloud.views.DATED`), sorted by
part and date: one part's month is a row group or two, and a page's scan skips the others'."""


class CompactionRefused(ValueError):
    """A period that cannot be compacted as asked (the message says why and what to do)."""


@dataclass(frozen=True)
class Compacted:
    """What :func:`compact` did for one period: ``files`` read (run and compacted files),
    ``rows`` written, the new ``file`` (None when there was nothing to do)."""

    period: str
    files: int
    rows: int
    file: Path | None


def _months(store: Store) -> list[str]:
    """The months that hold a run file (what compacting "everything" means)."""
    files = active(store.root, store.committed(), compactions(store.root), None, None)
    return sorted({p.parent.name.removeprefix("date=")[:7] for p in files.runs})


def compact(store: Store, period: str | None = None, now: dt.datetime | None = None) -> list[Compacted]:
    """Compact ``period`` (``YYYY-MM`` or ``YYYY-MM-DD``), or every month with a run file when
    None. Holds the write lock (:class:`~computeatlas.cloud.writers.StoreBusy` when it cannot).

    Raises ``ValueError`` for a malformed period and :class:`CompactionRefused` for a day
    inside a month that is already compacted as a whole (compact the month again instead).
    A period whose files are already one compacted file is left as it is."""
    periods = [period_of(period)] if period else None
    with store.writing():
        store.remove_leftovers()
        return [_one(store, p, now or dt.datetime.now(dt.UTC)) for p in (periods or _months(store))]


def _one(store: Store, period: str, now: dt.datetime) -> Compacted:
    done = compactions(store.root)
    if len(period) == 10 and any(c.period == period[:7] for c in done if c.file not in {n for d in done for n in d.replaces}):
        raise CompactionRefused(
            f"period {period}: its month {period[:7]} is already compacted as a whole; compact {period[:7]} again "
            "to take in the day's new runs"
        )
    first = dt.date.fromisoformat(period + "-01" if len(period) == 7 else period)
    window = Compaction("", period, "", (), 0)
    files = active(store.root, store.committed(), done, first, window.last)
    inside = tuple(store.root / c.file for c in done if store.root / c.file in files.compacted and c.period.startswith(period))
    if not files.runs and len(inside) <= 1:
        return Compacted(period, len(inside), 0, None)
    ident = f"{now:%Y%m%dT%H%M%S%f}Z-{period}"
    staging = store.root / STAGING / f"compaction-{ident}"
    target = store.root / COMPACTED / f"period={period}" / f"part-{ident}.parquet"
    sources = ([f"SELECT * FROM {run_rows(files.runs)}"] if files.runs else []) + (
        [f"SELECT * EXCLUDE (newest) FROM {compacted_rows(inside)}"] if inside else []
    )
    order = store.order()
    try:
        staging.mkdir(parents=True)
        staged = staging / target.name
        with duckdb.connect() as con:
            con.execute("SET TimeZone = 'UTC'")
            con.execute(f"CREATE TEMP VIEW rows_in AS {' UNION ALL BY NAME '.join(sources)}")
            read = (con.execute("SELECT count(*) FROM rows_in").fetchone() or (0,))[0]
            con.execute(
                f"COPY (SELECT *, {newest_flag(store.key, order)} AS newest FROM rows_in ORDER BY {', '.join(c + ' NULLS FIRST' for c in store.cluster)}, "
                f"{', '.join(store.key)}, run) TO {literal(str(staged))} "
                f"(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {ROW_GROUP_ROWS})"
            )
            written = (con.execute(f"SELECT count(*) FROM read_parquet({literal(str(staged))})").fetchone() or (0,))[0]
            for kind, make in ROLLUPS.items() if store.offer else ():  # the roll-ups of the newest decisions, beside the file
                rolled = make(f"(SELECT * FROM read_parquet({literal(str(staged))}) WHERE newest)")
                grouped = f", ROW_GROUP_SIZE {ROLLUP_ROW_GROUP_ROWS}" if kind in DATED else ""
                rolled = f"SELECT * FROM ({rolled}) ORDER BY accelerator NULLS FIRST, date" if kind in DATED else rolled
                con.execute(f"COPY ({rolled}) TO {literal(str(summary_of(staged, kind)))} (FORMAT parquet, COMPRESSION zstd{grouped})")
        if written != read:
            raise RuntimeError(f"compaction of {period} wrote {written} rows of {read}; nothing was changed")
        target.parent.mkdir(parents=True, exist_ok=True)
        for kind in ROLLUPS:
            if summary_of(staged, kind).is_file():
                os.replace(summary_of(staged, kind), summary_of(target, kind))
        os.replace(staged, target)
        replaces = sorted(str(p.relative_to(store.root)) for p in (*files.runs, *inside))
        manifest = staging / "manifest.json"
        manifest.write_text(
            json.dumps(
                {
                    "period": period,
                    "file": str(target.relative_to(store.root)),
                    "replaces": replaces,
                    "rows": written,
                    "written": now.isoformat(),
                },
                indent=1,
            ),
            encoding="utf-8",
        )
        (store.root / COMPACTIONS).mkdir(exist_ok=True)
        os.replace(manifest, store.root / COMPACTIONS / f"{ident}.json")
    except BaseException:
        target.unlink(missing_ok=True)
        for kind in ROLLUPS:
            summary_of(target, kind).unlink(missing_ok=True)
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    store.remove_leftovers()  # the replaced files: no query reads them any more
    return Compacted(period, len(files.runs) + len(inside), int(written), target)


__all__ = ["ROLLUP_ROW_GROUP_ROWS", "ROW_GROUP_ROWS", "Compacted", "CompactionRefused", "compact"]

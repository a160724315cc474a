"""The current table of a rental-price store: the newest accepted observation of every offer
(provider, instance, region, pricing, term), kept beside the history instead of recomputed.

Every import writes the next table as it commits (:meth:`computeatlas.cloud.store.Store.append`):
the previous table's rows, less those whose observation the run decided again, and the
run's newest decisions of its keys (found over the run's dates only), newest per offer. Only
when the run turned an offer's newest accepted row into a held one, or there is no usable
previous table, is the table worked out again from the whole history.

The table is ``current/current-<run>.parquet``, sorted by accelerator and collection time;
``current.json`` names it with the store's version it was written for, its newest collection
time and the parts ever observed. A reader uses it only when that version is the store's
version (:func:`fresh`); otherwise (a writer killed between its manifest and the pointer, a
store written before the table existed) answers come from the history and ``prices status``
says so.

Units: as the observation store's (``per_accelerator_hour`` in the row's currency).
"""

from __future__ import annotations

import datetime as dt
import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb

from computeatlas.cloud.layout import CURRENT, POINTER, pointer
from computeatlas.cloud.views import compacted_rows, literal

ROW_GROUP_ROWS = 16_384
"""Rows per Parquet row group of the current table (one part's offers span few groups)."""


def newest_per_offer(source: str, offer: Sequence[str]) -> str:
    """SQL: the newest accepted row of each offer of ``source`` (a view or subquery of store rows)."""
    return (
        f"SELECT * FROM {source} WHERE status = 'accepted' "
        f"QUALIFY row_number() OVER (PARTITION BY {', '.join(offer)} ORDER BY collected DESC) = 1"
    )


def fresh(root: Path, version: str) -> dict[str, Any] | None:
    """The pointer of ``root``'s current table when it was written for the store's ``version``
    and its file is there; else None (answers then come from the history)."""
    found = pointer(root)
    if found is None or found["version"] != version or not (root / str(found["file"])).is_file():
        return None
    return found


def incremental(con: duckdb.DuckDBPyConnection, old: Path, new_files: Sequence[Path], key: Sequence[str], offer: Sequence[str]) -> bool:
    """Create the temp table ``next_current`` from the previous table ``old`` and the newest
    decisions of the run files ``new_files`` (the view ``latest`` on ``con`` must already
    cover the run's dates, those files included). Returns False, creating nothing, when the
    run turned an offer's newest accepted row into another decision: then only the whole
    history tells that offer's newest accepted row (:func:`whole`)."""
    keys = ", ".join(key)
    con.execute(
        f"CREATE OR REPLACE TEMP TABLE decided_now AS SELECT l.* FROM latest l SEMI JOIN "
        f"(SELECT DISTINCT {keys} FROM {compacted_rows(new_files)}) n USING ({keys})"
    )
    con.execute(f"CREATE OR REPLACE TEMP VIEW previous AS SELECT * FROM read_parquet({literal(str(old))})")
    lost = con.execute(
        f"SELECT count(*) FROM previous SEMI JOIN (SELECT * FROM decided_now WHERE status <> 'accepted') d USING ({keys})"
    ).fetchone()
    if lost and lost[0]:
        return False
    candidates = (
        "(SELECT * FROM previous ANTI JOIN decided_now USING (" + keys + ") "
        "UNION ALL BY NAME SELECT * FROM decided_now WHERE status = 'accepted')"
    )
    con.execute(f"CREATE OR REPLACE TEMP TABLE next_current AS {newest_per_offer(candidates, offer)}")
    con.execute("CREATE OR REPLACE TEMP TABLE parts AS SELECT DISTINCT accelerator FROM decided_now WHERE status = 'accepted'")
    return True


def whole(con: duckdb.DuckDBPyConnection, offer: Sequence[str]) -> None:
    """Create the temp table ``next_current`` from the view ``latest`` on ``con`` (the whole history)."""
    con.execute(f"CREATE OR REPLACE TEMP TABLE next_current AS {newest_per_offer('latest', offer)}")
    con.execute("CREATE OR REPLACE TEMP TABLE parts AS SELECT DISTINCT accelerator FROM latest WHERE status = 'accepted'")


def write(con: duckdb.DuckDBPyConnection, staged: Path, observed: Iterable[str]) -> dict[str, Any]:
    """Write the temp table ``next_current`` to ``staged`` (Parquet, sorted by accelerator and
    time) and return the pointer's facts: ``rows``, ``newest`` (ISO time or None) and
    ``accelerators``: ``observed`` (the previous table's) and the parts of the temp table
    ``parts`` (those with an accepted newest decision in what was read), sorted."""
    con.execute(
        f"COPY (SELECT * FROM next_current ORDER BY accelerator, collected) TO {literal(str(staged))} "
        f"(FORMAT parquet, COMPRESSION zstd, ROW_GROUP_SIZE {ROW_GROUP_ROWS})"
    )
    rows, newest = con.execute("SELECT count(*), max(collected) FROM next_current").fetchone() or (0, None)
    parts = {r[0] for r in con.execute("SELECT accelerator FROM parts WHERE accelerator IS NOT NULL").fetchall()}
    return {
        "rows": int(rows),
        "newest": newest.astimezone(dt.UTC).isoformat() if newest else None,
        "accelerators": sorted(parts | set(observed)),
    }


def point(root: Path, file: str, version: str, facts: dict[str, Any]) -> None:
    """Write ``current.json`` (atomically: a reader sees the old pointer or the new one) naming
    ``file`` (relative to ``root``) as the current table of the store's ``version``."""
    temp = root / (POINTER + ".tmp")
    temp.write_text(json.dumps({"file": file, "version": version, **facts}, indent=1, sort_keys=True), encoding="utf-8")
    os.replace(temp, root / POINTER)


def unused(root: Path) -> list[Path]:
    """Current files the pointer does not name, but the newest of them (a reader may still be
    reading it): what a writer removes under the lock."""
    named = (pointer(root) or {}).get("file")
    folder = root / CURRENT
    others = [p for p in sorted(folder.glob("current-*.parquet")) if f"{CURRENT}/{p.name}" != named] if folder.is_dir() else []
    return others[:-1]


__all__ = ["ROW_GROUP_ROWS", "fresh", "incremental", "newest_per_offer", "point", "unused", "whole", "write"]

"""The in-process DuckDB engine the observation stores query: one database per process, a
cursor per query, and the answers of recent queries kept in the active cache.

- **One database, a cursor per query.** Opening a DuckDB database costs ~30 ms, a cursor on it
  under 1 ms; each query gets its own cursor (connections are not shared between threads).
  Only the views a query defines over the Parquet files live there, never their rows, so
  memory does not grow with history.
- **Kept answers.** A query's rows are kept by the files it read (never rewritten; a new run
  adds files), its SQL and its parameters: the pages of one minute ask the same questions.
  They live in the app's one cache (:func:`computeatlas.core.cache.active`, namespace
  :data:`ANSWERS`), bounded in bytes with everything else it keeps, and no answer larger
  than :data:`RESULT_MAX_ROWS` is kept, so a long history is never held in memory.
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

import duckdb

from computeatlas.core.cache import active

ANSWERS = "store answers"
"""The namespace of the store's kept answers in the active cache."""

RESULT_MAX_ROWS = 12_000
"""The largest answer kept (rows). The whole current table of the bundled data (9,053
offers; a row is about 2 KB in Python) fits, so the pages of the market read it once; a
longer answer (a long history) is asked of DuckDB each time rather than held."""


LATE_MATERIALIZATION_ROWS = 5001
"""The largest ``LIMIT`` whose ordered rows DuckDB materialises late (the history API lists at
most 5,000 observations and asks for one more to tell when it truncated)."""

_database: duckdb.DuckDBPyConnection | None = None
_database_lock = threading.Lock()


def connection() -> duckdb.DuckDBPyConnection:
    """A new connection (a cursor) to the process's one in-memory DuckDB database. Opening a
    database costs ~30 ms, a cursor on it under 1 ms; each query gets its own cursor (DuckDB
    connections are not shared between threads) and closes it. Only the views a query defines
    over the Parquet files live there, never their rows, so memory does not grow with history."""
    global _database
    with _database_lock:
        if _database is None:
            _database = duckdb.connect()
            # Files are never rewritten in place (a new run or compaction writes new names), so their
            # footers are read once per process: a view's binding then opens no file again.
            _database.execute("SET GLOBAL parquet_metadata_cache = true")
            # A page's newest rows (ORDER BY … LIMIT, up to a history request's most) read their other columns only
            # for the rows kept, not for every row of the row groups scanned (DuckDB's default stops at 50 rows).
            _database.execute(f"SET GLOBAL late_materialization_max_rows = {LATE_MATERIALIZATION_ROWS}")
            atexit.register(_database.close)
        return _database.cursor()


def kept(key: tuple[object, ...]) -> list[dict[str, Any]] | None:
    """The rows kept for the query ``key`` (files read, SQL, parameters…) in the active cache, or None."""
    rows: list[dict[str, Any]] | None = active().get(ANSWERS, key)
    return rows


def keep(key: tuple[object, ...], rows: list[dict[str, Any]]) -> bool:
    """Keep ``rows`` as the answer of ``key`` in the active cache unless it has more than
    :data:`RESULT_MAX_ROWS` rows; returns whether it was kept."""
    return len(rows) <= RESULT_MAX_ROWS and active().put(ANSWERS, key, rows)


__all__ = ["ANSWERS", "LATE_MATERIALIZATION_ROWS", "RESULT_MAX_ROWS", "connection", "keep", "kept"]

"""The in-process DuckDB engine the observation stores query: one database per process, a
cursor per query, and the answers of recent queries kept.

- **One database, a cursor per query.** Opening a DuckDB database costs ~30 ms, a cursor on it
  under 1 ms; each query gets its own cursor (connections are not shared between threads).
  Only the views a query defines over the Parquet files live there, never their rows, so
  memory does not grow with history.
- **Kept answers.** A query's rows are kept by the files it read (never rewritten; a new run
  adds files), its SQL and its parameters: the pages of one minute ask the same questions.
  At most :data:`RESULT_CACHE_ROWS` rows are kept in all (least recently used first out) and
  no answer larger than :data:`RESULT_MAX_ROWS`, so a long history is never held in memory.
"""

from __future__ import annotations

import atexit
import threading
from collections import OrderedDict
from typing import Any

import duckdb

RESULT_CACHE_ROWS = 48_000
"""How many result rows :meth:`computeatlas.cloud.store.Store.query` keeps in memory in all (least recently used
first out); a result larger than :data:`RESULT_MAX_ROWS` is never kept, so a long history is
never held in memory."""

RESULT_MAX_ROWS = RESULT_CACHE_ROWS // 4
"""The largest answer kept (rows): a quarter of the budget. The whole current table of the
bundled data (9,053 offers; a row is about 2 KB in Python, so the budget is about 100 MB at
most) fits, so the pages of the market read it once."""


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


class Results:
    """Query results by key, least recently used out first, at most ``budget`` rows in all and
    none of more than ``largest`` rows (a quarter of the budget unless given)."""

    def __init__(self, budget: int, largest: int | None = None) -> None:
        self.budget = budget
        self.largest = budget // 4 if largest is None else largest
        self._rows: OrderedDict[tuple[object, ...], list[dict[str, Any]]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def get(self, key: tuple[object, ...]) -> list[dict[str, Any]] | None:
        with self._lock:
            rows = self._rows.get(key)
            if rows is not None:
                self._rows.move_to_end(key)
            return rows

    def put(self, key: tuple[object, ...], rows: list[dict[str, Any]]) -> None:
        if len(rows) > self.largest:
            return
        with self._lock:
            if key in self._rows:
                return
            self._rows[key] = rows
            self._held += len(rows) + 1
            while self._held > self.budget:
                _, dropped = self._rows.popitem(last=False)
                self._held -= len(dropped) + 1

    def clear(self) -> None:
        """Forget every kept answer (the next query of each key asks DuckDB again); for benchmarks
        that time uncached answers. Thread-safe; the budget and the largest answer are kept."""
        with self._lock:
            self._rows.clear()
            self._held = 0


RESULTS = Results(RESULT_CACHE_ROWS, RESULT_MAX_ROWS)
"""One per process, shared by every :class:`Store` (a key holds the files' full paths)."""


__all__ = ["LATE_MATERIALIZATION_ROWS", "RESULTS", "RESULT_CACHE_ROWS", "RESULT_MAX_ROWS", "Results", "connection"]

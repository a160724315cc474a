"""An append-only dataset of decided rows in Parquet under one folder, queried with DuckDB:
what the rental-price store (:class:`computeatlas.cloud.store.Store`) and the token-price
store share.

It writes runs atomically (:meth:`Dataset.append`, :mod:`computeatlas.cloud.run_writer`),
lists the files a date window reads (:mod:`computeatlas.cloud.run_folder`,
:mod:`computeatlas.cloud.layout`), defines the views ``obs`` and ``latest`` over them
(:mod:`computeatlas.cloud.views`), answers SQL with the process's kept answers
(:mod:`computeatlas.cloud.engine`), compacts periods (:mod:`computeatlas.cloud.compaction`)
and, for a dataset of offers, keeps the current table (:mod:`computeatlas.cloud.current_table`).
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import duckdb

from computeatlas.cloud import engine
from computeatlas.cloud.engine import connection
from computeatlas.cloud.layout import Files
from computeatlas.cloud.run_folder import forget_listings, mtime_ns, version_of
from computeatlas.cloud.run_writer import RunWriter
from computeatlas.cloud.view_schemas import bind
from computeatlas.cloud.views import define, literal
from computeatlas.core.errors import Unavailable

VERSION_RECHECK_SECONDS = 1.0
"""How long :meth:`Dataset.version` trusts its last look at the runs folder."""


class StoreDamaged(Unavailable):
    """A file the store's manifests name cannot be read (missing, truncated, not Parquet): a
    503 naming the store and what to run; nothing is answered from a part of the history."""

    def __init__(self, root: Path, error: Exception) -> None:
        first = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        super().__init__(
            "Price store damaged",
            f"the price store at {root} cannot be read ({first}); the operator runs `computeatlas prices status` to see what is wrong",
        )


class Dataset(RunWriter):
    """The rows under ``root`` (:class:`~computeatlas.cloud.run_folder.RunFolder` says what
    the arguments are), written by run (:class:`~computeatlas.cloud.run_writer.RunWriter`) and
    read with SQL over the views ``obs`` and ``latest``."""

    def version(self) -> str:
        """The committed runs in one short string: it changes when an import commits (a
        directory listing, no Parquet read), so a cache keyed on it never serves old prices
        (a compaction changes no answer, so not the version). Looked at no more than once
        every :data:`VERSION_RECHECK_SECONDS` (the page cache asks on every request)."""
        known = self._version
        now = time.monotonic()
        if known is not None and now - self._checked < VERSION_RECHECK_SECONDS:
            return known[1]
        self._checked = now
        stamp = mtime_ns(self.runs_dir)
        if not stamp:
            return "#0"
        if known is not None and known[0] == stamp:
            return known[1]
        version = version_of(self.committed())
        self._version = (stamp, version)
        return version

    # --- reading ----------------------------------------------------------------------

    def query(
        self,
        sql: str,
        params: Sequence[object] = (),
        first: dt.date | None = None,
        last: dt.date | None = None,
        accelerator: str | None = None,
    ) -> list[dict[str, Any]]:
        """Run ``sql`` over the view ``obs`` (every committed row) and ``latest`` (the newest
        run's row per observation key, conflicts left out); rows as dicts. Empty store: [].

        ``first``/``last`` bound the collection dates read (inclusive): only those files and
        rows are read, which keeps a query on a long history fast. (Dates are part of the
        key, so bounding them never changes which row is the newest per key.)
        ``accelerator`` narrows the run files' share of ``latest`` to the observations ever
        placed on it before the newest row per key is chosen; the caller still filters on it.
        """
        files = self._files(first, last)
        if not files:
            return []
        # The files read decide the answer: they are never rewritten, and a new run or a
        # compaction changes the files, so a result is reused only for the same files.
        key = (files, sql, tuple(params), accelerator, self.key, self._order, first, last)
        rows = engine.kept(key)
        if rows is None:
            try:
                with connection() as con:
                    rows = self._run(con, files, sql, params, accelerator, self.key, self._order, first, last)
            except duckdb.IOException:  # a compaction removed a file between the listing and the read: list again
                forget_listings()
                files = self._files(first, last)
                try:
                    with connection() as con:
                        rows = self._run(con, files, sql, params, accelerator, self.key, self._order, first, last)
                except (duckdb.IOException, duckdb.InvalidInputException) as exc:
                    raise StoreDamaged(self.root, exc) from None
            except duckdb.InvalidInputException as exc:  # a named file is not Parquet (truncated, overwritten)
                raise StoreDamaged(self.root, exc) from None
            engine.keep(key, rows)
        return [dict(row) for row in rows]

    def fetch(
        self, sql: str, params: Sequence[object] = (), first: dt.date | None = None, last: dt.date | None = None
    ) -> list[tuple[Any, ...]]:
        """:meth:`query` for a bulk read by a writer (an import reading every stored row of its
        days): rows as tuples in the order ``sql`` names its columns, and not kept (an answer
        of a million rows would crowd out the pages'). Empty store: []. Raises
        :class:`StoreDamaged` for a named file that cannot be read."""
        files = self._files(first, last)
        if not files:
            return []
        try:
            with connection() as con:
                con.execute("SET TimeZone = 'UTC'")
                bind(con, files, self.key, self._order, None, first, last)
                return con.execute(sql, list(params)).fetchall()
        except (duckdb.IOException, duckdb.InvalidInputException) as exc:
            raise StoreDamaged(self.root, exc) from None

    def query_current(self, sql: str, params: Sequence[object] = (), zoned: bool = True) -> list[dict[str, Any]] | None:
        """Run ``sql`` over the view ``current`` (the current table); None when the table is
        not fresh (the caller asks the history then). ``zoned`` (the default): the answer has
        a ``collected`` column, given as UTC times; False for an answer without one (a count)."""
        table = self.current_file()
        if table is None:
            return None
        key = (table, sql, tuple(params))
        rows = engine.kept(key)
        if rows is None:
            # The collection time read as UTC wall time and given its zone here: DuckDB's own conversion of
            # a zoned time costs about 2 µs a row, a third of reading the whole market.
            plain = f"SELECT * REPLACE (CAST(collected AS TIMESTAMP) AS collected) FROM ({sql})" if zoned else sql
            try:
                with connection() as con:
                    rows = self._run(con, Files(), plain, params, None, self.key, self._order, None, None, table)
            except (duckdb.IOException, duckdb.InvalidInputException):
                return None  # an unreadable table: the history answers (prices status says so)
            if zoned:
                for row in rows:
                    row["collected"] = row["collected"].replace(tzinfo=dt.UTC)
            engine.keep(key, rows)
        return [dict(row) for row in rows]

    def define_views(self, con: duckdb.DuckDBPyConnection, first: dt.date | None = None, last: dt.date | None = None) -> bool:
        """Create the views ``obs`` and ``latest`` on ``con`` (for a caller that copies from
        them, e.g. a dataset export); False, creating nothing, for an empty store."""
        files = self._files(first, last)
        if files:
            define(con, files, self.key, self._order, None, first, last)
        return bool(files)

    @staticmethod
    def _run(
        con: duckdb.DuckDBPyConnection,
        files: Files,
        sql: str,
        params: Sequence[object],
        accelerator: str | None,
        key: Sequence[str],
        order: str,
        first: dt.date | None = None,
        last: dt.date | None = None,
        current: Path | None = None,
    ) -> list[dict[str, Any]]:
        """:meth:`query` on the cursor ``con``: the views over ``files`` (or the view
        ``current`` over the current table ``current``), then ``sql``."""
        con.execute("SET TimeZone = 'UTC'")
        if current is not None:
            con.execute(f"CREATE OR REPLACE TEMP VIEW current AS SELECT * FROM read_parquet({literal(str(current))})")
        else:
            bind(con, files, key, order, accelerator, first, last)
        cursor = con.execute(sql, list(params))
        names = [d[0] for d in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def compact(self, period: str | None = None) -> list[Any]:
        """Compact ``period`` (``YYYY-MM`` or ``YYYY-MM-DD``; None: every month with run files)
        without changing any answer (:func:`computeatlas.cloud.compaction.compact`, whose
        errors it raises)."""
        from computeatlas.cloud.compaction import compact

        return compact(self, period)


__all__ = ["VERSION_RECHECK_SECONDS", "Dataset", "StoreDamaged"]

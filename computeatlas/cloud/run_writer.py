"""Writing a run into a dataset's folder: its rows as date-partitioned Parquet, moved into
place, then its manifest (all or nothing, under the write lock), and for a dataset of offers
the next current table (:mod:`computeatlas.cloud.current_table`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel

from computeatlas.cloud import current_table, layout
from computeatlas.cloud.engine import connection
from computeatlas.cloud.layout import CURRENT, Files
from computeatlas.cloud.run_folder import RunFolder, version_of
from computeatlas.cloud.views import define, literal
from computeatlas.cloud.writers import STAGING, json_chunks, remove_leftovers


class RunWriter(RunFolder):
    """A dataset's folder that runs are written into (:meth:`append`, :meth:`refresh_current`)."""

    def append(self, rows: Sequence[BaseModel], run: str, manifest: dict[str, Any]) -> list[Path]:
        """Write ``rows`` as the new run ``run`` (all or nothing) and its ``manifest``; for a
        dataset of offers, the next current table too (named by ``current.json`` once the
        manifest is written).

        Holds the write lock (waiting up to its timeout; ``StoreBusy``) and first removes what
        killed writers left. Returns the run's Parquet files. Raises ``FileExistsError`` for a
        run id already committed and lets an ``OSError`` or ``duckdb.Error`` through after
        removing everything this call wrote."""
        with self.writing():
            return self._append(self._from_rows(rows) if rows else None, run, manifest)

    def append_copy(self, copy: Callable[[str], str], run: str, manifest: dict[str, Any], con: duckdb.DuckDBPyConnection) -> list[Path]:
        """:meth:`append` of the rows a query on ``con`` selects, written by DuckDB without a
        Python row: ``copy(columns)`` is that query (SQL), given the select list of the
        dataset's columns with their types, and ``date``. The same files, manifest and current
        table as :meth:`append` of the same rows, with the same errors.

        The rows must give each key once and hold no ``conflict`` (so that, in a store without
        runs, they are the store's newest decisions): then the first run's current table is
        worked out from them on ``con``, not read back from the files just written."""
        select = ", ".join(f"CAST({c} AS {kind}) AS {c}" for c, kind in self.columns.items())
        rows = copy(select + ", CAST(collected AT TIME ZONE 'UTC' AS DATE) AS date")

        def write(out: Path, pattern: str) -> None:
            con.execute("SET TimeZone = 'UTC'")
            con.execute(
                f"COPY ({rows}) TO {literal(str(out))} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date), FILENAME_PATTERN {literal(pattern)})"
            )

        with self.writing():
            return self._append(write, run, manifest, (con, rows))

    def _from_rows(self, rows: Sequence[BaseModel]) -> Callable[[Path, str], None]:
        """The writer of ``rows`` into a run's folder ``out`` (as JSON chunks, read by DuckDB)."""

        def write(out: Path, pattern: str) -> None:
            sources = json_chunks(rows, out.parent)
            columns = "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in self.columns.items()) + "}"
            with duckdb.connect() as con:
                con.execute("SET TimeZone = 'UTC'")
                con.execute(
                    f"COPY (SELECT *, CAST(collected AT TIME ZONE 'UTC' AS DATE) AS date FROM read_json([{', '.join(map(literal, sources))}], "
                    f"format = 'array', columns = {columns})) TO {literal(str(out))} "
                    f"(FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date), FILENAME_PATTERN {literal(pattern)})"
                )

        return write

    def _append(
        self,
        write: Callable[[Path, str], None] | None,
        run: str,
        manifest: dict[str, Any],
        newest: tuple[duckdb.DuckDBPyConnection, str] | None = None,
    ) -> list[Path]:
        if (self.runs_dir / f"{run}.json").exists():
            raise FileExistsError(f"run {run} is already in the store at {self.root}")
        remove_leftovers(self.root, self.committed())  # a killed writer's; we hold the lock, so no one else's
        staging = self.root / STAGING / run
        moved: list[Path] = []
        current: Path | None = None
        try:
            staging.mkdir(parents=True)
            if write is not None:
                out = staging / "out"
                write(out, "part-" + run + "-{i}")
                for part in sorted(out.glob("date=*/*.parquet")):
                    target = self.observations_dir / part.parent.name / part.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(part, target)
                    moved.append(target)
            before = self.committed()
            facts = self._next_current(before, moved, staging, run, newest) if self.offer else None
            if facts is not None:
                current = self.root / str(facts["file"])
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            temp = staging / "manifest.json"
            temp.write_text(
                json.dumps(
                    {**manifest, "run": run, "files": [str(p.relative_to(self.root)) for p in moved]}, indent=1, sort_keys=True, default=str
                ),
                encoding="utf-8",
            )
            os.replace(temp, self.runs_dir / f"{run}.json")
        except BaseException:
            for path in [*moved, *([current] if current and current.name.endswith(f"{run}.parquet") else [])]:
                path.unlink(missing_ok=True)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # the .staging folder itself stays: another writer may use it next
        if facts is not None:
            current_table.point(self.root, str(facts.pop("file")), version_of((*before, run)), facts)
        return moved

    def _next_current(
        self,
        before: tuple[str, ...],
        moved: list[Path],
        staging: Path,
        run: str,
        newest: tuple[duckdb.DuckDBPyConnection, str] | None = None,
    ) -> dict[str, Any]:
        """Write the current table that holds once ``moved`` (this run's files) are committed:
        from the previous one when it is fresh, else from the whole history (for a store's
        first run, from ``newest`` when given: a cursor and the SQL of the run's rows, each key
        once, no conflict); return the pointer's facts (with ``file``). Called under the write
        lock, before the manifest."""
        assert self.offer is not None
        previous = current_table.fresh(self.root, version_of(before)) if before else None
        if previous is not None and not moved:
            return dict(previous)  # nothing added: the same table, for the next version
        if not before and newest is not None and moved:
            target = self.root / CURRENT / f"current-{run}.parquet"
            con, rows = newest
            con.execute(f"CREATE OR REPLACE TEMP TABLE next_current AS {current_table.newest_per_offer(f'({rows})', self.offer)}")
            con.execute(f"CREATE OR REPLACE TEMP TABLE parts AS SELECT DISTINCT accelerator FROM ({rows}) WHERE status = 'accepted'")
            facts = current_table.write(con, staging / target.name, ())
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(staging / target.name, target)
            return {**facts, "file": f"{CURRENT}/{target.name}"}
        known = self._files(None, None) if before else Files()
        everything = Files((*known.runs, *moved), known.compacted)
        target = self.root / CURRENT / f"current-{run}.parquet"
        staged = staging / target.name
        with connection() as con:
            con.execute("SET TimeZone = 'UTC'")
            done = False
            if previous is not None:
                days = sorted(dt.date.fromisoformat(p.parent.name.removeprefix("date=")) for p in moved)
                window = self._files(days[0], days[-1])
                define(con, Files((*window.runs, *moved), window.compacted), self.key, self.order(), None, days[0], days[-1])
                done = current_table.incremental(con, self.root / str(previous["file"]), moved, self.key, self.offer)
            if not done and everything:
                define(con, everything, self.key, self.order())
                current_table.whole(con, self.offer)
            elif not done:
                con.execute(
                    "CREATE OR REPLACE TEMP TABLE next_current AS SELECT NULL::VARCHAR AS accelerator, "
                    "NULL::TIMESTAMPTZ AS collected WHERE false"
                )
                con.execute("CREATE OR REPLACE TEMP TABLE parts AS SELECT accelerator FROM next_current")
            facts = current_table.write(con, staged, previous["accelerators"] if previous is not None and done else ())
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(staged, target)
        return {**facts, "file": f"{CURRENT}/{target.name}"}

    def refresh_current(self) -> dict[str, Any]:
        """Write the current table again from the whole history, under the write lock (for a
        store whose table is missing or older than its newest run); return its pointer.
        Raises ``ValueError`` for a dataset that keeps no current table."""
        if not self.offer:
            raise ValueError(f"the store at {self.root} keeps no current table")
        with self.writing():
            before = self.committed()
            staging = self.root / STAGING / "current"
            shutil.rmtree(staging, ignore_errors=True)
            staging.mkdir(parents=True)
            try:
                stamp = f"{dt.datetime.now(dt.UTC):%Y%m%dT%H%M%S%f}Z-refresh"
                (self.root / layout.POINTER).unlink(missing_ok=True)  # the whole history, not the old table
                facts = self._next_current(before, [], staging, stamp)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            file = str(facts.pop("file"))
            current_table.point(self.root, file, version_of(before), facts)
            return {"file": file, **facts}


__all__ = ["RunWriter"]

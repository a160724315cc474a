"""An append-only dataset of decided rows in Parquet under one folder, queried with DuckDB:
what the rental-price store (:class:`computeatlas.cloud.store.Store`) and the token-price
store share.

It writes runs atomically (:meth:`Dataset.append`), lists the files a date window reads
(:mod:`computeatlas.cloud.layout`), defines the views ``obs`` and ``latest`` over them
(:mod:`computeatlas.cloud.views`), answers SQL with the process's kept answers
(:mod:`computeatlas.cloud.engine`), compacts periods (:mod:`computeatlas.cloud.compaction`)
and, for a dataset of offers, keeps the current table (:mod:`computeatlas.cloud.current_table`).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import hashlib
import json
import os
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel

from computeatlas.cloud import current_table
from computeatlas.cloud.engine import RESULTS, connection
from computeatlas.cloud.layout import CURRENT, Files, active, compactions
from computeatlas.cloud.views import define, literal
from computeatlas.cloud.writers import LOCK_TIMEOUT_SECONDS, STAGING, Leftovers, json_chunks, leftovers, remove_leftovers, write_lock
from computeatlas.core.errors import Unavailable

VERSION_RECHECK_SECONDS = 1.0
"""How long :meth:`Dataset.version` trusts its last look at the runs folder."""

LISTINGS_KEPT = 256
"""How many file listings (one per store, committed runs and compactions, and date window) are kept."""

_RENTAL_KEY = ("provider", "instance_type", "region", "pricing", "term", "collected")
"""The observation key of a store of offers: its queries also get the view ``monthly``."""

_LISTED: dict[tuple[object, ...], Files] = {}
_COMMITTED: dict[str, tuple[tuple[int, int], tuple[str, ...], tuple[str, ...]]] = {}  # root -> (mtimes, runs, compactions)


def _mtime(path: Path) -> int:
    try:
        return os.stat(path).st_mtime_ns
    except FileNotFoundError:
        return 0


class StoreDamaged(Unavailable):
    """A file the store's manifests name cannot be read (missing, truncated, not Parquet): a
    503 naming the store and what to run; nothing is answered from a part of the history."""

    def __init__(self, root: Path, error: Exception) -> None:
        first = str(error).splitlines()[0][:300] if str(error) else type(error).__name__
        super().__init__(
            "Price store damaged",
            f"the price store at {root} cannot be read ({first}); the operator runs `computeatlas prices status` to see what is wrong",
        )


class Dataset:
    """The rows under ``root``: ``columns`` (name → DuckDB type), ``key`` (the columns naming
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
        stamps = (_mtime(self.runs_dir), _mtime(self.root / "compactions"))
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
        stamp = _mtime(self.runs_dir)
        if not stamp:
            return "#0"
        if known is not None and known[0] == stamp:
            return known[1]
        version = version_of(self.committed())
        self._version = (stamp, version)
        return version

    def _files(self, first: dt.date | None, last: dt.date | None) -> Files:
        """The files of the window, chosen by folder and file names and manifests (each file
        costs about a millisecond to open, so DuckDB opens only those); kept per listing."""
        runs, done = self._listing()
        if not runs:
            return Files()
        key = (str(self.root), runs, done, first, last)
        known = _LISTED.get(key)
        if known is None:
            known = active(self.root, runs, compactions(self.root), first, last)
            if len(_LISTED) >= LISTINGS_KEPT:
                _LISTED.clear()
            _LISTED[key] = known
        return known

    # --- writing ----------------------------------------------------------------------

    def append(self, rows: Sequence[BaseModel], run: str, manifest: dict[str, Any]) -> list[Path]:
        """Write ``rows`` as the new run ``run`` (all or nothing) and its ``manifest``; for a
        dataset of offers, the next current table too (named by ``current.json`` once the
        manifest is written).

        Holds the write lock (waiting up to its timeout; ``StoreBusy``) and first removes what
        killed writers left. Returns the run's Parquet files. Raises ``FileExistsError`` for a
        run id already committed and lets an ``OSError`` or ``duckdb.Error`` through after
        removing everything this call wrote."""
        with self.writing():
            return self._append(rows, run, manifest)

    def _append(self, rows: Sequence[BaseModel], run: str, manifest: dict[str, Any]) -> list[Path]:
        if (self.runs_dir / f"{run}.json").exists():
            raise FileExistsError(f"run {run} is already in the store at {self.root}")
        remove_leftovers(self.root, self.committed())  # a killed writer's; we hold the lock, so no one else's
        staging = self.root / STAGING / run
        moved: list[Path] = []
        current: Path | None = None
        try:
            staging.mkdir(parents=True)
            if rows:
                sources = json_chunks(rows, staging)
                columns = "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in self.columns.items()) + "}"
                out = staging / "out"
                with duckdb.connect() as con:
                    con.execute("SET TimeZone = 'UTC'")
                    con.execute(
                        f"COPY (SELECT *, CAST(collected AT TIME ZONE 'UTC' AS DATE) AS date FROM read_json([{', '.join(map(literal, sources))}], "
                        f"format = 'array', columns = {columns})) TO {literal(str(out))} "
                        f"(FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date), FILENAME_PATTERN {literal('part-' + run + '-{i}')})"
                    )
                for part in sorted(out.glob("date=*/*.parquet")):
                    target = self.observations_dir / part.parent.name / part.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(part, target)
                    moved.append(target)
            before = self.committed()
            facts = self._next_current(before, moved, staging, run) if self.offer else None
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

    def _next_current(self, before: tuple[str, ...], moved: list[Path], staging: Path, run: str) -> dict[str, Any]:
        """Write the current table that holds once ``moved`` (this run's files) are committed:
        from the previous one when it is fresh, else from the whole history; return the
        pointer's facts (with ``file``). Called under the write lock, before the manifest."""
        assert self.offer is not None
        previous = current_table.fresh(self.root, version_of(before)) if before else None
        if previous is not None and not moved:
            return dict(previous)  # nothing added: the same table, for the next version
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
                (self.root / current_table.POINTER).unlink(missing_ok=True)  # the whole history, not the old table
                facts = self._next_current(before, [], staging, stamp)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
            file = str(facts.pop("file"))
            current_table.point(self.root, file, version_of(before), facts)
            return {"file": file, **facts}

    def current_file(self) -> Path | None:
        """The current table's file when it is fresh (written for the store's committed runs); else None."""
        found = current_table.fresh(self.root, version_of(self.committed())) if self.offer else None
        return self.root / str(found["file"]) if found else None

    def current_pointer(self) -> dict[str, Any] | None:
        """The fresh current table's pointer (``file``, ``rows``, ``newest``, ``accelerators``), or None."""
        return current_table.fresh(self.root, version_of(self.committed())) if self.offer else None

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
        rows = RESULTS.get(key)
        if rows is None:
            try:
                with connection() as con:
                    rows = self._run(con, files, sql, params, accelerator, self.key, self._order, first, last)
            except duckdb.IOException:  # a compaction removed a file between the listing and the read: list again
                _LISTED.clear()
                _COMMITTED.clear()
                files = self._files(first, last)
                try:
                    with connection() as con:
                        rows = self._run(con, files, sql, params, accelerator, self.key, self._order, first, last)
                except (duckdb.IOException, duckdb.InvalidInputException) as exc:
                    raise StoreDamaged(self.root, exc) from None
            except duckdb.InvalidInputException as exc:  # a named file is not Parquet (truncated, overwritten)
                raise StoreDamaged(self.root, exc) from None
            RESULTS.put(key, rows)
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
                con.execute(f"SET search_path = '{_schema(con, files, self.key, self._order, None, first, last)}'")
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
        rows = RESULTS.get(key)
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
            RESULTS.put(key, rows)
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
            con.execute(f"SET search_path = '{_schema(con, files, key, order, accelerator, first, last)}'")
        cursor = con.execute(sql, list(params))
        names = [d[0] for d in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def compact(self, period: str | None = None) -> list[Any]:
        """Compact ``period`` (``YYYY-MM`` or ``YYYY-MM-DD``; None: every month with run files)
        without changing any answer (:func:`computeatlas.cloud.compaction.compact`, whose
        errors it raises)."""
        from computeatlas.cloud.compaction import compact

        return compact(self, period)


SCHEMAS_KEPT = 64
"""How many sets of views (one schema per files, key, window and part) the process's database keeps."""

_SCHEMAS: OrderedDict[tuple[object, ...], str] = OrderedDict()
_SCHEMAS_LOCK = threading.Lock()


def _schema(
    con: duckdb.DuckDBPyConnection,
    files: Files,
    key: Sequence[str],
    order: str,
    accelerator: str | None,
    first: dt.date | None,
    last: dt.date | None,
) -> str:
    """The schema of the process's database holding the views over ``files`` (created on first
    use, least recently used dropped beyond :data:`SCHEMAS_KEPT`): binding the views reads
    every file's footer, so a page's questions over the same files bind them once."""
    ident = (files, tuple(key), order, accelerator, first, last)
    with _SCHEMAS_LOCK:
        name = _SCHEMAS.get(ident)
        if name is not None:
            _SCHEMAS.move_to_end(ident)
            return name
        name = "views_" + hashlib.sha1(repr(ident).encode(), usedforsecurity=False).hexdigest()[:20]
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {name}")
        define(con, files, key, order, accelerator, first, last, monthly=tuple(key) == _RENTAL_KEY, schema=name)
        _SCHEMAS[ident] = name
        while len(_SCHEMAS) > SCHEMAS_KEPT:
            _, dropped = _SCHEMAS.popitem(last=False)
            con.execute(f"DROP SCHEMA IF EXISTS {dropped} CASCADE")
        return name


def version_of(committed: Sequence[str]) -> str:
    """The version string of a store whose committed runs are ``committed`` (sorted ids)."""
    return ",".join(committed)[-64:] + f"#{len(committed)}" if committed else "#0"


__all__ = ["LISTINGS_KEPT", "SCHEMAS_KEPT", "VERSION_RECHECK_SECONDS", "Dataset", "StoreDamaged", "version_of"]

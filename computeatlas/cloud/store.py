"""The observation store: append-only, date-partitioned Parquet files queried with DuckDB.

Layout under the store folder (:attr:`~computeatlas.core.settings.Settings.prices_dir`;
the bundled history is ``data/prices``, production keeps it outside the repository)::

    observations/date=YYYY-MM-DD/part-<run>-<n>.parquet   one file per import run and day
    runs/<run>.json                                         the run's manifest, written last

Why this shape:

- **Parquet, partitioned by collection date (hive layout).** Observations grow without bound
  (hourly collections from 30 providers are ~10 million rows a year). Columnar files
  compress the repeated text well, a query reads only the columns and the days it needs,
  and the ``date=`` folders are the layout Spark, Trino, Athena or DuckDB read unchanged
  when one machine is no longer enough.
- **DuckDB, on demand.** Nothing is loaded at server start: each query takes a cursor on the
  process's in-memory DuckDB database over the files (:mod:`computeatlas.cloud.engine`, which
  also keeps recent answers, bounded), so start time and memory do not grow with history.
  DuckDB also writes the Parquet (no pyarrow needed).
- **Append-only, atomic runs.** An import writes its files into a staging folder, moves
  them into place and then writes its manifest with an atomic rename. Readers see only
  runs with a manifest, so a failed or interrupted import changes nothing visible, and a
  new import is picked up by the next query without a restart. No file is ever rewritten.
- **One writer at a time** (:mod:`computeatlas.cloud.writers`): every writer holds an OS
  lock on ``<store>/.lock``, released by the kernel if the process dies; an import holds it
  from reading what is stored until its manifest is written. Leftovers of killed writers
  (Parquet files no manifest names, staging folders) are never read, are listed by
  :meth:`Store.leftovers` and removed under the lock before every append.
- **Decisions are rows too.** The same observation (:meth:`Observation.key`) may be stored
  again by a later run only when our decision about it changed (e.g. a newly sourced
  instance row places it); queries take the newest run's row per key. A row held as a
  ``conflict`` (same key, another price than the stored *accepted* row) never replaces the
  stored one; a held row never blocks a later accepted one (within one run, an accepted row
  is chosen over a held one).

Units: ``amount`` as published; ``per_accelerator_hour`` in the row's currency per
accelerator-hour. Times are UTC.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import shutil
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import duckdb
from pydantic import BaseModel

from computeatlas.cloud.engine import RESULT_CACHE_ROWS, RESULT_MAX_ROWS, RESULTS, connection
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.writers import (
    LOCK_NAME,
    LOCK_TIMEOUT_SECONDS,
    STAGING,
    Leftovers,
    StoreBusy,
    leftovers,
    remove_leftovers,
    run_of,
    write_lock,
)

_LISTS = ("rules", "reasons", "qualifiers")
_TYPES = {
    "provider": "VARCHAR", "instance_type": "VARCHAR", "region": "VARCHAR", "pricing": "VARCHAR", "term": "VARCHAR",
    "amount": "DOUBLE", "currency": "VARCHAR", "unit": "VARCHAR", "price_basis": "VARCHAR", "stated_accelerators": "INTEGER",
    "stated_memory_gb": "DOUBLE", "stated_per_accelerator": "DOUBLE", "collected": "TIMESTAMPTZ", "source_url": "VARCHAR",
    "source_title": "VARCHAR", "via": "VARCHAR", "availability": "VARCHAR", "note": "VARCHAR", "raw_extra": "VARCHAR",
    "accelerator": "VARCHAR", "variant": "VARCHAR", "accelerators": "INTEGER", "billing": "VARCHAR", "status": "VARCHAR",
    "rules": "VARCHAR[]", "reasons": "VARCHAR[]", "qualifiers": "VARCHAR[]", "per_accelerator_hour": "DOUBLE", "run": "VARCHAR",
}
KEY = ("provider", "instance_type", "region", "pricing", "term", "collected")
LATEST_ORDER = "run DESC, status = 'accepted' DESC, amount"
"""Which row of an observation key is its newest decision: the newest run's, and within one
run an accepted row before a held one."""
OFFER = ("provider", "instance_type", "region", "pricing", "term")


VERSION_RECHECK_SECONDS = 1.0
"""How long :meth:`Store.version` trusts its last look at the runs folder."""

LISTINGS_KEPT = 256
"""How many file listings (:meth:`Store._files`, one per store, committed runs and date window) are kept."""

_LISTED: dict[tuple[str, tuple[str, ...], dt.date | None, dt.date | None], tuple[Path, ...]] = {}


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class Store:
    """The observations under ``root``. Every query takes its own cursor on one in-process DuckDB database.

    ``columns`` (name → DuckDB type) and ``key`` (the columns that identify one observation)
    default to the rental observations' (:class:`~computeatlas.cloud.observations.Observation`);
    a sibling dataset in the same format passes its own (the per-token market prices of
    :mod:`computeatlas.economics.token_prices` do), and its rows must carry ``rules`` and ``run``.
    The rental-specific queries (:meth:`current`, :meth:`history`, :meth:`pool` …) read the
    rental columns; :meth:`query`, :meth:`append`, :meth:`runs` and :meth:`version` work for any.
    """

    def __init__(self, root: Path, columns: Mapping[str, str] | None = None, key: Sequence[str] = KEY) -> None:
        self.root = Path(root)
        self.columns = dict(columns or _TYPES)
        self.key = tuple(key)
        self._version: tuple[int, str] | None = None  # (runs folder's mtime in ns, version)
        self._checked = -1.0  # time.monotonic() of the last stat
        self._unshared: tuple[dt.datetime, dt.datetime] | None = None  # a window whose rows of every part were too many to keep

    @property
    def observations_dir(self) -> Path:
        """Where the date partitions live."""
        return self.root / "observations"

    @property
    def runs_dir(self) -> Path:
        """Where the run manifests live."""
        return self.root / "runs"

    def runs(self) -> list[dict[str, Any]]:
        """Every committed run's manifest, oldest first (one that is not readable JSON is
        left out: :meth:`leftovers` names it)."""
        if not self.runs_dir.is_dir():
            return []
        out = []
        for path in sorted(self.runs_dir.glob("*.json")):
            try:
                manifest = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                continue
            if isinstance(manifest, dict):
                out.append({"run": path.stem, **manifest})
        return out

    # --- one writer at a time, and what a killed one left (computeatlas.cloud.writers) -----

    def writing(self, timeout: float = LOCK_TIMEOUT_SECONDS,
                on_wait: Callable[[str], None] | None = None) -> contextlib.AbstractContextManager[None]:
        """The store's write lock for a ``with`` block (:func:`~computeatlas.cloud.writers.write_lock`):
        every writer holds it; raises :class:`StoreBusy` after ``timeout`` seconds; ``on_wait``
        is told the lock file while another writer holds it."""
        return write_lock(self.root, timeout, on_wait)

    def leftovers(self) -> Leftovers:
        """What killed or failed writers left (:class:`~computeatlas.cloud.writers.Leftovers`)."""
        return leftovers(self.root, self._committed())

    def remove_leftovers(self, timeout: float = LOCK_TIMEOUT_SECONDS) -> list[Path]:
        """Remove, under the write lock, the Parquet files no manifest names and the staging
        folder's entries; return what was removed."""
        with self.writing(timeout):
            return remove_leftovers(self.root, self._committed())

    def files(self) -> list[Path]:
        """Every Parquet file of a committed run (for exports that read the whole store)."""
        return self._files(None, None)

    def version(self) -> str:
        """The committed runs in one short string: it changes when an import commits (a
        directory listing, no Parquet read), so a cache keyed on it never serves old prices.
        The listing is redone only when the runs folder's modification time changes, and the
        folder is looked at no more than once every :data:`VERSION_RECHECK_SECONDS` (the page
        cache asks on every request): a new import shows within that time."""
        known = self._version
        now = time.monotonic()
        if known is not None and now - self._checked < VERSION_RECHECK_SECONDS:
            return known[1]
        self._checked = now
        try:
            stamp = os.stat(self.runs_dir).st_mtime_ns  # a manifest added or removed changes it
        except FileNotFoundError:
            return "#0"
        if known is not None and known[0] == stamp:
            return known[1]
        committed = self._committed()
        version = ",".join(committed)[-64:] + f"#{len(committed)}"
        self._version = (stamp, version)
        return version

    def _committed(self) -> list[str]:
        return sorted(p.stem for p in self.runs_dir.glob("*.json")) if self.runs_dir.is_dir() else []

    def _files(self, first: dt.date | None, last: dt.date | None) -> list[Path]:
        """The Parquet files of committed runs in the date partitions between ``first`` and
        ``last`` (inclusive; None = unbounded), chosen by folder and file name, so DuckDB
        opens only those (each file costs about a millisecond to open)."""
        committed = tuple(self._committed())
        if not committed or not self.observations_dir.is_dir():
            return []
        # A committed run's files are in place before its manifest and never change after, so
        # the committed runs decide which files a window holds: the listing is kept per runs.
        key = (str(self.root), committed, first, last)
        known = _LISTED.get(key)
        if known is not None:
            return list(known)
        runs = set(committed)
        low, high = f"date={first.isoformat()}" if first else "", f"date={last.isoformat()}" if last else "date=~"
        chosen = []
        for folder in sorted(self.observations_dir.iterdir()):
            if folder.name.startswith("date=") and low <= folder.name <= high:
                chosen += [p for p in sorted(folder.glob("part-*.parquet")) if run_of(p) in runs]
        if len(_LISTED) >= LISTINGS_KEPT:
            _LISTED.clear()
        _LISTED[key] = tuple(chosen)
        return chosen

    # --- writing ----------------------------------------------------------------------

    def append(self, rows: Sequence[BaseModel], run: str, manifest: dict[str, Any]) -> list[Path]:
        """Write ``rows`` as the new run ``run`` (all or nothing) and its ``manifest``.

        Holds the write lock (:meth:`writing`, waiting up to its timeout; :class:`StoreBusy`)
        and first removes what killed writers left. Returns the Parquet files written. Raises
        ``FileExistsError`` for a run id already committed and lets an ``OSError`` or
        ``duckdb.Error`` through after removing everything this call wrote.
        """
        with self.writing():
            return self._append(rows, run, manifest)

    def _append(self, rows: Sequence[BaseModel], run: str, manifest: dict[str, Any]) -> list[Path]:
        if (self.runs_dir / f"{run}.json").exists():
            raise FileExistsError(f"run {run} is already in the store at {self.root}")
        remove_leftovers(self.root, self._committed())  # a killed writer's; we hold the lock, so no one else's
        staging = self.root / STAGING / run
        moved: list[Path] = []
        try:
            staging.mkdir(parents=True)
            if rows:
                source = staging / "rows.ndjson"
                with source.open("w", encoding="utf-8") as handle:
                    for obs in rows:
                        handle.write(obs.model_dump_json() + "\n")
                columns = "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in self.columns.items()) + "}"
                out = staging / "out"
                with duckdb.connect() as con:
                    con.execute("SET TimeZone = 'UTC'")
                    con.execute(
                        f"COPY (SELECT *, CAST(collected AT TIME ZONE 'UTC' AS DATE) AS date FROM read_json({_literal(str(source))}, "
                        f"format = 'newline_delimited', columns = {columns})) TO {_literal(str(out))} "
                        f"(FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date), FILENAME_PATTERN {_literal('part-' + run + '-{i}')})"
                    )
                for part in sorted(out.glob("date=*/*.parquet")):
                    target = self.observations_dir / part.parent.name / part.name
                    target.parent.mkdir(parents=True, exist_ok=True)
                    os.replace(part, target)
                    moved.append(target)
            self.runs_dir.mkdir(parents=True, exist_ok=True)
            temp = staging / "manifest.json"
            temp.write_text(json.dumps({**manifest, "run": run, "files": [str(p.relative_to(self.root)) for p in moved]},
                                       indent=1, sort_keys=True, default=str), encoding="utf-8")
            os.replace(temp, self.runs_dir / f"{run}.json")
        except BaseException:
            for path in moved:
                path.unlink(missing_ok=True)
            raise
        finally:
            shutil.rmtree(staging, ignore_errors=True)  # the .staging folder itself stays: another writer may use it next
        return moved

    # --- reading ----------------------------------------------------------------------

    def query(self, sql: str, params: Sequence[object] = (), first: dt.date | None = None, last: dt.date | None = None,
              accelerator: str | None = None) -> list[dict[str, Any]]:
        """Run ``sql`` over the view ``obs`` (every committed row) and ``latest`` (the newest
        run's row per observation key, conflicts left out); rows as dicts. Empty store: [].

        ``first``/``last`` bound the collection dates read (inclusive): only those date
        partitions are scanned, which keeps a query on a long history fast. (Dates are part
        of the key, so bounding them never changes which row is the newest per key.)
        ``accelerator`` narrows ``latest`` to the observations that were ever placed on it
        before the newest row per key is chosen (so a re-placement is still honoured); the
        caller still filters the newest rows on it.
        """
        files = self._files(first, last)
        if not files:
            return []
        # The files read decide the answer: they are never rewritten, and a new run adds
        # files (or is not yet committed), so a result is reused only for the same files
        # (recently used results are kept per process, see RESULT_CACHE_ROWS).
        order = LATEST_ORDER if "amount" in self.columns else "run DESC, status = 'accepted' DESC"
        key = (tuple(files), sql, tuple(params), accelerator, tuple(self.key), order)
        rows = RESULTS.get(key)
        if rows is None:
            with connection() as con:
                rows = self._run(con, files, sql, params, accelerator, self.key, order)
            RESULTS.put(key, rows)
        return [dict(row) for row in rows]

    @staticmethod
    def _run(con: duckdb.DuckDBPyConnection, files: list[Path], sql: str, params: Sequence[object],
             accelerator: str | None, key: Sequence[str] = KEY, order: str = LATEST_ORDER) -> list[dict[str, Any]]:
        """:meth:`query` on the cursor ``con``: the two views over ``files``, then ``sql``."""
        con.execute("SET TimeZone = 'UTC'")
        listed = "[" + ", ".join(_literal(str(p)) for p in files) + "]"
        con.execute(f"CREATE OR REPLACE TEMP VIEW obs AS SELECT * FROM read_parquet({listed}, hive_partitioning = true, "
                    f"hive_types = {{'date': DATE}}, union_by_name = true)")
        source = "obs"
        if accelerator is not None:
            source = (f"(SELECT o.* FROM obs o SEMI JOIN (SELECT DISTINCT {', '.join(key)} FROM obs WHERE accelerator = "
                      f"{_literal(accelerator)}) k USING ({', '.join(key)}))")
        con.execute(f"CREATE OR REPLACE TEMP VIEW latest AS SELECT * FROM {source} WHERE NOT list_contains(rules, 'conflict') "
                    f"QUALIFY row_number() OVER (PARTITION BY {', '.join(key)} ORDER BY {order}) = 1")
        cursor = con.execute(sql, list(params))
        names = [d[0] for d in cursor.description or []]
        return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]

    def stored_keys(self, providers: Iterable[str], first: dt.date, last: dt.date) -> dict[tuple[str, ...], dict[str, Any]]:
        """The newest stored row (conflicts left out) per key of ``providers`` collected
        between ``first`` and ``last`` (dates, inclusive): for deduplication."""
        names = sorted(set(providers))
        if not names:
            return {}
        marks = ", ".join("?" for _ in names)
        rows = self.query(f"SELECT * FROM latest WHERE provider IN ({marks})", names, first, last)
        return {_key(r): r for r in rows}

    def stored_conflicts(self, providers: Iterable[str], first: dt.date | None = None,
                         last: dt.date | None = None) -> set[tuple[tuple[str, ...], tuple[object, ...]]]:
        """(key, (amount, currency, unit, price_basis)) of every stored conflict row of
        ``providers`` collected between ``first`` and ``last``."""
        names = sorted(set(providers))
        if not names:
            return set()
        marks = ", ".join("?" for _ in names)
        rows = self.query(f"SELECT * FROM obs WHERE list_contains(rules, 'conflict') AND provider IN ({marks})", names, first, last)
        return {(_key(r), (float(r["amount"]), r["currency"], r["unit"], r["price_basis"])) for r in rows}

    def pool(self, accelerators: Iterable[str], since: dt.datetime, until: dt.datetime) -> list[dict[str, Any]]:
        """Accepted rows with a price per accelerator-hour of ``accelerators`` collected in
        [``since``, ``until``]: the band's stored share."""
        names = sorted(set(accelerators))
        if not names:
            return []
        marks = ", ".join("?" for _ in names)
        return self.query(
            f"SELECT accelerator, pricing, collected, currency, per_accelerator_hour, provider FROM latest WHERE status = 'accepted' "
            f"AND per_accelerator_hour IS NOT NULL AND accelerator IN ({marks}) AND collected BETWEEN ? AND ?",
            [*names, since, until], since.date(), until.date())

    def current(self, accelerator: str | None, now: dt.datetime, freshness_days: int) -> list[dict[str, Any]]:
        """The newest accepted observation of each offer (provider, instance, region,
        pricing, term) collected within ``freshness_days`` before ``now``.

        The window ends at ``now`` rounded up to the whole minute (no stored row is collected
        after its import, so that adds nothing) and starts ``freshness_days`` before that: the
        pages of one minute ask the same question, and :meth:`query` answers it once."""
        now = _minute_up(now)
        return self.newest(now - dt.timedelta(days=freshness_days), now, accelerator)

    def newest(self, since: dt.datetime | None, until: dt.datetime, accelerator: str | None = None) -> list[dict[str, Any]]:
        """The newest accepted observation of each offer (provider, instance, region, pricing,
        term) collected in [``since``, ``until``] (``since`` None: from the first), of
        ``accelerator`` or of every part; only those date partitions are read.

        The window is rounded up to whole minutes (no stored row is collected after its
        import), so the pages of one minute ask one question and :meth:`query` answers it once.
        For one part in a bounded window (the current prices of an accelerator page), the
        newest rows of every part are read once and kept (:data:`RESULT_CACHE_ROWS`) and this
        part's are picked from them, so a hundred pages of one minute ask one question; an
        offer whose newest row places it on another part is then not this part's. When every
        part's rows are too many to keep, each part is asked on its own."""
        since, until = (_minute_up(since) if since is not None else None), _minute_up(until)
        if accelerator is not None and since is not None and (since, until) != self._unshared:
            every = self.newest(since, until)
            if len(every) <= RESULT_MAX_ROWS:
                return [row for row in every if row["accelerator"] == accelerator]
            self._unshared = (since, until)
        where = ("AND collected >= ? " if since else "") + ("AND accelerator = ?" if accelerator else "")
        params: list[object] = [until, *([since] if since else []), *([accelerator] if accelerator else [])]
        return self.query(
            f"SELECT * FROM latest WHERE status = 'accepted' AND collected <= ? {where} "
            f"QUALIFY row_number() OVER (PARTITION BY {', '.join(OFFER)} ORDER BY collected DESC) = 1 "
            "ORDER BY accelerator, per_accelerator_hour, provider, instance_type, region, pricing, term",  # total: one row per offer
            params, since.date() if since else None, until.date(), accelerator)

    def variants_of(self, accelerator: str) -> frozenset[str]:
        """The variant keys stated by ``accelerator``'s accepted observations, ever ('' for not stated)."""
        if accelerator not in self.observed_accelerators():
            return frozenset()
        rows = self.query("SELECT DISTINCT variant FROM latest WHERE status = 'accepted' AND accelerator = ?", [accelerator],
                          accelerator=accelerator)
        return frozenset(r["variant"] or "" for r in rows)

    def observed_accelerators(self) -> frozenset[str]:
        """Every part with at least one accepted observation, ever (one small query, kept)."""
        return frozenset(r["accelerator"] for r in self.query(
            "SELECT DISTINCT accelerator FROM latest WHERE status = 'accepted' AND accelerator IS NOT NULL"))

    def _filters(self, accelerator: str, equal: dict[str, str | None]) -> tuple[list[str], list[object]]:
        clauses, params = ["status = 'accepted'", "accelerator = ?"], [accelerator]
        for column, value in equal.items():
            if value is not None:
                if column not in ("provider", "pricing", "variant", "region"):
                    raise ValueError(f"history cannot filter on {column!r}")
                clauses.append(f"{column} = ?")
                params.append(value)
        return clauses, params

    def history(self, accelerator: str, since: dt.date | None = None, until: dt.date | None = None,
                limit: int | None = None, **equal: str | None) -> list[dict[str, Any]]:
        """Accepted observations of ``accelerator`` collected between ``since`` and ``until``
        (dates, inclusive), oldest first (the newest ``limit`` when given); ``equal``
        filters on columns (provider, pricing, variant, region) when a value is given."""
        clauses, params = self._filters(accelerator, equal)
        if accelerator not in self.observed_accelerators():  # never observed: nothing to read (most parts of the catalog)
            return []
        sql = f"SELECT * FROM latest WHERE {' AND '.join(clauses)}"
        if limit:
            sql = f"SELECT * FROM ({sql} ORDER BY collected DESC, provider, instance_type, region, pricing, term LIMIT {int(limit)})"
        # Ordered by the whole key (one row per key), so the same rows always come in the same order.
        return self.query(f"{sql} ORDER BY collected, provider, instance_type, region, pricing, term", params, since, until, accelerator)

    def series(self, accelerator: str, since: dt.date | None = None, until: dt.date | None = None,
               **equal: str | None) -> list[dict[str, Any]]:
        """Per collection date and provider, the median on-demand USD price per accelerator-hour
        of ``accelerator`` and the number of observations behind it; computed by DuckDB, not in
        Python. There is no median over all providers: the providers seen differ from one date
        to the next, so such a line would move with the set, not with prices."""
        clauses, params = self._filters(accelerator, {**equal, "pricing": "on_demand"})
        if accelerator not in self.observed_accelerators():
            return []
        clauses += ["currency = 'USD'", "per_accelerator_hour IS NOT NULL"]
        return self.query(
            f"SELECT date, provider, median(per_accelerator_hour) AS median, count(*) AS observations "
            f"FROM latest WHERE {' AND '.join(clauses)} GROUP BY date, provider ORDER BY date, provider",
            params, since, until, accelerator)

    def held(self, run: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Held rows for the operator (every stored held row, conflicts included), newest first."""
        where, params = ("AND run = ?", [run]) if run else ("", [])
        tail = f" LIMIT {int(limit)}" if limit else ""
        return self.query(f"SELECT * FROM obs WHERE status = 'held' {where} ORDER BY collected DESC, provider, instance_type{tail}", params)

    def count(self) -> dict[str, int]:
        """Rows stored by status (the newest decision per key)."""
        return {r["status"]: r["n"] for r in self.query("SELECT status, count(*) AS n FROM latest GROUP BY status")}


def _minute_up(moment: dt.datetime) -> dt.datetime:
    """``moment`` rounded up to the whole minute (a window's end: queries of one minute match)."""
    whole = moment.replace(second=0, microsecond=0)
    return whole if whole == moment else whole + dt.timedelta(minutes=1)


def _key(row: dict[str, Any]) -> tuple[str, ...]:
    collected = row["collected"]
    if isinstance(collected, dt.datetime):
        collected = collected.astimezone(dt.UTC).isoformat()
    return (row["provider"], row["instance_type"], row["region"], row["pricing"], row["term"], collected)


_OBSERVATION_FIELDS = frozenset(Observation.model_fields)  # read once: the class property costs a call per lookup


def observation_of(row: dict[str, Any]) -> Observation:
    """A stored row as an :class:`Observation` again."""
    data = {k: v for k, v in row.items() if k in _OBSERVATION_FIELDS}
    for name in _LISTS:
        data[name] = tuple(data.get(name) or ())
    return Observation.model_validate(data)


__all__ = ["KEY", "LATEST_ORDER", "LOCK_NAME", "LOCK_TIMEOUT_SECONDS", "OFFER", "Leftovers", "Store", "StoreBusy", "observation_of"]

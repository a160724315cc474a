"""The observation store: append-only, date-partitioned Parquet files queried with DuckDB.

Layout under the store folder (:attr:`~computeatlas.core.settings.Settings.prices_dir`;
the bundled history is ``data/prices``, production keeps it outside the repository)::

    observations/date=YYYY-MM-DD/part-<run>-<n>.parquet   one file per import run and day
    runs/<run>.json                                         the run's manifest, written last
    compacted/period=<P>/part-<id>.parquet, compactions/    a month's (or day's) runs as one sorted file
    current/current-<run>.parquet, current.json             the newest accepted row of every offer

(:mod:`computeatlas.cloud.layout`; the generic part is :class:`computeatlas.cloud.dataset.Dataset`).

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
- **The current state kept, not recomputed** (:mod:`computeatlas.cloud.current_table`):
  every import also writes the newest accepted row of every offer, so current prices of one
  part or of the whole market are a read of a small table, whatever the history's length.
- **Compaction** (:mod:`computeatlas.cloud.compaction`, ``computeatlas prices compact``):
  a month's run files rewritten as one file sorted by accelerator and time, the same rows, so
  a part's history over a year opens a dozen files and reads its own row groups.
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

import datetime as dt
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from computeatlas.cloud.engine import RESULT_MAX_ROWS
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.part_history import PartHistory

_LISTS = ("rules", "reasons", "qualifiers")
COLUMN_TYPES = {
    "provider": "VARCHAR",
    "instance_type": "VARCHAR",
    "region": "VARCHAR",
    "pricing": "VARCHAR",
    "term": "VARCHAR",
    "amount": "DOUBLE",
    "currency": "VARCHAR",
    "unit": "VARCHAR",
    "price_basis": "VARCHAR",
    "stated_accelerators": "INTEGER",
    "stated_memory_gb": "DOUBLE",
    "stated_per_accelerator": "DOUBLE",
    "collected": "TIMESTAMPTZ",
    "source_url": "VARCHAR",
    "source_title": "VARCHAR",
    "via": "VARCHAR",
    "availability": "VARCHAR",
    "note": "VARCHAR",
    "raw_extra": "VARCHAR",
    "accelerator": "VARCHAR",
    "variant": "VARCHAR",
    "accelerators": "INTEGER",
    "billing": "VARCHAR",
    "status": "VARCHAR",
    "rules": "VARCHAR[]",
    "reasons": "VARCHAR[]",
    "qualifiers": "VARCHAR[]",
    "per_accelerator_hour": "DOUBLE",
    "run": "VARCHAR",
}
"""The DuckDB type of every column of a stored observation row (the run files, the current table and the batch tables of an import)."""
KEY = ("provider", "instance_type", "region", "pricing", "term", "collected")
LATEST_ORDER = "run DESC, status = 'accepted' DESC, amount"
"""Which row of an observation key is its newest decision: the newest run's, and within one
run an accepted row before a held one."""
OFFER = ("provider", "instance_type", "region", "pricing", "term")


class Store(PartHistory):
    """The rental-price observations under ``root``. Every query takes its own cursor on one in-process DuckDB database.

    ``columns`` (name → DuckDB type) and ``key`` (the columns that identify one observation)
    default to the rental observations' (:class:`~computeatlas.cloud.observations.Observation`),
    whose store keeps the current table; a sibling dataset in the same format passes its own
    (the per-token market prices of :mod:`computeatlas.economics.token_prices` do), and its
    rows must carry ``rules`` and ``run``. The rental-specific queries (:meth:`current`,
    :meth:`history` and the other reads of one part's history in
    :class:`~computeatlas.cloud.part_history.PartHistory`, :meth:`pool` …) read the rental columns; :meth:`query`, :meth:`append`,
    :meth:`runs`, :meth:`compact` and :meth:`version` work for any.
    """

    def __init__(self, root: Path, columns: Mapping[str, str] | None = None, key: Sequence[str] = KEY) -> None:
        rental = columns is None
        columns = dict(columns or COLUMN_TYPES)
        order = LATEST_ORDER if "amount" in columns else "run DESC, status = 'accepted' DESC"
        cluster = ("accelerator", "collected") if "accelerator" in columns else (*key[:-1], "collected")
        super().__init__(root, columns, key, order, cluster, OFFER if rental else None)
        self._unshared: tuple[dt.datetime, dt.datetime] | None = None  # a window whose rows of every part were too many to keep

    def stored_keys(self, providers: Iterable[str], first: dt.date, last: dt.date) -> dict[tuple[str, ...], dict[str, Any]]:
        """The newest stored row (conflicts left out) per key of ``providers`` collected
        between ``first`` and ``last`` (dates, inclusive): for deduplication."""
        names = sorted(set(providers))
        if not names:
            return {}
        marks = ", ".join("?" for _ in names)
        rows = self.query(f"SELECT * FROM latest WHERE provider IN ({marks})", names, first, last)
        return {_key(r): r for r in rows}

    def stored_conflicts(
        self, providers: Iterable[str], first: dt.date | None = None, last: dt.date | None = None
    ) -> set[tuple[tuple[str, ...], tuple[object, ...]]]:
        """(key, (amount, currency, unit, price_basis)) of every stored conflict row of
        ``providers`` collected between ``first`` and ``last``."""
        names = sorted(set(providers))
        if not names:
            return set()
        marks = ", ".join("?" for _ in names)
        rows = self.query(f"SELECT * FROM obs WHERE list_contains(rules, 'conflict') AND provider IN ({marks})", names, first, last)
        return {(_key(r), (float(r["amount"]), r["currency"], r["unit"], r["price_basis"])) for r in rows}

    def pool(self, accelerators: Iterable[str], since: dt.datetime, until: dt.datetime) -> list[tuple[Any, ...]]:
        """The band's stored share: the accepted rows with a price per accelerator-hour of
        ``accelerators`` collected in [``since``, ``until``], counted by equal values, as tuples
        (accelerator, pricing, collected (aware UTC), currency, per_accelerator_hour, provider,
        rows): real prices repeat, so a window of a million stored rows is a few thousand tuples."""
        names = sorted(set(accelerators))
        if not names:
            return []
        marks = ", ".join("?" for _ in names)
        found = self.fetch(
            f"SELECT accelerator, pricing, CAST(collected AS TIMESTAMP), currency, per_accelerator_hour, provider, count(*) FROM latest "
            f"WHERE status = 'accepted' AND per_accelerator_hour IS NOT NULL AND accelerator IN ({marks}) AND collected BETWEEN ? AND ? "
            "GROUP BY ALL",
            [*names, since, until],
            since.date(),
            until.date(),
        )
        return [(acc, pricing, when.replace(tzinfo=dt.UTC), *rest) for acc, pricing, when, *rest in found]  # UTC wall time read as such

    def current(
        self, accelerator: str | None, now: dt.datetime, freshness_days: int, columns: Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """The newest accepted observation of each offer (provider, instance, region,
        pricing, term) collected within ``freshness_days`` before ``now``; ``columns`` as
        :meth:`newest` takes them (``ValueError`` for one the store does not have).

        The window ends at ``now`` rounded up to the whole minute (no stored row is collected
        after its import, so that adds nothing) and starts ``freshness_days`` before that: the
        pages of one minute ask the same question, and :meth:`query` answers it once."""
        now = _minute_up(now)
        return self.newest(now - dt.timedelta(days=freshness_days), now, accelerator, columns)

    def current_counts(self, now: dt.datetime, freshness_days: int, by: Sequence[str]) -> list[dict[str, Any]]:
        """How many current offers (as :meth:`current` lists them for every part) have each
        ``accelerator`` and value of the columns ``by``: rows of those columns and ``offers``
        (a count), in no set order; counted by DuckDB over the current table when it answers,
        else in Python over :meth:`current`'s rows. Raises ``ValueError`` for a column the store
        does not have."""
        self._selected(by)  # raises for an unknown column
        keys = list(dict.fromkeys(n for n in ("accelerator", *by) if n != "collected"))
        until = _minute_up(now)
        since = until - dt.timedelta(days=freshness_days)
        if self._table_answers(until):
            found = self.query_current(
                f"SELECT {', '.join(keys)}, count(*) AS offers FROM current WHERE collected <= ? AND collected >= ? GROUP BY ALL",
                [until, since],
                zoned=False,
            )
            if found is not None:
                return found
        counted = Counter(tuple(r[k] for k in keys) for r in self.current(None, now, freshness_days, columns=by))
        return [{**dict(zip(keys, values, strict=True)), "offers": n} for values, n in counted.items()]

    def _table_answers(self, until: dt.datetime) -> bool:
        """True when the current table is fresh and ``until`` is not before its newest row."""
        table = self.current_pointer()
        return table is not None and (table["newest"] is None or dt.datetime.fromisoformat(table["newest"]) <= until)

    def newest(
        self,
        since: dt.datetime | None,
        until: dt.datetime,
        accelerator: str | None = None,
        columns: Sequence[str] | None = None,
        parts: Collection[str] | None = None,
    ) -> list[dict[str, Any]]:
        """The newest accepted observation of each offer (provider, instance, region, pricing,
        term) collected in [``since``, ``until``] (``since`` None: from the first), of
        ``accelerator`` or of every part: an offer whose newest row places it on another part
        is not this part's. ``columns`` (stored column names; ``accelerator`` and ``collected``
        are always read) narrows each row to what the caller reads, and ``parts`` (accelerator
        ids) keeps only the offers whose newest row is on one of them: both are asked of DuckDB,
        so a caller that shows a few parts of a large market converts only their rows. Raises
        ``ValueError`` for a column the store does not have.

        A read of the current table (:mod:`computeatlas.cloud.current_table`) when it is fresh
        and ``until`` is not before its newest row; otherwise the history is asked (only the
        window's files). The window is rounded up to whole minutes (no stored row is
        collected after its import), so the pages of one minute ask one question and the
        answer is kept. Asking the history for one part in a bounded window, the newest rows
        of every part are read once and kept and this part's picked from them, unless they
        are too many to keep (:data:`~computeatlas.cloud.engine.RESULT_MAX_ROWS`)."""
        since, until = (_minute_up(since) if since is not None else None), _minute_up(until)
        order = "ORDER BY accelerator, per_accelerator_hour, provider, instance_type, region, pricing, term"  # total: one row per offer
        where = ("AND collected >= ? " if since else "") + ("AND accelerator = ?" if accelerator else "")
        params: list[object] = [until, *([since] if since else []), *([accelerator] if accelerator else [])]
        picked, named = self._selected(columns), sorted(set(parts)) if parts is not None else None
        among = f"accelerator IN ({', '.join('?' for _ in named)})" if named else "FALSE"
        if self._table_answers(until):
            if accelerator is None:  # the whole market: the table read once (and kept), whatever the window
                found = self.query_current(
                    f"SELECT {picked} FROM current {'WHERE ' + among if named is not None else ''} {order}", named or ()
                )
                if found is not None:
                    return [r for r in found if r["collected"] <= until and (since is None or r["collected"] >= since)]
            else:
                found = self.query_current(
                    f"SELECT {picked} FROM current WHERE collected <= ? {where} {'AND ' + among if named is not None else ''} {order}",
                    [*params, *(named or ())],
                )
                if found is not None:
                    return found
        if accelerator is not None and since is not None and (since, until) != self._unshared:
            every = self.newest(since, until, columns=columns, parts=parts)
            if len(every) <= RESULT_MAX_ROWS:
                return [row for row in every if row["accelerator"] == accelerator]
            self._unshared = (since, until)
        window = "AND collected >= ?" if since else ""
        offers = ", ".join(OFFER)
        # Newest per offer over every part, then this part's: an offer placed again on another part is not this one's.
        ever = f"AND ({offers}) IN (SELECT ({offers}) FROM latest WHERE accelerator = ?)" if accelerator else ""
        outer = [*(["accelerator = ?"] if accelerator else []), *([among] if named is not None else [])]
        return self.query(
            f"SELECT {picked} FROM (SELECT * FROM latest WHERE status = 'accepted' AND collected <= ? {window} {ever} "
            f"QUALIFY row_number() OVER (PARTITION BY {offers} ORDER BY collected DESC) = 1) "
            f"{'WHERE ' + ' AND '.join(outer) if outer else ''} {order}",
            [*params, *([accelerator] if accelerator else []), *(named or ())],
            since.date() if since else None,
            until.date(),
        )

    def _selected(self, columns: Sequence[str] | None) -> str:
        """The select list of ``columns`` (``*`` for all), ``accelerator`` and ``collected``
        always among them; raises ``ValueError`` naming a column the store does not have."""
        if columns is None:
            return "*"
        unknown = sorted(set(columns) - set(self.columns))
        if unknown:
            raise ValueError(f"the store has no column {', '.join(map(repr, unknown))}")
        return ", ".join(dict.fromkeys(("accelerator", "collected", *columns)))

    def held(self, run: str | None = None, limit: int | None = None) -> list[dict[str, Any]]:
        """Held rows for the operator (every stored held row, conflicts included), newest first."""
        where, params = ("AND run = ?", [run]) if run else ("", [])
        tail = f" LIMIT {int(limit)}" if limit else ""
        return self.query(
            f"SELECT * FROM obs WHERE status = 'held' {where} ORDER BY collected DESC, provider, instance_type, region, pricing, term, run, status, amount{tail}",
            params,
        )

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


__all__ = ["COLUMN_TYPES", "KEY", "LATEST_ORDER", "OFFER", "Store", "observation_of"]

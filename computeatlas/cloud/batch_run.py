"""An atlas-format import run decided in columns: the file read into DuckDB
(:mod:`~computeatlas.cloud.importers.atlas_columns`), its rows placed and checked there
(:mod:`~computeatlas.cloud.batch_rules`), deduplicated against the store by a join, counted
and written as the run's files straight from the table (:meth:`~computeatlas.cloud.run_writer.RunWriter.append_copy`).

The same run as :func:`computeatlas.cloud.runs.import_readings`' row path: the same rows
accepted, held (with the same rules and reasons) and rejected (with the same errors), the same
counts in the same order, the same run files, manifest and current table. :func:`imported`
returns None, having stored nothing, for an import the columns do not decide (a file that is
not plain, a rule of groups that holds a row: see :mod:`~computeatlas.cloud.batch_rules`);
the row path imports it then.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path

import duckdb

from computeatlas.cloud import batch_rules, bounds, rules
from computeatlas.cloud.band import PoolPrice
from computeatlas.cloud.import_summary import Summary
from computeatlas.cloud.importers.atlas_columns import BATCH, load
from computeatlas.cloud.instances import InstanceTable
from computeatlas.cloud.observations import InputFailed
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError

KEY = batch_rules.KEY
PRICE_WORDS = "concat_ws(chr(31), coalesce({0}currency, chr(0)), coalesce({0}unit, chr(0)), coalesce({0}price_basis, chr(0)))"
DECISION_WORDS = (
    "concat_ws(chr(31), coalesce({0}status, chr(0)), coalesce({0}accelerator, chr(0)), coalesce({0}variant, chr(0)), "
    "array_to_string(coalesce({0}rules, []), chr(31)))"
)
"""SQL: a row's price and decision in words, as :data:`computeatlas.cloud.deduplication.PRIOR_SQL` joins them."""


def imported(
    path: Path,
    store: Store,
    table: InstanceTable,
    rates: RateTable,
    limits: rules.Limits,
    now: dt.datetime,
    run: str,
    start: dt.date,
    siblings: Mapping[str, tuple[str, ...]] | None,
    lock_timeout: float,
    on_wait: Callable[[str], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Summary | None:
    """Import the atlas-format file at ``path`` as the run ``run`` (collected from ``start``
    on), under the store's write lock (taken once the file is read, waiting up to
    ``lock_timeout`` seconds, telling ``on_wait``); None, nothing stored, when the row path must
    import it. ``progress`` is told the rows read once the run is decided. Raises
    :class:`InputFailed` for a header that lacks a column."""
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute("SET enable_progress_bar = false")
        try:
            loaded = load(con, path, now)
        except TableError as exc:
            raise InputFailed(exc.errors) from None
        except duckdb.Error:
            loaded = None  # nothing the engine can read is lost: the row path reads the file and says what is wrong
        if loaded is None:
            return None
        summary = Summary(run=run, format="atlas", files=[str(path)])
        summary.read = loaded.rows
        for error in loaded.rejected:
            summary.rejected += 1
            summary.rejected_by_reason[f"{error.column}: {error.message}"] += 1
            summary.errors.append(error)
        with store.writing(lock_timeout, on_wait):
            store.remove_leftovers(lock_timeout)
            try:
                if not _decided(con, store, table, rates, limits, now, run, start, siblings or {}):
                    return None
                _deduplicated(con, store, now, summary)
                _counted(con, summary)
            except duckdb.Error:
                return None  # nothing is stored yet: the row path decides (a file's values the engine cannot take)
            if summary.accepted + summary.held:
                store.append_copy(
                    lambda columns: f"SELECT {columns} FROM ({batch_rules.completed('added', run)}) ORDER BY line",
                    run,
                    {
                        "format": "atlas",
                        "started": now.isoformat(),
                        "counts": summary.counts(),
                        "inputs": [{"file": path.name, "sha256": hashlib.sha256(path.read_bytes()).hexdigest()}],
                    },
                    con,
                )
        if progress:
            progress(loaded.rows)
        return summary


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> tuple[object, ...]:
    found = con.execute(sql, params).fetchone()
    assert found is not None
    return tuple(found)


def _decided(
    con: duckdb.DuckDBPyConnection,
    store: Store,
    table: InstanceTable,
    rates: RateTable,
    limits: rules.Limits,
    now: dt.datetime,
    run: str,
    start: dt.date,
    siblings: Mapping[str, tuple[str, ...]],
) -> bool:
    """The batch placed and checked by every rule, as :func:`computeatlas.cloud.runs.import_readings`'
    row path decides it (its pool of stored prices, the parts the store knows); False when the
    row path must decide it."""
    rows = int(_one(con, f"SELECT count(*) FROM {BATCH}")[0])  # type: ignore[call-overload]
    low, high = dt.datetime.combine(start, dt.time(), dt.UTC), now + bounds.CLOCK_SKEW  # runs._window's
    first, last = _one(con, f"SELECT min(collected), max(collected) FROM {BATCH} WHERE collected BETWEEN ? AND ?", [low, high])
    if not batch_rules.placed(con, table):
        return False
    batch_rules.dated(con, start, now)
    if not batch_rules.grouped(con, limits.hours_per_month):
        return False
    known = store.observed_accelerators() if rows else frozenset()
    pool: list[PoolPrice] = []
    if isinstance(first, dt.datetime) and isinstance(last, dt.datetime):
        widen = dt.timedelta(days=limits.freshness_days)
        span = max(low, first - widen), last + widen
        parts = {r[0] for r in con.execute("SELECT DISTINCT accelerator FROM placements WHERE accelerator <> ''").fetchall()}
        near = parts | {s for acc in parts - known for s in siblings.get(acc, ())}
        for accelerator, pricing, collected, currency, per_acc, provider, count in store.pool(near, *span):
            usd = rates.to_usd(per_acc, currency, collected.date())[0]
            if usd is not None:
                pool.append(PoolPrice(accelerator, pricing, collected, usd, provider, count))
    batch_rules.priced(con, rates, limits)
    batch_rules.banded(con, limits, pool, known, siblings)
    batch_rules.licensed(con)
    return True


def _deduplicated(con: duckdb.DuckDBPyConnection, store: Store, now: dt.datetime, summary: Summary) -> None:
    """The table ``added``: the decided rows the store does not already hold, a row whose key
    the store holds accepted at another price held as ``conflict`` (the row path's comparison,
    :func:`computeatlas.cloud.runs.import_readings`, joined instead of looked up)."""
    first, last = _one(con, f"SELECT min(CAST(collected AS DATE)), max(CAST(collected AS DATE)) FROM {BATCH}")
    stored = first is not None and store.define_views(con, first, last)  # type: ignore[arg-type]
    if not stored:
        con.execute(f"CREATE TEMP VIEW added AS SELECT * FROM {BATCH}")
        return
    keys = KEY.split(", ")
    con.execute(
        f"CREATE TEMP TABLE compared AS SELECT b.line, l.amount AS p_amount, {PRICE_WORDS.format('l.')} AS p_price, l.status AS p_status, "
        f"{DECISION_WORDS.format('l.')} AS p_decision, l.run AS p_run, coalesce(l.currency, chr(0)) AS p_currency, "
        f"(l.amount = b.amount AND {PRICE_WORDS.format('l.')} = {PRICE_WORDS.format('b.')}) AS same "
        f"FROM latest l JOIN {BATCH} b USING ({KEY})"
    )  # each key's newest stored row beside the row of the batch with that key (keys are once in a batch)
    con.execute(
        f"CREATE TEMP TABLE conflicting AS SELECT DISTINCT {KEY}, amount, currency, unit, price_basis FROM obs "
        f"WHERE list_contains(rules, 'conflict') AND provider IN (SELECT DISTINCT provider FROM {BATCH})"
    )
    against = f"NOT c.same AND c.p_status = 'accepted' AND NOT list_contains({BATCH}.rules, 'conflict')"
    held = con.execute(
        f"SELECT DISTINCT c.p_amount, c.p_currency, c.p_run FROM compared c JOIN {BATCH} USING (line) WHERE {against}"
    ).fetchall()
    reasons = [(a, c, r, f"the store holds this observation at {a:g} {c} (run {r})") for a, c, r in held]
    batch_rules.table_of(con, "conflicts", {"amount": "DOUBLE", "currency": "VARCHAR", "run": "VARCHAR", "reason": "VARCHAR"}, reasons)
    con.execute(
        f"UPDATE {BATCH} SET status = 'held', rules = list_append(rules, 'conflict'), reasons = list_append(reasons, m.reason) "
        f"FROM compared c, conflicts m WHERE c.line = {BATCH}.line AND {against} AND m.amount = c.p_amount "
        "AND m.currency = c.p_currency AND m.run = c.p_run"
    )
    on = " AND ".join(f"k.{c} = b.{c}" for c in (*keys, "amount", "currency", "unit", "price_basis"))
    con.execute(
        f"CREATE TEMP TABLE known AS SELECT b.line FROM {BATCH} b SEMI JOIN conflicting k ON {on} WHERE list_contains(b.rules, 'conflict') "
        f"UNION ALL SELECT b.line FROM {BATCH} b JOIN compared c USING (line) WHERE c.same AND c.p_decision = {DECISION_WORDS.format('b.')}"
    )  # what the store already holds: a conflict it holds, or the same price with the same decision
    con.execute(f"CREATE TEMP VIEW added AS SELECT * FROM {BATCH} ANTI JOIN known USING (line)")
    summary.already_stored += int(_one(con, "SELECT count(DISTINCT line) FROM known")[0])  # type: ignore[call-overload]


def _counted(con: duckdb.DuckDBPyConnection, summary: Summary) -> None:
    """The added rows counted by status, provider and first rule, each counter filled in the
    order its values first appear (so that equal counts list as the row path lists them)."""

    def fill(counter: Counter[str], sql: str) -> int:
        rows = con.execute(sql + " GROUP BY 1 ORDER BY min(line)").fetchall()
        for value, n in rows:
            counter[value] += n
        return sum(n for _, n in rows)

    summary.accepted += fill(summary.accepted_by_provider, "SELECT provider, count(*) FROM added WHERE status = 'accepted'")
    summary.held += fill(summary.held_by_provider, "SELECT provider, count(*) FROM added WHERE status = 'held'")
    fill(summary.held_by_rule, "SELECT rules[1], count(*) FROM added WHERE status = 'held'")


__all__ = ["imported"]

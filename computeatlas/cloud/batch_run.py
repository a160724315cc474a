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
from pathlib import Path

import duckdb

from computeatlas.cloud import batch_rules, bounds
from computeatlas.cloud.band import PoolPrice
from computeatlas.cloud.deduplication import stored_offers
from computeatlas.cloud.group_rules import OFFER_SQL, first_hand, offer
from computeatlas.cloud.import_job import ImportJob
from computeatlas.cloud.import_summary import Summary
from computeatlas.cloud.importers.atlas_columns import BATCH, EPOCH, load
from computeatlas.cloud.observations import InputFailed
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError

KEY = batch_rules.KEY
PRICE_WORDS = "concat_ws(chr(31), coalesce({0}currency, chr(0)), coalesce({0}unit, chr(0)), coalesce({0}price_basis, chr(0)))"
DECISION_WORDS = (
    "concat_ws(chr(31), coalesce({0}status, chr(0)), coalesce({0}accelerator, chr(0)), coalesce({0}variant, chr(0)), "
    "array_to_string(coalesce({0}rules, []), chr(31)))"
)
"""SQL: a row's price and decision in words, as :data:`computeatlas.cloud.deduplication.PRIOR_SQL` joins them."""


def imported(path: Path, job: ImportJob, start: dt.date) -> Summary | None:
    """Import the atlas-format file at ``path`` as the run ``job.run`` (collected from ``start``
    on), under the store's write lock (taken once the file is read, waiting up to
    ``job.lock_timeout`` seconds, telling ``job.on_wait``); None, nothing stored, when the row
    path must import it. ``job.progress`` is told the rows read once the run is decided. Raises
    :class:`InputFailed` for a header that lacks a column."""
    store, now, run = job.store, job.now, job.run
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
        with store.writing(job.lock_timeout, job.on_wait):
            store.remove_leftovers(job.lock_timeout)
            try:
                if not _decided(con, job, start):
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
        if job.progress:
            job.progress(loaded.rows)
        return summary


def _one(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> tuple[object, ...]:
    found = con.execute(sql, params).fetchone()
    assert found is not None
    return tuple(found)


def _decided(con: duckdb.DuckDBPyConnection, job: ImportJob, start: dt.date) -> bool:
    """The batch placed and checked by every rule, as :func:`computeatlas.cloud.runs.import_readings`'
    row path decides it (its pool of stored prices, the parts the store knows); False when the
    row path must decide it."""
    store, table, rates, limits, now, siblings = job.store, job.table, job.rates, job.limits, job.now, job.siblings
    rows = int(_one(con, f"SELECT count(*) FROM {BATCH}")[0])  # type: ignore[call-overload]
    low, high = dt.datetime.combine(start, dt.time(), dt.UTC), now + bounds.CLOCK_SKEW  # runs._window's
    first, last = _one(con, f"SELECT min(collected), max(collected) FROM {BATCH} WHERE collected BETWEEN ? AND ?", [low, high])
    if not batch_rules.placed(con, table):
        return False
    batch_rules.dated(con, start, now)
    if not batch_rules.grouped(con, limits.hours_per_month) or not _apart(con, store, limits.conflict_window_days):
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


def _apart(con: duckdb.DuckDBPyConnection, store: Store, days: int) -> bool:
    """True when ``stale_repeat`` (:func:`computeatlas.cloud.group_rules.stale_repeats`, of the
    batch's rows and the stored ones of their offers, :func:`computeatlas.cloud.deduplication.neighbours`)
    can hold no row of the batch: no accepted row has a first-hand price of its offer from
    another source (``via``), in the batch or the store, at another amount within ``days`` days.
    An atlas file's rows carry no ``raw_extra``, so no effective date: the first-hand rows are
    the only ones that can show a row of the batch older-sourced."""
    accepted = f"SELECT {OFFER_SQL}, via, amount, epoch_us(collected) AS us FROM {BATCH} WHERE status = 'accepted'"
    first, last = _one(con, f"SELECT min(collected), max(collected) FROM {BATCH} WHERE status = 'accepted'")
    if not isinstance(first, dt.datetime) or not isinstance(last, dt.datetime):
        return True
    offers = {tuple(r) for r in con.execute(f"SELECT DISTINCT * EXCLUDE (via, amount, us) FROM ({accepted})").fetchall()}
    vias = {r[0] for r in con.execute(f"SELECT DISTINCT via FROM ({accepted})").fetchall()}
    widen = dt.timedelta(days=days)
    micro = dt.timedelta(microseconds=1)
    near = [o for o in stored_offers(store, offers, vias, first - widen, last + widen) if first_hand(o)]  # no raw_extra here: no date
    columns = ("provider", "instance_type", "offer_region", "pricing", "term", "currency", "unit", "price_basis")
    kinds = dict.fromkeys(columns, "VARCHAR") | {"via": "VARCHAR", "amount": "DOUBLE", "us": "BIGINT"}
    batch_rules.table_of(con, "neighbours", kinds, [(*offer(o), o.via, o.amount, (o.collected - EPOCH) // micro) for o in near])
    on = " AND ".join(f"b.{c} IS NOT DISTINCT FROM n.{c}" for c in columns)
    own = f"SELECT * FROM ({accepted}) WHERE via LIKE 'collector %' AND via NOT LIKE '%aggregator%'"  # group_rules.first_hand
    return not _one(
        con,
        f"SELECT count(*) FROM ({accepted}) b JOIN (SELECT * FROM neighbours UNION ALL {own}) n ON {on} "
        f"AND b.via IS DISTINCT FROM n.via AND b.amount <> n.amount AND abs(b.us - n.us) <= {days} * 86400000000",
    )[0]


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

"""The integrity rules of :func:`computeatlas.cloud.rules.apply` over an import's rows held in a
DuckDB table (:data:`~computeatlas.cloud.importers.atlas_columns.BATCH`), for an import of
millions of rows: the same decisions, rules and reasons, in the same order.

Each rule's condition is SQL over the table; each rule's words (and whatever decides a
value, a placement, a window's median) come from the Python implementation the row path uses,
called once per distinct input (an instance name, a collection time, a price) or per held
row: :func:`~computeatlas.cloud.cell_rules.place`, :func:`~computeatlas.cloud.bounds.date_problem`,
:func:`~computeatlas.cloud.bounds.bound_problem`, :func:`~computeatlas.cloud.bounds.no_rate_reason`,
:func:`~computeatlas.cloud.bounds.window_medians`, :func:`~computeatlas.cloud.band.outside_reason`,
:func:`~computeatlas.cloud.bounds.against_sibling`.

:func:`decide` returns False, having decided nothing, for an import whose rows meet a rule of
groups that is not done in columns (a split bill, a spot price beside its on-demand one, a key
given twice, which covers ``term_total`` and ``conflict`` within the import, a placeholder, a
price another source's first-hand one may show older-sourced, ``stale_repeat``):
the row path decides such an import. Units as :mod:`computeatlas.cloud.rules`'.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import duckdb

from computeatlas.cloud import bounds
from computeatlas.cloud.band import PoolPrice, outside_reason
from computeatlas.cloud.cell_rules import place
from computeatlas.cloud.group_rules import PLACEHOLDER_SIZES
from computeatlas.cloud.importers.atlas_columns import BATCH, EPOCH
from computeatlas.cloud.instances import Billing, InstanceTable
from computeatlas.cloud.observations import LICENSED_SUFFIX, Observation, PricingKind, Status
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.rules import LICENCE_REASON, Limits
from computeatlas.cloud.store import COLUMN_TYPES
from computeatlas.core.states import State

HOURLY = "CASE unit WHEN 'hour' THEN amount WHEN 'second' THEN amount * 3600 WHEN 'week' THEN amount / 168 ELSE amount / $hours END"
"""SQL: :func:`~computeatlas.cloud.observations.hourly`'s amount (``$hours``: hours of a month)."""

PER_ACCELERATOR_HOUR = (
    f"CASE WHEN price_basis = 'accelerator' THEN {HOURLY} WHEN accelerators IS NULL THEN NULL ELSE {HOURLY} / accelerators END"
)
"""SQL: :func:`~computeatlas.cloud.observations.per_accelerator_hour` (the same double arithmetic)."""

KEY = "provider, instance_type, region, pricing, term, collected"


def _stub(**values: object) -> Observation:
    """An observation of the few fields a rule's Python reads (the rest their defaults)."""
    return Observation.trusted(values)


def _when(us: int) -> dt.datetime:
    return EPOCH + dt.timedelta(microseconds=us)


def table_of(con: duckdb.DuckDBPyConnection, name: str, columns: Mapping[str, str], rows: Sequence[Sequence[object]]) -> None:
    """The temp table ``name`` of ``rows`` (``columns``: name → DuckDB type), handed over as lists."""
    cells = [list(c) for c in zip(*rows, strict=True)] if rows else [[] for _ in columns]
    select = ", ".join(f"unnest(?::{kind}[]) AS {column}" for column, kind in columns.items())
    con.execute(f"CREATE OR REPLACE TEMP TABLE {name} AS SELECT {select}", cells)


def _hold(con: duckdb.DuckDBPyConnection, source: str, on: str, rule: str | None = None, where: str = "TRUE") -> None:
    """Hold the rows of the batch matching ``source`` (a table with ``reason``, and ``rule``
    unless given) ``on`` the condition, adding the rule and its reason."""
    named = f"'{rule}'" if rule else "m.rule"
    con.execute(
        f"UPDATE {BATCH} SET status = 'held', rules = list_append(rules, {named}), reasons = list_append(reasons, m.reason) "
        f"FROM {source} m WHERE {on} AND {where}"
    )


def _count(con: duckdb.DuckDBPyConnection, sql: str, params: object = None) -> int:
    found = con.execute(sql, params).fetchone()
    return int(found[0]) if found else 0


def placed(con: duckdb.DuckDBPyConnection, table: InstanceTable) -> bool:
    """Place every row (:func:`~computeatlas.cloud.cell_rules.place`, once per provider,
    instance and stated count): accelerator, variant, count and billing, or held as ``unplaced``
    or ``count_mismatch``. False (nothing placed) when a row is part of a split bill."""
    memo: dict[Any, Any] = {}
    rows = []
    for provider, instance, stated in con.execute(f"SELECT DISTINCT provider, instance_type, stated_accelerators FROM {BATCH}").fetchall():
        o = place(_stub(provider=provider, instance_type=instance, stated_accelerators=stated), table, memo=memo)
        if o.billing in (Billing.HOST_COMPONENT.value, Billing.ACCELERATOR_COMPONENT.value):
            return False
        rows.append(
            (
                provider,
                instance,
                stated,
                o.accelerator,
                o.variant,
                o.accelerators,
                o.billing,
                o.status.value,
                list(o.rules),
                list(o.reasons),
            )
        )
    table_of(
        con,
        "placements",
        {
            **{c: COLUMN_TYPES[c] for c in ("provider", "instance_type")},
            "stated": "INTEGER",
            **{c: COLUMN_TYPES[c] for c in ("accelerator", "variant", "accelerators", "billing", "status", "rules", "reasons")},
        },
        rows,
    )
    con.execute(
        "CREATE TABLE placed AS SELECT b.*, m.accelerator, m.variant, m.accelerators, m.billing, m.status, m.rules, m.reasons "
        f"FROM {BATCH} b JOIN placements m ON m.provider = b.provider AND m.instance_type = b.instance_type "
        "AND m.stated IS NOT DISTINCT FROM b.stated_accelerators"
    )
    con.execute(f"DROP VIEW {BATCH}")
    con.execute("DROP TABLE parsed")
    con.execute(f"ALTER TABLE placed RENAME TO {BATCH}")
    return True


def dated(con: duckdb.DuckDBPyConnection, start: dt.date, now: dt.datetime) -> None:
    """Hold every row collected before ``start`` or after ``now`` plus the clock skew as
    ``implausible_date`` (:func:`~computeatlas.cloud.bounds.date_problem`'s words)."""
    earliest, latest = dt.datetime.combine(start, dt.time(), dt.UTC), now + bounds.CLOCK_SKEW
    found = con.execute(
        f"SELECT DISTINCT epoch_us(collected) FROM {BATCH} WHERE collected < ? OR collected > ?", [earliest, latest]
    ).fetchall()
    rows = [(us, bounds.date_problem(_when(us), start, now)) for (us,) in found]
    table_of(con, "dating", {"us": "BIGINT", "reason": "VARCHAR"}, [r for r in rows if r[1]])
    _hold(con, "dating", f"epoch_us({BATCH}.collected) = m.us", "implausible_date")


def grouped(con: duckdb.DuckDBPyConnection, hours_per_month: float) -> bool:
    """True when no rule of groups could hold a row (so the columns decide): each key once, no
    spot price beside an on-demand one of the same instance, region and time, no amount for
    :data:`~computeatlas.cloud.group_rules.PLACEHOLDER_SIZES` sizes, and a month of more than an hour
    (``stale_repeat`` is :func:`computeatlas.cloud.batch_run.imported`'s to check, with the store's rows)."""
    if hours_per_month <= 1:
        return False
    if _count(con, f"SELECT count(*) FROM (SELECT {KEY} FROM {BATCH} GROUP BY ALL HAVING count(*) > 1)"):
        return False
    if _count(
        con,
        f"SELECT count(*) FROM {BATCH} s JOIN {BATCH} d USING (provider, instance_type, region, collected) "
        "WHERE s.pricing = 'spot' AND d.pricing = 'on_demand'",
    ):
        return False
    return not _count(
        con,
        f"SELECT count(*) FROM (SELECT 1 FROM {BATCH} WHERE status = 'accepted' AND price_basis = 'instance' AND accelerators IS NOT NULL "
        "GROUP BY provider, accelerator, region, pricing, term, collected, currency, unit, amount "
        f"HAVING count(DISTINCT accelerators) >= {PLACEHOLDER_SIZES})",
    )


def priced(con: duckdb.DuckDBPyConnection, rates: RateTable, limits: Limits) -> None:
    """The column ``usd`` (USD per accelerator-hour of each accepted row, through a dated rate),
    and the rows held as ``no_rate``, ``below_floor`` or ``above_ceiling``."""
    hours = {"hours": limits.hours_per_month}
    con.execute(f"ALTER TABLE {BATCH} ADD COLUMN per_acc DOUBLE")
    con.execute(f"ALTER TABLE {BATCH} ADD COLUMN usd DOUBLE")
    con.execute(f"UPDATE {BATCH} SET per_acc = {PER_ACCELERATOR_HOUR}", hours)
    found = con.execute(
        f"SELECT DISTINCT currency, CAST(collected AS DATE) FROM {BATCH} WHERE status = 'accepted' AND per_acc IS NOT NULL AND currency <> 'USD'"
    ).fetchall()
    found_rates = [(c, d, r.usd_per_unit if (r := rates.rate(c, d)) else None) for c, d in found]
    table_of(con, "rating", {"currency": "VARCHAR", "day": "DATE", "rate": "DOUBLE"}, found_rates)
    con.execute(
        f"UPDATE {BATCH} SET usd = per_acc * m.rate FROM rating m "
        f"WHERE status = 'accepted' AND per_acc IS NOT NULL AND {BATCH}.currency <> 'USD' AND m.currency = {BATCH}.currency "
        f"AND m.day = CAST({BATCH}.collected AS DATE)"
    )
    con.execute(f"UPDATE {BATCH} SET usd = per_acc WHERE status = 'accepted' AND currency = 'USD'")
    missing = con.execute(
        f"SELECT DISTINCT currency, epoch_us(collected) FROM {BATCH} WHERE status = 'accepted' AND per_acc IS NOT NULL AND usd IS NULL"
    ).fetchall()
    table_of(
        con,
        "unrated",
        {"currency": "VARCHAR", "us": "BIGINT", "reason": "VARCHAR"},
        [(c, us, bounds.no_rate_reason(_stub(currency=c, collected=_when(us)))) for c, us in missing],
    )
    _hold(con, "unrated", f"m.currency = {BATCH}.currency AND m.us = epoch_us({BATCH}.collected)", "no_rate", "status = 'accepted'")
    floor, ceiling = limits.floor, limits.ceiling
    out = con.execute(
        f"SELECT DISTINCT usd FROM {BATCH} WHERE status = 'accepted' AND usd IS NOT NULL AND NOT (? <= usd AND usd <= ?)", [floor, ceiling]
    ).fetchall()
    problems = [(usd, *problem) for (usd,) in out if (problem := bounds.bound_problem(usd, floor, ceiling))]
    table_of(con, "bounding", {"usd": "DOUBLE", "rule": "VARCHAR", "reason": "VARCHAR"}, problems)
    _hold(con, "bounding", f"m.usd = {BATCH}.usd", where="status = 'accepted'")


def banded(
    con: duckdb.DuckDBPyConnection,
    limits: Limits,
    pool: Iterable[PoolPrice],
    known: frozenset[str],
    siblings: Mapping[str, tuple[str, ...]],
) -> None:
    """Hold the accepted rows outside the band of their part and pricing kind (``outside_band``)
    and a part's first prices far from their closest sibling's (``far_from_sibling``), as
    :func:`computeatlas.cloud.band.check` does, with the windows' medians of
    :func:`~computeatlas.cloud.bounds.window_medians` over the same prices (counted:
    :func:`~computeatlas.cloud.bounds.counted_window_medians`)."""
    window = dt.timedelta(days=limits.freshness_days)
    times = {us: _when(us) for (us,) in con.execute(f"SELECT DISTINCT epoch_us(collected) FROM {BATCH}").fetchall()}
    when = times.__getitem__
    counted: dict[tuple[str, str], list[tuple[dt.datetime, float, str, int]]] = {}
    for acc, pricing, us, usd, provider, n in con.execute(
        f"SELECT accelerator, pricing, epoch_us(collected), usd, provider, count(*) FROM {BATCH} "
        "WHERE status = 'accepted' AND usd IS NOT NULL GROUP BY ALL"
    ).fetchall():
        series = counted.get((acc, pricing))
        if series is None:
            series = counted[(acc, pricing)] = []
        series.append((times[us], usd, provider, n))
    wanted = {series: {entry[0] for entry in entries} for series, entries in counted.items()}  # the batch's own times
    for p in pool:
        counted.setdefault((p.accelerator, p.pricing), []).append((p.collected, p.usd, p.provider, p.count))
    for entries in counted.values():
        entries.sort()
    windows = [
        (acc, pricing, (moment - EPOCH) // dt.timedelta(microseconds=1), *found)
        for (acc, pricing), moments in wanted.items()
        for moment, found in bounds.counted_window_medians(counted[(acc, pricing)], moments, window).items()
        if found is not None
    ]
    table_of(
        con,
        "windows",
        {"accelerator": "VARCHAR", "pricing": "VARCHAR", "us": "BIGINT", "median": "DOUBLE", "providers": "INTEGER", "n": "INTEGER"},
        windows,
    )
    band = (limits.band_low, limits.band_high)
    con.execute(f"ALTER TABLE {BATCH} ADD COLUMN banded BOOLEAN DEFAULT false")
    con.execute(
        f"UPDATE {BATCH} SET banded = true FROM windows w WHERE status = 'accepted' AND usd IS NOT NULL AND w.accelerator = {BATCH}.accelerator "
        f"AND w.pricing = {BATCH}.pricing AND w.us = epoch_us({BATCH}.collected) AND w.n >= ?",
        [limits.min_observations],
    )
    outside = con.execute(
        f"SELECT DISTINCT b.accelerator, b.pricing, w.us, b.usd, w.median, w.providers, w.n FROM {BATCH} b JOIN windows w "
        "ON w.accelerator = b.accelerator AND w.pricing = b.pricing AND w.us = epoch_us(b.collected) "
        "WHERE b.banded AND b.status = 'accepted' AND (b.usd < ? * w.median OR b.usd > ? * w.median)",
        list(band),
    ).fetchall()
    table_of(
        con,
        "outside",
        {"accelerator": "VARCHAR", "pricing": "VARCHAR", "us": "BIGINT", "usd": "DOUBLE", "reason": "VARCHAR"},
        [
            (acc, pricing, us, usd, outside_reason(usd, band, (median, providers, n), pricing, acc))
            for acc, pricing, us, usd, median, providers, n in outside
        ],
    )
    same = f"m.accelerator = {BATCH}.accelerator AND m.pricing = {BATCH}.pricing AND m.us = epoch_us({BATCH}.collected) AND m.usd = {BATCH}.usd"
    _hold(con, "outside", same, "outside_band", "banded AND status = 'accepted'")
    priced_parts = {acc for (acc, _), series in counted.items() if series}
    firsts = con.execute(
        f"SELECT DISTINCT accelerator, pricing, epoch_us(collected), usd FROM {BATCH} WHERE status = 'accepted' AND usd IS NOT NULL "
        "AND NOT banded AND NOT list_contains(?::VARCHAR[], accelerator)",
        [sorted(known)],
    ).fetchall()
    medians: dict[tuple[int, int, int], tuple[float, int, int]] = {}
    far = []
    groups = {  # every entry as often as it counts (bounds.against_sibling's series), when a first price asks
        series: [entry[:3] for entry in entries for _ in range(entry[3])] for series, entries in (counted.items() if firsts else ())
    }
    for acc, pricing, us, usd in firsts:
        o = bounds.against_sibling(
            _stub(accelerator=acc, pricing=PricingKind(pricing), collected=when(us)),
            usd,
            siblings,
            priced_parts,
            groups,
            window,
            medians,
            band,
        )
        if o.status is Status.HELD:
            far.append((acc, pricing, us, usd, o.reasons[-1]))
    table_of(con, "far", {"accelerator": "VARCHAR", "pricing": "VARCHAR", "us": "BIGINT", "usd": "DOUBLE", "reason": "VARCHAR"}, far)
    _hold(con, "far", same, "far_from_sibling", "status = 'accepted' AND NOT banded")


def licensed(con: duckdb.DuckDBPyConnection) -> None:
    """Hold licence-included prices (``licence_included``), whatever else held them, as
    :func:`computeatlas.cloud.rules.apply` ends."""
    con.execute(
        f"UPDATE {BATCH} SET status = 'held', rules = list_append(rules, 'licence_included'), reasons = list_append(reasons, ?) "
        "WHERE suffix(instance_type, ?)",
        [LICENCE_REASON, LICENSED_SUFFIX],
    )


def completed(source: str, run: str) -> str:
    """SQL: the rows of ``source`` (decided rows of the batch) with their qualifiers, price per
    accelerator-hour (NULL when not finite) and ``run``, as
    :func:`computeatlas.cloud.rules.apply` completes them."""
    unstated, derived = State.VARIANT_NOT_STATED.value, State.DERIVED_FROM_TERM.value
    return (
        "SELECT * EXCLUDE (per_acc, usd, banded), "
        f"list_concat(CASE WHEN accelerator <> '' AND variant = '' THEN ['{unstated}'] ELSE [] END, "
        f"CASE WHEN unit NOT IN ('hour', 'second') THEN ['{derived}'] ELSE [] END)::VARCHAR[] AS qualifiers, "
        "CASE WHEN isfinite(per_acc) THEN per_acc END AS per_accelerator_hour, '" + run.replace("'", "''") + f"' AS run FROM {source}"
    )


__all__ = ["HOURLY", "KEY", "PER_ACCELERATOR_HOUR", "banded", "completed", "dated", "grouped", "licensed", "placed", "priced", "table_of"]

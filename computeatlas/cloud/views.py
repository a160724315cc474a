"""The two views every store query reads, defined over one set of files on one DuckDB cursor.

- ``obs``: every stored row (run files and compacted files alike; a compacted file's rows
  are the rows of the runs it replaced, unchanged).
- ``latest``: the newest decision per observation key, conflicts left out (the order of
  :data:`computeatlas.cloud.store.LATEST_ORDER`: the newest run's row, and within one run an
  accepted row before a held one).

A compacted file carries a ``newest`` flag worked out when it was written (the same rule
over every row of its period), so over compacted files ``latest`` is a filter, not a window
over the history: only the keys that later run files stored again are decided again, with
the same rule over their compacted and run rows. A filter on ``accelerator`` or on the
collection time reaches the compacted files' scan, whose row groups are sorted by
accelerator and time, so one part's history reads little of the others'.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Sequence
from pathlib import Path

import duckdb

from computeatlas.cloud.layout import Files


def literal(text: str) -> str:
    """``text`` as a SQL string literal."""
    return "'" + text.replace("'", "''") + "'"


def listed(paths: Sequence[Path]) -> str:
    """``paths`` as a SQL list of string literals."""
    return "[" + ", ".join(literal(str(p)) for p in paths) + "]"


def run_rows(paths: Sequence[Path]) -> str:
    """A ``FROM`` source over run files: their ``date`` from the ``date=`` folder."""
    return f"read_parquet({listed(paths)}, hive_partitioning = true, hive_types = {{'date': DATE}}, union_by_name = true)"


def compacted_rows(paths: Sequence[Path]) -> str:
    """A ``FROM`` source over compacted files: ``date`` and ``newest`` are columns of the file."""
    return f"read_parquet({listed(paths)}, hive_partitioning = false, union_by_name = true)"


def newest_flag(key: Sequence[str], order: str) -> str:
    """The SQL of the ``newest`` flag a compaction writes: this row is its key's newest
    decision among the rows that are not conflicts (a conflict never is)."""
    return (
        f"(NOT list_contains(rules, 'conflict') AND row_number() OVER (PARTITION BY {', '.join(key)}, "
        f"list_contains(rules, 'conflict') ORDER BY {order}) = 1)"
    )


MONTHLY_GRAIN = ("accelerator", "variant", "month", "provider", "instance_type", "region", "pricing", "term", "currency")
"""The grain of the monthly roll-up: one row per part, variant, month and offer (and currency)."""


def rollup(source: str) -> str:
    """SQL: the monthly roll-up of the accepted rows of ``source`` (newest decisions): per
    :data:`MONTHLY_GRAIN`, ``low`` (the lowest price per accelerator-hour, in the currency; NULL
    when none was priced) and ``observations``. Partial roll-ups of one month (two day files)
    combine by min and sum, so every query of the view groups again."""
    return (
        f"SELECT accelerator, variant, CAST(date_trunc('month', date) AS DATE) AS month, provider, instance_type, region, pricing, "
        f"term, currency, min(per_accelerator_hour) AS low, count(*) AS observations FROM {source} WHERE status = 'accepted' "
        "GROUP BY ALL"
    )


def daily(source: str) -> str:
    """SQL: per part, collection date and provider, the median on-demand USD price per
    accelerator-hour of the accepted rows of ``source`` and how many there were (the series of
    a price page; a date's rows are all in one compacted file, so no combining is needed)."""
    return (
        f"SELECT accelerator, date, provider, median(per_accelerator_hour) AS median, count(*) AS observations FROM {source} "
        "WHERE status = 'accepted' AND pricing = 'on_demand' AND currency = 'USD' AND per_accelerator_hour IS NOT NULL GROUP BY ALL"
    )


def lows(source: str) -> str:
    """SQL: per part, collection date, provider, pricing kind, term, stated variant ('' when
    none), currency and ``priced`` (a price per accelerator-hour is known), of the accepted rows
    of ``source``: ``best``, the least ``{'p': per_accelerator_hour, 'd': date, 'i':
    instance_type, 'r': region}`` (the day's lowest price, then the offer by name), and
    ``observations``. The price charts' lows of a week or month are the least ``best`` and the
    sum of ``observations`` over its dates, and what they leave out the sums of the others."""
    return (
        f"SELECT accelerator, date, provider, pricing, term, coalesce(variant, '') AS variant, currency, "
        "per_accelerator_hour IS NOT NULL AS priced, min({'p': per_accelerator_hour, 'd': date, 'i': instance_type, 'r': region}) "
        f"AS best, count(*) AS observations FROM {source} WHERE status = 'accepted' GROUP BY ALL"
    )


ROLLUPS = {"monthly": rollup, "daily": daily, "lows": lows}
"""The roll-ups a compaction writes beside its file (``<name>-<id>.parquet``) and the views of the same names."""

DATED = frozenset({"daily", "lows"})
"""The roll-ups with a row per collection date: a window that cuts a month reads the dates of
its roll-up file inside the window (the months of :data:`MONTHLY_GRAIN` are whole or rolled up again)."""


def summary_of(compacted: Path, kind: str = "monthly") -> Path:
    """The roll-up file ``kind`` (:data:`ROLLUPS`) written beside a compacted file."""
    return compacted.with_name(f"{kind}-" + compacted.name.removeprefix("part-"))


def _period(compacted: Path) -> tuple[dt.date, dt.date]:
    text = compacted.parent.name.removeprefix("period=")
    start = dt.date.fromisoformat(text if len(text) == 10 else text + "-01")
    if len(text) == 10:
        return start, start
    return start, start.replace(day=calendar.monthrange(start.year, start.month)[1])


def _rolled(
    con: duckdb.DuckDBPyConnection,
    files: Files,
    first: dt.date | None,
    last: dt.date | None,
    schema: str | None,
    kind: str,
    accelerator: str | None = None,
) -> None:
    """The view ``kind`` (:data:`ROLLUPS`): the roll-up files of compacted periods inside the
    window whose months no run file touches (for a :data:`DATED` kind, of those meeting the
    window, only its dates), and the roll-up of ``latest`` for every other month."""
    touched = {p.parent.name.removeprefix("date=")[:7] for p in files.runs}
    kept: list[Path] = []
    cut = False  # a kept dated file holds dates outside the window
    for path in files.compacted:
        start, end = _period(path)
        inside = (first is None or start >= first) and (last is None or end <= last)
        if (inside or kind in DATED) and start.isoformat()[:7] not in touched and summary_of(path, kind).is_file():
            kept.append(path)
            cut = cut or not inside
    rest = [p for p in files.compacted if p not in kept]
    months = sorted(touched | {_period(p)[0].isoformat()[:7] for p in rest})
    window = [f"date >= DATE {literal(first.isoformat())}"] if first and cut else []
    window += [f"date <= DATE {literal(last.isoformat())}"] if last and cut else []
    parts = (
        [
            f"SELECT * FROM read_parquet({listed([summary_of(p, kind) for p in kept])})"
            + (f" WHERE {' AND '.join(window)}" if window else "")
        ]
        if kept
        else []
    )
    if months or not kept:
        spans = [_period(Path(f"period={m}") / "x")[:2] for m in months]  # date ranges, so the scan skips row groups by their dates
        chosen = " OR ".join(f"date BETWEEN DATE {literal(a.isoformat())} AND DATE {literal(b.isoformat())}" for a, b in spans) or "false"
        part = f" AND accelerator = {literal(accelerator)}" if accelerator is not None else ""
        parts.append(ROLLUPS[kind](f"(SELECT * FROM {_name('latest', schema)} WHERE ({chosen}){part})"))
    _create(con, kind, " UNION ALL BY NAME ".join(parts), schema)


def _name(view: str, schema: str | None) -> str:
    return f"{schema}.{view}" if schema else view


def _create(con: duckdb.DuckDBPyConnection, view: str, sql: str, schema: str | None) -> None:
    kind = "VIEW" if schema else "TEMP VIEW"
    con.execute(f"CREATE OR REPLACE {kind} {_name(view, schema)} AS {sql}")


def define(
    con: duckdb.DuckDBPyConnection,
    files: Files,
    key: Sequence[str],
    order: str,
    accelerator: str | None = None,
    first: dt.date | None = None,
    last: dt.date | None = None,
    monthly: bool = False,
    schema: str | None = None,
) -> None:
    """Create the views ``obs`` and ``latest`` over ``files`` on ``con``: temporary ones, or
    in ``schema`` (which must exist) when given, so that other cursors can read them again.

    ``first``/``last`` (dates, inclusive) keep only a compacted file's rows of that window
    (run files are already chosen by their date folder). ``accelerator`` narrows the run
    files' share of ``latest`` to the keys ever placed on it before the newest row per key
    is chosen (a re-placement is still honoured); the caller still filters on it.
    With ``monthly`` (a store of offers), also the views ``monthly``, ``daily`` and ``lows``: the
    roll-ups of ``latest`` (:func:`rollup`, :func:`daily`, :func:`lows`), read from the roll-up files
    compactions wrote where they are whole (with ``accelerator``, the months rolled up here
    hold only that part's rows: its callers ask of it alone). Raises ``ValueError`` for an empty ``files``."""
    if not files:
        raise ValueError("no files to define the views over")
    keys = ", ".join(key)
    window = [f"date >= DATE {literal(first.isoformat())}"] if first else []
    window += [f"date <= DATE {literal(last.isoformat())}"] if last else []
    where = f" WHERE {' AND '.join(window)}" if window else ""
    compacted, runs, decided, recent_view = (_name(v, schema) for v in ("compacted", "runs", "decided", "recent"))
    if files.compacted:
        _create(con, "compacted", f"SELECT * FROM {compacted_rows(files.compacted)}{where}", schema)
    if files.runs:
        _create(con, "runs", f"SELECT * FROM {run_rows(files.runs)}", schema)
    sources = ([f"SELECT * FROM {runs}"] if files.runs else []) + (
        [f"SELECT * EXCLUDE (newest) FROM {compacted}"] if files.compacted else []
    )
    _create(con, "obs", " UNION ALL BY NAME ".join(sources), schema)
    if not files.runs:
        _create(con, "latest", f"SELECT * EXCLUDE (newest) FROM {compacted} WHERE newest", schema)
    else:
        recent = f"(SELECT * FROM {runs} WHERE NOT list_contains(rules, 'conflict'))"
        if files.compacted:
            _create(con, "decided", f"SELECT * EXCLUDE (newest) FROM {compacted} WHERE newest", schema)
            _create(con, "recent", f"SELECT * FROM {recent}", schema)
            # Only keys the run files stored again are decided again; the rest keep the compaction's decision.
            recent = f"(SELECT * FROM {decided} SEMI JOIN {recent_view} USING ({keys}) UNION ALL BY NAME SELECT * FROM {recent_view})"
        if accelerator is not None:
            recent = (
                f"(SELECT r.* FROM {recent} r SEMI JOIN (SELECT DISTINCT {keys} FROM {recent} WHERE accelerator = "
                f"{literal(accelerator)}) k USING ({keys}))"
            )
        again = f"SELECT * FROM {recent} QUALIFY row_number() OVER (PARTITION BY {keys} ORDER BY {order}) = 1"
        if files.compacted:
            again = f"SELECT * FROM {decided} ANTI JOIN {recent_view} USING ({keys}) UNION ALL BY NAME {again}"
        _create(con, "latest", again, schema)
    if monthly:
        for kind in ROLLUPS:
            _rolled(con, files, first, last, schema, kind, accelerator)


__all__ = [
    "DATED",
    "MONTHLY_GRAIN",
    "ROLLUPS",
    "compacted_rows",
    "daily",
    "define",
    "listed",
    "literal",
    "lows",
    "newest_flag",
    "rollup",
    "run_rows",
    "summary_of",
]

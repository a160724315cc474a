"""The atlas format (:mod:`~computeatlas.cloud.importers.atlas`) read in columns, for an import
of millions of rows: the same observations and the same rejected rows as its row reader.

A plain file (:func:`~computeatlas.core.tabular.read_columns`) is loaded into DuckDB; each
distinct cell of a column is checked once by the row reader's own cell parsers
(:func:`~computeatlas.cloud.importers.atlas.cell_parsers`), and the observations' columns are
made in SQL from the checked values. A row with a bad cell is given to the row reader's own
parse (:func:`~computeatlas.cloud.importers.atlas.parser`), so it is rejected for the same
first bad cell in the same words. A file that is not plain gives None: the row reader reads it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

import duckdb

from computeatlas.cloud.importers.atlas import COLUMNS, NEED_TERM, cell_parsers, parser
from computeatlas.cloud.importers.cells import parsed
from computeatlas.core.tabular import TableError, read_columns

BATCH = "batch"
"""The view :func:`load` makes (over its table ``parsed``; :func:`~computeatlas.cloud.batch_rules.placed`
makes it a table): one row per accepted-for-checking row of the file, the
observation's published columns (:data:`~computeatlas.cloud.store` types) and ``line``, in no
set order (``line`` orders it)."""

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)

_TYPES = {
    "pricing": "VARCHAR",
    "unit": "VARCHAR",
    "provider": "VARCHAR",
    "amount": "DOUBLE",
    "currency": "VARCHAR",
    "price_basis": "VARCHAR",
    "accelerators": "INTEGER",
    "collected": "BIGINT",  # microseconds since 1970 (UTC)
}


@dataclass(frozen=True)
class Loaded:
    """What :func:`load` read: ``rows`` (every row of the file) and ``rejected`` (the
    :class:`TableError` of each row with a bad cell, in the file's order)."""

    rows: int
    rejected: list[TableError]


def _value(column: str, found: object) -> object:
    if column == "collected":
        assert isinstance(found, dt.datetime)
        return (found - EPOCH) // dt.timedelta(microseconds=1)
    return getattr(found, "value", found)  # an enum member as its word


def _checked(con: duckdb.DuckDBPyConnection, now: dt.datetime) -> None:
    """A table ``cell_<column>`` per parsed column: each distinct text, whether it is good and its value."""
    for column, parse in cell_parsers(now).items():
        texts = [row[0] for row in con.execute(f'SELECT DISTINCT "{column}" FROM raw').fetchall()]
        good, values = [], []
        for text in texts:
            try:
                values.append(_value(column, parse({column: text}, column)))
                good.append(True)
            except Exception:  # the row's own parse says why (load gives it every row that has one)
                values.append(None)
                good.append(False)
        con.execute(
            f"CREATE TEMP TABLE cell_{column} AS SELECT unnest(?::VARCHAR[]) AS text, unnest(?::BOOLEAN[]) AS good, "
            f"unnest(?::{_TYPES[column]}[]) AS v",
            [texts, good, values],
        )


TEXTS = ("instance_type", "region", "term", "source_url", "source_title", "via", "availability", "note")
"""The columns whose text the observation keeps stripped (:meth:`str.strip`)."""


def _stripped(con: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """Each of :data:`TEXTS` as the SQL of its stripped text: the raw column where no cell has
    whitespace to strip (the usual file), else through the table ``strip_<column>`` of the
    distinct cells that have, each stripped by :meth:`str.strip`."""
    out = {}
    for column in TEXTS:
        texts = [row[0] for row in con.execute(f'SELECT DISTINCT "{column}" FROM raw').fetchall()]
        changed = [(text, text.strip()) for text in texts if text != text.strip()]
        if changed:
            con.execute(
                f"CREATE TEMP TABLE strip_{column} AS SELECT unnest(?::VARCHAR[]) AS text, unnest(?::VARCHAR[]) AS v",
                [[c[0] for c in changed], [c[1] for c in changed]],
            )
            out[column] = f'coalesce(s_{column}.v, r."{column}")'
        else:
            out[column] = f'r."{column}"'
    return out


def load(con: duckdb.DuckDBPyConnection, path: Path, now: dt.datetime) -> Loaded | None:
    """Read the atlas-format file at ``path`` into the table :data:`BATCH` on ``con`` (whose
    time zone is UTC); None, creating nothing, when the file is not plain or a row's parse does
    not agree with its cells' checks (the row reader then reads the file). Raises
    :class:`TableError` for a header that lacks a column (as the row reader does)."""
    name = str(path)
    if read_columns(con, "raw", path, COLUMNS, name=name) is None:
        return None
    _checked(con, now)
    text = _stripped(con)
    need = ", ".join(f"'{k.value}'" for k in NEED_TERM)
    url = 'r."source_url"'
    good = (
        f"(p.good AND u.good AND NOT ({text['term']} = '' AND p.v IN ({need})) AND {text['instance_type']} <> '' "
        f"AND (starts_with({url}, 'http://') OR starts_with({url}, 'https://')) AND pr.good AND a.good "
        "AND c.good AND b.good AND n.good AND t.good)"
    )
    strips = " ".join(f'LEFT JOIN strip_{c} s_{c} ON s_{c}.text = r."{c}"' for c in TEXTS if text[c] != f'r."{c}"')
    con.execute(
        f"CREATE TEMP TABLE parsed AS SELECT r.line, {good} AS good, pr.v AS provider, {text['instance_type']} AS instance_type, "
        f"{text['region']} AS region, CASE WHEN p.v = 'on_demand' AND u.v = 'month' THEN 'monthly' "
        "WHEN p.v = 'on_demand' AND u.v = 'week' THEN 'weekly' ELSE p.v END AS pricing, "
        f"{text['term']} AS term, a.v AS amount, c.v AS currency, u.v AS unit, b.v AS price_basis, "
        "n.v AS stated_accelerators, NULL::DOUBLE AS stated_memory_gb, NULL::DOUBLE AS stated_per_accelerator, "
        "CAST(make_timestamp(t.v) AS TIMESTAMPTZ) AS collected, "
        f"{text['source_url']} AS source_url, {text['source_title']} AS source_title, "
        f"CASE WHEN {text['via']} = '' THEN $via ELSE {text['via']} END AS via, "
        f"{text['availability']} AS availability, {text['note']} AS note, '' AS raw_extra "
        "FROM raw r JOIN cell_pricing p ON p.text = r.pricing JOIN cell_unit u ON u.text = r.unit "
        "JOIN cell_provider pr ON pr.text = r.provider JOIN cell_amount a ON a.text = r.amount "
        "JOIN cell_currency c ON c.text = r.currency JOIN cell_price_basis b ON b.text = r.price_basis "
        f"JOIN cell_accelerators n ON n.text = r.accelerators JOIN cell_collected t ON t.text = r.collected {strips}",
        {"via": path.name},
    )
    cursor = con.execute("SELECT * FROM raw WHERE line IN (SELECT line FROM parsed WHERE NOT good) ORDER BY line")
    names = [d[0] for d in cursor.description or []]
    rejected: list[TableError] = []
    parse = parser(path, now)
    for row in cursor.fetchall():
        cells = dict(zip(names, row, strict=True))
        line = int(cells.pop("line"))
        result = parsed(parse, cells, path, name, line)
        if not isinstance(result, TableError):
            _drop(con)
            return None  # the checks and the parse disagree: the row reader decides
        rejected.append(result)
    total = con.execute("SELECT count(*) FROM raw").fetchone()
    con.execute("DELETE FROM parsed WHERE NOT good")
    con.execute(f"CREATE VIEW {BATCH} AS SELECT * EXCLUDE (good) FROM parsed")
    _drop(con, keep="parsed")
    return Loaded(int(total[0]) if total else 0, rejected)


def _drop(con: duckdb.DuckDBPyConnection, keep: str = "") -> None:
    con.execute("DROP VIEW IF EXISTS raw")
    for table in ("raw_cells", "parsed", *(f"cell_{c}" for c in _TYPES), *(f"strip_{c}" for c in TEXTS)):
        if table != keep:
            con.execute(f"DROP TABLE IF EXISTS {table}")


__all__ = ["BATCH", "Loaded", "load"]

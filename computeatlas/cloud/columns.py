"""Rows as Arrow columns, for the store to write as Parquet without a text round trip.

:func:`arrow_table` turns a run's rows (pydantic models, one field per stored column) into
one :class:`pyarrow.Table` whose columns DuckDB scans in place
(:meth:`computeatlas.cloud.store.Store.append` casts each to its stored type). pyarrow is
optional: without it, or for a value Arrow cannot hold as its column's type, the answer is
None and the store writes the rows through NDJSON as before.

Units and values are the rows' own: nothing is converted here but the container.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from operator import itemgetter
from typing import Any

from pydantic import BaseModel

ARROW_ROWS = 50_000
"""From how many rows Arrow is worth importing pyarrow for (about 0.25 s, once per process;
NDJSON serialises 50,000 rows in about as long). Once pyarrow is imported, every append uses it."""

_ARROW = {"VARCHAR": "string", "DOUBLE": "float64", "INTEGER": "int64", "TIMESTAMPTZ": "timestamp", "VARCHAR[]": "list"}
"""The stored types an Arrow column is made for (an INTEGER travels as int64 and is cast by
DuckDB, so a value out of range fails there, as it did through NDJSON)."""


def arrow_table(rows: Sequence[BaseModel], columns: Mapping[str, str]) -> Any | None:
    """``rows`` as a pyarrow Table with one column per name of ``columns`` (name → DuckDB
    type) in that order, each a row's field value (None is null).
    None when pyarrow is not installed (or not yet imported and the rows are fewer than
    :data:`ARROW_ROWS`), a type is not one of :data:`_ARROW`'s, or a value
    does not fit its column (the caller then serialises the rows another way). Every row must
    be of one model that has every column as a field (else None too)."""
    if "pyarrow" not in sys.modules and len(rows) < ARROW_ROWS:
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    if not rows or any(kind not in _ARROW for kind in columns.values()):
        return None
    names = list(columns)
    types = {"string": pa.string(), "float64": pa.float64(), "int64": pa.int64(), "timestamp": pa.timestamp("us", tz="UTC"),
             "list": pa.list_(pa.string())}
    model = type(rows[0])
    if any(name not in model.model_fields for name in names) or any(type(row) is not model for row in rows):
        return None  # a column the model lacks, or rows of several models: left to the general path
    if len(names) == 1:
        values: list[Sequence[object]] = [[row.__dict__[names[0]] for row in rows]]
    else:  # one tuple per row, then transposed: far fewer calls than one per value
        values = list(zip(*map(itemgetter(*names), (row.__dict__ for row in rows)), strict=True))
    try:
        arrays = [pa.array(column, type=types[_ARROW[columns[name]]]) for name, column in zip(names, values, strict=True)]
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None
    return pa.Table.from_arrays(arrays, names=names)


__all__ = ["ARROW_ROWS", "arrow_table"]

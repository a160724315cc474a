"""The silicon table as Parquet (needs the optional extra: ``pip install 'computeatlas[parquet]'``).

A Parquet column has one type, so a number column ``memory_gb`` is ``float64`` (null where
there is no number) and its state is kept in words in a companion column
``memory_gb_state`` ("published", "not published", "not applicable", "not comparable",
"not yet collected"). Text and date columns are strings and dates. The schema version,
data version and licence are in the file's key-value metadata.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from computeatlas.publish.exports.silicon_table import (
    LICENCE,
    SCHEMA_VERSION,
    SiliconTable,
)

PUBLISHED = "published"


class ParquetUnavailable(RuntimeError):
    """Raised when pyarrow, the optional ``parquet`` extra, is not installed."""


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise ParquetUnavailable(
            "Parquet needs pyarrow: install the extra with  pip install 'computeatlas[parquet]'"
        ) from None
    return pyarrow


def arrow_table(table: SiliconTable) -> Any:
    """The table as a ``pyarrow.Table``; raises :class:`ParquetUnavailable` without pyarrow."""
    pa = _pyarrow()
    arrays: dict[str, Any] = {}
    for i, column in enumerate(table.columns):
        cells = [row[i] for row in table.rows]
        if column.kind == "number":
            arrays[column.name] = pa.array([None if isinstance(v, str) else float(v) for v in cells], pa.float64())
            arrays[f"{column.name}_state"] = pa.array([v if isinstance(v, str) else PUBLISHED for v in cells], pa.string())
        elif column.kind == "date":
            arrays[column.name] = pa.array([dt.date.fromisoformat(str(v)) for v in cells], pa.date32())
        else:
            arrays[column.name] = pa.array([str(v) for v in cells], pa.string())
    metadata = {"schema_version": SCHEMA_VERSION, "data_version": table.data_version, "licence": LICENCE}
    return pa.table(arrays).replace_schema_metadata(metadata)


def write(table: SiliconTable, out: Path) -> list[Path]:
    """Write the Parquet file ``out``; return ``[out]``. Raises :class:`ParquetUnavailable`."""
    _pyarrow()
    import pyarrow.parquet as pq

    out.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(arrow_table(table), out)
    return [out]

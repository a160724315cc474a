"""The silicon table as Parquet (needs the optional extra: ``pip install 'computeatlas[parquet]'``).

The table's own tidy columns, typed: a number column such as ``memory_gb`` is ``float64``
(null where there is no number) and its state is in words in the table's companion column
``memory_gb_state``. Text and state columns are strings, dates are dates. The schema version,
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


class ParquetUnavailable(RuntimeError):
    """Raised when pyarrow, the optional ``parquet`` extra, is not installed."""


def _pyarrow() -> Any:
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise ParquetUnavailable("Parquet needs pyarrow: install the extra with  pip install 'computeatlas[parquet]'") from None
    return pyarrow


def arrow_table(table: SiliconTable) -> Any:
    """The table as a ``pyarrow.Table``; raises :class:`ParquetUnavailable` without pyarrow."""
    pa = _pyarrow()
    arrays: dict[str, Any] = {}
    for i, column in enumerate(table.columns):
        cells = [row[i] for row in table.rows]
        if column.kind == "number":
            arrays[column.name] = pa.array([None if v is None else float(v) for v in cells], pa.float64())
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

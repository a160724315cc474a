"""The silicon table as one JSON document: the schema, provenance and the rows.

Shape::

    {"name", "title", "schema_version", "data_version", "last_verified", "licence",
     "licence_url", "states": [...], "columns": [{"name", "type", "unit", "description"}],
     "rows": [{"id": "...", "memory_gb": 80, "power_w": null, "power_w_state": "not published", ...}]}

Numbers are JSON numbers in the column's unit, null where there is none; the ``_state``
column beside each says why in words, exactly as in the CSV.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from computeatlas.publish.exports.silicon_table import (
    NAME,
    STATE_WORDS,
    SiliconTable,
    columns_view,
)


def document(table: SiliconTable) -> dict[str, Any]:
    """The table as a JSON-ready dict (see the module docstring for its shape)."""
    return {
        "name": NAME,
        **table.about(),
        "states": list(STATE_WORDS),
        "columns": [c.model_dump() for c in columns_view(table.columns)],
        "rows": list(table.records()),
    }


def to_text(table: SiliconTable) -> str:
    """The document as indented UTF-8 JSON text."""
    return json.dumps(document(table), ensure_ascii=False, indent=2) + "\n"


def write(table: SiliconTable, out: Path) -> list[Path]:
    """Write the JSON file ``out``; return ``[out]``."""
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(to_text(table), encoding="utf-8")
    return [out]

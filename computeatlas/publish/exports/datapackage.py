"""A Frictionless data package: ``silicon.csv`` plus ``datapackage.json`` describing it.

The descriptor follows the Data Package / Table Schema specifications: one tabular
resource with its CSV dialect, its fields (type, unit and description, generated from the
one column model), ``id`` as the primary key, and the empty cell as the only missing
value: a number field holds numbers only, and each ``_state`` field (constrained to the
state words) says why its number is empty.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from computeatlas.publish.exports import csv as csv_export
from computeatlas.publish.exports.silicon_table import (
    LICENCE,
    LICENCE_TITLE,
    LICENCE_URL,
    NAME,
    SCHEMA_VERSION,
    TITLE,
    SiliconTable,
)

CSV_NAME = "silicon.csv"
DESCRIPTOR_NAME = "datapackage.json"


def descriptor(table: SiliconTable, csv_path: str = CSV_NAME) -> dict[str, Any]:
    """The ``datapackage.json`` content for the table's CSV at ``csv_path`` (relative)."""
    fields = []
    for column in table.columns:
        field: dict[str, Any] = {"name": column.name, "type": column.kind if column.kind in ("number", "date") else "string"}
        description = column.description + (f" Unit: {column.unit}." if column.unit else "")
        field["description"] = description
        if column.name == "id":
            field["constraints"] = {"required": True, "unique": True}
        elif column.choices:
            field["constraints"] = {"required": True, "enum": list(column.choices)}
        fields.append(field)
    return {
        "profile": "tabular-data-package",
        "name": NAME,
        "title": TITLE,
        "description": "One row per AI accelerator: memory, bandwidth, compute per number format (dense, "
        "with the sparse figure beside it), power, interconnect, derived figures, verified date and sources. "
        "Number columns hold numbers only; the _state column beside each says in words why a number is empty, "
        "and _stated columns keep the vendor's own figure or words.",
        "version": f"{SCHEMA_VERSION}+{table.data_version}",
        "licenses": [{"name": LICENCE, "title": LICENCE_TITLE, "path": LICENCE_URL}],
        "resources": [
            {
                "name": "silicon",
                "path": csv_path,
                "profile": "tabular-data-resource",
                "format": "csv",
                "mediatype": "text/csv",
                "encoding": "utf-8",
                "dialect": {"delimiter": ",", "lineTerminator": "\r\n", "quoteChar": '"', "doubleQuote": True, "header": True},
                "schema": {"fields": fields, "primaryKey": ["id"], "missingValues": [""]},
            }
        ],
    }


def write(table: SiliconTable, out: Path) -> list[Path]:
    """Write ``silicon.csv`` and ``datapackage.json`` into the folder ``out``; return both paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = csv_export.write(table, out / CSV_NAME)
    path = out / DESCRIPTOR_NAME
    path.write_text(json.dumps(descriptor(table), ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    return [*written, path]

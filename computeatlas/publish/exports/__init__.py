"""The silicon table as datasets: CSV, JSON, Parquet, SQLite, a Frictionless data package
and a Hugging Face dataset folder, all built from :func:`silicon_table.build`.

:data:`FORMATS` maps each format name (as ``computeatlas export --format`` takes it) to
its writer ``write(table, out: Path) -> list[Path]``; folder formats (``datapackage``,
``huggingface``) take a folder, the others a file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from computeatlas.publish.exports import csv, datapackage, huggingface, json, parquet, sqlite
from computeatlas.publish.exports.silicon_table import SiliconTable, build

FORMATS: dict[str, Callable[[SiliconTable, Path], list[Path]]] = {
    "csv": csv.write,
    "json": json.write,
    "parquet": parquet.write,
    "sqlite": sqlite.write,
    "datapackage": datapackage.write,
    "huggingface": huggingface.write,
}
"""Format name → writer (pyarrow is imported by the Parquet writer only when it writes)."""

FOLDER_FORMATS = frozenset({"datapackage", "huggingface"})
"""Formats whose ``out`` is a folder rather than a file."""

__all__ = ["FOLDER_FORMATS", "FORMATS", "build"]

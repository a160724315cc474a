"""The silicon table as datasets: CSV, JSON, Parquet, SQLite, a Frictionless data package
and a Hugging Face dataset folder, all built from :func:`silicon_table.build`.

:data:`FORMATS` maps each format name (as ``computeatlas export --format`` takes it) to
its writer ``write(table, out: Path) -> list[Path]``; folder formats (``datapackage``,
``huggingface``) take a folder, the others a file.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from computeatlas.publish.exports.silicon_table import SiliconTable, build


def _writer(module: str) -> Callable[[SiliconTable, Path], list[Path]]:
    def write(table: SiliconTable, out: Path) -> list[Path]:
        import importlib

        return importlib.import_module(f"computeatlas.publish.exports.{module}").write(table, out)

    write.__doc__ = f"Write the table with :mod:`computeatlas.publish.exports.{module}`."
    return write


FORMATS: dict[str, Callable[[SiliconTable, Path], list[Path]]] = {
    name: _writer(name) for name in ("csv", "json", "parquet", "sqlite", "datapackage", "huggingface")
}
"""Format name → writer; imported lazily so that pyarrow is needed only for Parquet."""

FOLDER_FORMATS = frozenset({"datapackage", "huggingface"})
"""Formats whose ``out`` is a folder rather than a file."""

__all__ = ["FOLDER_FORMATS", "FORMATS", "build"]

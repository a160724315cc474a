"""The silicon table: one row per accelerator, with a documented, versioned column schema.

Every export format (CSV, JSON, Parquet, SQLite, Frictionless data package, Hugging Face
folder) and the ``/data/`` page are built from :func:`build`, so they cannot disagree. The
columns are the one column model of :mod:`computeatlas.silicon.columns` (the ``/silicon/``
page uses the same figures, rounded once), and every cell is decided by
:mod:`computeatlas.core.presentation`.

The table is tidy: a ``number`` column holds a plain number in the unit its name carries
(``memory_gb`` in GB = 10^9 bytes, ``fp8_dense_tflops`` in 10^12 FLOP/s, ``int8_dense_tops``
in 10^12 OP/s) or nothing; its ``{name}_state`` column says in words why it is empty
(published, published as text, not published, not applicable, not comparable, not yet
sourced, not yet collected). The vendor's own figure or words sit beside it in a
``_stated`` column. Only published per-accelerator figures become numbers; compute is
dense, with the sparse figure and its pattern beside it; derived figures carry the state
of their weakest input.

The column names are fixed by :data:`SCHEMA_VERSION`; ``tests/test_exports.py`` holds
the frozen list, so a change of columns fails the tests until the version is raised and
:data:`SCHEMA_CHANGES` says what changed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, Field

from computeatlas.catalog import Catalog
from computeatlas.core.presentation import STATE_WORDS as _SHOWN_WORDS
from computeatlas.core.provenance import read_from
from computeatlas.core.states import DERIVED_LABEL
from computeatlas.silicon.columns import Column, Kind, Value, export_columns

SCHEMA_VERSION = "3.1.0"
"""Version of the column schema; raised whenever a column is added, removed, renamed or re-unit-ed
(the major part), or a column's words change (the minor part)."""

SCHEMA_CHANGES: tuple[tuple[str, dt.date, str], ...] = (
    ("1.0.0", dt.date(2026, 11, 30), "First published schema."),
    (
        "2.0.0",
        dt.date(2026, 12, 1),
        "Tidy: number columns hold numbers only (empty where there is none) with a {name}_state column beside each; "
        "the vendor's stated figure or words in {spec}_stated columns; memory_bytes; {format}_sparse_pattern; "
        "the state vocabulary adds 'published as text' and 'not yet sourced'.",
    ),
    (
        "3.0.0",
        dt.date(2026, 12, 1),
        "interconnect_bandwidth_gbps is split by what the source counts: interconnect_bidirectional_gbps, "
        "interconnect_per_direction_gbps and interconnect_direction_not_stated_gbps (each with its _state), and "
        "interconnect_direction says which.",
    ),
    (
        "3.1.0",
        dt.date(2026, 12, 4),
        "The {format}_sparse_pattern columns write the bare pattern 2:4 as '2:4 structured' (a spreadsheet read 2:4 "
        "as a time of day); the CSV opens with a UTF-8 byte-order mark and writes times as 2026-03-21T06:19:35Z.",
    ),
)
"""``(version, date, what changed)``, newest last."""

LICENCE = "CC-BY-NC-4.0"
LICENCE_TITLE = "Creative Commons Attribution-NonCommercial 4.0 International"
LICENCE_URL = "https://creativecommons.org/licenses/by-nc/4.0/"
TITLE = "Compute Atlas silicon table"
NAME = "compute-atlas-silicon"

STATE_WORDS: tuple[str, ...] = (*_SHOWN_WORDS, DERIVED_LABEL)
"""Every word a ``_state`` column may hold (derived columns read "derived from published figures" where computed)."""


@dataclass(frozen=True)
class SiliconTable:
    """The built table: columns, one tuple of cells per accelerator, and provenance.

    ``rows`` follow the catalog's order (by name). ``data_version`` is the catalog's
    content hash; ``last_verified`` the newest ``verified`` date among the rows.
    ``sources`` has one tuple per (accelerator, source) in :data:`SOURCE_COLUMNS` order.
    """

    columns: tuple[Column, ...]
    rows: tuple[tuple[Value, ...], ...]
    data_version: str
    last_verified: dt.date | None
    sources: tuple[tuple[str | None, ...], ...] = ()

    @property
    def names(self) -> list[str]:
        """The column names, in order."""
        return [c.name for c in self.columns]

    def about(self) -> dict[str, str | None]:
        """What every format says about the table: title, schema and data versions, the
        newest verified date (ISO) and the licence with its URL."""
        return {
            "title": TITLE,
            "schema_version": SCHEMA_VERSION,
            "data_version": self.data_version,
            "last_verified": self.last_verified.isoformat() if self.last_verified else None,
            "licence": LICENCE,
            "licence_url": LICENCE_URL,
        }

    def records(self) -> Iterator[dict[str, Value]]:
        """Each row as a ``{column name: cell}`` dict."""
        names = self.names
        for row in self.rows:
            yield dict(zip(names, row, strict=True))


COLUMNS: tuple[Column, ...] = export_columns()
"""The columns of schema :data:`SCHEMA_VERSION`, in order."""

SOURCE_COLUMNS = ("accelerator_id", "key", "title", "url", "publisher", "kind", "accessed", "read_from", "read_at", "copy_form", "copy_of")
"""Columns of the long sources table (SQLite): one row per accelerator and source. ``kind`` is
who wrote the document; ``read_from`` the host we read it on, ``read_at`` maker_hosted,
maker_copy or elsewhere, ``copy_form`` verbatim or conversion for a copy, ``copy_of`` its original."""


def build(catalog: Catalog) -> SiliconTable:
    """Build the table from the catalog's accelerators (in catalog order, by name)."""
    accelerators = list(catalog.accelerators.values())
    rows = tuple(tuple(c.get(catalog, acc) for c in COLUMNS) for acc in accelerators)
    sources = tuple(
        (
            acc.id,
            key,
            s.title,
            s.url,
            s.publisher,
            s.kind.value,
            s.accessed.isoformat(),
            read_from(s.url),
            catalog.vendor_of(acc).read_at(s).value,
            s.copy_form.value if s.copy_form else None,
            s.copy_of,
        )
        for acc in accelerators
        for key, s in acc.sources.items()
    )
    verified = [a.verified for a in accelerators]
    return SiliconTable(COLUMNS, rows, catalog.version, max(verified, default=None), sources)


# --- the description shown on /data/ and /api/dataset ------------------------------------


class ColumnView(BaseModel):
    """One column of the schema as documented on ``/data/`` and in every export."""

    name: str
    type: Kind
    unit: str | None = None
    description: str


class SchemaChange(BaseModel):
    """One entry of the schema's change log."""

    version: str
    date: dt.date
    change: str


class DatasetView(BaseModel):
    """What the dataset holds: the body of ``/api/dataset`` and the data of ``/data/``."""

    title: str = TITLE
    schema_version: str = SCHEMA_VERSION
    schema_changes: list[SchemaChange]
    data_version: str = Field(description="content hash of the data folder the table is built from")
    last_verified: dt.date | None = Field(description="newest date any row was checked against its sources")
    licence: str = LICENCE
    licence_title: str = LICENCE_TITLE
    licence_url: str = LICENCE_URL
    rows: int = Field(description="accelerators in the table")
    states: list[str] = Field(description="words a _state column holds (why the number beside it is empty, or that it is published)")
    columns: list[ColumnView]


def columns_view(columns: Sequence[Column] = COLUMNS) -> list[ColumnView]:
    """The documented schema of ``columns``."""
    return [ColumnView(name=c.name, type=c.kind, unit=c.unit, description=c.description) for c in columns]


def describe(catalog: Catalog) -> DatasetView:
    """The dataset's description for ``catalog``: schema, version, licence, size."""
    table = build(catalog)
    return DatasetView(
        schema_changes=[SchemaChange(version=v, date=d, change=t) for v, d, t in SCHEMA_CHANGES],
        data_version=table.data_version,
        last_verified=table.last_verified,
        rows=len(table.rows),
        states=list(STATE_WORDS),
        columns=columns_view(table.columns),
    )


__all__ = [
    "COLUMNS",
    "LICENCE",
    "LICENCE_URL",
    "SCHEMA_CHANGES",
    "SCHEMA_VERSION",
    "SOURCE_COLUMNS",
    "STATE_WORDS",
    "ColumnView",
    "DatasetView",
    "SiliconTable",
    "build",
    "describe",
]

"""The silicon table: one row per accelerator, with a documented, versioned column schema.

Every export format (CSV, JSON, Parquet, SQLite, Frictionless data package, Hugging Face
folder) and the ``/data/`` page are built from :func:`build`, so they cannot disagree.

Cells are one of:

- a plain number (``int`` or ``float``) in the unit the column name carries
  (``memory_gb`` is in GB = 10^9 bytes, ``fp8_dense_tflops`` in 10^12 FLOP/s);
- a state in words: ``"not published"`` (the vendor withholds it), ``"not applicable"``
  (the hardware has no such thing), ``"not comparable"`` (published only on another
  basis, e.g. per rack or sparse only), ``"not yet collected"`` (nobody has looked);
- text (names, the software stack) or an ISO date (``verified``).

Only published per-accelerator figures (:attr:`~computeatlas.model.Claim.comparable`)
become numbers; a per-rack or per-superchip figure is never shown as a per-accelerator
number. Compute is dense; the 2:4 (or vendor-stated) sparse figure sits in its own column
beside it. Derived figures follow the rule that a figure derived from a number that is not
published is itself not published.

The column names are fixed by :data:`SCHEMA_VERSION`; ``tests/test_exports.py`` holds
the frozen list, so a change of columns fails the tests until the version is raised and
:data:`SCHEMA_CHANGES` says what changed.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, Field

from computeatlas.core.catalog import Catalog
from computeatlas.core.claims import Claim, ComputeSpec, MemorySpec, NumberFormat, State
from computeatlas.silicon.records import Accelerator

SCHEMA_VERSION = "1.0.0"
"""Version of the column schema; raised whenever a column is added, removed, renamed or re-unit-ed."""

SCHEMA_CHANGES: tuple[tuple[str, dt.date, str], ...] = (
    ("1.0.0", dt.date(2026, 11, 30), "First published schema."),
)
"""``(version, date, what changed)``, newest last."""

LICENCE = "CC-BY-NC-4.0"
LICENCE_TITLE = "Creative Commons Attribution-NonCommercial 4.0 International"
LICENCE_URL = "https://creativecommons.org/licenses/by-nc/4.0/"
TITLE = "Compute Atlas silicon table"
NAME = "compute-atlas-silicon"

NOT_YET_COLLECTED = "not yet collected"
STATE_WORDS: tuple[str, ...] = (
    State.NOT_PUBLISHED.label,
    State.NOT_APPLICABLE.label,
    State.NOT_COMPARABLE.label,
    NOT_YET_COLLECTED,
)
"""Every word a cell may hold instead of a number."""

Value = str | int | float
"""A cell: a plain number, a state word, text or an ISO date string."""
Kind = Literal["text", "number", "date"]


@dataclass(frozen=True, slots=True)
class Column:
    """One column: ``name`` (with its unit in it), ``kind``, ``unit`` and a description.

    ``get(catalog, accelerator)`` returns the cell. For ``number`` columns the cell is a
    number in ``unit`` or one of :data:`STATE_WORDS`.
    """

    name: str
    kind: Kind
    description: str
    get: Callable[[Catalog, Accelerator], Value]
    unit: str | None = None


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
    sources: tuple[tuple[str, ...], ...] = ()

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


# --- cells -----------------------------------------------------------------------------


def plain(number: float) -> int | float:
    """A figure as a plain number: 12 significant digits (no float noise), int when whole."""
    rounded = float(f"{number:.12g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


def plain_text(number: int | float) -> str:
    """A number as text without exponent or thousands separator: ``1e-05`` → ``"0.00001"``."""
    if isinstance(number, int):
        return str(number)
    text = format(Decimal(repr(number)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def _state_word(claim: Claim | None) -> str:
    """The words for a claim that is not a comparable number."""
    if claim is None:
        return NOT_YET_COLLECTED
    if claim.state is State.PUBLISHED:
        # published, but on a basis that is not per accelerator, or as text only
        return State.NOT_COMPARABLE.label if claim.figure is not None else State.NOT_PUBLISHED.label
    return claim.state.label


def figure(claim: Claim | None, scale: float) -> Value:
    """A claim's per-accelerator figure divided by ``scale``, or its state in words.

    A published text-only claim (``interconnect = "NVLink"`` with no bandwidth) has no
    figure: ``"not published"``.
    """
    if claim is not None and claim.comparable and claim.figure is not None:
        return plain(claim.figure.amount / scale)
    return _state_word(claim)


def sparse_figure(claim: ComputeSpec | None, scale: float) -> Value:
    """The structured-sparsity figure beside a dense one, or the words for its absence.

    Where the dense figure is published but no sparse one is, the sparse cell reads
    "not published"; where the dense cell is a state, the sparse cell carries the same state.
    """
    if claim is None:
        return NOT_YET_COLLECTED
    if claim.comparable and claim.sparse_figure is not None:
        return plain(claim.sparse_figure.amount / scale)
    if claim.state is State.PUBLISHED and claim.comparable:
        return State.NOT_PUBLISHED.label
    return _state_word(claim)


_PRECEDENCE = (State.NOT_APPLICABLE.label, State.NOT_PUBLISHED.label, State.NOT_SOURCED.label, NOT_YET_COLLECTED)


def ratio(numerator: Claim | None, denominator: Claim | None, scale: float = 1.0) -> Value:
    """``numerator ÷ denominator ÷ scale`` in canonical units, when both are comparable numbers.

    Otherwise the state that stops it, as :mod:`computeatlas.silicon.derive` rules: "not
    applicable" (there is no such thing to derive), then "not published" (an input that
    is withheld or not comparable per accelerator: a derived figure built on it is itself
    withheld), then "not yet collected". Used only when :mod:`computeatlas.silicon.derive` is absent.
    """
    a, b = figure(numerator, 1.0), figure(denominator, 1.0)
    if isinstance(a, str) or isinstance(b, str):
        words = {State.NOT_PUBLISHED.label if w == State.NOT_COMPARABLE.label else w for w in (a, b) if isinstance(w, str)}
        return next(w for w in _PRECEDENCE if w in words)
    return plain(a / b / scale)


def _derived(name: str, *args: object, scale: float = 1.0) -> Value:
    """A figure from :mod:`computeatlas.silicon.derive` (``derive.<name>(*args)``) divided by ``scale``,
    or its state in words; ``None`` when that module is not installed."""
    try:
        from computeatlas.silicon import derive
    except ImportError:
        return None  # type: ignore[return-value]
    result = getattr(derive, name)(*args)
    return plain(result.value / scale) if result.value is not None else result.state_label


def _text(claim: Claim) -> str:
    """A descriptive claim (interconnect, software) as its text or its state in words."""
    if claim.state is State.PUBLISHED and claim.text:
        return claim.text
    if claim.state is State.PUBLISHED:
        return claim.value or State.NOT_PUBLISHED.label
    return claim.state.label


def _memory_type(acc: Accelerator) -> str:
    memory: MemorySpec = acc.specs.memory
    if memory.memory_type:
        return memory.memory_type
    return memory.state.label if memory.state is not State.PUBLISHED else NOT_YET_COLLECTED


def _sources(acc: Accelerator) -> str:
    """Every source as ``title — publisher [kind] url``; ``[vendor]`` marks the party that sells it."""
    return " | ".join(f"{s.title} — {s.publisher} [{s.kind.value}] {s.url}" for s in acc.sources.values())


def _disputed(acc: Accelerator) -> str:
    keys = [key for key, claim in acc.claims() if claim.disputed]
    return ", ".join(keys) if keys else "none"


def _compute_unit(fmt: NumberFormat) -> tuple[str, str]:
    """``(name suffix, unit)``: ``("tops", "TOPS")`` for integer formats, else TFLOPS."""
    return ("tops", "TOPS (10^12 OP/s)") if fmt.is_integer else ("tflops", "TFLOPS (10^12 FLOP/s)")


def _compute_columns() -> Iterator[Column]:
    for fmt in NumberFormat:
        suffix, unit = _compute_unit(fmt)
        key = fmt.value.lower()
        yield Column(
            f"{key}_dense_{suffix}",
            "number",
            f"Peak {fmt.value} throughput per accelerator, dense, as the vendor states it.",
            lambda _c, a, fmt=fmt: figure(a.specs.compute.get(fmt), 1e12),
            unit,
        )
        yield Column(
            f"{key}_sparse_{suffix}",
            "number",
            f"Peak {fmt.value} throughput with structured sparsity (2:4 unless the vendor states another pattern), "
            "where the vendor publishes it.",
            lambda _c, a, fmt=fmt: sparse_figure(a.specs.compute.get(fmt), 1e12),
            unit,
        )


DERIVED_FORMATS = (NumberFormat.FP4, NumberFormat.FP8, NumberFormat.BF16)
"""Number formats the table gives derived figures for."""


def _derived_columns() -> Iterator[Column]:
    """Figures derived from published per-accelerator figures by :mod:`computeatlas.silicon.derive`
    (formula in each description); a built-in fallback computes the same ratios if that
    module is absent."""
    for fmt in DERIVED_FORMATS:
        key = fmt.value.lower()

        def get(_c: Catalog, a: Accelerator, fmt: NumberFormat = fmt) -> Value:
            got = _derived("ridge_point", a, fmt)
            return ratio(a.specs.compute.get(fmt), a.specs.memory_bandwidth) if got is None else got

        yield Column(
            f"ridge_point_{key}_flop_per_byte", "number",
            f"Derived from published figures: {fmt.value} dense FLOP/s ÷ memory bandwidth in bytes/s. "
            "Below this many FLOP per byte moved, work is bound by memory bandwidth.",
            get, "FLOP/byte",
        )

    def sweeps(_c: Catalog, a: Accelerator) -> Value:
        got = _derived("bandwidth_per_capacity", a)
        return ratio(a.specs.memory_bandwidth, a.specs.memory) if got is None else got

    yield Column(
        "memory_sweeps_per_s", "number",
        "Derived from published figures: memory bandwidth (bytes/s) ÷ memory capacity (bytes): "
        "how many times per second the whole memory can be read.",
        sweeps, "1/s",
    )
    for fmt in DERIVED_FORMATS:
        key = fmt.value.lower()

        def per_watt(_c: Catalog, a: Accelerator, fmt: NumberFormat = fmt) -> Value:
            got = _derived("compute_per_watt", a, fmt, scale=1e12)
            return ratio(a.specs.compute.get(fmt), a.specs.power, 1e12) if got is None else got

        yield Column(
            f"{key}_dense_tflops_per_w", "number",
            f"Derived from published figures: {fmt.value} dense throughput (TFLOPS) ÷ power (W). "
            "A peak rate over the vendor's power rating, not a measured efficiency.",
            per_watt, "TFLOPS/W",
        )
    for fmt in DERIVED_FORMATS:
        key = fmt.value.lower()

        def largest(_c: Catalog, a: Accelerator, fmt: NumberFormat = fmt) -> Value:
            got = _derived("largest_model", a, fmt, scale=1e9)
            if got is not None:
                return got
            claim = a.specs.compute.get(fmt)
            if claim is not None and claim.state is State.NOT_APPLICABLE:
                return State.NOT_APPLICABLE.label
            memory = figure(a.specs.memory, 1.0)
            return plain(memory * 8 / fmt.bits / 1e9) if not isinstance(memory, str) else ratio(a.specs.memory, a.specs.memory)

        yield Column(
            f"largest_model_{key}_billion_params", "number",
            f"Derived from published figures: memory (bytes) × 8 ÷ {fmt.bits} bits per weight, in billions of "
            f"parameters: the largest model whose {fmt.value} weights alone fit (KV cache and activations need more).",
            largest, "10^9 parameters",
        )


def _columns() -> tuple[Column, ...]:
    head = (
        Column("id", "text", "Accelerator id (primary key); its page is /silicon/{id}.", lambda _c, a: a.id),
        Column("name", "text", "Name as the vendor sells it.", lambda _c, a: a.name),
        Column("vendor", "text", "Company that designs the part.", lambda c, a: c.vendor_of(a).name),
        Column("vendor_id", "text", "Vendor id.", lambda _c, a: a.vendor),
        Column("family", "text", "Product family.", lambda _c, a: a.family),
        Column("form_factor", "text", "Physical form (SXM module, PCIe card, cloud accelerator, ...).", lambda _c, a: a.form_factor),
        Column("workload", "text", "training, inference or both.", lambda _c, a: a.workload.value),
        Column("availability", "text", "buy, rent or cloud-only.", lambda _c, a: a.availability.value),
        Column("memory_gb", "number", "Memory capacity per accelerator.", lambda _c, a: figure(a.specs.memory, 1e9), "GB (10^9 bytes)"),
        Column("memory_type", "text", "Memory technology (HBM3e, GDDR6, SRAM, ...).", lambda _c, a: _memory_type(a)),
        Column(
            "memory_bandwidth_tbps", "number", "Memory bandwidth per accelerator.",
            lambda _c, a: figure(a.specs.memory_bandwidth, 1e12), "TB/s (10^12 bytes/s)",
        ),
    )
    tail = (
        Column("power_w", "number", "TDP or maximum board power per accelerator.", lambda _c, a: figure(a.specs.power, 1.0), "W"),
        Column("interconnect", "text", "Scale-up interconnect technology.", lambda _c, a: _text(a.specs.interconnect)),
        Column(
            "interconnect_bandwidth_gbps", "number", "Scale-up interconnect bandwidth per accelerator.",
            lambda _c, a: figure(a.specs.interconnect, 1e9), "GB/s (10^9 bytes/s)",
        ),
        Column("software", "text", "Software stack.", lambda _c, a: _text(a.specs.software)),
        Column("audience", "text", "Who the part is for.", lambda _c, a: a.audience),
        Column("catch", "text", "What a buyer should know before committing.", lambda _c, a: a.catch),
    )
    provenance = (
        Column("disputed_specs", "text", "Specs where sources disagree (the primary figure is in the table), or 'none'.", lambda _c, a: _disputed(a)),
        Column("verified", "date", "Date someone last checked every figure of the row against its sources.", lambda _c, a: a.verified.isoformat()),
        Column("sources", "text", "Every source as 'title — publisher [kind] url', separated by ' | '; [vendor] marks the party that sells the part.", lambda _c, a: _sources(a)),
    )
    return (*head, *_compute_columns(), *tail, *_derived_columns(), *provenance)


COLUMNS: tuple[Column, ...] = _columns()
"""The columns of schema :data:`SCHEMA_VERSION`, in order."""

SOURCE_COLUMNS = ("accelerator_id", "key", "title", "url", "publisher", "kind", "accessed")
"""Columns of the long sources table (SQLite): one row per accelerator and source."""


def build(catalog: Catalog) -> SiliconTable:
    """Build the table from the catalog's accelerators (in catalog order, by name)."""
    accelerators = list(catalog.accelerators.values())
    rows = tuple(tuple(c.get(catalog, acc) for c in COLUMNS) for acc in accelerators)
    sources = tuple(
        (acc.id, key, s.title, s.url, s.publisher, s.kind.value, s.accessed.isoformat())
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
    states: list[str] = Field(description="words a number column holds when there is no number")
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
    "COLUMNS", "Column", "ColumnView", "DatasetView", "LICENCE", "LICENCE_URL", "SCHEMA_CHANGES", "SCHEMA_VERSION",
    "SOURCE_COLUMNS", "STATE_WORDS", "SiliconTable", "Value", "build", "describe", "figure", "plain", "plain_text", "ratio",
]

"""The one column model of the silicon table: the ``/silicon/`` page and every export use it.

A :class:`Figure` is a figure column: how to present the figure of one accelerator
(:mod:`computeatlas.core.presentation`), its display unit and scale. Rounding is decided
once (:func:`~computeatlas.core.presentation.plain`), so the page and the exports show the
same number. For the exports each figure becomes tidy columns (:class:`Column`):

- ``{name}``: a plain number in the unit its name carries, empty where there is none;
- ``{name}_state``: the state in words (published, published as text, not published, not
  applicable, not comparable, not yet sourced, not yet collected; derived columns read
  "derived from published figures" where computed);
- for a figure read from a record, ``{spec}_stated``: the figure or words as the source
  wrote them (``144 GiB`` stays ``144 GiB``; power "Up to 700 W (board)" stays words);
- memory also in bytes (``memory_bytes``), and compute's sparsity pattern beside the sparse
  figure (``{format}_sparse_pattern``: 2:4 unless the vendor states another).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

from computeatlas.core.claims import Claim, MemorySpec, NumberFormat
from computeatlas.core.links import LinkDirection
from computeatlas.core.numbers import compute_unit, operations, tera_unit
from computeatlas.core.presentation import STATE_WORDS, Presented, present, present_link, present_sparse, where_read
from computeatlas.core.states import DERIVED_LABEL, State
from computeatlas.core.units import Dimension
from computeatlas.silicon import derive
from computeatlas.silicon.catalog import SiliconCatalog
from computeatlas.silicon.records import Accelerator

Value = str | int | float | None
"""A cell: a plain number (None where there is none), words, or an ISO date string."""
Kind = Literal["text", "number", "date", "state"]
"""``state`` columns hold one of the state words beside a number column."""


@dataclass(frozen=True, slots=True)
class Column:
    """One export column: ``name`` (with its unit in it), ``kind``, ``unit`` and a description.

    ``get(catalog, accelerator)`` returns the cell; ``choices`` lists the words a state
    column may hold.
    """

    name: str
    kind: Kind
    description: str
    get: Callable[[SiliconCatalog, Accelerator], Value]
    unit: str | None = None
    choices: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure column: ``present(acc)`` says what is shown; numbers are ``amount / scale`` in ``unit``.

    ``stated`` names the companion column holding what the source wrote (None for derived
    figures); ``dimension`` lets the page read range filters written with a unit.
    """

    name: str
    unit: str
    unit_text: str
    scale: float
    description: str
    present: Callable[[Accelerator], Presented]
    dimension: Dimension | None = None
    stated: str | None = None
    derived: bool = False

    def number(self, acc: Accelerator) -> int | float | None:
        """The number shown for ``acc`` in :attr:`unit`, rounded once, or None."""
        return self.present(acc).scaled(self.scale)

    def columns(self) -> Iterator[Column]:
        """The tidy export columns of this figure: number, state, and what the source stated."""
        yield Column(self.name, "number", self.description, lambda _c, a: self.number(a), self.unit_text)
        words = (*STATE_WORDS, DERIVED_LABEL) if self.derived else STATE_WORDS
        yield Column(
            f"{self.name}_state",
            "state",
            f"State of {self.name} in words (why the number is empty where it is).",
            lambda _c, a: self.present(a).label,
            None,
            words,
        )
        if self.stated:
            yield Column(
                self.stated,
                "text",
                f"{self.name} as the source wrote it (figure with its unit, or the vendor's words); empty where nothing is stated.",
                lambda _c, a: self.present(a).stated or "",
            )


def _spec(get: Callable[[Accelerator], Claim | None], unit: str, what: str) -> Callable[[Accelerator], Presented]:
    return lambda acc: present(get(acc), unit=unit, what=what, figure=True)


def _dense(fmt: NumberFormat) -> Figure:
    suffix = tera_unit(fmt).lower()
    return Figure(
        f"{fmt.value.lower()}_dense_{suffix}",
        tera_unit(fmt),
        f"{tera_unit(fmt)} (10^12 {compute_unit(fmt)})",
        1e12,
        f"Peak {fmt.value} throughput per accelerator, dense, as the vendor states it.",
        _spec(lambda a: a.compute(fmt), compute_unit(fmt), f"{fmt.value} compute"),
        Dimension.COMPUTE,
        f"{fmt.value.lower()}_dense_stated",
    )


def _sparse(fmt: NumberFormat) -> Figure:
    suffix = tera_unit(fmt).lower()
    return Figure(
        f"{fmt.value.lower()}_sparse_{suffix}",
        tera_unit(fmt),
        f"{tera_unit(fmt)} (10^12 {compute_unit(fmt)})",
        1e12,
        f"Peak {fmt.value} throughput with structured sparsity (pattern in {fmt.value.lower()}_sparse_pattern), where "
        "the record holds the vendor's sparse figure; 'not yet collected' where it holds none.",
        lambda a: present_sparse(a.compute(fmt), unit=compute_unit(fmt), what=f"{fmt.value} sparse compute"),
        Dimension.COMPUTE,
        f"{fmt.value.lower()}_sparse_stated",
    )


MEMORY = Figure(
    "memory_gb",
    "GB",
    "GB (10^9 bytes)",
    1e9,
    "Memory capacity per accelerator.",
    _spec(lambda a: a.specs.memory, "B", "memory"),
    Dimension.MEMORY,
    "memory_stated",
)
BANDWIDTH = Figure(
    "memory_bandwidth_tbps",
    "TB/s",
    "TB/s (10^12 bytes/s)",
    1e12,
    "Memory bandwidth per accelerator.",
    _spec(lambda a: a.specs.memory_bandwidth, "B/s", "memory bandwidth"),
    Dimension.BANDWIDTH,
    "memory_bandwidth_stated",
)
POWER = Figure(
    "power_w",
    "W",
    "W",
    1.0,
    "TDP or maximum board power per accelerator.",
    _spec(lambda a: a.specs.power, "W", "power"),
    Dimension.POWER,
    "power_stated",
)


def _link(direction: LinkDirection, stated: str | None) -> Figure:
    return Figure(
        f"interconnect_{direction.label.replace(' ', '_')}_gbps",
        "GB/s",
        "GB/s (10^9 bytes/s)",
        1e9,
        f"Scale-up interconnect bandwidth per accelerator where the source counts it {direction.label}; "
        "'not comparable' where it counts it another way (one column per convention, never mixed).",
        lambda a: present_link(a.specs.interconnect, direction),
        Dimension.BANDWIDTH,
        stated,
    )


INTERCONNECT: tuple[Figure, ...] = tuple(_link(direction, None) for direction in LinkDirection)
"""The link bandwidth in three columns, one per counting convention (bidirectional, per
direction, direction not stated); the figure as stated is in ``interconnect_bandwidth_stated``."""
DENSE = {fmt: _dense(fmt) for fmt in NumberFormat}
SPARSE = {fmt: _sparse(fmt) for fmt in NumberFormat}

DERIVED_FORMATS = (NumberFormat.FP4, NumberFormat.FP8, NumberFormat.BF16)
"""Number formats the table gives derived figures for."""


def _derived_figures() -> Iterator[Figure]:
    for fmt in DERIVED_FORMATS:
        ops = operations(fmt)
        yield Figure(
            f"ridge_point_{fmt.value.lower()}_{ops.lower()}_per_byte",
            f"{ops}/byte",
            f"{ops}/byte",
            1.0,
            f"Derived from published figures: {fmt.value} dense {compute_unit(fmt)} ÷ memory bandwidth in bytes/s. "
            f"Below this many {ops} per byte moved, work is bound by memory bandwidth.",
            _presented_at(derive.ridge_point, fmt),
            derived=True,
        )
    yield Figure(
        "memory_sweeps_per_s",
        "1/s",
        "1/s",
        1.0,
        "Derived from published figures: memory bandwidth (bytes/s) ÷ memory capacity (bytes): "
        "how many times per second the whole memory can be read.",
        lambda a: derive.bandwidth_per_capacity(a).presented(),
        derived=True,
    )
    for fmt in DERIVED_FORMATS:
        tera = tera_unit(fmt)
        yield Figure(
            f"{fmt.value.lower()}_dense_{tera.lower()}_per_w",
            f"{tera}/W",
            f"{tera}/W",
            1e12,
            f"Derived from published figures: {fmt.value} dense throughput ({tera}) ÷ power (W). "
            "A peak rate over the vendor's power rating, not a measured efficiency.",
            _presented_at(derive.compute_per_watt, fmt),
            derived=True,
        )
    for fmt in DERIVED_FORMATS:
        yield Figure(
            f"largest_model_{fmt.value.lower()}_billion_params",
            "10^9 parameters",
            "10^9 parameters",
            1e9,
            f"Derived from published figures: memory (bytes) × 8 ÷ {fmt.bits} bits per weight, in billions of "
            f"parameters: the largest model whose {fmt.value} weights alone fit (KV cache and activations need more).",
            _presented_at(derive.largest_model, fmt),
            derived=True,
        )


def _presented_at(
    figure: Callable[[Accelerator, NumberFormat], derive.DerivedFigure], fmt: NumberFormat
) -> Callable[[Accelerator], Presented]:
    """What ``figure`` (a derived figure of a part at a number format) presents for a part, at ``fmt``."""
    return lambda a: figure(a, fmt).presented()


DERIVED: tuple[Figure, ...] = tuple(_derived_figures())


def _text(claim: Claim) -> str:
    """A descriptive claim (interconnect, software) as its words, or its state in words."""
    shown = present(claim)
    return claim.text if claim.text and shown.state in (State.PUBLISHED, State.PUBLISHED_AS_TEXT) else shown.display


def _memory_type(acc: Accelerator) -> str:
    memory: MemorySpec = acc.specs.memory
    if memory.memory_type:
        return memory.memory_type
    return present(memory).label if memory.state is not State.PUBLISHED else present(None).label


def _sources(acc: Accelerator) -> str:
    """Every source as ``title — publisher [kind] url``; ``[vendor]`` marks the party that sells it,
    and a copy says so (``(read from an unofficial conversion at github.com/kuhar)``)."""
    return " | ".join(
        f"{s.title} — {s.publisher} [{s.kind.value}] {s.url}" + (f" ({words})" if (words := where_read(s.url, s.copy_form)) else "")
        for s in acc.sources.values()
    )


def _disputed(acc: Accelerator) -> str:
    keys = [key for key, claim in acc.claims() if claim.disputed]
    return ", ".join(keys) if keys else "none"


def pattern_words(pattern: str) -> str:
    """A sparsity pattern as words no spreadsheet reads as a time of day: the bare ``2:4`` (02:04
    to a spreadsheet) is ``2:4 structured``, as NVIDIA and AMD call it; words are kept as written."""
    return f"{pattern} structured" if re.fullmatch(r"\d+:\d+", pattern) else pattern


def _sparse_pattern(fmt: NumberFormat) -> Column:
    def get(_c: SiliconCatalog, a: Accelerator) -> str:
        claim = a.compute(fmt)
        return pattern_words(claim.sparse_pattern or "") if claim is not None and claim.sparse_figure is not None else ""

    return Column(
        f"{fmt.value.lower()}_sparse_pattern",
        "text",
        f"The sparsity pattern the {fmt.value} sparse figure assumes (2:4 structured, or in the vendor's words); "
        "empty where there is no sparse figure.",
        get,
    )


def _compute_columns() -> Iterator[Column]:
    for fmt in NumberFormat:
        yield from DENSE[fmt].columns()
        yield from SPARSE[fmt].columns()
        yield _sparse_pattern(fmt)


def export_columns() -> tuple[Column, ...]:
    """Every export column in order: identity, memory, compute, power, interconnect, derived, provenance."""
    head = (
        Column("id", "text", "Accelerator id (primary key); its page is /silicon/{id}.", lambda _c, a: a.id),
        Column("name", "text", "Name as the vendor sells it.", lambda _c, a: a.name),
        Column("vendor", "text", "Company that designs the part.", lambda c, a: c.vendor_of(a).name),
        Column("vendor_id", "text", "Vendor id.", lambda _c, a: a.vendor),
        Column("family", "text", "Product family.", lambda _c, a: a.family),
        Column("form_factor", "text", "Physical form (SXM module, PCIe card, cloud accelerator, ...).", lambda _c, a: a.form_factor),
        Column("workload", "text", "training, inference or both.", lambda _c, a: a.workload.value),
        Column("availability", "text", "buy, rent or cloud-only.", lambda _c, a: a.availability.value),
        *MEMORY.columns(),
        Column(
            "memory_bytes",
            "number",
            "Memory capacity per accelerator in bytes (its state is memory_gb_state).",
            lambda _c, a: MEMORY.present(a).scaled(1.0),
            "bytes",
        ),
        Column("memory_type", "text", "Memory technology (HBM3e, GDDR6, SRAM, ...).", lambda _c, a: _memory_type(a)),
        *BANDWIDTH.columns(),
    )
    tail = (
        *POWER.columns(),
        Column("interconnect", "text", "Scale-up interconnect technology.", lambda _c, a: _text(a.specs.interconnect)),
        Column(
            "interconnect_direction",
            "text",
            "What the interconnect bandwidth counts, as its source says: "
            "bidirectional, per direction or direction not stated; empty where there is no figure.",
            lambda _c, a: a.specs.interconnect.direction.label if a.specs.interconnect.direction else "",
        ),
        *(column for figure in INTERCONNECT for column in figure.columns()),
        Column(
            "interconnect_bandwidth_stated",
            "text",
            "The interconnect bandwidth as the source wrote it; empty where none.",
            lambda _c, a: present(a.specs.interconnect, figure=True).stated or "",
        ),
        Column("software", "text", "Software stack.", lambda _c, a: _text(a.specs.software)),
        Column("audience", "text", "Who the part is for.", lambda _c, a: a.audience),
        Column("catch", "text", "What a buyer should know before committing.", lambda _c, a: a.catch),
    )
    provenance = (
        Column(
            "disputed_specs",
            "text",
            "Specs where sources disagree (the primary figure is in the table), or 'none'.",
            lambda _c, a: _disputed(a),
        ),
        Column(
            "verified",
            "date",
            "Date someone last checked every figure of the row against its sources.",
            lambda _c, a: a.verified.isoformat(),
        ),
        Column(
            "sources",
            "text",
            "Every source as 'title — publisher [kind] url', separated by ' | '; [vendor] marks the party that sells the part; "
            "a vendor document read from a third party's copy ends '(read from a copy at …)' or '(read from an unofficial conversion at …)'.",
            lambda _c, a: _sources(a),
        ),
    )
    derived = tuple(c for f in DERIVED for c in f.columns())
    return (*head, *_compute_columns(), *tail, *derived, *provenance)


__all__ = [
    "BANDWIDTH",
    "DENSE",
    "DERIVED",
    "DERIVED_FORMATS",
    "INTERCONNECT",
    "MEMORY",
    "POWER",
    "SPARSE",
    "Column",
    "Figure",
    "Kind",
    "Value",
    "export_columns",
]

"""Claims: the value model shared by every record.

Every specification is a *claim* in exactly one :class:`~computeatlas.core.states.State`
(one of :data:`~computeatlas.core.states.RECORD_STATES`). Figures are written as
text with their unit (``"144 GB"``) and parsed into canonical units at load
(:mod:`computeatlas.core.units`); the text is kept for display and provenance.
"""

from __future__ import annotations

import datetime as dt
import re
from enum import StrEnum
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    model_validator,
)

from computeatlas.core.links import LINK_BANDWIDTH, LinkDirection
from computeatlas.core.provenance import CopyForm
from computeatlas.core.states import RecordState, State
from computeatlas.core.units import Dimension, Figure, UnitError, parse

ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
Id = Annotated[str, Field(pattern=ID_PATTERN, description="lower-case words joined by hyphens")]


class Basis(StrEnum):
    """What one figure is counted over. ``chip`` and ``package`` are per accelerator."""

    CHIP = "chip"
    PACKAGE = "package"
    SUPERCHIP = "superchip"
    NODE = "node"
    RACK = "rack"
    POD = "pod"

    @property
    def per_accelerator(self) -> bool:
        """True when a figure on this basis describes one accelerator as sold."""
        return self in (Basis.CHIP, Basis.PACKAGE)


class NumberFormat(StrEnum):
    """Number formats for compute, lowest precision first."""

    INT4 = "INT4"
    FP4 = "FP4"
    FP6 = "FP6"
    INT8 = "INT8"
    FP8 = "FP8"
    BF16 = "BF16"
    FP16 = "FP16"
    TF32 = "TF32"
    FP32 = "FP32"
    FP64 = "FP64"

    @property
    def is_integer(self) -> bool:
        """Integer formats count operations (OP/s), not floating-point ones."""
        return self.value.startswith("INT")

    @property
    def rank(self) -> int:
        """Position in the lowest-precision-first order."""
        return list(NumberFormat).index(self)

    @property
    def bits(self) -> int:
        """Bits per value, for sizing model weights (TF32 is stored in 32 bits)."""
        return int(re.sub(r"\D", "", self.value)) if self is not NumberFormat.TF32 else 32


class SourceKind(StrEnum):
    """Who published a source; ``vendor`` sources sell one side of any comparison."""

    VENDOR = "vendor"
    INDEPENDENT = "independent"
    PRESS = "press"
    PAPER = "paper"


class Record(BaseModel):
    """Base for every record: unknown fields are errors, loaded records are immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True, use_enum_values=False)


class Source(Record):
    """A document a figure was read from, on ``accessed``: ``kind`` is who wrote it, ``url`` where we
    read it; a third party's copy says so (``copy_form``, ``copy_of`` the author's URL). Maker-hosted
    is derived from ``url`` (:mod:`computeatlas.core.provenance`), never written."""

    title: str = Field(min_length=1)
    url: str = Field(pattern=r"^https?://\S+$", description="where we read the document")
    publisher: str = Field(min_length=1)
    kind: SourceKind
    accessed: dt.date
    copy_form: CopyForm | None = Field(None, description="set when url is a third party's copy: 'verbatim' or 'conversion'")
    copy_of: str | None = Field(None, pattern=r"^https?://\S+$", description="the author's own URL of the document a copy reproduces")

    @model_validator(mode="after")
    def _not_future(self, info: ValidationInfo) -> Source:
        today = today_from(info)
        if self.accessed > today:
            raise ValueError(f"accessed date {self.accessed} is in the future (today is {today})")
        if self.copy_of is not None and self.copy_form is None:
            raise ValueError("copy_of names the original of a copy: set copy_form = 'verbatim' or 'conversion' too")
        return self


class OtherClaim(Record):
    """A competing claim for a disputed spec: another source's figure or words."""

    value: str | None = None
    text: str | None = None
    basis: Basis | None = None
    source: str
    note: str | None = None


class Claim(Record):
    """One spec: a state, and for published figures the value, basis and source.

    ``value`` is the figure as written with its unit; :attr:`figure` holds it parsed into
    the spec's canonical unit. Subclasses fix the dimension. Raises ``ValueError`` (as a
    pydantic validation error) when the state's required fields are missing or the value
    has the wrong unit.
    """

    dimension: ClassVar[Dimension | None] = None
    needs_value: ClassVar[bool] = True
    per_accelerator_only: ClassVar[bool] = True

    state: RecordState
    value: str | None = Field(None, description="figure with unit, e.g. '4.9 TB/s'")
    text: str | None = Field(None, description="descriptive value, e.g. 'NVLink 4'")
    basis: Basis | None = None
    source: str | None = Field(None, description="a key of the record's [sources] table")
    note: str | None = None
    published_text: str | None = Field(None, description="the vendor's words, for not_comparable")
    primary_reason: str | None = None
    other_claims: list[OtherClaim] = Field(default_factory=list)

    _figure: Figure | None = PrivateAttr(None)
    _others: tuple[Figure | None, ...] = PrivateAttr(())

    @property
    def figure(self) -> Figure | None:
        """The parsed value in canonical units, or None when there is no number."""
        return self._figure

    @property
    def other_figures(self) -> tuple[Figure | None, ...]:
        """Parsed values of :attr:`other_claims`, in order (None where a claim is text)."""
        return self._others

    @property
    def disputed(self) -> bool:
        """True when another source makes a different claim for this spec."""
        return bool(self.other_claims)

    @property
    def comparable(self) -> bool:
        """True when this is a published per-accelerator number that may be compared."""
        return self.state is State.PUBLISHED and self._figure is not None and bool(self.basis and self.basis.per_accelerator)

    def sources_used(self) -> list[str]:
        """Source keys this claim cites, the primary first."""
        keys = [self.source] if self.source else []
        return keys + [o.source for o in self.other_claims if o.source not in keys]

    @model_validator(mode="after")
    def _check_state(self) -> Claim:
        if self.state is State.PUBLISHED:
            if self.needs_value and self.value is None and self.text is None:
                raise ValueError("a published spec needs a value (or text)")
            if self.source is None:
                raise ValueError("a published spec needs a source")
            if self.value is not None and self.basis is None:
                raise ValueError("a published figure needs a basis (chip, package, superchip, node, rack, pod)")
            if self.basis is not None and not self.basis.per_accelerator and self.dimension is not None and self.per_accelerator_only:
                raise ValueError(
                    f"a figure per {self.basis.value} is not a per-accelerator figure: use state = 'not_comparable' with published_text"
                )
        elif self.state is State.NOT_COMPARABLE:
            if not self.published_text:
                raise ValueError("a not_comparable spec keeps the vendor's words in published_text")
            if self.source is None:
                raise ValueError("a not_comparable spec needs a source")
        elif self.state is State.NOT_SOURCED and not self.note:
            raise ValueError("a not_sourced spec needs a note saying where we looked")
        elif self.value is not None:
            raise ValueError(f"a {self.state.value} spec must not carry a value ({self.value!r})")
        if self.other_claims and not self.primary_reason:
            raise ValueError("a disputed spec (other_claims) needs primary_reason")
        if self.dimension is not None:
            try:
                self._figure = parse(self.value, self.dimension) if self.value is not None else None
                self._others = tuple(parse(o.value, self.dimension) if o.value is not None else None for o in self.other_claims)
            except UnitError as exc:
                raise ValueError(str(exc)) from None
        return self


class MemorySpec(Claim):
    """Memory capacity, in bytes; ``memory_type`` such as HBM3e or SRAM."""

    dimension: ClassVar[Dimension] = Dimension.MEMORY
    memory_type: str | None = None


class BandwidthSpec(Claim):
    """Memory bandwidth in bytes per second."""

    dimension: ClassVar[Dimension] = Dimension.BANDWIDTH


class PowerSpec(Claim):
    """Power (TDP or maximum board power, as the note says) in watts; ``measured = true`` marks a
    measured figure (TPU v4: "measured min/mean/max power 90/170/192 W"), never divided as a TDP."""

    dimension: ClassVar[Dimension] = Dimension.POWER
    measured: bool = Field(False, description="true for a measured power (e.g. a measured maximum), not a rating such as a TDP")

    @property
    def comparable(self) -> bool:
        """A measured power is never compared with (or divided as) a rating."""
        return not self.measured and super().comparable

    @model_validator(mode="after")
    def _check_measured(self) -> PowerSpec:
        if self.measured and (self.state is not State.PUBLISHED or self.value is None):
            raise ValueError("measured = true marks a published power figure: give its value (or drop 'measured')")
        return self


class ComputeSpec(Claim):
    """Peak throughput at one number format, in FLOP/s (OP/s for integer formats).

    ``value`` is always dense, and a published figure says so in the file
    (``sparsity = "dense"``: nothing is dense by default). A structured-sparsity figure
    goes in ``sparse``, never in ``value``, with the ``sparse_pattern`` it assumes written
    out (``"2:4"``, or the vendor's own words such as AWS's "up to 4:16").
    """

    dimension: ClassVar[Dimension] = Dimension.COMPUTE
    sparsity: Literal["dense"] | None = Field(
        None,
        description="what the value counts: 'dense' (required on a published figure; a sparse figure goes in 'sparse')",
    )
    sparse: str | None = Field(None, description="the structured-sparsity figure, where published")
    sparse_pattern: str | None = Field(
        None,
        min_length=1,
        max_length=60,
        description="the sparsity pattern the sparse figure assumes, e.g. '2:4' (required with 'sparse')",
    )
    independent_dense: bool = Field(False, description="true when the maker prints only a sparse figure and value is the dense "
                                    "figure an independent source states in so many words (shown 'from <publisher>, not from <maker>')")  # fmt: skip
    _sparse_figure: Figure | None = PrivateAttr(None)
    _by: tuple[str, str] | None = PrivateAttr(None)  # (publisher, maker) of an independent dense figure, set at load

    @property
    def sparse_figure(self) -> Figure | None:
        """The parsed 2:4 sparse figure in FLOP/s, or None."""
        return self._sparse_figure

    def credit(self, publisher: str, maker: str) -> None:
        """Name who states an ``independent_dense`` figure and whose part it is (set once, at load)."""
        self._by = (publisher, maker)

    @property
    def attribution(self) -> str | None:
        """For an ``independent_dense`` figure, who states it: ``"from Yobitel, not from NVIDIA"``; else None."""
        return f"from {self._by[0]}, not from {self._by[1]}" if self.independent_dense and self._by else None

    @model_validator(mode="after")
    def _check_sparse(self) -> ComputeSpec:
        if self.state is State.PUBLISHED and self.value is not None and self.sparsity is None:
            raise ValueError(
                "a published compute figure must say what it counts: add sparsity = 'dense' "
                "(value is the dense figure; a sparse figure goes in 'sparse' with its 'sparse_pattern')"
            )
        if self.sparse is not None and self.sparse_pattern is None:
            raise ValueError(f"sparse figure {self.sparse!r} needs its sparse_pattern (e.g. '2:4', as the vendor states it)")
        if self.sparse is None and self.sparse_pattern is not None:
            raise ValueError(f"sparse_pattern {self.sparse_pattern!r} without a sparse figure")
        if self.independent_dense and (self.state is not State.PUBLISHED or self.value is None):
            raise ValueError("independent_dense marks a published dense figure from an independent source: give its value")
        if self.sparse is not None:
            try:
                self._sparse_figure = parse(self.sparse, Dimension.COMPUTE)
            except UnitError as exc:
                raise ValueError(f"sparse: {exc}") from None
            if self._figure is not None and self._sparse_figure.amount < self._figure.amount:
                raise ValueError(
                    f"sparse figure {self.sparse!r} is below the dense value {self.value!r}: is a sparse figure stored as dense?"
                )
        return self


class LinkSpec(Claim):
    """Scale-up interconnect: ``text`` names it; ``value`` is a bandwidth if published, in
    bytes per second once parsed (``"400 Gb/s"`` is bits: 50 GB/s), with the ``direction``
    its source counts (required with a value: vendors count one direction or both)."""

    dimension: ClassVar[Dimension] = Dimension.BANDWIDTH
    direction: LinkDirection | None = Field(
        None,
        description="what the bandwidth counts, as the source says: per_direction, bidirectional or not_stated (required with a value)",
    )

    @model_validator(mode="after")
    def _check_direction(self) -> LinkSpec:
        if self.value is not None and self.direction is None:
            raise ValueError(
                f"interconnect bandwidth {self.value!r} needs its direction: direction = 'per_direction', "
                "'bidirectional' or 'not_stated' (as the source says; never inferred)"
            )
        if self.value is None and self.direction is not None:
            raise ValueError(f"direction {self.direction.value!r} without a bandwidth value")
        stated = LINK_BANDWIDTH.search(self.text or "") if self.value is None else None
        if stated is not None:
            raise ValueError(f"interconnect text states a bandwidth ({stated.group(0)!r}) while the bandwidth cell has none (it would read "
                             "'not yet collected'): put it in value with its direction, or, if it is not the scale-up bandwidth "
                             "(a per-link rate, a CPU link, a NIC), in the note")  # fmt: skip
        return self


class TextSpec(Claim):
    """A descriptive spec (software stack) with no figure."""

    dimension: ClassVar[Dimension | None] = None


class Detail(Claim):
    """An optional detail: published unless it says otherwise; text, or a figure."""

    state: RecordState = State.PUBLISHED


class TextDetail(Detail):
    """An optional descriptive detail, such as the process node (``"TSMC 4NP"``)."""


class CountDetail(Detail):
    """An optional count, such as transistors, written as a plain number (``"208e9"``)."""

    dimension: ClassVar[Dimension] = Dimension.COUNT


class AreaDetail(Detail):
    """An optional area, such as die size, in mm² (``"814 mm^2"``)."""

    dimension: ClassVar[Dimension] = Dimension.AREA


def today_from(info: ValidationInfo) -> dt.date:
    """The date validation compares against; tests pass ``context={"today": ...}``."""
    context = info.context or {}
    return context.get("today") or dt.date.today()


__all__ = [
    "ID_PATTERN",
    "AreaDetail",
    "BandwidthSpec",
    "Basis",
    "Claim",
    "ComputeSpec",
    "CountDetail",
    "Detail",
    "Id",
    "LinkSpec",
    "MemorySpec",
    "NumberFormat",
    "OtherClaim",
    "PowerSpec",
    "Record",
    "Source",
    "SourceKind",
    "TextDetail",
    "TextSpec",
    "today_from",
]

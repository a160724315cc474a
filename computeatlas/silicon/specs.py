"""Spec views: how one accelerator's specs are shown on its page, in the API and the CLI.

The same view objects are rendered to HTML by the templates and returned as JSON by the
API, so the two faces cannot disagree. Figures keep the text the vendor wrote plus the
canonical amount (bytes, bytes/s, FLOP/s, W).
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from computeatlas.core.citation import SourceView, source_view
from computeatlas.core.claims import (
    Claim,
    ComputeSpec,
    MemorySpec,
    NumberFormat,
    Source,
)
from computeatlas.core.numbers import canonical_unit, figure_text
from computeatlas.core.presentation import present, present_sparse
from computeatlas.core.states import State
from computeatlas.core.units import humanize
from computeatlas.silicon.records import Accelerator, Vendor

SPEC_LABELS = {
    "memory": "Memory",
    "memory_bandwidth": "Memory bandwidth",
    "power": "Power",
    "interconnect": "Interconnect",
    "software": "Software",
    "details.process": "Process",
    "details.transistors": "Transistors",
    "details.die_size": "Die size",
}


class ClaimView(BaseModel):
    """One claim as shown. ``amount`` is canonical (``unit``); ``display`` is human text."""

    value: str | None = Field(None, description="the figure as the source wrote it")
    amount: float | None = Field(None, description="the figure in the canonical unit")
    unit: str | None = Field(None, description="canonical unit of amount: B, B/s, FLOP/s, OP/s, W")
    display: str
    basis: str | None = None
    source: SourceView | None = None
    note: str | None = None


class SpecView(BaseModel):
    """One spec row: its state, primary claim and any competing claims."""

    key: str = Field(description="field path, e.g. 'memory' or 'compute.FP8'")
    label: str
    state: State = Field(description="the state as shown: the record's state, or published_as_text for words where a figure belongs")
    state_label: str
    number_format: NumberFormat | None = None
    primary: ClaimView
    sparse: ClaimView | None = Field(None, description="the structured-sparsity figure, where published")
    sparse_pattern: str | None = Field(None, description="pattern the sparse figure assumes, e.g. 2:4")
    memory_type: str | None = None
    published_text: str | None = None
    disputed: bool = False
    primary_reason: str | None = None
    other_claims: list[ClaimView] = Field(default_factory=list)


class CoreFigure(BaseModel):
    """One core figure in the accelerator list: its state and, when published, the figure.

    ``amount`` (canonical ``unit``) is set only for a figure published as a number; every
    other state (not published, not applicable, not comparable, published as text, not yet
    sourced) has no amount, and ``display`` says the state in words, never a blank or zero.
    Sources, competing claims and sparse figures are in the part's own document (``api_url``).
    """

    key: str = Field(description="field path, e.g. 'memory' or 'compute.FP8'")
    label: str
    state: State
    state_label: str
    display: str = Field(description="the figure or the state, as every page shows it")
    amount: float | None = Field(None, description="the dense figure in the canonical unit, when published as a number")
    unit: str | None = Field(None, description="canonical unit of amount: B, B/s, FLOP/s, OP/s, W")
    basis: str | None = Field(None, description="chip, package, superchip … as published")
    number_format: NumberFormat | None = None
    disputed: bool = False


def _source(acc: Accelerator, key: str | None, maker: Vendor | None = None) -> SourceView | None:
    if key is None:
        return None
    src: Source = acc.sources[key]
    return source_view(key, src, maker.read_at(src) if maker is not None else None)


def spec_view(acc: Accelerator, key: str, claim: Claim, maker: Vendor | None = None) -> SpecView:
    """Build the view of one spec of ``acc``; ``key`` is its field path (``compute.FP8``).
    With ``maker`` (the part's vendor), each source says where it was read (``read_at``).

    States, figures and units come from :func:`computeatlas.core.presentation.present`.
    """
    fmt = NumberFormat(key.split(".", 1)[1]) if key.startswith("compute.") else None
    unit = canonical_unit(key)
    label = f"Compute, {fmt.value}" if fmt else SPEC_LABELS.get(key, key)
    shown = present(claim, unit=unit, what=label)
    primary = ClaimView(
        value=claim.value,
        amount=shown.stated_amount,
        unit=unit if shown.stated_amount is not None else None,
        display=shown.record_display,
        basis=shown.basis,
        source=_source(acc, claim.source, maker),
        note=claim.note,
    )
    sparse = None
    if isinstance(claim, ComputeSpec) and claim.sparse_figure is not None:
        shown_sparse = present_sparse(claim, unit=unit)
        sparse = ClaimView(
            value=shown_sparse.stated,
            amount=shown_sparse.stated_amount,
            unit=unit,
            display=shown_sparse.display,
            basis=shown_sparse.basis,
            source=_source(acc, claim.source, maker),
        )
    others = [
        ClaimView(
            value=o.value,
            amount=f.amount if f else None,
            unit=unit if f else None,
            display=" · ".join(x for x in (o.text, figure_text(o.value) if o.value else None) if x) or "(no figure)",
            basis=o.basis.value if o.basis else None,
            source=_source(acc, o.source, maker),
            note=o.note,
        )
        for o, f in zip(claim.other_claims, claim.other_figures, strict=True)
    ]
    return SpecView(
        key=key,
        label=label,
        state=shown.state,
        state_label=shown.label,
        number_format=fmt,
        primary=primary,
        sparse=sparse,
        sparse_pattern=claim.sparse_pattern if sparse and isinstance(claim, ComputeSpec) else None,
        memory_type=claim.memory_type if isinstance(claim, MemorySpec) else None,
        published_text=claim.published_text,
        disputed=claim.disputed,
        primary_reason=claim.primary_reason,
        other_claims=others,
    )


def core_figure(view: SpecView) -> CoreFigure:
    """The list form of one spec's view (state and primary figure, from :func:`spec_view`)."""
    return CoreFigure(
        key=view.key, label=view.label, state=view.state, state_label=view.state_label, display=view.primary.display,
        amount=view.primary.amount, unit=view.primary.unit, basis=view.primary.basis, number_format=view.number_format,
        disputed=view.disputed,
    )  # fmt: skip


def short_figure(amount: float | None, unit: str) -> str:
    """A compact human figure (``"4.9 TB/s"``) for tables; "—" is never used for states."""
    return humanize(amount, unit) if amount is not None else ""

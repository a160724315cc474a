"""Derived figures: arithmetic on published figures, each with its formula and inputs.

Every figure here is labelled "derived from published figures". It is computed only from
figures :func:`computeatlas.core.presentation.present` shows as per-accelerator numbers
(published, per chip or package) of one record, using the primary claim where a spec is
disputed. Otherwise it carries the state of its weakest input
(:func:`computeatlas.core.presentation.present_derived`) and has no value: not applicable,
then not published, not comparable, published as text, not yet sourced, not yet
collected — never estimated.

The figures (canonical units in, canonical units out):

- ridge point, per number format: dense compute (FLOP/s) ÷ memory bandwidth (bytes/s) =
  FLOP per byte; a kernel needing fewer FLOP per byte is bound by memory bandwidth;
- memory bandwidth ÷ memory capacity (bytes/s ÷ bytes) = full-memory sweeps per second,
  an upper bound on how often every byte of memory can be read;
- compute per watt, per number format: dense compute (FLOP/s) ÷ power (W);
- largest model whose weights fit, per number format: memory (bytes) × 8 ÷ bits per
  weight = parameters (weights only: KV cache, activations and runtime need more);
- per device, for a package software sees as several devices (``Accelerator.devices``,
  e.g. an MI250X is 2 GCDs): memory, memory bandwidth and dense FP8/BF16 compute of the
  package ÷ the device count (MI250X: 128 GB ÷ 2 = 64 GB per GCD, as AMD states).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Final, Literal

from pydantic import BaseModel, Field

from computeatlas.core.claims import (
    Claim,
    NumberFormat,
)
from computeatlas.core.numbers import compute_unit, figure_text, operations, prefixed, sig3
from computeatlas.core.presentation import Presented, present, present_derived
from computeatlas.core.states import DERIVED_LABEL, SPEC_STATES, State
from computeatlas.silicon.records import Accelerator

LABEL: Final = DERIVED_LABEL
"""How every derived figure is labelled wherever it is shown."""

RIDGE_FORMATS = (NumberFormat.INT4, NumberFormat.FP4, NumberFormat.FP6, NumberFormat.INT8, NumberFormat.FP8, NumberFormat.BF16)
"""Number formats the accelerator page derives ridge points and compute per watt for."""

WEIGHT_FORMATS = (NumberFormat.FP4, NumberFormat.FP8, NumberFormat.BF16)
"""Number formats the largest-model figure is given for (4, 8 and 16 bits per weight)."""

PER_DEVICE_KEYS: tuple[tuple[str, str, str], ...] = (
    ("memory", "memory capacity", "B"),
    ("memory_bandwidth", "memory bandwidth", "B/s"),
    ("compute.FP8", "FP8 dense compute", "FLOP/s"),
    ("compute.BF16", "BF16 dense compute", "FLOP/s"),
)
"""Specs given per device for multi-device packages: (spec path, label, canonical unit)."""


DERIVED_STATES: tuple[State, ...] = (State.DERIVED, *(s for s in SPEC_STATES if s is not State.PUBLISHED))
"""The states a derived figure can be in: :attr:`State.DERIVED` when computed, else the
shown state of its weakest input (a spec state other than published)."""


def derived_state(shown: Presented) -> State:
    """The state of a derived figure as :func:`~computeatlas.core.presentation.present_derived` presents it:
    :attr:`State.DERIVED` for a computed value (presented as published and derived), else the presented state."""
    return State.DERIVED if shown.state is State.PUBLISHED else shown.state


class DerivedInput(BaseModel):
    """One input of a derived figure: the spec, its state, the figure and where it came from."""

    key: str = Field(description="spec path in the record, e.g. 'compute.FP8'")
    label: str
    state: State = Field(
        description="the input's shown state: published, published_as_text, not_published, not_applicable, not_comparable, not_sourced or not_collected"
    )
    state_label: str
    value: str | None = Field(None, description="the figure as the source wrote it")
    amount: float | None = Field(None, description="the figure in its canonical unit")
    unit: str | None = None
    basis: str | None = None
    source: str | None = Field(None, description="source key in the record")
    source_url: str | None = None
    source_publisher: str | None = None
    source_kind: str | None = Field(None, description="vendor sources sell the part")
    disputed: bool = False


class DerivedFigure(BaseModel):
    """A figure computed from published ones, with its formula, inputs and state.

    ``value`` is in ``unit`` (FLOP/byte, 1/s, FLOP/s per W, parameters) and is None
    unless ``state`` is ``derived``; ``display`` is always words or a figure, never blank.
    """

    key: str = Field(description="e.g. 'ridge_point.FP8', 'bandwidth_per_capacity', 'compute_per_watt.FP8', 'largest_model.FP8'")
    label: str
    number_format: NumberFormat | None = None
    state: State = Field(description="derived when computed, else the shown state of its weakest input (one of DERIVED_STATES)")
    state_label: str
    value: float | None = None
    unit: str
    display: str
    formula: str
    worked: str | None = Field(None, description="the formula with this record's figures")
    reason: str | None = Field(None, description="why there is no value, naming the input")
    note: str | None = None
    inputs: list[DerivedInput]
    provenance: Literal["derived from published figures"] = LABEL

    def presented(self) -> Presented:
        """The figure as :class:`~computeatlas.core.presentation.Presented` (marked derived)."""
        state = State.PUBLISHED if self.state is State.DERIVED else self.state
        return Presented(
            state=state,
            display=self.display,
            amount=self.value,
            unit=self.unit if self.value is not None else None,
            reason=self.reason,
            derived=True,
            disputed=any(i.disputed for i in self.inputs),
        )


def _input(acc: Accelerator, key: str, label: str, claim: Claim | None, unit: str) -> tuple[DerivedInput, Presented]:
    shown = present(claim, unit=unit, what=label, figure=True)
    if claim is None:
        return DerivedInput(key=key, label=label, state=shown.state, state_label=shown.label), shown
    src = acc.sources.get(claim.source) if claim.source else None
    inp = DerivedInput(
        key=key,
        label=label,
        state=shown.state,
        state_label=shown.label,
        value=claim.value if claim.state is State.PUBLISHED else None,
        amount=shown.amount,
        unit=shown.unit,
        basis=claim.basis.value if claim.basis else None,
        source=claim.source,
        source_url=src.url if src else None,
        source_publisher=src.publisher if src else None,
        source_kind=src.kind.value if src else None,
        disputed=claim.disputed,
    )
    return inp, shown


def _number(value: float) -> str:
    return sig3(value)


def _parameters(value: float) -> str:
    if value >= 1e12:
        return f"{sig3(value / 1e12)} trillion parameters"
    if value >= 1e9:
        return f"{sig3(value / 1e9)} billion parameters"
    return f"{sig3(value / 1e6)} million parameters"


def _figure(
    key: str,
    label: str,
    fmt: NumberFormat | None,
    unit: str,
    formula: str,
    given: list[tuple[DerivedInput, Presented]],
    compute: Callable[..., float],
    show: Callable[[float], str],
    expression: str,
    note: str | None = None,
) -> DerivedFigure:
    """Assemble a figure; ``expression`` is the worked formula with ``{0}``, ``{1}`` for the inputs' texts."""
    inputs = [i for i, _ in given]
    shown = [p for _, p in given]
    value = worked = None
    if all(p.amount is not None for p in shown):
        value = compute(*(p.amount for p in shown))
        worked = expression.format(*(figure_text(i.value or "") for i in inputs)) + f" = {show(value)}"
    result = present_derived(shown, value, unit, show(value) if value is not None else None)
    state = derived_state(result)
    return DerivedFigure(
        key=key,
        label=label,
        number_format=fmt,
        state=state,
        state_label=state.label,
        value=value,
        unit=unit,
        display=result.display,
        formula=formula,
        worked=worked,
        reason=result.reason,
        note=note,
        inputs=inputs,
    )


def ridge_point(acc: Accelerator, fmt: NumberFormat) -> DerivedFigure:
    """FLOP (OP for integer formats) per byte at which ``acc`` turns from memory- to compute-bound.

    Formula: dense compute at ``fmt`` (FLOP/s) ÷ memory bandwidth (bytes/s). H100 SXM at
    FP8: 1979e12 ÷ 3.35e12 = 590.7 FLOP/byte.
    """
    ops = operations(fmt)
    inputs = [
        _input(acc, f"compute.{fmt.value}", f"{fmt.value} dense compute", acc.compute(fmt), compute_unit(fmt)),
        _input(acc, "memory_bandwidth", "memory bandwidth", acc.specs.memory_bandwidth, "B/s"),
    ]
    return _figure(
        f"ridge_point.{fmt.value}",
        f"Ridge point, {fmt.value}",
        fmt,
        f"{ops}/byte",
        f"ridge point = {fmt.value} dense compute ÷ memory bandwidth",
        inputs,
        lambda c, b: c / b,
        lambda v: f"{_number(v)} {ops}/byte",
        "{0} ÷ {1}",
        note="Work per byte read from memory above which a kernel is limited by compute rather than bandwidth.",
    )


def bandwidth_per_capacity(acc: Accelerator) -> DerivedFigure:
    """How many times per second ``acc`` can read its whole memory (1/s).

    Formula: memory bandwidth (bytes/s) ÷ memory capacity (bytes). H100 SXM:
    3.35e12 ÷ 80e9 = 41.88 per second.
    """
    inputs = [
        _input(acc, "memory_bandwidth", "memory bandwidth", acc.specs.memory_bandwidth, "B/s"),
        _input(acc, "memory", "memory capacity", acc.specs.memory, "B"),
    ]
    return _figure(
        "bandwidth_per_capacity",
        "Memory bandwidth ÷ capacity",
        None,
        "1/s",
        "full-memory sweeps per second = memory bandwidth ÷ memory capacity",
        inputs,
        lambda b, m: b / m,
        lambda v: f"{_number(v)} per second",
        "{0} ÷ {1}",
        note="An upper bound on how often every byte of memory can be read; decode speed of a model filling memory is bounded by it.",
    )


def compute_per_watt(acc: Accelerator, fmt: NumberFormat) -> DerivedFigure:
    """Dense compute at ``fmt`` per watt of the vendor's power figure (FLOP/s per W).

    Formula: dense compute (FLOP/s) ÷ power (W, TDP or board power as the record notes).
    H100 SXM at FP8: 1979e12 ÷ 700 = 2.827e12 FLOP/s per W. Power not published → not
    published.
    """
    unit = f"{compute_unit(fmt)} per W"
    inputs = [
        _input(acc, f"compute.{fmt.value}", f"{fmt.value} dense compute", acc.compute(fmt), compute_unit(fmt)),
        _input(acc, "power", "power", acc.specs.power, "W"),
    ]
    return _figure(
        f"compute_per_watt.{fmt.value}",
        f"{fmt.value} compute per watt",
        fmt,
        unit,
        f"compute per watt = {fmt.value} dense compute ÷ power",
        inputs,
        lambda c, p: c / p,
        lambda v: prefixed(v, unit),
        "{0} ÷ {1}",
        note="Peak rate over the vendor's power rating; not a measured efficiency.",
    )


def largest_model(acc: Accelerator, fmt: NumberFormat) -> DerivedFigure:
    """Parameters whose weights alone fill ``acc``'s memory at ``fmt`` (``fmt.bits`` per weight).

    Formula: memory (bytes) × 8 ÷ bits per weight. H100 SXM (80 GB) at FP8: 80e9 × 8 ÷ 8
    = 80 billion parameters. Not applicable when the record says the part has no ``fmt``.
    """
    inputs = [_input(acc, "memory", "memory capacity", acc.specs.memory, "B")]
    claim = acc.compute(fmt)
    if claim is not None and claim.state is State.NOT_APPLICABLE:
        inputs.append(_input(acc, f"compute.{fmt.value}", f"{fmt.value} support", claim, compute_unit(fmt)))
    return _figure(
        f"largest_model.{fmt.value}",
        f"Largest model whose weights fit, {fmt.value}",
        fmt,
        "parameters",
        f"parameters = memory capacity × 8 ÷ {fmt.bits} bits per weight",
        inputs,
        lambda m, *_: m * 8 / fmt.bits,
        _parameters,
        f"{{0}} × 8 ÷ {fmt.bits} bits",
        note="Storage arithmetic for weights on one accelerator: the KV cache, activations and runtime need memory too, and running at this format needs hardware support for it (see compute).",
    )


def per_device(acc: Accelerator, key: str) -> DerivedFigure | None:
    """The spec at ``key`` (one of :data:`PER_DEVICE_KEYS`) per device software sees, or
    None when ``acc`` is not a multi-device package (``acc.devices`` unset).

    Formula: the per-package figure (canonical unit) ÷ ``acc.devices.count``. MI250X memory:
    128e9 B ÷ 2 = 64 GB per GCD, which AMD's CDNA 2 white paper states ("64GB per GCD x 2").
    Only per-package figures are divided; a figure on any other basis gives no value.
    Raises KeyError for a key outside :data:`PER_DEVICE_KEYS`.
    """
    devices = acc.devices
    if devices is None:
        return None
    label, unit = {k: (lab, u) for k, lab, u in PER_DEVICE_KEYS}[key]
    if key.startswith("compute."):
        fmt = NumberFormat(key.split(".", 1)[1])
        claim: Claim | None = acc.compute(fmt)
        unit = compute_unit(fmt)
    else:
        claim = getattr(acc.specs, key)
    given = [_input(acc, key, label, claim, unit)]
    per = devices.name
    figure = _figure(
        f"per_device.{key}",
        f"{label[0].upper()}{label[1:]} per {per}",
        None,
        unit,
        f"{label} per {per} = {label} of the package ÷ {devices.count} {per}s software sees",
        given,
        lambda v: v / devices.count,
        lambda v: f"{prefixed(v, unit)} per {per}",
        f"{{0}} ÷ {devices.count}",
        note=f"Software sees this package as {devices.count} devices ({per}s); each job or process gets one {per}'s share. {devices.note or ''}".strip(),
    )
    if claim is not None and claim.basis is not None and claim.basis.value != "package" and figure.value is not None:
        return figure.model_copy(
            update={
                "value": None,
                "worked": None,
                "state": State.NOT_COMPARABLE,
                "state_label": State.NOT_COMPARABLE.label,
                "display": State.NOT_COMPARABLE.label,
                "reason": f"{label} is stated per {claim.basis.value}, not per package",
            }
        )
    return figure


def derived_figures(acc: Accelerator, formats: Iterable[NumberFormat] | None = None) -> list[DerivedFigure]:
    """Every derived figure of ``acc``: bandwidth ÷ capacity, then per number format the
    ridge point and compute per watt (``formats``, default: the record's formats among
    :data:`RIDGE_FORMATS`), then the largest model at :data:`WEIGHT_FORMATS`, then — for a
    multi-device package — the figures per device (:func:`per_device`)."""
    fmts = list(formats) if formats is not None else [f for f in RIDGE_FORMATS if f in acc.specs.compute]
    out = [bandwidth_per_capacity(acc)]
    out += [ridge_point(acc, f) for f in fmts]
    out += [compute_per_watt(acc, f) for f in fmts]
    out += [largest_model(acc, f) for f in WEIGHT_FORMATS]
    out += [fig for key, _, _ in PER_DEVICE_KEYS if (fig := per_device(acc, key)) is not None]
    return out


__all__ = [
    "DERIVED_STATES",
    "LABEL",
    "PER_DEVICE_KEYS",
    "RIDGE_FORMATS",
    "WEIGHT_FORMATS",
    "DerivedFigure",
    "DerivedInput",
    "bandwidth_per_capacity",
    "compute_per_watt",
    "derived_figures",
    "derived_state",
    "largest_model",
    "per_device",
    "ridge_point",
]

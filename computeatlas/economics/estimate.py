"""Our own estimate: a roofline upper bound on decode tokens/s and the lower bound on cost
per million tokens it implies, for one model on one accelerator, from published figures.

Every assumption is explicit and travels with the result (:attr:`Estimate.assumptions`):

- memory needed = parameters × bits ÷ 8 bytes, **weights only** (no KV cache, activations
  or runtime overhead, which all add to it);
- if that exceeds the accelerator's published memory the model does not fit: we say so and
  give the minimum number of accelerators, ``ceil(need ÷ memory)`` (:class:`DoesNotFit`);
- decode at batch 1 reads every weight once per token, so it is memory-bound:
  tokens/s ≤ memory bandwidth (B/s) ÷ weight bytes;
- at large batch decode is compute-bound at 2 FLOP per parameter per token:
  tokens/s ≤ dense FLOP/s at the number format × utilisation ÷ (2 × parameters);
- cost per million tokens ≥ price per accelerator-hour ÷ (tokens/s × 3600) × 10⁶, with the
  price given by the visitor, read from a chosen offer's observation in the store, or else
  the part's cheapest current price by the one rule
  (:func:`computeatlas.cloud.cheapest_price.cheapest_price`), named and dated; with none
  current, no cost is computed and the newest price is named, not current.

Inputs must be finite and plausible (:func:`computeatlas.economics.inputs.parse_request`): a whole parameter count from
1e6 to 1e15, utilisation from 0.001 to 1, a price from 0.0001 to 1e6 USD per
accelerator-hour; a result that is still not a finite number is an error naming the input.

The figures are upper bounds on speed (lower bounds on cost) built from the vendor's
published peaks, never measurements. A result built on a figure that is not a published
per-accelerator number takes that input's state ("not published", "not comparable", "not
yet collected" …, as :mod:`computeatlas.core.presentation` shows it): nothing is estimated
or borrowed.
"""

from __future__ import annotations

import math

from pydantic import BaseModel, Field

from computeatlas.core.claims import (
    Claim,
    NumberFormat,
)
from computeatlas.core.errors import closest
from computeatlas.core.presentation import (
    compute_unit,
    present,
)
from computeatlas.core.states import State
from computeatlas.core.units import humanize
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.inputs import (
    DoesNotFit,
    EstimateError,
    EstimateRequest,
    params_text,
)
from computeatlas.economics.price_input import PriceInput, cheapest_price, offer_price
from computeatlas.economics.prices import PriceSource
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.resolve import ResolveError, resolve_id

LABEL = "upper bound from published figures, not a measurement"
"""How every estimated figure is labelled, on the page, in the API and in the CLI."""

COST_LABEL = "lower bound on cost from published figures, not a measurement"
"""How every estimated cost is labelled: it is the floor implied by the speed upper bound."""


class InputFigure(BaseModel):
    """A published figure the estimate uses, with its state, basis and source as recorded."""

    key: str
    label: str
    state: State = Field(description="the state as shown (computeatlas.core.presentation); not_collected where nobody collected it")
    state_label: str
    usable: bool = Field(description="True when this is a published per-accelerator number the estimate can use")
    value: str | None = Field(None, description="the figure as the source wrote it")
    amount: float | None = Field(None, description="canonical amount: B, B/s, FLOP/s or OP/s")
    unit: str
    basis: str | None = None
    source_title: str | None = None
    source_url: str | None = None
    source_publisher: str | None = None
    source_kind: str | None = None
    note: str | None = None


class Bound(BaseModel):
    """One estimated figure: its outcome, amount (``unit``), the formula and the working."""

    key: str
    label: str
    outcome: State
    amount: float | None = None
    unit: str
    display: str = Field(description="the figure with its unit, or the outcome in words")
    formula: str
    working: str | None = Field(None, description="the formula with the record's numbers put in")
    reason: str | None = Field(None, description="why the figure is not computed")
    label_note: str = LABEL


class Estimate(BaseModel):
    """The estimate as shown on ``/economics/estimate``, by ``/api/estimate`` and the CLI."""

    accelerator: str
    accelerator_name: str
    accelerator_url: str = Field("", description="the accelerator's page (set by computeatlas.pages.economics)")
    params: float
    params_display: str = Field(description="the parameter count in words, e.g. '70e9 (70,000,000,000)'")
    number_format: NumberFormat
    bits: int
    utilisation: float
    weight_bytes: float = Field(description="parameters × bits ÷ 8, in bytes (weights only)")
    weight_display: str
    fits: State = Field(description="derived (fits on one accelerator), or the state of the memory figure that stops it")
    memory: InputFigure
    memory_bandwidth: InputFigure
    compute: InputFigure
    price: PriceInput
    decode_batch1: Bound
    decode_compute_bound: Bound
    cost_batch1: Bound
    cost_compute_bound: Bound
    assumptions: list[str]
    label: str = LABEL
    query: dict[str, str] = Field(description="the inputs as URL parameters of /economics/estimate")
    data_version: str


def _input(acc: Accelerator, key: str, label: str, claim: Claim | None, unit: str) -> InputFigure:
    shown = present(claim, unit=unit, what=label, figure=True)
    if claim is None:
        return InputFigure(key=key, label=label, state=shown.state, state_label=shown.label, usable=False,
                           unit=unit, note="Nobody has collected this figure for the atlas yet.")  # fmt: skip
    src = acc.sources.get(claim.source) if claim.source else None
    return InputFigure(
        key=key,
        label=label,
        state=shown.state,
        state_label=shown.label,
        usable=shown.comparable,
        value=claim.value or claim.published_text or claim.text,
        amount=shown.amount,
        unit=unit,
        basis=claim.basis.value if claim.basis else None,
        source_title=src.title if src else None,
        source_url=src.url if src else None,
        source_publisher=src.publisher if src else None,
        source_kind=src.kind.value if src else None,
        note=claim.note,
    )


def _missing(fig: InputFigure, name: str) -> tuple[State, str]:
    """Why ``fig`` cannot be used: the outcome and a sentence naming the input's state."""
    if fig.state is State.NOT_APPLICABLE:
        return State.NOT_APPLICABLE, f"{fig.label} is not applicable to {name} (the hardware has no such thing)"
    if fig.state in (State.NOT_COMPARABLE, State.PUBLISHED):  # published, but not per accelerator: not comparable
        return State.NOT_COMPARABLE, (
            f"{fig.label} is published only on another basis or with sparsity ({fig.value!r}), "
            "not as a dense per-accelerator figure, so it is not used"
        )
    return fig.state, f"{fig.label} is {fig.state_label} for {name}"


def min_accelerators(weight_bytes: float, memory_bytes: float) -> int:
    """The fewest accelerators of ``memory_bytes`` each whose memory holds ``weight_bytes``
    (weights only: no KV cache, no overhead of splitting a model): ceil(weight ÷ memory)."""
    chips = math.ceil(weight_bytes / memory_bytes)
    return chips - 1 if (chips - 1) * memory_bytes >= weight_bytes else chips


def fewest_accelerators(catalog: EconomicsCatalog, weight_bytes: float, ident: str, n: int = 4) -> list[tuple[str, str, int]]:
    """Up to ``n`` parts other than ``ident`` that hold ``weight_bytes`` of weights in the fewest
    of them, as ``(id, name, count)``, fewest first (then most memory, then name). Only parts
    whose memory is published per accelerator are counted; nothing is estimated for the rest."""
    found: list[tuple[int, float, str, str]] = []
    for other in catalog.accelerators.values():
        shown = present(other.specs.memory, unit="B", what="memory", figure=True)
        if other.id == ident or not shown.comparable or not shown.amount:
            continue
        found.append((min_accelerators(weight_bytes, shown.amount), -shown.amount, other.name, other.id))
    return [(i, name, count) for count, _, name, i in sorted(found)[:n]]


def _finite(value: float, param: str, what: str) -> float:
    """``value`` when it is a finite number; else :class:`EstimateError` (400) naming ``param``."""
    if not math.isfinite(value):
        raise EstimateError(param, f"{what} comes out as {value!r}, not a finite number: this input is out of range")
    return value


def _cost(key: str, label: str, speed: Bound, price: PriceInput) -> Bound:
    unit = f"{price.currency} per million tokens"
    formula = "price per accelerator-hour ÷ (tokens/s × 3600) × 1,000,000"
    if speed.outcome is not State.DERIVED or speed.amount is None:
        return Bound(key=key, label=label, outcome=speed.outcome, unit=unit, display=speed.outcome.label, formula=formula,
                     label_note=COST_LABEL, reason=f"{speed.label} is {speed.outcome.label}: {speed.reason}")  # fmt: skip
    if price.outcome is not State.DERIVED or price.per_accelerator_hour is None:
        why = price.working if price.outcome is State.NOT_SEPARABLE else "give a price per accelerator-hour or choose an offer"
        return Bound(
            key=key,
            label=label,
            outcome=price.outcome,
            unit=unit,
            display=price.outcome.label,
            formula=formula,
            label_note=COST_LABEL,
            reason=why,
        )
    cost = _finite(price.per_accelerator_hour / (speed.amount * 3600) * 1e6, "offer" if price.origin == "offer" else "price",
                   f"the {label.lower()}")  # fmt: skip
    return Bound(
        key=key, label=label, outcome=State.DERIVED, amount=cost, unit=unit,
        display=f"{cost:.4g} {unit}", formula=formula, label_note=COST_LABEL,
        working=f"{price.per_accelerator_hour:.4g} ÷ ({speed.amount:.4g} × 3600) × 1,000,000 = {cost:.4g} {unit}",
    )  # fmt: skip


def estimate(catalog: EconomicsCatalog, request: EstimateRequest, prices: PriceSource | None = None) -> Estimate:
    """Estimate ``request`` against the catalog's records and the prices of ``prices`` (see
    the module docstring for the formulas); without ``prices`` no offer resolves and no
    price is read.

    Raises :class:`EstimateError` (status 404) for an unknown accelerator or offer, or an
    offer for another part (400), or a result that is not a finite number (400, naming the
    input that drove it: ``params``, ``utilisation``, ``price`` or ``offer``), and
    :class:`DoesNotFit` when the weights exceed one accelerator's published memory. Results built on a figure that is not published per
    accelerator are returned with that input's state as their outcome ("not published", "not applicable", ...).
    """
    acc = catalog.accelerators.get(request.accelerator)
    if acc is None:  # an alias or a name, read as `computeatlas show` reads it
        try:
            acc = catalog.accelerators[resolve_id(catalog, request.accelerator)]
        except ResolveError:
            acc = None
    if acc is None:
        near = closest(request.accelerator, catalog.accelerators)
        raise EstimateError("accelerator", f"no accelerator with id {request.accelerator!r}", 404,
                            [(catalog.accelerators[i].name, i) for i in near])  # fmt: skip
    fmt, params = request.number_format, request.params
    weight = params * fmt.bits / 8
    weight_text = humanize(weight, "B")
    op = compute_unit(fmt)
    memory = _input(acc, "memory", "Memory", acc.specs.memory, "B")
    bandwidth = _input(acc, "memory_bandwidth", "Memory bandwidth", acc.specs.memory_bandwidth, "B/s")
    compute = _input(acc, f"compute.{fmt.value}", f"Dense {fmt.value} compute", acc.compute(fmt), op)
    if memory.usable and memory.amount is not None:
        if weight > memory.amount:
            raise DoesNotFit(
                acc, weight, memory.amount, min_accelerators(weight, memory.amount), fewest_accelerators(catalog, weight, acc.id)
            )
        fits, fit_reason = State.DERIVED, None
    else:
        fits, fit_reason = _missing(memory, acc.name)
        fit_reason += ", so we cannot say the weights fit on one accelerator"

    speed_unit = "tokens/s"
    formula1 = "memory bandwidth (B/s) ÷ weight bytes"
    if fits is not State.DERIVED:
        batch1 = Bound(key="decode_batch1", label="Decode at batch 1 (memory-bound)", outcome=fits, unit=speed_unit,
                       display=fits.label, formula=formula1, reason=fit_reason)  # fmt: skip
    elif not bandwidth.usable or bandwidth.amount is None:
        outcome, why = _missing(bandwidth, acc.name)
        batch1 = Bound(key="decode_batch1", label="Decode at batch 1 (memory-bound)", outcome=outcome, unit=speed_unit,
                       display=outcome.label, formula=formula1, reason=why)  # fmt: skip
    else:
        tps = _finite(bandwidth.amount / weight, "params", "decode at batch 1")
        batch1 = Bound(key="decode_batch1", label="Decode at batch 1 (memory-bound)", outcome=State.DERIVED,
                       amount=tps, unit=speed_unit, display=f"{tps:.4g} tokens/s", formula=formula1,
                       working=f"{humanize(bandwidth.amount, 'B/s')} ÷ {weight_text} = {tps:.4g} tokens/s")  # fmt: skip

    formula2 = f"dense {fmt.value} {op} × utilisation ÷ (2 × parameters)"
    if fits is not State.DERIVED:
        big = Bound(key="decode_compute_bound", label="Decode at large batch (compute-bound)", outcome=fits,
                    unit=speed_unit, display=fits.label, formula=formula2, reason=fit_reason)  # fmt: skip
    elif not compute.usable or compute.amount is None:
        outcome, why = _missing(compute, acc.name)
        big = Bound(key="decode_compute_bound", label="Decode at large batch (compute-bound)", outcome=outcome,
                    unit=speed_unit, display=outcome.label, formula=formula2, reason=why)  # fmt: skip
    else:
        tps = _finite(compute.amount * request.utilisation / (2 * params), "utilisation", "decode at large batch")
        big = Bound(key="decode_compute_bound", label="Decode at large batch (compute-bound)", outcome=State.DERIVED,
                    amount=tps, unit=speed_unit, display=f"{tps:.4g} tokens/s", formula=formula2,
                    working=f"{humanize(compute.amount, op)} × {request.utilisation:g} ÷ (2 × {params_text(params)}) = {tps:.4g} tokens/s")  # fmt: skip

    if request.offer is not None:
        price = offer_price(catalog, acc, request.offer, prices)
    elif request.price_per_hour is not None:
        price = PriceInput(outcome=State.DERIVED, per_accelerator_hour=request.price_per_hour, origin="user",
                           working=f"{request.price_per_hour:g} USD per accelerator-hour, as given")  # fmt: skip
    else:
        price = cheapest_price(catalog, acc, prices)

    return Estimate(
        accelerator=acc.id,
        accelerator_name=acc.name,
        params=params,
        params_display=f"{params_text(params)} ({params:,.0f})",
        number_format=fmt,
        bits=fmt.bits,
        utilisation=request.utilisation,
        weight_bytes=weight,
        weight_display=weight_text,
        fits=fits,
        memory=memory,
        memory_bandwidth=bandwidth,
        compute=compute,
        price=price,
        decode_batch1=batch1,
        decode_compute_bound=big,
        cost_batch1=_cost("cost_batch1", "Cost per million tokens at batch 1", batch1, price),
        cost_compute_bound=_cost("cost_compute_bound", "Cost per million tokens at large batch", big, price),
        assumptions=assumptions(fmt, params, request.utilisation, weight_text),
        query=request.query(),
        data_version=catalog.version,
    )


def assumptions(fmt: NumberFormat, params: float, utilisation: float, weight_text: str) -> list[str]:
    """The assumptions behind an estimate, in words, with this request's numbers."""
    return [
        f"Memory needed is the weights only: {params_text(params)} parameters × {fmt.bits} bits ÷ 8 = {weight_text}. "
        "The KV cache, activations and runtime overhead are not counted, so the real need is higher.",
        f"Every weight is stored in {fmt.value}; no mixed precision, no compression beyond the format itself.",
        "One accelerator serves the model: no splitting across parts and none of its overheads.",
        "Decode at batch 1 reads every weight once per token, so it can go no faster than the published peak "
        "memory bandwidth divided by the weight bytes. Real sustained bandwidth is lower.",
        f"At large batch each token costs 2 FLOP per parameter (one multiply, one add), run at {utilisation:g} "
        "of the vendor's dense peak. Attention, KV-cache reads and sampling are ignored; each only lowers the rate.",
        "Dense compute only: structured sparsity is never assumed.",
        "The price is paid for every hour and every hour is spent producing tokens, so the cost is a floor.",
        "These are upper bounds on speed and lower bounds on cost built from published peaks, not measurements.",
    ]

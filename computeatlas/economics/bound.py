"""The bound: how fast N accelerators can at most serve a model, and the least it can cost.

Every figure is an **upper bound on throughput** (so a **lower bound on cost**) built from the
vendor's published peaks at utilisation ``u`` = 1. With ``u`` < 1 the same formulas give an
*estimate*, labelled as such (:data:`ESTIMATE_LABEL`), never called a bound.

Symbols (units in brackets):

- ``P_t`` total parameters, ``P_a`` active parameters per token (equal for a dense model;
  a mixture-of-experts model computes with ``P_a`` and must hold ``P_t``) [count];
- ``b`` bytes per weight = bits of the number format ÷ 8; ``b_kv`` bytes per cached element;
- ``L`` layers, ``H_kv`` key-value heads, ``d`` head size [count], from the model record;
- ``N`` accelerators with tensor parallelism: weights and KV cache split across all N;
- ``M`` memory, ``BW`` memory bandwidth [B, B/s], ``F`` dense FLOP/s at the format, per accelerator;
- ``C`` context length per sequence [tokens], ``B`` batch (sequences decoded together);
- ``price`` USD per accelerator-hour.

Formulas (each result carries its formula and the numbers put in):

1. weights ``W = P_t × b`` [B];
2. KV cache per token ``k = 2 × L × H_kv × d × b_kv`` [B] (a key and a value per layer and head);
   for ``B`` sequences at context ``C``: ``K = B × C × k``. Two attention layouts cache less, and the
   model record says so (:data:`computeatlas.economics.models.ATTENTION_FIGURES`):
   multi-head latent attention caches one latent of ``r`` elements and one positional key of
   ``p`` elements per token and layer, ``k = L × (r + p) × b_kv``; with a sliding window of ``w``
   tokens on ``L_w`` of the layers, those layers hold at most ``w`` tokens per sequence, so one
   sequence holds ``S(C) = 2 × H_kv × d × b_kv × ((L − L_w) × C + L_w × min(C, w))`` and
   ``k = S(C) ÷ C`` is the average per token at that context. Both are the least a decode step
   must read, so the bound stays an upper bound;
3. fits when ``W + K ≤ N × M``; otherwise :class:`DoesNotFitModel` gives the least
   ``N = ceil((W + K) ÷ M)``; the largest batch that fits is ``floor((N × M − W) ÷ (C × k))``;
4. prefill (compute-bound): ``tokens/s ≤ N × F × u ÷ (2 × P_a)`` (2 FLOP per active parameter);
5. decode, memory-bound: each step reads the active weights once and every sequence's cache:
   ``tokens/s ≤ B × N × BW × u ÷ (P_a × b + B × C × k)`` (reading only the active weights is
   the least a step can read, so this stays an upper bound for a mixture of experts at any batch);
   compute-bound: ``tokens/s ≤ N × F × u ÷ (2 × P_a)``; decode is the lower of the two;
6. cost per million tokens ``= N × price ÷ (tokens/s × 3600) × 10⁶``, for input (prefill) and
   output (decode) tokens; blended for ``i`` input per ``o`` output tokens:
   ``(i × cost_in + o × cost_out) ÷ (i + o)`` (time, so cost, adds up per token);
7. output tokens per joule ``= decode tokens/s ÷ (N × power)``: output (decode) tokens only,
   the accelerators' published power only (no host, network or cooling).

Ignored, each of which only lowers real throughput: attention FLOPs, communication between
the N accelerators, activations and runtime memory, scheduling. A figure the vendor does not
publish per accelerator leaves the results that need it in that figure's state, in words.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, Field

from computeatlas.core.claims import NumberFormat
from computeatlas.core.errors import BadRequest, ParamError
from computeatlas.core.numbers import compute_unit
from computeatlas.core.presentation import present
from computeatlas.core.states import State
from computeatlas.economics.models import ModelRecord
from computeatlas.economics.needs import needs_of
from computeatlas.silicon.records import Accelerator

BOUND_LABEL = "upper bound on throughput (lower bound on cost) from published peaks, not a measurement"
"""How a figure at utilisation 1 is labelled everywhere."""

ESTIMATE_LABEL = "estimate at the stated utilisation, not a bound and not a measurement"
"""How a figure at utilisation below 1 is labelled everywhere."""

MAX_ACCELERATORS = 1024
"""Most accelerators a request may name (beyond it, a tensor-parallel group is no longer the model)."""


class BoundInputError(ParamError):
    """A bound input that cannot be used (status 400): ``param`` names it, ``reason`` says
    why; the detail reads as every other parameter error's (``query parameter 'mix': …``)."""


class DoesNotFitModel(BadRequest):
    """The weights and KV cache exceed the memory of the accelerators asked for (status 400);
    ``minimum`` is the least number of accelerators that holds them."""

    def __init__(self, need: float, memory: float, count: int, minimum: int, what: str) -> None:
        super().__init__(
            "Does not fit",
            f"{what} need {need / 1e9:,.1f} GB but {count} × {memory / 1e9:,.0f} GB = {count * memory / 1e9:,.0f} GB "
            f"is available: at least {minimum} accelerators are needed",
        )
        self.need, self.memory, self.count, self.minimum = need, memory, count, minimum


class Figure(BaseModel):
    """One result: a number with its unit, formula and working, or the state that stops it."""

    key: str
    label: str
    amount: float | None = None
    unit: str
    formula: str
    working: str | None = None
    state: State = Field(State.DERIVED, description="derived when computed, else the state of the input that stops it")
    reason: str | None = None

    @property
    def computed(self) -> bool:
        """True when the figure is a number."""
        return self.amount is not None


@dataclass(frozen=True)
class Hardware:
    """The per-accelerator peaks a bound uses, each None when not a published per-accelerator
    number (``states`` then holds the state that stops it, ``why`` says so in words)."""

    memory: float | None
    bandwidth: float | None
    flops: float | None
    power: float | None
    why: dict[str, str]
    states: dict[str, State]


def hardware_of(acc: Accelerator, fmt: NumberFormat) -> Hardware:
    """The published per-accelerator memory [B], bandwidth [B/s], dense compute at ``fmt``
    [FLOP/s or OP/s] and power [W] of ``acc``, through :func:`computeatlas.core.presentation.present`."""
    figures = {
        "memory": present(acc.specs.memory, unit="B", what="memory", figure=True),
        "bandwidth": present(acc.specs.memory_bandwidth, unit="B/s", what="memory bandwidth", figure=True),
        "flops": present(acc.compute(fmt), unit=compute_unit(fmt), what=f"dense {fmt.value} compute", figure=True),
        "power": present(acc.specs.power, unit="W", what="power", figure=True),
    }
    missing = {k: p for k, p in figures.items() if not p.comparable or p.amount is None}
    why = {k: f"{k}: {p.label}" + (f" ({p.reason})" if p.reason else "") for k, p in missing.items()}
    # published, but not per accelerator: not comparable as a per-accelerator peak
    states: dict[str, State] = {k: State.NOT_COMPARABLE if p.state is State.PUBLISHED else p.state for k, p in missing.items()}
    return Hardware(**{k: p.amount if p.comparable else None for k, p in figures.items()}, why=why, states=states)


class BoundRequest(BaseModel):
    """What a bound is asked for; every field already checked by :func:`check_request`."""

    number_format: NumberFormat = NumberFormat.FP8
    kv_bits: int = Field(16, description="bits per cached key or value element")
    context: int = Field(1024, description="tokens per sequence (prompt and output together)")
    batch: int | None = Field(None, description="sequences decoded together; None = the largest that fits")
    accelerators: int | None = Field(None, description="N; None = the fewest that hold the weights and one sequence")
    input_tokens: float = 3.0
    output_tokens: float = 1.0
    utilisation: float = 1.0


def check_request(request: BoundRequest, model: ModelRecord) -> BoundRequest:
    """``request`` when every input is finite and in range; else :class:`BoundInputError` naming it."""
    limit = model.context_length.value if model.context_length.known else None
    if not 1 <= request.context <= (limit or 10_000_000):
        raise BoundInputError(
            "context", f"{request.context} tokens is outside 1 to {int(limit or 10_000_000):,} (the model's context length)"
        )
    if request.batch is not None and not 1 <= request.batch <= 1_000_000:
        raise BoundInputError("batch", f"{request.batch} is outside 1 to 1,000,000 sequences")
    if request.accelerators is not None and not 1 <= request.accelerators <= MAX_ACCELERATORS:
        raise BoundInputError("accelerators", f"{request.accelerators} is outside 1 to {MAX_ACCELERATORS}")
    if request.kv_bits not in (4, 8, 16, 32):
        raise BoundInputError("kv_bits", f"{request.kv_bits} is not 4, 8, 16 or 32 bits")
    if not (math.isfinite(request.utilisation) and 0.001 <= request.utilisation <= 1):
        raise BoundInputError("utilisation", f"{request.utilisation!r} is outside 0.001 to 1")
    for name in ("input_tokens", "output_tokens"):
        value = getattr(request, name)
        if not (math.isfinite(value) and 0 <= value <= 1e6):
            raise BoundInputError("mix", f"{name.replace('_', ' ')} {value!r} is outside 0 to 1,000,000")
    if request.input_tokens + request.output_tokens == 0:
        raise BoundInputError("mix", "input and output tokens cannot both be zero")
    return request


def minimum_accelerators(need: float, memory: float) -> int:
    """The least N with ``N × memory ≥ need`` (at least 1)."""
    n = max(math.ceil(need / memory), 1)
    return n - 1 if n > 1 and (n - 1) * memory >= need else n


class Bound(BaseModel):
    """Every figure of the bound for one model on N of one accelerator (see the module docstring)."""

    model: str
    accelerator: str
    accelerator_name: str
    number_format: NumberFormat
    accelerators: int
    batch: int | None
    context: int
    utilisation: float
    label: str
    weights: Figure
    kv_per_token: Figure
    memory_need: Figure
    prefill: Figure
    decode_memory: Figure
    decode_compute: Figure
    decode: Figure
    tokens_per_joule: Figure
    assumptions: list[str]


def _missing(key: str, label: str, unit: str, formula: str, state: State, reason: str) -> Figure:
    """A figure that is not computed: the state of the input that stops it, and why in words."""
    return Figure(key=key, label=label, unit=unit, formula=formula, state=state, reason=reason)


def bound(model: ModelRecord, acc: Accelerator, request: BoundRequest) -> Bound:
    """The bound of ``model`` on ``acc`` for ``request`` (checked with :func:`check_request`).

    Raises :class:`DoesNotFitModel` when the weights and the KV cache of the batch (at least one
    sequence) exceed N accelerators' memory, naming the least N; :class:`BoundInputError` when
    the accelerator has no such number format (not applicable).
    """
    fmt, u, C = request.number_format, request.utilisation, request.context
    hw = hardware_of(acc, fmt)
    if acc.compute(fmt) is not None and hw.states.get("flops") is State.NOT_APPLICABLE:
        raise BoundInputError("format", f"{acc.name} has no {fmt.value} (not applicable): choose another number format")
    needs = needs_of(model, fmt, request.kv_bits)
    label = BOUND_LABEL if u == 1 else ESTIMATE_LABEL
    W, Pa = needs.weight_bytes, needs.active_params
    seq = needs.per_sequence(C)
    k = seq / C if seq is not None else None  # bytes per token of context, averaged over the sequence
    weights = (Figure(key="weights", label="Weights", amount=W, unit="B", formula=f"total parameters × {fmt.bits} bits ÷ 8",
                      working=f"{model.total_params.value:,.0f} × {fmt.bits / 8:g} B = {W / 1e9:,.1f} GB") if W is not None
               else _missing("weights", "Weights", "B", "total parameters × bits ÷ 8", needs.stop, "; ".join(needs.why)))  # fmt: skip
    kv_working = (
        needs.kv_working
        if not needs.kv_window_bytes_per_token or k is None
        else f"{needs.kv_working}: {seq:,.0f} B per sequence of {C:,} tokens ÷ {C:,} = {k:,.0f} B per token"
    )
    kv = (
        Figure(key="kv_per_token", label="KV cache per token", amount=k, unit="B", formula=needs.kv_formula, working=kv_working)
        if k is not None
        else _missing("kv_per_token", "KV cache per token", "B", needs.kv_formula, needs.stop, "; ".join(needs.why))
    )
    N, B = request.accelerators, request.batch
    if W is not None and hw.memory is not None:
        one = W + (seq or 0) * (B or 1)
        what = "the weights" + (f" and the KV cache of {B or 1} sequence(s) of {C:,} tokens" if k else "")
        least = minimum_accelerators(one, hw.memory)
        if N is None and least > MAX_ACCELERATORS:  # the default count is bounded like a given one
            raise DoesNotFitModel(one, hw.memory, MAX_ACCELERATORS, least, what)
        if N is None:
            N = least
        elif least > N:
            raise DoesNotFitModel(one, hw.memory, N, least, what)
        if B is None:
            B = int((N * hw.memory - W) // seq) if seq else None
    N = N or 1
    need_amount = W + (seq or 0) * (B or 0) if W is not None else None
    need_label = "Memory needed" if k is not None else "Memory needed (weights only: the KV-cache figures are not yet sourced)"
    memory_need = (
        Figure(
            key="memory_need",
            label=need_label,
            amount=need_amount,
            unit="B",
            formula="W + B × C × k ≤ N × M",
            working=f"{W / 1e9:,.1f} GB + {B or 0:,} × {C:,} × {k or 0:,.0f} B = {need_amount / 1e9:,.1f} GB"
            f" ≤ {N} × {hw.memory / 1e9:,.0f} GB"
            if hw.memory and W is not None and need_amount is not None
            else None,
        )
        if need_amount is not None
        else _missing("memory_need", "Memory needed", "B", "W + B × C × k ≤ N × M", needs.stop, "; ".join(needs.why))
    )
    flops_formula = "N × F × u ÷ (2 × P_a)"
    op = compute_unit(fmt)
    if hw.flops is not None and Pa is not None:
        tps = N * hw.flops * u / (2 * Pa)
        working = f"{N} × {hw.flops / 1e12:,.1f} T{op} × {u:g} ÷ (2 × {Pa:,.0f}) = {tps:,.0f} tokens/s"
        prefill = Figure(
            key="prefill", label="Prefill (compute-bound)", amount=tps, unit="tokens/s", formula=flops_formula, working=working
        )
        compute = Figure(
            key="decode_compute", label="Decode, compute-bound", amount=tps, unit="tokens/s", formula=flops_formula, working=working
        )
    else:
        reason = hw.why.get("flops") or "; ".join(needs.why)
        state = hw.states.get("flops") or needs.stop
        prefill = _missing("prefill", "Prefill (compute-bound)", "tokens/s", flops_formula, state, reason)
        compute = _missing("decode_compute", "Decode, compute-bound", "tokens/s", flops_formula, state, reason)
    mem_formula = "B × N × BW × u ÷ (P_a × b + B × C × k)"
    if hw.bandwidth is not None and Pa is not None and B and (k is not None or request.batch is not None):
        # Without the KV-cache figures a given batch still reads its active weights every step:
        # counting no cache reads (k = 0) can only make decode look faster, so it stays an upper bound.
        read = Pa * fmt.bits / 8 + B * (seq or 0)
        tps = B * N * hw.bandwidth * u / read
        only = "" if k is not None else " (weights only: the KV-cache figures are not yet sourced, so no cache reads are counted)"
        memory = Figure(
            key="decode_memory",
            label="Decode, memory-bound",
            amount=tps,
            unit="tokens/s",
            formula=mem_formula,
            working=f"{B:,} × {N} × {hw.bandwidth / 1e12:,.2f} TB/s × {u:g} ÷ ({read / 1e9:,.2f} GB read per step) = {tps:,.0f} tokens/s{only}",
        )
    else:
        memory = _missing(
            "decode_memory",
            "Decode, memory-bound",
            "tokens/s",
            mem_formula,
            hw.states.get("bandwidth") or (needs.stop if needs.why else hw.states.get("memory", State.NOT_COLLECTED)),
            hw.why.get("bandwidth") or "; ".join(needs.why) or hw.why.get("memory") or "no batch fits",
        )
    shown = [f for f in (memory, compute) if f.computed]
    if shown:
        best = min(shown, key=lambda f: f.amount or 0)
        decode = Figure(key="decode", label="Decode (output tokens)", amount=best.amount, unit="tokens/s",
                        formula="the lower of memory-bound and compute-bound decode" if len(shown) == 2 else f"{best.label.lower()} only (the other is {(compute if best is memory else memory).state.label})",
                        working=best.working)  # fmt: skip
    else:
        decode = _missing(
            "decode",
            "Decode (output tokens)",
            "tokens/s",
            "the lower of memory-bound and compute-bound decode",
            memory.state,
            memory.reason or "",
        )
    if decode.computed and hw.power is not None:
        tpj = (decode.amount or 0) / (N * hw.power)
        joule = Figure(
            key="tokens_per_joule",
            label="Output tokens per joule",
            amount=tpj,
            unit="tokens/J",
            formula="decode tokens/s ÷ (N × power)",
            working=f"{decode.amount:,.0f} ÷ ({N} × {hw.power:,.0f} W) = {tpj:,.2f} tokens/J",
        )
    else:
        joule = _missing(
            "tokens_per_joule",
            "Output tokens per joule",
            "tokens/J",
            "decode tokens/s ÷ (N × power)",
            hw.states.get("power") or decode.state,
            hw.why.get("power") or decode.reason or "",
        )
    return Bound(model=model.id, accelerator=acc.id, accelerator_name=acc.name, number_format=fmt, accelerators=N, batch=B, context=C,
                 utilisation=u, label=label, weights=weights, kv_per_token=kv, memory_need=memory_need, prefill=prefill,
                 decode_memory=memory, decode_compute=compute, decode=decode, tokens_per_joule=joule,
                 assumptions=assumptions(model, fmt, request))  # fmt: skip


def assumptions(model: ModelRecord, fmt: NumberFormat, request: BoundRequest) -> list[str]:
    """The assumptions behind a bound, in words, with this request's numbers."""
    out = [
        f"Every weight is held in {fmt.value} ({fmt.bits} bits); the KV cache in {request.kv_bits}-bit elements.",
        "The accelerators split weights and KV cache evenly (tensor parallelism); communication between them is free.",
        "Compute runs at the vendor's dense peak and memory streams at the published peak bandwidth"
        + ("" if request.utilisation == 1 else f", each × {request.utilisation:g}")
        + ". Attention FLOPs, activations and runtime memory are ignored.",
        "Every hour rented is spent producing tokens.",
    ]
    if model.total_params.known and model.active_params.known and model.total_params.value != model.active_params.value:
        out.insert(
            1,
            "Mixture of experts: memory holds all total parameters; compute and the least weight read per step use "
            "the active parameters only.",
        )
    if model.weights_note:
        out.append(f"The publisher ships the weights as: {model.weights_note} The format above is what the bound assumes.")
    return out


__all__ = [
    "BOUND_LABEL", "ESTIMATE_LABEL", "Bound", "BoundInputError", "BoundRequest", "DoesNotFitModel", "Figure", "Hardware",
    "bound", "check_request", "hardware_of", "minimum_accelerators",
]  # fmt: skip

"""Our own estimate: the model page's bound (:func:`computeatlas.economics.model_view.accelerator_bound`)
for one model on one accelerator, as a form.

The model is a model record of the catalog (its weights, KV cache, mixture of experts) or a
parameter count alone: a dense model whose KV-cache figures are not yet collected
(:func:`params_model`), so its memory need is the weights only and its decode is compute-bound
only unless a batch is given. Every formula is :mod:`computeatlas.economics.bound`'s, with the
model page's settings: number format, utilisation, context, batch, accelerators (N, by default the
fewest that hold the weights and the KV cache of one sequence; a given N too small leaves the
result "does not fit"), bits per cached element and the input:output mix of the blended cost.

The price is given by the visitor, read from a chosen offer's observation in the store, or
else the part's cheapest current price by the one rule
(:func:`computeatlas.cloud.cheapest_price.cheapest_price`), named and dated; with none
current, no cost is computed and the newest price is named, not current.

Inputs must be finite and plausible (:func:`computeatlas.economics.inputs.parse_request`).
The published figures used are listed with their state and source (:class:`InputFigure`): a
figure that is not a published per-accelerator number leaves what needs it in that state, in words.
"""

from __future__ import annotations

import datetime as dt
import math

from pydantic import BaseModel, Field

from computeatlas.cloud.queries import AmbiguousParam
from computeatlas.core.claims import Claim, NumberFormat
from computeatlas.core.errors import closest
from computeatlas.core.numbers import compute_unit
from computeatlas.core.presentation import present
from computeatlas.core.states import State
from computeatlas.economics.bound import BOUND_LABEL, ESTIMATE_LABEL, BoundInputError, BoundRequest, check_request
from computeatlas.economics.catalog import EconomicsCatalog
from computeatlas.economics.errors import UnknownId
from computeatlas.economics.inputs import EstimateError, EstimateRequest, params_text
from computeatlas.economics.model_view import AcceleratorBound, accelerator_bound, find_model
from computeatlas.economics.models import Architecture, ModelFigure, ModelRecord
from computeatlas.economics.price_input import PriceInput, cheapest_price, offer_price
from computeatlas.economics.prices import PriceSource
from computeatlas.economics.rental_price import RentalPrice
from computeatlas.silicon.records import Accelerator
from computeatlas.silicon.resolve import AmbiguousName, ResolveError, resolve_id

LABEL = BOUND_LABEL
"""How a figure at utilisation 1 is labelled (the model page's :data:`~computeatlas.economics.bound.BOUND_LABEL`)."""

NOT_GIVEN = "not given: the estimate was asked for a parameter count only"
"""The note on every figure of a model given by its parameter count alone."""


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
    attribution: str | None = Field(None, description="a dense figure the maker does not print: 'from Yobitel, not from NVIDIA'")
    basis: str | None = None
    source_title: str | None = None
    source_url: str | None = None
    source_publisher: str | None = None
    source_kind: str | None = None
    note: str | None = None


class Estimate(BaseModel):
    """The estimate as shown on ``/economics/estimate``, by ``/api/estimate`` and the CLI:
    the inputs, the published figures used, and the model page's bound for this one part."""

    accelerator: str
    accelerator_name: str
    accelerator_url: str = Field("", description="the accelerator's page (set by computeatlas.pages.economics)")
    model: str | None = Field(None, description="the model id, or None for a parameter count alone")
    model_name: str
    model_url: str = Field("", description="the model's page (set by computeatlas.pages.economics); empty for a parameter count")
    params: float | None = Field(description="total parameters, None when the model record does not state them")
    params_display: str = Field(description="the parameter count in words, e.g. '70e9 (70,000,000,000)'")
    number_format: NumberFormat
    bits: int
    utilisation: float
    settings: dict[str, str] = Field(description="context, batch, accelerators, kv_bits and mix as URL parameters")
    memory: InputFigure
    memory_bandwidth: InputFigure
    compute: InputFigure
    price: PriceInput
    result: AcceleratorBound = Field(description="the model page's bound on this accelerator at this price")
    assumptions: list[str]
    label: str
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
        value=shown.stated if shown.attribution else claim.value or claim.published_text or claim.text,
        amount=shown.amount,
        unit=unit,
        attribution=shown.attribution,
        basis=claim.basis.value if claim.basis else None,
        source_title=src.title if src else None,
        source_url=src.url if src else None,
        source_publisher=src.publisher if src else None,
        source_kind=src.kind.value if src else None,
        note=claim.note,
    )


def params_model(params: float) -> ModelRecord:
    """A dense model of ``params`` parameters (total = active) whose other figures (layers,
    KV heads, head size, context length …) are not yet collected: the KV cache is then unknown."""
    shown = ModelFigure.model_construct(state=State.PUBLISHED, value=params, source="given", note=None)
    missing = ModelFigure.model_construct(state=State.NOT_COLLECTED, value=None, source=None, note=NOT_GIVEN)
    return ModelRecord.model_construct(
        id="params", name=f"{params_text(params)} parameters", developer="", architecture=Architecture.DENSE, card_url="",
        total_params=shown, active_params=shown, layers=missing, hidden_size=missing, attention_heads=missing,
        kv_heads=missing, head_size=missing, context_length=missing, kv_lora_rank=None, qk_rope_head_dim=None,
        sliding_window=None, sliding_window_layers=None, weights_note=None, aliases={}, note=None,
        verified=dt.date(1970, 1, 1), sources={},
    )  # fmt: skip


def _accelerator(catalog: EconomicsCatalog, ident: str) -> Accelerator:
    acc = catalog.accelerators.get(ident)
    if acc is None:  # an alias or a name, read as `computeatlas show` reads it
        try:
            acc = catalog.accelerators[resolve_id(catalog, ident)]
        except AmbiguousName as exc:  # a name several parts share: list them, never pick one
            raise AmbiguousParam("accelerator", ident, exc.message, exc.options) from None
        except ResolveError:
            acc = None
    if acc is None:
        near = closest(ident, catalog.accelerators)
        raise EstimateError("accelerator", f"no accelerator with id {ident!r}", 404, [(catalog.accelerators[i].name, i) for i in near])
    return acc


def _rental(price: PriceInput, now: dt.datetime) -> RentalPrice | None:
    """``price`` as the bound's :class:`~computeatlas.economics.rental_price.RentalPrice`, None without one."""
    if price.outcome is not State.DERIVED or price.per_accelerator_hour is None:
        return None
    origin = {"user": "given by you", "offer": f"chosen offer {price.offer_id}"}.get(
        price.origin, "the cheapest fresh on-demand observation"
    )
    seen = dt.datetime.fromisoformat(price.seen) if price.seen else now
    return RentalPrice(
        per_accelerator_hour=price.per_accelerator_hour, provider=price.provider or "", instance_type=price.instance_type or "",
        region=price.region or "", collected=seen if seen.tzinfo else seen.replace(tzinfo=dt.UTC), source_url=price.source_url or "",
        freshness_days=0, origin=origin,
    )  # fmt: skip


def estimate(catalog: EconomicsCatalog, request: EstimateRequest, prices: PriceSource | None = None) -> Estimate:
    """Estimate ``request``: the model page's bound (:func:`~computeatlas.economics.model_view.accelerator_bound`)
    of its model on its accelerator at its price (see the module docstring); without ``prices``
    no offer resolves and no price is read.

    Raises :class:`EstimateError` (status 404) for an unknown accelerator, model or offer, and
    (400) for an offer for another part or in a currency other than USD, a cost that is not a
    finite number (naming ``price`` or ``offer``), or a setting out of
    range for the model (``context``, ``batch``, ``accelerators``, ``kv_bits``, ``mix``), naming
    the input. A result the part cannot give (too few accelerators: "does not fit"; no such
    number format: "not applicable") is returned with that state in ``result.state``.
    """
    acc = _accelerator(catalog, request.accelerator)
    if request.model is not None:
        try:
            model = find_model(catalog, request.model)
        except UnknownId as exc:
            raise EstimateError("model", f"no model with id {request.model!r}", 404, exc.near) from None
    else:
        assert request.params is not None
        model = params_model(request.params)
    fmt = request.number_format
    settings = BoundRequest(
        number_format=fmt, kv_bits=request.kv_bits, context=request.context, batch=request.batch,
        accelerators=request.accelerators, input_tokens=request.input_tokens, output_tokens=request.output_tokens,
        utilisation=request.utilisation,
    )  # fmt: skip
    try:
        settings = check_request(settings, model)
    except BoundInputError as exc:
        raise EstimateError(exc.param, exc.reason) from None
    if request.offer is not None:
        price = offer_price(catalog, acc, request.offer, prices)
        if price.currency != "USD":
            raise EstimateError("offer", f"{request.offer!r} is priced in {price.currency}; the bound's costs are in USD")
    elif request.price_per_hour is not None:
        price = PriceInput(outcome=State.DERIVED, per_accelerator_hour=request.price_per_hour, origin="user",
                           working=f"{request.price_per_hour:g} USD per accelerator-hour, as given")  # fmt: skip
    else:
        price = cheapest_price(catalog, acc, prices)
    now = prices.now if prices is not None else dt.datetime.now(dt.UTC)
    row = accelerator_bound(model, acc.id, catalog, settings, _rental(price, now))
    for fig in (row.cost_input, row.cost_output, row.cost_blended):
        if fig is not None and fig.amount is not None and not math.isfinite(fig.amount):
            raise EstimateError("offer" if price.origin == "offer" else "price",
                                f"the {fig.label.lower()} comes out as {fig.amount!r}, not a finite number: this input is out of range")  # fmt: skip
    total = model.total_params.value if model.total_params.known else None
    op = compute_unit(fmt)
    query = request.model_copy(update={"model": model.id, "accelerator": acc.id} if request.model is not None else {"accelerator": acc.id})
    return Estimate(
        accelerator=acc.id, accelerator_name=acc.name, model=model.id if request.model is not None else None, model_name=model.name,
        params=total, params_display=f"{params_text(total)} ({total:,.0f})" if total is not None else model.total_params.state.label,
        number_format=fmt, bits=fmt.bits, utilisation=request.utilisation,
        settings={k: v for k, v in query.query().items() if k in ("context", "batch", "accelerators", "kv_bits", "mix")},
        memory=_input(acc, "memory", "Memory", acc.specs.memory, "B"),
        memory_bandwidth=_input(acc, "memory_bandwidth", "Memory bandwidth", acc.specs.memory_bandwidth, "B/s"),
        compute=_input(acc, f"compute.{fmt.value}", f"Dense {fmt.value} compute", acc.compute(fmt), op),
        price=price, result=row, assumptions=row.bound.assumptions if row.bound else [],
        label=LABEL if request.utilisation == 1 else ESTIMATE_LABEL, query=query.query(), data_version=catalog.version,
    )  # fmt: skip


__all__ = ["LABEL", "Estimate", "InputFigure", "estimate", "params_model"]

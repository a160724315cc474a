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
- cost per million tokens ≥ price per accelerator-hour ÷ (tokens/s × 3600) × 10⁶.

Inputs must be finite and plausible (:func:`parse_request`): a whole parameter count from
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
import re
from collections.abc import Sequence
from decimal import Decimal, DecimalException
from enum import StrEnum

from pydantic import BaseModel, Field

from computeatlas.cloud.pricing import amount_text, offer_price
from computeatlas.cloud.records import Offer
from computeatlas.core.catalog import Catalog
from computeatlas.core.claims import Claim, NumberFormat
from computeatlas.core.errors import closest
from computeatlas.core.presentation import Shown, compute_unit, present
from computeatlas.core.units import humanize
from computeatlas.core.urls import site_path
from computeatlas.silicon.records import Accelerator

LABEL = "upper bound from published figures, not a measurement"
"""How every estimated figure is labelled, on the page, in the API and in the CLI."""

COST_LABEL = "lower bound on cost from published figures, not a measurement"
"""How every estimated cost is labelled: it is the floor implied by the speed upper bound."""

MIN_PARAMS = 1e6
"""Smallest parameter count accepted (a million): below it a decode estimate means nothing."""

MAX_PARAMS = 1e15
"""Largest parameter count accepted (a quadrillion); anything above is surely a typo."""

MIN_UTILISATION = 0.001
"""Smallest utilisation accepted (0.1 % of dense peak); the largest is 1 (all of it)."""

MIN_PRICE = 0.0001
"""Smallest price accepted, in USD per accelerator-hour (a hundredth of a cent)."""

MAX_PRICE = 1e6
"""Largest price accepted, in USD per accelerator-hour (a million)."""

_SUFFIXES = {"k": 3, "m": 6, "b": 9, "g": 9, "t": 12}
_NUMBER = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:e[+-]?[0-9]+)?)\s*([kmbgt]?)\s*$", re.IGNORECASE)


class EstimateError(ValueError):
    """Bad input for an estimate: ``param`` names the input, ``reason`` says what is wrong.

    ``status`` is the HTTP status the web layer answers with (400 bad value, 404 unknown
    id); ``suggestions`` lists ``(name, id)`` pairs of the closest known ids, and ``more``
    counts the known ids left out of that list (``accelerator`` names the part whose
    offers they are, when the list is of offers).
    """

    def __init__(
        self, param: str, reason: str, status: int = 400, suggestions: Sequence[tuple[str, str]] = (),
        more: int = 0, accelerator: str | None = None,
    ) -> None:  # fmt: skip
        self.param = param
        self.reason = reason
        self.status = status
        self.suggestions = list(suggestions)
        self.more = more
        self.accelerator = accelerator
        super().__init__(f"{param}: {reason}")


class DoesNotFit(EstimateError):
    """The weights need more than one accelerator's published memory.

    ``need_bytes`` = parameters × bits ÷ 8; ``memory_bytes`` is the published per-accelerator
    memory; ``min_accelerators`` = ceil(need_bytes ÷ memory_bytes), a floor that ignores the
    KV cache and every overhead of splitting a model.
    """

    def __init__(self, accelerator: Accelerator, need_bytes: float, memory_bytes: float, min_accelerators: int) -> None:
        self.need_bytes = need_bytes
        self.memory_bytes = memory_bytes
        self.min_accelerators = min_accelerators
        super().__init__(
            "params",
            f"the weights need {humanize(need_bytes, 'B')} but one {accelerator.name} has "
            f"{humanize(memory_bytes, 'B')} of published memory: the model does not fit on one accelerator "
            f"and needs at least {min_accelerators} of them (weights only)",
        )


class Outcome(StrEnum):
    """The state of an estimated figure, shown as words, never as a blank or a zero.

    A bound that cannot be computed takes the shown state of the input that stops it
    (:mod:`computeatlas.core.presentation`), in that state's words.
    """

    COMPUTED = "computed"
    NOT_PUBLISHED = "not published"
    NOT_APPLICABLE = "not applicable"
    NOT_COMPARABLE = "not comparable"
    PUBLISHED_AS_TEXT = "published as text"
    NOT_SOURCED = "not yet sourced"
    NOT_COLLECTED = "not yet collected"
    NOT_SEPARABLE = "not separable"
    NO_PRICE = "no price given"


def params_text(params: float) -> str:
    """A parameter count as short text that :func:`parse_request` reads back exactly:
    ``70e9``, ``1.5e12``, ``350e6``, ``1.234567e6`` (a whole count keeps every digit)."""
    whole = math.isfinite(params) and params == math.floor(params)
    for exponent in (12, 9, 6, 3):
        if params >= 10**exponent:
            if not whole:
                return f"{params / 10**exponent:.6g}e{exponent}"
            mantissa = Decimal(int(params)).scaleb(-exponent).normalize()
            return f"{mantissa:f}e{exponent}"
    return f"{params:.6g}"


class EstimateRequest(BaseModel):
    """Parsed inputs, each finite and in a plausible range. ``params`` is a whole parameter
    count from :data:`MIN_PARAMS` (1e6) to :data:`MAX_PARAMS` (1e15); ``utilisation`` is a
    share of dense peak from :data:`MIN_UTILISATION` (0.001) to 1; ``price_per_hour`` is USD
    per accelerator-hour given by the user, from :data:`MIN_PRICE` (0.0001) to
    :data:`MAX_PRICE` (1e6); ``offer`` an offer id."""

    accelerator: str = Field(max_length=100)
    params: float = Field(ge=MIN_PARAMS, le=MAX_PARAMS, allow_inf_nan=False)
    number_format: NumberFormat
    utilisation: float = Field(ge=MIN_UTILISATION, le=1, allow_inf_nan=False)
    price_per_hour: float | None = Field(None, ge=MIN_PRICE, le=MAX_PRICE, allow_inf_nan=False)
    offer: str | None = Field(None, max_length=100)

    def query(self) -> dict[str, str]:
        """The request as URL parameters of ``/economics/estimate`` (shareable)."""
        out = {"accelerator": self.accelerator, "params": params_text(self.params), "format": self.number_format.value,
               "utilisation": f"{self.utilisation:g}"}  # fmt: skip
        if self.price_per_hour is not None:
            out["price"] = f"{self.price_per_hour:g}"
        if self.offer is not None:
            out["offer"] = self.offer
        return out


def _sci(value: float) -> str:
    """A round limit as short text: ``1e6``, ``1e15``, ``0.0001``."""
    return f"{value:g}".replace("e+0", "e").replace("e+", "e")


def _positive(param: str, text: str, what: str, suffixes: bool = False) -> Decimal:
    """``text`` as an exact positive, finite number (a k/M/B/G/T suffix scales it when
    ``suffixes``); raises :class:`EstimateError` naming ``param`` otherwise."""
    match = _NUMBER.match(text or "")
    if text and text.strip().startswith("-"):
        raise EstimateError(param, f"{what} must be positive, got {text.strip()[:40]!r}")
    if match is None or (match.group(2) and not suffixes):
        hint = " (e.g. 70e9 or 70B)" if suffixes else ""
        raise EstimateError(param, f"expected {what} as a number{hint}, got {text.strip()[:40]!r}")
    try:
        value = Decimal(match.group(1)).scaleb(_SUFFIXES.get(match.group(2).lower(), 0))
    except DecimalException:  # an exponent beyond Decimal's range
        value = Decimal("Infinity")
    if not math.isfinite(float(value)) or value <= 0:
        raise EstimateError(param, f"{what} must be a positive, finite number, got {text.strip()[:40]!r}")
    return value


def parse_request(
    accelerator: str | None,
    params: str | None,
    number_format: str | None,
    utilisation: str | None,
    price: str | None = None,
    offer: str | None = None,
) -> EstimateRequest:
    """Parse the inputs as typed in a form, a URL or the CLI; raise :class:`EstimateError`.

    ``params`` accepts ``70e9``, ``70000000000`` or ``70B`` (k, M, B/G, T suffixes): a whole
    count from 1e6 to 1e15; ``number_format`` is a format name in any case (``fp8``);
    ``utilisation`` is a number in (0, 1] and at least 0.001 (``0.5``) or a percentage
    (``50%``); ``price`` is USD per accelerator-hour, from 0.0001 to 1e6 (``$`` allowed).
    A price and an offer together are an error: the estimate uses one price. Every number
    must be finite (no ``nan``, ``inf`` or ``1e400``).
    """
    for name, value in (("accelerator", accelerator), ("params", params), ("format", number_format), ("utilisation", utilisation)):
        if value is None or not value.strip():
            raise EstimateError(name, "required")
    for name, value in (("accelerator", accelerator), ("params", params), ("format", number_format), ("utilisation", utilisation), ("price", price), ("offer", offer)):
        if value is not None and len(value) > 100:
            raise EstimateError(name, "value is too long")
    assert accelerator is not None and params is not None and number_format is not None and utilisation is not None
    exact = _positive("params", params, "a parameter count", suffixes=True)
    count = float(exact)
    if count < MIN_PARAMS:
        raise EstimateError("params", f"{params_text(count)} parameters is fewer than the {_sci(MIN_PARAMS)} (a million) we accept")
    if count > MAX_PARAMS:
        raise EstimateError("params", f"{params_text(count)} parameters is more than the {_sci(MAX_PARAMS)} we accept")
    if exact != exact.to_integral_value():
        raise EstimateError("params", f"a parameter count is a whole number, got {params.strip()[:40]!r}")
    try:
        fmt = NumberFormat(number_format.strip().upper())
    except ValueError:
        raise EstimateError(
            "format", f"unknown number format {number_format.strip()!r}; one of {', '.join(f.value for f in NumberFormat)}"
        ) from None
    text = utilisation.strip()
    try:
        share = float(text.removesuffix("%")) / (100 if text.endswith("%") else 1)
    except ValueError:
        share = math.nan
    if not MIN_UTILISATION <= share <= 1:  # also rejects nan and inf
        raise EstimateError("utilisation", f"must be a number in (0, 1] and at least {MIN_UTILISATION:g}, a share of dense "
                                           f"peak such as 0.5 or 50%, got {text[:40]!r}")  # fmt: skip
    if price is not None and price.strip() and offer is not None and offer.strip():
        raise EstimateError("price", "give a price or an offer, not both")
    per_hour = None
    if price and price.strip():
        per_hour = float(_positive("price", price.strip().lstrip("$"), "a price per accelerator-hour"))
        if not MIN_PRICE <= per_hour <= MAX_PRICE:
            raise EstimateError("price", f"a price per accelerator-hour must be from {_sci(MIN_PRICE)} to {_sci(MAX_PRICE)} USD, "
                                         f"got {price.strip()[:40]!r}")  # fmt: skip
    return EstimateRequest(
        accelerator=accelerator.strip(),
        params=count,
        number_format=fmt,
        utilisation=share,
        price_per_hour=per_hour,
        offer=offer.strip() if offer and offer.strip() else None,
    )


class InputFigure(BaseModel):
    """A published figure the estimate uses, with its state, basis and source as recorded."""

    key: str
    label: str
    state: Shown = Field(description="the state as shown (computeatlas.core.presentation); not_collected where nobody collected it")
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


class PriceInput(BaseModel):
    """The price per accelerator-hour the cost uses, and where it came from.

    From an offer it is derived by :func:`computeatlas.cloud.pricing.offer_price`: ``instance``
    prices ÷ ``accelerators_per_instance``; ``accelerator`` prices as published; ``bundle``
    prices cannot be split ("not separable"). It stays in the offer's currency.
    """

    outcome: Outcome
    per_accelerator_hour: float | None = None
    currency: str = "USD"
    origin: str = Field(description="'user', 'offer' or 'none'")
    working: str | None = None
    offer_id: str | None = None
    provider: str | None = None
    instance_type: str | None = None
    pricing: str | None = None
    term: str | None = None
    region: str | None = None
    seen: str | None = None
    stale: bool = Field(False, description="the offer was seen long enough ago to be stale (cloud layer's rule)")
    source_url: str | None = None
    offer_url: str | None = Field(None, description="the offer on its accelerator's price page")


class Bound(BaseModel):
    """One estimated figure: its outcome, amount (``unit``), the formula and the working."""

    key: str
    label: str
    outcome: Outcome
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
    accelerator_url: str
    params: float
    params_display: str = Field(description="the parameter count in words, e.g. '70e9 (70,000,000,000)'")
    number_format: NumberFormat
    bits: int
    utilisation: float
    weight_bytes: float = Field(description="parameters × bits ÷ 8, in bytes (weights only)")
    weight_display: str
    fits: Outcome = Field(description="computed (fits on one accelerator), or the state of the memory figure that stops it")
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


def _missing(fig: InputFigure, name: str) -> tuple[Outcome, str]:
    """Why ``fig`` cannot be used: the outcome and a sentence naming the input's state."""
    if fig.state is Shown.NOT_APPLICABLE:
        return Outcome.NOT_APPLICABLE, f"{fig.label} is not applicable to {name} (the hardware has no such thing)"
    if fig.state is Shown.NOT_COMPARABLE:
        return Outcome.NOT_COMPARABLE, (
            f"{fig.label} is published only on another basis or with sparsity ({fig.value!r}), "
            "not as a dense per-accelerator figure, so it is not used"
        )
    return Outcome(fig.state_label), f"{fig.label} is {fig.state_label} for {name}"


MAX_OFFER_SUGGESTIONS = 8
"""How many of a part's offers an unknown offer id lists; the rest are counted (``more``)."""


def offer_label(offer: Offer) -> str:
    """An offer in words that tell it from its neighbours: provider, instance, pricing and
    term, region and the price as published, e.g. ``aws · p5.48xlarge · reserved (Capacity
    Block) · US East (Ohio) · 39.33 USD/h per instance``."""
    terms = offer.pricing.value + (f" ({offer.term})" if offer.term else "")
    price = f"{amount_text(offer.price_per_hour)} {offer.currency}/h per {offer.price_basis.value}"
    return " · ".join((offer.provider, offer.instance_type, terms, offer.region or "region not stated", price))


def _offer_price(catalog: Catalog, acc: Accelerator, ident: str) -> PriceInput:
    offer: Offer | None = catalog.offers.get(ident)
    if offer is None:
        own = [o for o in catalog.offers.values() if o.accelerator == acc.id]
        hint = [(offer_label(o), o.id) for o in own[:MAX_OFFER_SUGGESTIONS]]
        more = max(len(own) - MAX_OFFER_SUGGESTIONS, 0)
        raise EstimateError("offer", f"no offer with id {ident!r}" + ("" if own else f"; the atlas has no offers for {acc.id}"),
                            404, hint, more=more, accelerator=acc.id)  # fmt: skip
    if offer.accelerator != acc.id:
        raise EstimateError("offer", f"offer {ident!r} rents {offer.accelerator}, not {acc.id}")
    derived = offer_price(catalog, offer)  # the cloud layer's derivation: instance price ÷ accelerators
    return PriceInput(
        outcome=Outcome.NOT_SEPARABLE if derived.per_accelerator_hour is None else Outcome.COMPUTED,
        per_accelerator_hour=derived.per_accelerator_hour, currency=offer.currency, origin="offer",
        working=derived.arithmetic, offer_id=offer.id, provider=derived.provider_name, instance_type=offer.instance_type,
        pricing=offer.pricing.value, term=offer.term, region=offer.region, seen=offer.seen.isoformat(),
        stale=derived.stale, source_url=offer.source_url, offer_url=derived.url,
    )  # fmt: skip


def _finite(value: float, param: str, what: str) -> float:
    """``value`` when it is a finite number; else :class:`EstimateError` (400) naming ``param``."""
    if not math.isfinite(value):
        raise EstimateError(param, f"{what} comes out as {value!r}, not a finite number: this input is out of range")
    return value


def _cost(key: str, label: str, speed: Bound, price: PriceInput) -> Bound:
    unit = f"{price.currency} per million tokens"
    formula = "price per accelerator-hour ÷ (tokens/s × 3600) × 1,000,000"
    if speed.outcome is not Outcome.COMPUTED or speed.amount is None:
        return Bound(key=key, label=label, outcome=speed.outcome, unit=unit, display=speed.outcome.value, formula=formula,
                     label_note=COST_LABEL, reason=f"{speed.label} is {speed.outcome.value}: {speed.reason}")  # fmt: skip
    if price.outcome is not Outcome.COMPUTED or price.per_accelerator_hour is None:
        why = price.working if price.outcome is Outcome.NOT_SEPARABLE else "give a price per accelerator-hour or choose an offer"
        return Bound(key=key, label=label, outcome=price.outcome, unit=unit, display=price.outcome.value, formula=formula,
                     label_note=COST_LABEL, reason=why)
    cost = _finite(price.per_accelerator_hour / (speed.amount * 3600) * 1e6, "offer" if price.origin == "offer" else "price",
                   f"the {label.lower()}")  # fmt: skip
    return Bound(
        key=key, label=label, outcome=Outcome.COMPUTED, amount=cost, unit=unit,
        display=f"{cost:.4g} {unit}", formula=formula, label_note=COST_LABEL,
        working=f"{price.per_accelerator_hour:.4g} ÷ ({speed.amount:.4g} × 3600) × 1,000,000 = {cost:.4g} {unit}",
    )  # fmt: skip


def estimate(catalog: Catalog, request: EstimateRequest) -> Estimate:
    """Estimate ``request`` against the catalog's records (see the module docstring for the formulas).

    Raises :class:`EstimateError` (status 404) for an unknown accelerator or offer, or an
    offer for another part (400), or a result that is not a finite number (400, naming the
    input that drove it: ``params``, ``utilisation``, ``price`` or ``offer``), and
    :class:`DoesNotFit` when the weights exceed one accelerator's published memory. Results built on a figure that is not published per
    accelerator are returned with that input's state as their outcome ("not published", "not applicable", ...).
    """
    acc = catalog.accelerators.get(request.accelerator)
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
            chips = math.ceil(weight / memory.amount)
            chips -= 1 if (chips - 1) * memory.amount >= weight else 0
            raise DoesNotFit(acc, weight, memory.amount, chips)
        fits, fit_reason = Outcome.COMPUTED, None
    else:
        fits, fit_reason = _missing(memory, acc.name)
        fit_reason += ", so we cannot say the weights fit on one accelerator"

    speed_unit = "tokens/s"
    formula1 = "memory bandwidth (B/s) ÷ weight bytes"
    if fits is not Outcome.COMPUTED:
        batch1 = Bound(key="decode_batch1", label="Decode at batch 1 (memory-bound)", outcome=fits, unit=speed_unit,
                       display=fits.value, formula=formula1, reason=fit_reason)  # fmt: skip
    elif not bandwidth.usable or bandwidth.amount is None:
        outcome, why = _missing(bandwidth, acc.name)
        batch1 = Bound(key="decode_batch1", label="Decode at batch 1 (memory-bound)", outcome=outcome, unit=speed_unit,
                       display=outcome.value, formula=formula1, reason=why)  # fmt: skip
    else:
        tps = _finite(bandwidth.amount / weight, "params", "decode at batch 1")
        batch1 = Bound(key="decode_batch1", label="Decode at batch 1 (memory-bound)", outcome=Outcome.COMPUTED,
                       amount=tps, unit=speed_unit, display=f"{tps:.4g} tokens/s", formula=formula1,
                       working=f"{humanize(bandwidth.amount, 'B/s')} ÷ {weight_text} = {tps:.4g} tokens/s")  # fmt: skip

    formula2 = f"dense {fmt.value} {op} × utilisation ÷ (2 × parameters)"
    if fits is not Outcome.COMPUTED:
        big = Bound(key="decode_compute_bound", label="Decode at large batch (compute-bound)", outcome=fits,
                    unit=speed_unit, display=fits.value, formula=formula2, reason=fit_reason)  # fmt: skip
    elif not compute.usable or compute.amount is None:
        outcome, why = _missing(compute, acc.name)
        big = Bound(key="decode_compute_bound", label="Decode at large batch (compute-bound)", outcome=outcome,
                    unit=speed_unit, display=outcome.value, formula=formula2, reason=why)  # fmt: skip
    else:
        tps = _finite(compute.amount * request.utilisation / (2 * params), "utilisation", "decode at large batch")
        big = Bound(key="decode_compute_bound", label="Decode at large batch (compute-bound)", outcome=Outcome.COMPUTED,
                    amount=tps, unit=speed_unit, display=f"{tps:.4g} tokens/s", formula=formula2,
                    working=f"{humanize(compute.amount, op)} × {request.utilisation:g} ÷ (2 × {params_text(params)}) = {tps:.4g} tokens/s")  # fmt: skip

    if request.offer is not None:
        price = _offer_price(catalog, acc, request.offer)
    elif request.price_per_hour is not None:
        price = PriceInput(outcome=Outcome.COMPUTED, per_accelerator_hour=request.price_per_hour, origin="user",
                           working=f"{request.price_per_hour:g} USD per accelerator-hour, as given")  # fmt: skip
    else:
        price = PriceInput(outcome=Outcome.NO_PRICE, origin="none")

    return Estimate(
        accelerator=acc.id,
        accelerator_name=acc.name,
        accelerator_url=site_path("silicon_page", ident=acc.id),
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


__all__ = [
    "Bound", "DoesNotFit", "Estimate", "EstimateError", "EstimateRequest", "InputFigure", "LABEL", "MAX_PARAMS",
    "MAX_PRICE", "MIN_PARAMS", "MIN_PRICE", "MIN_UTILISATION", "Outcome", "PriceInput", "assumptions", "estimate",
    "offer_label", "params_text", "parse_request",
]  # fmt: skip

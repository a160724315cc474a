"""The estimate's input: what a visitor or the CLI asks for, read strictly.

:func:`parse_request` turns text (``model=llama-3-3-70b`` or ``params=70B``, ``format=FP8``,
``utilisation=50%``, ``price=3`` or an offer id, and the model page's ``context``, ``batch``,
``accelerators``, ``kv_bits`` and ``mix``) into an :class:`EstimateRequest`, or raises
:class:`EstimateError` naming the input: a whole parameter count from 1e6 to 1e15,
utilisation from 0.001 to 1, a price from 0.0001 to 1e6 USD per accelerator-hour, nothing
non-finite.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from decimal import Decimal, DecimalException

from pydantic import BaseModel, Field

from computeatlas.core.claims import NumberFormat
from computeatlas.economics.bound import BoundInputError
from computeatlas.economics.bound_settings import request_from

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
    """Parsed inputs, each finite and in a plausible range. The model is ``model`` (a model id of
    the catalog) or ``params`` (a whole parameter count from :data:`MIN_PARAMS` (1e6) to
    :data:`MAX_PARAMS` (1e15): a dense model whose KV-cache figures are not yet collected), one of
    them; ``utilisation`` is a share of dense peak from :data:`MIN_UTILISATION` (0.001) to 1;
    ``price_per_hour`` is USD per accelerator-hour given by the user, from :data:`MIN_PRICE`
    (0.0001) to :data:`MAX_PRICE` (1e6); ``offer`` an offer id. ``context`` [tokens], ``batch``
    (None: the largest that fits), ``accelerators`` (None: the fewest that hold the model),
    ``kv_bits`` and the input:output mix are the model page's settings
    (:class:`~computeatlas.economics.bound.BoundRequest`), checked against the model when estimated."""

    accelerator: str = Field(max_length=100)
    model: str | None = Field(None, max_length=100)
    params: float | None = Field(None, ge=MIN_PARAMS, le=MAX_PARAMS, allow_inf_nan=False)
    number_format: NumberFormat
    utilisation: float = Field(ge=MIN_UTILISATION, le=1, allow_inf_nan=False)
    price_per_hour: float | None = Field(None, ge=MIN_PRICE, le=MAX_PRICE, allow_inf_nan=False)
    offer: str | None = Field(None, max_length=100)
    context: int = 1024
    batch: int | None = None
    accelerators: int | None = None
    kv_bits: int = 16
    input_tokens: float = 3.0
    output_tokens: float = 1.0

    def query(self) -> dict[str, str]:
        """The request as URL parameters of ``/economics/estimate`` (shareable); settings left at their default are left out."""
        out = {"accelerator": self.accelerator}
        if self.model is not None:
            out["model"] = self.model
        if self.params is not None:
            out["params"] = params_text(self.params)
        out |= {"format": self.number_format.value, "utilisation": f"{self.utilisation:g}"}
        if self.price_per_hour is not None:
            out["price"] = f"{self.price_per_hour:g}"
        if self.offer is not None:
            out["offer"] = self.offer
        if self.context != 1024:
            out["context"] = str(self.context)
        if self.batch is not None:
            out["batch"] = str(self.batch)
        if self.accelerators is not None:
            out["accelerators"] = str(self.accelerators)
        if self.kv_bits != 16:
            out["kv_bits"] = str(self.kv_bits)
        if (self.input_tokens, self.output_tokens) != (3.0, 1.0):
            out["mix"] = f"{self.input_tokens:g}:{self.output_tokens:g}"
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
    model: str | None = None,
    context: str | None = None,
    batch: str | None = None,
    accelerators: str | None = None,
    kv_bits: str | None = None,
    mix: str | None = None,
) -> EstimateRequest:
    """Parse the inputs as typed in a form, a URL or the CLI; raise :class:`EstimateError`.

    ``params`` accepts ``70e9``, ``70000000000`` or ``70B`` (k, M, B/G, T suffixes): a whole
    count from 1e6 to 1e15; ``number_format`` is a format name in any case (``fp8``);
    ``utilisation`` is a number in (0, 1] and at least 0.001 (``0.5``) or a percentage
    (``50%``); ``price`` is USD per accelerator-hour, from 0.0001 to 1e6 (``$`` allowed).
    A price and an offer together are an error: the estimate uses one price. Every number
    must be finite (no ``nan``, ``inf`` or ``1e400``). ``model`` (an id) or ``params`` is
    required, not both; ``context``, ``batch``, ``accelerators`` and ``kv_bits`` are whole
    numbers and ``mix`` reads ``3:1`` (:func:`computeatlas.economics.bound_settings.request_from`).
    """
    given = {
        "accelerator": accelerator, "model": model, "params": params, "format": number_format, "utilisation": utilisation,
        "price": price, "offer": offer, "context": context, "batch": batch, "accelerators": accelerators, "kv_bits": kv_bits,
        "mix": mix,
    }  # fmt: skip
    for name in ("accelerator", "format", "utilisation"):
        value = given[name]
        if value is None or not value.strip():
            raise EstimateError(name, "required")
    for name, value in given.items():
        if value is not None and len(value) > 100:
            raise EstimateError(name, "value is too long")
    model = model.strip() if model and model.strip() else None
    params = params if params and params.strip() else None
    if model is None and params is None:
        raise EstimateError("params", "required: give a model id or a parameter count")
    if model is not None and params is not None:
        raise EstimateError("params", "give a model or a parameter count, not both")
    assert accelerator is not None and number_format is not None and utilisation is not None
    count = None
    if params is not None:
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
    try:
        settings = request_from(None, context, mix, None, kv_bits, batch, accelerators)
    except BoundInputError as exc:
        raise EstimateError(exc.param, exc.reason) from None
    return EstimateRequest(
        accelerator=accelerator.strip(),
        model=model,
        params=count,
        context=settings.context,
        batch=settings.batch,
        accelerators=settings.accelerators,
        kv_bits=settings.kv_bits,
        input_tokens=settings.input_tokens,
        output_tokens=settings.output_tokens,
        number_format=fmt,
        utilisation=share,
        price_per_hour=per_hour,
        offer=offer.strip() if offer and offer.strip() else None,
    )

"""The estimate's input: what a visitor or the CLI asks for, read strictly.

:func:`parse_request` turns text (``params=70B``, ``format=FP8``, ``utilisation=50%``,
``price=3`` or an offer id) into an :class:`EstimateRequest`, or raises
:class:`EstimateError` naming the input: a whole parameter count from 1e6 to 1e15,
utilisation from 0.001 to 1, a price from 0.0001 to 1e6 USD per accelerator-hour, nothing
non-finite. :class:`DoesNotFit` is the error of a model too big for one accelerator.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from decimal import Decimal, DecimalException

from pydantic import BaseModel, Field

from computeatlas.core.claims import NumberFormat
from computeatlas.core.units import humanize
from computeatlas.silicon.records import Accelerator

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
    KV cache and every overhead of splitting a model. ``alternatives`` lists other parts that
    need the fewest of them, as ``(id, name, count)`` (see
    :func:`computeatlas.economics.estimate.fewest_accelerators`).
    """

    def __init__(self, accelerator: Accelerator, need_bytes: float, memory_bytes: float, min_accelerators: int,
                 alternatives: Sequence[tuple[str, str, int]] = ()) -> None:  # fmt: skip
        self.accelerator_id = accelerator.id
        self.accelerator_name = accelerator.name
        self.alternatives = list(alternatives)
        self.need_bytes = need_bytes
        self.memory_bytes = memory_bytes
        self.min_accelerators = min_accelerators
        super().__init__(
            "params",
            f"the weights need {humanize(need_bytes, 'B')} but one {accelerator.name} has "
            f"{humanize(memory_bytes, 'B')} of published memory: the model does not fit on one accelerator "
            f"and needs at least {min_accelerators} of them (weights only)",
        )


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
    for name, value in (
        ("accelerator", accelerator),
        ("params", params),
        ("format", number_format),
        ("utilisation", utilisation),
        ("price", price),
        ("offer", offer),
    ):
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

"""The arithmetic of one offer's price per accelerator-hour (:func:`arithmetic`): a published
price made hourly (a month ÷ its hours, 730 by default; a week ÷ 168; a second × 3600), then
divided by the accelerators of an instance, worked in decimals and kept as text beside the
figure, in the price's own currency."""

from __future__ import annotations

from decimal import Context, Decimal

from computeatlas.cloud.offer_words import amount_text, four_places
from computeatlas.cloud.records import PriceBasis
from computeatlas.core.states import State


def _hourly(amount: float, unit: str, hours_per_month: float) -> tuple[Decimal, str]:
    """The amount per hour, and the step that made it hourly ('' for an hourly price)."""
    published = Decimal(repr(float(amount)))
    if unit == "hour":
        return published, ""
    if unit == "second":
        return published * 3600, f"{amount_text(published)} per second × 3600 = "
    hours = Decimal(168) if unit == "week" else Decimal(repr(float(hours_per_month)))
    hourly = Context(prec=max(28, max(published.adjusted(), 0) + 29)).divide(published, hours)
    return hourly, f"{amount_text(published)} per {unit} ÷ {hours:g} h ≈ "


def arithmetic(
    amount: float, unit: str, count: int, basis: PriceBasis, cur: str, word: str, hours_per_month: float
) -> tuple[float, str, State, float, str, str]:
    """(price per hour, its text, state, per accelerator-hour, display, arithmetic) of a price
    of ``amount`` ``cur`` per ``unit`` for ``basis``, ``count`` accelerators per instance,
    ``word`` naming one accelerator (see :func:`computeatlas.cloud.offers.offer_price`)."""
    price, step = _hourly(amount, unit, hours_per_month)
    if basis is PriceBasis.ACCELERATOR:
        state, quotient = State.PUBLISHED, price
        display = f"{amount_text(price)} {cur} per {word}-hour"
        arithmetic = f"{step}{display}" + (", as published (no division)" if not step else "")
    else:
        quotient = Context(prec=max(28, max(price.adjusted(), 0) + 29)).divide(price, count)
        state, display = State.DERIVED, f"{amount_text(quotient)} {cur} per {word}-hour"
        sign = "=" if four_places(quotient) == quotient else "≈"
        arithmetic = f"{step}{amount_text(price)} {cur} ÷ {count} {sign} {display}"
    return float(price), amount_text(price), state, float(quotient), display, arithmetic


__all__ = ["arithmetic"]

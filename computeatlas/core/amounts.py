"""Amounts a visitor types: a finite decimal number and an optional unit from a fixed table.

Data files are trusted and parsed by pint (:mod:`computeatlas.core.units`); what a visitor
puts in a URL or on the command line is not. It never reaches pint's expression parser,
whose evaluator can be made to work for seconds or raise arbitrary errors
(``(9**9**7) GB``). :func:`parse_amount` accepts exactly ``NUMBER [UNIT]``: a decimal
number (``80``, ``1.5``, ``2e3``; exponent at most three digits) and, optionally, one of
the units in :data:`UNITS` for the dimension asked for. Anything else is an
:class:`AmountError` saying what was expected.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping

from computeatlas.core.units import Dimension

MAX_LENGTH = 64
"""The longest text :func:`parse_amount` reads, in characters."""

_BYTE_PREFIXES = {"": 1.0, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}
_BINARY_PREFIXES = {"Ki": 2.0**10, "Mi": 2.0**20, "Gi": 2.0**30, "Ti": 2.0**40, "Pi": 2.0**50, "Ei": 2.0**60}
_SI_PREFIXES = {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18}


def _table() -> dict[Dimension, dict[str, float]]:
    memory = {f"{p}B": f for p, f in (_BYTE_PREFIXES | _BINARY_PREFIXES).items()}
    bandwidth = {f"{unit}/s": f for unit, f in memory.items()}
    compute: dict[str, float] = {}
    for prefix, factor in _SI_PREFIXES.items():
        for word in ("FLOPS", "FLOP/s", "OPS", "OP/s"):
            compute[prefix + word] = factor
    power = {"W": 1.0, "kW": 1e3, "MW": 1e6}
    return {Dimension.MEMORY: memory, Dimension.BANDWIDTH: bandwidth, Dimension.COMPUTE: compute, Dimension.POWER: power}


UNITS: Mapping[Dimension, Mapping[str, float]] = _table()
"""The units a visitor may write, per dimension: each unit's size in the canonical unit
(bytes, bytes/s, FLOP/s, W). Decimal prefixes are decimal (GB = 10**9 bytes); binary
ones (GiB) are binary. Byte units are matched as written (``Gb`` would be gigabits, so it
is refused, not guessed); compute and power units ignore case (``tflops``, ``kw``)."""

CASE_FREE: tuple[Dimension, ...] = (Dimension.COMPUTE, Dimension.POWER)
"""The dimensions whose units are matched ignoring case (see :data:`UNITS`)."""
_FOLDED: Mapping[Dimension, Mapping[str, str]] = {
    dim: {unit.casefold(): unit for unit in units} for dim, units in UNITS.items() if dim in CASE_FREE
}
_NUMBER = re.compile(r"([+-]?(?:[0-9]{1,40}(?:\.[0-9]{0,40})?|\.[0-9]{1,40})(?:[eE][+-]?[0-9]{1,3})?) ?([A-Za-z/]{0,12})", re.ASCII)
"""ASCII digits, at most one space, then an ASCII unit: no full-width or Arabic-Indic digits, no
newline or no-break space inside a figure."""
_NOT_FINITE = {"nan", "inf", "+inf", "-inf", "infinity", "+infinity", "-infinity"}


class AmountError(ValueError):
    """Text that is not a finite number with an allowed unit; the message says what was expected."""


def _unit(word: str, dimension: Dimension) -> str | None:
    """The allowed unit ``word`` names for ``dimension`` (exact spelling first, then ignoring case)."""
    if word in UNITS[dimension]:
        return word
    return _FOLDED.get(dimension, {}).get(word.casefold())


def expected(dimension: Dimension, default_unit: str) -> str:
    """What a visitor should write for ``dimension``: a sentence listing the allowed units."""
    units = ", ".join(UNITS[dimension])
    return f"write a number in {default_unit}, or a number and one of: {units}"


def parse_amount(text: str, dimension: Dimension, default_unit: str) -> float:
    """``text`` (``"80"``, ``"80 GB"``, ``"1.5 TiB"``) as an amount of ``dimension`` in its canonical unit.

    A bare number is in ``default_unit`` (which must be in :data:`UNITS` for the dimension).
    Returns bytes, bytes/s, FLOP/s or W. Raises :class:`AmountError` naming the text when
    it is too long, not a decimal number, not finite, or carries a unit not allowed for
    the dimension (a unit of another dimension is named as such).
    """
    clean = text.strip(" ")
    if len(clean) > MAX_LENGTH:
        raise AmountError(f"value is too long (at most {MAX_LENGTH} characters)")
    if clean.casefold() in _NOT_FINITE:
        raise AmountError(f"{clean!r} is not a finite number")
    match = _NUMBER.fullmatch(clean)
    if match is None:
        raise AmountError(f"cannot read {clean!r} as {dimension.label}: {expected(dimension, default_unit)}")
    number, word = float(match[1]), match[2]
    unit = _unit(word or default_unit, dimension)
    if unit is None:
        other = next((d for d in UNITS if d is not dimension and _unit(word, d) is not None), None)
        if other is not None:
            raise AmountError(f"{clean!r} is not {dimension.label} ({word} is {other.label}); {expected(dimension, default_unit)}")
        raise AmountError(f"cannot read {clean!r} as {dimension.label}: unknown unit {word!r}; {expected(dimension, default_unit)}")
    amount = number * UNITS[dimension][unit]
    if not math.isfinite(amount):
        raise AmountError(f"{clean!r} is not a finite number")
    return amount

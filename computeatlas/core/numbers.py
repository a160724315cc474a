"""Numbers and units as every output shows them, decided here only.

Numbers are rounded once (:func:`plain`: 12 significant digits, an integer when whole);
FLOP/s against OP/s is decided once (:func:`compute_unit`: integer formats count OP/s). On
pages (never in CSV or the other exports, which keep :func:`plain`) a published figure is
shown as its source states it with thousands separators (:func:`figure_text`), a
conversion or a derived figure with three significant figures (:func:`sig3`), and a ratio
names the larger side (:func:`ratio_words`, :func:`ratio_text`).
"""

from __future__ import annotations

import re
from decimal import Decimal

from computeatlas.core.claims import NumberFormat

# --- units and numbers ----------------------------------------------------------------


def compute_unit(fmt: NumberFormat) -> str:
    """Canonical unit of compute at ``fmt``: ``"OP/s"`` for integer formats (INT8, INT4), else ``"FLOP/s"``."""
    return "OP/s" if fmt.is_integer else "FLOP/s"


def operations(fmt: NumberFormat) -> str:
    """What compute at ``fmt`` counts: ``"OP"`` for integer formats, else ``"FLOP"``."""
    return "OP" if fmt.is_integer else "FLOP"


def tera_unit(fmt: NumberFormat) -> str:
    """Display unit of compute at ``fmt`` in tables and charts: ``"TOPS"`` or ``"TFLOPS"``."""
    return "TOPS" if fmt.is_integer else "TFLOPS"


CANONICAL_UNITS = {"memory": "B", "memory_bandwidth": "B/s", "power": "W", "interconnect": "B/s"}
"""Canonical unit of each spec's amount (compute: :func:`compute_unit`)."""


def canonical_unit(key: str) -> str | None:
    """Canonical unit of the spec at field path ``key`` (``"memory"``, ``"compute.INT8"``)."""
    if key.startswith("compute."):
        return compute_unit(NumberFormat(key.split(".", 1)[1]))
    return CANONICAL_UNITS.get(key)


def plain(number: float) -> int | float:
    """A figure rounded once for every output: 12 significant digits (no float noise), an int when whole."""
    rounded = float(f"{number:.12g}")
    return int(rounded) if rounded.is_integer() and abs(rounded) < 1e15 else rounded


DIGITS = 15
"""Significant digits a price is written with: the most a double keeps (``DBL_DIG``), so a
published amount of up to 15 digits is written exactly as published, and the float noise of
a derived figure (``1682.1512932 / 730`` = ``2.3043168400000003``) is dropped (``2.30431684``)."""


def published(number: float) -> float:
    """``number`` at :data:`DIGITS` significant digits: written (shortest round-trip) with the
    digits it was published with, without the noise of the arithmetic that derived it."""
    return float(f"{number:.{DIGITS}g}")


def plain_text(number: int | float) -> str:
    """A number as text without exponent or thousands separator: ``1e-05`` → ``"0.00001"``."""
    if isinstance(number, int):
        return str(number)
    text = format(Decimal(repr(number)), "f")
    return text.rstrip("0").rstrip(".") if "." in text else text


def page_text(number: float, stated: str | None = None, unit: str | None = None) -> str:
    """A number as a table cell on a page shows it (the exports keep :func:`plain`).

    ``number`` is the figure in the column's display ``unit``. Where the source ``stated``
    it in that unit or another decimal prefix of it (``7380 GB/s`` in a TB/s column), the
    number is exact and shown whole with thousands separators (``"7.38"``, ``"3,958"``);
    otherwise it is a conversion (``144 GiB`` in GB) and has three significant figures
    (``"155"``; the cell shows the stated figure first, see :func:`stated_in_other_unit`).
    """
    if stated is not None and unit is not None and stated_in_other_unit(stated, unit):
        return sig3(float(number))
    return grouped(number)


def in_row_unit(amount: float, scale: float, unit: str, stated: str | None) -> tuple[str, str | None]:
    """A figure in a comparison row whose one unit is ``unit`` (``scale`` canonical units
    each): ``(display, secondary)``. A figure stated in ``unit`` or another decimal prefix
    of it is shown exactly in ``unit`` (``7380 GB/s`` → ``"7.38 TB/s"``, ``4.5 PFLOPS`` →
    ``"4,500 TFLOPS"``); one stated otherwise keeps its words first (``"144 GiB"``) with the
    conversion second (``"= 155 GB"``)."""
    number = amount / scale
    if stated and stated_in_other_unit(stated, unit):
        return figure_text(stated), f"= {sig3(number)} {unit}"
    return f"{grouped(number)} {unit}", None


_DECIMAL = ("", "k", "M", "G", "T", "P", "E")


def stated_in_other_unit(stated: str, unit: str) -> bool:
    """True when ``stated`` (``"144 GiB"``) is not in ``unit`` or a decimal prefix of it
    (``"GB"``): converting it to ``unit`` changes its digits (a binary prefix, another unit)."""
    _, _, written = stated.strip().partition(" ")
    written = written.strip()
    if not written or written == unit:
        return False
    bases = {unit[len(p) :] for p in _DECIMAL if p and unit.startswith(p)} | {unit}
    if unit.endswith(("FLOPS", "OPS")):
        bases |= {"FLOPS" if unit.endswith("FLOPS") else "OPS"}
    return not any(written == p + b for p in _DECIMAL for b in bases)


# --- numbers as people read them on pages ----------------------------------------------
#
# One rule for every page (never for CSV or the other exports, which keep :func:`plain`):
# a published figure is shown exactly as its source states it, in its unit and prefix, with
# thousands separators (:func:`figure_text`: "3958 TFLOPS" → "3,958 TFLOPS", "144 GiB" stays
# "144 GiB"); a conversion or a derived figure has three significant figures
# (:func:`sig3`); a ratio names the larger side ("1.83× higher", :func:`ratio_words`).

_NUMBER = re.compile(r"(?<![\w.,])(\d+)(\.\d+)?(?:e(\d+))?(?![\w.,])")
_POWERS = {9: "billion", 12: "trillion", 6: "million"}


def grouped(number: float) -> str:
    """``number`` (rounded once by :func:`plain`) with thousands separators: ``20000`` → ``"20,000"``, ``2614.9`` → ``"2,614.9"``."""
    text = plain_text(plain(number) if isinstance(number, float) else number)
    sign, text = ("-", text[1:]) if text.startswith("-") else ("", text)
    whole, dot, fraction = text.partition(".")
    return f"{sign}{int(whole):,}{dot}{fraction}"


def sig3(number: float) -> str:
    """A converted or derived figure: three significant figures, thousands separators, no
    exponent (``154.618822656`` → ``"155"``, ``34.3597`` → ``"34.4"``, ``0.54612`` → ``"0.546"``,
    ``12345.6`` → ``"12,300"``)."""
    if number == 0:
        return "0"
    return grouped(float(f"{number:.3g}"))


def significant(number: float, digits: int = 4) -> str:
    """``number`` as a person reads it, never with an exponent: from 1,000 up, whole and with
    thousands separators (``10034.4`` → ``"10,034"``, ``327680.0`` → ``"327,680"``); below,
    ``digits`` significant figures (``0.0123456`` → ``"0.01235"``, ``2.5`` → ``"2.5"``)."""
    if number == 0:
        return "0"
    if abs(number) >= 1000:
        return grouped(round(number))
    return grouped(float(f"{number:.{digits}g}"))


_PREFIXES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def prefixed(amount: float, unit: str) -> str:
    """A derived amount of a base ``unit`` with a decimal prefix, three significant figures:
    ``prefixed(2.827e12, "FLOP/s per W")`` → ``"2.83 TFLOP/s per W"``."""
    for scale, prefix in _PREFIXES:
        if abs(amount) >= scale:
            return f"{sig3(amount / scale)} {prefix}{unit}"
    return f"{sig3(amount)} {unit}"


def figure_text(stated: str) -> str:
    """A figure as its source wrote it, made readable and nothing else: thousands separators
    in its numbers and a power of ten in words (``"3958 TFLOPS"`` → ``"3,958 TFLOPS"``,
    ``"80e9"`` → ``"80 billion"``); the unit and prefix stay as written (``"144 GiB"``)."""

    def one(match: re.Match[str]) -> str:
        whole, fraction, exponent = match.group(1), match.group(2) or "", match.group(3)
        if exponent is not None:
            words = _POWERS.get(int(exponent))
            if words is None:
                return match.group(0)
            return f"{grouped(float(whole + fraction))} {words}"
        return f"{int(whole):,}{fraction}"

    return _NUMBER.sub(one, stated)


def data_number(number: float) -> str:
    """A number for a page's machine-readable attribute (``data-ratio``): six significant
    figures, no thousands separators (``1.828358208955`` → ``"1.82836"``, ``2e-07`` → ``"2e-07"``)."""
    return f"{number:.6g}"


def ratio_words(first: str, a: float, second: str, b: float) -> str:
    """How two positive figures compare, the larger side named: ``"B200: 2.27× higher than H100"``
    (three significant figures; ``"the same"`` when equal at that precision)."""
    if a <= 0 or b <= 0:
        raise ValueError("a ratio needs two positive figures")
    big, small, ratio = (first, second, a / b) if a >= b else (second, first, b / a)
    if f"{ratio:.3g}" == "1":
        return f"{first} and {second}: the same"
    return f"{big}: {sig3(ratio)}× higher than {small}"


def ratio_text(ratio: float) -> str:
    """A ratio of one cell to a reference as "N× higher" or "N× lower" (never a fraction
    below one): ``1.83`` → ``"1.83× higher"``, ``0.546`` → ``"1.83× lower"``, ``1`` → ``"same"``."""
    if ratio <= 0:
        raise ValueError("a ratio needs two positive figures")
    if f"{ratio:.3g}" == "1" or f"{1 / ratio:.3g}" == "1":
        return "same"
    return f"{sig3(ratio)}× higher" if ratio > 1 else f"{sig3(1 / ratio)}× lower"


def same_figure_other_unit(a: str | None, b: str | None) -> bool:
    """True when two stated figures are one number whose units differ only by a binary
    prefix's "i" (``"144 GiB"`` and ``"144 GB"``): one figure written in two units, not a
    disagreement a buyer has to weigh."""
    if not a or not b:
        return False
    na, _, ua = a.strip().partition(" ")
    nb, _, ub = b.strip().partition(" ")
    return na == nb and ua != ub and ua.replace("i", "") == ub.replace("i", "")


__all__ = [
    "CANONICAL_UNITS",
    "DIGITS",
    "canonical_unit",
    "compute_unit",
    "data_number",
    "figure_text",
    "grouped",
    "in_row_unit",
    "operations",
    "page_text",
    "plain",
    "plain_text",
    "prefixed",
    "published",
    "ratio_text",
    "ratio_words",
    "same_figure_other_unit",
    "sig3",
    "significant",
    "stated_in_other_unit",
    "tera_unit",
]

"""Parsing figures written as text (``"144 GB"``, ``"4.9 TB/s"``) into canonical units.

Canonical units are bytes (memory), bytes per second (bandwidth), FLOP/s (compute; integer
formats in OP/s, which share the dimension) and watts (power). Decimal prefixes are decimal
(1 GB = 10**9 bytes), as vendors publish them; binary prefixes (GiB) only where written.

pint's stock registry treats bits and bytes as dimensionless, which would let ``"144"`` or
``"4.9 TB"`` pass as a bandwidth. We load pint's own definitions with information made a
real dimension, and add ``FLOP``/``OP`` as a dimension of computation.
"""

from __future__ import annotations

import functools
import math
import pathlib
import re
import shutil
import tempfile
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from computeatlas.core.unit_table import CONVERSIONS

if TYPE_CHECKING:  # pint is imported on first use: the unit table spares most processes its import
    import pint


class Dimension(Enum):
    """The kind of quantity a spec holds, with its canonical unit and an example."""

    MEMORY = ("byte", "[information]", "144 GB")
    BANDWIDTH = ("byte / second", "[information] / [time]", "4.9 TB/s")
    COMPUTE = ("FLOP / second", "[computation] / [time]", "2.52 PFLOPS")
    POWER = ("watt", "[power]", "700 W")
    AREA = ("millimeter ** 2", "[area]", "814 mm^2")
    COUNT = ("dimensionless", "dimensionless", "208e9")

    def __init__(self, canonical: str, dimensionality: str, example: str) -> None:
        self.canonical = canonical
        self.dimensionality = dimensionality
        self.example = example

    @property
    def label(self) -> str:
        """A human name for the dimension, for error messages."""
        return {
            "MEMORY": "a memory size",
            "BANDWIDTH": "a bandwidth",
            "COMPUTE": "a throughput (FLOP/s or OP/s)",
            "POWER": "a power",
            "AREA": "an area",
            "COUNT": "a plain count",
        }[self.name]


class UnitError(ValueError):
    """Raised when a figure's text cannot be parsed or has the wrong dimension."""


@dataclass(frozen=True, slots=True)
class Figure:
    """A parsed figure: the text as written and its magnitude in the canonical unit.

    ``amount`` is in bytes, bytes/s, FLOP/s, W, mm² or a plain count, by ``dimension``.
    """

    text: str
    amount: float
    dimension: Dimension


_EXTRA_DEFINITIONS = """
FLOP = [computation] = flop
OP = FLOP = op
FLOPS = FLOP / second
OPS = OP / second
"""


@functools.cache
def registry() -> pint.UnitRegistry:
    """Return the shared unit registry (built once per process).

    Bits and bytes get the dimension ``[information]`` (stock pint leaves them
    dimensionless), ``b`` means bit, not barn, and ``Gb`` means gigabit, not gilbert (so
    a link's ``"400 Gb/s"`` is 400 gigabits, 50 GB, per second).
    """
    import pint

    stock = pathlib.Path(pint.__file__).parent
    folder = pathlib.Path(tempfile.mkdtemp(prefix="computeatlas-units-"))
    shutil.copy(stock / "constants_en.txt", folder)
    text = (stock / "default_en.txt").read_text(encoding="utf-8")
    text = text.replace("bit = []", "bit = [information] = b")
    text = text.replace("barn = 1e-28 * meter ** 2 = b", "barn = 1e-28 * meter ** 2")
    text = text.replace("gilbert = 1 / (4 * π) * biot_turn = Gb", "gilbert = 1 / (4 * π) * biot_turn")
    (folder / "units.txt").write_text(text + _EXTRA_DEFINITIONS, encoding="utf-8")
    ureg: pint.UnitRegistry = pint.UnitRegistry(str(folder / "units.txt"), cache_folder=None)
    shutil.rmtree(folder, ignore_errors=True)
    return ureg


_NUMBER = re.compile(r"^\s*([-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?)\s*(.*?)\s*$", re.ASCII)
"""A figure in a data file: an ASCII decimal number, then its unit."""

_UNIT = re.compile(r"^(?:[A-Za-zµμ²³]+(?:\^?[0-9])?(?:\s*/\s*[A-Za-zµμ²³]+(?:\^?[0-9])?)*)?$")
"""A unit as data files write it: words with an optional power digit, joined by ``/``
(``GB``, ``TB/s``, ``TFLOPS``, ``mm^2``, ``W``). No arithmetic: pint's expression parser
never sees a number or an operator from a data file."""


@functools.lru_cache(maxsize=4096)
def _conversion(unit: str, dimension: Dimension) -> tuple[float | None, str | None]:
    """Canonical units per one ``unit`` of ``dimension``, cached per unit: from the table
    of common units (:mod:`computeatlas.core.unit_table`, pint's own answers written down,
    so a load needs no registry), else checked by pint.

    Returns ``(factor, None)``, or ``(None, problem)`` where ``problem`` is a message with a
    ``{text}`` placeholder for the figure's text.
    """
    known = CONVERSIONS.get((unit, dimension.name))
    if known is not None:
        return known
    return _pint_conversion(unit, dimension)


def _pint_conversion(unit: str, dimension: Dimension) -> tuple[float | None, str | None]:
    """:func:`_conversion` worked out by pint (building its registry on first use)."""
    ureg = registry()
    try:
        quantity = ureg.Quantity(1.0, unit) if unit else ureg.Quantity(1.0)
    except Exception as exc:  # pint raises several unrelated types for bad text
        return None, f"cannot read {{text}} as {dimension.label}" + (f" ({exc})" if str(exc) else "")
    matches = quantity.dimensionless if dimension is Dimension.COUNT else quantity.check(dimension.dimensionality)
    if not matches and quantity.dimensionless:
        return None, f"{{text}} has no unit: write it like {dimension.example!r}"
    if not matches:
        return None, (
            f"{{text}} is not {dimension.label}: its unit {quantity.units:~} has dimension "
            f"{quantity.dimensionality}; write it like {dimension.example!r}"
        )
    target = "" if dimension is Dimension.COUNT else dimension.canonical
    return float(quantity.to(target).magnitude), None


def parse(text: str, dimension: Dimension) -> Figure:
    """Parse ``text`` such as ``"4.9 TB/s"`` as a figure of ``dimension``.

    Returns a :class:`Figure` whose ``amount`` is in the dimension's canonical unit. The
    number is read as a decimal and its unit resolved by pint (once per distinct unit);
    text that is not "number unit" goes to pint whole. Raises :class:`UnitError` naming
    the text when it does not parse, has no unit where one is needed, has a unit of
    another dimension, or is not a positive finite number.
    """
    if not isinstance(text, str) or not text.strip():
        raise UnitError(f"expected {dimension.label} written with its unit, like {dimension.example!r}")
    text = text.strip()
    match = _NUMBER.match(text)
    if not match or not _UNIT.match(match[2]):
        raise UnitError(f"cannot read {text!r} as {dimension.label}: write a number and its unit, like {dimension.example!r}")
    factor, problem = _conversion(match[2], dimension)
    if problem is not None:
        raise UnitError(problem.format(text=repr(text)))
    amount = float(match[1]) * factor  # type: ignore[operator]
    if not math.isfinite(amount):
        raise UnitError(f"{text!r} is not a finite figure")
    if not amount > 0:
        raise UnitError(f"{text!r} must be a positive figure")
    return Figure(text=text, amount=amount, dimension=dimension)


_SCALES = ((1e18, "E"), (1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))


def humanize(amount: float, unit: str) -> str:
    """Format ``amount`` of a base ``unit`` with a decimal prefix: ``humanize(4.9e12, "B/s")`` → ``"4.9 TB/s"``."""
    for scale, prefix in _SCALES:
        if abs(amount) >= scale:
            return f"{amount / scale:.4g} {prefix}{unit}"
    return f"{amount:.4g} {unit}"


TABLE_UNITS: dict[Dimension, tuple[str, ...]] = {
    Dimension.MEMORY: tuple(p + u for p in ("", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti", "Pi") for u in ("B",)),
    Dimension.BANDWIDTH: tuple(p + u for p in ("", "k", "M", "G", "T", "P", "Ki", "Mi", "Gi", "Ti") for u in ("B/s", "bit/s", "b/s")),
    Dimension.COMPUTE: tuple(p + u for p in ("", "k", "M", "G", "T", "P", "E") for u in ("FLOPS", "OPS", "FLOP/s", "OP/s")),
    Dimension.POWER: ("W", "kW", "MW", "GW", "tok/s/MW", "x"),
    Dimension.AREA: ("mm^2",),
    Dimension.COUNT: ("",),
}
"""The units :mod:`computeatlas.core.unit_table` holds, by dimension: prefixed bytes, bits,
FLOP/s, OP/s and watts, and the texts the bundled data writes (a few energy figures that
are not a power, such as ``"10x"``, are kept with pint's refusal)."""


def conversion_table() -> dict[tuple[str, str], tuple[float | None, str | None]]:
    """pint's answer for every unit of :data:`TABLE_UNITS`: what ``unit_table.py`` holds."""
    return {(unit, dimension.name): _pint_conversion(unit, dimension) for dimension, names in TABLE_UNITS.items() for unit in names}


UNIT_TABLE = pathlib.Path(__file__).with_name("unit_table.py")
"""The generated conversion table beside this module."""


def write_table(path: pathlib.Path = UNIT_TABLE) -> None:
    """Write :func:`conversion_table` to ``unit_table.py`` (``python -m computeatlas.core.units``)."""
    lines = [f"    {key!r}: {value!r}," for key, value in conversion_table().items()]
    path.write_text(
        '"""Conversions to canonical units of the common units, as pint gives them: written by\n'
        "``python -m computeatlas.core.units`` (:func:`computeatlas.core.units.write_table`), checked\n"
        'against pint by tests/test_units.py. Do not edit by hand."""\n\n'
        "CONVERSIONS: dict[tuple[str, str], tuple[float | None, str | None]] = {\n" + "\n".join(lines) + "\n}\n",
        encoding="utf-8",
    )


if __name__ == "__main__":
    write_table()

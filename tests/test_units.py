"""Unit parsing: vendors' text to canonical units, and wrong dimensions rejected."""

import pytest

from computeatlas.catalog import load
from computeatlas.core import units
from computeatlas.core.unit_table import CONVERSIONS
from computeatlas.core.units import Dimension, UnitError, humanize, parse


@pytest.mark.parametrize(
    ("text", "dimension", "amount"),
    [
        ("144 GB", Dimension.MEMORY, 144e9),
        ("144 GiB", Dimension.MEMORY, 144 * 2**30),
        ("4.9 TB/s", Dimension.BANDWIDTH, 4.9e12),
        ("3.2 Tb/s", Dimension.BANDWIDTH, 0.4e12),  # lower-case b is bits
        ("400 Gb/s", Dimension.BANDWIDTH, 50e9),  # a network link: gigabits, not gilberts
        ("400 Gbps", Dimension.BANDWIDTH, 50e9),
        ("2.52 PFLOPS", Dimension.COMPUTE, 2.52e15),
        ("3958 TOPS", Dimension.COMPUTE, 3.958e15),
        ("700 W", Dimension.POWER, 700.0),
        ("1.2 kW", Dimension.POWER, 1200.0),
        ("814 mm^2", Dimension.AREA, 814.0),
        ("208e9", Dimension.COUNT, 208e9),
    ],
)
def test_parse_converts_to_canonical_units(text: str, dimension: Dimension, amount: float) -> None:
    figure = parse(text, dimension)
    assert figure.amount == pytest.approx(amount)
    assert figure.text == text


@pytest.mark.parametrize(
    ("text", "dimension", "words"),
    [
        ("4.9 TB", Dimension.BANDWIDTH, "is not a bandwidth"),
        ("144", Dimension.MEMORY, "has no unit"),
        ("700 GB", Dimension.POWER, "is not a power"),
        ("2.52 PB/s", Dimension.COMPUTE, "is not a throughput"),
        ("lots", Dimension.MEMORY, "cannot read"),
        ("0 GB", Dimension.MEMORY, "positive"),
        ("-3 W", Dimension.POWER, "positive"),
        ("", Dimension.POWER, "written with its unit"),
    ],
)
def test_parse_rejects_wrong_or_missing_units(text: str, dimension: Dimension, words: str) -> None:
    with pytest.raises(UnitError, match=words):
        parse(text, dimension)


def test_humanize_uses_decimal_prefixes() -> None:
    assert humanize(4.9e12, "B/s") == "4.9 TB/s"
    assert humanize(2.517e15, "FLOP/s") == "2.517 PFLOP/s"


@pytest.mark.parametrize("text", ["1e400 GB", "1e308 TB"])
def test_non_finite_figures_say_so(text: str) -> None:
    with pytest.raises(UnitError, match="is not a finite figure"):
        parse(text, Dimension.MEMORY)


@pytest.mark.parametrize(
    "text",
    ["inf GB", "nan GB", "(9**9**8) GB", "(2*40) GB", "80 GB * 1e30 / 1e30", "2 * 1.2 TB", "80 GB + 1 GB", "２ GB", "80 GB; 1"],
)
def test_a_data_file_figure_is_a_number_and_a_unit_never_an_expression(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Expressions never reach pint's evaluator: ``(9**9**8) GB`` used to hang a load."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError(f"pint was asked to evaluate {args!r}")

    monkeypatch.setattr(units, "registry", refuse)
    with pytest.raises(UnitError, match="write a number and its unit, like '144 GB'"):
        parse(text, Dimension.MEMORY)


def test_the_unit_table_is_what_pint_says() -> None:
    assert units.conversion_table() == CONVERSIONS, "unit table drifted: run `python -m computeatlas.core.units` and commit"


def test_the_bundled_data_loads_without_the_pint_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(unit: str, dimension: Dimension) -> None:
        raise AssertionError(f"{unit!r} ({dimension.name}) is not in the unit table")

    monkeypatch.setattr(units, "_pint_conversion", refuse)
    units._conversion.cache_clear()
    try:
        assert len(load().accelerators) >= 31
    finally:
        units._conversion.cache_clear()

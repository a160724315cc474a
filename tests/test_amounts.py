"""Visitor amounts: a finite decimal number and a unit from a fixed table, never pint's parser."""

from __future__ import annotations

import html

import pint
import pytest
from fastapi.testclient import TestClient

from computeatlas.core import units
from computeatlas.core.amounts import AmountError, parse_amount
from computeatlas.core.units import Dimension
from computeatlas.silicon import table


@pytest.mark.parametrize(
    ("text", "dimension", "default", "expected"),
    [
        ("80", Dimension.MEMORY, "GB", 80e9),
        ("80 GB", Dimension.MEMORY, "GB", 80e9),
        ("1.5TiB", Dimension.MEMORY, "GB", 1.5 * 2**40),
        (".5 TB/s", Dimension.BANDWIDTH, "TB/s", 0.5e12),
        ("2 pflops", Dimension.COMPUTE, "TFLOPS", 2e15),
        ("2e3 TFLOP/s", Dimension.COMPUTE, "TFLOPS", 2e15),
        ("1 kW", Dimension.POWER, "W", 1000.0),
        ("700", Dimension.POWER, "W", 700.0),
    ],
)
def test_a_number_and_an_allowed_unit(text: str, dimension: Dimension, default: str, expected: float) -> None:
    assert parse_amount(text, dimension, default) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("(9**9**5) GB", "cannot read '(9**9**5) GB' as a memory size: write a number in GB, or a number and one of: B, kB"),
        ("2 * 40 GB", "cannot read '2 * 40 GB'"),
        ("5 W", "'5 W' is not a memory size (W is a power)"),
        ("100 Gb", "unknown unit 'Gb'"),
        ("80 gigabyte", "unknown unit 'gigabyte'"),
        ("1e400", "'1e400' is not a finite number"),
        ("1e99999", "cannot read '1e99999'"),
        ("NaN", "'NaN' is not a finite number"),
        ("9" * 65, "value is too long"),
        ("８０", "cannot read '８０'"),  # full-width digits
        ("٨٠ GB", "cannot read '٨٠ GB'"),  # Arabic-Indic digits
        ("80\u00a0GB", "cannot read '80\\xa0GB'"),  # a no-break space inside the figure
        ("80\nGB", "cannot read '80\\nGB'"),
    ],
)
def test_anything_else_says_what_was_expected(text: str, words: str) -> None:
    with pytest.raises(AmountError) as caught:
        parse_amount(text, Dimension.MEMORY, "GB")
    assert words in str(caught.value)


GOOD = {"memory": "80 GB", "memory_bandwidth": "2 TB/s", "fp8": "1 PFLOPS", "bf16": "500", "fp4": "1e3 TFLOPS", "power": "1 kW"}
HOSTILE = ["(9**9**7) GB", "9**9**5", "1 GB + 2 GB", "__import__('os')", "1 meter", "1e99999 GB", "10 Gb"]


def test_visitor_input_never_reaches_pints_parser(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("visitor input reached pint")

    registry_type = type(units.registry())
    for name in ("parse_expression", "parse_units", "Quantity", "__call__"):
        monkeypatch.setattr(registry_type, name, refuse, raising=False)
    monkeypatch.setattr(pint.Quantity, "__new__", refuse)
    monkeypatch.setattr(units, "registry", refuse)
    monkeypatch.setattr(units, "parse", refuse)
    assert len(table.RANGE_PARAMS) == 2 * len(GOOD)
    for param, column in table.RANGE_PARAMS.items():
        good = GOOD[column.key]
        for path in ("/api/accelerators", "/silicon/"):
            assert client.get(path, params={param: good}).status_code == 200, (param, good)
            for hostile in HOSTILE:
                response = client.get(path, params={param: hostile})
                assert response.status_code == 400, (param, hostile)
                assert f"query parameter '{param}'" in html.unescape(response.text)


def test_hostile_range_is_a_json_400_naming_the_parameter(client: TestClient) -> None:
    response = client.get("/api/accelerators", params={"memory_min": "(9**9**5) GB"})
    assert response.status_code == 400
    body = response.json()
    assert body["error"] == "Bad query parameter"
    assert body["detail"].startswith("query parameter 'memory_min': cannot read '(9**9**5) GB' as a memory size: write a number in GB")

"""Fixes found by testing the price pipeline: price cells, held rows and conflicts, stated
accelerator counts, CSV formula cells, the pricing-kind spelling and history parameters."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputError, Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
TABLE = load_instances(FIXTURES / "instances")
HEADER = "provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,price_basis,collected,source_url,source_title,via,availability,note\n"


def _row(amount: str = "3.12", accelerators: str = "8", instance: str = "8x L4", region: str = "us", via: str = "") -> str:
    return (f'examplecloud,{instance},"{region}",on_demand,,"{amount}",USD,hour,{accelerators},instance,2026-11-20T00:00:00Z,'
            f'https://examplecloud.example/p,Example,"{via}",,\n')


def _read(tmp_path: Path, *lines: str) -> list[object]:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return [r.result for r in formats()["atlas"](path, now=NOW)]


@pytest.mark.parametrize("amount", ["9,8", "1,2,3", "１２.５", "２.６", "12,34.5", "1,2345", ",123", "1.", "3.12.1", "0x10", "1_000"])
def test_a_price_cell_with_a_decimal_comma_or_non_ascii_digits_is_rejected_naming_file_line_and_column(tmp_path: Path, amount: str) -> None:
    (result,) = _read(tmp_path, _row(amount))
    assert isinstance(result, InputError), (amount, result)
    assert (result.file, result.line, result.column) == (str(tmp_path / "prices.csv"), 2, "amount") and "not a number" in result.message


@pytest.mark.parametrize(("amount", "value"), [("1,234.56", 1234.56), ("12,345,678", 12345678.0), ("3.12", 3.12), (".5", 0.5),
                                               ("2.5e1", 25.0), ("1E-2", 0.01), ("0", 0.0), ("123", 123.0)])
def test_a_plain_price_or_one_with_proper_thousands_separators_is_read(tmp_path: Path, amount: str, value: float) -> None:
    (result,) = _read(tmp_path, _row(amount))
    assert isinstance(result, Observation) and result.amount == pytest.approx(value)

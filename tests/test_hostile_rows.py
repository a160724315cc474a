"""No value in a row can end an import: every row of a hostile file is rejected (naming its
line and column) or held (naming its rule), and the valid rows beside them still import."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.importers.cells import count, timestamp
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import CellError, TableError
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
HEADER = "provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,price_basis,collected,source_url,source_title,via,availability,note\n"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)

DATES = {  # collected → what becomes of the row: "rejected" (a bad cell) or "held" (the implausible_date rule)
    "0001-01-01T00:00:00Z": "held",
    "1900-01-01T00:00:00Z": "held",
    "1969-12-31T23:59:59Z": "held",
    "1970-01-01T00:00:00Z": "held",
    "2014-12-31T23:59:59Z": "held",
    "20261130": "rejected",
    "20261130T090000Z": "rejected",
    "2026-W48-1": "rejected",
    "2026-W48-1T09:00:00Z": "rejected",
    "2026-334": "rejected",
    "2026-11-30": "rejected",
    "2026-11-30T09:00:00": "rejected",
    "2026-11-30 09:00:00Z": "rejected",
    "2026-13-01T00:00:00Z": "rejected",
    "2026-11-31T00:00:00Z": "rejected",
    "2026-02-29T00:00:00Z": "rejected",
    "2026-11-30T24:00:00Z": "rejected",
    "2026-11-30T09:60:00Z": "rejected",
    "2026-11-30T09:00:00+14:30": "rejected",
    "2026-11-30T09:00:00-13:00": "rejected",
    "2026-11-30T09:00:00+23:59": "rejected",
    "2026-11-30T09:00:00.1234567Z": "rejected",
    "0001-01-01T00:00:00+01:00": "rejected",
    "9999-12-31T23:59:59-12:00": "rejected",
    "9999-12-31T23:59:59Z": "rejected",
    "２０２６-11-30T09:00:00Z": "rejected",
    "2026-11-30T09:00:00Z\u200b": "rejected",
    "NaN": "rejected",
    "": "rejected",
    "-2026-11-30T09:00:00Z": "rejected",
    "+002026-11-30T09:00:00Z": "rejected",
}
AMOUNTS = {  # amount → what becomes of the row
    "1e308": "held",
    "1000000": "held",
    "99999999999999999999999999999": "held",
    "-0": "held",
    "0": "held",
    "1" + "0" * 400: "rejected",
    "1e309": "rejected",
    "NaN": "rejected",
    "nan": "rejected",
    "inf": "rejected",
    "-inf": "rejected",
    "-1": "rejected",
    "0x10": "rejected",
    "1_000": "rejected",
    "٣.٢": "rejected",
    "３.２": "rejected",
    "3.2\u00a0": "accepted",
    "1e-400": "held",
    "3,20": "rejected",
    "": "rejected",
}
COUNTS = {
    "1" * 50: "rejected",
    "2147483648": "rejected",
    "8.5": "rejected",
    "0": "rejected",
    "-1": "rejected",
    "８": "rejected",
    "1e3": "rejected",
    "1.0": "accepted",
}


def _row(region: str, amount: str = "2.49", collected: str = "2026-11-29T09:00:00Z", accelerators: str = "1") -> str:
    def cell(text: str) -> str:
        return '"' + text.replace('"', '""') + '"'

    return (
        f"lambda,gpu_1x_h100_pcie,{cell(region)},on_demand,,{cell(amount)},USD,hour,{cell(accelerators)},instance,{cell(collected)},"
        "https://lambda.ai/pricing,Lambda pricing,hostile test,,\n"
    )


def _hostile(folder: Path, valid: int) -> tuple[Path, dict[str, str]]:
    """An atlas file of ``valid`` good rows and one row for each hostile value; region → expected fate."""
    rows, fate = [], {}
    for i in range(valid):
        rows.append(_row(f"valid-{i}", amount=f"{2 + i / 100:.2f}"))
        fate[f"valid-{i}"] = "accepted"
    for column, values in (("collected", DATES), ("amount", AMOUNTS), ("accelerators", COUNTS)):
        for i, (value, expected) in enumerate(values.items()):
            region = f"{column}-{i}"
            rows.append(_row(region, **{column: value}))
            fate[region] = expected
    path = folder / "hostile.csv"
    path.write_text(HEADER + "".join(rows), encoding="utf-8")
    return path, fate


def test_every_row_of_a_hostile_file_is_rejected_or_held_and_the_valid_rows_import(tmp_path: Path) -> None:
    path, fate = _hostile(tmp_path, valid=5)
    store = tmp_path / "prices"
    result = CliRunner().invoke(cli, ["prices", "import", "atlas", str(path), "--prices", str(store), "--json"])
    assert result.exit_code == 1, result.output  # rows were rejected: named, and the rest imported
    summary = json.loads(result.stdout)
    rejected = sum(1 for f in fate.values() if f == "rejected")
    held = sum(1 for f in fate.values() if f == "held")
    assert (summary["read"], summary["rejected"], summary["held"], summary["accepted"]) == (len(fate), rejected, held, 7) == (64, 46, 11, 7)
    assert summary["held_by_rule"] == {"implausible_date": 5, "above_ceiling": 3, "below_floor": 3}  # 0, -0 and 1e-400 are below
    got = {r["region"]: r["status"] for r in Store(store).query("SELECT region, status FROM latest")}
    assert {region: got.get(region, "rejected") for region in fate} == fate
    named = [e for e in summary["errors"] if "line " in e and "column " in e]
    assert len(named) == rejected


def test_a_bad_time_or_count_cell_is_a_cell_error_never_another_exception() -> None:
    for text in DATES:
        try:
            when = timestamp({"t": text}, "t", NOW, allow_date_alone=False)
        except CellError as exc:
            assert exc.column == "t"
        else:
            assert when.tzinfo is dt.UTC and DATES[text] == "held"
    assert timestamp({"t": "2026-11-30T23:00:00+14:00"}, "t", NOW) == dt.datetime(2026, 11, 30, 9, tzinfo=dt.UTC)
    assert timestamp({"t": "2026-11-30"}, "t", NOW) == dt.datetime(2026, 11, 30, tzinfo=dt.UTC)  # a date alone, where allowed
    with pytest.raises(CellError, match="offset"):
        timestamp({"t": "2026-11-30"}, "t", NOW, allow_date_alone=False)
    for text in COUNTS:
        try:
            value = count({"n": text}, "n")
        except CellError:
            continue
        assert value == 1 and text == "1.0"


def test_the_opencomputeprices_importer_rejects_hostile_cells_row_by_row(tmp_path: Path) -> None:
    excerpt = (FIXTURES / "opencomputeprices-excerpt.csv").read_text(encoding="utf-8").splitlines()
    header, good = excerpt[0], next(line for line in excerpt[1:] if ",Standard_ND96isr_H100_v5," in line and "Linux" in line)
    columns = header.split(",")
    import csv
    import io

    base = next(csv.DictReader(io.StringIO(header + "\n" + good + "\n")))
    hostile = [
        ("snapshot_ts", "0001-01-01T00:00:00Z"),
        ("snapshot_ts", "2026-W12-6"),
        ("snapshot_ts", "2026-03-21"),
        ("gpu_memory_gb", "nan"),
        ("gpu_memory_gb", "1e400"),
        ("gpu_memory_gb", "{" * 5000),
        ("gpu_memory_gb", "{'TotalGpuMemoryInMiB': 'x'}"),
        ("gpu_count", "9" * 40),
        ("price_per_gpu_hour", "1e308"),
        ("price_per_hour", "1e308"),
        ("raw_extra", '{"meter_name": ['),
        ("price_unit", "fortnight"),
    ]
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    writer.writerow(base)
    for i, (column, value) in enumerate(hostile):
        writer.writerow({**base, column: value, "region": f"hostile-{i}"})
    path = tmp_path / "ocp.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    results = [r.result for r in formats()["opencomputeprices"](path, now=NOW)]
    assert len(results) == 1 + len(hostile)
    assert all(isinstance(r, Observation | TableError) for r in results)
    store = Store(tmp_path / "prices")
    summary = import_readings(
        "opencomputeprices", [path], store, load_instances(FIXTURES / "instances"), RateTable([]), rules.Limits(), now=NOW
    )
    assert summary.read == 13 and summary.rejected == sum(isinstance(r, TableError) for r in results) >= 3
    stored = {r["region"]: (r["status"], tuple(r["rules"])) for r in store.query("SELECT region, status, rules FROM latest")}
    assert stored["eastus"] == ("accepted", ())  # the valid row: 98.32 an hour on 2026-03-21
    assert stored == {
        "eastus": ("accepted", ()),
        "hostile-0": ("held", ("implausible_date",)),  # year 1: held, not an OverflowError
        "hostile-4": ("held", ("memory_mismatch",)),  # 1e400 GB is no memory
        "hostile-5": ("accepted", ()),
        "hostile-10": ("accepted", ()),  # unreadable evidence is kept as text, never used
        "hostile-8": ("held", ("per_accelerator_mismatch",)),
        "hostile-9": ("held", ("per_accelerator_mismatch",)),
    }
    assert [(e.line, e.column) for e in summary.errors] == [
        (4, "snapshot_ts"),
        (5, "snapshot_ts"),
        (6, "stated_memory_gb"),
        (9, "(row)"),
        (10, "gpu_count"),
        (14, "price_unit"),
    ]

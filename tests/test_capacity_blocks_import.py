"""The aws-capacity-blocks importer, on excerpts of two real collections of AWS's Capacity
Blocks for ML pricing page (tests/fixtures/prices/capacity-blocks/, MIT): capacity_block
prices per instance-hour with the page's per-accelerator rate, Local Zones the scraper wrote
as ``unknown``, the misparsed early GB200 rows, and a changed structure refused with the
file, the line and the JSON path."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed, Observation, Status
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store, observation_of
from computeatlas.core.tabular import TableError

FOLDER = Path(__file__).parent / "fixtures" / "prices" / "capacity-blocks"
MARCH, JULY = FOLDER / "pricing-2026-03-01.json", FOLDER / "pricing-2026-07-22.json"
DATA = Path(__file__).parent.parent / "data" / "instances"
TABLE = load_instances(DATA)
NOW = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)


def readings(path: Path) -> list[Observation | TableError]:
    return [r.result for r in formats()["aws-capacity-blocks"](path, now=NOW)]  # type: ignore[misc]


def decided(tmp_path: Path, table=TABLE) -> list[Observation]:  # type: ignore[no-untyped-def]
    store = Store(tmp_path / "prices")
    import_readings("aws-capacity-blocks", [MARCH, JULY], store, table, RateTable([]), rules.Limits(), now=NOW)
    return [observation_of(row) for row in store.query("SELECT * FROM obs")]


def one(rows: list[Observation], **match: object) -> Observation:
    found = [o for o in rows if all(getattr(o, k) == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


def test_p5_48xlarge_us_east_1_rises_from_31_464_to_41_528_per_instance_hour(tmp_path: Path) -> None:
    rows = decided(tmp_path)
    march = one(rows, instance_type="p5.48xlarge", region="us-east-1", collected=dt.datetime(2026, 3, 1, 0, 40, 29, tzinfo=dt.UTC))
    july = one(rows, instance_type="p5.48xlarge", region="us-east-1", collected=dt.datetime(2026, 7, 22, 7, 14, 56, tzinfo=dt.UTC))
    assert (march.amount, july.amount) == (31.464, 41.528)
    assert (july.pricing.value, july.term, july.currency, july.unit.value, july.price_basis.value) == (
        "capacity_block",
        "",
        "USD",
        "hour",
        "instance",
    )
    assert (july.stated_per_accelerator, july.stated_accelerators) == (5.191, 8)
    assert (july.status, july.accelerator, july.accelerators) == (Status.ACCEPTED, "nvidia-h100-sxm", 8)
    assert july.per_accelerator_hour == pytest.approx(5.191)
    assert july.source_url == "https://aws.amazon.com/ec2/capacityblocks/pricing/"
    assert july.via == "ec2-capacity-blocks-for-ml-pricing-json pricing-2026-07-22.json (MIT), collected 2026-07-22"
    p4d = one(rows, instance_type="p4d.24xlarge", collected=july.collected)
    assert (p4d.amount, p4d.accelerator, p4d.variant, p4d.per_accelerator_hour) == (11.8, "nvidia-a100-sxm-40gb", "sxm-40gb", 1.475)


def test_a_local_zone_written_unknown_keeps_the_page_region_text() -> None:
    atlanta = [
        o for o in readings(MARCH) if isinstance(o, Observation) and o.instance_type == "p5.48xlarge" and o.region.startswith("unknown")
    ]
    assert [(o.region, o.amount) for o in atlanta] == [("unknown (US East (Atlanta) Local Zone)", 31.464)]


def test_the_early_gb200_rows_are_held_and_the_july_row_is_per_gpu(tmp_path: Path) -> None:
    rows = decided(tmp_path)
    early = one(rows, instance_type="u-p6e-gb200x72", region="unknown (US East (Dallas) Local Zone)")
    assert (early.amount, early.stated_per_accelerator, early.rules) == (10.582, 0.0, ("unplaced",))  # no sourced row: held
    # Were the UltraServer placed (72 GPUs on the per-GPU GB200 record), the per-accelerator rule holds the misparsed row:
    table = tmp_path / "instances"
    table.mkdir()
    header, *_ = (DATA / "aws.csv").read_text(encoding="utf-8").splitlines()
    (table / "aws.csv").write_text(
        header + "\naws,u-p6e-gb200x72,nvidia-gb200,,72,all_in,,https://example.test/x,test only,2026-12-01,\n", encoding="utf-8"
    )
    placed = decided(tmp_path / "placed", load_instances(table))
    misparsed = one(placed, instance_type="u-p6e-gb200x72", collected=early.collected)
    assert misparsed.rules == ("per_accelerator_mismatch",)
    assert misparsed.reasons == ("10.582 ÷ 72 = 0.147 per accelerator-hour, but the source states 0",)
    july = one(placed, instance_type="u-p6e-gb200x72", region="us-east-1-dfw-2a")
    assert (july.status, july.amount, july.per_accelerator_hour) == (Status.ACCEPTED, 761.904, pytest.approx(10.582))


def test_importing_the_collections_twice_adds_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    first = import_readings("aws-capacity-blocks", [MARCH, JULY], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (first.read, first.accepted + first.held, first.rejected) == (7, 7, 0)
    again = import_readings("aws-capacity-blocks", [MARCH, JULY], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (again.accepted, again.held, again.already_stored) == (0, 0, 7)


def test_bad_json_or_a_changed_structure_is_refused_with_the_file_line_and_json_path(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text(MARCH.read_text(encoding="utf-8").replace('"version": "1.0.0"', '"version": "1.0.0",,'), encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        readings(broken)
    [error] = caught.value.errors
    assert (error.file, error.line, error.column) == (str(broken), 5, "(json)") and error.message.startswith("not JSON")
    data = json.loads(MARCH.read_text(encoding="utf-8"))
    data["instance_types"]["p5.48xlarge"]["prices"] = data["instance_types"]["p5.48xlarge"].pop("pricing")
    del data["metadata"]["last_updated"]
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data, indent=2), encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        readings(changed)
    assert [(e.line, e.column, e.message) for e in caught.value.errors] == [
        (2, "$.metadata.last_updated", "expected a str, found missing"),
        (20, "$.instance_types['p5.48xlarge'].pricing", "expected a list, found missing"),
    ]
    data = json.loads(MARCH.read_text(encoding="utf-8"))
    data["instance_types"]["p4d.24xlarge"]["pricing"][0]["hourly_rate_usd"] = "11.8 USD"
    priced = tmp_path / "priced.json"
    priced.write_text(json.dumps(data, indent=2), encoding="utf-8")
    bad = [r for r in readings(priced) if isinstance(r, TableError)]
    assert [(e.line, e.column, e.text) for e in bad] == [(45, "$.instance_types['p4d.24xlarge'].pricing[0].hourly_rate_usd", "11.8 USD")]

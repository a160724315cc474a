"""The azure-pricing-radar importer, on real lines of the radar's CSV (tests/fixtures/prices/
azure-pricing-radar-excerpt.csv, MIT): snapshots as observations at their commit time, the
pricing kind from the meter name, Windows and Low Priority meters, savings-plan prices, spot
meters at the pay-as-you-go price, Azure's two spellings of a size, and bad input."""

from __future__ import annotations

import datetime as dt
import shutil
from pathlib import Path

import pytest

from computeatlas.cloud import rules
from computeatlas.cloud.azure_meters import licensed, meter_pricing, sku_key
from computeatlas.cloud.importers import formats
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed, Observation, Status
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store, observation_of
from computeatlas.core.tabular import TableError

FIXTURE = Path(__file__).parent / "fixtures" / "prices" / "azure-pricing-radar-excerpt.csv"
TABLE = load_instances(Path(__file__).parent.parent / "data" / "instances")
NOW = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)
JULY_15 = dt.datetime(2026, 7, 15, 17, 41, 15, tzinfo=dt.UTC)
AUGUST_1 = dt.datetime(2026, 8, 1, 5, 42, 48, tzinfo=dt.UTC)


def observations(path: Path = FIXTURE) -> list[Observation]:
    out = [r.result for r in formats()["azure-pricing-radar"](path, now=NOW)]
    assert all(isinstance(o, Observation) for o in out)
    return out  # type: ignore[return-value]


def one(rows: list[Observation], **match: object) -> Observation:
    found = [o for o in rows if all(getattr(o, k) == v for k, v in match.items())]
    assert len(found) == 1, found
    return found[0]


def decided(tmp_path: Path) -> list[Observation]:
    store = Store(tmp_path / "prices")
    import_readings("azure-pricing-radar", [FIXTURE], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    return [observation_of(row) for row in store.query("SELECT * FROM obs")]


def test_the_westeurope_nc96ads_a100_v4_spot_price_moves_between_two_snapshots() -> None:
    rows = observations()
    before = one(rows, instance_type="Standard_NC96ads_A100_v4", pricing="spot", term="", collected=JULY_15)
    after = one(rows, instance_type="Standard_NC96ads_A100_v4", pricing="spot", term="", collected=AUGUST_1)
    assert (before.amount, after.amount) == (5.48552, 4.38918)
    assert (before.region, before.currency, before.unit.value, before.price_basis.value) == ("westeurope", "USD", "hour", "instance")
    assert before.source_url == "https://prices.azure.com/api/retail/prices"
    assert before.via == (
        "azure-pricing-radar https://github.com/andy-diericks/azure-pricing-radar/blob/"
        "25ddcc86e253f69d7799875d4e5e123f88e9d95a/data/latest/vm-eu-west.json (MIT), published by 2026-07-15 "
        "(commit 25ddcc8)"
    )
    windows = one(rows, instance_type="Standard_NC96ads_A100_v4 (Windows)", pricing="spot", term="", collected=AUGUST_1)
    assert windows.amount == 5.403977


def test_low_priority_is_spot_with_its_term_and_the_savings_plan_a_committed_price() -> None:
    rows = observations()
    low = one(rows, instance_type="Standard_NC96ads_A100_v4", pricing="spot", term="Low Priority", collected=JULY_15)
    assert low.amount == 3.82
    august_3 = dt.datetime(2026, 8, 3, 21, 48, 59, tzinfo=dt.UTC)
    plan = one(rows, instance_type="Standard_NC96ads_A100_v4", pricing="committed", collected=august_3)
    assert (plan.term, plan.amount) == ("1 year savings plan", 15.89884)
    assert one(rows, instance_type="Standard_NC96ads_A100_v4", pricing="on_demand", collected=august_3).amount == 19.1
    assert not [o for o in rows if o.pricing.value == "committed" and o.collected == JULY_15]  # no savingsPlanPrice that day


def test_rows_are_placed_through_the_instance_table_and_windows_spot_at_on_demand_and_hosts_held(tmp_path: Path) -> None:
    rows = decided(tmp_path)
    spot = one(rows, instance_type="Standard_NC96ads_A100_v4", pricing="spot", term="", collected=AUGUST_1)
    assert (spot.status, spot.accelerator, spot.variant, spot.accelerators) == (Status.ACCEPTED, "nvidia-a100-pcie-80gb", "pcie-80gb", 4)
    assert spot.per_accelerator_hour == pytest.approx(4.38918 / 4)
    windows = one(rows, instance_type="Standard_NC96ads_A100_v4 (Windows)", pricing="spot", term="", collected=AUGUST_1)
    assert windows.rules == ("licence_included",)
    assert one(rows, instance_type="NCC40adsH100v5 (Windows)").rules[-1] == "licence_included"  # "… Srs Win"
    july_25 = dt.datetime(2026, 7, 25, 15, 46, 57, tzinfo=dt.UTC)
    h200 = one(rows, instance_type="ND96isrH200v5", pricing="spot", collected=july_25)
    assert (h200.amount, h200.accelerator, h200.accelerators, h200.rules) == (106.0, "nvidia-h200-sxm", 8, ("spot_at_on_demand",))
    assert "in francecentral in the same snapshot" in h200.reasons[0]
    assert one(rows, instance_type="ND96isrH200v5", pricing="on_demand", collected=july_25).status is Status.ACCEPTED
    host = one(rows, instance_type="NDamsrA100v4 Type1")
    assert host.rules == ("unplaced",) and "'NDamsrA100v4 Type1'" in host.reasons[0]


def test_importing_the_radar_twice_adds_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    first = import_readings("azure-pricing-radar", [FIXTURE], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (first.read, first.accepted + first.held) == (20, 21)  # one line carries a savings-plan price too
    again = import_readings("azure-pricing-radar", [FIXTURE], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (again.accepted, again.held, again.already_stored) == (0, 0, 21)


def test_a_unit_other_than_one_hour_or_a_missing_column_is_refused(tmp_path: Path) -> None:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([lines[0], lines[1].replace(",1 Hour,", ",1/Month,"), lines[2]]) + "\n", encoding="utf-8")
    first, *rest = [r.result for r in formats()["azure-pricing-radar"](bad, now=NOW)]
    assert isinstance(first, TableError) and (first.file, first.line, first.column, first.text) == (str(bad), 2, "unitOfMeasure", "1/Month")
    assert all(isinstance(o, Observation) for o in rest)
    missing = tmp_path / "missing.csv"
    missing.write_text(
        "\n".join([lines[0].replace(",savingsPlanPrice", ""), *(ln.rsplit(",", 1)[0] for ln in lines[1:3])]) + "\n", encoding="utf-8"
    )
    with pytest.raises(InputFailed) as caught:
        observations(missing)
    assert [(e.line, e.column) for e in caught.value.errors] == [(1, "savingsPlanPrice")]
    late = tmp_path / "late.csv"
    shutil.copy(FIXTURE, late)
    late.write_text(late.read_text(encoding="utf-8").replace("2026-07-15T17:41:15Z", "2027-07-15T17:41:15Z"), encoding="utf-8")
    errors = [r.result for r in formats()["azure-pricing-radar"](late, now=NOW) if isinstance(r.result, TableError)]
    assert errors and {(e.column, e.message.split(" (")[0]) for e in errors} == {("commit_date_utc", "collection time is in the future")}


def test_one_place_reads_azure_meter_names() -> None:
    assert meter_pricing("ND96isrH200v5 Spot") == ("spot", "")
    assert meter_pricing("Standard_NC96ads_A100_v4 Low Priority") == ("spot", "Low Priority")
    assert meter_pricing("NC6s v3") == ("on_demand", "")
    assert licensed("Virtual Machines NCCadsv5 Srs Win") and licensed("NCads A100 v4 Series Windows")
    assert not licensed("NCads A100 v4 Series Linux") and not licensed("Virtual Machines Winterfell Series")
    assert sku_key("ND96isrH100v5") == sku_key("Standard_ND96isr_H100_v5") == "nd96isrh100v5"
    found = TABLE.find("azure", "ND96isrH100v5")
    assert found is not None and found.instance_type == "Standard_ND96isr_H100_v5"
    assert TABLE.find("azure", "ND96amsA100v4") is None  # not the ND96amsr size: letters are never changed
    assert TABLE.find("aws", "p5.48xlarge") is not None and TABLE.find("aws", "p548xlarge") is None  # folding is Azure's only

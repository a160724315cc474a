"""Google Cloud price sources: Cyclenerd's Compute Engine GPU machine prices (``cyclenerd-gcp``),
gpuhunt's Cloud TPU table (``gpuhunt-tpu``), and the instance-table rule that a row's memory
per accelerator is a size its accelerator record publishes.

Every figure asserted here can be read in the fixtures (tests/fixtures/prices/cyclenerd-gcp,
tests/fixtures/prices/gpuhunt-tpu: real lines of the upstream files)."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from computeatlas.catalog import check
from computeatlas.cli import app as cli
from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.importers.cells import Skip
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed, Observation, Status
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError
from tests.conftest import CliRunner, make_record, write_data

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
CYCLENERD = FIXTURES / "cyclenerd-gcp" / "gcp_gpu_machine_prices-excerpt.csv"
TPU_JUNE, TPU_DEC = (FIXTURES / "gpuhunt-tpu" / f"tpu_pricing-{d}.json" for d in ("2024-06-11", "2024-12-23"))
TABLE = load_instances(Path(__file__).parent.parent / "data" / "instances")
NOW = dt.datetime(2026, 12, 3, 12, tzinfo=dt.UTC)
LAST = "fd66b26ff84fee5cdd94f341ea89206e76c06b99"


def results(fmt: str, path: Path, **options: object) -> list[object]:
    return [r.result for r in formats()[fmt](path, now=NOW, **options)]


def observations(fmt: str, path: Path, **options: object) -> list[Observation]:
    return [r for r in results(fmt, path, **options) if isinstance(r, Observation)]


def decided(fmt: str, path: Path, **options: object) -> list[Observation]:
    """The rows of ``path`` placed through the bundled instance table and checked by the rules."""
    return rules.apply(observations(fmt, path, **options), TABLE, RateTable([]), rules.Limits())


def one(rows: list[Observation], **where: object) -> Observation:
    found = [o for o in rows if all(str(getattr(o, k)) == str(v) for k, v in where.items())]
    assert len(found) == 1, found
    return found[0]


def test_a_cyclenerd_row_gives_on_demand_spot_and_both_commitments_of_the_whole_vm() -> None:
    rows = [
        o
        for o in observations("cyclenerd-gcp", CYCLENERD)
        if (o.instance_type, o.region) == ("a3-highgpu-8g", "us-central1")
        and o.collected == dt.datetime(2026, 7, 30, 6, 13, 37, tzinfo=dt.UTC)
    ]
    assert {(o.pricing.value, o.term, o.unit.value): o.amount for o in rows} == {
        ("on_demand", "", "hour"): 88.4899999025753,
        ("spot", "", "hour"): 50.6095408219178,
        ("committed", "1 year", "month"): 44810.08066464,
        ("committed", "3 years", "month"): 28370.99821392,
    }
    first = rows[0]
    assert (first.provider, first.currency, first.price_basis.value, first.stated_accelerators) == ("google-cloud", "USD", "instance", None)
    assert first.source_url == f"https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator/blob/{LAST}/pricing.yml"
    assert "Billing Catalog" in first.source_title
    assert first.via == "Cyclenerd pricing.yml at commit fd66b26, published by 2026-07-30 (Apache-2.0)"
    assert json.loads(first.raw_extra) == {
        "accelerator_key": "h100-80gb",
        "accelerator_count": "8",
        "cpu": "208",
        "ram_gb": "1872",
        "local_ssd_gb": "6000",
        "generated": "Thu Jul 30 06:13:17 2026",
    }


def test_the_monthly_duplicates_are_skipped_with_the_reason() -> None:
    skips = [r.reason for r in results("cyclenerd-gcp", CYCLENERD) if isinstance(r, Skip)]
    assert skips.count("month: hour × 730, the same price over a month (stored once, as hour)") == 27
    assert (
        skips.count("month_spot: hour_spot × 730, the same price over a month (stored once, as hour_spot)") == 24
    )  # 3 rows of 2022 have no spot


def test_the_collection_time_is_the_commit_time_even_where_generated_is_empty_or_shared() -> None:
    rows = observations("cyclenerd-gcp", CYCLENERD)
    first = one(rows, instance_type="a2-highgpu-1g", pricing="on_demand", collected="2022-02-09 23:07:12+00:00")
    assert (first.amount, "generated" in json.loads(first.raw_extra)) == (3.558986, False)
    assert first.via.endswith("commit d4890e9, published by 2022-02-09 (Apache-2.0)")
    # two snapshots of 2025-05-17 share the `generated` second 15:19:49 but are two commits, a minute apart
    same_day = [
        o for o in rows if o.instance_type == "a3-highgpu-8g" and o.pricing.value == "spot" and o.collected.date() == dt.date(2025, 5, 17)
    ]
    assert sorted(o.collected.strftime("%H:%M:%S") for o in same_day) == ["15:20:44", "15:21:42"]
    assert {o.amount for o in same_day} == {20.3893350136986}


def test_imported_a3_highgpu_8g_is_placed_on_eight_h100_at_11_06_per_gpu_hour(tmp_path: Path) -> None:
    rows = decided("cyclenerd-gcp", CYCLENERD)
    on_demand = one(rows, instance_type="a3-highgpu-8g", region="us-central1", pricing="on_demand", collected="2026-07-30 06:13:37+00:00")
    assert (on_demand.status, on_demand.accelerator, on_demand.accelerators, on_demand.billing) == (
        Status.ACCEPTED,
        "nvidia-h100-sxm",
        8,
        "all_in",
    )
    assert round(on_demand.per_accelerator_hour or 0, 2) == 11.06
    three_years = one(
        rows,
        instance_type="a3-highgpu-8g",
        region="us-central1",
        pricing="committed",
        term="3 years",
        collected="2026-07-30 06:13:37+00:00",
    )
    assert round(three_years.per_accelerator_hour or 0, 4) == round(28370.99821392 / 730 / 8, 4)  # 4.8581
    assert "derived_from_term" in three_years.qualifiers
    mega = one(rows, instance_type="a2-megagpu-16g", region="us-central1", pricing="on_demand", collected="2026-07-30 06:13:37+00:00")
    assert (mega.accelerator, mega.accelerators, round(mega.per_accelerator_hour or 0, 4)) == ("nvidia-a100-sxm-40gb", 16, 3.4837)
    l4 = one(rows, instance_type="g2-standard-96", region="europe-west4", pricing="spot")
    assert (l4.amount, l4.accelerator, l4.accelerators, round(l4.per_accelerator_hour or 0, 4)) == (4.41424, "nvidia-l4", 8, 0.5518)


def test_a_committed_price_that_is_the_on_demand_month_is_held(tmp_path: Path) -> None:
    rows = observations("cyclenerd-gcp", CYCLENERD)
    held = one(rows, instance_type="a2-ultragpu-8g", pricing="committed", term="1 year")
    assert (held.amount, held.status, held.rules) == (29601.77968, Status.HELD, ("committed_equals_on_demand",))
    assert "40.5504 × 730" in held.reasons[0]
    assert one(rows, instance_type="a2-ultragpu-8g", pricing="on_demand").status is Status.ACCEPTED


def test_a_fractional_gpu_is_noted_and_held_unplaced(tmp_path: Path) -> None:
    rows = decided("cyclenerd-gcp", CYCLENERD)
    share = one(rows, instance_type="g4-standard-6", region="us-central1", pricing="on_demand")
    assert share.amount == 0.55955625 and "0.125 GPU" in share.note
    assert (share.status, share.rules[0], share.accelerator) == (Status.HELD, "unplaced", "")


def test_importing_the_same_cyclenerd_file_twice_adds_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    first = import_readings("cyclenerd-gcp", [CYCLENERD], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    again = import_readings("cyclenerd-gcp", [CYCLENERD], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (first.read, first.accepted + first.held, first.skipped, first.rejected) == (
        27,
        101,
        51,
        0,
    )  # 27 on-demand, 24 spot, 25 + 25 committed
    assert (again.accepted, again.held, again.already_stored) == (0, 0, 101)


def _bad(tmp_path: Path, column: str, text: str) -> list[object]:
    header, *lines = CYCLENERD.read_text(encoding="utf-8").splitlines(keepends=True)
    names = header.strip().split(",")
    cells = lines[1].rstrip("\n").split(",")
    cells[names.index(column)] = text
    path = tmp_path / "bad.csv"
    path.write_text(header + lines[0] + ",".join(cells) + "\n", encoding="utf-8")
    return results("cyclenerd-gcp", path)


@pytest.mark.parametrize(
    ("column", "text", "words"),
    [
        ("commit_date_utc", "Mon Mar  7 21:27:22 2022", "not an ISO 8601 time"),
        ("commit_date_utc", "2027-01-01T00:00:00Z", "in the future"),
        ("hour", "55.7 USD", "not a number"),
        ("month_3y", "-1", "cannot be negative"),
        ("month", "40000", "not hour × 730"),
        ("snapshot_commit", "d4890e9", "40 hexadecimal digits"),
    ],
)
def test_a_bad_cyclenerd_cell_rejects_its_row_naming_file_line_and_column(tmp_path: Path, column: str, text: str, words: str) -> None:
    found = _bad(tmp_path, column, text)
    errors = [r for r in found if isinstance(r, TableError)]
    assert len(errors) == 1 and (errors[0].line, errors[0].column) == (3, column) and words in errors[0].message
    assert str(errors[0]).startswith(f"{tmp_path / 'bad.csv'}: line 3: column {column}: ")
    assert any(isinstance(r, Observation) for r in found)  # line 2 still reads


def test_a_cyclenerd_file_without_a_column_is_refused_whole(tmp_path: Path) -> None:
    text = CYCLENERD.read_text(encoding="utf-8").replace(",hour_spot,", ",spot_hourly,", 1)
    path = tmp_path / "renamed.csv"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        results("cyclenerd-gcp", path)
    assert [(e.line, e.column) for e in caught.value.errors] == [(1, "hour_spot")]


def test_gpuhunt_tpu_v4_pod_is_a_price_per_chip_hour_and_spot_above_on_demand_is_held(tmp_path: Path) -> None:
    when = dt.datetime(2024, 12, 23, tzinfo=dt.UTC)
    rows = decided("gpuhunt-tpu", TPU_DEC, collected=when)
    v4 = one(rows, instance_type="TPU v4 pod", pricing="on_demand")
    assert (v4.region, v4.amount, v4.unit.value, v4.price_basis.value, v4.status) == (
        "us-central2",
        3.22,
        "hour",
        "accelerator",
        Status.ACCEPTED,
    )
    assert (v4.accelerator, v4.accelerators, v4.per_accelerator_hour, v4.collected) == ("google-tpu-v4", 1, 3.22, when)
    assert v4.via == "dstack gpuhunt src/gpuhunt/resources/tpu_pricing.json (tpu_pricing-2024-12-23.json, MPL-2.0), published by 2024-12-23"
    assert v4.source_url == "https://cloud.google.com/tpu/pricing"
    spot = one(rows, instance_type="TPU v4 pod", pricing="spot")
    assert (spot.amount, spot.status, spot.rules[0]) == (3.686, Status.HELD, "spot_above_on_demand")
    assert spot.source_url == "https://cloud.google.com/spot-vms/pricing"


def test_gpuhunt_tpu_prices_whose_unit_google_does_not_establish_are_held(tmp_path: Path) -> None:
    rows = observations("gpuhunt-tpu", TPU_JUNE, collected=dt.datetime(2024, 6, 11, tzinfo=dt.UTC))
    v5p = one(rows, instance_type="TPU v5p", region="us-east5", pricing="committed", term="1 year")
    assert (v5p.amount, v5p.status, v5p.rules) == (2.94, Status.HELD, ("unit_not_stated",))
    assert {o.status for o in rows if o.instance_type != "TPU v4 pod"} == {Status.HELD}
    assert len(rows) == 17 * 4  # 17 region entries, each with on-demand, spot and two commitments
    assert not [o for o in rows if "spot_above_on_demand" in o.rules]  # the June spot column is below on-demand throughout
    december = observations("gpuhunt-tpu", TPU_DEC, collected=dt.datetime(2024, 12, 23, tzinfo=dt.UTC))
    v2 = one(december, instance_type="TPU v2 device", region="europe-west4", pricing="spot")
    assert (v2.amount, v2.rules) == (1.26225, ("unit_not_stated", "spot_above_on_demand"))
    assert len([o for o in december if "spot_above_on_demand" in o.rules]) == 6


def test_gpuhunt_tpu_needs_its_date_and_refuses_bad_files_and_cells(tmp_path: Path) -> None:
    with pytest.raises(InputFailed, match="carries no date"):
        results("gpuhunt-tpu", TPU_DEC)
    broken = tmp_path / "broken.json"
    broken.write_text('{\n  "TPU v6e": {\n    "us-east1": {"On Demand (USD)": 2.7,,}\n  }\n}\n', encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        results("gpuhunt-tpu", broken, collected=NOW)
    assert caught.value.errors[0].line == 3 and "not JSON" in caught.value.errors[0].message
    odd = tmp_path / "odd.json"
    odd.write_text(
        json.dumps({"TPU v6e": {"us-east1": {"On Demand (USD)": 2.7}, "us-east5": {"Per Slice (USD)": 9}}}, indent=4), encoding="utf-8"
    )
    found = results("gpuhunt-tpu", odd, collected=NOW)
    error = next(r for r in found if isinstance(r, TableError))
    assert (error.line, error.column) == (6, "TPU v6e/us-east5/Per Slice (USD)") and "unknown price key" in error.message


def test_importing_a_gpuhunt_file_twice_adds_nothing_and_the_cli_takes_collected(tmp_path: Path) -> None:
    prices = tmp_path / "prices"
    shutil.copytree(Path(__file__).parent.parent / "data" / "prices", prices, ignore=shutil.ignore_patterns("observations", "runs"))
    runner = CliRunner()
    args = ["prices", "import", "gpuhunt-tpu", str(TPU_DEC), "--collected", "2024-12-23T00:00:00Z", "--prices", str(prices), "--json"]
    first = runner.invoke(cli, args)
    assert first.exit_code == 0, first.output
    counts = json.loads(first.stdout)
    assert (counts["read"], counts["accepted"], counts["held"]) == (21, 1, 41)
    again = json.loads(runner.invoke(cli, args).stdout)
    assert (again["accepted"], again["held"], again["already_stored"]) == (0, 0, 42)
    missing = runner.invoke(cli, args[:4] + ["--prices", str(prices)])
    assert missing.exit_code != 0 and "--collected" in missing.output


def _instances(folder: Path, memory: str, accelerator: str = "acme-a1") -> None:
    (folder / "instances").mkdir(exist_ok=True)
    (folder / "instances" / "test.csv").write_text(
        "provider,instance_type,accelerator,variant,accelerators,billing,accelerator_memory_gb,source_url,source_title,verified,note\n"
        f"examplecloud,ex-8g,{accelerator},,8,all_in,{memory},https://examplecloud.example/types,Example types,2026-11-01,test row\n",
        encoding="utf-8",
    )


def test_an_instance_row_whose_memory_is_not_its_accelerators_fails_validation(data_dir: Path) -> None:
    _instances(data_dir, "640")
    _, problems = check(data_dir, today=dt.date(2026, 11, 30))
    [problem] = [p for p in problems if "accelerator_memory_gb" in p.field]
    assert (problem.file, problem.field, problem.text) == ("data/instances/test.csv", "row 2: accelerator_memory_gb", "640")
    assert "640 GB per accelerator is not a memory size of acme-a1 (80 GB)" in problem.message and "instance total" in problem.message
    _instances(data_dir, "80.5")  # within 1% of 80 GB
    assert not [p for p in check(data_dir, today=dt.date(2026, 11, 30))[1] if "accelerator_memory_gb" in p.field]
    _instances(data_dir, "82")
    assert [p for p in check(data_dir, today=dt.date(2026, 11, 30))[1] if "accelerator_memory_gb" in p.field]


@pytest.mark.parametrize(("memory", "fails"), [("32", False), ("34.36", False), ("33", True)])
def test_a_record_that_states_gib_accepts_the_gib_number_or_its_gb_equivalent(tmp_path: Path, memory: str, fails: bool) -> None:
    folder = write_data(
        tmp_path / "data",
        [make_record("acme-a1", specs__memory={"state": "published", "value": "32 GiB", "basis": "chip", "source": "sheet"})],
    )
    _instances(folder, memory)
    assert bool([p for p in check(folder, today=dt.date(2026, 11, 30))[1] if "accelerator_memory_gb" in p.field]) is fails

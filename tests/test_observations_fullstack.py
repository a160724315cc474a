"""The Full Stack Deep Learning cloud GPU table (format ``fullstack-cloud-gpus``): real lines of
its history and of one version, placed through the bundled instance table (data/instances)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.importers.cells import Skip, provider_id
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed, Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
HISTORY = FIXTURES / "fullstack-cloud-gpus-history-excerpt.csv"
VERSION = FIXTURES / "fullstack-cloud-gpus-2025-03-07-excerpt.csv"
TABLE = load_instances(Path(__file__).parent.parent / "data" / "instances")
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
PUBLISHED = dt.datetime(2025, 3, 7, 19, 25, 40, tzinfo=dt.UTC)


def readings(path: Path, **options: object) -> list[tuple[int, object]]:
    return [(r.line, r.result) for r in formats()["fullstack-cloud-gpus"](path, now=NOW, **options)]


def test_the_history_gives_one_observation_per_version_named_and_dated_by_its_commit() -> None:
    got = readings(HISTORY)
    obs = [(line, o) for line, o in got if isinstance(o, Observation)]
    oracle = [(line, o) for line, o in obs if o.instance_type == "VM.GPU.A10.1"]
    assert [
        (
            line,
            o.provider,
            o.pricing.value,
            o.amount,
            o.stated_per_accelerator,
            o.stated_accelerators,
            o.stated_memory_gb,
            o.collected.isoformat(),
        )
        for line, o in oracle
    ] == [
        (2, "oracle", "on_demand", 2.0, 2.0, 1, 24.0, "2023-10-24T03:41:30+00:00"),
        (9, "oracle", "on_demand", 2.0, 2.0, 1, 24.0, "2025-03-07T19:25:40+00:00"),
    ]  # the same row, re-published by a later commit
    assert (
        oracle[1][1].via
        == "the-full-stack-website fullstack-cloud-gpus-history-excerpt.csv (Full Stack Deep Learning, MIT), published by 2025-03-07 (commit b646e30)"
    )
    assert oracle[1][1].source_url.endswith("/blob/b646e30673738a5a60ab299659bf2f012e59be93/docs/cloud-gpus/cloud-gpus.csv")
    names = {o.instance_type for _, o in obs}
    assert {
        "1x A100 (80 GB), 12 vCPU, 90 GB RAM",
        "8x A40 (48 GB), 40 vCPU, 502 GB RAM",  # no Name: built from the row's own fields
        "n1-highmem-8 + 1x V100 (16 GB)",
        "n1-highmem-8 + 1x P100 (16 GB)",
    } <= names  # Google's N1 host names no GPU
    jarvis = sorted((o.pricing.value, o.amount, o.stated_per_accelerator) for _, o in obs if o.provider == "jarvislabs")
    assert jarvis == [("on_demand", 1.1, 1.1), ("spot", 0.69, None)]
    dataoorts = next(o for _, o in obs if o.instance_type == "gc2.h100-80-8")
    assert (dataoorts.stated_accelerators, dataoorts.stated_memory_gb) == (8, 80.0)
    assert json.loads(dataoorts.raw_extra)["vCPUs"] == "188-208"  # free text is kept as text, never read as a number
    assert (3, Skip("a copy of the header row inside the data")) in got
    rejected = [(line, o.column) for line, o in got if isinstance(o, TableError)]
    assert rejected == [(4, "On-demand")]  # Exoscale GPU3080Ti SMALL: no On-demand and no Spot price


def test_importing_the_history_places_rows_through_the_instance_table_and_twice_adds_nothing(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    summary = import_readings("fullstack-cloud-gpus", [HISTORY], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (summary.read, summary.rejected, summary.skipped, summary.accepted + summary.held) == (11, 1, 1, 12)
    rows = store.query(
        "SELECT provider, instance_type, accelerator, accelerators, status, rules, per_accelerator_hour, collected "
        "FROM latest WHERE pricing = 'on_demand' ORDER BY provider, instance_type, collected"
    )
    placed = {
        (r["provider"], r["instance_type"], r["collected"].date().isoformat()): (r["accelerator"], r["accelerators"], r["status"])
        for r in rows
        if r["accelerator"]
    }
    assert placed == {
        ("oracle", "VM.GPU.A10.1", "2023-10-24"): ("nvidia-a10", 1, "accepted"),
        ("oracle", "VM.GPU.A10.1", "2025-03-07"): ("nvidia-a10", 1, "accepted"),
        ("paperspace", "1x A100 (80 GB), 12 vCPU, 90 GB RAM", "2025-03-07"): ("nvidia-a100-sxm-80gb", 1, "accepted"),
        ("runpod", "8x A40 (48 GB), 40 vCPU, 502 GB RAM", "2025-03-07"): ("nvidia-a40", 8, "accepted"),
    }
    runpod = next(r for r in rows if r["provider"] == "runpod")
    assert round(runpod["per_accelerator_hour"], 2) == 0.79  # 6.32 for 8 A40s, as the table's Per-GPU column says
    unplaced = {(r["provider"], r["instance_type"]) for r in rows if list(r["rules"]) == ["unplaced"]}
    assert ("oracle", "BM.GPU.H100.8") in unplaced and ("dataoorts", "gc2.h100-80-8") in unplaced  # Oracle's page names no H100 form factor
    again = import_readings("fullstack-cloud-gpus", [HISTORY], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (again.accepted, again.held, again.already_stored) == (0, 0, 12)


def test_a_stated_per_gpu_price_or_memory_that_disagrees_with_the_instance_table_holds_the_row(tmp_path: Path) -> None:
    lines = HISTORY.read_text(encoding="utf-8").splitlines()
    oracle = lines[8]  # VM.GPU.A10.2 is two A10s: 4.00 for the instance, 2.00 per GPU, 48 GB
    bad = tmp_path / "history.csv"
    bad.write_text(
        "\n".join(
            [
                lines[0],
                oracle.replace("A10,Ampere,1,24,15,240,2.00,2.00,,VM.GPU.A10.1", "A10,Ampere,2,48,30,480,4.00,1.50,,VM.GPU.A10.2"),
                lines[10].replace("Ampere,1,80,12,90", "Ampere,1,40,12,90"),
            ]
        )
        + "\n",
        encoding="utf-8",
    )
    decided = rules.apply([o for _, o in readings(bad) if isinstance(o, Observation)], TABLE, RateTable([]), rules.Limits())
    assert [(o.instance_type, o.rules) for o in decided] == [
        ("VM.GPU.A10.2", ("per_accelerator_mismatch",)),  # 4.00 ÷ 2 is 2.00, not the stated 1.50
        ("1x A100 (80 GB), 12 vCPU, 90 GB RAM", ("memory_mismatch",)),
    ]  # 40 GB stated for one 80 GB A100


def test_one_version_takes_its_date_from_the_caller(tmp_path: Path) -> None:
    got = [o for _, o in readings(VERSION, collected=PUBLISHED, commit="b646e30673738a5a60ab299659bf2f012e59be93")]
    assert [(o.provider, o.instance_type, o.amount, o.collected, o.via) for o in got] == [
        (
            "oracle",
            "VM.GPU.A10.1",
            2.0,
            PUBLISHED,
            "the-full-stack-website fullstack-cloud-gpus-2025-03-07-excerpt.csv (Full Stack Deep Learning, MIT), "
            "published by 2025-03-07 (commit b646e30)",
        ),
        (
            "paperspace",
            "1x A100 (80 GB), 12 vCPU, 90 GB RAM",
            3.18,
            PUBLISHED,
            "the-full-stack-website "
            "fullstack-cloud-gpus-2025-03-07-excerpt.csv (Full Stack Deep Learning, MIT), published by 2025-03-07 (commit b646e30)",
        ),
    ]
    with pytest.raises(InputFailed, match="carries no date"):
        readings(VERSION)
    with pytest.raises(InputFailed, match="not in the future"):
        readings(VERSION, collected=dt.datetime(2027, 1, 1, tzinfo=dt.UTC))
    runner = CliRunner()
    ok = runner.invoke(
        cli,
        [
            "prices",
            "import",
            "fullstack-cloud-gpus",
            str(VERSION),
            "--collected",
            "2025-03-07T19:25:40Z",
            "--prices",
            str(tmp_path / "store"),
            "--json",
        ],
    )
    assert ok.exit_code == 0 and json.loads(ok.stdout)["accepted"] == 2, ok.output
    missing = runner.invoke(cli, ["prices", "import", "fullstack-cloud-gpus", str(VERSION), "--prices", str(tmp_path / "other")])
    assert missing.exit_code == 2 and "carries no date" in missing.stderr and not (tmp_path / "other").exists()


@pytest.mark.parametrize(
    ("old", "new", "column", "words"),
    [
        ("2025-03-07T19:25:40Z,Paperspace", "7 March 2025,Paperspace", "commit_date_utc", "not an ISO 8601 time"),
        (
            "b646e30673738a5a60ab299659bf2f012e59be93,2025-03-07T19:25:40Z,Paperspace",
            "b646e30,2025-03-07T19:25:40Z,Paperspace",
            "snapshot_commit",
            "40 hex digits",
        ),
        ("90,3.18,3.18,,", "90,3.18 USD,3.18,,", "On-demand", "not a number"),
        ("90,3.18,3.18,,", "90,3.18,3.18,9,8,", "(row)", "expected 13 cells"),
        ("Ampere,1,80,12,90", "Ampere,one,80,12,90", "GPUs", "not a whole number"),
    ],
)
def test_a_bad_cell_names_the_file_line_and_column(tmp_path: Path, old: str, new: str, column: str, words: str) -> None:
    lines = HISTORY.read_text(encoding="utf-8").splitlines()
    path = tmp_path / "history.csv"
    path.write_text("\n".join([lines[0], lines[1], lines[10].replace(old, new)]) + "\n", encoding="utf-8")
    (_, first), (line, second) = readings(path)
    assert isinstance(first, Observation) and isinstance(second, TableError)
    assert (second.file, line, second.line, second.column) == (str(path), 3, 3, column) and words in second.message


def test_a_missing_column_fails_the_whole_file_and_stores_nothing(tmp_path: Path) -> None:
    path = tmp_path / "history.csv"
    path.write_text(HISTORY.read_text(encoding="utf-8").replace(",Per-GPU,", ",", 1), encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        import_readings("fullstack-cloud-gpus", [path], Store(tmp_path / "prices"), TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert [(e.line, e.column) for e in caught.value.errors] == [(1, "Per-GPU")]
    assert not (tmp_path / "prices").exists()


def test_cloud_names_map_to_the_provider_ids_in_use() -> None:
    assert [
        provider_id(n)
        for n in (
            "Oracle Cloud",
            "GCP",
            "Cudo Compute",
            "Latitude.sh",
            "OVHcloud",
            "Oblivus Cloud",
            "RunPod",
            "Datacrunch",
            "CR8DL",
            "oracle_cloud",
            "lambda_labs",
        )
    ] == ["oracle", "google-cloud", "cudo", "latitude", "ovh", "oblivus", "runpod", "datacrunch", "cr8dl", "oracle", "lambda"]

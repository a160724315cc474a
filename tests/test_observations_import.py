"""Importers, the instance-table loader and the prices CLI (the collectors: tests/test_collectors.py): bad input is
a clear error naming the file, the line and the column, never a traceback."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import InputFailed, Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
OFFERS = Path(__file__).parent.parent / "data" / "offers" / "neoclouds.csv"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
TABLE = load_instances(FIXTURES / "instances")
HEADER = "provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,price_basis,collected,source_url,source_title,via,availability,note\n"
GOOD = "examplecloud,8x L4,us,on_demand,,3.12,USD,hour,8,instance,2026-11-20T00:00:00Z,https://examplecloud.example/p,Example,,,\n"


def readings(fmt: str, path: Path, **options: object) -> list[object]:
    return [r.result for r in formats()[fmt](path, now=NOW, **options)]


@pytest.mark.parametrize(
    ("cell", "column", "words"),
    [
        ({"amount": "-3.12"}, "amount", "cannot be negative"),
        ({"amount": "three"}, "amount", "not a number"),
        ({"amount": "inf"}, "amount", "not a number"),
        ({"collected": "2027-01-01T00:00:00Z"}, "collected", "in the future"),
        ({"collected": "yesterday"}, "collected", "not an ISO 8601 time"),
        ({"currency": "XYZ"}, "currency", "unknown currency code"),
        ({"pricing": "sometimes"}, "pricing", "must be one of"),
        ({"unit": "fortnight"}, "unit", "must be one of"),
    ],
)
def test_a_bad_cell_names_the_file_line_and_column(tmp_path: Path, cell: dict[str, str], column: str, words: str) -> None:
    names = HEADER.strip().split(",")
    values = dict(zip(names, GOOD.strip().split(","), strict=True)) | cell
    path = tmp_path / "bad.csv"
    path.write_text(HEADER + GOOD + ",".join(values[n] for n in names) + "\n", encoding="utf-8")
    first, second = readings("atlas", path)
    assert isinstance(first, Observation) and isinstance(second, TableError)
    assert (second.file, second.line, second.column) == (str(path), 3, column) and words in second.message
    assert str(second).startswith(f"{path}: line 3: column {column}: ")


def test_a_missing_column_or_a_file_that_is_not_csv_fails_the_whole_file(tmp_path: Path) -> None:
    missing = tmp_path / "missing.csv"
    missing.write_text(HEADER.replace(",currency", "") + GOOD, encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        readings("atlas", missing)
    assert [(e.line, e.column) for e in caught.value.errors] == [(1, "currency")]
    binary = tmp_path / "photo.csv"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    with pytest.raises(InputFailed, match=r"photo.csv: line 1: column \(file\): not UTF-8 text"):
        readings("atlas", binary)


def test_a_failed_import_stores_nothing_even_when_another_file_was_good(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text(HEADER + GOOD, encoding="utf-8")
    bad.write_text("not,the,header\n1,2,3\n", encoding="utf-8")
    store = Store(tmp_path / "prices")
    with pytest.raises(InputFailed):
        import_readings("atlas", [good, bad], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert not (tmp_path / "prices").exists() or not list((tmp_path / "prices").rglob("*"))


def test_skypilot_vms_csv_gives_on_demand_and_spot_with_counts_from_our_table(tmp_path: Path) -> None:
    """Real lines of skypilot-org/skypilot-catalog catalogs/v7/gcp/vms.csv (commit 017e2502)."""
    store = Store(tmp_path / "prices")
    summary = import_readings(
        "skypilot",
        [FIXTURES / "skypilot-gcp-vms.csv"],
        store,
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=NOW,
        provider="google-cloud",
        collected=dt.datetime(2026, 3, 21, 6, 19, 35, tzinfo=dt.UTC),
    )
    assert summary.read == 7 and summary.skipped == 1 and summary.accepted + summary.held == 12  # the n1-highmem-8 row has no accelerator
    rows = store.query(
        "SELECT instance_type, region, pricing, accelerators, per_accelerator_hour, rules FROM latest "
        "WHERE instance_type = 'tpu-v6e-8' ORDER BY region, pricing"
    )
    assert [(r["region"], r["pricing"], r["accelerators"], round(r["per_accelerator_hour"], 4), list(r["rules"])) for r in rows] == [
        ("asia-east1/asia-east1-c", "on_demand", 8, 87.5, ["placeholder"]),
        ("asia-east1/asia-east1-c", "spot", 8, 87.5, ["placeholder"]),
        ("us-central1/us-central1-b", "on_demand", 8, 2.7, []),
        ("us-central1/us-central1-b", "spot", 8, 0.6483, []),
    ]
    with pytest.raises(InputFailed, match="give the provider and the collection time"):
        readings("skypilot", FIXTURES / "skypilot-gcp-vms.csv")


LAMBDA_8X_H100 = (  # OpenComputePrices skypilot.csv (2026-03 snapshot, MIT), line 8853, unchanged
    "2026-03-21,2026-03-21T06:19:35Z,skypilot,lambda,gpu_8x_h100_sxm5,,H100,,\"{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', "
    "'Count': 8.0, 'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}\",8,,208.0,1800.0,,,europe-central-1,,,,on_demand,,"
    "23.92,2.99,USD,hour,True,,,,,"
)


def test_opencomputeprices_reads_a_skypilot_lambda_gpu_info_as_skypilots_fetcher_writes_it(tmp_path: Path) -> None:
    """SkyPilot's Lambda fetcher writes one GPU's 81920 MiB as the total of eight: the instance states 8 × 81920 MiB."""
    header = (FIXTURES / "skypilot-rules-excerpt.csv").read_text(encoding="utf-8").splitlines()[0]
    path = tmp_path / "skypilot.csv"
    path.write_text(header + "\n" + LAMBDA_8X_H100 + "\n", encoding="utf-8")
    [reading] = list(formats()["opencomputeprices"](path, now=NOW))
    assert isinstance(reading.result, Observation)
    assert (reading.result.provider, reading.result.instance_type, reading.result.stated_memory_gb) == (
        "lambda",
        "gpu_8x_h100_sxm5",
        687.195,
    )


def test_the_instance_table_loader_names_file_line_and_column(tmp_path: Path) -> None:
    shutil.copy(FIXTURES / "instances" / "test.csv", tmp_path / "a.csv")
    lines = (FIXTURES / "instances" / "test.csv").read_text(encoding="utf-8").splitlines()
    (tmp_path / "b.csv").write_text("\n".join([lines[0], lines[1].replace("all_in", "everything"), lines[2]]) + "\n", encoding="utf-8")
    with pytest.raises(InputFailed) as caught:
        load_instances(tmp_path)
    found = {(Path(e.file).name, e.line, e.column) for e in caught.value.errors}
    assert ("b.csv", 2, "billing") in found and ("b.csv", 3, "instance_type") in found  # a bad cell; a duplicate of a.csv
    (tmp_path / "a.csv").write_text(lines[0].replace(",note", "") + "\n", encoding="utf-8")
    with pytest.raises(InputFailed, match="the columns must be exactly"):
        load_instances(tmp_path)


def test_cli_import_held_runs_and_history(tmp_path: Path) -> None:
    runner, store = CliRunner(), str(tmp_path / "prices")
    first = runner.invoke(cli, ["prices", "import", "offers", str(OFFERS), "--prices", store], env={"COLUMNS": "200"})
    assert first.exit_code == 0, first.output
    assert "accepted (added)" in first.stdout and "runpod 10" in first.stdout
    again = runner.invoke(cli, ["prices", "import", "offers", str(OFFERS), "--prices", store, "--json"])
    assert json.loads(again.stdout)["accepted"] == 0
    history = runner.invoke(cli, ["prices", "history", "nvidia-h100-sxm", "--prices", store, "--provider", "lambda"])
    assert history.exit_code == 0 and history.stdout.splitlines()[0].startswith("collected,provider,instance_type")
    assert len(history.stdout.splitlines()) > 1 and all(",lambda," in line for line in history.stdout.splitlines()[1:])
    runs = runner.invoke(cli, ["prices", "runs", "--prices", store])
    assert "neoclouds.csv" in runs.stdout
    held = runner.invoke(cli, ["prices", "held", "--prices", store], env={"COLUMNS": "200"})
    assert held.exit_code == 0 and "0 held observations" in held.stdout


def test_cli_bad_input_is_one_clear_line_and_exit_2(tmp_path: Path) -> None:
    runner = CliRunner()
    bad = tmp_path / "prices.csv"
    bad.write_text(HEADER.replace(",amount", ""), encoding="utf-8")
    for args, words in (
        (["prices", "import", "yaml", str(bad)], "unknown format 'yaml'"),
        (["prices", "import", "atlas", str(bad)], f"{bad}: line 1: column amount: missing column"),
        (["prices", "import", "atlas", str(tmp_path / "none.csv")], "no such file"),
        (["prices", "import", "skypilot", str(bad)], "--collected"),
    ):
        result = runner.invoke(cli, [*args, "--prices", str(tmp_path / "store")])
        said = " ".join(result.stderr.split())  # wrapped at 80 columns
        assert result.exit_code == 2 and words in said and "Traceback" not in result.output, (args, result.output)
    assert not (tmp_path / "store").exists()
    collect = runner.invoke(cli, ["prices", "collect", "nosuch", "--prices", str(tmp_path / "store")])
    assert collect.exit_code == 2 and "unknown collector 'nosuch'" in collect.stderr


def test_the_catalog_validates_the_instance_table_naming_file_row_and_field(tmp_path: Path) -> None:
    from computeatlas.catalog import check

    data = tmp_path / "data"
    shutil.copytree(Path(__file__).parent.parent / "data", data, ignore=shutil.ignore_patterns("prices"))
    table = data / "instances" / "extra.csv"
    table.write_text(
        (FIXTURES / "instances" / "test.csv").read_text(encoding="utf-8").splitlines()[0] + "\n"
        "runpod,1x_L4_SECURE,nvidia-l4,,one,all_in,24,https://www.runpod.io/pricing,RunPod,2026-11-30,\n"
        "runpod,2x_L4_SECURE,nvidia-l9,,2,all_in,24,https://www.runpod.io/pricing,RunPod,2026-11-30,\n",
        encoding="utf-8",
    )
    _, problems = check(data, today=dt.date(2026, 12, 4))
    text = [str(p) for p in problems]
    assert any("data/instances/extra.csv: row 2: accelerators:" in t for t in text), text
    assert any("instances/extra.csv: row 3: accelerator: no such accelerator" in t for t in text), text

"""Fixes found by testing the price pipeline: price cells, held rows and conflicts, stated
accelerator counts, CSV formula cells, the pricing-kind spelling and history parameters."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from computeatlas.cloud import rules
from computeatlas.cloud.importers import formats
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation, PricingKind
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.tabular import TableError

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
TABLE = load_instances(FIXTURES / "instances")
HEADER = "provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,price_basis,collected,source_url,source_title,via,availability,note\n"


def _row(amount: str = "3.12", accelerators: str = "8", instance: str = "8x L4", region: str = "us", via: str = "") -> str:
    return (
        f'examplecloud,{instance},"{region}",on_demand,,"{amount}",USD,hour,{accelerators},instance,2026-11-20T00:00:00Z,'
        f'https://examplecloud.example/p,Example,"{via}",,\n'
    )


def _read(tmp_path: Path, *lines: str) -> list[object]:
    path = tmp_path / "prices.csv"
    path.write_text(HEADER + "".join(lines), encoding="utf-8")
    return [r.result for r in formats()["atlas"](path, now=NOW)]


@pytest.mark.parametrize("amount", ["9,8", "1,2,3", "１２.５", "２.６", "12,34.5", "1,2345", ",123", "1.", "3.12.1", "0x10", "1_000"])
def test_a_price_cell_with_a_decimal_comma_or_non_ascii_digits_is_rejected_naming_file_line_and_column(tmp_path: Path, amount: str) -> None:
    (result,) = _read(tmp_path, _row(amount))
    assert isinstance(result, TableError), (amount, result)
    assert (result.file, result.line, result.column) == (str(tmp_path / "prices.csv"), 2, "amount") and "not a number" in result.message


@pytest.mark.parametrize(
    ("amount", "value"),
    [
        ("1,234.56", 1234.56),
        ("12,345,678", 12345678.0),
        ("3.12", 3.12),
        (".5", 0.5),
        ("2.5e1", 25.0),
        ("1E-2", 0.01),
        ("0", 0.0),
        ("123", 123.0),
    ],
)
def test_a_plain_price_or_one_with_proper_thousands_separators_is_read(tmp_path: Path, amount: str, value: float) -> None:
    (result,) = _read(tmp_path, _row(amount))
    assert isinstance(result, Observation) and result.amount == pytest.approx(value)


def _obs(amount: float, instance: str = "8x L4", **extra: object) -> Observation:
    return Observation(
        provider="examplecloud",
        instance_type=instance,
        region="us",
        pricing="on_demand",
        amount=amount,  # type: ignore[arg-type]
        currency="USD",
        unit="hour",
        collected=dt.datetime(2026, 11, 20, tzinfo=dt.UTC),
        source_url="https://examplecloud.example/p",
        via="test",
        **extra,
    )


def _import(store: Store, *observations: Observation, now: dt.datetime = NOW):  # type: ignore[no-untyped-def]
    return import_readings("atlas", [], store, TABLE, RateTable([]), rules.Limits(), now=now, observations=list(observations))


def test_a_held_bad_row_never_blocks_the_correct_price_in_a_later_import(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    bad = _import(store, _obs(0))
    assert bad.held_by_rule == {"below_floor": 1}
    fixed = _import(store, _obs(3.12), now=NOW + dt.timedelta(hours=1))
    assert (fixed.accepted, fixed.held) == (1, 0), fixed.counts()
    assert [r["amount"] for r in store.current("nvidia-l4", NOW, 90)] == [3.12]
    assert [(r["amount"], list(r["rules"])) for r in store.held()] == [(0.0, ["below_floor"])]  # append-only: still listed
    again = _import(store, _obs(3.12), now=NOW + dt.timedelta(hours=2))
    assert again.accepted == again.held == 0 and again.already_stored == 1


def test_a_bad_row_after_the_accepted_price_is_held_and_the_accepted_one_stays(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    assert _import(store, _obs(3.12)).accepted == 1
    bad = _import(store, _obs(0), now=NOW + dt.timedelta(hours=1))
    assert bad.accepted == 0 and bad.held == 1
    assert [r["amount"] for r in store.current("nvidia-l4", NOW, 90)] == [3.12]
    assert {r["amount"] for r in store.held()} == {0.0}


@pytest.mark.parametrize("order", [(0.0, 3.12), (3.12, 0.0)])
def test_in_one_import_a_held_row_never_blocks_the_accepted_price_of_the_same_observation(
    tmp_path: Path, order: tuple[float, float]
) -> None:
    store = Store(tmp_path / "prices")
    summary = _import(store, *(_obs(a) for a in order))
    assert (summary.accepted, summary.held) == (1, 1), summary.counts()
    assert [r["amount"] for r in store.current("nvidia-l4", NOW, 90)] == [3.12]
    assert [r["amount"] for r in store.held()] == [0.0]
    assert store.count() == {"accepted": 1}


@pytest.mark.parametrize(("instance", "stated", "table"), [("8x L4", 4, 8), ("1x L4", 999999, 1)])
def test_a_stated_accelerator_count_that_contradicts_the_instance_table_is_held_naming_both(
    tmp_path: Path, instance: str, stated: int, table: int
) -> None:
    store = Store(tmp_path / "prices")
    (obs,) = _read(tmp_path, _row(accelerators=str(stated), instance=instance))
    summary = _import(store, obs)  # type: ignore[arg-type]
    assert summary.held_by_rule == {"count_mismatch": 1} and summary.accepted == 0
    (held,) = store.held()
    assert f"states {stated} accelerator" in held["reasons"][0] and f"has {table} for" in held["reasons"][0]
    assert store.current("nvidia-l4", NOW, 90) == []
    assert "count_mismatch" in rules.RULES


def test_a_stated_count_that_agrees_or_no_stated_count_is_placed_as_before(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    agreeing, unstated = _read(tmp_path, _row(accelerators="8"), _row(accelerators="", instance="1x L4"))
    assert _import(store, agreeing, unstated).accepted == 2  # type: ignore[arg-type]


def test_a_collectors_guessed_gpu_count_never_holds_a_row_our_table_places(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    summary = import_readings(
        "opencomputeprices", [FIXTURES / "opencomputeprices-excerpt.csv"], store, TABLE, RateTable([]), rules.Limits(), now=NOW
    )
    assert "count_mismatch" not in {r for row in store.query("SELECT rules FROM obs WHERE accelerator LIKE '%tpu%'") for r in row["rules"]}
    assert summary.held_by_rule["count_mismatch"] == 0
    sky = import_readings(
        "skypilot",
        [FIXTURES / "skypilot-gcp-vms.csv"],
        Store(tmp_path / "sky"),
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=NOW,
        provider="google-cloud",
        collected=NOW - dt.timedelta(days=1),
    )
    assert sky.held_by_rule["count_mismatch"] == 0 and sky.accepted == 6  # three slice sizes, on-demand and spot, in us-central1


FORMULAS = {"region": '=HYPERLINK("https://evil.example")', "via": "=cmd", "note": "+1+1", "source_title": "@SUM(A1)"}


def _formula_store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "prices")
    summary = _import(store, _obs(3.12).model_copy(update=FORMULAS))
    assert summary.accepted == 1
    return store


def _cells(text: str) -> list[dict[str, str]]:
    import csv
    import io

    return list(csv.DictReader(io.StringIO(text)))


def _no_formula(rows: list[dict[str, str]]) -> None:
    assert rows
    for row in rows:
        assert not any(v.startswith(("=", "+", "@", "\t", "\r")) for v in row.values()), row
        assert row["region"] == "'" + FORMULAS["region"] and row["via"] == "'=cmd"


def test_no_cell_of_the_cli_history_csv_starts_a_formula(tmp_path: Path) -> None:
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    _formula_store(tmp_path)
    result = CliRunner().invoke(cli, ["prices", "history", "nvidia-l4", "--prices", str(tmp_path / "prices")])
    assert result.exit_code == 0, result.output
    _no_formula(_cells(result.stdout))


def test_no_cell_of_the_api_history_csv_or_the_price_dataset_starts_a_formula(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from computeatlas.catalog import load
    from computeatlas.core.settings import Settings
    from computeatlas.web.app import create_app

    _formula_store(tmp_path)
    client = TestClient(create_app(load(), Settings(prices=tmp_path / "prices")))
    history = client.get("/api/prices/nvidia-l4/history", params={"format": "csv"})
    assert history.status_code == 200
    _no_formula(_cells(history.text))
    dataset = client.get("/data/prices/observations.csv")
    assert dataset.status_code == 200
    rows = _cells(dataset.text)
    _no_formula(rows)
    assert rows[0]["note"] == "'+1+1" and rows[0]["source_title"] == "'@SUM(A1)" and rows[0]["amount"] == "3.12"


def _client(tmp_path: Path):  # type: ignore[no-untyped-def]
    from fastapi.testclient import TestClient

    from computeatlas.catalog import load
    from computeatlas.core.settings import Settings
    from computeatlas.web.app import create_app

    return TestClient(create_app(load(), Settings(prices=tmp_path / "prices")))


def test_the_history_accepts_on_demand_spelled_either_way(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    assert _import(store, _obs(3.12), _obs(1.5).model_copy(update={"pricing": PricingKind.SPOT})).accepted == 2
    client = _client(tmp_path)
    for spelling in ("on_demand", "on-demand"):
        for path in ("/api/prices/nvidia-l4/history", "/api/prices/nvidia-l4"):
            response = client.get(path, params={"pricing": spelling})
            assert response.status_code == 200, (path, spelling, response.text)
            body = response.json()
            observations = body["observations"] if "observations" in body else body["history"]["observations"]
            assert [o["amount"] for o in observations] == [3.12], (path, spelling)
        assert client.get("/cloud/prices/nvidia-l4/history", params={"pricing": spelling}).status_code == 200
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    result = CliRunner().invoke(cli, ["prices", "history", "nvidia-l4", "--pricing", "on-demand", "--prices", str(tmp_path / "prices")])
    assert result.exit_code == 0 and [r["amount"] for r in _cells(result.stdout)] == ["3.12"], result.output


def test_a_history_window_whose_since_is_after_its_until_is_a_400_naming_both(tmp_path: Path) -> None:
    client = _client(tmp_path)
    params = {"since": "2026-12-01", "until": "2026-11-01"}
    for path in ("/api/prices/nvidia-l4/history", "/cloud/prices/nvidia-l4/history", "/api/prices/nvidia-l4"):
        response = client.get(path, params=params)
        assert response.status_code == 400, path
        assert "2026-12-01" in response.text and "2026-11-01" in response.text and "since" in response.text and "until" in response.text
    assert client.get("/api/prices/nvidia-l4/history", params={"since": "2026-11-01", "until": "2026-11-01"}).status_code == 200
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    result = CliRunner().invoke(
        cli, ["prices", "history", "nvidia-l4", "--since", "2026-12-01", "--until", "2026-11-01", "--prices", str(tmp_path / "prices")]
    )
    assert result.exit_code == 2 and "2026-12-01" in result.stderr and "2026-11-01" in result.stderr


def test_the_importer_says_what_a_path_is_when_it_is_not_a_file(tmp_path: Path) -> None:
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    runner, store = CliRunner(), str(tmp_path / "store")
    for path, words in (
        (tmp_path, "is a directory"),
        (Path("/dev/null"), "is not a regular file"),
        (tmp_path / "none.csv", "no such file"),
    ):
        result = runner.invoke(cli, ["prices", "import", "atlas", str(path), "--prices", store])
        assert result.exit_code == 2 and f"{path}: {words}" in " ".join(result.stderr.split()), (path, result.output)
    assert not (tmp_path / "store").exists()


def test_an_import_with_rejected_rows_exits_1_and_one_with_held_rows_exits_0(tmp_path: Path) -> None:
    from computeatlas.cli import app as cli
    from tests.conftest import CliRunner

    runner, store = CliRunner(), str(tmp_path / "store")
    held = tmp_path / "held.csv"
    held.write_text(HEADER + _row("0.01"), encoding="utf-8")  # below the floor: held, not an error
    result = runner.invoke(cli, ["prices", "import", "atlas", str(held), "--prices", store, "--json"])
    assert result.exit_code == 0, result.output
    rejected = tmp_path / "rejected.csv"
    rejected.write_text(HEADER + _row("3.12") + _row("9,8", region="eu"), encoding="utf-8")
    result = runner.invoke(cli, ["prices", "import", "atlas", str(rejected), "--prices", store], env={"COLUMNS": "1000"})
    assert result.exit_code == 1 and f"{rejected}: line 3: column amount" in result.stderr and "1 row(s) rejected" in result.stderr
    stored = Store(tmp_path / "store").query("SELECT amount, region FROM obs ORDER BY amount")
    assert [(r["amount"], r["region"]) for r in stored] == [(0.01, "us"), (3.12, "us")]  # the good row is imported
    assert "rejected" in runner.invoke(cli, ["prices", "import", "--help"], env={"COLUMNS": "200"}).stdout


@pytest.mark.parametrize("accelerators", ["８", "1_0", "8e0", "+8", "2.5", "0"])
def test_a_count_cell_is_ascii_digits_and_whole(tmp_path: Path, accelerators: str) -> None:
    (result,) = _read(tmp_path, _row(accelerators=accelerators))
    assert isinstance(result, TableError) and result.column == "accelerators" and result.line == 2, (accelerators, result)

"""The placed share per provider (``computeatlas prices held --summary``) over a store built
from real rows: the SkyPilot-catalog excerpt of the March 2026 snapshot."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from computeatlas.cli import app
from computeatlas.cloud import rules
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.placement import placement
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store

ROOT = Path(__file__).parent.parent
FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    store = Store(tmp_path_factory.mktemp("placement") / "prices")
    table = load_instances(ROOT / "data" / "instances", today=dt.date(2026, 12, 4))
    import_readings("opencomputeprices", [FIXTURES / "skypilot-rules-excerpt.csv"], store, table, RateTable([]), rules.Limits(), now=NOW)
    return store


def test_shares_count_the_unplaced_rule_per_provider(store: Store) -> None:
    report = placement(store, {"aws": "hyperscaler", "google-cloud": "hyperscaler", "runpod": "marketplace"})
    rows = store.query("SELECT provider, list_contains(rules, 'unplaced') AS u FROM latest")
    for p in report.providers:
        mine = [r for r in rows if r["provider"] == p.provider]
        assert p.observations == len(mine) and p.unplaced == sum(1 for r in mine if r["u"])
        assert p.share == pytest.approx(p.placed / p.observations)
        assert all(n >= 1 for _, n in p.missing) and len(p.missing) <= 3
    assert report.overall_share == pytest.approx(sum(p.placed for p in report.providers) / len(rows))
    hyper = [p for p in report.providers if p.kind == "hyperscaler"]
    assert report.hyperscaler_share == pytest.approx(sum(p.placed for p in hyper) / sum(p.observations for p in hyper))
    # every p5.48xlarge row of the excerpt is placed through data/instances/aws.csv
    assert next(p for p in report.providers if p.provider == "aws").placed >= 6


def test_the_cli_summary_is_the_report(store: Store) -> None:
    got = CliRunner().invoke(app, ["prices", "held", "--summary", "--json", "--prices", str(store.root)])
    assert got.exit_code == 0, got.output
    shown = json.loads(got.output)
    assert {p["provider"] for p in shown["providers"]} == {r["provider"] for r in store.query("SELECT DISTINCT provider FROM latest")}
    text = CliRunner().invoke(app, ["prices", "held", "--summary", "--prices", str(store.root)], env={"COLUMNS": "120"})
    assert text.exit_code == 0 and "Placed, hyperscalers (goal 95%)" in text.output


def test_a_mistyped_store_is_named_never_a_clean_empty_store(tmp_path: Path) -> None:
    for command in (["prices", "status"], ["prices", "repair"], ["prices", "held", "--summary"]):
        got = CliRunner().invoke(app, [*command, "--prices", str(tmp_path / "typo")])
        assert got.exit_code == 2 and "no price store at" in got.output and "does not exist" in got.output, (command, got.output)

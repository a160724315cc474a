"""The coverage report: one view behind ``computeatlas coverage``, /silicon/coverage and /api/coverage."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.cli import app as cli
from computeatlas.core.claims import NumberFormat
from computeatlas.silicon.coverage import coverage_view, percent
from computeatlas.web.app import create_app
from computeatlas.web.routes import all_paths
from tests.conftest import CliRunner

from .conftest import SMALL_CATALOG, TODAY, make_record, write_data

PRESS = {"title": "Launch coverage", "url": "https://press.example/x", "publisher": "Press", "kind": "press", "accessed": "2026-11-01"}


def _records() -> list[dict]:
    press_power = {"state": "published", "value": "400 W", "basis": "chip", "source": "press"}
    disputed_memory = {
        "state": "published",
        "value": "24 GB",
        "memory_type": "GDDR6",
        "basis": "chip",
        "source": "sheet",
        "primary_reason": "Datasheet.",
        "other_claims": [{"value": "24 GiB", "source": "press"}],
    }
    return [
        *SMALL_CATALOG,  # acme-a1 all published by Acme; acme-a2 power not published; globex-g1 FP8 not applicable
        make_record(
            "globex-g2",
            name="Globex G2",
            vendor="globex",
            sources={**make_record("x")["sources"], "press": PRESS},
            specs__memory=disputed_memory,
            specs__power=press_power,
            specs__compute__BF16={"state": "not_sourced", "note": "The datasheet was not available to us."},
        ),
    ]


@pytest.fixture
def cov_catalog(tmp_path: Path) -> Catalog:
    return load(write_data(tmp_path / "data", _records()), today=TODAY)


def test_the_view_counts_states_maker_sources_and_disputes(cov_catalog: Catalog) -> None:
    view = coverage_view(cov_catalog)
    assert [p.id for p in view.parts] == ["acme-a1", "acme-a2", "globex-g1", "globex-g2"]
    g2 = {c.key: c for c in view.parts[3].cells}
    assert (g2["memory"].state.value, g2["memory"].by_maker, g2["memory"].disputed) == ("published", True, True)
    assert (g2["power"].state.value, g2["power"].by_maker) == ("published", False)  # the press, not Globex
    assert g2["compute.BF16"].label == "not yet sourced"
    t = view.total
    assert (t.figures, t.published, t.by_maker, t.disputed, t.not_sourced, t.not_collected) == (28, 25, 24, 1, 1, 0)
    assert t.states["not_published"] == 1 and t.states["not_applicable"] == 1
    assert t.published_share == round(25 / 28, 4) and t.by_maker_share == 0.96
    power = next(f for f in view.fields if f.key == "power").tally
    assert (power.published, power.by_maker) == (3, 2)
    makers = {m.vendor: m for m in view.makers}
    assert (makers["acme"].parts, makers["acme"].tally.published, makers["acme"].tally.by_maker_share) == (2, 13, 1.0)
    assert (makers["globex"].tally.published, makers["globex"].tally.by_maker, percent(makers["globex"].tally.by_maker_share)) == (
        12,
        11,
        "92%",
    )


def test_the_view_is_built_once_per_catalog(cov_catalog: Catalog) -> None:
    assert coverage_view(cov_catalog) is coverage_view(cov_catalog)


def test_page_and_api_show_the_same_view(cov_catalog: Catalog) -> None:
    client = TestClient(create_app(cov_catalog))
    api = client.get("/api/coverage").json()
    assert api == json.loads(coverage_view(cov_catalog).model_dump_json())
    page = BeautifulSoup(client.get("/silicon/coverage").text, "lxml")
    assert "25 of 28 core figures across 4 accelerators are published (89%); 24 of those (96%) cite the maker" in page.select_one(
        "#coverage-totals"
    ).get_text(" ", strip=True)
    cell = page.select_one('#coverage-parts tr[data-id="globex-g2"] td[data-key="compute.BF16"]')
    assert cell["data-state"] == "not_sourced" and cell.get_text(" ", strip=True) == "not yet sourced"
    memory = page.select_one('#coverage-parts tr[data-id="globex-g2"] td[data-key="memory"]').get_text(" ", strip=True)
    assert memory == "published maker disputed"
    globex = page.select_one('#coverage-makers tr[data-vendor="globex"]').get_text(" ", strip=True)
    assert globex == "Globex 2 12 / 14 11 92% 1 1"
    assert client.get("/silicon/coverage-x").status_code == 404  # still an accelerator id


def test_linked_from_the_silicon_and_data_pages(cov_catalog: Catalog) -> None:
    client = TestClient(create_app(cov_catalog))
    silicon = BeautifulSoup(client.get("/silicon/").text, "lxml")
    assert silicon.select_one('.coverage-link a[href="/silicon/coverage"]') is not None
    data = BeautifulSoup(client.get("/data/").text, "lxml")
    totals = data.select_one("#coverage-totals")
    assert "25 of 28 core figures published; 24 of those from the maker's own documents" in totals.get_text(" ", strip=True)
    assert totals.select_one('a[href="/silicon/coverage"]') is not None


def test_the_static_build_renders_page_and_json(cov_catalog: Catalog) -> None:
    paths = all_paths(cov_catalog)
    assert "/silicon/coverage" in paths and "/api/coverage" in paths


def test_cli_coverage_tables_and_json(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", _records())
    runner = CliRunner()
    result = runner.invoke(cli, ["coverage", "--parts", "--data", str(folder)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "All core fields" in result.output and "25/28" in result.output and "96%" in result.output
    assert "Globex" in result.output and "globex-g2" in result.output and "not yet sourced" in result.output
    as_json = runner.invoke(cli, ["coverage", "--json", "--data", str(folder)])
    assert as_json.exit_code == 0 and json.loads(as_json.output)["total"]["by_maker"] == 24


def test_real_coverage_adds_up(real_catalog: Catalog) -> None:
    view = coverage_view(real_catalog)
    assert view.total.figures == 7 * len(real_catalog.accelerators)
    assert sum(m.tally.published for m in view.makers) == view.total.published
    assert sum(m.tally.by_maker for m in view.makers) == view.total.by_maker
    assert all(0 <= (m.tally.by_maker_share or 0) <= 1 for m in view.makers)


def test_real_amd_figures_all_cite_amd(real_catalog: Catalog) -> None:
    amd = next(m for m in coverage_view(real_catalog).makers if m.vendor == "amd")
    # MI8, MI25, MI50, MI60, MI100, MI210, MI250, MI250X, MI300A, MI300X, MI325X, MI350X, MI355X, MI455X,
    # Radeon PRO W7900, Radeon RX 7900 XTX, Radeon AI PRO R9700
    assert amd.parts == 17
    assert amd.tally.by_maker == amd.tally.published and amd.tally.by_maker_share == 1.0
    mi355x = real_catalog.accelerators["amd-instinct-mi355x"]
    fp8 = mi355x.compute(NumberFormat.FP8)
    assert (fp8.value, fp8.sparse, mi355x.sources[fp8.source].kind.value) == ("5 PFLOPS", "10 PFLOPS", "vendor")

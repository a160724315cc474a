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
from computeatlas.core.presentation import present
from computeatlas.core.provenance import ReadAt
from computeatlas.core.states import State
from computeatlas.silicon.coverage import CORE_FIELDS, coverage_view, percent
from computeatlas.web.app import create_app
from computeatlas.web.routes import all_paths
from tests.conftest import CliRunner

from .conftest import SMALL_CATALOG, TODAY, make_record, write_data

PRESS = {"title": "Launch coverage", "url": "https://press.example/x", "publisher": "Press", "kind": "press", "accessed": "2026-11-01"}
MIRROR = {
    "title": "Globex G2 white paper",
    "url": "https://github.com/someone/globex-papers/blob/0123abc/g2.md",
    "publisher": "Globex",
    "kind": "vendor",
    "copy_form": "conversion",
    "copy_of": "https://globex.example/g2-white-paper.pdf",
    "accessed": "2026-11-01",
}


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
            sources={**make_record("x", vendor="globex")["sources"], "press": PRESS, "mirror": MIRROR},
            specs__memory=disputed_memory,
            specs__memory_bandwidth={"state": "published", "value": "300 GB/s", "basis": "chip", "source": "mirror"},
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
    assert (g2["memory_bandwidth"].by_maker, g2["memory_bandwidth"].read_at) == (True, ReadAt.MAKER_COPY)  # Globex's paper, read off a copy
    assert g2["memory"].read_at is ReadAt.MAKER_HOSTED and g2["power"].read_at is ReadAt.ELSEWHERE
    assert g2["compute.BF16"].label == "not yet sourced" and g2["compute.BF16"].read_at is None
    t = view.total
    assert (t.figures, t.published, t.by_maker, t.disputed, t.not_sourced, t.not_collected) == (28, 25, 24, 1, 1, 0)
    assert t.states["not_published"] == 1 and t.states["not_applicable"] == 1
    assert t.published_share == round(25 / 28, 4) and t.by_maker_share == 0.96
    # 25 published: 23 on the makers' own hosts, 1 Globex paper via a copy, 1 from the press
    assert (t.maker_hosted, t.via_copy, t.elsewhere) == (23, 1, 1)
    assert (t.maker_hosted_share, t.via_copy_share, t.elsewhere_share) == (0.92, 0.04, 0.04)
    power = next(f for f in view.fields if f.key == "power").tally
    assert (power.published, power.by_maker) == (3, 2)
    bandwidth = next(f for f in view.fields if f.key == "memory_bandwidth").tally
    assert (bandwidth.published, bandwidth.maker_hosted, bandwidth.via_copy, bandwidth.elsewhere) == (4, 3, 1, 0)
    makers = {m.vendor: m for m in view.makers}
    assert (makers["acme"].parts, makers["acme"].tally.published, makers["acme"].tally.by_maker_share) == (2, 13, 1.0)
    assert (makers["acme"].tally.maker_hosted, makers["acme"].tally.maker_hosted_share) == (13, 1.0)
    # Globex: 12 published, 10 on globex.example, 1 via the copy, 1 from the press
    assert (makers["globex"].tally.maker_hosted, makers["globex"].tally.via_copy, makers["globex"].tally.elsewhere) == (10, 1, 1)
    assert percent(makers["globex"].tally.maker_hosted_share) == "83%"
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
    assert (
        "25 of 28 core figures across 4 accelerators are published (89%); of those, 23 (92%) were read on the maker's own site, "
        "1 (4%) are the maker's documents read from a third party's copy, and 1 (4%) come from other parties"
    ) in page.select_one("#coverage-totals").get_text(" ", strip=True)
    cell = page.select_one('#coverage-parts tr[data-id="globex-g2"] td[data-key="compute.BF16"]')
    assert cell["data-state"] == "not_sourced" and cell.get_text(" ", strip=True) == "not yet sourced"
    memory = page.select_one('#coverage-parts tr[data-id="globex-g2"] td[data-key="memory"]').get_text(" ", strip=True)
    assert memory == "published maker disputed"
    bandwidth = page.select_one('#coverage-parts tr[data-id="globex-g2"] td[data-key="memory_bandwidth"]').get_text(" ", strip=True)
    assert bandwidth == "published copy"
    globex = page.select_one('#coverage-makers tr[data-vendor="globex"]').get_text(" ", strip=True)
    assert globex == "Globex 2 12 / 14 10 (83%) 1 (8%) 1 (8%) 1 1"
    assert client.get("/silicon/coverage-x").status_code == 404  # still an accelerator id


def test_linked_from_the_silicon_and_data_pages(cov_catalog: Catalog) -> None:
    client = TestClient(create_app(cov_catalog))
    silicon = BeautifulSoup(client.get("/silicon/").text, "lxml")
    assert silicon.select_one('.coverage-link a[href="/silicon/coverage"]') is not None
    data = BeautifulSoup(client.get("/data/").text, "lxml")
    totals = data.select_one("#coverage-totals")
    assert (
        "25 of 28 core figures published; of those, 23 read on the maker's own site and 1 the maker's documents read from a copy"
        in totals.get_text(" ", strip=True)
    )
    assert totals.select_one('a[href="/silicon/coverage"]') is not None


def test_the_static_build_renders_page_and_json(cov_catalog: Catalog) -> None:
    paths = all_paths(cov_catalog)
    assert "/silicon/coverage" in paths and "/api/coverage" in paths


def test_cli_coverage_tables_and_json(tmp_path: Path) -> None:
    folder = write_data(tmp_path / "data", _records())
    runner = CliRunner()
    result = runner.invoke(cli, ["coverage", "--parts", "--data", str(folder)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "All core fields" in result.output and "25/28" in result.output and "23 (92%)" in result.output
    assert "Globex" in result.output and "globex-g2" in result.output and "not yet sourced" in result.output
    as_json = runner.invoke(cli, ["coverage", "--json", "--data", str(folder)])
    assert as_json.exit_code == 0 and json.loads(as_json.output)["total"]["maker_hosted"] == 23


def test_real_coverage_adds_up(real_catalog: Catalog) -> None:
    view = coverage_view(real_catalog)
    assert view.total.figures == 7 * len(real_catalog.accelerators)
    assert sum(m.tally.published for m in view.makers) == view.total.published
    assert sum(m.tally.by_maker for m in view.makers) == view.total.by_maker
    assert all(0 <= (m.tally.by_maker_share or 0) <= 1 for m in view.makers)
    for t in [view.total, *(m.tally for m in view.makers)]:
        assert t.maker_hosted + t.via_copy + t.elsewhere == t.published and t.maker_hosted + t.via_copy == t.by_maker


def test_real_maker_hosted_share_is_what_the_sources_say(real_catalog: Catalog) -> None:
    """Counted here from the records and the vendor files' hosts, independently of the view."""
    hosted = copied = published = 0
    for acc in real_catalog.accelerators.values():
        maker = real_catalog.vendors[acc.vendor]
        for key, _ in CORE_FIELDS:
            claim = acc.compute(NumberFormat(key[8:])) if key.startswith("compute.") else getattr(acc.specs, key)
            shown = present(claim)
            if shown.state not in (State.PUBLISHED, State.PUBLISHED_AS_TEXT):
                continue
            published += 1
            source = acc.sources[claim.source]
            if source.kind.value == "vendor":
                hosted += source.copy_form is None and maker.owns(source.url)
                copied += source.copy_form is not None
    total = coverage_view(real_catalog).total
    assert (total.published, total.maker_hosted, total.via_copy) == (published, hosted, copied)
    assert total.maker_hosted_share == round(hosted / published, 4)


def test_real_amd_figures_all_cite_amd(real_catalog: Catalog) -> None:
    amd = next(m for m in coverage_view(real_catalog).makers if m.vendor == "amd")
    # MI8, MI25, MI50, MI60, MI100, MI210, MI250, MI250X, MI300A, MI300X, MI325X, MI350X, MI355X, MI455X,
    # Radeon PRO W7900, Radeon PRO V620, Radeon PRO V710, Radeon RX 7900 XTX, Radeon AI PRO R9700
    assert amd.parts == 19
    assert amd.tally.by_maker == amd.tally.published and amd.tally.by_maker_share == 1.0
    # ... most of it read on AMD's own hosts (ROCm docs, AMD's MLPerf submissions), the rest still from an
    # unofficial Markdown conversion of AMD's white papers on GitHub
    assert amd.tally.maker_hosted > amd.tally.via_copy > 0
    mi355x = real_catalog.accelerators["amd-instinct-mi355x"]
    fp8 = mi355x.compute(NumberFormat.FP8)
    source = mi355x.sources[fp8.source]  # AMD's ROCm MI350 Series table: 5.0 PF | 10 PF with sparsity
    assert (fp8.value, fp8.sparse, source.kind.value) == ("5 PFLOPS", "10 PFLOPS", "vendor")
    assert real_catalog.vendors["amd"].read_at(source) is ReadAt.MAKER_HOSTED

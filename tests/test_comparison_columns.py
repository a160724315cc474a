"""A part's comparison column (``/api/compare/parts/{id}``): its own cells and the pairs it
leads, put back together, are the comparison the live page shows; the static build writes
the same JSON as the API."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from computeatlas.build import static as site
from computeatlas.catalog import Catalog
from computeatlas.cloud.cheapest_price import CheapestPrice, cheapest_prices
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.pages.compare_prices import price_rows
from computeatlas.pages.comparison import comparison_view
from computeatlas.pages.comparison_columns import TABLES, ComparisonColumn, comparison_column
from computeatlas.silicon.comparison_views import RowView
from computeatlas.silicon.curated import pair_id

PARTS = [
    "amd-instinct-mi250x",  # a package software sees as 2 GCDs
    "nvidia-h200-sxm",  # dense figures from a third party ("from Yobitel, not from NVIDIA")
    "amd-instinct-mi300x",
    "google-tpu-v7",
    "nvidia-h100-sxm",
    "nvidia-h20",  # no dense per-accelerator format at all
    "nvidia-gb200",  # a superchip
    "cerebras-wse-1",
    "graphcore-bow-ipu",
    "alibaba-zhenwu-810e",  # a link without a stated direction
]
PAIRS = [(a, b) for i, a in enumerate(sorted(PARTS)) for b in sorted(PARTS)[i + 1 :]]


@pytest.fixture(scope="module")
def cheapest(real_catalog: Catalog) -> dict[str, CheapestPrice]:
    settings = Settings.from_env()
    return dict(cheapest_prices(Store(settings.prices_dir), dt.datetime.now(dt.UTC), settings.freshness_days, real_catalog))


@pytest.fixture(scope="module")
def columns(real_catalog: Catalog, cheapest: dict[str, CheapestPrice]) -> dict[str, ComparisonColumn]:
    days = Settings.from_env().freshness_days
    return {ident: comparison_column(real_catalog, ident, cheapest, days) for ident in PARTS}


def _reassembled(first: ComparisonColumn, second: ComparisonColumn, keys: list[str], ratios: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows ``keys`` as the static site's script lays them out: each part's own cell, the
    first marked the reference, the second with the pair's ratio fields."""
    rows = []
    for key in keys:
        cells = [first.cells[key].model_dump(), second.cells[key].model_dump()]
        cells[0]["is_reference"] = True
        pair = ratios.get(key)
        if pair is not None:
            cells[1].update(pair.model_dump(exclude={"ratio_data"}))
        rows.append({**first.rows[key].model_dump(), "cells": cells})
    return rows


def _as_shown(rows: list[RowView]) -> list[dict[str, Any]]:
    return [json.loads(row.model_dump_json()) for row in rows]


@pytest.mark.parametrize(("a", "b"), PAIRS)
def test_a_pair_put_together_from_its_columns_is_the_live_comparison(
    a: str, b: str, columns: dict[str, ComparisonColumn], real_catalog: Catalog, cheapest: dict[str, CheapestPrice]
) -> None:
    if pair_id(a, b) in real_catalog.comparisons:
        assert b not in columns[a].pairs  # its page is built
        return
    view = comparison_view(real_catalog, [a, b])
    view.prices = price_rows(real_catalog, view, cheapest, Settings.from_env().freshness_days)
    pair = columns[a].pairs[b]
    assert pair.ids == view.ids == [a, b] and pair.title == view.title
    assert pair.headline.text == view.headline.text and pair.headline.number_format == view.headline.number_format
    assert b not in columns[b].pairs and a not in columns[b].pairs  # a pair is listed once, with its first part
    for table in TABLES:
        shown = getattr(view, table)
        assert getattr(pair, table) == [r.key for r in shown]
        rebuilt = _reassembled(columns[a], columns[b], getattr(pair, table), pair.ratios)
        assert json.loads(json.dumps(rebuilt, default=str)) == _as_shown(shown)


def test_the_column_keeps_states_labels_and_reasons(columns: dict[str, ComparisonColumn]) -> None:
    h200, mi250x = columns["nvidia-h200-sxm"], columns["amd-instinct-mi250x"]
    assert h200.cells["compute.BF16"].display == "989 TFLOPS (from Yobitel, not from NVIDIA)"
    pair = mi250x.pairs["nvidia-h200-sxm"]
    assert pair.ratios["power"].ratio is None
    assert pair.ratios["power"].ratio_reason == (
        "not comparable per device: per chip against per package of 2 GCDs, and no derived per-device figure"
    )
    assert pair.ratios["memory"].ratio_display == "2.2× higher than AMD Instinct MI250X per device (per chip ÷ per GCD, derived)"
    assert pair.ratios["memory"].ratio_data == "2.20312"  # 141 GB ÷ 64 GB per GCD
    # Without a shared dense format the page says so, and compute per dollar is not set side by side.
    h20 = columns["nvidia-h100-sxm"].pairs["nvidia-h20"]
    assert h20.headline.number_format is None and h20.headline.text.startswith("No headline compute comparison")
    assert columns["nvidia-h20"].cells["price.compute_per_usd"].display == "not comparable: no number format shared"


def test_curated_pairs_are_left_to_their_built_pages(columns: dict[str, ComparisonColumn], real_catalog: Catalog) -> None:
    assert "amd-instinct-mi300x-vs-nvidia-h100-sxm" in real_catalog.comparisons
    assert "nvidia-h100-sxm" not in columns["amd-instinct-mi300x"].pairs
    assert "google-tpu-v7" in columns["amd-instinct-mi300x"].pairs


def test_an_unknown_id_is_a_404_naming_it(real_client: TestClient) -> None:
    answer = real_client.get("/api/compare/parts/nvidia-h100")
    assert answer.status_code == 404 and "No accelerator has the id 'nvidia-h100'" in answer.text
    assert real_client.get("/api/compare/parts/H100").status_code == 404  # an alias is not an id here


def test_the_static_build_writes_the_api_json(real_catalog: Catalog, real_client: TestClient, tmp_path: Path) -> None:
    paths = ["/api/compare/parts/nvidia-h20", "/api/compare/parts/amd-instinct-mi300x"]
    result = site.build(real_catalog, tmp_path / "out", site_url="https://atlas.example.org", paths=paths)
    for path in paths:
        written = json.loads((tmp_path / "out" / result.files[path]).read_text(encoding="utf-8"))
        assert result.files[path] == path.lstrip("/") + ".json"
        assert written == real_client.get(path).json()
    # The 404 page lists the columns built, for its script.
    page = (tmp_path / "out" / "404.html").read_text(encoding="utf-8")
    assert '"nvidia-h20": "/api/compare/parts/nvidia-h20.json"' in page and "static/compare.js" in page

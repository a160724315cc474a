"""Charts: which parts are plotted (only published per-accelerator figures), the reasons for the
rest, the SVG's title and text alternative, caching per data version, and the pages."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.charts import chart as charts
from computeatlas.charts import labels
from computeatlas.charts import svg as svg_mod
from computeatlas.charts.links import ChartLinks
from computeatlas.core.cache import Cache, Stats, use
from computeatlas.core.claims import NumberFormat
from computeatlas.core.settings import Settings
from computeatlas.web.app import create_app
from computeatlas.web.charts import compute_chart, memory_chart, price_chart, rack_chart
from tests.conftest import SMALL_CATALOG, TODAY, make_record, write_data
from tests.test_pricing import O

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture
def chart_catalog(tmp_path: Path) -> Catalog:
    """The small catalog plus a superchip whose memory is stated per superchip only."""
    superchip = make_record(
        "globex-s1",
        name="Globex S1",
        vendor="globex",
        form_factor="superchip",
        specs__memory={"state": "not_comparable", "published_text": "Up to 384 GB per superchip", "basis": "superchip", "source": "sheet"},
        specs__power={"state": "not_comparable", "published_text": "1200 W per superchip", "basis": "superchip", "source": "sheet"},
    )
    return load(write_data(tmp_path / "data", [*SMALL_CATALOG, superchip]), today=TODAY)


def test_memory_chart_plots_published_figures_in_display_units(catalog: Catalog) -> None:
    view = memory_chart(catalog)
    points = {p.id: (p.x, p.y, p.x_text, p.y_text) for p in view.points}
    # 80 GB / 3.35 TB/s, 144 GB / 4.9 TB/s, 24 GB / 300 GB/s = 0.3 TB/s (records in conftest)
    assert points["acme-a1"] == pytest.approx((80.0, 3.35, "80 GB", "3.35 TB/s"))
    assert points["acme-a2"] == pytest.approx((144.0, 4.9, "144 GB", "4.9 TB/s"))
    assert points["globex-g1"][:2] == pytest.approx((24.0, 0.3))
    assert view.excluded == []
    assert view.data_version == catalog.version
    assert "3 accelerators" in view.description and "highest Acme A2 (144 GB)" in view.description


def test_a_chart_links_what_its_caller_gives(chart_catalog: Catalog) -> None:
    links = ChartLinks(page="/p", svg="/p.svg", api="/api/p", item=lambda ident: f"/part/{ident}")
    view = charts.memory_bandwidth(chart_catalog, links=links)
    assert (view.page_url, view.svg_url, view.api_url) == ("/p", "/p.svg", "/api/p")
    assert {p.id: p.url for p in view.points}["acme-a1"] == "/part/acme-a1"
    assert [(e.id, e.url) for e in view.excluded] == [("globex-s1", "/part/globex-s1")]
    # the site's own links, from the web layer
    site = memory_chart(chart_catalog)
    assert (site.page_url, site.svg_url, site.api_url) == (
        "/charts/memory-bandwidth",
        "/charts/memory-bandwidth.svg",
        "/api/charts/memory-bandwidth",
    )
    assert {p.id: p.url for p in site.points}["acme-a1"] == "/silicon/acme-a1"


def test_not_comparable_memory_is_listed_not_plotted(chart_catalog: Catalog) -> None:
    view = memory_chart(chart_catalog)
    assert "globex-s1" not in {p.id for p in view.points}
    (left_out,) = view.excluded
    assert left_out.id == "globex-s1"
    assert left_out.reason == "memory: not comparable (stated per superchip)"


def test_compute_chart_never_substitutes_another_format(catalog: Catalog) -> None:
    fp8 = compute_chart(catalog, NumberFormat.FP8)
    assert [(p.id, p.x, p.y) for p in fp8.points] == [("acme-a1", 700.0, pytest.approx(1979.0))]
    reasons = {e.id: e.reason for e in fp8.excluded}
    # Acme A2 withholds power; Globex G1 has no FP8 units (its BF16 figure must not stand in).
    assert reasons == {"acme-a2": "power: not published", "globex-g1": "FP8 compute: not applicable"}


def test_power_per_superchip_is_not_a_per_accelerator_figure(chart_catalog: Catalog) -> None:
    bf16 = compute_chart(chart_catalog, NumberFormat.BF16)
    reasons = {e.id: e.reason for e in bf16.excluded}
    assert reasons["globex-s1"] == "power: not comparable (stated per superchip)"
    assert {p.id for p in bf16.points} == {"acme-a1", "globex-g1"}


def test_compute_formats_need_two_parts_with_both_figures(catalog: Catalog) -> None:
    # FP8 and power: only Acme A1. BF16 and power: Acme A1 (700 W) and Globex G1 (72 W).
    assert charts.compute_formats(catalog) == [NumberFormat.BF16]


def test_svg_has_title_desc_and_one_mark_per_part(catalog: Catalog) -> None:
    view = memory_chart(catalog)
    root = ET.fromstring(svg_mod.svg(view))
    assert root.tag == SVG + "svg" and root.get("role") == "img"
    title, desc = root[0], root[1]
    assert (title.tag, desc.tag) == (SVG + "title", SVG + "desc")
    assert title.text == "Memory capacity against memory bandwidth, per accelerator"
    assert desc.text == view.description
    assert root.get("aria-labelledby") == f"{title.get('id')} {desc.get('id')}"
    symbols = [g for g in root.iter(SVG + "g") if "mark-symbol" in (g.get("class") or "")]
    assert sum(len(list(g.iter(SVG + "path"))) for g in symbols) == 3
    texts = {t.text for t in root.iter(SVG + "text")}
    # Vendor "Globex" prefixes "Globex G1", so its label is "G1"; "Acme Silicon" is not a prefix of "Acme A1".
    assert {"Acme A1", "Acme A2", "G1"} <= texts
    assert "style=" not in svg_mod.svg(view)  # the CSP forbids inline styles


def test_svg_is_rendered_once_per_data_version(catalog: Catalog, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    real = svg_mod._render

    def counting(view: charts.ChartView) -> str:
        calls.append(view.data_version)
        return real(view)

    monkeypatch.setattr(svg_mod, "_render", counting)
    view = compute_chart(catalog, NumberFormat.BF16).model_copy(update={"data_version": "test-v1"})
    with use(Cache(64 * 1024 * 1024)) as cache:
        first = svg_mod.svg(view)
        assert svg_mod.svg(view) is first
        second = svg_mod.svg(view.model_copy(update={"data_version": "test-v2"}))
        assert calls == ["test-v1", "test-v2"]
        assert cache.stats(svg_mod.CHARTS) == Stats(entries=2, bytes=len(first) + len(second), hits=1, misses=2)
    assert svg_mod.svg(view) == first and calls == ["test-v1", "test-v2", "test-v1"]  # no cache active: rendered again


def test_label_text_drops_parentheticals() -> None:
    assert labels.label_text("Gaudi 3 (HL-325L OAM)") == "Gaudi 3"
    assert labels.label_text("B200") == "B200"


def test_short_name_drops_the_vendor(real_catalog: Catalog) -> None:
    assert charts.short_name(real_catalog, real_catalog.accelerators["nvidia-b200"]) == "B200"


def test_silicon_page_embeds_both_charts_with_text_alternatives(client: TestClient) -> None:
    soup = BeautifulSoup(client.get("/silicon/").text, "lxml")
    section = soup.find(id="charts")
    images = [img["src"] for img in section.find_all("img")]
    # FP8 has one plottable part in the small catalog, so the compute chart falls back to BF16.
    assert images == ["/charts/memory-bandwidth.svg", "/charts/compute-power/BF16.svg"]
    assert all(img["alt"] for img in section.find_all("img"))
    compute = section.find(id="chart-compute-power-BF16")
    excluded = [li.get_text(" ", strip=True) for li in compute.select(".chart-excluded li")]
    assert excluded == ["Acme A2 — power: not published"]
    rows = [[c.get_text(strip=True) for c in tr.find_all(["th", "td"])] for tr in compute.select("table tbody tr")]
    assert rows == [["Acme A1", "700 W", "989.5 TFLOPS"], ["Globex G1", "72 W", "989.5 TFLOPS"]]


def test_chart_routes(client: TestClient) -> None:
    svg = client.get("/charts/compute-power/BF16.svg")
    assert svg.status_code == 200 and svg.headers["content-type"] == "image/svg+xml"
    page = BeautifulSoup(client.get("/charts/compute-power/bf16").text, "lxml")
    assert page.h1.get_text() == "Dense BF16 compute against power, per accelerator"
    data = client.get("/api/charts/memory-bandwidth").json()
    assert [p["id"] for p in data["points"]] == ["acme-a1", "acme-a2", "globex-g1"]
    assert "/api/charts/compute-power/{fmt}" in client.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize("path", ["/charts/compute-power/FP8", "/charts/compute-power/FP99.svg", "/api/charts/compute-power/nope"])
def test_chart_without_data_is_a_clear_404(client: TestClient, path: str) -> None:
    response = client.get(path)
    assert response.status_code == 404
    text = response.text
    assert "fewer than two parts publish both it and power" in text and "BF16" in text


def test_real_fp8_chart(real_client: TestClient, real_catalog: Catalog) -> None:
    view = compute_chart(real_catalog, NumberFormat.FP8)
    points = {p.id: (p.x, p.y) for p in view.points}
    # NVIDIA H100 SXM: 700 W, 1979 TFLOPS dense FP8 (its record); Trainium 3's power is not published.
    assert points["nvidia-h100-sxm"] == pytest.approx((700.0, 1979.0))
    assert {e.id: e.reason for e in view.excluded}["aws-trainium-3"] == "power: not published"
    assert real_client.get("/charts/compute-power/FP8.svg").status_code == 200


def test_app_fixture_is_independent_of_chart_cache(catalog: Catalog, make_client) -> None:  # type: ignore[no-untyped-def]
    # Two apps over the same catalog serve the same picture.
    a = make_client(catalog).get("/charts/memory-bandwidth.svg").content
    b = make_client(catalog).get("/charts/memory-bandwidth.svg").content
    assert a == b and a.startswith(b"<svg")


# --- cloud and energy charts -----------------------------------------------------------


@pytest.fixture
def cloud_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Catalog:
    """The pricing tests' providers and ten offers (tests/test_pricing.py) imported into
    ``tmp_path/data/prices``, read at 2026-11-30 12:00 UTC."""
    from computeatlas.cloud import history
    from tests.test_pricing import NOW, priced_cloud

    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    return priced_cloud(tmp_path / "data")[0]


def test_price_chart_marks_the_spread_ends(cloud_catalog: Catalog, tmp_path: Path) -> None:
    from computeatlas.cloud.store import Store
    from tests.test_pricing import NOW, listed

    offers = list(listed(cloud_catalog, Store(tmp_path / "data" / "prices")).values())
    view = price_chart(cloud_catalog, cloud_catalog.accelerators["acme-a1"], offers, NOW.date(), 90)
    marks = {p.id: (p.category, p.x, p.marker) for p in view.points}
    # Cheapest counted offer: Gamma's 4.00 USD per accelerator-hour; dearest: Alpha's 98.32 ÷ 8 = 12.29.
    assert marks[O[4]] == ("Gamma Market", 4.0, "cheapest end of the spread")
    assert marks[O[2]] == ("Alpha GPU", pytest.approx(12.29), "dearest end of the spread")
    # Real prices that the spread does not count are plotted, marked as such: stale, another variant, spot, reserved.
    for ident, price in ((O[3], 9.5), (O[5], 1.5), (O[6], 2.0), (O[7], 2.5), (O[11], 8.0)):
        assert marks[ident][1:] == (pytest.approx(price), "not in the spread")
    # A EUR price is listed, never plotted (nor converted); the bundle never became a price at all.
    assert {e.id for e in view.excluded} == {O[8]} and O[9] not in marks
    assert O[10] not in marks  # an Acme A2 offer
    assert [p.label for p in view.points if p.label] == [
        "cheapest: " + pricing_display(view, O[4]),
        "dearest: " + pricing_display(view, O[2]),
    ]
    assert view.markers == ["cheapest end of the spread", "dearest end of the spread", "not in the spread"]  # two offers count: both ends


def pricing_display(view: charts.ChartView, ident: str) -> str:
    return next(p.x_text for p in view.points if p.id == ident)


def test_price_chart_svg_and_page(cloud_catalog: Catalog, tmp_path: Path) -> None:
    client = TestClient(create_app(cloud_catalog, Settings(data=tmp_path / "data")))
    root = ET.fromstring(client.get("/charts/prices/acme-a1.svg").content)
    assert root[0].text == "Acme A1: price per accelerator-hour by provider (USD)"
    assert "cheapest" in root[1].text or "spread" in root[1].text
    page = BeautifulSoup(client.get("/charts/prices/acme-a1").text, "lxml")
    left_out = [li.get_text(" ", strip=True) for li in page.select(".chart-excluded li")]
    assert len(left_out) == 1 and "EUR" in left_out[0]  # the current offers: the EUR one is left out
    # A part with no priced offer has no price chart: a clear 404.
    assert client.get("/charts/prices/globex-g1.svg").status_code == 404


def test_rack_power_chart_from_the_bundled_data(real_catalog: Catalog) -> None:
    view = rack_chart(real_catalog)
    marks = {p.id: (p.x, p.marker, p.label) for p in view.points}
    # NVIDIA publishes 10.2 kW for a DGX H100 node; GB200 NVL72's 120 kW is reported by The Register, not NVIDIA.
    assert marks["nvidia-dgx-h100"] == (pytest.approx(10.2), "published by the vendor", "10.2 kW per node (NVIDIA, vendor)")
    reported = {k: v for k, v in marks.items() if k.startswith("nvidia-gb200-nvl72-")}
    assert list(reported.values()) == [(pytest.approx(120.0), "reported by another party", "120 kW (The Register, independent)")]
    assert view.reference is not None and view.reference.x == pytest.approx(16.0)
    assert view.reference.label == "average rack: 16 kW (AFCOM, 2025)"
    excluded = {e.id: e.reason for e in view.excluded}
    assert excluded["aws-trn3-ultraserver"] == "power: not published; no other party's figure recorded"
    svg = ET.fromstring(svg_mod.svg(view))
    assert svg[0].tag == SVG + "title" and svg[1].tag == SVG + "desc"


def test_labels_do_not_overlap_and_every_mark_has_one() -> None:
    points = [(10.0, 10.0, "Alpha"), (10.5, 10.2, "Beta"), (11.0, 9.8, "Gamma"), (200.0, 50.0, "Far"), (10.0, 10.0, "Twin")]
    placed = labels.place(points, (1.0, 1000.0), (1.0, 100.0), log=True)
    assert sorted(r["text"] for r in placed) == ["Alpha / Twin", "Beta", "Far", "Gamma"]  # coincident marks share a label
    boxes = []
    for r in placed:
        x = (math.log10(r["lx"]) - 0) / 3 * labels.WIDTH
        y = labels.HEIGHT - (math.log10(r["ly"]) - 0) / 2 * labels.HEIGHT
        boxes.append((x, y - labels.LABEL_HEIGHT / 2, x + len(r["text"]) * labels.CHAR_WIDTH, y + labels.LABEL_HEIGHT / 2))
    assert all(labels.overlap(a, b) < 1 for i, a in enumerate(boxes) for b in boxes[i + 1 :])

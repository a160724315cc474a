"""Comparisons: aligned rows, honest headline compute, ratios only between comparable figures,
curated pairs, every bad input as a clear 4xx (web) or exit 2 (CLI)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog, load
from computeatlas.cli import app
from computeatlas.core.claims import NumberFormat
from computeatlas.pages.comparison import comparison_view
from computeatlas.silicon import comparison as compare
from computeatlas.silicon import comparison_parts, comparison_views
from computeatlas.web import compare as web_compare
from tests.comparedata import compare_app, compare_catalog, compare_client, compare_data  # noqa: F401  (fixtures)
from tests.conftest import CliRunner, make_record, write_data

runner = CliRunner()


def soup(response) -> BeautifulSoup:
    assert response.headers["content-type"].startswith("text/html")
    return BeautifulSoup(response.text, "lxml")


def row(view: comparison_views.ComparisonTable, key: str) -> comparison_views.RowView:
    return next(r for r in [*view.rows, *view.derived] if r.key == key)


def cells(view: comparison_views.ComparisonTable, key: str) -> dict[str, comparison_views.CellView]:
    return {c.id: c for c in row(view, key).cells}


# --- the library -----------------------------------------------------------------------


def test_same_compute_and_bandwidth_ratio(compare_catalog: Catalog) -> None:
    view = compare.build(compare_catalog, ["acme-a1", "acme-a2"])
    assert view.ids == ["acme-a2", "acme-a1"]  # the curated record's order
    assert view.headline.number_format is NumberFormat.FP8
    fp8 = cells(view, "compute.FP8")
    assert fp8["acme-a2"].is_reference and fp8["acme-a1"].ratio == pytest.approx(1.0)
    bandwidth = cells(view, "memory_bandwidth")
    assert bandwidth["acme-a1"].ratio == pytest.approx(3.35 / 4.9)  # 0.684: shown the other way round
    assert bandwidth["acme-a1"].ratio_display == "1.46× lower than Acme A2"  # 4.9 / 3.35 = 1.4627
    assert bandwidth["acme-a2"].amount == 4.9e12 and bandwidth["acme-a2"].basis == "chip"


def test_power_not_published_gives_no_ratio_and_no_per_watt(compare_catalog: Catalog) -> None:
    view = compare.build(compare_catalog, ["acme-a1", "acme-a2"])
    power = cells(view, "power")
    assert power["acme-a2"].state == "not_published" and power["acme-a2"].display == "not published"
    assert power["acme-a1"].ratio is None and power["acme-a2"].ratio is None
    per_watt = cells(view, "compute_per_watt.FP8")
    assert per_watt["acme-a2"].state == "not_published" and per_watt["acme-a2"].amount is None
    assert per_watt["acme-a1"].amount == pytest.approx(1979e12 / 700)  # 2.827 TFLOP/s per W
    assert per_watt["acme-a1"].ratio is None  # the reference (A2) has no figure


def test_no_shared_dense_format_is_said_not_faked(compare_catalog: Catalog) -> None:
    view = compare.build(compare_catalog, ["acme-a1", "initech-i1"])
    assert view.headline.number_format is None and view.headline.row is None
    assert "share no number format" in view.headline.text
    assert "Initech I1: none" in view.headline.text
    assert [(g.a, g.b) for g in view.gaps] == [("acme-a1", "initech-i1")]
    fp8 = cells(view, "compute.FP8")
    assert fp8["initech-i1"].state == "not_comparable" and fp8["initech-i1"].ratio is None
    assert fp8["initech-i1"].published_text == "up to 4 PFLOPS of FP8"
    assert cells(view, "compute.BF16")["initech-i1"].ratio is None


def test_headline_uses_the_lowest_format_all_publish(compare_catalog: Catalog) -> None:
    view = compare.build(compare_catalog, ["acme-a1", "globex-g1"])  # G1 has no FP8
    assert view.headline.number_format is NumberFormat.BF16
    assert cells(view, "compute.FP8")["globex-g1"].state == "not_applicable"
    assert cells(view, "compute.FP8")["globex-g1"].ratio is None
    assert cells(view, "compute.BF16")["globex-g1"].ratio == pytest.approx(1.0)


def test_three_parts_list_pairs_without_a_shared_format(compare_catalog: Catalog) -> None:
    view = comparison_view(compare_catalog, ["globex-g1", "acme-a1", "initech-i1"])
    assert view.ids == ["globex-g1", "acme-a1", "initech-i1"]  # order kept for 3+
    assert view.headline.number_format is None
    assert {(g.a, g.b) for g in view.gaps} == {("globex-g1", "initech-i1"), ("acme-a1", "initech-i1")}
    assert view.url == "/compare/?ids=globex-g1,acme-a1,initech-i1"


@pytest.mark.parametrize(
    ("names", "status", "words"),
    [
        ([], 400, "No accelerators given"),
        (["acme-a1"], 400, "Only one accelerator given"),
        (["acme-a1", "acme-a1"], 400, "The same accelerator twice"),
        (["A1", "acme-a1"], 400, "'A1' and 'acme-a1' are both acme-a1"),
        (
            ["acme-a1", "acme-a2", "globex-g1", "initech-i1", "hooli-h1", "acme-a1", "acme-a2"],
            400,
            "7 accelerators given: a comparison takes at most 6",
        ),
        (["acme-a1", "acme-a9"], 404, "No accelerator with id 'acme-a9'"),
        (["acme", "globex-g1"], 400, "could mean several accelerators"),
    ],
)
def test_bad_input_is_a_compare_error(compare_catalog: Catalog, names: list[str], status: int, words: str) -> None:
    with pytest.raises(comparison_parts.CompareError) as exc:
        compare.build(compare_catalog, names)
    assert exc.value.status == status and words in exc.value.message


def test_real_h100_vs_h200(real_catalog: Catalog) -> None:
    view = compare.build(real_catalog, ["H100 SXM", "H200 SXM"])
    assert view.ids == ["nvidia-h100-sxm", "nvidia-h200-sxm"]
    assert cells(view, "memory_bandwidth")["nvidia-h200-sxm"].ratio == pytest.approx(4.8 / 3.35)  # 1.4328
    assert cells(view, "memory_bandwidth")["nvidia-h200-sxm"].ratio_display == "1.43× higher than NVIDIA H100 SXM5 80GB"
    assert cells(view, "memory")["nvidia-h200-sxm"].ratio == pytest.approx(141 / 80)  # 1.76×
    assert cells(view, "power")["nvidia-h200-sxm"].ratio == pytest.approx(1.0)  # 700 W both
    # NVIDIA prints H200 compute only with sparsity; the dense figures are independent sources', labelled:
    # Yobitel: "989 TFLOPS BF16 dense"; itkb.uw.cz (values "in dense mode"): "FP8 (dense) ~1,979 TFLOPS".
    assert view.headline.number_format is NumberFormat.FP8
    assert view.headline.text.endswith("NVIDIA H200 SXM 141GB's figure is from itkb.uw.cz, not from NVIDIA.")
    fp8, bf16 = cells(view, "compute.FP8")["nvidia-h200-sxm"], cells(view, "compute.BF16")["nvidia-h200-sxm"]
    assert fp8.state == "published" and fp8.amount == pytest.approx(1979e12)
    assert fp8.display == "1,979 TFLOPS (from itkb.uw.cz, not from NVIDIA)"
    assert fp8.ratio == pytest.approx(1.0)  # H100 SXM: 1,979 TFLOPS dense FP8 (NVIDIA's datasheet, halved by its footnote)
    assert bf16.display == "989 TFLOPS (from Yobitel, not from NVIDIA)" and bf16.attribution == "from Yobitel, not from NVIDIA"
    assert not fp8.dispute_to_weigh  # no NVIDIA document gives another dense figure
    assert cells(view, "ridge_point.FP8")["nvidia-h200-sxm"].amount == pytest.approx(1979e12 / 4.8e12)  # 412 FLOP per byte
    assert view.curated is not None and view.curated.title == "NVIDIA H100 SXM5 80GB vs NVIDIA H200 SXM 141GB"


def test_real_headline_prefers_floating_point_over_int8(real_catalog: Catalog) -> None:
    view = compare.build(real_catalog, ["nvidia-h100-sxm", "nvidia-h100-pcie"])  # both publish INT8 and FP8
    assert view.headline.number_format is NumberFormat.FP8
    assert cells(view, "compute.FP8")["nvidia-h100-sxm"].ratio == pytest.approx(1979 / 1513)


def test_real_power_not_published_on_one_side(real_catalog: Catalog) -> None:
    view = compare.build(real_catalog, ["Trn3", "B200"])
    assert view.ids == ["aws-trainium-3", "nvidia-b200"]
    per_watt = cells(view, "compute_per_watt.FP8")
    assert per_watt["aws-trainium-3"].display == "not published"
    assert per_watt["nvidia-b200"].amount == pytest.approx(4.5e15 / 1000)  # 4.5 TFLOP/s per W
    assert per_watt["nvidia-b200"].ratio is None
    assert cells(view, "power")["nvidia-b200"].ratio is None
    assert cells(view, "compute.FP8")["nvidia-b200"].ratio == pytest.approx(4500 / 2517)


def test_a_per_package_figure_against_a_per_chip_one_says_so(real_catalog: Catalog) -> None:
    view = compare.build(real_catalog, ["amd-instinct-mi250x", "nvidia-a100-sxm-80gb"])
    memory = cells(view, "memory")
    mi250x, a100 = memory["amd-instinct-mi250x"], memory["nvidia-a100-sxm-80gb"]
    assert mi250x.basis_label == "package of 2 GCDs" and a100.basis_label == "chip"
    assert mi250x.per_device == "64 GB per GCD (derived)"  # AMD: 128 GB is "64GB per GCD x 2"
    # never a bare ratio of 128 GB per package to 80 GB per chip: per device on both sides, 80 GB ÷ 64 GB per GCD
    assert a100.ratio == pytest.approx(80 / 64)
    assert a100.ratio_display == "1.25× higher than AMD Instinct MI250X per device (per chip ÷ per GCD, derived)"
    assert cells(view, "memory_bandwidth")["amd-instinct-mi250x"].per_device == "1.6 TB/s per GCD (derived)"
    assert cells(view, "memory_bandwidth")["nvidia-a100-sxm-80gb"].ratio == pytest.approx(2.039e12 / 1.6e12)  # A100 80GB: 2,039 GB/s
    power = cells(view, "power")["nvidia-a100-sxm-80gb"]  # 560 W per package has no per-device figure: no ratio
    assert power.ratio is None and power.ratio_reason is not None and power.ratio_reason.startswith("not comparable per device")
    # two per-chip parts: the bare ratio, no words
    same = compare.build(real_catalog, ["nvidia-h100-sxm", "nvidia-a100-sxm-80gb"])
    assert cells(same, "memory")["nvidia-h100-sxm"].ratio_display == "same"  # 80 GB against 80 GB, the A100 first: no basis words


def test_compare_page_shows_the_basis_words_and_the_per_device_figure(real_client) -> None:
    page = soup(real_client.get("/compare/?ids=amd-instinct-mi250x,nvidia-a100-sxm-80gb"))
    mi250x = page.select_one('#compare-table tr[data-key="memory"] td[data-id="amd-instinct-mi250x"]')
    assert "per package of 2 GCDs" in mi250x.select_one(".basis").get_text()
    assert mi250x.select_one(".per-device").get_text() == "= 64 GB per GCD (derived)"
    a100 = page.select_one('#compare-table tr[data-key="memory"] td[data-id="nvidia-a100-sxm-80gb"]')
    assert a100.select_one(".ratio").get_text() == "1.25× higher than AMD Instinct MI250X per device (per chip ÷ per GCD, derived)"


def test_interconnect_gets_no_ratio(real_catalog: Catalog) -> None:
    view = compare.build(real_catalog, ["nvidia-b200", "nvidia-h200-sxm"])
    assert all(c.ratio is None for c in row(view, "interconnect").cells)


# --- the curated records ---------------------------------------------------------------

CURATED = [
    ("google-tpu-v7", "aws-trainium-3"),
    ("aws-trainium-3", "amd-instinct-mi355x"),
    ("aws-trainium-2", "aws-trainium-3"),
    ("aws-inferentia-2", "aws-trainium-3"),
    ("nvidia-h100-sxm", "nvidia-h200-sxm"),
    ("nvidia-h200-sxm", "nvidia-b200"),
    ("nvidia-b200", "amd-instinct-mi355x"),
    ("nvidia-h100-sxm", "amd-instinct-mi300x"),
    ("amd-instinct-mi300x", "amd-instinct-mi325x"),
    ("google-tpu-v6e", "google-tpu-v7"),
    ("intel-gaudi-3", "nvidia-h100-sxm"),
    ("nvidia-b200", "nvidia-b300"),
    ("aws-trainium-2", "nvidia-h100-sxm"),
    ("nvidia-l40s", "nvidia-l4"),
]


def test_the_fourteen_curated_pairs_exist(real_catalog: Catalog) -> None:
    from computeatlas.silicon.curated import pair_id

    assert {pair_id(a, b) for a, b in CURATED} <= set(real_catalog.comparisons)
    for a, b in CURATED:
        record = real_catalog.comparisons[pair_id(a, b)]
        assert record.parts == [a, b]
        assert "\n" not in record.framing
        sentences = re.findall(r"[.!?](?:\s|$)", record.verdict.strip())
        assert 2 <= len(sentences) <= 4, record.id


# --- the web -----------------------------------------------------------------------------


def test_pair_page_rows_ratios_and_sources(compare_client: TestClient) -> None:
    response = compare_client.get("/compare/acme-a1-vs-acme-a2")
    assert response.status_code == 200
    page = soup(response)
    assert page.select_one("h1").get_text() == "Acme A2 vs Acme A1"
    bandwidth = page.select_one('#compare-table tr[data-key="memory_bandwidth"] td[data-id="acme-a1"]')
    assert bandwidth.select_one(".ratio").get_text() == "1.46× lower than Acme A2"  # 4.9 / 3.35
    assert "3.35 TB/s" in bandwidth.get_text(" ") and "per chip" in bandwidth.get_text(" ")
    assert "(vendor)" in bandwidth.select_one(".cite").get_text()  # Acme sells the part it rates
    power = page.select_one('#compare-table tr[data-key="power"] td[data-id="acme-a2"]')
    assert power["data-state"] == "not_published" and power.select_one(".ratio") is None
    assert power.get_text(" ", strip=True).startswith("not published")
    derived = page.select_one('#derived-table tr[data-key="compute_per_watt.FP8"]')
    assert "compute per watt = FP8 dense compute ÷ power" in derived.select_one("th").get_text(" ")
    assert "1,979 TFLOPS ÷ 700 W = 2.83 TFLOP/s per W" in derived.select_one('td[data-id="acme-a1"]').get_text(" ")
    assert "Derived from published figures" in page.select_one("#derived").get_text()


def test_curated_words_come_before_the_rows(compare_client: TestClient) -> None:
    page = soup(compare_client.get("/compare/acme-a1-vs-acme-a2"))
    sections = [s["id"] for s in page.select("article section")]
    assert sections.index("verdict") < sections.index("specifications")
    assert page.select_one("#verdict .framing").get_text() == "Acme's newer part against its first one."
    assert "Review Weekly" in page.select_one("#verdict").get_text()


def test_no_shared_format_page_says_so(compare_client: TestClient) -> None:
    page = soup(compare_client.get("/compare/acme-a1-vs-initech-i1"))
    assert "share no number format" in page.select_one("#headline").get_text()
    assert page.select("#headline .headline-figures") == []
    assert page.select('#compare-table tr[data-key="compute.FP8"] .ratio') == []


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/compare/acme-a2-vs-acme-a1", "/compare/acme-a1-vs-acme-a2"),
        ("/compare/A2-vs-A1", "/compare/acme-a1-vs-acme-a2"),
        ("/compare/g1-vs-acme-a1", "/compare/acme-a1-vs-globex-g1"),
        ("/compare", "/compare/"),
    ],
)
def test_other_order_and_aliases_redirect_301(compare_client: TestClient, path: str, location: str) -> None:
    response = compare_client.get(path)
    assert response.status_code == 301 and response.headers["location"] == location


def test_ids_query(compare_client: TestClient) -> None:
    two = compare_client.get("/compare/?ids=acme-a2,acme-a1")
    assert two.status_code == 302 and two.headers["location"] == "/compare/acme-a1-vs-acme-a2"
    alias = compare_client.get("/compare/?ids=G1,acme-a1,I1")
    assert alias.status_code == 302 and alias.headers["location"] == "/compare/?ids=globex-g1,acme-a1,initech-i1"
    form = compare_client.get("/compare/?ids=globex-g1&ids=acme-a1&ids=initech-i1&ids=&ids=")
    assert form.status_code == 200  # the form's empty slots are ignored
    page = soup(form)
    assert [th["data-id"] for th in page.select("#compare-table thead th[data-id]")] == ["globex-g1", "acme-a1", "initech-i1"]
    assert len(page.select("#headline .gaps li")) == 2


@pytest.mark.parametrize(
    ("path", "status", "words"),
    [
        ("/compare/acme-a1-vs-acme-a1", 400, "The same accelerator twice"),
        ("/compare/?ids=acme-a1,acme-a1,globex-g1", 400, "The same accelerator twice"),
        ("/compare/?ids=a,b,c,d,e,f,g", 400, "7 accelerators given: a comparison takes at most 6"),
        ("/compare/?ids=", 400, "No accelerators given"),
        ("/compare/?ids=,,", 400, "No accelerators given"),
        ("/compare/?ids=acme-a1", 400, "Only one accelerator given"),
        ("/compare/acme-a1-vs-acme-a9", 404, "No accelerator with id 'acme-a9'"),
        ("/compare/?ids=acme-a1,nope,globex-g1", 404, "No accelerator with id 'nope'"),
        ("/compare/acme-vs-globex-g1", 400, "could mean several accelerators"),
        ("/compare/acme-a1", 404, "a comparison URL reads /compare/{a}-vs-{b}"),
        ("/compare/?ids=" + "x" * 2001, 400, "longer than 2000 characters"),
        ("/compare/?ids=acme-a1," + "y" * 300, 400, "longer than 200 characters"),
    ],
)
def test_bad_input_is_a_clear_4xx_page(compare_client: TestClient, path: str, status: int, words: str) -> None:
    response = compare_client.get(path)
    assert response.status_code == status
    assert words in soup(response).get_text(" ")


def test_unknown_parameters_are_ignored(compare_client: TestClient) -> None:
    page = compare_client.get("/compare/?ids=acme-a1,acme-a2&colour=red", follow_redirects=False)
    assert page.status_code == 302 and page.headers["location"] == "/compare/acme-a1-vs-acme-a2"
    api = compare_client.get("/api/compare?ids=acme-a1,acme-a2&sort=x&utm_source=feed")
    assert api.status_code == 200 and api.json()["ids"] == ["acme-a2", "acme-a1"]
    assert compare_client.get("/search?q=&utm_source=feed").status_code == 200


def test_unknown_id_page_links_the_closest(compare_client: TestClient) -> None:
    page = soup(compare_client.get("/compare/acme-a1-vs-acme-a9"))
    assert {"/silicon/acme-a1", "/silicon/acme-a2"} <= {a["href"] for a in page.select(".suggestions a")}


def test_ambiguous_name_lists_candidates(compare_client: TestClient) -> None:
    page = soup(compare_client.get("/compare/?ids=acme,globex-g1"))
    assert [a["href"] for a in page.select(".suggestions a")] == ["/silicon/acme-a1", "/silicon/acme-a2"]


def test_hostile_input_is_escaped(compare_client: TestClient) -> None:
    response = compare_client.get("/compare/?ids=<script>alert(1)</script>,acme-a1")
    assert response.status_code == 404
    assert "<script>alert" not in response.text and "&lt;script&gt;" in response.text


def test_api_is_the_page_data(compare_client: TestClient) -> None:
    body = compare_client.get("/api/compare?ids=acme-a1,acme-a2").json()
    assert body["ids"] == ["acme-a2", "acme-a1"] and body["kind"] == "comparison"
    assert body["url"] == "/compare/acme-a1-vs-acme-a2"
    bandwidth = next(r for r in body["rows"] if r["key"] == "memory_bandwidth")
    assert bandwidth["cells"][1]["ratio"] == pytest.approx(3.35 / 4.9)
    page = soup(compare_client.get(body["url"]))
    cell = page.select_one('#compare-table tr[data-key="memory_bandwidth"] td[data-id="acme-a1"]')
    assert float(cell["data-ratio"]) == pytest.approx(bandwidth["cells"][1]["ratio"], rel=1e-5)
    assert body["headline"]["number_format"] == "FP8"
    assert body["curated"]["verdict"].startswith("The A2 has more memory")
    per_watt = next(r for r in body["derived"] if r["key"] == "compute_per_watt.FP8")
    assert per_watt["formula"] == "compute per watt = FP8 dense compute ÷ power"
    assert [c["state"] for c in per_watt["cells"]] == ["not_published", "derived"]


@pytest.mark.parametrize(
    ("query", "status", "words"),
    [
        ("", 400, "query parameter 'ids': is required and was not given"),  # required in the OpenAPI schema too
        ("?ids=", 400, "No accelerators given"),
        ("?ids=acme-a1,acme-a1", 400, "The same accelerator twice"),
        ("?ids=a,b,c,d,e,f,g", 400, "at most 6"),
        ("?ids=acme-a1,zzz", 404, "No accelerator with id 'zzz'"),
        ("?ids=" + "x" * 2001, 400, "parameter 'ids'"),
    ],
)
def test_api_bad_input_is_json_4xx(compare_client: TestClient, query: str, status: int, words: str) -> None:
    response = compare_client.get(f"/api/compare{query}")
    assert response.status_code == status
    assert words in response.json()["detail"]


def test_openapi_documents_compare_and_search(compare_client: TestClient) -> None:
    schema = compare_client.get("/openapi.json").json()
    assert {"/api/compare", "/api/search"} <= set(schema["paths"])
    compare_get = schema["paths"]["/api/compare"]["get"]
    assert "404" in compare_get["responses"] and compare_get["parameters"][0]["required"] is True
    assert schema["paths"]["/api/search"]["get"]["parameters"][0]["schema"]["maxLength"] == 200
    ok = schema["paths"]["/api/compare"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    assert ok["$ref"].endswith("/ComparisonView")
    assert {"headline", "rows", "derived", "gaps"} <= set(schema["components"]["schemas"]["ComparisonView"]["properties"])
    assert "/compare/" not in schema["paths"]


def test_search(compare_client: TestClient) -> None:
    found = compare_client.get("/search?q=Acme+One")
    assert found.status_code == 302 and found.headers["location"] == "/silicon/acme-a1"
    ambiguous = compare_client.get("/search?q=acme")
    assert ambiguous.status_code == 200
    listed = soup(ambiguous).select("#results .matches li")
    assert [li.a["href"] for li in listed[:2]] == ["/silicon/acme-a1", "/silicon/acme-a2"]
    assert [li["data-matched-by"] for li in listed[:2]] == ["alias", "alias"]
    unknown = compare_client.get("/search?q=acme-a3")
    assert unknown.status_code == 404
    assert "/silicon/acme-a1" in [a["href"] for a in soup(unknown).select(".suggestions a")]
    assert compare_client.get("/search").status_code == 200
    assert compare_client.get("/search?q=" + "x" * 300).status_code == 400
    assert compare_client.get("/search?q=Acme+One&x=1").status_code == 302  # unknown parameters are ignored
    # "a1" is the A1's alias and a word of the A1-A2 comparison's id: both are listed, the part first.
    a1 = soup(compare_client.get("/search?q=a1")).select("#results .matches li")
    assert [(li["data-kind"], li["data-id"]) for li in a1] == [("accelerator", "acme-a1"), ("comparison", "acme-a1-vs-acme-a2")]
    api = compare_client.get("/api/search?q=G1").json()
    assert api["status"] == "found" and api["match"]["id"] == "globex-g1" and api["matched_by"] == "alias"


def test_real_search_gb200_is_not_b200(real_client: TestClient) -> None:
    # GB200 lists its part and the rack named after it, never the B200.
    listed = soup(real_client.get("/search?q=GB200")).select("#results .matches li")
    assert [(li["data-kind"], li["data-id"]) for li in listed] == [("accelerator", "nvidia-gb200"), ("system", "nvidia-gb200-nvl72")]
    h100 = real_client.get("/api/search?q=H100").json()
    assert h100["status"] == "ambiguous"
    assert {c["id"] for c in h100["candidates"]} == {"nvidia-h100-sxm", "nvidia-h100-pcie", "nvidia-h100-nvl"}


def test_index_lists_curated_pairs_and_a_form(compare_client: TestClient) -> None:
    page = soup(compare_client.get("/compare/"))
    item = page.select_one('#curated li[data-id="acme-a1-vs-acme-a2"]')
    assert item.select_one("a")["href"] == "/compare/acme-a1-vs-acme-a2"
    assert item.select_one("a").get_text() == "Acme A2 vs Acme A1"
    assert item.select_one(".framing").get_text() == "Acme's newer part against its first one."
    assert len(page.select('form.compare-form select[name="ids"]')) == 6


def test_real_index_lists_fourteen(real_client: TestClient) -> None:
    page = soup(real_client.get("/compare/"))
    assert len(page.select("#curated li[data-id]")) >= 14
    assert page.select_one('header nav a[href="/compare/"]') is not None


def test_compare_pages_have_no_inline_script_or_style(compare_client: TestClient) -> None:
    for path in ("/compare/", "/compare/acme-a1-vs-acme-a2", "/search?q=acme"):
        page = soup(compare_client.get(path))
        assert all(tag.get("src") for tag in page.select("script"))
        assert page.select("[style]") == []


def test_static_paths_name_the_curated_pages_and_every_part_s_column(compare_catalog: Catalog) -> None:
    assert list(web_compare.static_paths(compare_catalog)) == [
        "/compare/",
        "/search",
        "/api/search-index",
        "/compare/acme-a1-vs-acme-a2",
        "/api/compare/acme-a1-vs-acme-a2",
        *(f"/api/compare/parts/{ident}" for ident in compare_catalog.accelerators),
    ]


def test_a_pair_has_its_own_json_at_a_path(compare_client: TestClient) -> None:
    pair = compare_client.get("/api/compare/acme-a1-vs-acme-a2")
    assert pair.status_code == 200
    assert pair.json() == compare_client.get("/api/compare?ids=acme-a1,acme-a2").json()
    assert pair.json()["api_url"] == "/api/compare/acme-a1-vs-acme-a2"
    moved = compare_client.get("/api/compare/acme-a2-vs-acme-a1")
    assert moved.status_code == 301 and moved.headers["location"] == "/api/compare/acme-a1-vs-acme-a2"
    assert compare_client.get("/api/compare/acme-a1-vs-acme-a9").status_code == 404
    assert compare_client.get("/api/compare/acme-a1").status_code == 404


def test_every_page_has_a_search_box(compare_client: TestClient) -> None:
    for path in ("/", "/compare/", "/silicon/acme-a1", "/economics/estimate"):
        box = soup(compare_client.get(path)).select_one("header.site form.site-search")
        assert box is not None and box["action"] == "/search" and box.select_one('input[name="q"]') is not None, path


# --- the accelerator page ------------------------------------------------------------------


def test_accelerator_page_compared_against_related_and_derived(compare_client: TestClient) -> None:
    page = soup(compare_client.get("/silicon/acme-a1"))
    link = page.select_one('#compared-against li[data-id="acme-a1-vs-acme-a2"]')
    assert link.select_one("a")["href"] == "/compare/acme-a1-vs-acme-a2"
    assert link.select_one(".framing").get_text() == "Acme's newer part against its first one."
    related = {li["data-id"]: li for li in page.select("#related li")}
    assert related["acme-a2"]["data-relation"] == "successor"
    assert related["acme-a2"].select_one(".summary").get_text() == "144 GB HBM3e per chip, cloud only"
    assert related["hooli-h1"].select_one(".summary").get_text() == "memory: not published, rent"
    ridge = page.select_one('[data-derived="ridge_point.FP8"]')
    assert ridge["data-state"] == "derived"
    assert "591 FLOP/byte" in ridge.get_text(" ")  # 1979 / 3.35 = 590.75, three significant figures
    assert "ridge point = FP8 dense compute ÷ memory bandwidth" in ridge.get_text(" ")
    other = soup(compare_client.get("/silicon/acme-a2"))
    per_watt = other.select_one('[data-derived="compute_per_watt.FP8"]')
    assert per_watt["data-state"] == "not_published" and "power: not published" in per_watt.get_text(" ")


def test_part_with_nothing_to_relate_says_so(tmp_path: Path, make_client: Callable[..., TestClient]) -> None:
    # No predecessor, no successor, nobody else in its family, and memory not yet sourced, so
    # there is no capacity to be close to: every real part now has a relative, hence own data.
    loner = make_record("acme-loner", family="Loner", specs__memory={"state": "not_sourced", "note": "Datasheet not read."})
    other = make_record("acme-other", family="Other")
    client = make_client(load(write_data(tmp_path / "data", [loner, other])))
    page = soup(client.get("/silicon/acme-loner"))
    assert page.select("#related li") == []
    assert "No related part could be picked" in page.select_one("#related").get_text()
    # The other part has a comparable memory figure but no relative either way.
    assert soup(client.get("/silicon/acme-other")).select("#related li") == []


def test_real_part_related_by_family(real_client: TestClient) -> None:
    # The Ascend 910C, whose memory is not published, relates first to its successors (the 950DT and 950PR
    # name it as their predecessor), then to the Ascend 910B2 and 910 by family.
    ascend = soup(real_client.get("/silicon/huawei-ascend-910c"))
    related = ascend.select("#related li")
    assert [li["data-id"] for li in related] == ["huawei-ascend-950dt", "huawei-ascend-950pr", "huawei-ascend-910b2", "huawei-ascend-910"]
    words = [" ".join(li.get_text().split()).split(" — ")[0] for li in related]
    assert words == [
        "Huawei Ascend 950DT successor",
        "Huawei Ascend 950PR successor",
        "Huawei Ascend 910B2 same family",
        "Huawei Ascend 910 same family",
    ]


def test_real_trainium3_page(real_client: TestClient) -> None:
    page = soup(real_client.get("/silicon/aws-trainium-3"))
    ids = {li["data-id"] for li in page.select("#compared-against li")}
    assert {
        "aws-trainium-3-vs-google-tpu-v7",
        "amd-instinct-mi355x-vs-aws-trainium-3",
        "aws-trainium-2-vs-aws-trainium-3",
        "aws-inferentia-2-vs-aws-trainium-3",
    } <= ids
    trn2 = page.select_one('#related li[data-id="aws-trainium-2"]')
    assert trn2["data-relation"] == "predecessor"
    assert trn2.select_one(".summary").get_text() == "96 GiB HBM per chip, cloud only"
    api = real_client.get("/api/accelerators/aws-trainium-3").json()
    bf16 = next(d for d in api["derived"] if d["key"] == "ridge_point.BF16")
    assert bf16["value"] == pytest.approx(671e12 / 4.9e12)  # 136.9 FLOP/byte


# --- the CLI -------------------------------------------------------------------------------


def test_cli_compare_prints_aligned_table_with_ratios(compare_data: Path) -> None:
    result = runner.invoke(app, ["compare", "acme-a1", "A2", "--data", str(compare_data)], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    assert "Acme A2 vs Acme A1" in result.output
    assert "3.35 TB/s /chip (1.46× lower than Acme A2)" in result.output  # 4.9 / 3.35
    assert "Compute at FP8, dense" in result.output
    assert "not published" in result.output


def test_cli_compare_json_is_the_api_view(compare_data: Path, compare_client: TestClient) -> None:
    result = runner.invoke(app, ["compare", "acme-a2", "acme-a1", "--json", "--data", str(compare_data)])
    body = json.loads(result.output)
    api = compare_client.get("/api/compare?ids=acme-a1,acme-a2").json()
    assert {k: v for k, v in body.items() if k != "data_version"} == {k: v for k, v in api.items() if k != "data_version"}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["acme-a1"], "Only one accelerator given"),
        (["acme-a1", "acme-a1"], "The same accelerator twice"),
        (["acme-a1", "acme-a9"], "No accelerator with id 'acme-a9'"),
        (["acme", "acme-a1"], "could mean several accelerators"),
        (["a", "b", "c", "d", "e", "f", "g"], "at most 6"),
    ],
)
def test_cli_compare_bad_input_exits_2(compare_data: Path, args: list[str], words: str) -> None:
    result = runner.invoke(app, ["compare", *args, "--data", str(compare_data)])
    assert result.exit_code == 2 and words in result.output


def test_cli_compare_and_show_have_help() -> None:
    for command in ("compare", "show"):
        result = runner.invoke(app, [command, "--help"])
        assert result.exit_code == 0 and "Usage" in result.output


def test_cli_show_accepts_aliases(compare_data: Path) -> None:
    result = runner.invoke(app, ["show", "Acme One", "--json", "--data", str(compare_data)])
    assert result.exit_code == 0 and json.loads(result.output)["id"] == "acme-a1"
    ambiguous = runner.invoke(app, ["show", "acme", "--data", str(compare_data)])
    assert ambiguous.exit_code == 2 and "acme-a1 (Acme A1)" in ambiguous.output and "acme-a2 (Acme A2)" in ambiguous.output


def test_cli_show_real_alias() -> None:
    result = runner.invoke(app, ["show", "Trn3", "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["id"] == "aws-trainium-3"


def test_cli_marks_disputed_figures() -> None:
    result = runner.invoke(app, ["compare", "aws-trainium-2", "aws-trainium-3"], env={"COLUMNS": "220"})
    assert result.exit_code == 0, result.output
    assert "4.9 TB/s /chip (1.69× higher than AWS Trainium2) (disputed)" in result.output  # 4.9 / 2.9; AWS's NKI guide says 4.7 TB/s


def test_a_part_s_cells_are_its_own_in_each_comparison(catalog: Catalog) -> None:
    """A part's spec cells are worked out once per data version; each comparison marks its own copy
    (the reference, the ratios), so the same part compared twice does not carry one comparison's marks into the other."""
    ids = list(catalog.accelerators)[:3]
    first = compare.build(catalog, ids[:2])
    again = compare.build(catalog, [ids[1], ids[2]])
    third = compare.build(catalog, ids[:2])
    for view in (first, again, third):
        for row in view.rows:
            assert [c.is_reference for c in row.cells] == [True] + [False] * (len(row.cells) - 1), (view.ids, row.key)
    assert third.model_dump() == first.model_dump()
    shared = first.ids[1] if first.ids[1] in again.ids else first.ids[0]
    mine = next(c for c in first.rows[0].cells if c.id == shared)
    theirs = next(c for c in again.rows[0].cells if c.id == shared)
    assert mine is not theirs and mine.display == theirs.display

"""Any pair on a static copy of the site, in a real browser: a comparison that was not built
is put together by static/compare.js from the parts' prebuilt columns
(``/api/compare/parts/{id}``), and shows what the live server's page of that pair shows:
the same rows, cells, states, labels, ratios and reasons, in the same order. Without
JavaScript (or for a pair the columns cannot show) the 404 page says the pair was not
built and links to the live one."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from bs4 import BeautifulSoup

from computeatlas.build import static as site
from computeatlas.catalog import Catalog
from tests.browser.conftest import _page_in_context
from tests.browser.static_host import serve_folder

LIVE = "https://live.atlas.example.org"
PARTS = ["amd-instinct-mi250x", "nvidia-h200-sxm", "amd-instinct-mi300x", "google-tpu-v7", "nvidia-h100-sxm"]
PAIRS = [
    "amd-instinct-mi250x-vs-nvidia-h200-sxm",  # a 2-GCD package against one device; an attributed figure
    "amd-instinct-mi300x-vs-google-tpu-v7",
    "google-tpu-v7-vs-nvidia-h100-sxm",
]
TABLES = ("compare-table", "derived-table", "price-table")

# What a page shows, read the same way from the browser's document and from the server's HTML:
# the title, the headline, and for each table each row's key and heading and each cell's
# part, state, data-ratio and text (its text nodes joined by one space).
SHOWN_JS = """tables => {
  const words = node => {
    if (!node) return null;
    const walk = document.createTreeWalker(node, NodeFilter.SHOW_TEXT), texts = [];
    while (walk.nextNode()) texts.push(walk.currentNode.nodeValue);
    return texts.join(" ").split(/\\s+/).filter(Boolean).join(" ");
  };
  return {
    title: words(document.querySelector("main h1")),
    headline: words(document.querySelector("#headline")),
    tables: tables.map(id => Array.from(document.querySelectorAll(`#${id} tbody tr`)).map(tr => [
      tr.dataset.key, words(tr.querySelector("th")),
      Array.from(tr.querySelectorAll("td")).map(td => [td.dataset.id, td.dataset.state, td.dataset.ratio || null, words(td)])
    ])),
    heads: Array.from(document.querySelectorAll("#compare-table thead th")).map(words),
  };
}"""


def _words(node: Any) -> str | None:
    return " ".join(node.get_text(" ").split()) if node is not None else None


def _server_shows(server: str, pair: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{server}/compare/{pair}", timeout=60) as answer:
        assert answer.status == 200
        doc = BeautifulSoup(answer.read(), "html.parser")
    return {
        "title": _words(doc.select_one("main h1")),
        "headline": _words(doc.select_one("#headline")),
        "tables": [
            [
                [
                    tr.get("data-key"),
                    _words(tr.select_one("th")),
                    [[td.get("data-id"), td.get("data-state"), td.get("data-ratio"), _words(td)] for td in tr.select("td")],
                ]
                for tr in doc.select(f"#{table} tbody tr")
            ]
            for table in TABLES
        ],
        "heads": [_words(th) for th in doc.select("#compare-table thead th")],
    }


@pytest.fixture(scope="module")
def static_site(real_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The comparison index, the search index and five parts' columns, no comparison page,
    built under /atlas/ with a live server named, served from files."""
    root = tmp_path_factory.mktemp("static-compare")
    paths = ["/compare/", "/api/search-index", *(f"/api/compare/parts/{ident}" for ident in PARTS)]
    site.build(real_catalog, root / "atlas", "/atlas/", site_url="https://atlas.example.org", live_url=LIVE, paths=paths)
    yield from serve_folder(root)


@pytest.fixture(scope="module")
def page(browser: object) -> Iterator[object]:
    with _page_in_context(browser, 20_000, viewport={"width": 1280, "height": 900}) as shared:
        yield shared


def _rendered(page, url: str) -> dict[str, Any]:  # type: ignore[no-untyped-def]
    response = page.goto(url)
    assert response is not None and response.status == 404  # the static host has no file for it
    page.wait_for_selector("article.comparison[data-rendered=browser]")
    return page.evaluate(SHOWN_JS, list(TABLES))


@pytest.mark.parametrize("pair", PAIRS)
def test_a_pair_not_built_shows_what_the_live_page_shows(page, static_site: str, server: str, pair: str) -> None:  # type: ignore[no-untyped-def]
    shown = _rendered(page, f"{static_site}/compare/{pair}/")
    live = _server_shows(server, pair)
    assert shown["title"] == live["title"]
    assert shown["headline"] == live["headline"]
    assert shown["heads"] == live["heads"]
    assert [len(rows) > 2 for rows in live["tables"]] == [True, True, True]
    for static_rows, live_rows in zip(shown["tables"], live["tables"], strict=True):
        assert static_rows == live_rows
    assert page.title() == f"{live['title']} · Compute Atlas"
    assert page.get_attribute("a.live-page", "href") == f"{LIVE}/compare/{pair}"


def test_the_figures_keep_their_states_labels_and_ratios(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    _rendered(page, f"{static_site}/compare/amd-instinct-mi250x-vs-nvidia-h200-sxm/")
    cell = 'tr[data-key="{}"] td[data-id="{}"]'
    bf16 = page.inner_text("#compare-table " + cell.format("compute.BF16", "nvidia-h200-sxm"))
    assert "989 TFLOPS (from Yobitel, not from NVIDIA)" in bf16
    power = page.inner_text("#compare-table " + cell.format("power", "nvidia-h200-sxm"))
    assert "not comparable per device: per chip against per package of 2 GCDs, and no derived per-device figure" in power
    memory = "#compare-table " + cell.format("memory", "nvidia-h200-sxm")
    assert page.inner_text(memory + " .ratio") == "2.2× higher than AMD Instinct MI250X per device (per chip ÷ per GCD, derived)"
    assert page.get_attribute(memory, "data-ratio") == "2.20312"
    assert page.inner_text("#compare-table " + cell.format("memory", "amd-instinct-mi250x") + " .ratio") == "reference"
    fp4 = page.get_attribute("#compare-table " + cell.format("compute.FP4", "amd-instinct-mi250x"), "data-state")
    assert fp4 in ("not_applicable", "not_published", "not_collected")


def test_the_other_order_shows_the_pair_at_its_one_address(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    shown = _rendered(page, f"{static_site}/compare/nvidia-h200-sxm-vs-amd-instinct-mi250x/")
    assert shown["title"] == "AMD Instinct MI250X vs NVIDIA H200 SXM 141GB"
    assert page.url.endswith("/atlas/compare/amd-instinct-mi250x-vs-nvidia-h200-sxm/")


def test_a_pair_named_by_aliases_goes_where_the_server_sends_it(page, static_site: str, server: str) -> None:  # type: ignore[no-untyped-def]
    with urllib.request.urlopen(f"{server}/compare/MI250X-vs-H200-SXM", timeout=60) as answer:  # follows the 301
        assert answer.url == f"{server}/compare/amd-instinct-mi250x-vs-nvidia-h200-sxm"
    page.goto(f"{static_site}/compare/MI250X-vs-H200-SXM/")
    page.wait_for_url("**/atlas/compare/amd-instinct-mi250x-vs-nvidia-h200-sxm/")
    page.wait_for_selector("article.comparison[data-rendered=browser]")
    assert page.inner_text("main h1") == "AMD Instinct MI250X vs NVIDIA H200 SXM 141GB"


def test_a_name_that_is_no_part_is_left_to_the_404_page(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/compare/MI250X-vs-nothing-called-this/")
    page.wait_for_selector("#not-prebuilt[data-pair]")
    page.wait_for_load_state("networkidle")
    assert page.inner_text("main h1") == "This comparison was not pre-built"
    assert page.url.endswith("/atlas/compare/MI250X-vs-nothing-called-this/")


def test_a_curated_pair_not_built_is_left_to_the_404_page(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/compare/amd-instinct-mi300x-vs-nvidia-h100-sxm/")  # curated: its page carries a verdict
    page.wait_for_selector("#not-prebuilt[data-pair]")
    assert page.inner_text("main h1") == "This comparison was not pre-built"
    assert page.get_attribute("p.live-pair a", "href") == f"{LIVE}/compare/amd-instinct-mi300x-vs-nvidia-h100-sxm"
    assert page.query_selector("article.comparison") is None


def test_without_javascript_the_page_says_so_and_links_to_the_live_atlas(browser, static_site: str) -> None:  # type: ignore[no-untyped-def]
    with _page_in_context(browser, 20_000, java_script_enabled=False) as bare:
        response = bare.goto(f"{static_site}/compare/amd-instinct-mi300x-vs-google-tpu-v7/")
        assert response is not None and response.status == 404
        assert bare.query_selector("article.comparison") is None
        text = bare.inner_text("#not-prebuilt")
        assert "a comparison is here only if it was built in advance" in text
        assert bare.get_attribute("#not-prebuilt a[href^='https://live']", "href") == f"{LIVE}/compare/"

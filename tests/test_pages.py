"""Pages, parsed as HTML: the table's sorting and filters, the accelerator page, errors."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.web.cache import PAGES


def soup(response) -> BeautifulSoup:
    assert response.headers["content-type"].startswith("text/html")
    return BeautifulSoup(response.text, "lxml")


def table_ids(client: TestClient, query: str = "") -> list[str]:
    response = client.get(f"/silicon/{query}")
    assert response.status_code == 200, response.text
    return [tr["data-id"] for tr in soup(response).select("#silicon-table tbody tr[data-id]")]


def cell(client: TestClient, query: str, ident: str, key: str) -> str:
    page = soup(client.get(f"/silicon/{query}"))
    return page.select_one(f'tr[data-id="{ident}"] td[data-key="{key}"]').get_text(" ", strip=True)


def test_home_links_to_the_layers(client: TestClient) -> None:
    page = soup(client.get("/"))
    assert page.select_one("h1").get_text() == "Compute Atlas"
    assert page.select_one('a[href="/silicon/"]') is not None


def test_table_lists_every_part_by_name(client: TestClient) -> None:
    assert table_ids(client) == ["acme-a1", "acme-a2", "globex-g1"]


def test_table_shows_states_not_blanks(client: TestClient) -> None:
    assert cell(client, "", "acme-a2", "power") == "not published"
    assert cell(client, "", "globex-g1", "fp8") == "not applicable"
    assert cell(client, "", "acme-a1", "fp4") == "not yet collected"
    assert cell(client, "", "acme-a1", "bf16") == "989.5"
    assert cell(client, "", "acme-a2", "memory_bandwidth") == "4.9"


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?sort=power", ["globex-g1", "acme-a1", "acme-a2"]),  # 72 W, 700 W, then not published
        ("?sort=-power", ["acme-a1", "globex-g1", "acme-a2"]),  # not published still last
        ("?sort=fp8", ["acme-a1", "acme-a2", "globex-g1"]),  # not applicable last
        ("?sort=-fp8", ["acme-a1", "acme-a2", "globex-g1"]),
        ("?sort=-memory", ["acme-a2", "acme-a1", "globex-g1"]),
        ("?sort=-name", ["globex-g1", "acme-a2", "acme-a1"]),
    ],
)
def test_sorting_puts_states_after_numbers_both_ways(client: TestClient, query: str, expected: list[str]) -> None:
    assert table_ids(client, query) == expected


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("?availability=cloud-only", ["acme-a2"]),
        ("?vendor=globex", ["globex-g1"]),
        ("?vendor=acme,globex&workload=inference", ["globex-g1"]),
        ("?memory_min=80", ["acme-a1", "acme-a2"]),
        ("?memory_min=100+GB", ["acme-a2"]),
        ("?power_max=1+kW", ["acme-a1", "globex-g1"]),  # not published never matches a range
        ("?memory_bandwidth_min=1&memory_bandwidth_max=4", ["acme-a1"]),
    ],
)
def test_filters_by_query_parameters(client: TestClient, query: str, expected: list[str]) -> None:
    assert table_ids(client, query) == expected


def test_sort_links_keep_filters_and_toggle(client: TestClient) -> None:
    page = soup(client.get("/silicon/?vendor=acme&sort=memory"))
    link = page.select_one('th[data-key="memory"] a')["href"]
    assert "vendor=acme" in link and "sort=-memory" in link
    assert page.select_one('th[data-key="memory"]')["aria-sort"] == "ascending"


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("?sort=colour", "query parameter 'sort': no column 'colour'"),
        ("?memory_min=lots", "query parameter 'memory_min': cannot read 'lots'"),
        ("?memory_min=5+W", "query parameter 'memory_min': '5 W' is not a memory size"),
        ("?memory_min=-1", "query parameter 'memory_min': must not be negative"),
        ("?memory_min=100&memory_max=10", "query parameter 'memory_min': is above memory_max"),
        ("?vendor=initech", "query parameter 'vendor': no part has vendor 'initech'"),
        ("?vendor=acme&vendor=globex", "query parameter 'vendor': given more than once; separate several values with commas"),
        ("?memory_min=NaN", "query parameter 'memory_min': 'NaN' is not a finite number"),
        ("?memory_min=inf", "query parameter 'memory_min': 'inf' is not a finite number"),
        ("?memory_min=1e400", "query parameter 'memory_min': '1e400' is not a finite number"),
    ],
)
def test_bad_query_parameter_is_a_400_naming_it(client: TestClient, query: str, words: str) -> None:
    response = client.get(f"/silicon/{query}")
    assert response.status_code == 400
    assert words in soup(response).get_text(" ")


def test_unknown_query_parameters_are_ignored(client: TestClient) -> None:
    assert table_ids(client, "?colour=red&utm_source=news") == table_ids(client, "")
    assert table_ids(client, "?vendor=globex&utm_source=news") == ["globex-g1"]


def test_bad_query_parameter_is_escaped(client: TestClient) -> None:
    response = client.get("/silicon/?sort=<script>alert(1)</script>")
    assert response.status_code == 400
    assert "<script>" not in response.text
    assert "&lt;script&gt;" in response.text


def test_accelerator_page_sections(client: TestClient) -> None:
    page = soup(client.get("/silicon/acme-a2"))
    assert page.select_one("h1").get_text() == "Acme A2"
    assert page.select_one(".kicker").get_text(" ", strip=True) == "Acme Silicon · Test · Layer 2 — Silicon"
    assert page.select_one(".availability .badge").get_text() == "cloud only"
    for section in ("specifications", "audience", "catch", "economics", "sources"):
        assert page.select_one(f"section#{section}") is not None
    assert page.select_one('[data-spec="power"]')["data-state"] == "not_published"
    assert page.select_one('[data-spec="power"] dd').get_text(" ", strip=True).startswith("not published")
    memory = page.select_one('[data-spec="memory"] dd').get_text(" ", strip=True)
    assert memory.startswith("144 GB HBM3e per chip")
    assert page.select_one("time").get_text() == "2026-11-01"
    assert page.select_one('a[href="/silicon/acme-a1"]').get_text() == "Acme A1"  # predecessor


def test_dense_and_sparse_shown_side_by_side(client: TestClient) -> None:
    page = soup(client.get("/silicon/acme-a1"))
    bf16 = page.select_one('[data-spec="compute.BF16"] dd').get_text(" ", strip=True)
    assert "989.5 TFLOPS" in bf16 and "dense" in bf16
    assert "1,979 TFLOPS with 2:4 sparsity" in bf16


def test_absent_later_sections_are_not_faked(client: TestClient) -> None:
    text = soup(client.get("/silicon/acme-a1")).get_text(" ")
    assert "Where you actually rent this" not in text
    assert "not yet collected" in text  # optional details, honestly absent


def test_unknown_id_is_a_404_with_closest_ids(client: TestClient) -> None:
    response = client.get("/silicon/acme-a3")
    assert response.status_code == 404
    links = [a["href"] for a in soup(response).select(".suggestions a")]
    assert sorted(links) == ["/silicon/acme-a1", "/silicon/acme-a2"]


def test_unknown_page_is_a_404_page(client: TestClient) -> None:
    response = client.get("/no/such/page")
    assert response.status_code == 404
    assert "No such page" in soup(response).get_text()


def test_security_headers_on_every_response(client: TestClient) -> None:
    for path in ("/", "/silicon/", "/silicon/nope", "/api/accelerators"):
        headers = client.get(path).headers
        assert "frame-ancestors 'none'" in headers["content-security-policy"]
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "strict-origin-when-cross-origin"


def test_page_has_no_inline_script(client: TestClient) -> None:
    for path in ("/", "/silicon/", "/silicon/acme-a1"):
        page = soup(client.get(path))
        # every script that runs is a file (the CSP allows no inline script); a JSON data block never runs
        assert all(tag.get("src") or tag.get("type") == "application/json" for tag in page.select("script"))
        assert page.select("[style]") == []


def test_repeat_request_is_served_from_cache_with_etag(client: TestClient) -> None:
    cache = client.app.state.cache
    first = client.get("/silicon/acme-a1")
    before = cache.stats(PAGES)
    second = client.get("/silicon/acme-a1")
    after = cache.stats(PAGES)
    assert after.misses == before.misses and after.hits == before.hits + 1  # no template work the second time
    assert second.text == first.text
    assert second.headers["etag"] == first.headers["etag"]
    assert second.headers["last-modified"] == "Sun, 01 Nov 2026 00:00:00 GMT"  # newest verified date
    assert "frame-ancestors 'none'" in second.headers["content-security-policy"]
    not_modified = client.get("/silicon/acme-a1", headers={"If-None-Match": first.headers["etag"]})
    assert not_modified.status_code == 304 and not_modified.content == b""


def test_errors_are_not_cached(client: TestClient) -> None:
    assert client.get("/silicon/nope").status_code == 404
    assert "etag" not in client.get("/silicon/nope").headers


def test_head_works_on_every_page_before_any_get(client: TestClient) -> None:
    for path in ("/silicon/acme-a1", "/silicon/", "/"):
        response = client.head(path)
        assert response.status_code == 200, path
        assert response.content == b""
        assert response.headers["content-type"].startswith("text/html")


def test_wrong_method_is_a_405_with_allow(client: TestClient) -> None:
    response = client.post("/silicon/acme-a1")
    assert response.status_code == 405
    assert "GET" in response.headers["allow"]


def test_error_pages_show_the_data_version_and_no_control_characters(client: TestClient, catalog) -> None:
    page = soup(client.get("/silicon/%00acme"))
    assert page.select_one("footer code").get_text() == catalog.version
    assert "\x00" not in page.get_text()


def test_an_unhandled_error_is_a_plain_500_page(catalog) -> None:
    from computeatlas.web.app import create_app

    app = create_app(catalog)

    def boom() -> None:
        raise RuntimeError("secret internals")

    app.add_api_route("/boom", boom)
    response = TestClient(app, raise_server_exceptions=False).get("/boom")
    assert response.status_code == 500
    assert "Something went wrong on our side" in response.text
    assert "secret internals" not in response.text and "Traceback" not in response.text
    assert response.headers["x-content-type-options"] == "nosniff"

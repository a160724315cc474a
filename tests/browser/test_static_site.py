"""A static copy of the site in a real browser, served by a plain file server that answers a
missing file with the build's 404.html (as static hosts do):

- the silicon table's filters, sorting and column picker, read by static/table.js from the
  address, give the same rows in the same order and the same columns as the live server
  (``computeatlas serve``) for the same parameters, and state the filters in its words;
- the price tables (``/cloud/``, a provider's page, a part's price page) sort by the address's
  ``sort`` in the same order as the live server, with the headings saying so;
- a comparison that was not built leads to the 404 page saying so, with the built ones and
  (when the build names a live server) the same pair there;
- a part's alias and the other order of a curated pair land on the canonical page.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from bs4 import BeautifulSoup

from computeatlas.build import static as site
from computeatlas.catalog import Catalog
from tests.browser.conftest import _page_in_context
from tests.browser.static_host import serve_folder

PAIR = "nvidia-h100-sxm-vs-nvidia-h200-sxm"  # a curated pair
PAGES = [
    "/silicon/",
    "/compare/",
    "/silicon/aws-trainium-3",
    f"/compare/{PAIR}",
    "/silicon/Trn3",
    "/compare/nvidia-h200-sxm-vs-nvidia-h100-sxm",
    "/cloud/",
    "/cloud/lambda",
    "/cloud/prices/nvidia-h100-sxm",
]
LIVE = "https://live.atlas.example.org"


@pytest.fixture(scope="module")
def static_site(real_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The table, the comparison index, one part, one curated pair, an alias and the pair's
    other order, built under /atlas/ with no live server and served from files."""
    root = tmp_path_factory.mktemp("static-site")
    site.build(real_catalog, root / "atlas", "/atlas/", site_url="https://atlas.example.org", paths=PAGES)
    yield from serve_folder(root)


@pytest.fixture(scope="module")
def static_site_with_live(real_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The comparison index and its 404 page, built with a live server named."""
    root = tmp_path_factory.mktemp("static-site-live")
    site.build(real_catalog, root / "atlas", "/atlas/", site_url="https://atlas.example.org", live_url=LIVE, paths=["/compare/"])
    yield from serve_folder(root)


@pytest.fixture(scope="module")
def page(browser: object) -> Iterator[object]:
    """One 1280×900 page for every visit here: the static pages keep nothing between visits."""
    with _page_in_context(browser, 15_000, viewport={"width": 1280, "height": 900}) as shared:
        yield shared


def _live(server: str, query: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(f"{server}/silicon/?{query}", timeout=30) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def _shown(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all("#silicon-table tbody tr[data-id]", "rows => rows.filter(r => !r.hidden).map(r => r.dataset.id)")


QUERIES = [
    "sort=memory",
    "sort=-memory",
    "sort=-fp8&vendor=nvidia",
    "memory_min=80&sort=-memory_bandwidth",
    "memory_min=0.1+TB&memory_max=200",
    "bf16_min=1+PFLOPS&sort=power",
    "power_max=0.5+kw&workload=inference",
    "sort=-name",
    "sort=-availability",
    "sort=form_factor&availability=rent,buy",
    "sort=-price",
    "sort=price",
    "fp4_min=1&sort=-fp4",
    "memory_min=100000",
    "columns=memory,price&sort=-price",
    "columns=vendor&columns=power&vendor=amd,google",
]


def _columns(page) -> list[str]:  # type: ignore[no-untyped-def]
    return page.eval_on_selector_all("#silicon-table thead th[data-key]", "ths => ths.filter(t => !t.hidden).map(t => t.dataset.key)")


def _live_columns(html: str) -> list[str]:
    return re.findall(r'<th scope="col" data-key="(\w+)"(?! hidden)', html)


@pytest.mark.parametrize("query", QUERIES)
def test_the_static_table_shows_the_rows_the_live_server_does(page, static_site: str, server: str, query: str) -> None:  # type: ignore[no-untyped-def]
    status, live_html = _live(server, query)
    assert status == 200
    live_rows = re.findall(r'<tr data-id="([^"]+)"', live_html)
    page.goto(f"{static_site}/silicon/?{query}")
    page.wait_for_selector("#table-status[data-shown]", state="attached")
    assert _shown(page) == live_rows
    # The filters stated in the live page's words, and the columns it shows.
    live_count = re.search(r'<span id="table-count">([^<]+)</span>', live_html)
    assert live_count is not None
    assert page.inner_text("#table-count") == live_count[1]
    assert page.get_attribute("#table-status", "data-shown") == str(len(live_rows))
    assert _columns(page) == _live_columns(live_html)
    # Every row shows exactly the columns its heading does.
    cells = page.eval_on_selector_all(
        "#silicon-table tbody tr[data-id]:not([hidden])",
        "rows => rows.map(r => [...r.querySelectorAll('td')].filter(c => !c.hidden).length)",
    )
    assert set(cells) <= {len(_columns(page)) - 1}  # the name is the row's heading


def test_the_status_line_says_what_was_filtered(page, static_site: str, real_catalog: Catalog) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/silicon/?memory_min=80&vendor=nvidia&sort=-memory")
    page.wait_for_selector("#table-status[data-shown]")
    shown = len(_shown(page))
    assert (
        page.inner_text("#table-count")
        == f"Showing {shown} of {len(real_catalog.accelerators)} accelerators: vendor nvidia, memory ≥ 80 GB"
    )
    assert page.inner_text("#table-status").endswith("; sorted by memory, highest first.")
    assert page.get_attribute(".filter-statement a.clear-filters", "href") == "/atlas/silicon/?sort=-memory"
    # The form and the headings show the query: the select, the bound, the next direction.
    assert page.input_value("form.filters select[name=vendor]") == "nvidia"
    assert page.input_value("form.filters input[name=memory_min]") == "80"
    assert page.get_attribute("#silicon-table th[data-key=memory]", "aria-sort") == "descending"
    href = page.get_attribute("#silicon-table th[data-key=memory] a", "href")
    assert href is not None and href.startswith("/atlas/silicon/?") and "sort=memory" in href and "vendor=nvidia" in href


def test_the_filter_form_works_on_the_static_site(page, static_site: str, server: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/silicon/")
    page.select_option("form.filters select[name=vendor]", "amd")
    page.fill("form.filters input[name=memory_min]", "192")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**/atlas/silicon/?*vendor=amd*")
    page.wait_for_selector("#table-status[data-shown]")
    _, live_html = _live(server, "vendor=amd&memory_min=192")
    live_rows = re.findall(r'<tr data-id="([^"]+)"', live_html)
    assert live_rows and _shown(page) == live_rows
    # Sorting by a heading keeps the filters.
    page.click("#silicon-table th[data-key=memory_bandwidth] a")
    page.wait_for_url("**sort=memory_bandwidth*")
    page.wait_for_selector("#table-status[data-shown]")
    _, live_sorted = _live(server, "vendor=amd&memory_min=192&sort=memory_bandwidth")
    assert _shown(page) == re.findall(r'<tr data-id="([^"]+)"', live_sorted)


def test_the_column_picker_hides_a_column_across_sorting_on_the_static_site(page, static_site: str, server: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/silicon/")
    assert "memory" in _columns(page) and "vendor" not in _columns(page)
    page.uncheck("form.filters input[name=columns][value=memory]")
    page.check("form.filters input[name=columns][value=vendor]")
    page.click("form.filters button[type=submit]")
    page.wait_for_url("**/atlas/silicon/?*columns=vendor*")
    page.wait_for_selector("#table-status[data-shown]")
    assert "memory" not in _columns(page) and "vendor" in _columns(page)
    assert not page.is_checked("form.filters input[name=columns][value=memory]")
    # Sorting by a heading keeps the choice of columns, as the live server does.
    page.click("#silicon-table th[data-key=power] a")
    page.wait_for_url("**sort=power*")
    page.wait_for_selector("#table-status[data-shown]")
    _, live_html = _live(server, page.url.split("?", 1)[1])
    assert _columns(page) == _live_columns(live_html)
    assert "memory" not in _columns(page) and "vendor" in _columns(page)
    assert _shown(page) == re.findall(r'<tr data-id="([^"]+)"', live_html)


PRICE_ROW = "[data-offer], [data-provider]"


def _row_key(attrs: dict[str, str]) -> str:
    """An offer's id, or an observation's provider, instance and collection time (a history
    row's provider and date, a seen-before row's accelerator)."""
    keys = ("data-accelerator", "data-provider", "data-sort-instance", "data-sort-region", "data-sort-collected", "data-sort-date")
    return attrs.get("data-offer") or " ".join(attrs.get(k, "") for k in keys)


@pytest.mark.parametrize(
    ("path", "query", "table"),
    [
        ("/cloud/", "sort=-price", "#prices table.offers"),
        ("/cloud/", "sort=accelerator", "#prices table.offers"),
        ("/cloud/", "sort=-published", "#prices table.offers"),
        ("/cloud/lambda", "sort=variant", "#offers table.offers"),
        ("/cloud/prices/nvidia-h100-sxm", "sort=-collected", "#current table.observed"),
        ("/cloud/prices/nvidia-h100-sxm", "sort=price", "#current table.observed"),
        ("/cloud/prices/nvidia-h100-sxm", "sort=-source", "#current table.observed"),
        ("/cloud/prices/nvidia-h100-sxm", "history_sort=-median", "#history table.history"),
        ("/cloud/prices/nvidia-h100-sxm", "history_sort=provider", "#history table.history"),
        ("/cloud/", "seen_sort=-price", "#not-current table.not-current"),
    ],
)
def test_the_static_price_tables_sort_as_the_live_server_does(
    page, static_site: str, server: str, path: str, query: str, table: str
) -> None:  # type: ignore[no-untyped-def]
    with urllib.request.urlopen(f"{server}{path}?{query}", timeout=30) as answer:
        live = BeautifulSoup(answer.read().decode(), "lxml").select_one(table)
    live_rows = [_row_key(tr.attrs) for tr in live.select("tbody tr") if tr.select_one("td[colspan]") is None]
    built = urllib.request.urlopen(f"{static_site}{path}/", timeout=30).read().decode()  # the order as built
    as_built = [
        _row_key(tr.attrs)
        for tr in BeautifulSoup(built, "lxml").select_one(table).select("tbody tr")
        if tr.select_one("td[colspan]") is None
    ]
    assert len(live_rows) >= 2 and sorted(as_built) == sorted(live_rows)
    page.goto(f"{static_site}{path}/?{query}")
    key = query.split("=", 1)[1]
    page.wait_for_selector(f'{table}[data-sorted="{key}"]', state="attached")
    shown = page.eval_on_selector_all(
        f"{table} tbody tr",
        "rows => rows.filter(r => !r.querySelector('td[colspan]')).map(r => Object.fromEntries([...r.attributes].map(a => [a.name, a.value])))",
    )
    assert [_row_key(a) for a in shown] == live_rows
    column = key.removeprefix("-")
    heading = f'{table} th[data-sort="{column}"]'
    assert page.get_attribute(heading, "aria-sort") == live.select_one(f'th[data-sort="{column}"]')["aria-sort"]
    assert (
        page.get_attribute(f"{heading} a", "href") == live.select_one(f'th[data-sort="{column}"] a')["href"]
    )  # the next click turns it round


def test_a_bad_history_sort_on_the_static_price_page_is_named(page, static_site: str, server: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{server}/cloud/prices/nvidia-h100-sxm?history_sort=cost", timeout=30)
    with refused.value as error:
        assert error.code == 400
    page.goto(f"{static_site}/cloud/prices/nvidia-h100-sxm/?history_sort=cost")
    page.wait_for_selector('p.table-status[data-error="history_sort"]', state="attached")
    assert page.inner_text('p.table-status[data-error="history_sort"]').startswith(
        "Not sorted: parameter 'history_sort' 'cost' is not a column; sort by one of date, provider, median, observations"
    )
    assert page.get_attribute("#current table.observed", "data-sorted") == ""  # the other table is left as built


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("sort=bogus", "sort"),
        ("memory_min=80+GHz", "memory_min"),
        ("vendor=nobody", "vendor"),
        ("memory_min=90&memory_max=10", "memory_min"),
        ("columns=memory,bogus", "columns"),
    ],
)
def test_a_bad_parameter_is_named_as_the_server_names_it(  # type: ignore[no-untyped-def]
    page, static_site: str, server: str, real_catalog: Catalog, query: str, param: str
) -> None:
    status, _ = _live(server, query)
    assert status == 400
    page.goto(f"{static_site}/silicon/?{query}")
    page.wait_for_selector("#table-status[data-error]")
    assert page.get_attribute("#table-status", "data-error") == param
    assert page.inner_text("#table-status").startswith(f"Not applied: parameter '{param}'")
    assert len(_shown(page)) == len(real_catalog.accelerators)  # the whole table, as built


def test_a_comparison_not_built_says_so_and_lists_the_built_ones(page, static_site: str, real_catalog: Catalog) -> None:  # type: ignore[no-untyped-def]
    response = page.goto(f"{static_site}/compare/amd-instinct-mi300x-vs-google-tpu-v7/")
    assert response is not None and response.status == 404
    page.wait_for_selector("#not-prebuilt[data-pair]")
    assert page.inner_text("main h1") == "This comparison was not pre-built"
    assert page.get_attribute("#not-prebuilt", "data-pair") == "amd-instinct-mi300x,google-tpu-v7"
    listed = page.eval_on_selector_all("#not-prebuilt ul.prebuilt a", "links => links.map(a => a.textContent)")
    assert len(listed) == len(real_catalog.comparisons)
    assert "NVIDIA H100 SXM5 80GB vs NVIDIA H200 SXM" in listed or any("H100" in t and "H200" in t for t in listed)
    assert page.locator("#not-prebuilt .live-pair").count() == 0  # no live server named
    # The built pair in the list opens.
    page.click(f"#not-prebuilt a[href='/atlas/compare/{PAIR}/']")
    page.wait_for_url(f"**/atlas/compare/{PAIR}/")


def test_another_missing_page_stays_a_plain_404(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    response = page.goto(f"{static_site}/silicon/no-such-part/")
    assert response is not None and response.status == 404
    assert page.inner_text("main h1") == "No such page"


def test_with_a_live_server_the_missing_comparison_links_there(page, static_site_with_live: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site_with_live}/compare/amd-instinct-mi300x-vs-google-tpu-v7")
    page.wait_for_selector("#not-prebuilt[data-pair]")
    assert page.get_attribute("#not-prebuilt .live-pair a", "href") == f"{LIVE}/compare/amd-instinct-mi300x-vs-google-tpu-v7"


@pytest.mark.parametrize(
    ("path", "lands"),
    [
        ("/silicon/Trn3/", "/silicon/aws-trainium-3/"),
        ("/silicon/Trn3", "/silicon/aws-trainium-3/"),
        ("/compare/nvidia-h200-sxm-vs-nvidia-h100-sxm/", f"/compare/{PAIR}/"),
    ],
)
def test_an_alias_lands_on_the_canonical_page(page, static_site: str, path: str, lands: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(static_site + path)
    page.wait_for_url(f"**/atlas{lands}")
    assert page.get_attribute("link[rel=canonical]", "href") == f"https://atlas.example.org/atlas{lands}"


def test_on_the_live_site_the_script_leaves_the_servers_answer(page, server: str) -> None:  # type: ignore[no-untyped-def]
    _, live_html = _live(server, "sort=-memory&vendor=amd")
    page.goto(f"{server}/silicon/?sort=-memory&vendor=amd")
    page.wait_for_load_state("load")  # the deferred script has run
    assert page.locator("#table-status").is_hidden()
    assert _shown(page) == re.findall(r'<tr data-id="([^"]+)"', live_html)
    assert page.inner_text("#table-count") == re.search(r'<span id="table-count">([^<]+)</span>', live_html)[1]  # type: ignore[index]

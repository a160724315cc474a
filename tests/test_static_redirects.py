"""Redirects on a static copy of the site: every other name of a page that the live app answers
with a redirect (a part's alias, the other order of a curated pair, ``/cloud/prices``) is a
file with a meta refresh and a canonical link to the page; the folder URLs a static host
already redirects (``/data`` → ``/data/``) keep their page. And the static table page and
404 page are what their scripts need."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup

from computeatlas.build import static as site
from computeatlas.build.links import dead_links
from computeatlas.catalog import Catalog
from computeatlas.core.amounts import UNITS, parse_amount
from computeatlas.silicon import table
from computeatlas.web.app import create_app
from computeatlas.web.routes import redirect_paths
from computeatlas.web.silicon import table_spec
from tests.comparedata import compare_catalog, compare_data  # noqa: F401  (fixtures)
from tests.conftest import fresh_client

ORIGIN = "https://atlas.example.org"


@pytest.fixture(scope="module")
def built(compare_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> site.BuildResult:
    """The comparison test catalog (aliases, one curated pair) built for /sub/, no live server."""
    return site.build(compare_catalog, tmp_path_factory.mktemp("redirects") / "out", "/sub/", site_url=ORIGIN)


def test_the_redirects_are_every_alias_naming_one_part_and_the_other_order_of_each_pair(compare_catalog: Catalog) -> None:
    paths = redirect_paths(compare_catalog)
    assert paths[: paths.index("/data") + 1] == [
        "/silicon",
        "/compare",
        "/energy",
        "/systems",
        "/economics",
        "/cloud",
        "/cloud/prices",
        "/cloud/prices/",
        "/data",
    ]
    # "Acme" is the family word of two parts (its page lists both), so it is not a redirect.
    assert paths[paths.index("/data") + 1 :] == [
        "/silicon/A1",
        "/silicon/Acme%20One",
        "/silicon/A2",
        "/silicon/G1",
        "/silicon/I1",
        "/compare/acme-a2-vs-acme-a1",
    ]


def test_each_one_is_a_redirect_the_live_app_answers(compare_catalog: Catalog) -> None:
    with fresh_client(create_app(compare_catalog)) as client:
        for path in redirect_paths(compare_catalog):
            assert client.get(path, follow_redirects=False).status_code == 301, path


def test_a_static_build_writes_a_redirect_page_for_each(built: site.BuildResult) -> None:
    out = built.out_dir
    expected = {
        "/silicon/A1": "/sub/silicon/acme-a1/",
        "/silicon/Acme%20One": "/sub/silicon/acme-a1/",
        "/silicon/G1": "/sub/silicon/globex-g1/",
        "/compare/acme-a2-vs-acme-a1": "/sub/compare/acme-a1-vs-acme-a2/",
        "/cloud/prices": "/sub/cloud/#prices",
    }
    for path, target in expected.items():
        assert built.redirects[path] == site.file_for(path, "text/html")
        soup = BeautifulSoup((out / built.redirects[path]).read_text(encoding="utf-8"), "lxml")
        assert soup.find("meta", attrs={"http-equiv": "refresh"})["content"] == f"0; url={target}", path
        assert soup.find("link", rel="canonical")["href"] == ORIGIN + target, path
    assert (out / "silicon" / "Acme One" / "index.html").is_file()
    # A folder's own URL without the slash is the host's to redirect: the page is not overwritten.
    for folder in ("silicon", "compare", "data", "cloud"):
        assert f"/{folder}" not in built.redirects
        page = BeautifulSoup((out / folder / "index.html").read_text(encoding="utf-8"), "lxml")
        assert page.find("meta", attrs={"http-equiv": "refresh"}) is None and page.h1 is not None, folder
    dead = dead_links(out, "/sub/", ORIGIN)
    assert dead == [], "\n".join(map(str, dead))


def test_a_redirect_page_escapes_its_target() -> None:
    page = site.redirect_page('/sub/a"b/?x=1&y=<2>', ORIGIN)
    assert 'content="0; url=/sub/a&quot;b/?x=1&amp;y=&lt;2&gt;"' in page
    assert f'<link rel="canonical" href="{ORIGIN}/sub/a&quot;b/?x=1&amp;y=&lt;2&gt;">' in page
    assert site.redirect_page("https://live.example.org/x", ORIGIN).count('href="https://live.example.org/x"') == 2


def test_the_static_table_page_carries_what_its_script_reads(built: site.BuildResult) -> None:
    soup = BeautifulSoup((built.out_dir / "silicon" / "index.html").read_text(encoding="utf-8"), "lxml")
    assert soup.select_one("form.filters")["data-static"] == "script"
    assert soup.select_one('script[src="/sub/static/table.js"]') is not None and (built.out_dir / "static" / "table.js").is_file()
    assert soup.select_one("#silicon-table")["data-query"] == ""  # rendered for no query: the script applies the address's
    a2 = soup.select_one('tr[data-id="acme-a2"]')
    assert (a2["data-name"], a2["data-vendor"]) == ("Acme A2", "acme")
    memory = a2.select_one('td[data-key="memory"]')
    assert (memory["data-number"], memory["data-text"]) == ("144", "144")
    power = a2.select_one('td[data-key="power"]')
    assert not power.has_attr("data-number") and power["data-text"] == "not published"


def test_the_script_reads_range_bounds_with_the_servers_units() -> None:
    spec = table_spec()
    for key, column in table.BY_KEY.items():
        entry = spec["columns"][key]
        assert entry["by_number"] == column.sortable_by_number
        if not column.numeric:
            assert "units" not in entry
            continue
        assert column.dimension is not None and column.unit is not None
        assert entry["units"] == dict(UNITS[column.dimension]) and entry["unit"] == column.unit
        for unit, size in entry["units"].items():  # what table.js computes: number × size ÷ scale
            assert 1.5 * size / entry["scale"] == parse_amount(f"1.5 {unit}", column.dimension, column.unit) / column.scale
    assert spec["columns"]["memory"]["fold"] is False and spec["columns"]["power"]["fold"] is True


def test_the_static_404_page_lists_the_built_comparisons(built: site.BuildResult, compare_catalog: Catalog) -> None:
    soup = BeautifulSoup((built.out_dir / "404.html").read_text(encoding="utf-8"), "lxml")
    box = soup.select_one("#not-prebuilt")
    assert box["data-compare"] == "/sub/compare/" and box["data-live"] == ""
    assert [(a.get_text(), a["href"]) for a in box.select("ul.prebuilt a")] == [("Acme A2 vs Acme A1", "/sub/compare/acme-a1-vs-acme-a2/")]
    assert soup.select_one('script[src="/sub/static/notfound.js"]') is not None
    # The live site's 404 page has no such list: every comparison is answered there.
    with fresh_client(create_app(compare_catalog)) as client:
        live = client.get("/404.html")
    assert live.status_code == 404 and 'id="not-prebuilt"' not in live.text


def test_the_live_table_page_says_it_answered_its_query(compare_catalog: Catalog) -> None:
    with fresh_client(create_app(compare_catalog)) as client:
        page = BeautifulSoup(client.get("/silicon/?sort=-memory&vendor=acme").text, "lxml")
    assert page.select_one("#silicon-table")["data-query"] == "sort=-memory&vendor=acme"
    assert page.select_one("#table-status")["hidden"] == ""  # the script, seeing the query answered, leaves it hidden

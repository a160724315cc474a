"""Search on a static copy of the site, in a real browser: the page's script reads ?q= and
lists the same parts, in the same order, as the live search (computeatlas/silicon/search.py),
from the prebuilt index; an exact match alone opens its page. Served by a plain file server."""

from __future__ import annotations

import functools
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

import pytest

from computeatlas.build import static as site
from computeatlas.catalog import Catalog
from computeatlas.silicon.search import search
from tests.browser.conftest import _page_in_context

PAGES = ["/search", "/api/search-index", "/silicon/nvidia-b200"]


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        """Say nothing: the test reads the pages, not the log."""


@pytest.fixture(scope="module")
def static_site(real_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The search page, its index and one part's page, built under /atlas/ and served from files."""
    root = tmp_path_factory.mktemp("static-search")
    site.build(real_catalog, root / "atlas", "/atlas/", site_url="https://atlas.example.org", paths=PAGES)
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/atlas"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def page(browser: object) -> Iterator[object]:
    """One 1280×900 page for every search here: each test opens its own URL, and the static
    pages keep nothing between visits (a new context per query cost a renderer each time)."""
    with _page_in_context(browser, 15_000, viewport={"width": 1280, "height": 900}) as shared:
        yield shared


@pytest.mark.parametrize("query", ["TPU", "Blackwell", "Trainium", "H100", "MI300", "nvidia hopper", "no such part"])
def test_the_static_search_lists_what_the_live_search_does(page, static_site: str, real_catalog: Catalog, query: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/search/?q={query.replace(' ', '+')}")
    page.wait_for_selector("#results[data-status]")
    listed = page.eval_on_selector_all("#results .matches li", "items => items.map(li => [li.dataset.id, li.dataset.matchedBy])")
    live = search(real_catalog, query)
    assert listed == [[m.id, m.matched_by] for m in live.matches]
    assert page.get_attribute("#results", "data-status") == live.status
    if live.matches:
        # Links come from the index, made by the build's URL registry (a page not built keeps its path).
        assert page.get_attribute("#results .matches li a", "href") == f"/atlas/silicon/{live.matches[0].id}" + (
            "/" if live.matches[0].id == "nvidia-b200" else ""
        )
    assert page.input_value("main form.search-form input[name=q]") == query


def test_an_exact_match_alone_opens_its_page(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/search/?q=B200")
    page.wait_for_url("**/atlas/silicon/nvidia-b200/")
    assert page.locator("h1").first.inner_text().startswith("NVIDIA B200")

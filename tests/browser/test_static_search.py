"""Search on a static copy of the site, in a real browser: the page's script reads ?q= and
lists the same hits (kind, id, how matched), in the same order, as the live search
(computeatlas/pages/search.py), from the prebuilt index; an exact match alone opens its page.
Served from files (:mod:`tests.browser.static_host`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from computeatlas.build import static as site
from computeatlas.catalog import Catalog
from computeatlas.pages.search import search_result
from tests.browser.conftest import _page_in_context
from tests.browser.static_host import serve_folder

PAGES = ["/search", "/api/search-index", "/silicon/aws-trainium-2", "/economics/models/llama-3-3-70b"]


@pytest.fixture(scope="module")
def static_site(real_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The search page, its index and one part's page, built under /atlas/ and served from files."""
    root = tmp_path_factory.mktemp("static-search")
    site.build(real_catalog, root / "atlas", "/atlas/", site_url="https://atlas.example.org", paths=PAGES)
    yield from serve_folder(root)


@pytest.fixture(scope="module")
def page(browser: object) -> Iterator[object]:
    """One 1280×900 page for every search here: each test opens its own URL, and the static
    pages keep nothing between visits (a new context per query cost a renderer each time)."""
    with _page_in_context(browser, 15_000, viewport={"width": 1280, "height": 900}) as shared:
        yield shared


@pytest.mark.parametrize(
    "query", ["TPU", "Blackwell", "Trainium", "H100", "MI300", "nvidia hopper", "no such part", "llama 3.3 70b", "gpt-oss", "coreweave"]
)
def test_the_static_search_lists_what_the_live_search_does(page, static_site: str, real_catalog: Catalog, query: str) -> None:  # type: ignore[no-untyped-def]
    live = search_result(real_catalog, query)
    page.goto(f"{static_site}/search/?q={query.replace(' ', '+')}")
    if live.match is not None and len(live.matches) == 1:  # the live search redirects; so does the script
        page.wait_for_url(f"**/atlas{live.match.url}")
        return
    page.wait_for_selector("#results[data-status]")
    listed = page.eval_on_selector_all(
        "#results .matches li", "items => items.map(li => [li.dataset.kind, li.dataset.id, li.dataset.matchedBy])"
    )
    assert listed == [[m.kind, m.id, m.matched_by] for m in live.matches]
    assert page.get_attribute("#results", "data-status") == live.status
    if live.matches:
        # Links come from the index, made by the build's URL registry (a page not built keeps its path).
        first = live.matches[0].url
        assert page.get_attribute("#results .matches li a", "href") == f"/atlas{first}" + ("/" if first in PAGES else "")
    assert page.input_value("main form.search-form input[name=q]") == query


def test_an_exact_match_alone_opens_its_page(page, static_site: str) -> None:  # type: ignore[no-untyped-def]
    page.goto(f"{static_site}/search/?q=Trn2")
    page.wait_for_url("**/atlas/silicon/aws-trainium-2/")
    assert page.locator("h1").first.inner_text().startswith("AWS Trainium2")

"""Domains return values; pages assemble them: only ``pages/``, ``web/`` and ``build/`` build
URLs through the registry (``computeatlas.core.urls``). Domains and charts are given the links
they show (a link function, a chart's links) by their callers, or return ids the page layer links.
"""

from __future__ import annotations

import grimp
import pytest

URLS = "computeatlas.core.urls"
ALLOWED_PACKAGES = ("computeatlas.pages", "computeatlas.web", "computeatlas.build")


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("computeatlas", exclude_type_checking_imports=False, cache_dir=None)


def url_importers(graph: grimp.ImportGraph) -> set[str]:
    """Every module that imports the URL registry (type-only imports included)."""
    return set(graph.find_modules_that_directly_import(URLS))


def outside_the_page_layer(modules: set[str]) -> set[str]:
    """The modules of ``modules`` that are not in pages/, web/ or build/ (nor the registry itself)."""
    return {m for m in modules if m != URLS and not any(m == p or m.startswith(p + ".") for p in ALLOWED_PACKAGES)}


def test_only_pages_web_and_build_build_urls(graph: grimp.ImportGraph) -> None:
    assert sorted(outside_the_page_layer(url_importers(graph))) == []
    assert {"computeatlas.pages.cloud_links", "computeatlas.web.chart_links"} <= url_importers(graph)  # the links they are given


def test_a_domain_module_importing_the_registry_is_caught() -> None:
    graph = grimp.build_graph("computeatlas", exclude_type_checking_imports=False, cache_dir=None)  # its own: it adds an import
    graph.add_import(importer="computeatlas.silicon.derive", imported=URLS)
    graph.add_import(importer="computeatlas.web.app", imported=URLS)
    assert sorted(outside_the_page_layer(url_importers(graph))) == ["computeatlas.silicon.derive"]

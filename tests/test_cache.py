"""The page cache: keyed by date, bounded in bytes, never keeping unknown query variants;
and no body that depends on the request's Host header."""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.core.cache import Stats
from computeatlas.core.settings import Settings
from computeatlas.web.app import create_app
from computeatlas.web.cache import PAGES
from tests.test_pricing import NOW, priced_cloud


@pytest.fixture
def cloud_catalog(tmp_path: Path) -> Catalog:
    return priced_cloud(tmp_path / "data")[0]


def test_date_dependent_pages_follow_the_date(cloud_catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    day = {"now": NOW}
    monkeypatch.setattr(history, "utcnow", lambda: day["now"])
    settings = Settings(data=tmp_path / "data")
    client = TestClient(create_app(cloud_catalog, settings))
    for path in ("/cloud/alpha", "/api/offers?include_stale=true"):
        first = client.get(path)
        assert client.get(path).content == first.content  # served from the cache
        day["now"] = NOW + dt.timedelta(days=200)  # every offer is stale by now
        later = client.get(path)
        fresh = TestClient(create_app(cloud_catalog, settings)).get(path)
        assert later.content == fresh.content, path
        assert later.content != first.content, path
        assert later.headers["etag"] != first.headers["etag"]
        day["now"] = NOW
    day["now"] = NOW + dt.timedelta(days=200)
    stale = client.get("/api/offers?include_stale=true").json()
    assert len(stale) == 9 and all(offer["stale"] for offer in stale)
    assert client.get("/api/offers").json() == []  # nothing is current any more


def test_the_cache_is_bounded_in_bytes(catalog: Catalog) -> None:
    client = TestClient(create_app(catalog, Settings(page_cache_bytes=30_000)))
    cache = client.app.state.cache
    for path in ("/", "/silicon/", "/silicon/acme-a1", "/silicon/acme-a2", "/silicon/globex-g1", "/api/accelerators"):
        assert client.get(path).status_code == 200
        assert 0 < cache.size <= 30_000
    assert cache.size == sum(s.bytes for s in cache.namespaces().values())
    assert cache.stats(PAGES).misses == 6 and cache.stats(PAGES).entries < 6  # the oldest went to make room
    off = TestClient(create_app(catalog, Settings(page_cache=False)))
    off.get("/silicon/")
    assert off.app.state.cache.stats(PAGES) == Stats()  # not even looked up


def test_unknown_query_parameters_are_served_but_not_kept(catalog: Catalog) -> None:
    client = TestClient(create_app(catalog))
    cache = client.app.state.cache
    plain = client.get("/silicon/")
    kept = cache.stats(PAGES).entries
    for n in range(20):
        response = client.get(f"/silicon/?utm_source=mail{n}")
        assert response.status_code == 200 and response.content == plain.content
    assert cache.stats(PAGES).entries == kept == 1
    client.get("/silicon/?sort=-memory")  # a declared parameter is a page of its own
    assert cache.stats(PAGES).entries == kept + 1


HOST_PATHS = (
    "/",
    "/silicon/",
    "/silicon/acme-a1",
    "/api/accelerators",
    "/api/accelerators/acme-a1",
    "/sitemap.xml",
    "/feed.xml",
    "/robots.txt",
    "/compare/",
    "/cloud/",
    "/records/",
    "/api/docs",
    "/openapi.json",
)


def test_the_host_header_never_changes_a_body(catalog: Catalog) -> None:
    settings = Settings(public_origin="https://atlas.example.org")
    honest = TestClient(create_app(catalog, settings))
    forged = TestClient(create_app(catalog, settings), base_url="http://evil.example")
    for path in HOST_PATHS:
        good = honest.get(path)
        bad = forged.get(path, headers={"Host": "evil.example"})
        assert good.status_code == bad.status_code == 200, path
        # the API reference shows the collectors' status as asked of the app: its as_of is the time of asking
        same = (lambda body: re.sub(rb"&#34;as_of&#34;: &#34;[^&]+&#34;", b"", body)) if path == "/api/docs" else (lambda body: body)
        assert same(good.content) == same(bad.content), path
        assert b"evil.example" not in bad.content, path
    page = honest.get("/silicon/acme-a1").text
    assert '<link rel="canonical" href="https://atlas.example.org/silicon/acme-a1">' in page
    assert "https://atlas.example.org/sitemap.xml" in honest.get("/robots.txt").text
    assert "<loc>https://atlas.example.org/silicon/acme-a1</loc>" in honest.get("/sitemap.xml").text


@pytest.mark.parametrize(
    ("path", "location"),
    [
        ("/silicon/acme-a1/", "/silicon/acme-a1"),
        ("/api/accelerators/", "/api/accelerators"),
        ("/silicon/acme-a1/?sort=x", "/silicon/acme-a1?sort=x"),
        ("/silicon", "/silicon/"),
    ],
)
def test_a_slash_redirect_never_names_the_requests_host(catalog: Catalog, path: str, location: str) -> None:
    forged = TestClient(create_app(catalog, Settings(public_origin="https://atlas.example.org")), base_url="http://evil.example")
    response = forged.get(path, headers={"Host": "evil.example"}, follow_redirects=False)
    assert response.status_code == 301
    assert response.headers["location"] == location


def test_a_path_no_route_answers_either_way_is_a_404(catalog: Catalog) -> None:
    response = TestClient(create_app(catalog, Settings())).get("/nowhere/", follow_redirects=False)
    assert response.status_code == 404


def test_a_page_and_its_json_twin_share_one_view_per_date(cloud_catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.web import silicon

    day = {"now": NOW}
    monkeypatch.setattr(history, "utcnow", lambda: day["now"])
    built: list[str] = []
    real = silicon.accelerator_view
    monkeypatch.setattr(silicon, "accelerator_view", lambda catalog, acc, **kw: built.append(acc.id) or real(catalog, acc, **kw))
    ident = next(iter(cloud_catalog.accelerators))
    client = TestClient(create_app(cloud_catalog, Settings(data=tmp_path / "data")))
    page, twin = client.get(f"/silicon/{ident}"), client.get(f"/api/accelerators/{ident}")
    assert page.status_code == twin.status_code == 200 and built == [ident]  # one view for both
    assert twin.json()["id"] == ident and twin.json()["name"] in page.text and twin.json()["rent"]["observed"]["offers"] > 0
    day["now"] = NOW + dt.timedelta(days=200)  # the next day's pages build their view anew
    assert client.get(f"/api/accelerators/{ident}").json()["rent"]["observed"]["offers"] == 0
    assert built == [ident, ident]
    off = TestClient(create_app(cloud_catalog, Settings(data=tmp_path / "data", page_cache=False)))
    off.get(f"/silicon/{ident}"), off.get(f"/api/accelerators/{ident}")
    assert built == [ident] * 4  # with the cache off nothing is kept

"""URLs from one registry (core/urls.py): routes, links, redirects and absolute URLs all
follow the base path and the public origin."""

from __future__ import annotations

import re
from pathlib import Path

from fastapi.testclient import TestClient

import computeatlas
from computeatlas.catalog import Catalog
from computeatlas.core.settings import Settings
from computeatlas.core.urls import PATTERNS, Urls, site_path
from computeatlas.web import routes
from computeatlas.web.app import create_app

TEMPLATES = Path(computeatlas.__file__).resolve().parent / "web" / "templates"


def test_every_route_takes_its_path_from_the_registry() -> None:
    names = {route.name for route in routes.ROUTES}
    assert names <= set(PATTERNS)
    assert {route.path for route in routes.ROUTES} == {PATTERNS[name] for name in names}
    assert site_path("silicon_page", ident="aws-trainium-3") == "/silicon/aws-trainium-3"
    assert site_path("silicon_page", ident="a/b?c") == "/silicon/a%2Fb%3Fc"
    assert Urls("/atlas").path("compare_pair", pair="a-vs-b") == "/atlas/compare/a-vs-b"


def test_templates_type_no_site_path_by_hand() -> None:
    typed = [
        f"{file.name}: {value}"
        for file in sorted(TEMPLATES.glob("*.html"))
        for value in re.findall(r"""(?:href|src|action)=["'](/[^"']*)["']""", file.read_text(encoding="utf-8"))
    ]
    assert typed == []


def test_the_link_filter_puts_site_paths_under_the_base_path() -> None:
    urls = Urls("/atlas", "https://atlas.example.org")
    assert urls.link("/silicon/x") == "/atlas/silicon/x"
    assert urls.link("/atlas/silicon/x") == "/atlas/silicon/x"
    assert urls.link("https://vendor.example/sheet.pdf") == "https://vendor.example/sheet.pdf"
    assert urls.link("#sources") == "#sources"
    assert Urls().link("/silicon/x") == "/silicon/x"


def test_the_site_works_under_a_base_path(catalog: Catalog) -> None:
    settings = Settings(base_path="/atlas", public_origin="https://atlas.example.org")
    client = TestClient(create_app(catalog, settings), follow_redirects=False)
    assert client.get("/silicon/acme-a1").status_code == 404
    for path in ("/", "/silicon/", "/silicon/acme-a1", "/compare/", "/cloud/", "/energy/", "/economics/estimate", "/records/", "/api/docs"):
        response = client.get("/atlas" + path)
        assert response.status_code == 200, path
        links = re.findall(r"""(?:href|src|action)="(/[^"]*)\"""", response.text)
        assert links and all(link.startswith("/atlas/") for link in links), (path, [x for x in links if not x.startswith("/atlas/")])
    page = client.get("/atlas/silicon/acme-a1").text
    assert '<link rel="canonical" href="https://atlas.example.org/atlas/silicon/acme-a1">' in page
    assert client.get("/atlas/static/site.css").status_code == 200
    assert client.get("/atlas/silicon").headers["location"] == "/atlas/silicon/"
    assert client.get("/atlas/silicon/Acme%20A1").headers["location"] == "/atlas/silicon/acme-a1"
    assert "<loc>https://atlas.example.org/atlas/silicon/acme-a1</loc>" in client.get("/atlas/sitemap.xml").text
    assert "Sitemap: https://atlas.example.org/atlas/sitemap.xml" in client.get("/atlas/robots.txt").text
    missing = client.get("/atlas/api/accelerators/acme-a9")
    assert missing.status_code == 404 and missing.json()["suggestions"][0]["url"].startswith("/atlas/silicon/")
    listed = client.get("/atlas/api/accelerators").json()
    assert listed[0]["url"] == "/atlas/silicon/acme-a1" and listed[0]["api_url"] == "/atlas/api/accelerators/acme-a1"
    one = client.get("/atlas/api/accelerators/acme-a1").json()
    assert one["sources"][0]["url"] == "https://acme.example/sheet.pdf"  # other sites' addresses are kept
    schema = client.get("/atlas/openapi.json").json()
    assert "/api/accelerators" in schema["paths"] and schema["servers"] == [{"url": "/atlas"}]

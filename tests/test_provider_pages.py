"""A page for every provider the site shows a price of: no provider link leads to a 404, and a
provider without a record says so (kind "not yet recorded"), with what its observations say."""

from __future__ import annotations

from urllib.parse import urlsplit

from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog


def _provider_links(html: str) -> set[str]:
    """The provider pages a page links to (``/cloud/{id}``, not the price pages or the index)."""
    links = set()
    for a in BeautifulSoup(html, "lxml").select("a[href]"):
        path = urlsplit(a["href"]).path
        parts = path.strip("/").split("/")
        if len(parts) == 2 and parts[0] == "cloud" and parts[1] not in ("prices", "status", "charts"):
            links.add(path)
    return links


def test_every_provider_link_on_the_cloud_and_price_pages_answers(real_client: TestClient, real_catalog: Catalog) -> None:
    pages = ["/cloud/", "/cloud/?include_stale=true"] + [f"/cloud/prices/{ident}" for ident in real_catalog.accelerators]
    found: set[str] = set()
    for page in pages:
        answer = real_client.get(page)
        if answer.status_code == 200:
            found |= _provider_links(answer.text)
    # The bundled store holds stale prices of providers we have no record of yet.
    assert {"/cloud/tensordock", "/cloud/jarvislabs", "/cloud/novita", "/cloud/massed-compute"} <= found
    assert {f"/cloud/{ident}" for ident in ("aws", "lambda", "runpod")} <= found
    broken = [link for link in sorted(found) if real_client.get(link).status_code != 200]
    assert broken == []


def test_a_provider_without_a_record_says_so_and_invents_nothing(real_client: TestClient) -> None:
    page = BeautifulSoup(real_client.get("/cloud/tensordock").text, "lxml")
    facts = {
        d.select_one("dt").get_text(strip=True): d.select_one("dd").get_text(" ", strip=True)
        for d in page.select("dl.provider-facts .spec")
    }
    assert facts["Kind"] == "not yet recorded" and facts["Site"] == "not yet recorded"
    assert "NVIDIA H100 SXM5 80GB" in facts["Rents"]  # from its observations
    assert facts["Collection status"].startswith("prices last collected 2026-03-23 07:02 UTC (through OpenComputePrices tensordock.csv")
    assert "(as its offers state them)" in facts["Regions"]
    body = real_client.get("/api/providers/tensordock").json()
    assert body["recorded"] is False and body["kind"] == "not yet recorded" and body["url"] is None and body["verified"] is None
    assert body["last_collected"]["collected"] == "2026-03-23T07:02:37Z" and body["offers"]
    assert max(o["collected"] for o in body["offers"]) == body["last_collected"]["collected"]
    assert real_client.get("/cloud/no-such-provider").status_code == 404


def test_a_recorded_provider_shows_its_collection_status(real_client: TestClient) -> None:
    body = real_client.get("/api/providers/lambda").json()
    assert body["recorded"] is True and body["kind"] == "neocloud" and body["url"] == "https://lambda.ai/"
    assert body["last_collected"]["collected"] == "2026-09-20T00:00:00Z"
    page = BeautifulSoup(real_client.get("/cloud/lambda").text, "lxml")
    assert page.select_one("#collection dd").get_text(" ", strip=True).startswith("prices last collected 2026-09-20 00:00 UTC (through ")

"""The cloud layer's faces: pages (parsed with BeautifulSoup), the JSON API, the CLI, and
the real bundled offers.

Small-catalog tests use the fixed offers of :mod:`tests.test_pricing`, imported into a small
store (expected figures are worked by hand there); real-data tests use the bundled store
``data/prices`` (which holds the hand-typed ``data/offers``, imported).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi import FastAPI
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cli import app as cli
from computeatlas.cloud import history, pricing, queries, rules
from computeatlas.cloud.instances import instance_table
from computeatlas.cloud.offers import current_offers
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.pages.cloud_links import offer_page
from computeatlas.web.app import create_app
from computeatlas.web.cache import PAGES
from computeatlas.web.cloud import static_paths
from tests.conftest import CliRunner, fresh_client

from .test_pricing import NOW as CLOUD_NOW
from .test_pricing import (  # noqa: F401  (fixtures)
    O,
    cloud_catalog,
    cloud_folder,
    import_offers,
    priced_cloud,
    write_cloud,
)


@pytest.fixture(scope="module")
def cloud_app(cloud_catalog: Catalog, cloud_folder: Path) -> FastAPI:
    return create_app(cloud_catalog, Settings(data=cloud_folder))


@pytest.fixture
def cloud_client(cloud_app: FastAPI) -> TestClient:
    return fresh_client(cloud_app)


def soup(client: TestClient, url: str) -> BeautifulSoup:
    response = client.get(url)
    assert response.status_code == 200, (url, response.text[:300])
    return BeautifulSoup(response.text, "lxml")


def text(node) -> str:  # type: ignore[no-untyped-def]
    """The words of ``node`` as a reader sees them: one space between, none before punctuation."""
    words = " ".join(node.get_text(" ").split())
    return re.sub(r"\( ", "(", re.sub(r" ([,.;)])", r"\1", words))


# --- pages ---------------------------------------------------------------------------


NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
"""The moment "current" is measured at in these tests: the bundled store's figures below
(data/prices) are as of this time; a later date makes more of them history."""


@pytest.fixture
def at_now(monkeypatch: pytest.MonkeyPatch) -> dt.datetime:
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    return NOW


@pytest.fixture
def at_cloud_now(monkeypatch: pytest.MonkeyPatch) -> dt.datetime:
    """The small store's clock: 2026-11-30 12:00 UTC (see tests.test_pricing)."""
    monkeypatch.setattr(history, "utcnow", lambda: CLOUD_NOW)
    return CLOUD_NOW


def test_price_page_reads_the_store_spread_ends_dated_and_linked(real_client: TestClient, at_now: dt.datetime) -> None:
    page = soup(real_client, "/cloud/prices/nvidia-h100-sxm")
    spread = text(page.select_one("#current .spread"))
    # data/prices: RunPod 1x H100 SXM Community 2.69 and Azure ND96isr_H100_v5 12.29 per GPU-hour (both data-receipts,
    # 2026-11-09); Azure's ND H100 v5 is on the SXM variant by Microsoft's NVSwitch statement, so it is in the spread:
    # 12.29 ÷ 2.69 = 4.57×, the same-day figure of an independent check of the same SKU
    assert "variant sxm-80gb, on-demand, USD, current): 4.57× over 10 observations" in spread
    assert "cheapest 2.69 USD (Runpod, 1x H100 SXM (Community Cloud), 2026-11-09, source)" in spread  # provider names, not ids
    assert "dearest 12.29 USD (Microsoft Azure, Standard_ND96isr_H100_v5, 2026-11-09, source)" in spread
    assert next(a["href"] for a in page.select("#current .spread a")).startswith("https://raw.githubusercontent.com/datareceipts/")
    rows = page.select("#current table.observed tbody tr")
    assert len(rows) == 14 and {r["data-pricing"] for r in rows} == {"on_demand", "spot"}
    collected = [re.search(r"\d{4}-\d{2}-\d{2}", text(r.select("td")[8])).group(0) for r in rows]  # type: ignore[union-attr]
    assert min(collected) >= "2026-09-02"  # the March 2026 observations are history, never current
    aws = next(r for r in rows if text(r.select("td")[0]) == "Amazon Web Services")
    assert "55.04 USD per hour" in text(aws) and "6.88 USD" in text(aws)  # p5.48xlarge ÷ 8, late-2026 import
    # readable: the region with AWS's own name for it, the pricing kind in words, the source as the upstream file
    assert text(aws.select_one('td[data-label="Region"]')) == "us-east-1 (US East (N. Virginia))"
    assert text(aws.select_one('td[data-label="Pricing"]')) == "on-demand"
    source = aws.select_one('td[data-label="Source"] a')
    assert text(source) == "hyperscalers.json in datareceipts/data-receipts" and source["href"].endswith("/hyperscalers.json")
    march = next(r for r in page.select("#history tbody tr") if text(r.select("td")[0]) == "2026-03-21" and r["data-provider"] == "lambda")
    assert text(march).endswith("3.29 17")  # Lambda's median of its 17 on-demand observations that day
    assert {r["data-provider"] for r in page.select("#history tbody tr")} >= {"aws", "azure", "runpod"}
    assert "all" not in {r["data-provider"] for r in page.select("#history tbody tr")}  # no median over a changing set of providers


def test_price_page_puts_spot_beside_on_demand_with_the_discount(real_client: TestClient, at_now: dt.datetime) -> None:
    page = soup(real_client, "/cloud/prices/nvidia-h200-sxm")
    spot = next(r for r in page.select('#current tr[data-pricing="spot"]') if "a3-ultragpu-8g" in text(r))
    assert "6.2607 USD" in text(spot) and text(spot.select("td")[6]) == "40%"  # 6.2607 against 10.4365 on demand, 2026-10-13
    later = dt.datetime(2027, 6, 1, tzinfo=dt.UTC)  # staleness is measured at request time
    history.utcnow = lambda: later  # type: ignore[assignment]  (monkeypatch restores it)
    assert "No observation of this part is younger than 90 days" in text(soup(real_client, "/cloud/prices/nvidia-h200-sxm"))


def test_price_page_parameters(real_client: TestClient, at_now: dt.datetime) -> None:
    other = text(soup(real_client, "/cloud/prices/nvidia-h100-sxm?variant=sxm").select_one(".spread"))
    # the offers that state SXM without the memory: Voltage Park 1.99, Nebius 4.50 — never mixed with sxm-80gb
    assert "variant sxm, on-demand, USD, current): 2.26× over 2 observations — cheapest 1.99 USD (Voltage Park" in other
    assert "dearest 4.50 USD (Nebius" in other
    window = soup(real_client, "/cloud/prices/nvidia-h100-sxm?since=2026-11-01")
    assert {text(r.select("td")[0]) for r in window.select("#history tbody tr")} == {"2026-11-09"}


def test_bad_parameters_are_400s_that_name_them(cloud_client: TestClient) -> None:
    for url, words in (
        ("/cloud/prices/acme-a1?since=yesterday", "since"),
        ("/api/prices/acme-a1?pricing=perhaps", "pricing"),
        ("/cloud/?pricing=free", "pricing"),
        ("/cloud/?region=<script>", "region"),
        ("/api/offers?provider=nobody", "provider"),
        ("/api/prices/acme-a1?until=2026-13-01", "until"),
    ):
        response = cloud_client.get(url)
        assert response.status_code == 400, url
        assert f"'{words}'" in html.unescape(response.text) or words in response.json().get("detail", ""), url
        assert "<script>" not in response.text


def test_unknown_parameters_are_ignored(cloud_client: TestClient, at_now: dt.datetime) -> None:
    for path in ("/cloud/prices/acme-a1", "/api/prices/acme-a1", "/api/offers", "/cloud/"):
        plain = cloud_client.get(path)
        tracked = cloud_client.get(path, params={"ref": "home", "utm_source": "newsletter"})
        assert plain.status_code == tracked.status_code == 200, path
        assert tracked.content == plain.content, path


def test_unknown_ids_are_404s_with_suggestions(cloud_client: TestClient) -> None:
    page = cloud_client.get("/cloud/alfa")
    assert page.status_code == 404 and "/cloud/alpha" in page.text
    assert cloud_client.get("/cloud/prices/acme-a3").status_code == 404
    body = cloud_client.get("/api/providers/gama").json()
    assert body["status"] == 404 and body["suggestions"][0]["url"] == "/cloud/gamma"


def test_cloud_index_lists_providers_and_filters_prices(cloud_client: TestClient, at_cloud_now: dt.datetime) -> None:
    page = soup(cloud_client, "/cloud/")
    providers = {row["data-provider"]: text(row) for row in page.select("#providers tbody tr")}
    assert set(providers) == {"alpha", "beta", "gamma"}
    assert providers["beta"].startswith("Beta Cloud hyperscaler US, EU Acme A1, Acme A2 4")  # its bundle never became a price
    rows = page.select("table.offers[class] tbody tr[data-offer]")
    assert len(rows) == 8 and O[5] not in {r["data-offer"] for r in rows}  # 9 stored; the 2026-08-01 listing is history
    assert len(soup(cloud_client, "/cloud/?accelerator=acme-a2").select("tr[data-offer]")) == 1
    assert len(soup(cloud_client, "/cloud/?pricing=spot").select("tr[data-offer]")) == 1
    assert len(soup(cloud_client, "/cloud/?region=eu-west").select("tr[data-offer]")) == 3
    filtered = soup(cloud_client, "/cloud/?provider=beta&pricing=on-demand")
    assert {tr["data-offer"] for tr in filtered.select("tr[data-offer]")} == {O[3], O[8], O[10]}
    assert filtered.select_one('select[name="provider"] option[selected]')["value"] == "beta"


def test_provider_page_shows_lock_in_and_offers(cloud_client: TestClient, at_cloud_now: dt.datetime) -> None:
    page = soup(cloud_client, "/cloud/beta")
    facts = {d["data-topic"]: text(d) for d in page.select("#lock-in [data-topic]")}
    assert facts["exclusive_parts"].startswith("Parts only this cloud has Only Beta Cloud rents the Acme A2.")
    assert "Beta Cloud (the provider itself)" in facts["commitment"]
    missing = [text(d) for d in page.select("#lock-in dd.missing")]
    assert missing == ["not yet collected", "not yet collected"]  # software stack, egress
    assert {tr["data-offer"] for tr in page.select("tr[data-offer]")} == {O[3], O[8], O[10], O[11]}
    eight = page.select_one(f'tr[data-offer="{O[8]}"] [data-key="per-accelerator"]')
    assert text(eight).startswith("9.00 EUR per accelerator-hour 72.00 EUR ÷ 8 = 9.00 EUR")


def test_accelerator_page_says_where_you_rent_it(cloud_client: TestClient, at_cloud_now: dt.datetime) -> None:
    a2 = soup(cloud_client, "/silicon/acme-a2").select_one("#rent")
    assert "choosing this part is choosing Beta Cloud" in text(a2.select_one(".cloud-only"))
    assert text(a2.select_one(".exclusive")) == "Only Beta Cloud rents the Acme A2."
    assert "one offer observed in the 90 days to 2026-11-30, 7.50 USD per accelerator-hour (Beta Cloud, a2.xlarge, 2026-11-01)" in text(
        a2.select_one(".rent-range")
    )  # 30.00 USD ÷ 4
    a1 = soup(cloud_client, "/silicon/acme-a1").select_one("#rent")
    assert a1.select_one(".cloud-only") is None
    assert [a.text for a in a1.select(".rent-providers a")] == ["Alpha GPU", "Beta Cloud", "Gamma Market"]
    assert soup(cloud_client, "/silicon/globex-g1").select_one("#rent") is None  # no offer, no observation, not cloud-only
    assert cloud_client.get("/api/accelerators/globex-g1").json()["rent"] is None


def test_accelerator_page_shows_the_current_observed_range_dated_and_linked(
    real_client: TestClient, real_catalog: Catalog, at_now: dt.datetime
) -> None:
    # the range is the one rule's like-for-like set: its cheap end is the part's cheapest price (as the API gives it)
    cheapest = real_client.get("/api/prices/nvidia-h100-sxm/current").json()["cheapest"]
    assert cheapest["current"] and cheapest["variant"] == "sxm-80gb"
    rent = soup(real_client, "/silicon/nvidia-h100-sxm").select_one("#rent .rent-range")
    assert text(rent).startswith("Current on-demand price, ")
    assert (
        f"observed in the 90 days to 2026-12-01: from {cheapest['per_accelerator_hour']:.4g} USD per accelerator-hour "
        f"({real_catalog.providers[cheapest['provider']].name}, {cheapest['instance_type']}, {cheapest['collected'][:10]}) to "
    ) in text(rent)
    assert "variant sxm-80gb" in text(rent)
    assert [a["href"] for a in rent.select("a")][-2:] == ["/cloud/prices/nvidia-h100-sxm", "/cloud/prices/nvidia-h100-sxm#history"]
    body = real_client.get("/api/accelerators/nvidia-h100-sxm").json()["rent"]["observed"]
    assert (body["variant"], body["cheapest"]["per_accelerator_hour"]) == ("sxm-80gb", cheapest["per_accelerator_hour"])
    assert body["dearest"]["per_accelerator_hour"] >= body["cheapest"]["per_accelerator_hour"]


def test_nav_links_to_cloud(cloud_client: TestClient) -> None:
    assert soup(cloud_client, "/").select_one('nav a[href="/cloud/"]') is not None
    assert cloud_client.get("/cloud", follow_redirects=False).headers["location"] == "/cloud/"


# --- API -----------------------------------------------------------------------------


def test_api_offers_filters_and_shows_arithmetic(cloud_client: TestClient, at_cloud_now: dt.datetime) -> None:
    params = {"accelerator": "acme-a1", "pricing": "on-demand", "variant": "pcie-80gb"}
    body = cloud_client.get("/api/offers", params=params).json()
    assert [o["id"] for o in body] == [O[4], O[2], O[8]]  # current offers: USD by price, then the rest
    eight = next(o for o in body if o["id"] == O[2])
    assert (eight["per_accelerator_hour"], eight["arithmetic"]) == (12.29, "98.32 USD ÷ 8 = 12.29 USD per accelerator-hour")
    assert (eight["collected"], eight["data_file"]) == ("2026-11-01T00:00:00Z", "data/offers/offers.csv")
    assert next(o for o in body if o["id"] == O[8])["usd_comparable"] is False
    with_stale = cloud_client.get("/api/offers", params={**params, "include_stale": "true"}).json()
    assert [o["id"] for o in with_stale] == [O[5], O[4], O[2], O[8]]
    assert (with_stale[0]["stale"], with_stale[0]["age_days"]) == (True, 121)


def test_api_prices_is_the_page_data(real_client: TestClient, at_now: dt.datetime) -> None:
    body = real_client.get("/api/prices/nvidia-h100-sxm").json()
    spread = body["current"]["spread"]
    assert (spread["cheapest"]["provider"], spread["dearest"]["provider"], spread["counted"]) == ("runpod", "azure", 10)
    assert spread["ratio"] == pytest.approx(12.29 / 2.69)
    assert body["current"]["as_of"].startswith("2026-12-01T12:00")
    assert {(p["provider"], p["per_accelerator_hour"]) for p in body["current"]["prices"]} >= {("aws", 6.88), ("azure", 12.29)}
    assert any(p["date"] == "2026-03-21" and p["provider"] == "runpod" and p["observations"] == 32 for p in body["history"]["series"])
    assert all(p["provider"] != "all" for p in body["history"]["series"])
    schema = real_client.get("/openapi.json").json()
    for path in ("/api/offers", "/api/prices/{ident}", "/api/providers", "/api/providers/{ident}"):
        assert path in schema["paths"]
    params = {p["name"] for p in schema["paths"]["/api/offers"]["get"]["parameters"]}
    assert {"accelerator", "provider", "pricing", "region", "variant", "since", "until", "include_stale"} <= params
    params = {p["name"] for p in schema["paths"]["/api/prices/{ident}"]["get"]["parameters"]}
    assert {"since", "until", "provider", "pricing", "variant", "region"} <= params


def test_static_paths_cover_every_provider_and_part(cloud_catalog: Catalog, cloud_client: TestClient) -> None:
    paths = list(static_paths(cloud_catalog))
    assert "/cloud/gamma" in paths and "/cloud/prices/globex-g1" in paths
    for path in paths:
        assert cloud_client.get(path).status_code == 200, path


# --- CLI -----------------------------------------------------------------------------


def test_cli_prices_shows_offers_and_spread(cloud_folder: Path, at_cloud_now: dt.datetime) -> None:
    folder = cloud_folder
    result = CliRunner().invoke(cli, ["prices", "acme-a1", "--data", str(folder)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output
    assert "98.32 USD ÷ 8 = 12.29 USD per accelerator-hour" in result.output
    assert "Spread (on-demand USD, variant PCIe 80 GB): 12.29 ÷ 4.00 ≈ 3.07× over 2 offers" in result.output
    assert "cheapest: 4.00 USD per accelerator-hour — Gamma Market, 1x A1, seen 2026-11-20" in result.output
    spot = CliRunner().invoke(cli, ["prices", "acme-a1", "--pricing", "spot", "--json", "--data", str(folder)])
    assert [r["offer"]["id"] for r in json.loads(spot.output)["rows"]] == [O[7]]
    nvl = CliRunner().invoke(cli, ["prices", "acme-a1", "--variant", "NVL 94 GB", "--data", str(folder)], env={"COLUMNS": "250"})
    assert "no spread: only one offer qualifies" in nvl.output


def test_cli_prices_rejects_bad_input_with_exit_2(tmp_path: Path) -> None:
    folder = write_cloud(tmp_path / "data")
    for args, words in (
        (["acme-a9"], "No accelerator with id 'acme-a9'"),
        (["acme-a1", "--since", "2026-13-01"], "option '--since'"),
        (["acme-a1", "--region", "mars"], "option '--region'"),
        (["acme-a1", "--variant", "sxm-80gb"], "option '--variant'"),
    ):
        result = CliRunner().invoke(cli, ["prices", *args, "--data", str(folder)])
        assert result.exit_code == 2 and words in result.output, args


# --- the real bundled offers ---------------------------------------------------------


def test_real_offers_meet_the_issue(real_catalog: Catalog) -> None:
    offers = list(real_catalog.offers.values())
    assert len(offers) >= 60
    h100 = [o for o in offers if o.accelerator in ("nvidia-h100-sxm", "nvidia-h100-pcie")]
    assert len(h100) >= 15 and len({o.provider for o in h100}) >= 8
    assert all(o.seen <= dt.date.today() and o.source_url.startswith(("https://", "http://")) for o in offers)


def _real_view(catalog: Catalog, ident: str, query: queries.PriceQuery | None = None) -> pricing.PriceView:
    offers = current_offers(catalog, Store(Path("data/prices")), NOW, accelerator=ident, link=offer_page)
    return pricing.price_view(catalog.accelerators[ident], offers, query, NOW.date())


def test_real_h100_sxm_spread_agrees_with_the_price_page(real_catalog: Catalog) -> None:
    spread = _real_view(real_catalog, "nvidia-h100-sxm").spread  # the CLI's `prices show`, the chart and the rent section
    assert spread.variant and spread.variant.label == "SXM 80 GB"
    assert (spread.cheapest.provider, spread.cheapest.per_accelerator_hour, str(spread.cheapest.seen)) == ("runpod", 2.69, "2026-11-09")
    assert (spread.dearest.provider, spread.dearest.arithmetic) == ("azure", "12.29 USD per GPU-hour, as published (no division)")
    assert spread.ratio == pytest.approx(12.29 / 2.69) and spread.counted == 10  # as /cloud/prices/nvidia-h100-sxm says


def test_real_h100_nvl_is_never_mixed_with_the_80gb_pcie(real_catalog: Catalog) -> None:
    # The H100 NVL (94 GB) has its own record: its offers (RunPod, Azure NC*ads_H100_v5) are placed there,
    # never on the 80 GB PCIe card.
    pcie = _real_view(real_catalog, "nvidia-h100-pcie").spread
    assert pcie.variant and pcie.variant.key == "pcie-80gb"
    assert "NVL" not in pcie.cheapest.instance_type and pcie.cheapest.per_accelerator_hour == 1.99  # RunPod Community PCIe
    nvl = _real_view(real_catalog, "nvidia-h100-nvl").spread
    assert nvl.variant and nvl.variant.key == "nvl-94gb"
    assert (nvl.cheapest.per_accelerator_hour, nvl.dearest.per_accelerator_hour) == (2.59, 8.82)  # RunPod; Azure 17.64 ÷ 2


def test_real_cloud_only_part_names_its_cloud(real_client: TestClient, at_now: dt.datetime) -> None:
    rent = BeautifulSoup(real_client.get("/silicon/aws-inferentia-2").text, "lxml").select_one("#rent")
    assert "choosing this part is choosing Amazon Web Services" in text(rent)
    tpu = BeautifulSoup(real_client.get("/silicon/google-tpu-v7").text, "lxml").select_one("#rent .cloud-only")
    assert "choosing the part is choosing the cloud" in text(tpu) and "No offer for it is recorded" in text(tpu)


# --- comma-separated filters, repeated parameters, large prices (tester's findings) ----


def test_cloud_filters_take_comma_separated_lists(cloud_client: TestClient, at_cloud_now: dt.datetime) -> None:
    page = soup(cloud_client, "/cloud/?provider=alpha,gamma")
    rows = page.select("tr[data-offer]")
    assert len(rows) == 4  # alpha's three offers and gamma's current one
    assert "provider=alpha%2Cgamma" in page.select_one(".api-link a")["href"]
    body = cloud_client.get("/api/offers", params={"provider": "alpha,beta", "pricing": "spot,reserved"}).json()
    assert sorted((o["provider"], o["pricing"]) for o in body) == [("alpha", "spot"), ("beta", "reserved")]


def test_a_repeated_parameter_is_a_400_that_says_to_use_commas(cloud_client: TestClient) -> None:
    for url, words in (("/cloud/?provider=alpha&provider=beta", "parameter 'provider': given more than once"),
                       ("/api/offers?pricing=spot&pricing=reserved", "give several values as one comma-separated list (pricing=a,b)"),
                       ("/api/prices/acme-a1?since=2026-10-01&since=2026-11-01", "parameter 'since': given more than once")):  # fmt: skip
        response = cloud_client.get(url)
        assert response.status_code == 400, url
        assert words in html.unescape(response.text), url


def test_a_huge_price_never_breaks_a_page(tmp_path: Path, at_cloud_now: dt.datetime) -> None:
    from .test_pricing import OFFERS

    catalog, _ = priced_cloud(tmp_path / "data", [{**OFFERS[0], "price_per_hour": "9999999.99"}, *OFFERS[1:]])
    client = TestClient(create_app(catalog, Settings(data=tmp_path / "data")))
    for path in ("/cloud/", "/cloud/alpha", "/cloud/prices/acme-a1", "/api/prices/acme-a1", "/api/offers", "/api/providers/alpha",
                 "/silicon/acme-a1", "/api/accelerators/acme-a1"):  # fmt: skip
        assert client.get(path).status_code == 200, path


def test_cli_prices_takes_comma_separated_pricing(cloud_folder: Path, at_cloud_now: dt.datetime) -> None:
    folder = cloud_folder
    result = CliRunner().invoke(cli, ["prices", "acme-a1", "--pricing", "spot,reserved", "--json", "--data", str(folder)])
    assert result.exit_code == 0, result.output
    assert sorted(r["offer"]["pricing"] for r in json.loads(result.output)["rows"]) == ["reserved", "spot"]


# --- the page cache over the store ----------------------------------------------------


def test_price_pages_are_cached_until_an_import_changes_the_store(
    tmp_path: Path, at_cloud_now: dt.datetime, monkeypatch: pytest.MonkeyPatch
) -> None:
    from computeatlas.cloud import dataset as store_module

    from .test_pricing import offer, write_offers

    monkeypatch.setattr(store_module, "VERSION_RECHECK_SECONDS", 0.0)  # look at the runs folder on every request
    folder = tmp_path / "data"
    catalog, _ = priced_cloud(folder)
    app = create_app(catalog, Settings(data=folder))
    client = TestClient(app)
    paths = ("/cloud/", "/cloud/gamma", "/cloud/prices/acme-a1")
    before = {p: client.get(p) for p in paths}
    for path in paths:
        again = client.get(path)
        assert again.status_code == 200 and again.content == before[path].content and again.headers["etag"] == before[path].headers["etag"]
    pages = app.state.cache.stats(PAGES)
    assert pages.hits == 3 and pages.misses == 3 and pages.hit_rate == 0.5
    gamma = BeautifulSoup(before["/cloud/gamma"].text, "lxml")
    assert {tr["data-offer"] for tr in gamma.select("tr[data-offer]")} == {O[4]}  # 4.00 USD, 2026-11-20

    new = write_offers(
        folder, [offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1", 1, "accelerator", "on-demand", "3.50", "2026-11-29")], name="later.csv"
    )
    summary = import_readings(
        "offers", [new], Store(folder / "prices"), instance_table(catalog), RateTable([]), rules.Limits(), now=CLOUD_NOW
    )
    assert summary.accepted == 1
    after = {p: client.get(p) for p in paths}
    assert app.state.cache.stats(PAGES).misses == 6  # a new run is a new key: every page is rendered again
    gamma = BeautifulSoup(after["/cloud/gamma"].text, "lxml")
    (row,) = gamma.select("tr[data-offer]")  # the offer's newest observation replaces the older one
    assert row["data-offer"] == "gamma-1x-a1-on-demand-2026-11-29" and text(row.select_one('[data-key="per-accelerator"]')).startswith(
        "3.50 USD"
    )
    spread = text(BeautifulSoup(after["/cloud/prices/acme-a1"].text, "lxml").select_one("#current .spread"))
    assert "cheapest 3.50 USD (Gamma Market, 1x A1, 2026-11-29" in spread
    assert "cheapest 4.00 USD (Gamma Market" in text(
        BeautifulSoup(before["/cloud/prices/acme-a1"].text, "lxml").select_one("#current .spread")
    )
    index = BeautifulSoup(after["/cloud/"].text, "lxml")
    assert "gamma-1x-a1-on-demand-2026-11-29" in {tr["data-offer"] for tr in index.select("table.offers tbody tr[data-offer]")}


def test_no_output_reads_prices_from_the_catalog() -> None:
    """The hand-typed offers are loaded for validation only: every page, API, chart, CLI
    command and the estimate reads prices from the observation store."""
    import computeatlas

    root = Path(computeatlas.__file__).parent
    pattern = re.compile(r"\b(?:catalog|cat|self)\.offers\b|collections\[\"offers\"\]")
    readers = sorted(str(p.relative_to(root)) for p in [*root.rglob("*.py"), *root.rglob("*.html")] if pattern.search(p.read_text("utf-8")))
    assert readers == ["cloud/catalog.py"]  # the property itself


def test_home_names_the_cloud_layer_without_reading_the_store(cloud_client: TestClient, at_cloud_now: dt.datetime) -> None:
    cloud = next(li for li in soup(cloud_client, "/").select("li") if li.select_one('a[href="/cloud/"]'))
    assert "3 providers and their current prices (the newest observation of each offer in the last 90 days)" in text(cloud)


def _feed_over_the_whole_history(store: Store, accelerator: str, limit: int) -> list[tuple[object, ...]]:
    """The feed worked out in Python from every stored observation: the reference."""
    last: dict[tuple[str, ...], dict[str, object]] = {}
    changes = []
    for row in sorted(store.history(accelerator), key=lambda r: r["collected"]):
        if row["per_accelerator_hour"] is None:
            continue
        offer = (row["provider"], row["instance_type"], row["region"], row["pricing"], row["term"], row["currency"])
        before, last[offer] = last.get(offer), row
        if before is None or abs(before["per_accelerator_hour"] - row["per_accelerator_hour"]) >= 1e-9:  # type: ignore[operator]
            changes.append((row["collected"], *offer, row["per_accelerator_hour"], before and before["per_accelerator_hour"]))
    return list(reversed(changes))[:limit]


@pytest.mark.parametrize("part", ["nvidia-h100-sxm", "nvidia-l4"])
def test_the_feed_reads_the_last_year_and_lists_what_the_whole_history_does(part: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The feed is worked out over the last year first and over the whole history only when the
    year cannot tell its newest entries (fewer of them, or an offer's first observation in the
    year among them): the same entries either way. On the bundled data the L4's year answers;
    the H100's newest entries include offers first seen in the year, so its whole history is read."""
    store = Store(Settings.from_env().prices_dir)  # the bundled observations, read only
    now = dt.datetime(2026, 12, 3, tzinfo=dt.UTC)
    spans: list[dt.date | None] = []
    changes = history._changes
    monkeypatch.setattr(history, "_changes", lambda *args: spans.append(args[2]) or changes(*args))
    for limit in (history.FEED_LIMIT, 3):
        spans.clear()
        feed = history.price_changes(store, part, limit, now)
        assert len(feed) == limit
        assert [
            (c.collected, c.provider, c.instance_type, c.region, c.pricing, c.term, c.currency, c.per_accelerator_hour, c.previous)
            for c in feed
        ] == _feed_over_the_whole_history(store, part, limit)
        assert spans == ([dt.date(2025, 12, 3)] if part == "nvidia-l4" else [dt.date(2025, 12, 3), None]), (limit, spans)


def test_an_unknown_sort_column_is_a_400_that_names_it(real_client: TestClient) -> None:
    for path in ("/cloud/prices/nvidia-h100-sxm", "/cloud/", "/cloud/aws"):
        bad = real_client.get(path, params={"sort": "bogus"})
        assert bad.status_code == 400 and "query parameter &#39;sort&#39;: &#39;bogus&#39; is not a column" in bad.text, path
        assert real_client.get(path, params={"sort": "-price"}).status_code == 200

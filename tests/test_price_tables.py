"""Price tables a person reads: provider names, pricing kinds in words (one wording, from
core/presentation.py), regions with the provider's own place name, the source as the upstream
file or page, and columns sorted on the server (so links work without scripts), over the
bundled catalog and store."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cloud.cheapest_price import cheapest_prices
from computeatlas.cloud.regions import region_label
from computeatlas.cloud.store import Store
from computeatlas.core.offer_words import pricing_words, source_words
from computeatlas.core.settings import Settings


def _page(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path)
    assert response.status_code == 200, path
    return BeautifulSoup(response.text, "lxml")


@pytest.mark.parametrize(
    ("kind", "term", "words"),
    [
        ("on_demand", "", "on-demand"),
        ("on-demand", None, "on-demand"),
        ("spot", "", "spot"),
        ("committed", "1 year", "1-year committed"),
        ("committed", "3 years", "3-year committed"),
        ("capacity_block", "Capacity Block", "capacity block"),
        ("reserved", "1 year", "reserved, 1 year"),
        ("reserved", "not stated", "reserved"),
        ("spot", "Low Priority", "spot (Low Priority)"),
    ],
)
def test_pricing_kinds_read_as_words(kind: str, term: str | None, words: str) -> None:
    assert pricing_words(kind, term) == words


def test_regions_carry_the_providers_own_place_names() -> None:
    # AWS EC2 User Guide (Regions and Zones), Azure regions list, Google Cloud's region table
    assert region_label("aws", "us-east-1") == "us-east-1 (US East (N. Virginia))"
    assert region_label("aws", "eu-west-1/euw1-az1") == "eu-west-1/euw1-az1 (Europe (Ireland))"
    assert region_label("azure", "westeurope") == "westeurope (West Europe, Netherlands)"
    assert region_label("google-cloud", "us-central1/us-central1-a") == "us-central1/us-central1-a (Council Bluffs, Iowa)"
    assert region_label("google-cloud", "us-central2/us-central2-b") == "us-central2/us-central2-b"  # not in the table: as is
    assert region_label("lambda", "us-east-1") == "us-east-1"  # another provider's us-east-1 is not AWS's
    assert region_label("runpod", "") == region_label("aws", "not stated") == "not stated"


def test_the_source_is_the_upstream_file_or_page_never_our_csv() -> None:
    assert (
        source_words("https://github.com/Cyclenerd/google-cloud-pricing-cost-calculator/blob/0166a59/pricing.yml")
        == "pricing.yml in Cyclenerd/google-cloud-pricing-cost-calculator"
    )
    assert (
        source_words("https://raw.githubusercontent.com/datareceipts/data-receipts/main/109-gpu-pricing/vendors.json")
        == "vendors.json in datareceipts/data-receipts"
    )
    assert source_words("https://aws.amazon.com/ec2/capacityblocks/pricing/") == "aws.amazon.com/ec2/capacityblocks/pricing"
    assert source_words("") == "source not recorded"


def _usd(cells: list[str]) -> list[float]:
    return [float(m.group(1)) for c in cells if (m := re.match(r"([\d.]+) USD", c))]


def test_the_price_page_sorts_on_the_server(real_client: TestClient) -> None:
    up = _page(real_client, "/cloud/prices/nvidia-h100-sxm?sort=price")
    prices = _usd([td.get_text(" ", strip=True) for td in up.select('#current table.observed tbody td[data-key="price"]')])
    assert len(prices) >= 2 and prices == sorted(prices)
    header = up.select_one('#current table.observed th[data-sort="price"]')
    assert header["aria-sort"] == "ascending" and header.a["href"] == "?sort=-price#current"  # the next click turns it round
    down = _page(real_client, "/cloud/prices/nvidia-h100-sxm?sort=-price")
    again = _usd([td.get_text(" ", strip=True) for td in down.select('#current table.observed tbody td[data-key="price"]')])
    assert again == sorted(prices, reverse=True)
    dates = [
        td.get_text()[:10]
        for td in _page(real_client, "/cloud/prices/nvidia-h100-sxm?sort=-collected").select(
            '#current table.observed tbody td[data-key="collected"]'
        )
    ]
    assert dates == sorted(dates, reverse=True)
    kept = _page(real_client, "/cloud/prices/nvidia-h100-sxm?variant=sxm&sort=provider")
    assert kept.select_one('th[data-sort="price"] a')["href"] == "?variant=sxm&sort=price#current"  # the other choices are kept


def test_cloud_tables_use_names_words_and_sort(real_client: TestClient, real_catalog: Catalog) -> None:
    page = _page(real_client, "/cloud/?sort=-price")
    rows = page.select("#prices table.offers tbody tr[data-offer]")
    assert rows
    names = {p.name for p in real_catalog.providers.values()}
    assert {r.select_one('td[data-label="Provider"]').get_text(strip=True) for r in rows} <= names  # names, not ids
    kinds = {r.select_one('td[data-key="pricing"]').get_text(strip=True) for r in rows}
    assert all("_" not in k for k in kinds) and "on-demand" in kinds
    usd = [
        float(m.group(1))
        for r in rows
        if (m := re.match(r"([\d.,]+) USD per", r.select_one('td[data-key="per-accelerator"]').get_text(strip=True).replace(",", "")))
    ]
    assert usd == sorted(usd, reverse=True)
    for r in rows:
        source = r.select_one('td[data-label="Source"] a')
        assert not source.get_text().startswith("data/"), source  # the upstream file or page, never our CSV path
    aws = _page(real_client, "/cloud/aws?sort=region").select('#offers table.offers tbody tr[data-offer] td[data-label="Region"]')
    assert any(td.get_text(strip=True) == "us-east-1 (US East (N. Virginia))" for td in aws)


def test_cloud_lists_parts_seen_only_before_the_window_as_not_current(real_client: TestClient, real_catalog: Catalog) -> None:
    found = cheapest_prices(
        Store(Settings.from_env().prices_dir), dt.datetime.now(dt.UTC), Settings.from_env().freshness_days, real_catalog
    )
    page = _page(real_client, "/cloud/")
    rows = page.select("#not-current tbody tr")
    assert {r["data-accelerator"] for r in rows} == {a for a, p in found.items() if not p.current}  # every one, none hidden
    for row in rows:
        acc = row["data-accelerator"]
        cheapest = real_client.get(f"/api/prices/{acc}/current").json()["cheapest"]
        assert cheapest["current"] is False
        assert row.select_one(".seen").get_text(strip=True) == cheapest["seen"]
        assert re.fullmatch(r"last seen \d{4}-\d{2}-\d{2}, \d+ days ago", cheapest["seen"])


def _sorted_by(rows: list, key: str, numeric: bool, descending: bool) -> bool:
    """The rows carrying a value in ``key`` come first, in order; those without one after them."""
    values = [r.get(f"data-sort-{key}") for r in rows]
    present = [v for v in values if v is not None]
    assert values[: len(present)] == present  # no value sorts last
    read = [float(v) for v in present] if numeric else present
    return read == sorted(read, reverse=descending)


@pytest.mark.parametrize(
    ("path", "table", "keys"),
    [
        (
            "/cloud/",
            "#prices table.offers",
            ("accelerator", "provider", "price", "variant", "instance", "pricing", "published", "region", "collected", "source"),
        ),
        (
            "/cloud/lambda",
            "#offers table.offers",
            ("accelerator", "price", "variant", "instance", "pricing", "published", "region", "collected", "source"),
        ),
        (
            "/cloud/prices/nvidia-h100-sxm",
            "#current table.observed",
            ("provider", "instance", "region", "pricing", "published", "price", "discount", "variant", "collected", "source"),
        ),
    ],
)
def test_every_price_table_sorts_by_every_column_it_shows(real_client: TestClient, path: str, table: str, keys: tuple[str, ...]) -> None:
    plain = _page(real_client, path).select_one(table)
    assert [th["data-sort"] for th in plain.select("thead th")] == list(keys)  # every heading is a sort link
    for key in keys:
        for descending in (False, True):
            shown = _page(real_client, f"{path}?sort={'-' if descending else ''}{key}").select_one(table)
            rows = shown.select("tbody tr")
            assert len(rows) >= 2
            assert _sorted_by(rows, key, key in ("price", "published", "discount"), descending), (key, descending)
            assert shown.select_one(f'th[data-sort="{key}"]')["aria-sort"] == ("descending" if descending else "ascending")
            assert list(shown.select("thead th[aria-sort]")) == [shown.select_one(f'th[data-sort="{key}"]')]


def test_sorting_offers_by_price_orders_the_bundled_dollar_prices(real_client: TestClient) -> None:
    rows = _page(real_client, "/cloud/?accelerator=nvidia-h100-sxm&sort=price").select("#prices table.offers tbody tr[data-offer]")
    shown = [
        float(td.get_text(strip=True).split(" ")[0].replace(",", ""))
        for r in rows
        for td in r.select("td[data-key=per-accelerator] .figure")
    ]
    assert len(shown) >= 3 and shown == sorted(shown)
    assert [float(r["data-sort-price"]) for r in rows] == pytest.approx(shown, abs=0.005)  # the value a row sorts by is the price it shows


def test_the_cloud_price_table_states_its_filters(real_client: TestClient) -> None:
    everything = _page(real_client, "/cloud/")
    total = len(everything.select("#prices table.offers tbody tr[data-offer]"))
    assert everything.select_one("#offers-count").get_text() == f"Showing all {total} offers"
    assert everything.select_one("#prices .filter-statement a") is None
    page = _page(real_client, "/cloud/?provider=lambda&pricing=on-demand&sort=-price")
    shown = len(page.select("#prices table.offers tbody tr[data-offer]"))
    assert 0 < shown < total
    assert page.select_one("#offers-count").get_text() == f"Showing {shown} of {total} offers: provider Lambda, pricing on-demand"
    assert page.select_one("#prices .filter-statement a.clear-filters")["href"] == "/cloud/?sort=-price#prices"


def test_the_last_seen_table_sorts_by_the_same_links(real_client: TestClient, real_catalog: Catalog) -> None:
    stale = next(
        a
        for a in real_catalog.accelerators
        if not (j := real_client.get(f"/api/prices/{a}/current").json())["prices"] and len(j["last_seen"]) >= 2
    )
    table = _page(real_client, f"/cloud/prices/{stale}?sort=-price").select_one("#current table.last-seen")
    rows = table.select("tbody tr")
    assert _sorted_by(rows, "price", True, True)
    assert table.select_one('th[data-sort="price"]')["aria-sort"] == "descending"
    assert table.select_one('th[data-sort="price"] a')["href"] == "?sort=price#current"

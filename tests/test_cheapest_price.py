"""One cheapest-price rule, read from every face over the bundled catalog and store:

the accelerator card ("from X"), the silicon table's price column, a comparison's price row,
the estimate, the token-cost bound, the price API and the CLI give the same cheapest figure
for every part with a current price; a part whose newest price is older than the freshness
window shows it as old ("last seen DATE, N days ago", not current) and is left out of the
rankings with why. The figures are asserted as relations (the bundle is rebuilt later), and
against the rule worked out by hand from the store's own rows.
"""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cli import app as cli
from computeatlas.cloud.cheapest_price import cheapest_prices, excluded_because
from computeatlas.cloud.store import Store
from computeatlas.cloud.variants import rule_variant, sole_keys
from computeatlas.core.settings import Settings
from computeatlas.pages.cheapest import price_text
from tests.conftest import CliRunner

NOW = dt.datetime.now(dt.UTC)


@pytest.fixture(scope="module")
def store() -> Store:
    return Store(Settings.from_env().prices_dir)


@pytest.fixture(scope="module")
def prices(store: Store, real_catalog: Catalog) -> dict[str, object]:
    return dict(cheapest_prices(store, NOW, Settings.from_env().freshness_days, real_catalog))


def _page(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path)
    assert response.status_code == 200, path
    return BeautifulSoup(response.text, "lxml")


def test_the_rule_is_the_minimum_over_the_stores_own_rows(store: Store, real_catalog: Catalog, prices: dict) -> None:
    """Worked by hand from the rows: newest per offer, fresh, on-demand, USD, the most-offered stated variant."""
    days = Settings.from_env().freshness_days
    sole = sole_keys(real_catalog)
    rows = store.current(None, NOW, days)
    current = {a: p for a, p in prices.items() if p.current}
    assert current, "the bundled store holds current prices"
    for acc, price in current.items():
        mine = [r for r in rows if r["accelerator"] == acc]
        counts: dict[str, int] = {}
        for r in mine:
            v = rule_variant(r["variant"] or "", acc, sole)
            if v and r["pricing"] == "on_demand":
                counts[v] = counts.get(v, 0) + 1
        variant = min(counts, key=lambda k: (-counts[k], k))
        inside = [
            r["per_accelerator_hour"]
            for r in mine
            if r["pricing"] == "on_demand"
            and r["currency"] == "USD"
            and r["per_accelerator_hour"] is not None
            and rule_variant(r["variant"] or "", acc, sole) == variant
        ]
        assert (price.variant, price.per_accelerator_hour, price.counted) == (variant, min(inside), len(inside)), acc


def test_a_variant_not_stated_spot_or_other_currency_never_counts() -> None:
    seen = NOW - dt.timedelta(days=1)
    assert excluded_because("on_demand", "USD", 2.0, "sxm-80gb", "sxm-80gb", seen, NOW, 90) is None
    assert excluded_because("on_demand", "USD", 1.0, "", "sxm-80gb", seen, NOW, 90) == "variant not stated: never in a per-variant figure"
    assert excluded_because("spot", "USD", 1.0, "sxm-80gb", "sxm-80gb", seen, NOW, 90) == "spot price: only on-demand prices count"
    assert excluded_because("on_demand", "EUR", 1.0, "sxm-80gb", "sxm-80gb", seen, NOW, 90).startswith("priced in EUR")
    old = NOW - dt.timedelta(days=104)
    assert (
        excluded_because("on_demand", "USD", 1.0, "sxm-80gb", "sxm-80gb", old, NOW, 90) == "not current: seen 104 days ago (more than 90)"
    )


def test_card_table_comparison_estimate_bound_api_and_cli_agree_for_every_part(real_client: TestClient, prices: dict) -> None:
    current = {a: p for a, p in prices.items() if p.current}
    table = {
        tr["data-id"]: tr.select_one('td[data-key="price"]') for tr in _page(real_client, "/silicon/").select("#silicon-table tbody tr")
    }
    bounds = {b["accelerator"]: b for b in real_client.get("/api/economics/models/llama-3-1-8b").json()["bounds"]}
    runner = CliRunner()
    for acc, price in current.items():
        figure = price_text(price.per_accelerator_hour)
        # the card: "from X" is the low end of its range
        card = _page(real_client, f"/silicon/{acc}").select_one(".glance-price").get_text(" ", strip=True)
        assert card.startswith(f"Price {figure}"), (acc, card)
        # the silicon table's price column
        assert table[acc].select_one(".num").get_text() == figure, acc
        # a comparison's price row
        other = "nvidia-h100-sxm" if acc != "nvidia-h100-sxm" else "nvidia-h100-pcie"
        compared = real_client.get("/api/compare", params={"ids": f"{acc},{other}"}).json()
        row = next(r for r in compared["prices"] if r["key"] == "price.on_demand")
        assert next(c for c in row["cells"] if c["id"] == acc)["amount"] == price.per_accelerator_hour, acc
        # the estimate, with no price or offer given
        estimate = real_client.get("/api/estimate", params={"accelerator": acc, "params": "1B", "format": "BF16", "utilisation": "0.5"})
        assert estimate.status_code == 200, (acc, estimate.text[:200])
        used = estimate.json()["price"]
        assert (used["origin"], used["per_accelerator_hour"], used["offer_id"]) == (
            "cheapest",
            price.per_accelerator_hour,
            price.offer_id,
        ), acc
        # the token-cost bound
        assert bounds[acc]["price"]["per_accelerator_hour"] == price.per_accelerator_hour, acc
        # the price API: the rule's figure and the spread's cheap end
        api = real_client.get(f"/api/prices/{acc}/current").json()
        assert api["cheapest"]["per_accelerator_hour"] == price.per_accelerator_hour and api["cheapest"]["current"], acc
        assert api["spread"]["cheapest"]["per_accelerator_hour"] == price.per_accelerator_hour, acc
        # the CLI
        shown = runner.invoke(cli, ["prices", acc, "--json"])
        assert shown.exit_code == 0, shown.output
        view = json.loads(shown.output)
        assert view["cheapest"]["per_accelerator_hour"] == price.per_accelerator_hour, acc
        assert view["spread"]["cheapest"]["per_accelerator_hour"] == price.per_accelerator_hour, acc


def test_a_part_with_only_old_prices_shows_them_as_old_and_ranks_nowhere(real_client: TestClient, prices: dict) -> None:
    stale = {a: p for a, p in prices.items() if not p.current}
    assert stale, "the bundled store holds parts seen only before the freshness window"
    table = {
        tr["data-id"]: tr.select_one('td[data-key="price"]') for tr in _page(real_client, "/silicon/").select("#silicon-table tbody tr")
    }
    ranking = _page(real_client, "/economics/models/llama-3-1-8b")
    left = {li["data-accelerator"]: li.get_text(" ", strip=True) for li in ranking.select("ul.left-out li")}
    ranked = {tr["data-accelerator"] for tr in ranking.select("table.bounds tbody tr")}
    for acc, price in stale.items():
        days = (NOW - price.collected).days
        seen = f"last seen {price.collected.date().isoformat()}, {days} days ago"
        assert price.seen == seen
        card = _page(real_client, f"/silicon/{acc}").select_one(".glance-price").get_text(" ", strip=True)
        assert card.startswith(f"Price Not current: {seen}, {price_text(price.per_accelerator_hour)} USD"), card
        assert table[acc].get_text(" ", strip=True).startswith(f"not current: {price_text(price.per_accelerator_hour)}"), acc
        assert seen in table[acc].get_text(" ", strip=True)
        assert acc not in ranked and left[acc].endswith(
            f"no current price: {seen} ({price.per_accelerator_hour:.4g} USD per accelerator-hour)"
        )
        api = real_client.get(f"/api/prices/{acc}/current").json()
        assert api["cheapest"]["current"] is False and api["cheapest"]["seen"] == seen and api["spread"]["counted"] == 0
        assert api["last_seen"] and all(p["stale"] for p in api["last_seen"])  # the newest observations, marked not current
        compared = real_client.get("/api/compare", params={"ids": f"{acc},nvidia-h100-sxm"}).json()
        cell = next(c for r in compared["prices"] if r["key"] == "price.on_demand" for c in r["cells"] if c["id"] == acc)
        assert cell["state"] == "stale" and cell["amount"] is None and seen in cell["display"]
        used = real_client.get("/api/estimate", params={"accelerator": acc, "params": "1B", "format": "BF16", "utilisation": "0.5"})
        assert used.json()["price"]["per_accelerator_hour"] is None and seen in used.json()["price"]["working"]


def test_parts_with_no_price_at_all_are_listed_under_the_rankings(real_client: TestClient, prices: dict) -> None:
    """Trainium 3 and TPU v7 (cloud-only, no accepted observation) no longer drop out silently."""
    for path in ("/economics/models/llama-3-1-8b", "/economics/"):
        left = {li["data-accelerator"]: li.get_text(" ", strip=True) for li in _page(real_client, path).select("ul.left-out li")}
        for acc in ("aws-trainium-3", "google-tpu-v7"):
            if acc not in prices:
                assert re.search(r": no (price observed|on-demand USD price)", left[acc]), (path, left.get(acc))
    body = real_client.get("/api/economics/models/llama-3-1-8b").json()
    assert {o["accelerator"] for o in body["left_out"]} >= {"aws-trainium-3", "google-tpu-v7"} - set(prices)


def test_the_cli_ranking_lists_what_it_leaves_out(real_catalog: Catalog, prices: dict) -> None:
    shown = CliRunner().invoke(cli, ["tokens", "llama-3-1-8b"], env={"COLUMNS": "400"})
    assert shown.exit_code == 0, shown.output
    lines = [line for line in shown.output.splitlines() if line.startswith("Left out: ")]
    for acc, price in prices.items():
        if not price.current:
            name = real_catalog.accelerators[acc].name
            assert f"Left out: {name} — no current price: {price.seen} ({price.per_accelerator_hour:.4g} USD per accelerator-hour)" in lines
    for acc in ("aws-trainium-3", "google-tpu-v7"):
        if acc not in prices:
            assert any(line.startswith(f"Left out: {real_catalog.accelerators[acc].name} — no price observed") for line in lines)

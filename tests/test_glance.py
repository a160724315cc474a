"""Price meets specs, and the accelerator page at a glance, over a small observation store:

- the cheapest current on-demand price per accelerator (fresh, on-demand, USD; spot, stale
  and held observations never count) in the silicon table, sortable, dated and linked;
- a comparison's price row and price-performance rows, worked from the records' figures;
- the summary card: figures as the vendor states them, the dated price range or why there is none;
- the charts: far-off parts in their own panel, exclusions that quote the source.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cloud import rules
from computeatlas.cloud.cheapest_price import cheapest_prices, current_prices
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.claims import NumberFormat
from computeatlas.core.settings import Settings
from computeatlas.pages.glance import first_sentence
from computeatlas.web.app import create_app
from computeatlas.web.charts import compute_chart, memory_chart

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def _obs(instance: str, pricing: str, amount: float, days_ago: int, region: str = "us") -> Observation:
    return Observation(
        provider="examplecloud",
        instance_type=instance,
        region=region,
        pricing=pricing,
        amount=amount,  # type: ignore[arg-type]
        currency="USD",
        unit="hour",
        collected=NOW - dt.timedelta(days=days_ago),
        source_url="https://examplecloud.example/pricing",
        via="test",
    )


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Store:
    """examplecloud: 8x L4 on demand 3.20/h (0.40 per L4), 1x L4 0.70/h, 8x L4 spot 1.60/h,
    a 200-day-old 1x L4 0.30/h (stale), one H100 server at 2.50/h."""
    store = Store(tmp_path_factory.mktemp("glance") / "prices")
    import_readings(
        "atlas",
        [],
        store,
        load_instances(FIXTURES / "instances"),
        RateTable([]),
        rules.Limits(),
        now=NOW,
        observations=[
            _obs("8x L4", "on_demand", 3.2, 1),
            _obs("1x L4", "on_demand", 0.7, 2),
            _obs("8x L4", "spot", 1.6, 1),
            _obs("1x L4", "on_demand", 0.3, 200, region="eu"),
            _obs("h100-server", "on_demand", 2.5, 3),
        ],
    )
    return store


@pytest.fixture(scope="module")
def client(real_catalog: Catalog, store: Store) -> TestClient:
    return TestClient(create_app(real_catalog, Settings(prices=store.root)))


def _page(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path)
    assert response.status_code == 200, response.text[:300]
    return BeautifulSoup(response.text, "lxml")


def test_the_cheapest_price_is_fresh_on_demand_usd_only(store: Store, real_catalog: Catalog) -> None:
    cheapest = cheapest_prices(store, NOW, 90, real_catalog)
    assert set(cheapest) == {"nvidia-l4", "nvidia-h100-sxm"}
    assert cheapest["nvidia-l4"].per_accelerator_hour == pytest.approx(0.4)  # 3.20 ÷ 8; spot 0.20 and the stale 0.30 do not count
    assert cheapest["nvidia-l4"].instance_type == "8x L4"
    assert cheapest["nvidia-h100-sxm"].per_accelerator_hour == pytest.approx(2.5)
    later = cheapest_prices(store, NOW + dt.timedelta(days=400), 90, real_catalog)
    assert current_prices(later) == {}  # all stale by then: no current price, never zero
    # shown as old: the newest the rule would take, dated (the 1x L4 at 0.70, 402 days before; the 200-day-old 0.30 is older)
    assert later["nvidia-l4"].current is False and later["nvidia-l4"].per_accelerator_hour == pytest.approx(0.4)
    assert later["nvidia-l4"].seen == f"last seen {(NOW - dt.timedelta(days=1)).date().isoformat()}, 401 days ago"


def test_the_silicon_table_shows_and_sorts_by_the_cheapest_price(client: TestClient) -> None:
    page = _page(client, "/silicon/?sort=price")
    rows = page.select("#silicon-table tbody tr")
    assert [r["data-id"] for r in rows[:2]] == ["nvidia-l4", "nvidia-h100-sxm"]
    l4 = rows[0].select_one('td[data-key="price"]')
    assert l4.select_one(".num").get_text() == "0.40" and l4.select_one(".num")["href"] == "https://examplecloud.example/pricing"
    assert (NOW - dt.timedelta(days=1)).date().isoformat() in l4.select_one(".cell-note").get_text()  # dated
    assert rows[2].select_one('td[data-key="price"]').get_text(strip=True) == "none observed"
    descending = _page(client, "/silicon/?sort=-price").select("#silicon-table tbody tr")
    assert [r["data-id"] for r in descending[:2]] == ["nvidia-h100-sxm", "nvidia-l4"]  # and "none observed" still last
    assert descending[-1].select_one('td[data-key="price"]').get_text(strip=True) == "none observed"
    api = client.get("/api/accelerators", params={"sort": "price"}).json()
    assert [a["id"] for a in api[:2]] == ["nvidia-l4", "nvidia-h100-sxm"]


def test_a_comparison_puts_price_beside_the_specs(client: TestClient) -> None:
    view = client.get("/api/compare", params={"ids": "nvidia-l4,nvidia-h100-sxm"}).json()
    rows = {r["key"]: {c["id"]: c for c in r["cells"]} for r in view["prices"]}
    assert view["ids"] == ["nvidia-h100-sxm", "nvidia-l4"]  # the reference is H100
    assert rows["price.on_demand"]["nvidia-l4"]["display"] == "0.40 USD per hour"
    assert rows["price.on_demand"]["nvidia-l4"]["ratio_display"] == "6.25× lower than NVIDIA H100 SXM5 80GB"  # 2.50 ÷ 0.40
    # NVIDIA's dense FP8: H100 SXM 1,979 TFLOPS ÷ 2.50 = 791.6; L4 242 TFLOPS ÷ 0.40 = 605
    per_dollar = rows["price.compute_per_usd.FP8"]
    assert per_dollar["nvidia-h100-sxm"]["display"] == "792 TFLOPS per USD/hour"
    assert per_dollar["nvidia-l4"]["display"] == "605 TFLOPS per USD/hour"
    assert per_dollar["nvidia-l4"]["worked"] == "242 ÷ 0.40 USD/hour = 605 TFLOPS per USD/hour"
    memory = rows["price.memory_per_usd"]
    assert memory["nvidia-h100-sxm"]["display"] == "32 GB per USD/hour"  # 80 GB ÷ 2.50
    assert memory["nvidia-l4"]["display"] == "60 GB per USD/hour"  # 24 GB ÷ 0.40
    page = _page(client, "/compare/nvidia-h100-sxm-vs-nvidia-l4")
    assert (
        page.select_one('#price-table tr[data-key="price.on_demand"] td[data-id="nvidia-l4"] a.figure')["href"]
        == "https://examplecloud.example/pricing"
    )


def test_a_part_without_a_price_or_a_published_input_says_so(client: TestClient) -> None:
    view = client.get("/api/compare", params={"ids": "nvidia-h100-sxm,google-tpu-v7"}).json()
    rows = {r["key"]: {c["id"]: c for c in r["cells"]} for r in view["prices"]}
    assert rows["price.on_demand"]["google-tpu-v7"]["display"] == "no current on-demand price observed"
    assert rows["price.memory_per_usd"]["google-tpu-v7"]["amount"] is None
    gh200 = client.get("/api/compare", params={"ids": "nvidia-gh200-144gb,nvidia-h100-sxm"}).json()
    compute = next(r for r in gh200["prices"] if r["key"].startswith("price.compute_per_usd"))
    assert [c["amount"] for c in compute["cells"]] == [None, None]  # GH200 states compute per superchip: no shared format, nothing derived


def test_the_card_opens_the_page_with_figures_as_stated_and_a_dated_price(client: TestClient) -> None:
    page = _page(client, "/silicon/nvidia-l4")
    article = page.select_one("article.accelerator")
    first = [c for c in article.find_all(recursive=False) if c.name not in ("p",)][:3]
    assert [c.name for c in first] == ["h1", "section", "nav"] and first[1]["id"] == "glance"  # the card, then the links
    card = page.select_one("#glance")
    figures = {d["data-glance"]: d.select_one("dd").get_text(" ", strip=True) for d in card.select("[data-glance]")}
    assert figures == {
        "memory": "24 GB",
        "memory_bandwidth": "300 GB/s",
        "compute.FP8": "242 TFLOPS",
        "compute.BF16": "121 TFLOPS",
        "power": "72 W",
    }
    price = card.select_one(".glance-price").get_text(" ", strip=True)
    assert f"0.40–0.70 USD per accelerator-hour on demand (2 offers from 1 provider, 90 days to {NOW.date().isoformat()})" in price
    links = [a["href"] for a in page.select("nav.on-page a")]
    assert "#power-question" in links and "#specifications" in links and "#sources" in links
    general = page.select_one("#power-question details.general-energy")
    assert general is not None and general.select_one("table") is not None  # the general energy tables fold away
    tpu = _page(client, "/silicon/google-tpu-v7").select_one("#glance")
    assert tpu.select_one('[data-glance="memory"] dd').get_text(" ", strip=True) == "192 GiB per package"  # Google's unit
    assert tpu.select_one('[data-glance="power"]')["data-state"] == "not_published"
    assert f"No on-demand USD price observed in the 90 days to {NOW.date().isoformat()}" in tpu.select_one(".glance-price").get_text()


def test_the_catch_is_one_sentence() -> None:
    assert first_sentence(
        "NVIDIA's table prints tensor throughput with 2:4 sparsity; dense rates are half. The 700 W module needs HGX."
    ) == ("NVIDIA's table prints tensor throughput with 2:4 sparsity; dense rates are half.")
    assert first_sentence("No full stop") == "No full stop"


def test_far_off_parts_get_their_own_panel_and_exclusions_quote_the_source(real_catalog: Catalog) -> None:
    memory = memory_chart(real_catalog)
    off = {p.id for p in memory.outliers}
    assert {"cerebras-wse-3", "groq-lpu"} <= off  # 21 PB/s of on-wafer SRAM; 230 MB of SRAM: orders of magnitude off the HBM parts
    assert off.isdisjoint(p.id for p in memory.points)
    assert "Cerebras WSE-3" in memory.description and "panel of their own" in memory.description
    fp8 = {e.id: e.reason for e in compute_chart(real_catalog, NumberFormat.FP8).excluded}
    assert fp8["nvidia-rtx-6000-ada"] == (  # NVIDIA's RTX 6000 Ada datasheet prints FP8 with sparsity only
        "FP8 compute: not comparable (no dense figure stated; the source says "
        "“Tensor performance: 1457.0 TFLOPS (footnote 4: Effective FP8 teraFLOPS (TFLOPS) using the…”)"
    )
    assert "nvidia-h200-sxm" not in fp8  # its dense FP8 is an independent source's, plotted with that label

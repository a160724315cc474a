"""The price page's figures over a small store whose every observation is stated here: the
cheapest price, the like-for-like spread, the discount, the daily medians, the charts' points
and what they leave out, and the year's history API. Each expected figure can be worked out
by hand from the observations below (prices are per accelerator-hour: one accelerator each)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.cloud import history
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
PART = "acme-a1"


def _obs(provider: str, day: str, usd: float, pricing: str = "on_demand", variant: str = "pcie-80gb") -> Observation:
    return Observation(
        provider=provider,
        instance_type=f"{provider}-8x",
        region="r1",
        pricing=pricing,  # type: ignore[arg-type]
        amount=usd,
        currency="USD",
        unit="hour",
        collected=dt.datetime.fromisoformat(day + "T06:00:00+00:00"),
        source_url=f"https://{provider}.example/pricing",
        via="test",
        accelerator=PART,
        variant=variant,
        accelerators=1,
        per_accelerator_hour=usd,
        run="r1",
    )


OBSERVATIONS = [
    _obs("alpha", "2026-05-04", 1.8),
    _obs("beta", "2026-05-06", 3.5),
    _obs("delta", "2026-06-10", 2.5),  # older than 90 days on 2026-12-01: history, not current
    _obs("alpha", "2026-11-20", 2.0),
    _obs("beta", "2026-11-25", 3.0),
    _obs("gamma", "2026-11-26", 1.5, variant="sxm-94gb"),  # another variant: never the cheapest, never in the spread
    _obs("alpha", "2026-11-27", 2.2),  # alpha's newest on-demand price: its current one
    _obs("alpha", "2026-11-27", 1.1, pricing="spot"),
]


@pytest.fixture
def page(tmp_path: Path, catalog, make_client, monkeypatch: pytest.MonkeyPatch) -> TestClient:  # type: ignore[no-untyped-def]
    Store(tmp_path / "prices").append(OBSERVATIONS, "r1", {"format": "test"})
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    return make_client(catalog, Settings(prices=tmp_path / "prices"))


def test_the_cheapest_price_the_spread_and_the_discount(page: TestClient) -> None:
    html = BeautifulSoup(page.get(f"/cloud/prices/{PART}").text, "html.parser")
    cheapest = html.select_one("p.cheapest")
    assert cheapest is not None and cheapest["data-current"] == "true"
    # current on-demand offers of the variant: alpha 2.2 (11-27; its 2.0 of 11-20 is older), beta 3.0; gamma's is another variant
    assert "Cheapest now: 2.20 USD per accelerator-hour on demand, variant pcie-80gb" in cheapest.text
    assert "alpha-8x" in cheapest.text and "seen 2026-11-27" in cheapest.text
    spread = html.select_one("p.spread")
    assert spread is not None and spread["data-counted"] == "2"
    assert "1.36× over 2 observations" in spread.text  # 3.0 ÷ 2.2
    assert "cheapest 2.20 USD" in spread.text and "2026-11-27" in spread.text
    assert "dearest 3.00 USD" in spread.text and "2026-11-25" in spread.text
    rows = {(r["data-provider"], r["data-pricing"]): r for r in html.select("table.observed tbody tr")}
    assert sorted(rows) == [("alpha", "on_demand"), ("alpha", "spot"), ("beta", "on_demand"), ("gamma", "on_demand")]
    assert "50%" in rows[("alpha", "spot")].text  # 1 - 1.1 ÷ 2.2
    assert "sxm-94gb" in rows[("gamma", "on_demand")].text


def test_the_daily_medians_of_the_year(page: TestClient) -> None:
    html = BeautifulSoup(page.get(f"/cloud/prices/{PART}").text, "html.parser")
    cells = [[td.text for td in tr.select("td")] for tr in html.select("table.history tbody tr")]
    assert cells == [
        ["2026-05-04", "alpha", "1.80", "1"],
        ["2026-05-06", "beta", "3.50", "1"],
        ["2026-06-10", "delta", "2.50", "1"],
        ["2026-11-20", "alpha", "2.00", "1"],
        ["2026-11-25", "beta", "3.00", "1"],
        ["2026-11-26", "gamma", "1.50", "1"],
        ["2026-11-27", "alpha", "2.20", "1"],
    ]  # on-demand only: the spot price is in no median


def test_the_charts_of_the_page_plot_the_weekly_lows_and_the_monthly_spread(page: TestClient) -> None:
    html = BeautifulSoup(page.get(f"/cloud/prices/{PART}").text, "html.parser")
    lines = html.select_one("#chart-price-history-acme-a1")
    spread = html.select_one("#chart-price-spread-acme-a1")
    assert lines is not None and spread is not None
    # lines: alpha on-demand, alpha spot, beta, delta (gamma's other variant: listed as not plotted)
    assert lines["data-series"] == "4" and "The 7 points behind this chart" in lines.text
    assert "gamma — 1 observation(s): another variant (sxm-94gb)" in lines.text
    assert spread["data-series"] == "1" and "The 2 points behind this chart" in spread.text
    assert "one provider observed, so no spread (2026-06)" in spread.text  # delta alone in June
    body = page.get(f"/api/charts/price-spread/{PART}").json()
    points = [(p["date"], round(p["value"], 4), p["observations"]) for p in body["series"][0]["points"]]
    assert points == [("2026-05-01", 1.9444, 2), ("2026-11-01", 1.5, 2)]  # 3.5 ÷ 1.8; 3.0 ÷ alpha's November low 2.0
    body = page.get(f"/api/charts/price-history/{PART}").json()
    got = {s["id"]: [(p["date"], p["value"]) for p in s["points"]] for s in body["series"]}
    assert got == {
        "alpha/on_demand/": [("2026-05-04", 1.8), ("2026-11-20", 2.0), ("2026-11-27", 2.2)],
        "alpha/spot/": [("2026-11-27", 1.1)],
        "beta/on_demand/": [("2026-05-06", 3.5), ("2026-11-25", 3.0)],
        "delta/on_demand/": [("2026-06-10", 2.5)],
    }  # the lowest of each ISO week, at the date it was seen


def test_the_year_s_history_lists_every_observation_and_its_medians(page: TestClient) -> None:
    body = page.get(f"/api/prices/{PART}/history?since=2025-12-01").json()
    assert (body["since"], body["until"], body["window"], body["first"], body["truncated"]) == (
        "2025-12-01",
        None,
        "dates",
        "2025-12-01",
        False,
    )
    listed = [(o["collected"][:10], o["provider"], o["pricing"], o["per_accelerator_hour"]) for o in body["observations"]]
    assert listed == [
        ("2026-05-04", "alpha", "on_demand", 1.8),
        ("2026-05-06", "beta", "on_demand", 3.5),
        ("2026-06-10", "delta", "on_demand", 2.5),
        ("2026-11-20", "alpha", "on_demand", 2.0),
        ("2026-11-25", "beta", "on_demand", 3.0),
        ("2026-11-26", "gamma", "on_demand", 1.5),
        ("2026-11-27", "alpha", "on_demand", 2.2),
        ("2026-11-27", "alpha", "spot", 1.1),
    ]
    assert body["observations"][0]["usd_per_accelerator_hour"] == 1.8 and body["observations"][0]["rate"] is None
    assert [(p["date"], p["provider"], p["median"]) for p in body["series"]][-2:] == [
        ("2026-11-26", "gamma", 1.5),
        ("2026-11-27", "alpha", 2.2),
    ]
    truncated = page.get(f"/api/prices/{PART}/history?since=2025-12-01&limit=3").json()
    assert truncated["truncated"] is True and len(truncated["observations"]) == 3
    assert [o["collected"][:10] for o in truncated["observations"]] == ["2026-11-26", "2026-11-27", "2026-11-27"]  # the newest 3
    assert len(truncated["series"]) == 7  # the medians cover every observation

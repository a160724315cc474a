"""The price page of one accelerator reads a bounded window: one year ending today by default,
said on the page and in its JSON, with a link to all of the history; every per-part query
passes the window to the store."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.cloud import history, trends
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.price_window import page_window, year_before
from computeatlas.cloud.store import Store
from computeatlas.core.errors import ParamError
from computeatlas.core.settings import Settings
from computeatlas.pages.price_table import newest_rows
from tests.price_support import observation

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
OLD_DAY = "2025-10-27"  # 400 days before NOW: older than the year


def _obs(provider: str, day: str, usd: float, accelerator: str = "acme-a1", pricing: str = "on_demand") -> Observation:
    instance = f"{provider}-1x" if accelerator == "acme-a1" else f"{provider}-{accelerator}"  # an offer is of one part
    return observation(provider, day, usd, instance=instance, pricing=pricing, accelerator=accelerator)


ROWS = [
    _obs("oldcloud", OLD_DAY, 9.5),  # only before the window
    _obs("alpha", "2026-11-20", 2.0),
    _obs("alpha", "2026-11-27", 2.25),
    _obs("beta", "2026-11-27", 3.0),
    _obs("alpha", "2026-11-27", 1.0, pricing="spot"),
    _obs("oldcloud", "2025-06-02", 7.0, accelerator="acme-a2"),  # a part seen only long ago
]


@pytest.fixture
def client(tmp_path: Path, catalog, make_client, monkeypatch: pytest.MonkeyPatch) -> TestClient:  # type: ignore[no-untyped-def]
    Store(tmp_path / "prices").append(ROWS, "r1", {"format": "test"})
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    return make_client(catalog, Settings(prices=tmp_path / "prices"))


def _page(client: TestClient, path: str) -> BeautifulSoup:
    response = client.get(path)
    assert response.status_code == 200, response.text
    return BeautifulSoup(response.text, "lxml")


def _words(tag) -> str:  # type: ignore[no-untyped-def]
    return " ".join(tag.get_text().split())


def _history_rows(page: BeautifulSoup) -> list[tuple[str, str, str]]:
    return [tuple(td.get_text(strip=True) for td in tr.select("td")[:3]) for tr in page.select("table.history tbody tr")]  # type: ignore[misc]


def test_the_page_says_its_year_and_links_to_all_of_the_history(client: TestClient) -> None:
    page = _page(client, "/cloud/prices/acme-a1")
    window = page.select_one("p.window")
    assert window["data-window"] == "year"
    assert _words(window).startswith("Prices from 2025-12-01 to 2026-12-01 (one year ending today)")
    link = window.select_one("a.all-history")
    assert link["href"] == "?window=all" and link.get_text(strip=True) == "All of the history"
    assert _history_rows(page) == [("2026-11-20", "alpha", "2.00"), ("2026-11-27", "alpha", "2.25"), ("2026-11-27", "beta", "3.00")]
    assert "oldcloud" not in page.select_one("#price-charts").get_text() and "9.5" not in page.select_one("#history").get_text()
    assert "The 4 points behind this chart" in page.select_one("#chart-price-history-acme-a1 p.chart-data").get_text()

    everything = _page(client, "/cloud/prices/acme-a1" + link["href"])
    window = everything.select_one("p.window")
    assert window["data-window"] == "all"
    assert _words(window).startswith(f"Prices from {OLD_DAY} to 2026-12-01: all of the history")
    assert window.select_one("a.year-history")["href"] == "/cloud/prices/acme-a1"
    assert _history_rows(everything)[0] == (OLD_DAY, "oldcloud", "9.50")  # the observation older than the year
    assert len(_history_rows(everything)) == 4
    assert "The 5 points behind this chart" in everything.select_one("#chart-price-history-acme-a1 p.chart-data").get_text()


def test_the_json_of_the_same_page_gives_the_window_as_fields(client: TestClient) -> None:
    year = client.get("/api/prices/acme-a1").json()["history"]
    assert {k: year[k] for k in ("since", "until", "window", "first")} == {
        "since": "2025-12-01",
        "until": "2026-12-01",
        "window": "year",
        "first": "2025-12-01",
    }
    assert sorted(o["amount"] for o in year["observations"]) == [1.0, 2.0, 2.25, 3.0]
    whole = client.get("/api/prices/acme-a1", params={"window": "all"}).json()["history"]
    assert {k: whole[k] for k in ("since", "until", "window", "first")} == {"since": None, "until": None, "window": "all", "first": OLD_DAY}
    assert sorted(o["amount"] for o in whole["observations"]) == [1.0, 2.0, 2.25, 3.0, 9.5]
    assert client.get("/api/prices/acme-a1/history").json()["window"] == "year"
    asked = client.get("/api/prices/acme-a1/history", params={"since": "2026-11-25"}).json()
    assert (asked["since"], asked["until"], asked["window"]) == ("2026-11-25", None, "dates")
    assert sorted(o["amount"] for o in asked["observations"]) == [1.0, 2.25, 3.0]


def test_a_bad_window_is_a_400_naming_the_parameter(client: TestClient) -> None:
    for path in ("/cloud/prices/acme-a1", "/cloud/prices/acme-a1/history", "/api/prices/acme-a1", "/api/prices/acme-a1/history"):
        for params in ({"window": "decade"}, {"window": "all", "since": "2026-01-01"}, {"window": "year", "until": "2026-01-01"}):
            response = client.get(path, params=params)
            assert response.status_code == 400, (path, params)
            assert "query parameter 'window'" in response.text.replace("&#39;", "'"), (path, params)


def test_a_part_seen_only_before_the_window_still_shows_its_last_price(client: TestClient) -> None:
    """The cheapest price and "last seen" read the window first and the whole history only when
    nothing in it counts: the same answer as before the window."""
    page = _page(client, "/cloud/prices/acme-a2?variant=pcie-80gb")  # a variant asked: the rule reads the part's own rows
    cheapest = " ".join(page.select_one("p.cheapest").get_text().split())
    assert page.select_one("p.cheapest")["data-current"] == "false"
    assert "The newest price the rule takes was 7.00 USD per accelerator-hour on demand, variant pcie-80gb" in cheapest
    assert "last seen 2025-06-02, 547 days ago" in cheapest
    assert "The newest observations of this part, 2025-06-02 (547 days ago)" in page.select_one("#last-seen + p").get_text()
    assert _history_rows(page) == [("No on-demand USD observation of this part is stored from 2025-12-01 to 2026-12-01.",)]


def test_the_window_defaults_to_a_year_and_is_checked() -> None:
    today = dt.date(2026, 12, 3)
    assert page_window(today) == (dt.date(2025, 12, 3), today, "year")
    assert page_window(today, window="all") == (None, None, "all")
    assert page_window(today, since=dt.date(2026, 1, 1)) == (dt.date(2026, 1, 1), None, "dates")
    assert year_before(dt.date(2028, 2, 29)) == dt.date(2027, 2, 28) and year_before(today, 4) == dt.date(2022, 12, 3)
    with pytest.raises(ParamError, match="window"):
        page_window(today, dt.date(2026, 1, 1), window="all")


def test_the_chart_series_are_aggregated_in_the_window(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    store.append(ROWS, "r1", {"format": "test"})
    weeks = trends.lows(store, "acme-a1", "pcie-80gb", "week", since=dt.date(2025, 12, 1), until=dt.date(2026, 12, 1))
    assert [(w.provider, w.pricing, str(w.period), w.low, w.observations, str(w.seen)) for w in weeks] == [
        ("alpha", "on_demand", "2026-11-16", 2.0, 1, "2026-11-20"),
        ("alpha", "on_demand", "2026-11-23", 2.25, 1, "2026-11-27"),
        ("alpha", "spot", "2026-11-23", 1.0, 1, "2026-11-27"),
        ("beta", "on_demand", "2026-11-23", 3.0, 1, "2026-11-27"),
    ]
    months = trends.lows(store, "acme-a1", "pcie-80gb", "month", pricing="on_demand")
    assert [(m.provider, str(m.period), m.low, m.observations, str(m.first), str(m.last)) for m in months] == [
        ("alpha", "2026-11-01", 2.0, 2, "2026-11-20", "2026-11-27"),
        ("beta", "2026-11-01", 3.0, 1, "2026-11-27", "2026-11-27"),
        ("oldcloud", "2025-10-01", 9.5, 1, OLD_DAY, OLD_DAY),
    ]
    assert [(o.provider, o.reason, o.observations) for o in trends.left_out(store, "acme-a1", "sxm-80gb")] == [
        ("alpha", "another variant (pcie-80gb)", 3),
        ("beta", "another variant (pcie-80gb)", 1),
        ("oldcloud", "another variant (pcie-80gb)", 1),
    ]
    assert trends.left_out(store, "acme-a1", "sxm-80gb", since=dt.date(2025, 12, 1))[-1].provider == "beta"


def test_every_query_of_the_part_on_its_page_reads_only_the_window(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[dt.date | None, dt.date | None]] = []
    query = Store.query

    def spy(self: Store, sql: str, params=(), first=None, last=None, accelerator=None):  # type: ignore[no-untyped-def]
        if accelerator == "acme-a1" or "acme-a1" in list(params):
            asked.append((first, last))
        return query(self, sql, params, first, last, accelerator)

    monkeypatch.setattr(Store, "query", spy)
    for path in ("/cloud/prices/acme-a1", "/api/prices/acme-a1", "/api/prices/acme-a1/history"):
        asked.clear()
        assert client.get(path).status_code == 200
        assert len(asked) >= 2 and all(first is not None and first >= dt.date(2025, 9, 2) and last is not None for first, last in asked), (
            path,
            asked,
        )


def test_the_history_api_lists_the_newest_limit_and_the_page_data_its_newest_hundred(client: TestClient) -> None:
    two = client.get("/api/prices/acme-a1/history", params={"limit": "2"}).json()
    assert (two["limit"], two["truncated"]) == (2, True)
    # Three observations on 2026-11-27: the listing's last two, oldest first and equal times in the order of the offer.
    assert [(o["provider"], o["pricing"], o["amount"]) for o in two["observations"]] == [("alpha", "spot", 1.0), ("beta", "on_demand", 3.0)]
    every = client.get("/api/prices/acme-a1/history").json()
    assert (every["limit"], every["truncated"], len(every["observations"])) == (1000, False, 4)
    assert client.get("/api/prices/acme-a1").json()["history"]["limit"] == 100
    assert client.get("/api/prices/acme-a1/history?limit=10&limit=20").status_code == 400  # given twice
    for bad in ("0", "5001", "many"):
        response = client.get("/api/prices/acme-a1/history", params={"limit": bad})
        assert response.status_code == 400 and "limit" in response.text, bad


def _point(day: str, provider: str, median: float = 2.0) -> history.SeriesPoint:
    return history.SeriesPoint(date=dt.date.fromisoformat(day), provider=provider, median=median, observations=1)


def test_the_history_table_lists_whole_newest_dates_within_its_rows() -> None:
    series = [_point("2026-11-20", "alpha"), *(_point(d, p) for d in ("2026-11-26", "2026-11-27") for p in ("alpha", "beta"))]
    four = newest_rows(series, rows=4)
    assert [(p.date.isoformat(), p.provider) for p in four.points] == [
        ("2026-11-26", "alpha"),
        ("2026-11-26", "beta"),
        ("2026-11-27", "alpha"),
        ("2026-11-27", "beta"),
    ]
    assert (four.dates, four.total_dates, four.total_points) == (2, 3, 5)
    # The newest date is listed whole even when it alone has more points than the bound; three rows never cut a date.
    assert [p.provider for p in newest_rows(series, rows=1).points] == ["alpha", "beta"]
    assert newest_rows(series, rows=3).dates == 1
    assert newest_rows(series).points == series  # the default bound (200 rows) lists this series whole
    with pytest.raises(ValueError, match="at least 1"):
        newest_rows(series, rows=0)


def test_the_page_reads_no_observation_rows_yet_dates_all_of_the_history_from_the_first(client: TestClient) -> None:
    page = _page(client, "/cloud/prices/acme-a1?window=all")
    assert [t.get_text() for t in page.select("p.window time")] == [OLD_DAY, "2026-12-01"]  # from the first observation to today
    assert not page.select("span.listed")  # four rows: the table lists them all and says nothing of a cut
    view = history.history_view(Store(client.app.state.settings.prices_dir), "acme-a1", limit=0)  # type: ignore[attr-defined]
    assert (view.observations, view.first, view.truncated) == ([], dt.date.fromisoformat(OLD_DAY), False)
    assert [(p.date.isoformat(), p.provider, p.median) for p in view.series][-2:] == [
        ("2026-11-27", "alpha", 2.25),
        ("2026-11-27", "beta", 3.0),
    ]


def test_a_long_history_table_lists_its_newest_dates_and_says_how_many(
    tmp_path: Path, catalog, make_client, monkeypatch: pytest.MonkeyPatch
) -> None:  # type: ignore[no-untyped-def]
    # Three providers on each of 70 dates: 210 points, so the table lists the newest 66 dates (198 rows).
    days = [(NOW - dt.timedelta(days=n)).date().isoformat() for n in range(1, 71)]
    rows = [_obs(p, d, 2.0 + i / 100) for i, d in enumerate(days) for p in ("alpha", "beta", "gamma")]
    Store(tmp_path / "prices").append(rows, "r1", {"format": "test"})
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    page = _page(make_client(catalog, Settings(prices=tmp_path / "prices")), "/cloud/prices/acme-a1")
    listed = page.select_one("span.listed")
    assert (listed["data-dates"], listed["data-total-dates"]) == ("66", "70")
    assert _words(listed).startswith("The newest 66 of 70 collection dates (198 of 210 rows) are listed;")
    dates = [r[0] for r in _history_rows(page)]
    assert (len(dates), dates[0], dates[-1]) == (198, days[65], days[0])  # oldest listed first, the newest last


def test_a_provider_or_pricing_filter_narrows_the_current_prices_and_says_so(client: TestClient) -> None:
    page = _page(client, "/cloud/prices/acme-a1?provider=beta&window=all")
    assert [tr["data-provider"] for tr in page.select("table.observed tbody tr[data-provider]")] == ["beta"]
    statement = page.select_one("p.filter-statement")
    assert _words(statement).startswith("Showing 1 of 3 current prices: provider beta. The cheapest price and the spread")
    assert statement.select_one("a.clear-filters")["href"] == "?window=all#current"
    spot = _page(client, "/cloud/prices/acme-a1?pricing=spot")
    assert [tr["data-pricing"] for tr in spot.select("table.observed tbody tr[data-provider]")] == ["spot"]
    assert _words(spot.select_one("p.filter-statement")).startswith("Showing 1 of 3 current prices: pricing spot.")
    body = client.get("/api/prices/acme-a1", params={"provider": "beta"}).json()["current"]
    assert ([p["provider"] for p in body["prices"]], body["offers"], body["filters"]) == (["beta"], 3, {"provider": "beta"})
    assert not _page(client, "/cloud/prices/acme-a1").select("p.filter-statement")  # nothing filtered, nothing said

"""The two price tables sorted by a parameter of their own: a part's history table on its price
page (``history_sort``, beside the current-price table's ``sort``) and ``/cloud/``'s "seen
before, not current" table (``seen_sort``), on the server, with the other parameters kept in
every sort link and a bad value a 400 naming the parameter."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cloud import history
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.pages.price_table import SortState, history_sorts, sort_rows
from tests.price_support import observation

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)


def _obs(provider: str, day: str, usd: float, n: int = 1) -> Observation:
    return observation(provider, day, usd, instance=f"{provider}-{n}x")


ROWS = [
    _obs("zeta", "2026-11-20", 2.0),
    _obs("alpha", "2026-11-27", 2.25),
    _obs("alpha", "2026-11-27", 2.75, n=2),  # two observations: median 2.5
    _obs("zeta", "2026-11-27", 3.0),
    _obs("beta", "2026-11-25", 1.5),
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


def _rows(page: BeautifulSoup) -> list[tuple[str, ...]]:
    return [tuple(td.get_text(strip=True) for td in tr.select("td")) for tr in page.select("table.history tbody tr")]


def test_the_history_table_sorts_by_its_own_parameter(client: TestClient) -> None:
    assert _rows(_page(client, "/cloud/prices/acme-a1")) == [  # as listed: oldest date first
        ("2026-11-20", "zeta", "2.00", "1"),
        ("2026-11-25", "beta", "1.50", "1"),
        ("2026-11-27", "alpha", "2.50", "2"),
        ("2026-11-27", "zeta", "3.00", "1"),
    ]
    page = _page(client, "/cloud/prices/acme-a1?sort=price&window=all&history_sort=-median")
    assert [r[2] for r in _rows(page)] == ["3.00", "2.50", "2.00", "1.50"]
    header = page.select_one('table.history th[data-sort="median"]')
    assert header["aria-sort"] == "descending" and header.a.get_text() == "Median per accelerator-hour (USD) ▼"
    assert header.a["href"] == "?window=all&sort=price&history_sort=median#history"  # turns round, keeps window and sort
    assert page.select_one('table.history th[data-sort="date"] a')["href"] == "?window=all&sort=price&history_sort=date#history"
    assert page.select_one('table.history th[data-sort="date"]').get("aria-sort") is None
    assert page.select_one("table.history")["data-sort-param"] == "history_sort"
    # the current-price table's links keep the history's sort
    assert page.select_one('table.observed th[data-sort="price"] a')["href"] == "?window=all&history_sort=-median&sort=-price#current"


def test_the_history_table_sorts_by_name_count_and_date(client: TestClient) -> None:
    by_provider = _rows(_page(client, "/cloud/prices/acme-a1?history_sort=provider"))
    assert [(r[0], r[1]) for r in by_provider] == [
        ("2026-11-27", "alpha"),
        ("2026-11-25", "beta"),
        ("2026-11-20", "zeta"),
        ("2026-11-27", "zeta"),
    ]
    by_count = _rows(_page(client, "/cloud/prices/acme-a1?history_sort=-observations"))
    assert [(r[1], r[3]) for r in by_count] == [("alpha", "2"), ("zeta", "1"), ("beta", "1"), ("zeta", "1")]  # ties as listed
    by_date = _rows(_page(client, "/cloud/prices/acme-a1?history_sort=-date"))
    assert [r[0] for r in by_date] == ["2026-11-27", "2026-11-27", "2026-11-25", "2026-11-20"]
    row = _page(client, "/cloud/prices/acme-a1").select_one("table.history tbody tr")
    assert (row["data-sort-date"], row["data-sort-provider"], row["data-sort-median"], row["data-sort-observations"]) == (
        "2026-11-20",
        "zeta",
        "2.0",
        "1.0",
    )


def test_a_bad_history_sort_is_a_400_naming_it(client: TestClient) -> None:
    response = client.get("/cloud/prices/acme-a1?history_sort=cost")
    assert response.status_code == 400
    assert "history_sort" in response.text and "date, provider, median, observations" in response.text


def test_the_seen_before_table_on_cloud_sorts_by_seen_sort(real_client: TestClient) -> None:
    page = _page(real_client, "/cloud/?sort=provider&seen_sort=-price")
    rows = page.select("#not-current table.not-current tbody tr")
    assert len(rows) >= 2
    usd = [float(r.select_one('td[data-label="Last on-demand price"]').get_text().split()[0]) for r in rows]
    assert usd == sorted(usd, reverse=True)
    header = page.select_one('#not-current th[data-sort="price"]')
    assert header["aria-sort"] == "descending"
    assert header.a["href"] == "?sort=provider&seen_sort=price#not-current"  # keeps the offer table's sort
    assert page.select_one('#prices th[data-sort="price"] a')["href"] == "?seen_sort=-price&sort=price#prices"
    names = [
        r.select_one('td[data-label="Accelerator"]').get_text(strip=True)
        for r in _page(real_client, "/cloud/?seen_sort=accelerator").select("#not-current tbody tr")
    ]
    assert names == sorted(names, key=str.casefold) and names != sorted(names, key=str.casefold, reverse=True)
    seen = [
        r.select_one('td[data-label="Last seen"]').get_text()
        for r in _page(real_client, "/cloud/?seen_sort=-seen").select("#not-current tbody tr")
    ]
    days = [s.removeprefix("last seen ")[:10] for s in seen]
    assert days == sorted(days, reverse=True)
    response = real_client.get("/cloud/?seen_sort=cost")
    assert response.status_code == 400
    assert "seen_sort" in response.text and "accelerator, price, provider, instance, seen, source" in response.text


def test_the_sort_maps_read_the_names_shown(real_catalog: Catalog) -> None:
    ids = ("azure", "google-cloud", "all", "aws")
    points = [history.SeriesPoint(date=dt.date(2026, 11, d), provider=p, median=2.0, observations=1) for d, p in enumerate(ids, 1)]
    by = history_sorts(lambda p: real_catalog.providers[p].name)
    # all providers < Amazon Web Services < Google Cloud < Microsoft Azure: by the name shown, not the id
    assert [p.provider for p in sort_rows(points, SortState(key="provider"), by)] == ["all", "aws", "google-cloud", "azure"]
    assert [p.provider for p in sort_rows(points, SortState(key="provider", descending=True), by)] == [
        "azure",
        "google-cloud",
        "aws",
        "all",
    ]

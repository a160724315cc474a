"""Observed prices on the web: history as JSON and CSV, current prices measured at request
time, and a new import picked up without a restart."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from computeatlas.catalog import load
from computeatlas.cloud import rules
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.web.app import create_app

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
TABLE = load_instances(FIXTURES / "instances")


@pytest.fixture(scope="module")
def catalog():  # type: ignore[no-untyped-def]
    return load()


def _obs(pricing: str, amount: float, when: dt.datetime, instance: str = "8x L4", region: str = "us") -> Observation:
    return Observation(
        provider="examplecloud",
        instance_type=instance,
        region=region,
        pricing=pricing,
        amount=amount,  # type: ignore[arg-type]
        currency="USD",
        unit="hour",
        collected=when,
        source_url="https://examplecloud.example/pricing",
        via="test",
    )


def test_history_and_current_come_from_the_store_on_every_request(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    store = Store(tmp_path / "prices")
    client = TestClient(create_app(catalog, Settings(prices=tmp_path / "prices", page_cache=True)))
    assert client.get("/api/prices/nvidia-l4/history").json()["observations"] == []
    now = dt.datetime.now(dt.UTC).replace(microsecond=0)
    old = now - dt.timedelta(days=200)
    import_readings(
        "atlas",
        [],
        store,
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=now,
        observations=[
            _obs("on_demand", 4.0, old),
            _obs("on_demand", 3.2, now - dt.timedelta(days=1)),
            _obs("spot", 1.6, now - dt.timedelta(days=1)),
            _obs("on_demand", 0.01, now - dt.timedelta(days=1), region="eu"),
        ],
    )  # held: below the floor
    history = client.get("/api/prices/nvidia-l4/history").json()  # picked up without a restart, never cached
    assert sorted(o["amount"] for o in history["observations"]) == [1.6, 3.2, 4.0]
    assert {(p["provider"], p["median"], p["observations"]) for p in history["series"]} == {
        ("examplecloud", 0.5, 1),
        ("examplecloud", 0.4, 1),
    }  # per provider only: no median over all providers
    window = client.get(
        "/api/prices/nvidia-l4/history", params={"since": (now - dt.timedelta(days=10)).date().isoformat(), "pricing": "spot"}
    )
    assert [o["amount"] for o in window.json()["observations"]] == [1.6]
    csv = client.get("/api/prices/nvidia-l4/history", params={"format": "csv"})
    assert csv.headers["content-type"].startswith("text/csv") and csv.content.decode("utf-8-sig").splitlines()[0].startswith(
        "collected,provider,instance_type"
    )
    assert len(csv.text.splitlines()) == 4
    current = client.get("/api/prices/nvidia-l4/current").json()
    assert sorted((p["pricing"], p["amount"]) for p in current["prices"]) == [
        ("on_demand", 3.2),
        ("spot", 1.6),
    ]  # the 200-day-old one is history
    spot = next(p for p in current["prices"] if p["pricing"] == "spot")
    assert spot["discount"] == pytest.approx(0.5) and spot["age_days"] == 1
    page = client.get("/cloud/prices/nvidia-l4/history")
    assert page.status_code == 200 and "0.4" in page.text and "0.01" not in page.text


def test_bad_history_parameters_are_400s_that_name_them(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    client = TestClient(create_app(catalog, Settings(prices=tmp_path / "prices")))
    for params, words in (({"since": "soon"}, "since"), ({"pricing": "cheap"}, "pricing"), ({"format": "xml"}, "format")):
        response = client.get("/api/prices/nvidia-l4/history", params=params)
        assert response.status_code == 400 and words in response.json()["detail"]
    assert client.get("/api/prices/nvidia-l9/history").status_code == 404
    assert client.get("/api/prices/nvidia-l4/history", params={"utm_source": "mail"}).status_code == 200  # unknown: ignored
    moved = client.get("/api/prices/L4/history?since=2026-03-01", follow_redirects=False)  # an alias goes to the id
    assert moved.status_code == 301 and moved.headers["location"].endswith("/api/prices/nvidia-l4/history?since=2026-03-01")


def test_a_non_usd_price_gets_a_usd_figure_only_through_a_dated_rate_shown_beside_it(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    from computeatlas.cloud.current_prices import current_view
    from computeatlas.cloud.rates import Rate

    store = Store(tmp_path / "prices")
    now = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
    euro = _obs("on_demand", 2.4, now - dt.timedelta(days=1)).model_copy(update={"currency": "EUR"})
    rates = RateTable([Rate(dt.date(2026, 11, 27), "EUR", 1.05, "https://www.ecb.europa.eu/stats/", "ECB euro reference rates")])
    unchecked = Store(tmp_path / "without-rate")  # no dated rate at import: the bounds cannot be checked, so it is held
    import_readings("atlas", [], unchecked, TABLE, RateTable([]), rules.Limits(), now=now, observations=[euro])
    assert [r["rules"] for r in unchecked.held()] == [["no_rate"]] and unchecked.current("nvidia-l4", now, 90) == []
    import_readings(
        "atlas", [], store, TABLE, rates, rules.Limits(), now=now, observations=[euro, _obs("on_demand", 3.2, now, region="eu")]
    )
    prices = {p.currency: p for p in current_view(store, "nvidia-l4", now, 90, rates=rates).prices}
    assert prices["EUR"].per_accelerator_hour == pytest.approx(0.3) and prices["EUR"].usd_per_accelerator_hour == pytest.approx(0.315)
    assert prices["EUR"].rate == "1 EUR = 1.05 USD on 2026-11-27 (ECB euro reference rates, https://www.ecb.europa.eu/stats/)"
    assert prices["USD"].rate is None and prices["USD"].usd_per_accelerator_hour == pytest.approx(0.4)
    without = {p.currency: p for p in current_view(store, "nvidia-l4", now, 90).prices}
    assert without["EUR"].usd_per_accelerator_hour is None  # no rate: kept in euros, out of USD figures


def test_observed_pages_are_never_frozen_by_the_page_cache(tmp_path: Path, catalog, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """/cloud/prices/{id} and /api/prices/{id} are never cached; the accelerator page is keyed
    on the store's version (looked at once a second at most), so a new import shows on it."""
    from computeatlas.cloud import history

    now = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
    monkeypatch.setattr(history, "utcnow", lambda: now)
    store = Store(tmp_path / "prices")
    client = TestClient(create_app(catalog, Settings(prices=tmp_path / "prices", page_cache=True)))
    before = {p: client.get(p).text for p in ("/cloud/prices/nvidia-l4", "/api/prices/nvidia-l4", "/silicon/nvidia-l4")}
    assert client.get("/silicon/nvidia-l4").text == before["/silicon/nvidia-l4"]  # served from the cache
    import_readings(
        "atlas",
        [],
        store,
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=now,
        observations=[_obs("on_demand", 3.2, now - dt.timedelta(days=1)), _obs("spot", 1.6, now - dt.timedelta(days=1))],
    )
    assert "0.40 USD" in client.get("/cloud/prices/nvidia-l4").text
    assert [p["amount"] for p in client.get("/api/prices/nvidia-l4").json()["current"]["prices"]] == [1.6, 3.2]
    rent = client.get("/silicon/nvidia-l4").text
    assert rent != before["/silicon/nvidia-l4"] and "examplecloud" in rent
    spot = next(p for p in client.get("/api/prices/nvidia-l4").json()["current"]["prices"] if p["pricing"] == "spot")
    assert spot["discount"] == pytest.approx(0.5)


def test_the_price_history_is_a_dataset_with_its_licence_notices(catalog) -> None:  # type: ignore[no-untyped-def]
    import csv
    import io
    import re

    import pyarrow.parquet as pq

    client = TestClient(create_app(catalog))  # the bundled store, data/prices
    accepted = Store(Path(__file__).parent.parent / "data" / "prices").count()["accepted"]
    body = client.get("/data/prices/observations.csv")
    assert body.headers["content-type"].startswith("text/csv") and 'rel="license"' in body.headers["link"]
    assert body.content.startswith(b"\xef\xbb\xbfcollected,") and body.content.count(b"\r\n") == body.content.count(b"\n")
    rows = list(csv.DictReader(io.StringIO(body.content.decode("utf-8-sig"), newline="")))
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", r["collected"]) for r in rows)  # as the JSON API writes times
    assert len(rows) == accepted and {r["accelerator"] for r in rows} >= {"nvidia-h100-sxm", "google-tpu-v5p", "aws-trainium"}
    assert any(r["via"].startswith("OpenComputePrices") for r in rows) and all(r["source_url"] or r["via"] for r in rows)
    table = pq.read_table(io.BytesIO(client.get("/data/prices/observations.parquet").content))
    assert table.num_rows == accepted
    notice = table.schema.metadata[b"notice"].decode()
    assert "MIT License" in notice and "OpenComputePrices Contributors" in notice and "CC-BY-NC-4.0" in notice
    licence = table.schema.metadata[b"licence"].decode()  # every upstream licence, not only MIT (Cyclenerd's rows are Apache 2.0)
    assert licence.startswith("CC-BY-NC-4.0 (Compute Atlas data); ") and "Apache-2.0 (Cyclenerd rows)" in licence
    assert client.get(body.headers["link"].split(">")[0].lstrip("<")).text == notice
    assert client.get("/data/prices/observations.json").status_code == 400


def test_the_price_feed_lists_first_observations_and_changes_newest_first(tmp_path: Path, catalog) -> None:  # type: ignore[no-untyped-def]
    import xml.etree.ElementTree as ET

    store = Store(tmp_path / "prices")
    now = dt.datetime(2026, 11, 30, tzinfo=dt.UTC)
    import_readings(
        "atlas",
        [],
        store,
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=now,
        observations=[
            _obs("on_demand", 4.0, now - dt.timedelta(days=20)),
            _obs("on_demand", 4.0, now - dt.timedelta(days=10)),
            _obs("on_demand", 3.2, now - dt.timedelta(days=1)),
        ],
    )
    client = TestClient(create_app(catalog, Settings(prices=tmp_path / "prices", page_cache=True)))
    feed = client.get("/cloud/prices/nvidia-l4/feed.xml")
    assert feed.headers["content-type"].startswith("application/atom+xml")
    ns = {"a": "http://www.w3.org/2005/Atom"}
    titles = [e.findtext("a:title", namespaces=ns) for e in ET.fromstring(feed.content).findall("a:entry", ns)]
    assert titles == [
        "examplecloud 8x L4 (us), on_demand: 0.5 → 0.4 USD per accelerator-hour",
        "examplecloud 8x L4 (us), on_demand: 0.5 USD per accelerator-hour (first observed)",
    ]  # the unchanged 4.0 is no entry
    page = client.get("/cloud/prices/nvidia-l4").text
    assert "/cloud/prices/nvidia-l4/feed.xml" in page and "/data/prices/observations.parquet" in page


def test_an_unobserved_variant_is_refused_naming_those_observed(real_client) -> None:
    # the CLI refuses it ("has no variant"); the API said nothing and answered an empty spread
    for path in (
        "/api/prices/nvidia-h100-sxm?variant=bogus",
        "/api/prices/nvidia-h100-sxm/current?variant=bogus",
        "/cloud/prices/nvidia-h100-sxm?variant=bogus",
    ):
        refused = real_client.get(path)
        assert refused.status_code == 400 and "no observed variant" in refused.text and "bogus" in refused.text, path
        assert "sxm-80gb" in refused.text, path
    assert real_client.get("/api/prices/nvidia-h100-sxm?variant=sxm-80gb").status_code == 200

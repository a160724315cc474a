"""The app's one cache: bounded in bytes across namespaces, counted per namespace, keyed so a
new import or a new day is seen, owned by the app and shown to the operator on /healthz."""

from __future__ import annotations

import datetime as dt
import threading
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cloud import history, rules
from computeatlas.cloud.cheapest_price import CHEAPEST, cheapest_prices
from computeatlas.cloud.engine import ANSWERS
from computeatlas.cloud.instances import instance_table
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.cloud.view_schemas import VIEWS
from computeatlas.core.cache import NO_CACHE, Cache, Stats, active, size_of, use
from computeatlas.core.settings import Settings
from computeatlas.web.app import create_app
from computeatlas.web.cache import PAGE_DATA, PAGES
from tests.test_pricing import NOW, offer, priced_cloud, write_offers


def test_entries_are_evicted_by_bytes_least_recently_used_first_across_namespaces() -> None:
    cache = Cache(1_000)
    assert cache.put("a", 1, "x", size=400) and cache.put("b", 1, "y", size=400)
    assert cache.get("a", 1) == "x"  # "a" is now the most recently used
    assert cache.put("b", 2, "z", size=400)  # 1,200 bytes do not fit: the oldest ("b", 1) goes
    assert cache.get("b", 1) is None and cache.get("a", 1) == "x" and cache.get("b", 2) == "z"
    assert cache.size == 800 and len(cache) == 2
    assert cache.stats("a") == Stats(entries=1, bytes=400, hits=2, misses=0)
    assert cache.stats("b") == Stats(entries=1, bytes=400, hits=1, misses=1)
    assert not cache.put("a", 2, "huge", size=1_001) and cache.get("a", 2) is None  # larger than the whole bound: not kept
    assert cache.put("a", 1, "x again", size=100) and cache.size == 500  # a replaced entry frees its bytes
    assert not Cache(0).put("a", 1, "x", size=1)


def test_hit_rates_are_counted_per_namespace_and_reset_by_clearing() -> None:
    cache = Cache(10_000)
    built: list[int] = []
    for n in (1, 1, 1, 2):
        assert cache.get_or_build("squares", n, lambda n=n: built.append(n) or n * n) == n * n
    assert built == [1, 2]
    assert cache.stats("squares") == Stats(entries=2, bytes=2 * size_of(1), hits=2, misses=2)
    assert cache.stats("squares").hit_rate == 0.5 and cache.stats("never").hit_rate == 0.0
    cache.put("other", "k", "v")
    cache.clear("squares")
    assert cache.stats("squares") == Stats() and cache.get("other", "k") == "v"
    assert cache.namespaces() == {"other": Stats(entries=1, bytes=size_of("v"), hits=1), "squares": Stats(misses=0)}


def test_what_leaves_the_cache_is_told_once_outside_the_lock() -> None:
    cache = Cache(100)
    gone: list[str] = []

    def told(value: str) -> None:
        assert cache.put("probe", value, value, size=1)  # the lock is free: a callback may use the cache
        gone.append(value)

    cache.put("v", 1, "first", size=60, on_evict=told)
    cache.put("v", 1, "first", size=60, on_evict=told)  # the same value again: not "gone"
    cache.put("v", 2, "second", size=60, on_evict=told)  # evicts "first"
    cache.clear("v")  # and "second"
    assert gone == ["first", "second"]


def test_size_of_counts_contents_and_scales_a_sample() -> None:
    row = {"provider": "gamma", "per_accelerator_hour": 2.5, "collected": dt.datetime(2026, 11, 20, tzinfo=dt.UTC)}
    rows = [dict(row) for _ in range(1_000)]
    assert size_of(row) > size_of({}) + len("gamma")
    assert 900 * size_of(row) < size_of(rows) < 1_100 * size_of(row) + size_of([None] * 1_000)
    assert size_of(b"x" * 10_000) >= 10_000


def test_no_cache_is_active_outside_an_app_or_command() -> None:
    assert active() is NO_CACHE and not NO_CACHE.put("a", 1, "x") and NO_CACHE.get("a", 1) is None
    mine = Cache(100)
    with use(mine):
        assert active() is mine
        seen: list[Cache] = []
        worker = threading.Thread(target=lambda: seen.append(active()))
        worker.start()
        worker.join()
        assert seen == [NO_CACHE]  # a plain thread starts without one (a request's thread pool copies the context)
    assert active() is NO_CACHE


def _import(folder: Path, catalog: Catalog, price: str, name: str) -> None:
    new = write_offers(
        folder, [offer("gamma", "acme-a1", "A1 PCIe 80GB", "1x A1", 1, "accelerator", "on-demand", price, "2026-11-29")], name=name
    )
    summary = import_readings("offers", [new], Store(folder / "prices"), instance_table(catalog), RateTable([]), rules.Limits(), now=NOW)
    assert summary.accepted == 1


def test_cheapest_prices_see_a_new_import_and_a_new_minute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.cloud import dataset

    monkeypatch.setattr(dataset, "VERSION_RECHECK_SECONDS", 0.0)
    folder = tmp_path / "data"
    catalog, _ = priced_cloud(folder)
    store = Store(folder / "prices")
    with use(Cache(64 * 1024 * 1024)) as cache:
        first = cheapest_prices(store, NOW, catalog=catalog)
        assert cheapest_prices(store, NOW + dt.timedelta(seconds=30), catalog=catalog) is first  # the same minute: kept
        assert cache.stats(CHEAPEST) == Stats(entries=1, bytes=cache.stats(CHEAPEST).bytes, hits=1, misses=1)
        assert cache.stats(CHEAPEST).bytes > 0
        _import(folder, catalog, "3.50", "cheap.csv")
        after = cheapest_prices(store, NOW + dt.timedelta(seconds=30), catalog=catalog)
        assert after["acme-a1"].per_accelerator_hour == 3.5 != first["acme-a1"].per_accelerator_hour  # the new run is seen
        assert cheapest_prices(store, NOW + dt.timedelta(minutes=1), catalog=catalog) is not after  # a new minute: asked again
        assert cache.stats(CHEAPEST).misses == 3
    assert (
        cheapest_prices(store, NOW + dt.timedelta(seconds=30), catalog=catalog) == after
    )  # no cache active: the same answer, worked out again


def test_the_app_owns_one_cache_that_the_operator_sees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.cloud import dataset

    monkeypatch.setattr(dataset, "VERSION_RECHECK_SECONDS", 0.0)
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    folder = tmp_path / "data"
    catalog, _ = priced_cloud(folder)
    app = create_app(catalog, Settings(data=folder, page_cache_bytes=8 * 1024 * 1024))
    client = TestClient(app)
    cache = app.state.cache
    assert isinstance(cache, Cache) and cache.max_bytes == 8 * 1024 * 1024 and app.state.pages.cache is cache
    assert client.get("/silicon/acme-a1").status_code == 200 and client.get("/api/accelerators/acme-a1").status_code == 200
    assert client.get("/silicon/acme-a1").status_code == 200
    assert cache.stats(PAGES) == Stats(entries=2, bytes=cache.stats(PAGES).bytes, hits=1, misses=2)
    assert cache.stats(PAGE_DATA).hits == 1 and cache.stats(PAGE_DATA).entries == 1  # the page's view, shared with its JSON twin
    assert cache.stats(ANSWERS).entries > 0  # the handlers' store questions are kept in it too
    health = client.get("/healthz").json()
    assert health["status"] == "ok" and set(health["cache"]) == {"max_bytes", "bytes", "entries", "namespaces"}
    shown = health["cache"]["namespaces"]
    assert shown["page"] == {"entries": 2, "bytes": cache.stats(PAGES).bytes, "hits": 1, "misses": 2, "hit_rate": 0.3333}
    assert health["cache"]["bytes"] == sum(n["bytes"] for n in shown.values()) == cache.size <= 8 * 1024 * 1024
    assert health["cache"]["entries"] == len(cache) and health["cache"]["max_bytes"] == 8 * 1024 * 1024
    assert client.get("/healthz").json()["cache"]["namespaces"]["page"]["misses"] == 2  # health is never cached itself
    before = client.get("/cloud/gamma").content
    _import(folder, catalog, "3.50", "cheap.csv")
    assert client.get("/cloud/gamma").content != before  # a new import is a new key: the page is rendered again
    assert client.get("/cloud/prices/acme-a1?since=2026-01-01").status_code == 200
    assert cache.stats(VIEWS).entries > 0  # a history read binds its views once, kept by the same cache
    assert active() is NO_CACHE  # the app's cache is active only while a request runs

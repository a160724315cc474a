"""The collectors' status: /cloud/status (HTML, parsed), /api/status/collectors (the same view as
JSON), `computeatlas prices status`, and the provider page's "last collected" line, over attempts
recorded in a temporary store.

The clock is 2026-11-30 12:00 UTC and the schedule the default six hours. Source ``example``
imported a run of three offers (collected 01:00, finished 01:30: 10.5 hours ago, so overdue by
4 whole hours), then failed twice (09:01 and 11:02); ``azure`` imported at 10:05 (1.9 hours ago,
current) a run that is not in this store; ``broken`` has one record cut short.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.catalog import Catalog
from computeatlas.cli import app as cli_app
from computeatlas.cloud import collection_log, history, rules
from computeatlas.cloud.collection import SOURCES
from computeatlas.cloud.collection_log import Attempt
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from tests.collector_support import TABLE, example_readings
from tests.conftest import CliRunner

from .test_pricing import OFFERS, priced_cloud

NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)


def _at(hour: int, minute: int = 0) -> dt.datetime:
    return NOW.replace(hour=hour, minute=minute)


@pytest.fixture(autouse=True)
def clock(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(history, "utcnow", lambda: NOW)


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """The store of the module's story (see the docstring)."""
    found = Store(tmp_path / "prices")
    readings = example_readings((("us", 0.80), ("eu", 0.85), ("asia", 0.90)), _at(1))
    summary = import_readings("collector:example", [], found, TABLE, RateTable([]), rules.Limits(), now=_at(1, 30), observations=readings)
    assert summary.accepted == 3
    for attempt in (
        Attempt(source="example", started=_at(1), finished=_at(1, 30), result="imported", rows_read=3, accepted=3, held=0, run=summary.run),
        Attempt(source="example", started=_at(9), finished=_at(9, 1), result="failed", error="https://examplecloud.example/api: HTTP 503"),
        Attempt(
            source="example", started=_at(11), finished=_at(11, 2), result="failed", error="https://examplecloud.example/api: timed out"
        ),
        Attempt(
            source="azure", started=_at(10), finished=_at(10, 5), result="imported", rows_read=40, accepted=36, held=4, run="R-elsewhere"
        ),
    ):
        collection_log.record(found.root, attempt)
    (found.root / "collections" / "broken").mkdir()
    zoneless = '{"source": "azure", "started": "2026-11-30T11:00:00", "finished": "2026-11-30T11:01:00", "result": "failed"}'
    (found.root / "collections" / "broken" / "20261130T070000.000000Z-0000cafe.json").write_text(zoneless)  # valid JSON, no zone
    (found.root / "collections" / "broken" / "20261130T080000.000000Z-0000beef.json").write_text('{"source": "broken", "sta')
    return found


@pytest.fixture
def client(store: Store, catalog: Catalog, make_client: Callable[..., TestClient]) -> TestClient:
    return make_client(catalog, Settings(prices=store.root))


def words(node) -> str:  # type: ignore[no-untyped-def]
    """The text of ``node`` as a reader sees it, white space collapsed."""
    return " ".join(node.get_text("").split())


def notes(row) -> list[str]:  # type: ignore[no-untyped-def]
    return [words(n) for n in row.select(".state .note")]


def test_the_page_shows_each_sources_attempts_newest_price_failures_and_what_is_overdue(client: TestClient, store: Store) -> None:
    response = client.get("/cloud/status")
    assert response.status_code == 200
    page = BeautifulSoup(response.text, "lxml")
    rows = {tr["data-source"]: tr for tr in page.select("#sources tbody tr")}
    assert list(rows) == sorted({"azure", "broken", "example", *SOURCES})  # recorded and configured, sorted by name
    assert rows["oracle"]["data-schedule"] == "never" and notes(rows["oracle"]) == ["no collection attempted yet"]  # configured, never run
    assert words(rows["oracle"].select_one(".attention")) == "needs attention"
    example = rows["example"]
    assert example["data-schedule"] == "overdue"
    assert notes(example) == [
        "overdue by 4 hours: the last successful collection finished 2026-11-30 01:30 UTC, 10 hours ago (scheduled every 6 hours)",
        "the last attempt failed (2026-11-30 11:02 UTC): https://examplecloud.example/api: timed out",
    ]
    assert (
        words(example.select_one(".last-attempt"))
        == "2026-11-30 11:02 UTC (less than an hour ago): failed, 0 rows read, 0 accepted, 0 held"
    )
    run = collection_log.attempts(store.root, "example")[0][-1].run
    assert (
        words(example.select_one(".last-success"))
        == f"2026-11-30 01:30 UTC (10 hours ago): imported, 3 rows read, 3 accepted, 0 held · run {run}"
    )
    assert words(example.select_one(".newest-price")) == "2026-11-30 01:00 UTC, 11 hours old"
    assert words(example.select_one(".offers")) == "3"
    failures = [words(li) for li in page.select("#failures-example li")]
    assert failures == [
        "2026-11-30 11:02 UTC: https://examplecloud.example/api: timed out",
        "2026-11-30 09:01 UTC: https://examplecloud.example/api: HTTP 503",
    ]  # newest first, each with its error
    azure = rows["azure"]
    assert azure["data-schedule"] == "current" and notes(azure) == [] and azure.select_one(".attention") is None
    assert words(example.select_one(".attention")) == "needs attention"
    assert words(azure.select_one(".last-success")).startswith(
        "2026-11-30 10:05 UTC (1 hour ago): imported, 40 rows read, 36 accepted, 4 held"
    )
    assert words(azure.select_one(".newest-price")) == "no current price from this source"  # its run is not in this store
    assert page.select_one("#failures-azure") is None
    assert rows["broken"]["data-schedule"] == "never" and notes(rows["broken"]) == ["no readable collection attempt is recorded"]
    problems = [words(li) for li in page.select("#problems li")]
    assert problems[0].startswith("<store>/collections/broken/20261130T080000.000000Z-0000beef.json: not a collection attempt record")
    assert problems[1:] == ["<store>/collections/broken: 1 record(s) give a time without a zone (UTC, ending in Z)"]
    assert str(store.root) not in response.text  # a public page names no server path


def test_the_json_is_the_same_view(client: TestClient) -> None:
    response = client.get("/api/status/collectors")
    assert response.status_code == 200
    body = response.json()
    assert body["as_of"] == "2026-11-30T12:00:00Z" and body["schedule_hours"] == 6.0 and body["attention"] is True
    example = next(s for s in body["sources"] if s["source"] == "example")
    assert example["schedule"] == "overdue" and example["overdue_hours"] == 4.5 and example["attention"] is True
    assert (
        example["newest_price"] == "2026-11-30T01:00:00Z" and example["newest_price_age_hours"] == 11.0 and example["current_offers"] == 3
    )
    assert example["last_success"]["finished"] == "2026-11-30T01:30:00Z" and example["last_success"]["seconds"] == 1800.0
    assert [f["error"] for f in example["failures"]] == [
        "https://examplecloud.example/api: timed out",
        "https://examplecloud.example/api: HTTP 503",
    ]
    azure = next(s for s in body["sources"] if s["source"] == "azure")
    assert azure["schedule"] == "current" and azure["overdue_hours"] is None and azure["attention"] is False
    assert azure["last_attempt"]["age_hours"] == round(115 / 60, 3)  # 10:05 to 12:00
    assert len(body["problems"]) == 2 and all("/collections/broken" in p for p in body["problems"])
    only = client.get("/api/status/collectors", params={"source": "azure,example"}).json()
    assert [s["source"] for s in only["sources"]] == ["azure", "example"]


def _schedule(client: TestClient, source: str) -> str:
    return next(s["schedule"] for s in client.get("/api/status/collectors").json()["sources"] if s["source"] == source)


def test_a_new_attempt_shows_at_once(client: TestClient, store: Store) -> None:
    assert _schedule(client, "example") == "overdue"
    collection_log.record(
        store.root,
        Attempt(source="example", started=_at(11, 50), finished=_at(11, 55), result="imported", rows_read=3, accepted=3, run="R3"),
    )  # no new run in the store: the store's version is unchanged, and the page is not cached on it
    page = BeautifulSoup(client.get("/cloud/status").text, "lxml")
    assert page.select_one('tr[data-source="example"]')["data-schedule"] == "current"
    assert _schedule(client, "example") == "current"


@pytest.mark.parametrize(
    ("params", "says"),
    [
        ({"source": "<script>alert(1)</script>"}, "a collector name is lower-case letters, digits and hyphens"),
        ({"source": "../../etc/passwd"}, "a collector name is lower-case letters, digits and hyphens"),
        (
            {"source": "exampel"},
            f"no source 'exampel'; did you mean example? (known: {', '.join(sorted({'azure', 'broken', 'example', *SOURCES}))})",
        ),
        ({"source": "x" * 501}, "is longer than 500 characters, the most allowed"),
        ([("source", "azure"), ("source", "example")], "given more than once; separate several values with commas"),
    ],
)
def test_a_hostile_or_wrong_source_is_a_clear_400(client: TestClient, params: object, says: str) -> None:
    answer = client.get("/api/status/collectors", params=params)  # type: ignore[arg-type]
    assert answer.status_code == 400 and answer.json()["detail"].startswith("query parameter 'source': ")
    assert says in answer.json()["detail"]
    page = client.get("/cloud/status", params=params)  # type: ignore[arg-type]
    assert page.status_code == 400 and "<script>alert" not in page.text


def test_an_empty_store_and_unreadable_prices_are_said_not_raised(
    tmp_path: Path, store: Store, client: TestClient, catalog: Catalog, make_client: Callable[..., TestClient]
) -> None:
    empty = make_client(catalog, Settings(prices=tmp_path / "nothing"))
    page = BeautifulSoup(empty.get("/cloud/status").text, "lxml")
    assert "No collection is recorded in this store yet" in words(page.select_one("#sources"))
    assert empty.get("/api/status/collectors").json() | {"as_of": None} == {
        "as_of": None,
        "schedule_hours": 6.0,
        "freshness_days": 90,
        "sources": [],
        "problems": [],
        "attention": False,
        "configured": sorted(SOURCES),  # every configured collector named, none listed as a source before its first attempt
    }
    assert {"aws", "azure", "skypilot-lambda", "vastai"} <= set(SOURCES)
    page = BeautifulSoup(empty.get("/cloud/status").text, "lxml").select_one("p.missing")
    assert words(page).startswith(
        f"No collection is recorded in this store yet: every price it holds was imported from files. {len(SOURCES)} collectors"
    )
    for damaged in store.root.rglob("*.parquet"):  # every run file and the current table cut short
        damaged.write_bytes(damaged.read_bytes()[:100])
    response = client.get("/cloud/status")
    assert response.status_code == 200
    problems = [words(li) for li in BeautifulSoup(response.text, "lxml").select("#problems li")]
    assert any(p.startswith("<store>: the current prices cannot be read, so no source's newest price is shown") for p in problems)
    example = next(s for s in client.get("/api/status/collectors").json()["sources"] if s["source"] == "example")
    assert example["newest_price"] is None and example["schedule"] == "overdue"  # the attempts are still read


def test_the_cli_prints_the_same_view_and_exits_1_when_a_source_needs_attention(store: Store, client: TestClient) -> None:
    result = CliRunner().invoke(cli_app, ["prices", "status", "--prices", str(store.root)], env={"COLUMNS": "400"})  # one line each
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert (
        f"collectors: {len({'azure', 'broken', 'example', *SOURCES})} source(s), scheduled every 6 hours, as of 2026-11-30 12:00 UTC"
        in lines
    )
    at = lines.index("  example: overdue (needs attention); overdue by 4 hours: the last successful collection finished 2026-11-30 01:30 UTC, "
                     "10 hours ago (scheduled every 6 hours); the last attempt failed (2026-11-30 11:02 UTC): https://examplecloud.example/api: timed out")  # fmt: skip
    assert lines[at + 1] == "    last attempt: 2026-11-30 11:02 UTC, less than an hour ago: failed, 0 rows read, 0 accepted, 0 held"
    assert lines[at + 2].startswith("    last success: 2026-11-30 01:30 UTC, 10 hours ago: imported, 3 rows read, 3 accepted, 0 held (run ")
    assert lines[at + 3] == "    newest current price: 2026-11-30 01:00 UTC, 11 hours old; 3 current offer(s)"
    assert lines[at + 4 : at + 7] == [
        "    failures: 2 (newest first)",
        "      2026-11-30 11:02 UTC: https://examplecloud.example/api: timed out",
        "      2026-11-30 09:01 UTC: https://examplecloud.example/api: HTTP 503",
    ]
    assert "  azure: current; " not in result.stdout and "  azure: current" in lines
    assert "collection problems (records or prices that cannot be read): 2" in lines
    as_json = CliRunner().invoke(cli_app, ["prices", "status", "--json", "--prices", str(store.root)])
    assert as_json.exit_code == 1
    assert json.loads(as_json.stdout) == client.get("/api/status/collectors").json()  # the same document as the API


def test_a_store_whose_collectors_are_all_current_exits_0(tmp_path: Path) -> None:
    root = tmp_path / "prices"
    for name in SOURCES:  # every configured collector: imported 1 h 55 min ago, but gcp, skipped without its key
        skipped = name == "gcp"
        collection_log.record(
            root,
            Attempt(
                source=name,
                started=_at(10),
                finished=_at(10, 5),
                result="skipped" if skipped else "imported",
                reason="no API key" if skipped else None,
                rows_read=0 if skipped else 1,
                accepted=0 if skipped else 1,
            ),
        )
    result = CliRunner().invoke(cli_app, ["prices", "status", "--prices", str(root)], env={"COLUMNS": "400"})
    assert result.exit_code == 0, result.output  # a source only ever skipped (no API key) needs no attention
    assert "  gcp: never; never collected successfully: no attempt recorded imported a run; the last attempt was skipped: no API key" in (
        result.stdout.splitlines()
    )


def test_each_provider_page_says_when_its_prices_were_last_collected(tmp_path: Path, make_client: Callable[..., TestClient]) -> None:
    folder = tmp_path / "data"
    catalog, _ = priced_cloud(folder, [r for r in OFFERS if r["provider"] != "beta"])
    client = make_client(catalog, Settings(data=folder))
    gamma = BeautifulSoup(client.get("/cloud/gamma").text, "lxml").select_one("#last-collected")
    # gamma's newest observation is its 1x A1 listing seen 2026-11-20 (the old listing, 2026-08-01, is older)
    assert words(gamma) == "prices last collected 2026-11-20 00:00 UTC (through data/offers/offers.csv); collector status"
    assert gamma.select_one("a")["href"] == "/cloud/status"
    beta = BeautifulSoup(client.get("/cloud/beta").text, "lxml").select_one("#last-collected")
    assert words(beta) == "no price of Beta Cloud collected yet; collector status"
    api = client.get("/api/providers/gamma").json()["last_collected"]
    assert api == {"collected": "2026-11-20T00:00:00Z", "via": "data/offers/offers.csv", "offers": 2}


def test_a_record_without_a_time_zone_among_others_is_a_problem_not_a_500(store: Store, client: TestClient) -> None:
    naive = '{"source": "azure", "started": "2026-11-30T11:00:00", "finished": "2026-11-30T11:01:00", "result": "failed"}'
    (store.root / "collections" / "azure" / "20261130T110000.000000Z-00000bad.json").write_text(naive)  # beside an aware one
    response = client.get("/api/status/collectors")
    assert response.status_code == 200
    assert "<store>/collections/azure: a record gives a time without a zone (UTC, ending in Z)" in response.json()["problems"]
    assert client.get("/cloud/status").status_code == 200

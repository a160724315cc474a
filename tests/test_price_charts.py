"""Price charts over time: the gap rule, pricing kinds told apart without colour, the
like-for-like spread, USD per dense PFLOP-hour, and data links that return the plotted points.

Two stores: the bundled one (data/prices; it is rebuilt with more sources, so these tests
check rules and relations against the store's own rows more than counts), and a small one
written here, whose every figure is stated below."""

from __future__ import annotations

import csv
import datetime as dt
import io
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from bs4 import BeautifulSoup
from fastapi.testclient import TestClient

from computeatlas.charts.timeline import MAX_BRIDGE_DAYS, segments
from computeatlas.cloud import history, trends
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings

NOW = dt.datetime(2026, 12, 1, 12, tzinfo=dt.UTC)
H100 = "nvidia-h100-sxm"


@pytest.fixture
def at_now(monkeypatch: pytest.MonkeyPatch) -> dt.datetime:
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    return NOW


def _d(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


# --- the gap rule -----------------------------------------------------------------------


def test_a_weekly_series_is_broken_only_where_weeks_are_missing() -> None:
    weeks = [_d(d) for d in ("2026-01-05", "2026-01-12", "2026-01-19", "2026-02-02", "2026-03-02", "2026-03-09", "2026-03-16")]
    segs, interval = segments(weeks)
    # median step 7 days: 14 days (one week missing) is joined, 28 days (three missing) is a gap
    assert interval == 7 and segs == [0, 0, 0, 0, 1, 1, 1]


def test_no_line_bridges_months_whatever_the_interval() -> None:
    segs, interval = segments([_d("2026-03-21"), _d("2026-09-20")])  # a snapshot source taken twice
    assert interval == 183 and segs == [0, 1]  # 183 days > MAX_BRIDGE_DAYS
    months = [_d("2026-01-01"), _d("2026-02-01"), _d("2026-03-01"), _d("2026-05-01")]
    assert segments(months)[0] == [0, 0, 0, 1]  # 31 and 28 days joined; 61 days (April missing) > 45
    assert MAX_BRIDGE_DAYS == 45


# --- a small store: every figure stated here ---------------------------------------------


def _obs(
    provider: str,
    day: str,
    usd: float,
    pricing: str = "on_demand",
    variant: str = "pcie-80gb",
    accelerator: str = "acme-a1",
    term: str = "",
) -> Observation:
    return Observation(
        provider=provider,
        instance_type=f"{provider}-{accelerator}",
        region="r1",
        pricing=pricing,
        term=term,
        amount=usd,  # type: ignore[arg-type]
        currency="USD",
        unit="hour",
        collected=dt.datetime.fromisoformat(day + "T06:00:00+00:00"),
        source_url=f"https://{provider}.example/pricing",
        via="test",
        accelerator=accelerator,
        variant=variant,
        accelerators=1,
        per_accelerator_hour=usd,
        run="r1",
    )


SMALL = [
    # alpha: weekly in January, nothing in February, weekly again in March
    _obs("alpha", "2026-01-05", 2.0),
    _obs("alpha", "2026-01-12", 2.1),
    _obs("alpha", "2026-01-19", 2.2),
    _obs("alpha", "2026-03-02", 2.5),
    _obs("alpha", "2026-03-09", 2.6),
    _obs("alpha", "2026-01-05", 0.9, pricing="spot"),
    _obs("alpha", "2026-01-05", 1.4, pricing="committed", term="1 year"),
    _obs("alpha", "2026-01-05", 1.0, pricing="committed", term="3 years"),
    # beta: once in January, once in March
    _obs("beta", "2026-01-07", 4.0),
    _obs("beta", "2026-03-10", 6.0),
    # gamma states no variant: never in a line, never in the spread
    _obs("gamma", "2026-01-06", 100.0, variant=""),
    # delta: only in November (one provider that month: no spread)
    _obs("delta", "2026-11-20", 3.0),
    # globex-g1 has no FP8 (not applicable) but publishes BF16
    _obs("alpha", "2026-01-05", 0.5, accelerator="globex-g1", variant=""),
]


@pytest.fixture
def small(tmp_path: Path, catalog, make_client, monkeypatch: pytest.MonkeyPatch) -> TestClient:  # type: ignore[no-untyped-def]
    Store(tmp_path / "prices").append(SMALL, "r1", {"format": "test"})
    monkeypatch.setattr(history, "utcnow", lambda: NOW)
    return make_client(catalog, Settings(prices=tmp_path / "prices"))


def _series(body: dict[str, Any]) -> dict[str, list[tuple[str, float, int]]]:
    return {s["id"]: [(p["date"], p["value"], p["segment"]) for p in s["points"]] for s in body["series"]}


def test_each_provider_and_kind_is_its_own_line_with_gaps_where_nothing_was_observed(small: TestClient) -> None:
    body = small.get("/api/charts/price-history/acme-a1").json()
    lines_ = _series(body)
    assert lines_["alpha/on_demand/"] == [
        ("2026-01-05", 2.0, 0),
        ("2026-01-12", 2.1, 0),
        ("2026-01-19", 2.2, 0),
        ("2026-03-02", 2.5, 1),
        ("2026-03-09", 2.6, 1),
    ]  # February is a gap
    assert lines_["beta/on_demand/"] == [("2026-01-07", 4.0, 0), ("2026-03-10", 6.0, 1)]  # two marks, no line across
    assert not any(sid.startswith("gamma/") for sid in lines_)  # variant not stated: not plotted …
    assert {"name": "gamma", "reason": "1 observation(s): variant not stated", "url": ""} in body["excluded"]  # … and listed
    assert body["kinds"] == ["on-demand", "spot", "committed, 1 year", "committed, 3 years"]
    dashes = dict(zip(body["kinds"], map(tuple, body["dashes"]), strict=True))
    assert dashes["on-demand"] == () and len(set(dashes.values())) == 4  # solid, and four patterns: not colour alone
    assert (body["window_start"], body["window_end"]) == ("2026-09-02", "2026-12-01")


def test_the_spread_is_among_providers_observed_in_the_same_month(small: TestClient) -> None:
    body = small.get("/api/charts/price-spread/acme-a1").json()
    points = body["series"][0]["points"]
    # January: beta 4.0 ÷ alpha's lowest 2.0; March: beta 6.0 ÷ alpha 2.5 (gamma's 100 states no variant)
    assert [(p["date"], p["value"], p["observations"], p["segment"]) for p in points] == [
        ("2026-01-01", 2.0, 2, 0),
        ("2026-03-01", 2.4, 2, 1),
    ]
    assert points[0]["note"].startswith("beta 4 ÷ alpha 2 USD/h; 2 providers: alpha, beta")
    assert body["excluded"][0] == {"name": "1 month(s)", "reason": "one provider observed, so no spread (2026-11)", "url": ""}
    assert "Only providers observed in that same month enter it" in body["method"]


def test_price_performance_divides_by_the_dense_figure_and_lists_parts_without_one(small: TestClient) -> None:
    fp8 = small.get("/api/charts/price-performance/FP8").json()
    acme = next(s for s in fp8["series"] if s["id"] == "acme-a1")
    # acme-a1 publishes 1979 TFLOPS dense FP8 (3958 sparse, never used): January's low 2.0 ÷ 1.979 PFLOPS starts the chain;
    # March moves it like for like: the median of alpha 2.5 ÷ 2.0 and beta 6.0 ÷ 4.0 = 1.375, so 2.75; November's only
    # provider was not seen in March: the chain breaks and starts again at November's 3.0
    assert acme["points"][0]["date"] == "2026-01-01" and acme["points"][0]["value"] == pytest.approx(2.0 / 1.979)
    assert [p["value"] for p in acme["points"]] == pytest.approx([2.0 / 1.979, 2.75 / 1.979, 3.0 / 1.979])
    assert "× 1.375, the median change of 2 provider(s) seen in both months" in acme["points"][1]["note"]
    assert acme["points"][2]["segment"] != acme["points"][1]["segment"]  # a broken chain is never joined
    assert [e["name"] for e in fp8["excluded"]] == ["Globex G1"] and "not applicable" in fp8["excluded"][0]["reason"]
    headline = small.get("/api/charts/price-performance").json()  # headline: BF16, the format both observed parts publish dense
    assert headline["title"].startswith("USD per dense BF16 PFLOP-hour")
    assert {s["id"]: s["points"][0]["value"] for s in headline["series"]} == pytest.approx(
        {"acme-a1": 2.0 / 0.9895, "globex-g1": 0.5 / 0.9895}
    )


def test_the_csv_holds_exactly_the_plotted_points(small: TestClient) -> None:
    for path in ("/api/charts/price-history/acme-a1", "/api/charts/price-spread/acme-a1", "/api/charts/price-performance"):
        body = small.get(path).json()
        rows = list(csv.DictReader(io.StringIO(small.get(path + ".csv").content.decode("utf-8-sig"), newline="")))
        # CSV cells carry 15 significant digits (the most a double holds, so no float noise): the plotted value to that.
        assert [(r["series"], r["date"], float(r["value"]), int(r["segment"])) for r in rows] == [
            (s["id"], p["date"], float(f"{p['value']:.15g}"), p["segment"]) for s in body["series"] for p in s["points"]
        ]


def test_a_part_never_observed_has_no_chart_picture(small: TestClient) -> None:
    assert small.get("/charts/price-history/acme-a2.svg").status_code == 404
    page = BeautifulSoup(small.get("/cloud/prices/acme-a2").text, "html.parser")
    assert "there is no price chart" in page.select_one("#price-charts").get_text()


# --- the bundled store -----------------------------------------------------------------------


def test_the_h100_price_history_is_the_store_s_weekly_lows_per_provider_and_kind(real_client: TestClient, at_now: dt.datetime) -> None:
    body = real_client.get(f"/api/charts/price-history/{H100}").json()
    variant = body["variant"]
    assert variant == "sxm-80gb" and "variant sxm-80gb" in body["description"]
    # Independently of the chart's DuckDB query: every accepted USD row of that variant, lowest per provider, kind, term and ISO week.
    lows: dict[tuple[str, str, str, dt.date], float] = defaultdict(lambda: float("inf"))
    for row in Store(Path("data/prices")).history(H100):
        if row["variant"] == variant and row["currency"] == "USD" and row["per_accelerator_hour"] is not None:
            day = row["collected"].date()
            key = (row["provider"], row["pricing"], row["term"], day - dt.timedelta(days=day.weekday()))
            lows[key] = min(lows[key], row["per_accelerator_hour"])
    plotted = {
        (s["id"].split("/")[0], s["id"].split("/")[1], s["id"].split("/", 2)[2], _d(p["period"])): p["value"]
        for s in body["series"]
        for p in s["points"]
    }
    assert plotted == pytest.approx(dict(lows))
    runpod = _series(body)["runpod/on_demand/"]
    # the week of 2026-03-16: 2.99 (1x_H100-SXM_SECURE, 03-21) and 2.69 (Community Cloud, 03-22): the low, at the day it was
    # seen; then 2026-11-09 (2.69, Community Cloud), nothing between: a gap
    assert [(d, v) for d, v, _ in runpod][:1] == [("2026-03-22", 2.69)] and ("2026-11-09", 2.69) in [(d, v) for d, v, _ in runpod]
    assert runpod[0][2] != runpod[-1][2]
    for s in body["series"]:  # the gap rule holds on every line
        for a, b in zip(s["points"], s["points"][1:], strict=False):
            apart = (_d(b["date"]) - _d(a["date"])).days
            assert (b["segment"] == a["segment"]) == (apart <= min(2 * s["interval_days"], MAX_BRIDGE_DAYS))
    assert {s["kind"] for s in body["series"]} <= set(body["kinds"]) and "on-demand" in body["kinds"] and "spot" in body["kinds"]


def test_the_h100_svg_names_kinds_in_words_and_marks_the_freshness_window(real_client: TestClient, at_now: dt.datetime) -> None:
    wide = real_client.get(f"/charts/price-history/{H100}.svg")
    narrow = real_client.get(f"/charts/price-history/{H100}.narrow.svg")
    assert wide.headers["content-type"] == "image/svg+xml"
    for response, most in ((wide, 800), (narrow, 390)):
        svg = BeautifulSoup(response.text, "html.parser")
        root = svg.find("svg")
        assert root["role"] == "img" and svg.find("title").get_text().startswith("H100 SXM5 80GB: USD per accelerator-hour")
        assert float(root["width"]) <= most  # the narrow picture is drawn for a 390-pixel screen
        words = {t.get_text() for t in svg.find_all("text")}
        assert {"on-demand: solid line, ●", "spot: dotted line, ▲", "current: last 90 days", "Runpod"} <= words
        assert any(p.get("stroke-dasharray") for p in svg.find_all("path"))  # the legend draws the dash patterns


def test_price_performance_is_a_like_for_like_index_over_the_dense_figure(real_client: TestClient, at_now: dt.datetime) -> None:
    perf = real_client.get("/api/charts/price-performance/FP8").json()
    # Independently of the chart's query: each provider's lowest accepted on-demand USD price per month (chart variant), chained
    months: dict[dt.date, dict[str, float]] = defaultdict(dict)
    for row in Store(Path("data/prices")).history(H100):
        if (row["variant"], row["pricing"], row["currency"], row["status"]) == ("sxm-80gb", "on_demand", "USD", "accepted"):
            month, low = row["collected"].date().replace(day=1), row["per_accelerator_hour"]
            months[month][row["provider"]] = min(low, months[month].get(row["provider"], low))
    expected, level, previous = {}, 0.0, {}
    for month in sorted(months):
        common = set(months[month]) & set(previous)
        level = level * statistics.median(months[month][p] / previous[p] for p in common) if common else min(months[month].values())
        expected[month.isoformat()], previous = level, months[month]
    h100 = next(s for s in perf["series"] if s["id"] == H100)
    # NVIDIA's H100 SXM: 1,979 TFLOPS dense FP8, so USD per PFLOP-hour = the index level ÷ 1.979
    assert {p["date"]: p["value"] * 1.979 for p in h100["points"]} == pytest.approx(expected)
    assert h100["points"][0]["date"] == "2024-06-01"  # Google Cloud's a3-highgpu-8g, the first H100 SXM price of the bundle
    assert all("÷ 1.979 PFLOPS dense FP8 (1979 TFLOPS)" in p["note"] for p in h100["points"])
    for e in perf["excluded"]:
        assert "FP8" in e["reason"] or "no on-demand USD price" in e["reason"]  # left out with why, never with a sparse figure
    assert any(e["name"] == "NVIDIA A100 80GB SXM" for e in perf["excluded"])  # no FP8 units
    assert "providers observed in both months only" in perf["method"]


def test_the_price_page_opens_with_the_charts_and_links_their_data(real_client: TestClient, real_catalog, at_now: dt.datetime) -> None:  # type: ignore[no-untyped-def]
    page = BeautifulSoup(real_client.get(f"/cloud/prices/{H100}").text, "html.parser")
    sections = [s["id"] for s in page.select("article section[id]")]
    assert sections.index("price-charts") < sections.index("current") < sections.index("history")  # chart first, tables below
    block = page.select_one(f"#chart-price-history-{H100}")
    picture = block.select_one("picture")
    assert picture.select_one("source")["srcset"] == f"/charts/price-history/{H100}.narrow.svg"
    assert picture.select_one("img")["src"] == f"/charts/price-history/{H100}.svg"
    links = {a.get_text(): a["href"] for a in block.select(".chart-links a")}
    assert links["JSON"] == f"/api/charts/price-history/{H100}" and links["CSV"] == f"/api/charts/price-history/{H100}.csv"
    assert "never more than 45 days" in block.select_one(".chart-gaps").get_text()
    # The page's chart reads the page's year (2025-12-01 to 2026-12-01): what it leaves out is counted in that year, by
    # provider and reason, as the store's rows of the year say; the chart's own page reads all of the history.
    store, since = Store(Settings.from_env().prices_dir), dt.date(2025, 12, 1)
    variant = trends.chart_variant(store, H100, at_now, 90, since, at_now.date())
    expected: dict[tuple[str, str], int] = defaultdict(int)
    for r in store.history(H100, since, at_now.date()):
        if (r["variant"] or "") != variant:
            expected[(r["provider"], "variant not stated" if not r["variant"] else f"another variant ({r['variant']})")] += 1
        elif r["per_accelerator_hour"] is None:
            expected[(r["provider"], "no price per accelerator-hour")] += 1
        elif r["currency"] != "USD":
            expected[(r["provider"], f"priced in {r['currency']}, not USD")] += 1
    names = {p: real_catalog.providers[p].name for p, _ in expected}
    assert sorted(" ".join(li.get_text().split()) for li in block.select(".chart-excluded li")) == sorted(
        f"{names[p]} — {n} observation(s): {why}" for (p, why), n in expected.items()
    )
    whole = real_client.get(f"/api/charts/price-history/{H100}").json()["excluded"]
    assert "Amazon Web Services" in {e["name"] for e in whole} and "Amazon Web Services" not in names.values()  # seen before the year
    assert not block.select("table")  # the points are listed on the chart's own page, linked
    assert block.select_one("p.chart-data a")["href"] == f"/charts/price-history/{H100}"
    own = BeautifulSoup(real_client.get(f"/charts/price-history/{H100}").text, "html.parser")
    rows = own.select("table.timeline-points tbody tr")
    api = real_client.get(f"/api/charts/price-history/{H100}").json()
    assert [(r["data-series"], r["data-date"]) for r in rows] == [(s["id"], p["date"]) for s in api["series"] for p in s["points"]]
    assert page.select_one(f"#chart-price-spread-{H100}") is not None
    silicon = BeautifulSoup(real_client.get(f"/silicon/{H100}").text, "html.parser")
    assert silicon.select_one(".price-charts-link a")["href"] == f"/cloud/prices/{H100}#price-charts"
    cloud = BeautifulSoup(real_client.get("/cloud/").text, "html.parser")
    assert cloud.select_one("#charts img")["src"] == "/charts/price-performance.svg"
    assert real_client.get("/charts/price-performance").status_code == 200

"""Bounds that need no history: the floor and ceiling per accelerator-hour in every unit and
currency, a first price against its closest sibling, implausible collection times, and an
absurd price absent from every face of the site."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud import band, bounds, rules, runs
from computeatlas.cloud.bounds import sibling_map
from computeatlas.cloud.importers import atlas
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation, Status
from computeatlas.cloud.rates import Rate, RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
TABLE = load_instances(FIXTURES / "instances")
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
EUR = RateTable([Rate(dt.date(2026, 11, 2), "EUR", 1.05, "https://www.ecb.europa.eu/stats/", "ECB euro reference rates")])
HEADER = "provider,instance_type,region,pricing,term,amount,currency,unit,accelerators,price_basis,collected,source_url,source_title,via,availability,note\n"


def _obs(
    amount: float,
    unit: str = "hour",
    currency: str = "USD",
    when: dt.datetime = NOW - dt.timedelta(days=1),
    instance: str = "8x L4",
    region: str = "us",
    pricing: str = "on_demand",
) -> Observation:
    return Observation(
        provider="examplecloud",
        instance_type=instance,
        region=region,
        pricing=pricing,
        amount=amount,  # type: ignore[arg-type]
        currency=currency,
        unit=unit,
        collected=when,
        source_url="https://examplecloud.example/pricing",
        via="test",
    )  # type: ignore[arg-type]


def _decide(*rows: Observation, rates: RateTable = EUR, **options: object) -> list[Observation]:
    return rules.apply(list(rows), TABLE, rates, rules.Limits(), now=NOW, **options)  # type: ignore[arg-type]


def test_the_bounds_are_set_once_in_the_settings() -> None:
    limits, settings = rules.Limits(), Settings()
    assert (limits.floor, limits.ceiling, limits.first_date) == (0.02, 1000.0, dt.date(2015, 1, 1))
    assert rules.Limits.of(settings) == limits
    assert rules.Limits.of(Settings(price_ceiling_per_accelerator_hour=50)).ceiling == 50


@pytest.mark.parametrize(
    ("amount", "unit", "currency", "rule"),
    [
        (8 * 1000.0, "hour", "USD", None),  # 8x L4 at 8,000 an hour: exactly 1,000 per accelerator-hour
        (8 * 1000.01, "hour", "USD", "above_ceiling"),
        (8 * 0.3, "second", "USD", "above_ceiling"),  # 0.3 per accelerator-second is 1,080 an hour
        (8 * 0.25, "second", "USD", None),  # 900 an hour
        (8 * 168_001.0, "week", "USD", "above_ceiling"),  # ÷ 168
        (8 * 730_000.0, "month", "USD", None),  # ÷ 730
        (8 * 730_001.0, "month", "USD", "above_ceiling"),
        (8 * 14.0, "month", "USD", "below_floor"),  # 0.0192 an hour
        (8 * 960.0, "hour", "EUR", "above_ceiling"),  # 960 EUR × 1.05 = 1,008 USD
        (8 * 950.0, "hour", "EUR", None),  # 997.5 USD
        (1e308, "hour", "USD", "above_ceiling"),
        (1e308, "second", "USD", "above_ceiling"),  # × 3,600 is no finite number at all
    ],
)
def test_every_price_is_bounded_per_accelerator_hour_whatever_its_unit_and_currency(
    amount: float, unit: str, currency: str, rule: str | None
) -> None:
    (decided,) = _decide(_obs(amount, unit, currency))
    assert decided.rules == ((rule,) if rule else ())
    assert decided.status is (Status.HELD if rule else Status.ACCEPTED)
    assert decided.per_accelerator_hour is None or decided.per_accelerator_hour < float("inf")


def test_a_price_in_a_currency_without_a_dated_rate_is_held_never_published_unchecked() -> None:
    (gbp,) = _decide(_obs(24.0, currency="GBP"))
    assert gbp.rules == ("no_rate",) and "no dated GBP rate on or before 2026-11-29" in gbp.reasons[0]
    (early,) = _decide(_obs(24.0, currency="EUR", when=dt.datetime(2026, 11, 1, tzinfo=dt.UTC)))  # the rate is dated 2026-11-02
    assert early.rules == ("no_rate",)


def test_a_first_price_far_from_its_closest_siblings_median_is_held(real_catalog) -> None:  # type: ignore[no-untyped-def]
    siblings = sibling_map(real_catalog.accelerators.values())
    assert siblings["nvidia-h100-pcie"][0] == "nvidia-h100-sxm"  # shares the family alias "H100" and the generation
    pool = [
        band.PoolPrice("nvidia-h100-sxm", "on_demand", NOW - dt.timedelta(days=d), price, provider)
        for d, price, provider in ((3, 2.99, "lambda"), (5, 3.49, "runpod"), (9, 6.98, "aws"))
    ]  # median of medians 3.49
    table = load_instances(Path(__file__).parent.parent / "data" / "instances")
    row = Observation(
        provider="lambda",
        instance_type="gpu_1x_h100_pcie",
        region="us-east-1",
        pricing="on_demand",
        amount=49.0,  # type: ignore[arg-type]
        currency="USD",
        unit="hour",
        collected=NOW - dt.timedelta(days=1),
        source_url="https://lambda.ai/pricing",
        via="test",
    )

    def decide(amount: float, known: frozenset[str]) -> Observation:
        return rules.apply(
            [row.model_copy(update={"amount": amount})], table, RateTable([]), rules.Limits(), pool, now=NOW, known=known, siblings=siblings
        )[0]

    far = decide(49.0, frozenset({"nvidia-h100-sxm"}))  # 14 × 3.49, though within the ceiling
    assert far.rules == ("far_from_sibling",)
    assert "closest sibling nvidia-h100-sxm" in far.reasons[0] and "median 3.49" in far.reasons[0]
    assert decide(2.49, frozenset({"nvidia-h100-sxm"})).status is Status.ACCEPTED
    assert decide(0.30, frozenset({"nvidia-h100-sxm"})).rules == ("far_from_sibling",)  # below 0.1 × 3.49
    assert decide(49.0, frozenset({"nvidia-h100-sxm", "nvidia-h100-pcie"})).status is Status.ACCEPTED  # not its first price


def test_an_import_bringing_enough_prices_of_a_new_part_is_judged_by_its_own_band(real_catalog) -> None:  # type: ignore[no-untyped-def]
    """Measured on the March 2026 snapshot imported into an empty store: first-generation
    Inferentia spot at 0.03 per device and Inferentia 2 at 1.19 are real, and each import
    brings over a hundred of each part's prices, so their own band judges them, not the sibling's."""
    siblings = sibling_map(real_catalog.accelerators.values())
    pool = [band.PoolPrice("nvidia-h100-pcie", "on_demand", NOW - dt.timedelta(days=2), 2.0, "lambda")]
    rows = [_obs(25.0, instance="h100-server", region=region) for region in ("us", "eu", "asia", "sa", "af")]
    decide = {"siblings": siblings, "known": frozenset({"nvidia-h100-pcie"})}
    assert [o.rules for o in rules.apply(rows, TABLE, RateTable([]), rules.Limits(), pool, now=NOW, **decide)] == [()] * 5
    (alone,) = rules.apply(rows[:1], TABLE, RateTable([]), rules.Limits(), pool, now=NOW, **decide)  # type: ignore[arg-type]
    assert alone.rules == ("far_from_sibling",) and "closest sibling nvidia-h100-pcie" in alone.reasons[0]


@pytest.mark.parametrize(
    ("when", "held"),
    [
        (dt.datetime(1, 1, 1, tzinfo=dt.UTC), True),
        (dt.datetime(1900, 1, 1, tzinfo=dt.UTC), True),
        (dt.datetime(1969, 12, 31, 23, 59, 59, tzinfo=dt.UTC), True),
        (dt.datetime(1970, 1, 1, tzinfo=dt.UTC), True),
        (dt.datetime(2014, 12, 31, 23, 59, 59, tzinfo=dt.UTC), True),
        (dt.datetime(2015, 1, 1, tzinfo=dt.UTC), False),
        (NOW + dt.timedelta(minutes=4), False),  # within the clock skew
        (NOW + dt.timedelta(minutes=6), True),
        (dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.UTC), True),
    ],
)
def test_an_implausible_collection_time_holds_that_row_whatever_made_it(when: dt.datetime, held: bool) -> None:
    decided = _decide(_obs(3.2, when=when), _obs(3.2, region="eu"))
    assert [o.rules for o in decided] == [("implausible_date",) if held else (), ()]


def test_a_source_may_set_its_own_first_date(monkeypatch: pytest.MonkeyPatch) -> None:
    assert runs.first_date("atlas", rules.Limits()) == dt.date(2015, 1, 1)
    monkeypatch.setattr(atlas, "FIRST_DATE", dt.date(2024, 6, 1), raising=False)
    assert runs.first_date("atlas", rules.Limits()) == dt.date(2024, 6, 1)


def test_a_collectors_row_of_year_one_is_held_and_the_rest_imported(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    summary = import_readings(
        "collector:test",
        [],
        store,
        TABLE,
        RateTable([]),
        rules.Limits(),
        now=NOW,
        observations=[
            _obs(3.2, when=dt.datetime(1, 1, 1, tzinfo=dt.UTC)),
            _obs(3.2, region="eu"),
            _obs(3.2, region="asia", when=dt.datetime(9999, 12, 31, 23, 59, tzinfo=dt.UTC)),
        ],
    )
    assert (summary.accepted, summary.held, dict(summary.held_by_rule)) == (1, 2, {"implausible_date": 2})
    assert sorted(r["region"] for r in store.held()) == ["asia", "us"]
    assert [r["region"] for r in store.current("nvidia-l4", NOW, 90)] == ["eu"]


def _values(node: object, key: str) -> list[object]:
    """Every value of ``key`` anywhere in a JSON document."""
    if isinstance(node, dict):
        return [v for k, v in node.items() if k == key] + [x for v in node.values() for x in _values(v, key)]
    if isinstance(node, list):
        return [x for v in node for x in _values(v, key)]
    return []


def _csv(folder: Path, name: str, amount: str, region: str, when: dt.datetime) -> Path:
    path = folder / name
    path.write_text(
        HEADER + f"lambda,gpu_1x_h100_pcie,{region},on_demand,,{amount},USD,hour,1,instance,{when:%Y-%m-%dT%H:%M:%SZ},"
        "https://lambda.ai/pricing,Lambda pricing,test,,\n",
        encoding="utf-8",
    )
    return path


def test_an_absurd_first_price_is_held_and_absent_from_every_face(tmp_path: Path, real_catalog, make_client) -> None:  # type: ignore[no-untyped-def]
    """A one-row import of an H100 PCIe at 1,000,000 USD an hour (and one at 1e308) is held as
    above_ceiling; the pages, the API, the chart, the feed, the dataset and the bound show only
    the real 2.49 imported before it."""
    runner, store = CliRunner(), tmp_path / "prices"
    when = dt.datetime.now(dt.UTC).replace(microsecond=0) - dt.timedelta(hours=2)
    results = [
        runner.invoke(cli, ["prices", "import", "atlas", str(_csv(tmp_path, name, amount, region, when)), "--prices", str(store), "--json"])
        for name, amount, region in (
            ("real.csv", "2.49", "us-east-1"),
            ("absurd.csv", "1000000", "us-west-1"),
            ("huge.csv", "1e308", "us-south-1"),
        )
    ]
    counts = [json.loads(r.stdout) for r in results]
    assert [(c["accepted"], c["held"], c["held_by_rule"]) for c in counts] == [
        (1, 0, {}),
        (0, 1, {"above_ceiling": 1}),
        (0, 1, {"above_ceiling": 1}),
    ]
    client = make_client(real_catalog, Settings(prices=store))
    current = client.get("/api/prices/nvidia-h100-pcie/current").json()
    assert [(p["region"], p["amount"]) for p in current["prices"]] == [("us-east-1", 2.49)]
    offers = [(o["region"], o["price_per_hour"]) for o in client.get("/api/offers").json() if o["accelerator"] == "nvidia-h100-pcie"]
    assert offers == [("us-east-1", 2.49)]
    faces = [
        "/api/offers",
        "/api/prices/nvidia-h100-pcie",
        "/api/prices/nvidia-h100-pcie/current",
        "/api/prices/nvidia-h100-pcie/history",
        "/api/prices/nvidia-h100-pcie/history?format=csv",
        "/cloud/prices/nvidia-h100-pcie",
        "/cloud/prices/nvidia-h100-pcie/history",
        "/cloud/prices/nvidia-h100-pcie/feed.xml",
        "/cloud/",
        "/silicon/nvidia-h100-pcie",
        "/charts/prices/nvidia-h100-pcie",
        "/charts/prices/nvidia-h100-pcie.svg",
        "/api/charts/prices/nvidia-h100-pcie",
        "/data/prices/observations.csv",
        "/cloud/lambda",
        "/api/providers/lambda",
    ]
    for path in faces:
        response = client.get(path)
        assert response.status_code == 200, path
        text = response.text
        assert "2.49" in text or path.endswith(".svg"), path  # the SVG draws the price, it does not print it
        for absurd in ("1000000", "1,000,000", "1e+06", "1e6", "1e+308", "1e308", "1.0E308", "us-west-1", "us-south-1"):
            assert absurd not in text, (path, absurd)
    # The bound: every rental price the model economics use is the real one (token counts of a million are no prices).
    used = list(_values(client.get("/api/economics/models").json(), "per_accelerator_hour"))
    assert used and set(used) == {2.49}
    assert [r["rules"] for r in Store(store).held()] == [["above_ceiling"], ["above_ceiling"]]


def test_the_sweep_of_windows_gives_each_window_median_exactly() -> None:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    series = sorted(
        (start + dt.timedelta(hours=(i * 37) % 2000), [2.0, 2.1, 3.3, 0.5 + (i % 11) / 7][i % 4], f"p{i % 5}") for i in range(3000)
    )
    times = [start + dt.timedelta(hours=h) for h in range(-600, 2300, 13)]
    window = dt.timedelta(days=20)
    swept = bounds.window_medians(series, times, window)
    assert swept == {when: bounds.window_median(series, when, window, {}) for when in times}
    sparse = times[::17]  # 221 hours apart: hundreds of prices enter and leave at each step (merged, not one by one)
    assert bounds.window_medians(series, sparse, window) == {when: bounds.window_median(series, when, window, {}) for when in sparse}
    assert swept[times[0]] is None  # 600 hours before the first price, the window of 20 days either side is empty
    assert swept[start + dt.timedelta(hours=-301)] == (2.05, 5, 273)  # the first 179 hours' prices, five providers
    assert swept[start + dt.timedelta(hours=999)] == (2.0, 5, 1441)


def test_the_counted_sweep_gives_the_sweep_of_the_same_prices_written_out() -> None:
    """The same 3,000 prices as above, each distinct (time, price, provider) once with its count."""
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    series = sorted(
        (start + dt.timedelta(hours=(i * 37) % 2000), [2.0, 2.1, 3.3, 0.5 + (i % 11) / 7][i % 4], f"p{i % 5}") for i in range(3000)
    )
    counted = sorted((*entry, series.count(entry)) for entry in set(series))
    assert len(counted) < len(series) and sum(entry[3] for entry in counted) == 3000
    times = [start + dt.timedelta(hours=h) for h in range(-600, 2300, 13)]
    window = dt.timedelta(days=20)
    swept = bounds.counted_window_medians(counted, times, window)
    assert swept == bounds.window_medians(series, times, window)
    assert bounds.counted_window_medians(counted, times[::17], window) == bounds.window_medians(series, times[::17], window)
    assert swept[start + dt.timedelta(hours=-301)] == (2.05, 5, 273) and swept[start + dt.timedelta(hours=999)] == (2.0, 5, 1441)

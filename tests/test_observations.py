"""Price observations: the integrity rules on the inputs the issue names, the store, current and history."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from computeatlas.cloud import engine, rules
from computeatlas.cloud.engine import ANSWERS, RESULT_MAX_ROWS
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation, Status
from computeatlas.cloud.rates import Rate, RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.spreads import spread
from computeatlas.cloud.store import Store, observation_of
from computeatlas.core.cache import Cache, Stats, size_of, use

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
TABLE = load_instances(FIXTURES / "instances")
LIMITS = rules.Limits()


def run(store: Store, fmt: str, *files: str, now: dt.datetime = NOW, **options: object):  # type: ignore[no-untyped-def]
    return import_readings(fmt, [FIXTURES / f for f in files], store, TABLE, RateTable([]), LIMITS, now=now, **options)


def stored(store: Store) -> list[Observation]:
    return [observation_of(r) for r in store.query("SELECT * FROM latest ORDER BY provider, instance_type, region")]


def find(rows: list[Observation], instance: str, **where: object) -> Observation:
    found = [o for o in rows if o.instance_type == instance and all(getattr(o, k) == v for k, v in where.items())]
    assert len(found) == 1, (instance, where, found)
    return found[0]


@pytest.fixture
def cases(tmp_path: Path) -> list[Observation]:
    store = Store(tmp_path / "prices")
    summary = run(store, "atlas", "atlas-cases.csv")
    assert summary.rejected == 0
    return stored(store)


def test_a_one_cent_b200_is_held_and_never_the_cheap_end(cases: list[Observation]) -> None:
    cheap = find(cases, "1x B200")
    assert cheap.status is Status.HELD and cheap.rules == ("below_floor",)
    result = spread(cases, "nvidia-b200", "sxm-180gb", NOW)
    assert result.counted == 1 and result.cheapest and result.cheapest.instance_type == "8x B200"


def test_a_monthly_server_is_a_monthly_term_with_a_derived_hourly_equivalent(cases: list[Observation]) -> None:
    server = find(cases, "h100-server")
    assert server.pricing.value == "monthly" and server.amount == 1500 and server.unit.value == "month"
    assert server.per_accelerator_hour == pytest.approx(1500 / 730) and round(server.per_accelerator_hour, 2) == 2.05
    assert "derived_from_term" in server.qualifiers and server.status is Status.ACCEPTED
    assert spread(cases, "nvidia-h100-sxm", "sxm-80gb", NOW).counted == 0  # a monthly term is never on-demand


def test_three_a100_names_are_three_placements_and_a100_alone_is_variant_not_stated(cases: list[Observation]) -> None:
    plain, pcie, sxm = (find(cases, n) for n in ("A100", "A100-80GB", "A100-80GB-SXM"))
    assert (plain.variant, pcie.variant, sxm.variant) == ("", "pcie-80gb", "sxm-80gb")
    assert plain.qualifiers == ("variant_not_stated",) and plain.status is Status.ACCEPTED
    result = spread(cases, "nvidia-a100", "sxm-80gb", NOW)
    assert result.counted == 1 and result.cheapest and result.cheapest.instance_type == "A100-80GB-SXM"
    assert spread(cases, "nvidia-a100", "", NOW).counted == 0


def test_a_split_bill_is_combined_into_the_all_in_price_and_the_parts_are_held(cases: list[Observation]) -> None:
    combined = find(cases, "g4-standard-48 + 1 × 1x RTX PRO 6000")
    assert combined.status is Status.ACCEPTED and combined.billing == "all_in"
    assert combined.per_accelerator_hour == pytest.approx(4.49993) and combined.accelerators == 1
    host, part = find(cases, "g4-standard-48"), find(cases, "1x RTX PRO 6000")
    assert host.status is part.status is Status.HELD and host.rules == part.rules == ("split_bill",)
    lone = find(cases, "1x L4")
    assert lone.rules == ("split_bill",) and "without its host line" in lone.reasons[0]


def _obs(instance: str, amount: float, **extra: object) -> Observation:
    return Observation(
        provider=str(extra.pop("provider", "examplecloud")),
        instance_type=instance,
        region=str(extra.pop("region", "us")),
        pricing=extra.pop("pricing", "on_demand"),
        amount=amount,
        currency="USD",
        unit="hour",  # type: ignore[arg-type]
        collected=extra.pop("collected", NOW),
        **extra,
    )  # type: ignore[arg-type]


def test_memory_per_instance_must_be_count_times_the_accelerators_memory() -> None:
    decided = rules.apply(
        [
            _obs("8x L4", 3.12, stated_memory_gb=192),
            _obs("1x L4", 0.39, stated_memory_gb=24, region="eu"),
            _obs("8x L4", 3.12, stated_memory_gb=1430, region="ap"),
        ],
        TABLE,
        RateTable([]),
        LIMITS,
    )
    assert [o.status.value for o in decided] == ["accepted", "accepted", "held"]
    assert decided[2].rules == ("memory_mismatch",) and "1430 GB" in decided[2].reasons[0] and "192 GB" in decided[2].reasons[0]


def test_a_stated_per_gpu_price_that_disagrees_with_the_instance_price_is_held() -> None:
    wrong, right = rules.apply(
        [
            _obs("Standard_ND96isr_H100_v5", 98.32, provider="azure", stated_accelerators=8, stated_per_accelerator=11.00),
            _obs("Standard_ND96isr_H100_v5", 98.32, provider="azure", region="eu", stated_accelerators=8, stated_per_accelerator=12.29),
        ],
        TABLE,
        RateTable([]),
        LIMITS,
    )
    assert wrong.rules == ("per_accelerator_mismatch",) and "12.29" in wrong.reasons[0]
    assert right.status is Status.ACCEPTED and right.per_accelerator_hour == pytest.approx(12.29)


def test_real_excerpt_tpu_counts_band_windows_and_memory(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    summary = run(store, "opencomputeprices", "opencomputeprices-excerpt.csv")
    rows = stored(store)
    assert find(rows, "tpu-v4-8").accelerators == 4 and find(rows, "tpu-v4-8").per_accelerator_hour == pytest.approx(12.88 / 4)
    assert find(rows, "tpu-v5litepod-8").accelerators == 8
    assert find(rows, "Standard_ND96isr_H200_v5", region="westus").rules == ("above_ceiling",)  # 515,009 USD an hour: 64,376 per GPU-hour
    assert find(rows, "Standard_ND96isr_H100_v5 (Windows)").rules == ("licence_included",)
    assert find(rows, "Standard_ND96isr_H100_v5", pricing="on_demand").amount == 98.32
    conflict = [o for o in rows if o.amount == 551221.0]
    assert not conflict  # a conflict never replaces the stored row …
    assert any("conflict" in r["rules"] for r in store.held())  # … and is listed for the operator
    assert find(rows, "gpu-h100-sxm_8gpu-128vcpu-1600gb").rules == ("memory_mismatch",)  # the catalog gave host memory
    assert find(rows, "8x_L4_SECURE").status is Status.ACCEPTED
    assert find(rows, "1x L4").rules == find(rows, "8x L4").rules == ("split_bill",)
    assert find(rows, "gtx1050ti_PCIe_min").rules == ("unplaced",)
    assert find(rows, "gtx1050ti_PCIe_min").reasons == ("unknown instance type 'gtx1050ti_PCIe_min' at provider 'akash'",)
    assert summary.skipped == 1 and summary.read == 20 and summary.already_stored == 1  # the repeated JarvisLabs row


def test_a_provider_whose_spot_column_copies_on_demand_is_held_but_one_equal_row_is_fine() -> None:
    copied = [_obs(n, p, provider="runpod", pricing=k) for n, p in (("8x_L4_SECURE", 3.52),) for k in ("on_demand", "spot")]
    copied += [_obs("8x_L4_SECURE", 3.52, provider="runpod", region="eu", pricing=k) for k in ("on_demand", "spot")]
    assert [o.rules for o in rules.apply(copied, TABLE, RateTable([]), LIMITS)] == [
        (),
        ("spot_equals_on_demand",),
        (),
        ("spot_equals_on_demand",),
    ]
    one = copied[:2] + [
        _obs("8x_L4_SECURE", 3.52, provider="runpod", region="eu"),
        _obs("8x_L4_SECURE", 1.2, provider="runpod", region="eu", pricing="spot"),
    ]
    assert all(o.status is Status.ACCEPTED for o in rules.apply(one, TABLE, RateTable([]), LIMITS))


def test_non_usd_prices_enter_usd_only_through_a_dated_rate() -> None:
    table = RateTable([Rate(dt.date(2026, 11, 1), "EUR", 1.1, "https://www.ecb.europa.eu/", "ECB reference rates")])
    assert table.to_usd(2.0, "EUR", dt.date(2026, 11, 20)) == (pytest.approx(2.2), table.rate("EUR", dt.date(2026, 11, 20)))
    assert table.to_usd(2.0, "EUR", dt.date(2026, 10, 1)) == (None, None)  # no rate dated on or before
    assert table.to_usd(2.0, "GBP", dt.date(2026, 11, 20)) == (None, None)


def test_importing_twice_adds_nothing_and_history_is_never_current(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    first = run(store, "opencomputeprices", "opencomputeprices-excerpt.csv")
    again = run(store, "opencomputeprices", "opencomputeprices-excerpt.csv", now=NOW + dt.timedelta(hours=1))
    assert first.accepted + first.held > 0 and again.accepted == again.held == 0 and len(store.runs()) == 1
    assert store.current("google-tpu-v4", NOW, 90) == []  # March 2026 is history in November
    current = store.current("google-tpu-v4", dt.datetime(2026, 3, 25, tzinfo=dt.UTC), 90)
    assert [r["instance_type"] for r in current] == ["tpu-v4-8"]
    assert [r["pricing"] for r in store.history("google-tpu-v4")] == ["on_demand"]


def test_a_new_price_for_a_stored_observation_is_a_conflict_and_the_stored_one_stays(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    import_readings("atlas", [], store, TABLE, RateTable([]), LIMITS, now=NOW, observations=[_obs("8x L4", 3.12)])
    later = import_readings("atlas", [], store, TABLE, RateTable([]), LIMITS, now=NOW, observations=[_obs("8x L4", 9.99)])
    assert later.held_by_rule == {"conflict": 1}
    assert [r["amount"] for r in store.current("nvidia-l4", NOW, 90)] == [3.12]


def test_a_failed_write_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = Store(tmp_path / "prices")
    real = __import__("os").replace

    def fail_on_manifest(src: object, dst: object) -> None:
        if str(dst).endswith(".json"):
            raise OSError(28, "No space left on device", str(dst))
        real(src, dst)

    monkeypatch.setattr("computeatlas.cloud.run_writer.os.replace", fail_on_manifest)
    with pytest.raises(OSError):
        run(store, "atlas", "atlas-cases.csv")
    assert store.runs() == [] and list((tmp_path / "prices").rglob("*.parquet")) == [] and store.query("SELECT 1") == []


def test_the_hand_typed_offers_become_observations_with_nothing_lost(tmp_path: Path) -> None:
    import csv
    import json

    store = Store(tmp_path / "prices")
    files = sorted((Path(__file__).parent.parent / "data" / "offers").glob("*.csv"))
    summary = import_readings("offers", files, store, TABLE, RateTable([]), LIMITS, now=NOW)
    offers = [r for f in files for r in csv.DictReader(f.read_text(encoding="utf-8").splitlines(keepends=True))]
    assert summary.accepted == len(offers) == 60 and summary.held == 0
    rows = stored(store)
    for offer in offers:
        match = [
            o
            for o in rows
            if o.instance_type == offer["instance_type"]
            and o.provider == offer["provider"]
            and o.region == offer["region"]
            and o.collected.date().isoformat() == offer["seen"]
            and o.term == offer["term"]
        ]
        assert len(match) == 1, offer
        o = match[0]
        assert (o.amount, o.currency, o.accelerator, o.note, o.source_url) == (
            float(offer["price_per_hour"]),
            offer["currency"],
            offer["accelerator"],
            offer["note"],
            offer["source_url"],
        )
        assert json.loads(o.raw_extra)["variant_published"] == offer["variant"]


def test_a_newer_decision_about_the_same_observation_replaces_the_older_in_every_query(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    first = _obs("8x L4", 3.12)
    import_readings("atlas", [], store, TABLE, RateTable([]), LIMITS, now=NOW, observations=[first])
    replaced = first.model_copy(update={"accelerator": "nvidia-l40s", "variant": "pcie-48gb", "accelerators": 8, "billing": "all_in"})
    later = import_readings("atlas", [], store, TABLE, RateTable([]), LIMITS, now=NOW + dt.timedelta(hours=1), observations=[replaced])
    assert later.accepted == 1 and len(store.runs()) == 2
    assert store.history("nvidia-l4") == [] and store.current("nvidia-l4", NOW, 90) == []
    assert [r["variant"] for r in store.history("nvidia-l40s")] == ["pcie-48gb"]


@pytest.fixture
def counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Store, list[str]]:
    """A store holding one L4 offer, and the list of every SQL question DuckDB is then asked."""
    store = Store(tmp_path / "prices")
    import_readings("atlas", [], store, TABLE, RateTable([]), LIMITS, now=NOW, observations=[_obs("8x L4", 3.12)])
    reads: list[str] = []
    real_run = Store._run
    monkeypatch.setattr(Store, "_run", staticmethod(lambda con, files, sql, *rest: reads.append(sql) or real_run(con, files, sql, *rest)))
    return store, reads


def test_the_whole_market_of_one_minute_is_read_once(counted: tuple[Store, list[str]]) -> None:
    store, reads = counted
    fresh = dt.timedelta(days=90)
    first, later = NOW + dt.timedelta(seconds=5), NOW + dt.timedelta(seconds=25)  # two pages of one minute
    with use(Cache(64 * 1024 * 1024)) as cache:
        one, two = store.newest(first - fresh, first), store.newest(later - fresh, later)
        assert [r["instance_type"] for r in one] == [r["instance_type"] for r in two] == ["8x L4"]
        assert len(reads) == 1
        following = NOW + dt.timedelta(minutes=1, seconds=5)
        assert [r["instance_type"] for r in store.newest(following - fresh, following)] == ["8x L4"]
        assert len(reads) == 1  # the market is the current table, read once until an import writes the next one
        assert store.newest(NOW + dt.timedelta(days=91), NOW + dt.timedelta(days=91)) == []  # its window still applies
        assert cache.stats(ANSWERS).entries == 1 and cache.stats(ANSWERS).hits == 3
    assert [r["instance_type"] for r in store.newest(first - fresh, first)] == ["8x L4"]  # no cache active: asked again
    assert len(reads) == 2


def test_every_offer_ever_of_one_part_is_read_once_a_minute(counted: tuple[Store, list[str]]) -> None:
    store, reads = counted
    with use(Cache(64 * 1024 * 1024)):
        for seconds in (5, 25, 55):  # a page with no current offer lists the stale ones: three pages of one minute
            assert [r["instance_type"] for r in store.newest(None, NOW + dt.timedelta(seconds=seconds), "nvidia-l4")] == ["8x L4"]
    assert len(reads) == 1


def test_a_narrowed_market_reads_only_the_columns_and_parts_asked_and_counts_in_duckdb(tmp_path: Path) -> None:
    store = Store(tmp_path / "prices")
    import_readings(
        "atlas",
        [],
        store,
        TABLE,
        RateTable([]),
        LIMITS,
        now=NOW,
        observations=[_obs("8x L4", 3.12), _obs("1x L4", 0.39, region="eu"), _obs("8x L4", 2.80, pricing="spot")],
    )
    later = NOW + dt.timedelta(minutes=1)
    narrow = store.newest(None, later, columns=("amount", "region"), parts={"nvidia-l4"})
    assert [(r["amount"], r["region"], r["accelerator"], r["collected"]) for r in narrow] == [
        (2.80, "us", "nvidia-l4", NOW),
        (0.39, "eu", "nvidia-l4", NOW),
        (3.12, "us", "nvidia-l4", NOW),
    ]  # per GPU-hour 0.35, 0.39, 0.39 (then 1x before 8x)
    assert set(narrow[0]) == {"accelerator", "collected", "amount", "region"}
    assert store.newest(None, later, columns=("amount",), parts={"nvidia-h100-sxm"}) == []
    assert store.newest(None, later, parts=set()) == []
    counts = sorted((r["accelerator"], r["pricing"], r["offers"]) for r in store.current_counts(later, 90, ("pricing",)))
    assert counts == [("nvidia-l4", "on_demand", 2), ("nvidia-l4", "spot", 1)]
    assert store.current_counts(NOW + dt.timedelta(days=91), 90, ("pricing",)) == []  # none current 91 days on
    with pytest.raises(ValueError, match="no column 'price'"):
        store.newest(None, later, columns=("price",))


def _four() -> list[dict[str, int]]:
    return [{"n": n} for n in range(4)]


def test_kept_answers_are_bounded_in_all_and_each() -> None:
    rows = _four()
    each = size_of(rows)
    with use(Cache(5 * each)) as cache:
        assert not engine.keep(("big",), [{"n": 0}] * (RESULT_MAX_ROWS + 1))  # larger than the largest answer kept
        assert engine.kept(("big",)) is None
        for name in "abcdef":
            assert engine.keep((name,), _four())  # five fit in the bound
        assert engine.kept(("a",)) is None and engine.kept(("b",)) == rows  # the least recently used went first
        assert cache.stats(ANSWERS) == Stats(entries=5, bytes=5 * each, hits=1, misses=2)
    assert RESULT_MAX_ROWS == 12_000
    assert not engine.keep(("a",), rows) and engine.kept(("a",)) is None  # no cache active: nothing is kept


def test_clearing_kept_answers_forgets_them_and_frees_the_budget() -> None:
    rows = _four()
    with use(Cache(4 * size_of(rows))) as cache:
        for name in "abcd":
            engine.keep((name,), _four())  # the bound is full
        cache.clear(ANSWERS)
        assert [engine.kept((name,)) for name in "abcd"] == [None, None, None, None]
        for name in "efgh":
            engine.keep((name,), _four())  # the whole bound is free again: nothing is dropped
        assert [len(engine.kept((name,)) or []) for name in "efgh"] == [4, 4, 4, 4]
        assert cache.stats(ANSWERS).entries == 4 and cache.size == 4 * size_of(rows)

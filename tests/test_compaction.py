"""Compaction and the current table change no answer: every query of the store asked of a
twin that was compacted (and of one whose current table was lost) gives what the plain
store gives, before and after later runs decide compacted observations again."""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from computeatlas.cli import app as cli
from computeatlas.cloud import rules, trends
from computeatlas.cloud.compaction import CompactionRefused
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from computeatlas.publish.exports.prices import export
from tests.conftest import CliRunner

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
TABLE = load_instances(FIXTURES / "instances")
LIMITS = rules.Limits()
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
FILES = (
    ("atlas", "atlas-cases.csv"),
    ("opencomputeprices", "opencomputeprices-excerpt.csv"),
    ("cyclenerd-gcp", "cyclenerd-gcp/gcp_gpu_machine_prices-excerpt.csv"),
)


def _obs(instance: str, amount: float, collected: dt.datetime, **extra: Any) -> Observation:
    return Observation(
        provider=str(extra.pop("provider", "examplecloud")),
        instance_type=instance,
        region=str(extra.pop("region", "us")),
        pricing=extra.pop("pricing", "on_demand"),
        amount=amount,
        currency="USD",
        unit="hour",
        collected=collected,
        **extra,
    )


def _import(
    store: Store, now: dt.datetime, fmt: str = "atlas", files: tuple[str, ...] = (), observations: list[Observation] | None = None
) -> None:
    import_readings(fmt, [FIXTURES / f for f in files], store, TABLE, RateTable([]), LIMITS, now=now, observations=observations or [])


def _first_runs(store: Store) -> None:
    """The fixtures' sources (2022 to 2026, many parts, accepted and held rows), then an L4 offer
    seen in October and November, one of its observations a conflict."""
    for i, (fmt, name) in enumerate(FILES):
        _import(store, NOW + dt.timedelta(minutes=i), fmt, (name,))
    october, november = dt.datetime(2026, 10, 14, 6, tzinfo=dt.UTC), dt.datetime(2026, 11, 28, 6, tzinfo=dt.UTC)
    _import(
        store,
        NOW + dt.timedelta(minutes=5),
        observations=[_obs("8x L4", 3.12, october), _obs("8x L4", 3.02, november), _obs("8x L4", 3.12, november, region="eu")],
    )
    _import(store, NOW + dt.timedelta(minutes=6), observations=[_obs("8x L4", 2.90, november)])  # a conflict: held, the 3.02 stands
    # The ISO week of Monday 2026-09-28 straddles two months, so two compacted files: 3.20 on 09-30, 3.00 on 10-01.
    _import(
        store,
        NOW + dt.timedelta(minutes=7),
        observations=[
            _obs("8x L4", 3.20, dt.datetime(2026, 9, 30, 6, tzinfo=dt.UTC)),
            _obs("8x L4", 3.00, dt.datetime(2026, 10, 1, 6, tzinfo=dt.UTC)),
        ],
    )


def _later_runs(store: Store) -> None:
    """Runs after the compaction: a newer L4 price, and an October observation placed again on
    another part (its newest decision moves to the L40S)."""
    october = dt.datetime(2026, 10, 14, 6, tzinfo=dt.UTC)
    _import(store, NOW + dt.timedelta(hours=1), observations=[_obs("8x L4", 2.95, dt.datetime(2026, 11, 30, 6, tzinfo=dt.UTC))])
    placed = {"accelerator": "nvidia-l40s", "variant": "pcie-48gb", "accelerators": 8, "billing": "all_in"}
    moved = [
        _obs("8x L4", 3.12, october).model_copy(update=placed),  # and the low of the week straddling September and October
        _obs("8x L4", 3.00, dt.datetime(2026, 10, 1, 6, tzinfo=dt.UTC)).model_copy(update=placed),
    ]
    _import(store, NOW + dt.timedelta(hours=2), observations=moved)


_RAW_LOWS = (
    "SELECT provider, pricing, term, CAST(date_trunc('{period}', date) AS DATE) AS period, min({{'p': per_accelerator_hour, "
    "'d': date, 'i': instance_type, 'r': region}}) AS best, count(*) AS observations, min(date) AS first, max(date) AS last "
    "FROM latest WHERE status = 'accepted' AND accelerator = ? AND currency = 'USD' AND per_accelerator_hour IS NOT NULL "
    "AND coalesce(variant, '') = ? GROUP BY ALL ORDER BY provider, pricing, term, period"
)
"""The charts' lows worked out from the raw rows of the history (what the roll-up ``lows`` must give)."""


def _raw_lows(
    store: Store, part: str, variant: str, period: str, since: dt.date | None = None, until: dt.date | None = None
) -> list[trends.PeriodLow]:
    rows = store.query(_RAW_LOWS.format(period=period), [part, variant], since, until, part)
    return [
        trends.PeriodLow(
            provider=r["provider"],
            pricing=r["pricing"],
            term=r["term"],
            period=r["period"],
            low=r["best"]["p"],
            observations=r["observations"],
            first=r["first"],
            last=r["last"],
            seen=r["best"]["d"],
            instance_type=r["best"]["i"],
            region=r["best"]["r"],
        )
        for r in rows
    ]


def _charts(store: Store, part: str) -> list[Any]:
    """A part's chart lows (weeks and months) and what they leave out, over all of the history
    and over windows that cut weeks and months, each checked against the raw rows."""
    variant = trends.chart_variant(store, part, NOW + dt.timedelta(hours=3), 90)
    out: list[Any] = [variant]
    for since, until in ((None, None), (dt.date(2026, 9, 29), dt.date(2026, 11, 28)), (dt.date(2026, 10, 1), None)):
        for period in ("week", "month"):
            got = trends.lows(store, part, variant, period, since=since, until=until)  # type: ignore[arg-type]
            assert got == _raw_lows(store, part, variant, period, since, until)
            out.append(got)
        out.append(trends.left_out(store, part, variant, since=since, until=until))
    return out


def answers(store: Store) -> dict[str, Any]:
    """Every question the product asks of a store, answered."""
    parts = sorted(store.observed_accelerators())
    out: dict[str, Any] = {
        "count": store.count(),
        "latest": store.query("SELECT * EXCLUDE (date) FROM latest ORDER BY ALL"),
        "obs": store.query("SELECT * EXCLUDE (date) FROM obs ORDER BY ALL"),
        "dates": store.query("SELECT DISTINCT date FROM obs ORDER BY date"),
        "held": store.held(),
        "market": store.newest(None, NOW + dt.timedelta(hours=3)),
        "market 90 d": store.newest(NOW - dt.timedelta(days=90), NOW + dt.timedelta(hours=3)),
        "market at a past moment": store.newest(None, dt.datetime(2026, 11, 1, tzinfo=dt.UTC)),
        "window": store.query("SELECT * EXCLUDE (date) FROM latest ORDER BY ALL", (), dt.date(2026, 11, 20), dt.date(2026, 11, 28)),
        "keys": store.stored_keys({"examplecloud", "gcp"}, dt.date(2022, 1, 1), dt.date(2026, 12, 31)),
        "conflicts": store.stored_conflicts({"examplecloud"}),
        "csv": export(store, "csv"),
        "month lows": trends.provider_month_lows(store),
        "part lows": trends.part_lows(store),
        "chart variants": trends.chart_variants(store, NOW + dt.timedelta(hours=3), 90),
        "market narrowed": store.newest(None, NOW + dt.timedelta(hours=3), columns=("provider", "amount", "variant"), parts=parts[:3]),
        "current counts": sorted(
            (r["accelerator"] or "", r["variant"] or "", r["pricing"], r["offers"])
            for r in store.current_counts(NOW + dt.timedelta(hours=3), 90, ("variant", "pricing"))
        ),
        "charted": trends.charted(store, trends.chart_variants(store, NOW + dt.timedelta(hours=3), 90)),
        "monthly": store.query(
            "SELECT accelerator, variant, month, provider, instance_type, region, pricing, term, currency, "
            "min(low) AS low, sum(observations) AS observations FROM monthly GROUP BY ALL ORDER BY ALL"
        ),
    }
    for part in parts:
        out[part] = (
            store.current(part, NOW + dt.timedelta(hours=3), 90),
            store.history(part),
            store.history(part, limit=3),
            store.series(part),
            store.variants_of(part),
            store.newest(None, NOW + dt.timedelta(hours=3), part),
            store.history(part, dt.date(2026, 1, 1), dt.date(2026, 11, 29)),
            store.series(part, dt.date(2026, 10, 14)),
            store.history(part, limit=3, columns=("collected", "amount", "date")),
            store.series(part, provider="examplecloud"),
            store.series(part, region="us"),
            _charts(store, part),
        )
    return out


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Store, Store]:
    plain, compacted = Store(tmp_path / "plain"), Store(tmp_path / "compacted")
    for store in (plain, compacted):
        _first_runs(store)
    return plain, compacted


def test_compaction_changes_no_answer_before_or_after_later_runs(twins: tuple[Store, Store]) -> None:
    plain, compacted = twins
    before = answers(plain)
    assert before["count"] == answers(compacted)["count"] and len(before["obs"]) > len(before["latest"]) > 20
    assert "nvidia-l4" in before and before["conflicts"]  # the data holds what the test is about
    assert before["month lows"][("nvidia-l4", "")][dt.date(2026, 11, 1)] == {"examplecloud": 0.3775}  # 3.02 USD for 8 L4s
    assert {(p["date"], p["median"], p["observations"]) for p in before["nvidia-l4"][3] if p["date"].month == 11} >= {
        (dt.date(2026, 11, 28), 0.3775 + (0.39 - 0.3775) / 2, 2)
    }  # 3.02 (us) and 3.12 (eu) for 8 L4s on 11-28
    straddling = [w for w in trends.lows(plain, "nvidia-l4", "", "week") if w.period == dt.date(2026, 9, 28)]
    assert [(w.provider, w.low, w.observations, w.first, w.last, w.seen) for w in straddling] == [
        ("examplecloud", 0.375, 2, dt.date(2026, 9, 30), dt.date(2026, 10, 1), dt.date(2026, 10, 1))
    ]  # 3.00 USD for 8 L4s on 10-01
    assert [(o.provider, o.reason, o.observations) for o in trends.left_out(plain, "nvidia-a100", "pcie-80gb")] == [
        ("jarvislabs", "another variant (sxm-80gb)", 1),
        ("jarvislabs", "variant not stated", 2),
    ]
    runs = len(compacted.runs())
    done = compacted.compact("2026-11-20")  # a day first, then every month, that day's compacted file included
    assert [d.period for d in done] == ["2026-11-20"] and done[0].rows > 0
    assert answers(compacted) == before
    done = compacted.compact()
    assert len(done) >= 3 and all(d.file is not None for d in done)
    assert answers(compacted) == before
    assert not list(compacted.observations_dir.glob("date=*/*.parquet"))  # the run files are gone: one file per month
    assert all(p.with_name(p.name.replace("part-", kind)).is_file() for p in compacted.files() for kind in ("monthly-", "daily-", "lows-"))
    assert len(compacted.runs()) == runs  # the manifests stay, the record of what came in when
    assert len(compacted.files()) == len(done) and compacted.leftovers().removable == ()
    assert compacted.compact("2026-11") == [compacted.compact("2026-11")[0]] and compacted.compact("2026-11")[0].file is None
    for store in (plain, compacted):
        _later_runs(store)
    after = answers(compacted)
    assert after == answers(plain)
    moved = [w for w in trends.lows(compacted, "nvidia-l4", "", "week") if w.period == dt.date(2026, 9, 28)]
    assert [(w.low, w.observations, w.seen) for w in moved] == [(0.4, 1, dt.date(2026, 9, 30))]  # 10-01 is the L40S's now: 3.20 ÷ 8
    l4 = [r for r in after["market"] if r["accelerator"] == "nvidia-l4" and r["region"] == "us"]
    assert [(r["amount"], r["collected"].day) for r in l4] == [(2.95, 30)]  # the later run's price is the current one
    assert [r["accelerator"] for r in plain.history("nvidia-l40s") if r["collected"].month == 10] == ["nvidia-l40s"] * 2  # 10-01 and 10-14
    compacted.compact("2026-10")  # the month's new run taken into a second compaction of it
    assert answers(compacted) == after


def test_a_day_inside_a_compacted_month_is_refused(twins: tuple[Store, Store]) -> None:
    _, store = twins
    store.compact("2026-11")
    with pytest.raises(CompactionRefused, match="2026-11 is already compacted as a whole"):
        store.compact("2026-11-28")
    with pytest.raises(ValueError, match="neither a month"):
        store.compact("2026-13")


def test_the_current_table_is_the_market_and_a_stale_one_is_not_used(twins: tuple[Store, Store]) -> None:
    plain, store = twins
    table = store.current_pointer()
    assert table is not None and table["rows"] == len(store.newest(None, NOW + dt.timedelta(hours=3)))
    pointer = json.loads((store.root / "current.json").read_text(encoding="utf-8"))
    assert pointer["file"].startswith("current/current-") and pointer["version"] == store.version()
    market = plain.newest(None, NOW + dt.timedelta(hours=3))
    # A writer killed between its manifest and the pointer: the pointer names an older version.
    (store.root / "current.json").write_text(json.dumps({**pointer, "version": "older#1"}), encoding="utf-8")
    assert store.current_file() is None and store.newest(None, NOW + dt.timedelta(hours=3)) == market
    status = CliRunner().invoke(cli, ["prices", "status", "--prices", str(store.root)])
    assert status.exit_code == 1 and "current table: older than the newest run" in status.stdout
    _later_runs(store)  # the next import writes it again from the whole history
    _later_runs(plain)
    assert store.current_file() is not None and store.newest(None, NOW + dt.timedelta(hours=3)) == plain.newest(
        None, NOW + dt.timedelta(hours=3)
    )
    shutil.rmtree(store.root / "current")
    assert store.current_file() is None and answers(store) == answers(plain)
    repaired = CliRunner().invoke(cli, ["prices", "repair", "--yes", "--prices", str(store.root)])
    assert repaired.exit_code == 0 and "current table written" in repaired.stdout and store.current_file() is not None
    assert CliRunner().invoke(cli, ["prices", "status", "--prices", str(store.root)]).exit_code == 0


def test_prices_compact_on_the_command_line(twins: tuple[Store, Store]) -> None:
    _, store = twins
    runner = CliRunner()
    bad = runner.invoke(cli, ["prices", "compact", "--period", "2026-11-31", "--prices", str(store.root)])
    assert bad.exit_code == 2 and "neither a month" in bad.stdout + bad.stderr
    done = runner.invoke(cli, ["prices", "compact", "--period", "2026-11", "--prices", str(store.root)])
    assert done.exit_code == 0 and "2026-11: " in done.stdout and " rows from " in done.stdout
    assert [p.parent.name for p in store.files(dt.date(2026, 11, 1), dt.date(2026, 11, 30))] == ["period=2026-11"]
    last = runner.invoke(cli, ["prices", "compact", "--period", "9999-12", "--prices", str(store.root)])
    assert last.exit_code == 0 and "9999-12: no observations, nothing to do" in last.stdout


def test_a_damaged_store_is_reported_never_emptied_by_repair_and_pages_say_503(
    twins: tuple[Store, Store],
    make_client,  # type: ignore[no-untyped-def]
    real_catalog,
) -> None:
    _, store = twins
    store.compact()
    november = next(store.root.glob("compactions/*-2026-11.json"))
    kept = sorted(store.root.glob("compacted/period=2026-11/*.parquet"))
    runner = CliRunner()
    # An unreadable compaction manifest: reported, and its files are never taken for leftovers.
    november.write_text('{"period": "2026-11", "file": ', encoding="utf-8")
    status = runner.invoke(cli, ["prices", "status", "--prices", str(store.root)])
    assert (
        status.exit_code == 1
        and "unreadable manifests: 1" in status.stdout
        and "orphan Parquet files (no manifest names them): 0" in status.stdout
    )
    repaired = runner.invoke(cli, ["prices", "repair", "--yes", "--prices", str(store.root)])
    assert repaired.exit_code == 1 and "cannot repair: compactions/" in repaired.stdout
    assert sorted(store.root.glob("compacted/period=2026-11/*.parquet")) == kept  # nothing deleted
    # A named compacted file truncated in place: status names it, pages answer 503, never 500.
    store.compact("2026-10")
    october = next(store.root.glob("compacted/period=2026-10/part-*.parquet"))
    october.write_bytes(october.read_bytes()[:200])
    status = runner.invoke(cli, ["prices", "status", "--prices", str(store.root)])
    assert status.exit_code == 1 and "compacted/period=2026-10/" + october.name in status.stdout
    client = make_client(real_catalog, Settings(prices=store.root))
    response = client.get("/api/prices/nvidia-l4/history", params={"window": "all"})
    assert response.status_code == 503 and "cannot be read" in response.text and "prices status" in response.text
    assert client.get("/cloud/prices/nvidia-l4", params={"window": "all"}).status_code == 503
    for download in ("/data/prices/observations.csv", "/data/prices/observations.parquet"):
        answer = client.get(download)
        assert answer.status_code == 503 and "cannot be read" in answer.text, download
    held = runner.invoke(cli, ["prices", "held", "--prices", str(store.root)])
    assert held.exit_code == 1 and "cannot be read" in held.stderr and "Traceback" not in held.stdout + held.stderr
    # A pointer out of the store is not a current table.
    (store.root / "current.json").write_text(
        json.dumps({"file": "../../../etc/passwd", "version": store.version(), "newest": None}), encoding="utf-8"
    )
    assert store.current_file() is None
    assert (
        "current.json is not readable or names no file of current/"
        in runner.invoke(cli, ["prices", "status", "--prices", str(store.root)]).stdout
    )

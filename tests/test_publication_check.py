"""The checks before a collection is published: a run that drops more than half its source's
offers, or whose median price moves more than the set factor, is held whole, stored with every
row held under ``collection_held``, and the previous run stays current."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from computeatlas.cli import app as cli_app
from computeatlas.cloud import collection_log, rules
from computeatlas.cloud.collection_log import Attempt
from computeatlas.cloud.collectors.base import Collected
from computeatlas.cloud.observations import Observation, Status
from computeatlas.cloud.publication_check import RULE, PublicationCheck, hold_reason, hold_whole, previous_offers, previous_run
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings
from tests.collector_support import TABLE, example_readings
from tests.conftest import CliRunner

REGIONS = [f"region-{n}" for n in range(10)]
BEFORE = [1.00, 1.50, 1.80, 2.00, 2.00, 2.00, 2.00, 2.50, 3.00, 9.00]  # median (2.00 + 2.00) / 2 = 2.00; mean 2.68
NEAR = [1.10, 1.60, 2.10, 2.10, 2.10, 2.10, 2.60, 3.10]  # eight offers, median 2.10


def _readings(amounts: list[float], when: dt.datetime) -> list[Observation]:
    """One reading of the example source per region (:data:`REGIONS`), at these amounts."""
    return example_readings(zip(REGIONS, amounts, strict=False), when)


def _collect(store: Store, readings: list[Observation], result: str = "imported", reason: str | None = None) -> str:
    """Import ``readings`` as one collector run and record the attempt; return the run id."""
    now = dt.datetime.now(dt.UTC)
    summary = import_readings("collector:example", [], store, TABLE, RateTable([]), rules.Limits(), now=now, observations=readings)
    collection_log.record(
        store.root,
        Attempt(
            source="example",
            started=now,
            finished=now,
            result=result,  # type: ignore[arg-type]
            rows_read=summary.read,
            accepted=summary.accepted,
            held=summary.held,
            run=summary.run,
            reason=reason,
        ),
    )
    return summary.run


@pytest.fixture
def store(tmp_path: Path) -> Store:
    """A store whose source ``example`` has one imported run: the ten offers of :data:`BEFORE`, 7 hours ago."""
    found = Store(tmp_path / "prices")
    _collect(found, _readings(BEFORE, dt.datetime.now(dt.UTC) - dt.timedelta(hours=7)))
    return found


def _check(store: Store) -> Callable[[str, list[Observation]], str | None]:
    """The hook as ``collect_sources`` calls it: (source, what was collected, the store)."""
    check = PublicationCheck(TABLE, RateTable([]), rules.Limits(), factor=Settings().collection_median_factor)
    return lambda source, readings: check(source, Collected(observations=readings), store)


def test_ten_offers_then_four_is_held_naming_what_it_would_drop(store: Store) -> None:
    now = dt.datetime.now(dt.UTC)
    reason = _check(store)("example", _readings(BEFORE[:4], now))
    run = previous_run(store.root, "example")
    assert reason == f"example: it would drop 6 of 10 offers of its previous run ({run}), more than 50%"


def test_a_median_moved_from_2_to_7_with_factor_3_is_held(store: Store) -> None:
    assert Settings().collection_median_factor == 3.0  # the documented default
    moved = [round(a * 3.5, 2) for a in BEFORE]  # every offer there, each 3.5 times dearer
    reason = _check(store)("example", _readings(moved, dt.datetime.now(dt.UTC)))
    assert reason is not None and "would drop" not in reason
    assert "from 2.00 to 7.00 USD per accelerator-hour (3.50×" in reason and "beyond the factor of 3" in reason
    cheaper = [round(a / 3.5, 4) for a in BEFORE]  # the other way: 2.00 → 0.57
    assert "from 2.00 to 0.57 USD per accelerator-hour (0.29×" in (
        _check(store)("example", _readings(cheaper, dt.datetime.now(dt.UTC))) or ""
    )


def test_ten_offers_then_eight_at_a_median_of_2_10_is_published(store: Store) -> None:
    assert _check(store)("example", _readings(NEAR, dt.datetime.now(dt.UTC))) is None
    # on the boundary: dropping five of ten is not more than half; a median of exactly 3 × 2.00 is not beyond the factor
    assert _check(store)("example", _readings(BEFORE[:5], dt.datetime.now(dt.UTC))) is None
    assert _check(store)("example", _readings([a * 3 for a in BEFORE], dt.datetime.now(dt.UTC))) is None


def test_a_source_without_a_previous_run_and_readings_the_rules_hold_anyway(store: Store) -> None:
    assert _check(store)("other", _readings(BEFORE[:1], dt.datetime.now(dt.UTC))) is None  # no imported attempt of "other"
    # nine unplaced readings and one placed: the unplaced ones would be held by the rules, so nine offers are dropped
    now = dt.datetime.now(dt.UTC)
    unknown = [o.model_copy(update={"instance_type": "no-such-instance"}) for o in _readings(BEFORE, now)[1:]]
    reason = _check(store)("example", [*_readings(BEFORE[:1], now), *unknown])
    assert reason is not None and "would drop 9 of 10 offers" in reason
    previous = previous_offers(store, previous_run(store.root, "example"))
    assert hold_reason("example", previous, previous) is None  # the same offers again: nothing to hold


def test_a_held_run_is_stored_and_listed_and_the_previous_prices_stay_current(store: Store, tmp_path: Path) -> None:
    first = previous_run(store.root, "example")
    before = sorted((r["region"], r["amount"], r["run"]) for r in store.current(None, dt.datetime.now(dt.UTC), 90))
    assert before == sorted((region, amount, first) for region, amount in zip(REGIONS, BEFORE, strict=True))
    readings = _readings([7.0, 7.0, 7.0, 7.0], dt.datetime.now(dt.UTC))
    reason = _check(store)("example", readings)
    assert reason is not None and "would drop 6 of 10 offers" in reason and "from 2.00 to 7.00" in reason
    held_run = _collect(store, hold_whole(readings, reason), result="held", reason=reason)
    assert store.current_file() is not None  # the current table answers (written by the held run's commit)
    after = sorted((r["region"], r["amount"], r["run"]) for r in store.current(None, dt.datetime.now(dt.UTC), 90))
    assert after == before  # the previous run stays current: no row of the held run is
    held = store.held(run=held_run)
    assert len(held) == 4 and {r["status"] for r in held} == {Status.HELD.value}
    assert {r["rules"][0] for r in held} == {RULE} and {r["reasons"][0] for r in held} == {reason}
    assert previous_run(store.root, "example") == first  # the next run is compared with the last published one
    listed = CliRunner().invoke(cli_app, ["prices", "held", "--run", held_run, "--json", "--prices", str(store.root)])
    assert listed.exit_code == 0, listed.output
    rows, text, decoder = [], listed.stdout.strip(), json.JSONDecoder()
    while text:  # one JSON document per row, each pretty-printed
        row, end = decoder.raw_decode(text)
        rows.append(row)
        text = text[end:].strip()
    assert len(rows) == 4 and all(r["rules"][0] == "collection_held" and r["reasons"][0] == reason for r in rows)
    assert "collection_held" in rules.RULES


def test_prices_collect_holds_a_run_that_lost_most_of_its_offers_and_keeps_the_previous_current(tmp_path: Path) -> None:
    """End to end through the command: Azure's recorded pages, then a response that stops after
    its first item (NextPageLink null, as the API's last page says it)."""
    from tests.loopback import FIXTURES, Answer, serving

    root = tmp_path / "prices"
    page = json.loads((FIXTURES / "azure-page1.json").read_text(encoding="utf-8"))
    short = {**page, "Items": page["Items"][:1], "Count": 1, "NextPageLink": None}
    with serving() as server:
        server.route("/api/retail/prices", Answer.file("azure-page1.json"), Answer.file("azure-page2.json"))
        env = {"COMPUTEATLAS_COLLECTOR_URLS": json.dumps({"azure": server.url}), "COLUMNS": "300"}
        first = CliRunner().invoke(cli_app, ["prices", "collect", "azure", "--prices", str(root)], env=env)
        assert first.exit_code == 0, first.output
        before = sorted(
            (r["instance_type"], r["region"], r["pricing"], r["amount"]) for r in Store(root).current(None, dt.datetime.now(dt.UTC), 90)
        )
        assert len(before) == 6  # H100 eastus on-demand and spot, H200 in four regions (the Windows price is held)
        server.route("/api/retail/prices", Answer(json.dumps(short).encode()))
        second = CliRunner().invoke(cli_app, ["prices", "collect", "azure", "--prices", str(root)], env=env)
    assert second.exit_code == 1
    run = previous_run(root, "azure")
    assert f"azure held: azure: it would drop 5 of 6 offers of its previous run ({run}), more than 50%" in second.stderr
    after = sorted(
        (r["instance_type"], r["region"], r["pricing"], r["amount"]) for r in Store(root).current(None, dt.datetime.now(dt.UTC), 90)
    )
    assert after == before
    found, _ = collection_log.attempts(root, "azure")
    # the one item, asked for by each of the collector's two requests (ten instance types each), every row held
    assert [a.result for a in found] == ["held", "imported"] and found[0].held == found[0].rows_read == 2 and found[0].accepted == 0
    assert [r["rules"][0] for r in Store(root).held(run=found[0].run)] == [RULE, RULE]
    # the operator checked that the source really lost those offers: --publish runs it once without the check
    with serving() as server:
        server.route("/api/retail/prices", Answer(json.dumps(short).encode()))
        env = {"COMPUTEATLAS_COLLECTOR_URLS": json.dumps({"azure": server.url}), "COLUMNS": "300"}
        third = CliRunner().invoke(cli_app, ["prices", "collect", "azure", "--publish", "--prices", str(root)], env=env)
        refused = CliRunner().invoke(cli_app, ["prices", "collect", "--all", "--publish", "--prices", str(root)], env=env)
    assert third.exit_code == 0, third.output
    found, _ = collection_log.attempts(root, "azure")
    assert [a.result for a in found] == ["imported", "held", "imported"] and found[0].accepted == found[0].rows_read == 2
    assert refused.exit_code == 2 and "name them, not --all" in refused.output.replace("\n", " ")

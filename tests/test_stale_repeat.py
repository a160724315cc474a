"""``stale_repeat``: two sources price one offer differently at nearly the same time, and the
older-sourced of the two is held with both named, in one import and against the store, on
the row path and the columnar one (which leaves such an import to the row path).

The aggregator's row is real: OpenComputePrices ``skypilot.csv``, collected 2026-03-21 (MIT;
``fixtures/prices/opencomputeprices-p5-excerpt.csv``), AWS ``p5.48xlarge`` on-demand in
``us-east-1`` at 98.32 USD per hour, AWS's price before its June 2025 P5 price cut. The
provider's own row stands for what our AWS collector reads from AWS's offer file: 55.04 USD
per hour, the figure the issue gives for AWS's own price list after the cut (third-party code
records it too, e.g. "AWS on-demand per-GPU-hour prices (us-east-1, March 2026) … p5.48xlarge:
55.04 / 8"); no AWS offer-file line for a GPU instance is stored (``fixtures/collectors/README.md``).
"""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

import pytest

from computeatlas.cloud import group_rules, rules, runs
from computeatlas.cloud.importers import atlas, formats
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation, Status
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.core.settings import Settings

ROOT = Path(__file__).parent.parent
EXCERPT = ROOT / "tests" / "fixtures" / "prices" / "opencomputeprices-p5-excerpt.csv"
TABLE = load_instances(ROOT / "data" / "instances", today=dt.date(2026, 12, 4))
NOW = dt.datetime(2026, 4, 1, tzinfo=dt.UTC)
OFFER_FILE = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonEC2/current/us-east-1/index.csv"
VIA = "OpenComputePrices opencomputeprices-p5-excerpt.csv (MIT), collected 2026-03-21"
HELD = (
    "collector aws (the provider's own) gives 55.04 USD per hour on 2026-03-01; "
    f"{VIA} (second-hand) gives 98.32 on 2026-03-21: "
    "a second-hand copy of a price the provider's own source no longer gives"
)


def _own(amount: float, day: dt.date = dt.date(2026, 3, 1)) -> Observation:
    """A row as our AWS collector makes it from AWS's offer file for us-east-1."""
    return Observation(
        provider="aws",
        instance_type="p5.48xlarge",
        region="us-east-1",
        pricing="on_demand",
        amount=amount,
        currency="USD",
        unit="hour",
        collected=dt.datetime.combine(day, dt.time(6), dt.UTC),
        source_url=OFFER_FILE,
        source_title="AWS Price List, AmazonEC2 offer file",
        via="collector aws",
    )


def _aggregated() -> Observation:
    [reading] = list(formats()["opencomputeprices"](EXCERPT, now=NOW))
    assert isinstance(reading.result, Observation)
    return reading.result


def _stored_then_imported(tmp_path: Path, own: Observation, limits: rules.Limits | None = None) -> Observation:
    """``own`` stored by a collector's run, then the excerpt imported; the excerpt's row as stored."""
    store = Store(tmp_path / "store")
    limits = limits or rules.Limits()
    first = import_readings("atlas", [], store, TABLE, RateTable([]), limits, now=NOW, observations=[own])
    assert first.accepted == 1
    import_readings("opencomputeprices", [EXCERPT], store, TABLE, RateTable([]), limits, now=NOW)
    [row] = store.query("SELECT status, rules, reasons, amount FROM latest WHERE region = 'us-east-1/use1-az1'")
    [kept] = store.query("SELECT status, amount FROM latest WHERE region = 'us-east-1'")
    assert (kept["status"], kept["amount"]) == ("accepted", own.amount)  # the provider's own row is never touched
    return Observation.trusted(
        {"status": Status(row["status"]), "rules": tuple(row["rules"]), "reasons": tuple(row["reasons"]), "amount": row["amount"]}
    )


def test_the_aggregators_p5_price_from_before_the_cut_is_held_against_aws_own_price(tmp_path: Path) -> None:
    row = _stored_then_imported(tmp_path, _own(55.04))
    assert (row.status, row.rules, row.amount) == (Status.HELD, ("stale_repeat",), 98.32)
    assert row.reasons == (HELD,)


def test_sources_that_agree_hold_nothing(tmp_path: Path) -> None:
    row = _stored_then_imported(tmp_path, _own(98.32))
    assert (row.status, row.rules) == (Status.ACCEPTED, ())


def test_a_price_outside_the_window_is_history_not_a_conflict(tmp_path: Path) -> None:
    own = _own(55.04, dt.date(2026, 2, 15))  # 34 days before the aggregator's 2026-03-21
    assert rules.Limits().conflict_window_days == 30 == Settings().price_conflict_window_days
    assert rules.Limits.of(Settings(price_conflict_window_days=40)).conflict_window_days == 40
    row = _stored_then_imported(tmp_path / "30", own)
    assert (row.status, row.rules) == (Status.ACCEPTED, ())
    wider = rules.Limits(conflict_window_days=40)
    assert _stored_then_imported(tmp_path / "40", own, wider).rules == ("stale_repeat",)


@pytest.mark.parametrize("own_first", [True, False])
def test_within_one_import_the_second_hand_row_is_held_whatever_the_order(own_first: bool) -> None:
    own, copy = _own(55.04), _aggregated()
    decided = rules.apply([own, copy] if own_first else [copy, own], TABLE, RateTable([]), rules.Limits(), now=NOW)
    by_via = {o.via: o for o in decided}
    assert by_via["collector aws"].status is Status.ACCEPTED
    assert by_via[VIA].rules == ("stale_repeat",) and by_via[VIA].reasons == (HELD,)


def test_two_second_hand_sources_are_not_judged() -> None:
    """Neither an aggregator's collection time nor its file says when its price was the
    provider's: two of them that disagree, without effective dates, hold nothing."""
    copy = _aggregated()
    other = copy.replaced(via="OpenComputePrices getdeploying.csv (MIT), collected 2026-03-22", amount=55.04)
    assert group_rules.stale_repeats([copy, other], 30) == [copy, other]


def test_the_earlier_of_two_effective_dates_is_the_older_price() -> None:
    """Azure's Retail Prices API says from when a price is in effect (``effectiveStartDate``):
    OpenComputePrices' ``azure.csv`` row of ``Standard_ND96isr_H100_v5`` in eastus gives 98.32
    in effect from 2023-12-01; a later reading giving another price from a later date
    supersedes it."""
    copy = Observation(
        provider="azure",
        instance_type="Standard_ND96isr_H100_v5",
        region="eastus",
        pricing="on_demand",
        amount=98.32,
        currency="USD",
        unit="hour",
        collected=dt.datetime(2026, 3, 21, 6, 19, 14, tzinfo=dt.UTC),
        via="OpenComputePrices azure.csv (MIT), collected 2026-03-21",
        raw_extra='{"raw_extra": {"effective_start": "2023-12-01T00:00:00Z", "meter_name": "ND96isrH100v5"}}',
    )
    later = copy.replaced(
        via="collector azure",
        amount=90.0,
        collected=copy.collected + dt.timedelta(days=2),
        raw_extra='{"effectiveStartDate": "2026-03-22T00:00:00Z"}',
    )
    held, kept = group_rules.stale_repeats([copy, later], 30)
    assert kept is later and held.rules == ("stale_repeat",)
    assert held.reasons == (
        "collector azure (the provider's own, in effect from 2026-03-22) gives 90 USD per hour on 2026-03-23; "
        "OpenComputePrices azure.csv (MIT), collected 2026-03-21 (second-hand, in effect from 2023-12-01) gives 98.32 on 2026-03-21: "
        "a price in effect from 2023-12-01, superseded from 2026-03-22",
    )


def _atlas(path: Path, row: Observation) -> Path:
    cells = dict.fromkeys(atlas.COLUMNS, "") | {
        "provider": row.provider,
        "instance_type": row.instance_type,
        "region": row.region,
        "pricing": row.pricing.value,
        "amount": f"{row.amount:g}",
        "currency": row.currency,
        "unit": row.unit.value,
        "price_basis": row.price_basis.value,
        "collected": row.collected.isoformat().replace("+00:00", "Z"),
        "source_url": row.source_url,
        "source_title": row.source_title,
        "via": row.via,
    }
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([list(atlas.COLUMNS), [cells[c] for c in atlas.COLUMNS]])
    return path


@pytest.mark.parametrize("own_amount", [55.04, 98.32])
def test_the_columnar_import_stores_what_the_row_path_stores(tmp_path: Path, own_amount: float, monkeypatch: pytest.MonkeyPatch) -> None:
    """An atlas file of the aggregator's row over a store holding AWS's own row: where they
    disagree the columns leave the import to the row path (held, the same stored rows either
    way); where they agree the columns decide it."""
    path = _atlas(tmp_path / "p5.csv", _aggregated().replaced(via="OpenComputePrices skypilot.csv"))  # a plain file: no quoted cell
    answers = []
    for columnar in (False, True):
        store = Store(tmp_path / f"columnar-{columnar}")
        import_readings("atlas", [], store, TABLE, RateTable([]), rules.Limits(), now=NOW, observations=[_own(own_amount)])
        with monkeypatch.context() as patch:
            if columnar and own_amount == 98.32:
                patch.setattr(runs, "_decide_and_append", lambda *a: pytest.fail("the columns should decide"))
            import_readings("atlas", [path], store, TABLE, RateTable([]), rules.Limits(), now=NOW, columnar=columnar)
        answers.append(store.query("SELECT * EXCLUDE (date, run) FROM latest ORDER BY region"))
    assert answers[0] == answers[1]
    held = [r["rules"] for r in answers[1] if r["region"] == "us-east-1/use1-az1"]
    assert held == ([["stale_repeat"]] if own_amount == 55.04 else [[]])

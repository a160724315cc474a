"""One import of a few hundred varied atlas rows, counted by hand: which are accepted, which
held by which rule, which rejected and which already stored, and the same file again."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path

from computeatlas.cloud import rules
from computeatlas.cloud.importers import atlas
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
TABLE = load_instances(FIXTURES / "instances")
HEADER = list(atlas.COLUMNS)  # the atlas CSV format's own header
WHEN = "2026-11-20T00:00:00Z"


def _row(
    instance: str,
    region: str,
    amount: str,
    *,
    accelerators: str = "",
    pricing: str = "on_demand",
    currency: str = "USD",
    collected: str = WHEN,
) -> list[str]:
    return [
        "examplecloud",
        instance,
        region,
        pricing,
        "",
        amount,
        currency,
        "hour",
        accelerators,
        "instance",
        collected,
        "https://examplecloud.example/pricing",
        "Example pricing",
        "",
        "",
        "",
    ]


def _rows() -> list[list[str]]:
    rows = [_row("8x L4", f"r{i}", "3.12", accelerators="8") for i in range(100)]  # 100 accepted: 0.39 per GPU-hour
    rows += [_row("9x Z9", f"z{i}", "3.00") for i in range(40)]  # 40 unplaced
    rows += [_row("1x B200", f"c{i}", "5.00", accelerators="2") for i in range(20)]  # 20 count_mismatch (the table: 1)
    rows += [_row("1x L4", f"f{i}", "0.001") for i in range(10)]  # 10 below_floor (0.02)
    rows += [_row("1x B200", f"e{i}", "5000") for i in range(10)]  # 10 above_ceiling (1,000)
    rows += [_row("8x L4", f"d{i}", "3.12", collected="2014-06-01T00:00:00Z") for i in range(10)]  # 10 implausible_date
    rows += [_row("8x L4", f"x{i}", "abc") for i in range(15)]  # 15 rejected: amount
    rows += [_row("8x L4", f"y{i}", "3.12", currency="usd") for i in range(5)]  # 5 rejected: currency
    rows += [_row("8x L4", f"v{i}", "3.12", pricing="reserved") for i in range(5)]  # 5 rejected: a reserved price without term
    rows += [_row("8x L4", f"r{i}", "3.12", accelerators="8") for i in range(30)]  # 30 repeats of accepted rows: already stored
    rows += [_row("8x L4", f"r{i}", "3.50", accelerators="8") for i in range(10)]  # 10 conflicts: the same keys at another price
    rows += [_row("8x L4 (Windows)", f"w{i}", "4.00") for i in range(10)]  # 10 licence_included
    rows += [_row("1x L4", f"o{i}", "50.0") for i in range(5)]  # 5 outside_band: 50 per GPU-hour against a median of 0.39
    for i in range(5):  # 5 accepted B200 prices, each beside its 1-year total written as hourly: 5 term_total
        rows += [_row("1x B200", f"t{i}", "2.00"), _row("1x B200", f"t{i}", "17520")]
    return rows


def _write(path: Path) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(HEADER)
        writer.writerows(_rows())
    return path


def test_a_varied_import_is_counted_row_by_row_and_the_same_file_again_adds_nothing(tmp_path: Path) -> None:
    path, store = _write(tmp_path / "varied.csv"), Store(tmp_path / "store")
    first = import_readings("atlas", [path], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (first.read, first.accepted, first.held, first.rejected, first.already_stored, first.skipped) == (280, 105, 120, 25, 30, 0)
    assert dict(first.held_by_rule) == {
        "unplaced": 40,
        "count_mismatch": 20,
        "below_floor": 10,
        "above_ceiling": 10,
        "implausible_date": 10,
        "conflict": 10,
        "licence_included": 10,
        "outside_band": 5,
        "term_total": 5,
    }
    assert dict(first.rejected_by_reason) == {
        "amount: not a number (ASCII digits, an optional decimal point and exponent; a comma only between groups of three digits, "
        "e.g. 1,234.56)": 15,
        "currency: unknown currency code (ISO 4217, e.g. USD, EUR)": 5,
        "term: a reserved price needs its term (e.g. '1 year')": 5,
    }
    assert [(e.line, e.column, e.text) for e in first.errors[:1]] == [(192, "amount", "abc")]  # the header is line 1
    assert first.accepted_by_provider == {"examplecloud": 105}

    stored = {(r["instance_type"], r["region"], float(r["amount"])): r for r in store.query("SELECT * FROM obs")}
    assert len(stored) == 225
    accepted = stored[("8x L4", "r0", 3.12)]
    assert (accepted["status"], accepted["accelerator"], accepted["accelerators"], accepted["per_accelerator_hour"]) == (
        "accepted",
        "nvidia-l4",
        8,
        0.39,
    )
    assert list(accepted["qualifiers"]) == ["variant_not_stated"] and accepted["run"] == first.run
    assert list(stored[("9x Z9", "z0", 3.0)]["reasons"]) == ["unknown instance type '9x Z9' at provider 'examplecloud'"]
    assert list(stored[("1x B200", "c3", 5.0)]["reasons"]) == [
        "the source states 2 accelerator(s) per instance; our instance table has 1 for '1x B200' at 'examplecloud'"
    ]
    assert list(stored[("8x L4", "r4", 3.5)]["rules"]) == ["conflict"]
    assert list(stored[("8x L4", "r4", 3.5)]["reasons"]) == ["the same observation is priced 3.12 USD elsewhere in this import"]
    assert list(stored[("1x B200", "t2", 17520.0)]["rules"]) == ["term_total", "conflict"]
    assert stored[("1x B200", "t2", 2.0)]["status"] == "accepted"
    assert list(stored[("1x L4", "o1", 50.0)]["reasons"]) == [
        "50 USD per accelerator-hour is outside 0.1–10 × the median 0.39 of 1 provider(s)' medians (125 on_demand observations "
        "of nvidia-l4)"
    ]
    assert list(stored[("8x L4 (Windows)", "w0", 4.0)]["rules"]) == ["licence_included"]
    assert list(stored[("1x L4", "f0", 0.001)]["reasons"]) == ["0.001 USD per accelerator-hour is below the floor of 0.02"]

    again = import_readings("atlas", [path], store, TABLE, RateTable([]), rules.Limits(), now=NOW + dt.timedelta(seconds=1))
    assert (again.read, again.accepted, again.held, again.rejected, again.already_stored) == (280, 0, 0, 25, 255)
    assert len(store.runs()) == 1


def test_a_second_import_is_judged_against_the_stored_rows_counted_once_each(tmp_path: Path) -> None:
    """The stored band prices come counted (100 equal rows of 0.39 are one price ×100), the stored
    keys as their price and decision: each decision below is worked out by hand."""
    store = Store(tmp_path / "store")
    first_path = tmp_path / "first.csv"
    with first_path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows([HEADER, *(_row("8x L4", f"r{i}", "3.12", accelerators="8") for i in range(100))])
    first = import_readings("atlas", [first_path], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (first.accepted, first.held) == (100, 0)  # 100 prices of 3.12 ÷ 8 = 0.39 per GPU-hour
    second_path = tmp_path / "second.csv"
    with second_path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(
            [
                HEADER,
                _row("1x L4", "p0", "50.0"),  # 50 per GPU-hour: against the stored 100 and these 4
                _row("8x L4", "r0", "3.50", accelerators="8"),  # the stored key r0 at another price
                _row("8x L4", "r1", "3.12", accelerators="8"),  # the stored row again
                _row("8x L4", "n0", "3.20", accelerators="8"),
            ]
        )  # a new key: 0.40 per GPU-hour
    second = import_readings("atlas", [second_path], store, TABLE, RateTable([]), rules.Limits(), now=NOW + dt.timedelta(seconds=1))
    assert (second.read, second.accepted, second.held, second.already_stored) == (4, 1, 2, 1)
    assert dict(second.held_by_rule) == {"outside_band": 1, "conflict": 1}
    held = {(r["instance_type"], r["region"]): list(r["reasons"]) for r in store.held(second.run)}
    assert held == {
        ("1x L4", "p0"): [
            "50 USD per accelerator-hour is outside 0.1–10 × the median 0.39 of 1 provider(s)' medians "
            "(104 on_demand observations of nvidia-l4)"
        ],  # the stored 100 (one price) and the 4 here, judged before deduplication
        ("8x L4", "r0"): [f"the store holds this observation at 3.12 USD (run {first.run})"],
    }


def test_the_rules_of_an_imports_groups_decide_a_mixed_file_as_worked_out_by_hand(tmp_path: Path) -> None:
    """Split bills (a pair combined, a lone part), a spot column that copies the on-demand one, a
    placeholder amount for three sizes, a price without a rate and a repeated row, in one file."""

    def row(provider: str, instance: str, region: str, amount: str, pricing: str = "on_demand", currency: str = "USD") -> list[str]:
        return [provider, *_row(instance, region, amount, pricing=pricing, currency=currency)[1:]]

    path = tmp_path / "groups.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle).writerows(
            [
                HEADER,
                row("google-cloud", "g4-standard-48", "us-a", "1.00"),  # the host part: 1 GPU per instance
                row("google-cloud", "1x RTX PRO 6000", "us-a", "2.00"),  # its accelerator part: combined, 1 + 1 × 2 = 3
                row("google-cloud", "1x L4", "us-b", "0.70"),  # an accelerator part without its host
                row("examplecloud", "8x L4", "s0", "3.12"),
                row("examplecloud", "8x L4", "s0", "3.12", pricing="spot"),  # spot = on-demand …
                row("examplecloud", "8x L4", "s1", "3.12"),
                row("examplecloud", "8x L4", "s1", "3.12", pricing="spot"),  # … in both pairs: copies
                *(row("google-cloud", f"tpu-v6e-{n}", "asia", "700") for n in (1, 4, 8)),  # one amount, three sizes
                row("examplecloud", "1x L4", "eu", "1.00", currency="EUR"),  # no EUR rate in the table
                row("examplecloud", "8x L4", "s0", "3.12"),  # the first on-demand row again
            ]
        )
    store = Store(tmp_path / "store")
    done = import_readings("atlas", [path], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (done.read, done.accepted, done.held, done.already_stored, done.combined) == (12, 3, 9, 1, 1)
    assert dict(done.held_by_rule) == {"split_bill": 3, "placeholder": 3, "spot_equals_on_demand": 2, "no_rate": 1}
    stored = {(r["instance_type"], r["region"], r["pricing"]): r for r in store.query("SELECT * FROM obs")}
    assert len(stored) == 12
    reasons = {key: list(r["reasons"]) for key, r in stored.items() if r["status"] == "held"}
    assert reasons == {
        ("g4-standard-48", "us-a", "on_demand"): ["host part, combined into the all-in price of g4-standard-48 + 1x RTX PRO 6000"],
        ("1x RTX PRO 6000", "us-a", "on_demand"): ["accelerator part, combined into the all-in price with its host"],
        ("1x L4", "us-b", "on_demand"): ["accelerator part (1x L4) without its host line at google-cloud us-b: not an all-in price"],
        ("8x L4", "s0", "spot"): ["every spot price of examplecloud in this import equals its on-demand price"],
        ("8x L4", "s1", "spot"): ["every spot price of examplecloud in this import equals its on-demand price"],
        **{
            (f"tpu-v6e-{n}", "asia", "on_demand"): [
                "google-cloud prices 3 sizes of google-tpu-v6e (1, 4, 8 per instance) at the same 700 USD here: a placeholder, not a price"
            ]
            for n in (1, 4, 8)
        },
        ("1x L4", "eu", "on_demand"): [
            "no dated EUR rate on or before 2026-11-20 in data/prices/rates.csv: the price cannot be checked against the bounds "
            "in USD; add a sourced rate and import the file again"
        ],
    }
    combined = stored[("g4-standard-48 + 1 × 1x RTX PRO 6000", "us-a", "on_demand")]
    assert (combined["status"], combined["amount"], combined["billing"], combined["accelerator"], combined["per_accelerator_hour"]) == (
        "accepted",
        3.0,
        "all_in",
        "nvidia-rtx-pro-6000",
        3.0,
    )
    assert combined["note"] == "all-in price combined from the host part 1 and 1 × accelerator part 2 per hour"
    assert [stored[("8x L4", r, "on_demand")]["per_accelerator_hour"] for r in ("s0", "s1")] == [0.39, 0.39]

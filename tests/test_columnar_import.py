"""An atlas file imported in columns (DuckDB) and row by row gives the same run: the same rows
accepted, held (same rules, same reasons) and rejected (same errors), the same counts, the same
stored rows, manifests and current table; and the varied file's decisions, counted by hand."""

from __future__ import annotations

import csv
import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from computeatlas.cloud import bounds, rules, runs
from computeatlas.cloud.import_summary import Summary
from computeatlas.cloud.importers import atlas
from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.rates import Rate, RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store

FIXTURES = Path(__file__).parent / "fixtures" / "prices"
NOW = dt.datetime(2026, 11, 30, 12, tzinfo=dt.UTC)
TABLE = load_instances(FIXTURES / "instances")
WHEN = "2026-11-20T00:00:00Z"
SIBLINGS = {"nvidia-h100-sxm": ("nvidia-l4",)}
EUR = Rate(dt.date(2026, 11, 1), "EUR", 1.10, "https://example.org/rates", "rates")
GBP = Rate(dt.date(2026, 11, 1), "GBP", 1.25, "https://example.org/rates", "rates")


def _row(instance: str, region: str, amount: str, **cells: str) -> list[str]:
    row = {
        "provider": "examplecloud",
        "instance_type": instance,
        "region": region,
        "pricing": "on_demand",
        "term": "",
        "amount": amount,
        "currency": "USD",
        "unit": "hour",
        "accelerators": "",
        "price_basis": "instance",
        "collected": WHEN,
        "source_url": "https://examplecloud.example/pricing",
        "source_title": "Example pricing",
        "via": "",
        "availability": "",
        "note": "",
    }
    row.update(cells)
    return [row[c] for c in atlas.COLUMNS]


def _rows(changed: bool = False) -> list[list[str]]:
    rows = [_row("8x L4", f"a{i}", "3.50" if changed and i < 5 else "3.12", accelerators="8") for i in range(30)]  # 0.39 per GPU-hour
    rows += [_row("1x L4", f"b{i}", "0.40") for i in range(10)]  # accepted
    rows += [_row("9x Z9", f"z{i}", "3.00") for i in range(5)]  # unplaced
    rows += [_row("1x B200", f"c{i}", "5.00", accelerators="2") for i in range(3)]  # count_mismatch (the table: 1)
    rows += [_row("1x L4", f"f{i}", "0.001") for i in range(3)]  # below_floor (0.02)
    rows += [_row("1x B200", f"e{i}", "5000") for i in range(2)]  # above_ceiling (1,000)
    rows += [_row("8x L4", f"d{i}", "3.12", collected="2014-06-01T00:00:00Z") for i in range(2)]  # implausible_date
    rows += [_row("8x L4 (Windows)", f"w{i}", "4.00") for i in range(2)]  # licence_included
    rows += [_row("1x L4", f"o{i}", "50.0") for i in range(2)]  # outside_band: 50 against the median 0.39
    rows += [_row("1x L4", f"eu{i}", "0.36", currency="EUR") for i in range(2)]  # 0.396 USD: accepted
    rows += [_row("1x L4", f"uk{i}", "0.32", currency="GBP") for i in range(2)]  # no_rate (no GBP rate in the first table)
    rows += [_row("8x L4", f"m{i}", "2000", unit="month") for i in range(2)]  # a monthly term: derived_from_term
    rows += [
        _row("8x L4", "s0", "0.000867", unit="second"),  # 0.39 per GPU-hour
        _row("1x L4", "g0", "0.41", price_basis="accelerator"),
        _row(" 8x L4 ", "\xa0z1\t", " 3.12 ", accelerators=" 8", via="collector-x"),  # cells stripped as str.strip strips
        _row("h100-server", "h0", "500"),  # a part's first price, 1,282 × its sibling L4's median: far_from_sibling
        _row("h100-server", "h1", "2.00"),  # within 10 × 0.39: accepted
        _row("8x L4", "x0", "abc"),  # rejected: amount
        _row("8x L4", "x1", "3.12", currency="usd"),  # rejected: currency
        _row("8x L4", "x2", "3.12", pricing="reserved"),  # rejected: a reserved price without its term
        _row("  ", "x3", "3.12"),  # rejected: instance_type
        _row("8x L4", "x4", "3.12", source_url="ftp://example.org"),  # rejected: source_url
        _row("8x L4", "x5", "3.12", collected="2026-11-20"),  # rejected: a date alone
        _row("8x L4", "x6", "3.12", accelerators="0"),  # rejected: accelerators
        _row("8x L4", "x7", "3.12", collected="2027-01-01T00:00:00Z"),  # rejected: in the future
        _row("8x L4", "x8", "oops", pricing="hourly"),  # rejected for its first bad cell, pricing
        _row("8x L4", "x9", "3.12", unit="day"),  # rejected: unit
    ]
    return rows


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        csv.writer(handle, lineterminator="\n").writerows([list(atlas.COLUMNS), *rows])
    return path


def _answers(store: Store) -> dict[str, Any]:
    """Everything a reader of the store sees: every row, the manifests, the current table."""
    order = "ORDER BY run, provider, instance_type, region, pricing, term, collected, amount, status"
    return {
        "rows": store.query(f"SELECT * EXCLUDE (date) FROM obs {order}"),
        "latest": store.query(f"SELECT * EXCLUDE (date) FROM latest {order}"),
        "runs": store.runs(),
        "current": store.current(None, NOW + dt.timedelta(minutes=1), 30),
        "pointer": store.current_pointer(),
        "files": sorted(str(p.relative_to(store.root)) for p in store.files()),
    }


def _both(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, path: Path, rates: RateTable, now: dt.datetime) -> tuple[Summary, Summary]:
    """``path`` imported row by row into ``rows/`` and in columns into ``columns/`` (the row
    path's decision made to fail there, so the columns must decide)."""
    by_rows = import_readings(
        "atlas", [path], Store(tmp_path / "rows"), TABLE, rates, rules.Limits(), now=now, siblings=SIBLINGS, columnar=False
    )

    def refused(*args: object) -> None:
        raise AssertionError("the row path decided an import the columns should decide")

    with monkeypatch.context() as patch:
        patch.setattr(runs, "_decide_and_append", refused)
        by_columns = import_readings("atlas", [path], Store(tmp_path / "columns"), TABLE, rates, rules.Limits(), now=now, siblings=SIBLINGS)
    return by_rows, by_columns


def _same(tmp_path: Path, first: Summary, second: Summary) -> None:
    assert second.counts() == first.counts() and second.errors == first.errors and second.run == first.run
    assert _answers(Store(tmp_path / "columns")) == _answers(Store(tmp_path / "rows"))


def test_a_varied_file_imported_in_columns_is_the_run_the_rows_make(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "varied.csv", _rows())
    rates = RateTable([EUR])
    first_rows, first_columns = _both(tmp_path, monkeypatch, path, rates, NOW)
    _same(tmp_path, first_rows, first_columns)
    done = first_columns
    assert (done.read, done.accepted, done.held, done.rejected, done.already_stored) == (80, 48, 22, 10, 0)
    assert dict(done.held_by_rule) == {
        "unplaced": 5,
        "count_mismatch": 3,
        "below_floor": 3,
        "implausible_date": 2,
        "above_ceiling": 2,
        "licence_included": 2,
        "outside_band": 2,
        "no_rate": 2,
        "far_from_sibling": 1,
    }
    assert [(e.line, e.column, e.text) for e in done.errors] == [
        (72, "amount", "abc"),
        (73, "currency", "usd"),
        (74, "term", ""),
        (75, "instance_type", ""),
        (76, "source_url", "ftp://example.org"),
        (77, "collected", "2026-11-20"),
        (78, "accelerators", "0"),
        (79, "collected", "2027-01-01T00:00:00Z"),
        (80, "pricing", "hourly"),
        (81, "unit", "day"),
    ]
    stored = {(r["instance_type"], r["region"]): r for r in Store(tmp_path / "columns").query("SELECT * FROM obs")}
    assert (stored[("8x L4", "z1")]["amount"], stored[("8x L4", "z1")]["via"], stored[("8x L4", "z1")]["status"]) == (
        3.12,
        "collector-x",
        "accepted",
    )
    assert list(stored[("8x L4", "m0")]["qualifiers"]) == ["variant_not_stated", "derived_from_term"]
    assert stored[("8x L4", "m0")]["pricing"] == "monthly"
    assert list(stored[("h100-server", "h0")]["reasons"]) == [
        "the first price of nvidia-h100-sxm: 500 USD per accelerator-hour is outside 0.1–10 × the median 0.39 of its closest "
        "sibling nvidia-l4 (49 on_demand observations, 1 provider(s))"
    ]
    assert list(stored[("1x L4", "o0")]["reasons"]) == [
        "50 USD per accelerator-hour is outside 0.1–10 × the median 0.39 of 1 provider(s)' medians (49 on_demand observations of nvidia-l4)"
    ]
    assert list(stored[("8x L4 (Windows)", "w0")]["rules"]) == ["licence_included"]
    assert list(stored[("9x Z9", "z0")]["rules"]) == ["unplaced"]

    again_rows, again_columns = _both(tmp_path, monkeypatch, path, rates, NOW + dt.timedelta(seconds=1))
    _same(tmp_path, again_rows, again_columns)
    # h100-sxm now has an accepted price in the store: h0 is no longer its first, so it is accepted (a new decision)
    assert (again_columns.accepted, again_columns.held, again_columns.already_stored) == (1, 0, 69)

    changed = _write(tmp_path / "changed.csv", _rows(changed=True))
    later_rows, later_columns = _both(tmp_path, monkeypatch, changed, RateTable([EUR, GBP]), NOW + dt.timedelta(seconds=2))
    _same(tmp_path, later_rows, later_columns)
    assert (later_columns.accepted, later_columns.held, later_columns.already_stored) == (2, 5, 63)  # GBP now rated; 5 conflicts
    assert dict(later_columns.held_by_rule) == {"conflict": 5}

    repeat_rows, repeat_columns = _both(tmp_path, monkeypatch, changed, RateTable([EUR, GBP]), NOW + dt.timedelta(seconds=3))
    _same(tmp_path, repeat_rows, repeat_columns)  # the 5 conflicts are stored conflicts now: nothing is added
    assert (repeat_columns.accepted, repeat_columns.held, repeat_columns.already_stored) == (0, 0, 70)


def test_a_byte_order_mark_and_cr_lf_lines_are_read_in_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "excel.csv"
    lines = [",".join(atlas.COLUMNS), *(",".join(_row("8x L4", f"a{i}", "3.12", accelerators="8")) for i in range(3))]
    path.write_bytes(("\ufeff" + "\r\n".join(lines)).encode("utf-8"))  # no line break after the last row
    rows, columns = _both(tmp_path, monkeypatch, path, RateTable([]), NOW)
    _same(tmp_path, rows, columns)
    assert (columns.read, columns.accepted) == (3, 3)
    header_only = tmp_path / "empty.csv"
    header_only.write_text(",".join(atlas.COLUMNS) + "\n", encoding="utf-8")
    done = import_readings("atlas", [header_only], Store(tmp_path / "none"), TABLE, RateTable([]), rules.Limits(), now=NOW)
    assert (done.read, done.accepted, Store(tmp_path / "none").runs()) == (0, 0, [])


def test_a_file_the_columns_do_not_decide_is_imported_row_by_row(tmp_path: Path) -> None:
    """A quoted cell (not a plain file) and a key given twice (a rule of the import's groups):
    the row path decides, and the run is the one it makes."""
    quoted = tmp_path / "quoted.csv"
    quoted.write_text(",".join(atlas.COLUMNS) + "\n" + ",".join(_row("8x L4", "q0", "3.12", note='"a, b"')) + "\n", encoding="utf-8")
    twice = _write(tmp_path / "twice.csv", [_row("8x L4", "t0", "3.12"), _row("8x L4", "t0", "3.50")])
    for path in (quoted, twice):
        store = Store(tmp_path / path.stem)
        done = import_readings("atlas", [path], store, TABLE, RateTable([]), rules.Limits(), now=NOW)
        rows = import_readings(
            "atlas", [path], Store(tmp_path / f"{path.stem}-rows"), TABLE, RateTable([]), rules.Limits(), now=NOW, columnar=False
        )
        assert done.counts() == rows.counts()
    assert [r["note"] for r in Store(tmp_path / "quoted").query("SELECT note FROM obs")] == ["a, b"]
    assert sorted(r["status"] for r in Store(tmp_path / "twice").query("SELECT status FROM obs")) == ["accepted", "held"]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 60), st.sampled_from([0.5, 1.0, 1.25, 2.0, 3.5]), st.sampled_from("abc"), st.integers(1, 4)), max_size=40
    ),
    st.lists(st.integers(-10, 70), min_size=1, max_size=12),
)
def test_counted_window_medians_are_the_window_medians_of_the_prices_written_out(
    entries: list[tuple[int, float, str, int]], hours: list[int]
) -> None:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    counted = sorted((start + dt.timedelta(hours=h), price, provider, n) for h, price, provider, n in entries)
    written = sorted(entry[:3] for entry in counted for _ in range(entry[3]))
    times = [start + dt.timedelta(hours=h) for h in hours]
    window = dt.timedelta(hours=6)
    assert bounds.counted_window_medians(counted, times, window) == bounds.window_medians(written, times, window)

"""Price-store benchmark, run by hand (never in CI; nothing is asserted).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/prices_bench.py [SIZES…] [--huge] [--import-rows N]
        [--repeat N] [--runs-per-day N]          # default sizes 10000 1000000 10000000

1. **Import**: a synthetic atlas-format CSV of ``--import-rows`` rows (default 10,000)
   through :func:`computeatlas.cloud.runs.import_readings` (parse, place, rules, dedupe,
   write), then the same file again (everything already stored). Rows per second.
2. **Scale**, per size: a synthetic year (30 providers, 20 accelerators; ``price_store.py``)
   written as run files, one run per day (``--runs-per-day``); then compacted and its current
   table built when the store can (``Store.compact``, ``Store.refresh_current``), each timed.
   In a fresh subprocess, server start (``create_app``) and resident memory after it (VmRSS).
   In-process (Starlette's test client), ``--repeat`` requests (default 20) of each timed page
   with the app cache's pages, page data, store answers (``engine.ANSWERS``) and cheapest prices of the minute emptied before each:
   p50/p99; beside each, the same question asked of DuckDB directly over the same files with a
   fresh connection per question (``price_store.Floor``), and the ratio. 100,000,000 runs only
   with ``--huge``; otherwise its time is estimated from the largest size run.

Prints Markdown tables (latencies, start/memory/disk/preparation, growth between sizes) and a
verdict per target at 10,000,000. A request that does not answer 200 is a failure in the table.
The operating system's file cache is warm (the files were just written): "uncached" means
the application's caches.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import itertools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

import duckdb
from price_store import PART, Floor, prepare, synthetic_history, timed, window_files

from computeatlas.catalog import load
from computeatlas.cloud import cheapest_price, rules
from computeatlas.cloud.engine import ANSWERS
from computeatlas.cloud.importers import atlas
from computeatlas.cloud.instances import instance_table
from computeatlas.cloud.offers import OFFER_COLUMNS
from computeatlas.cloud.rates import RateTable
from computeatlas.cloud.runs import import_readings
from computeatlas.cloud.store import Store
from computeatlas.web import cache as page_cache

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)
SIZES = [10_000, 1_000_000, 10_000_000]
HUGE = 100_000_000
TARGET = 10_000_000
PAGES = ("price page", "/cloud/", "current API", "history API 30 d", "history API 1 y", "/api/offers")
LIMITS = {"price page": 50.0, "current API": 50.0, "history API 30 d": 50.0, "history API 1 y": 50.0, "/cloud/": 150.0}
"""Uncached p50 targets at 10M (ms)."""


def import_rate(folder: Path, rows: int = 10_000) -> tuple[str, float]:
    """Import ``rows`` synthetic rows, then the same file again: (two Markdown rows, new rows per second)."""
    catalog = load()
    table = instance_table(catalog)
    placed = [r for r in table.rows if r.billing.value == "all_in"][:40]
    path = folder / "synthetic.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(atlas.COLUMNS)  # the atlas CSV format's own header
        for i in range(rows):
            r = placed[i % len(placed)]
            when = (NOW - dt.timedelta(hours=i // 400)).strftime("%Y-%m-%dT%H:%M:%SZ")
            writer.writerow(
                [
                    r.provider,
                    r.instance_type,
                    f"region-{(i // len(placed)) % 10}",
                    "on_demand",
                    "",
                    f"{2 + (i % 7) * 0.1:.2f}",
                    "USD",
                    "hour",
                    r.accelerators,
                    "accelerator",
                    when,
                    "https://example.org/p",
                    "synthetic",
                    "",
                    "",
                    "",
                ]
            )
    store = Store(folder / "store")
    args = (table, RateTable([]), rules.Limits())
    start = time.perf_counter()
    first = import_readings("atlas", [path], store, *args)
    took = time.perf_counter() - start
    start = time.perf_counter()
    again = import_readings("atlas", [path], store, *args, now=NOW + dt.timedelta(seconds=1))
    took_again = time.perf_counter() - start
    return (
        f"| import {rows:,} new rows | {took:.2f} s | {rows / took:,.0f} rows/s | accepted {first.accepted}, held {first.held} |\n"
        f"| import the same file again | {took_again:.2f} s | {rows / took_again:,.0f} rows/s | added {again.accepted + again.held} |",
        rows / took,
    )


START = """
import json, sys, time
t = time.perf_counter()
from computeatlas.core.settings import Settings
from computeatlas.web.app import create_app
app = create_app(settings=Settings(prices=sys.argv[1]))
rss = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:"))
print(json.dumps({"start_s": time.perf_counter() - t, "rss_mb": rss / 1024}))
"""


def started(root: Path) -> dict[str, Any]:
    """Server start (s) and VmRSS after it (MB) in a fresh process; ``error`` when it failed."""
    done = subprocess.run(
        [sys.executable, "-c", START, str(root)], capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False
    )
    if done.returncode:
        return {"error": (done.stderr.strip().splitlines() or ["exit " + str(done.returncode)])[-1][:200]}
    return json.loads(done.stdout)


def percentiles(times: list[float]) -> tuple[float, float]:
    """(p50, p99) in ms of ``times`` in seconds (nearest rank)."""
    times = sorted(times)
    return statistics.median(times) * 1000, times[round(0.99 * (len(times) - 1))] * 1000


def latencies(prices: Path, repeat: int) -> dict[str, dict[str, Any]]:
    """Per timed page: product p50/p99 (ms, every cache emptied before each request), the
    statuses that were not 200, and the direct DuckDB question's p50/p99 (ms)."""
    from fastapi.testclient import TestClient

    from computeatlas.core.settings import Settings
    from computeatlas.web.app import create_app

    settings = Settings(prices=prices)
    app = create_app(settings=settings)
    client = TestClient(app, raise_server_exceptions=False)
    month, year = (NOW - dt.timedelta(days=30)).date(), (NOW - dt.timedelta(days=365)).date()
    floor = Floor(Store(prices), NOW, settings.freshness_days)
    parts = sorted(app.state.catalog.accelerators)
    asked: dict[str, tuple[str, Callable[[], int]]] = {
        "price page": (f"/cloud/prices/{PART}", lambda: floor.page(PART, year)),
        "/cloud/": ("/cloud/", lambda: floor.market(parts, OFFER_COLUMNS)),
        "current API": (f"/api/prices/{PART}/current", lambda: floor.current(PART)),
        "history API 30 d": (f"/api/prices/{PART}/history?since={month}", lambda: floor.history(PART, month)),
        "history API 1 y": (f"/api/prices/{PART}/history?since={year}", lambda: floor.history(PART, year)),
        "/api/offers": ("/api/offers", lambda: floor.market(parts, OFFER_COLUMNS)),
    }
    out: dict[str, dict[str, Any]] = {}
    for name, (url, direct) in asked.items():
        times, failed = [], []
        for n in range(repeat + 1):  # the first (not timed) loads templates and lists files
            for namespace in (
                page_cache.PAGES,
                page_cache.PAGE_DATA,
                ANSWERS,
                cheapest_price.CHEAPEST,
            ):  # the store's listings and bound views stay, as before
                app.state.cache.clear(namespace)
            start = time.perf_counter()
            try:
                status = client.get(url).status_code
            except Exception as error:
                status = type(error).__name__
            if status != 200:
                failed.append(str(status))
            elif n:
                times.append(time.perf_counter() - start)
        row: dict[str, Any] = {"url": url, "failed": failed, "product": percentiles(times) if times else None}
        floor_times = []
        for n in range(repeat + 1):
            took, error = timed(direct)
            if error:
                row["floor_error"] = error
                break
            if n:
                floor_times.append(took)
        row["floor"] = percentiles(floor_times) if floor_times and "floor_error" not in row else None
        out[name] = row
    return out


def measure(size: int, repeat: int, runs_per_day: int) -> dict[str, Any]:
    """Every figure of one size (seconds, MB, ms); a failed step leaves its error, not an exception."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "prices"
        wall = time.perf_counter()
        got: dict[str, Any] = {"size": size}
        got["generate_s"], error = timed(lambda: synthetic_history(root, size, NOW, runs_per_day))
        if error:
            return {**got, "error": f"synthetic history: {error}", "wall_s": time.perf_counter() - wall}
        store = Store(root)
        got["run_mb"] = sum(p.stat().st_size for p in root.rglob("*.parquet")) / 1e6
        got.update(prepare(store))
        got["disk_mb"] = sum(p.stat().st_size for p in root.rglob("*.parquet")) / 1e6
        got["files"] = len(window_files(store))
        got["start"] = started(root)
        try:
            got["pages"] = latencies(root, repeat)
        except Exception as error:
            why = f"{type(error).__name__}: {error}"[:200]
            got["pages"] = {name: {"url": name, "failed": [why], "product": None, "floor": None} for name in PAGES}
        got["wall_s"] = time.perf_counter() - wall
        return got


def _ms(pair: tuple[float, float] | None) -> str:
    return f"{pair[0]:,.0f} / {pair[1]:,.0f} ms" if pair else "—"


def _s(value: float | None, unit: str = "s", digits: int = 2) -> str:
    return "—" if value is None else f"{value:,.{digits}f} {unit}"


def tables(results: list[dict[str, Any]]) -> str:
    """The three Markdown tables: latencies, start/memory/disk/preparation, growth."""
    lines = [
        "| observations | request | uncached p50 / p99 | DuckDB direct p50 / p99 | product ÷ DuckDB (p50) | failures |",
        "|---|---|---|---|---|---|",
    ]
    for got in results:
        if "error" in got:
            lines.append(f"| {got['size']:,} | every one | not measured | | | {got['error']} |")
            continue
        for row in got["pages"].values():
            ratio = f"{row['product'][0] / row['floor'][0]:.1f}×" if row["product"] and row["floor"] else "—"
            failures = ", ".join(sorted(set(row["failed"]))) + f" ({len(row['failed'])} requests)" if row["failed"] else ""
            failures += f" DuckDB: {row['floor_error']}" if "floor_error" in row else ""
            lines.append(f"| {got['size']:,} | `{row['url']}` | {_ms(row['product'])} | {_ms(row['floor'])} | {ratio} | {failures} |")
    lines += [
        "",
        "| observations | generate | compact | current table | files read | Parquet on disk (runs → after) | server start | RSS after start | notes |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for got in results:
        if "error" in got:
            lines.append(f"| {got['size']:,} | {_s(got.get('generate_s'))} | | | | | | | {got['error']} |")
            continue
        start = got["start"]
        notes = "; ".join(got["errors"] + ([f"start: {start['error']}"] if "error" in start else []))
        lines.append(
            f"| {got['size']:,} | {_s(got['generate_s'])} | {_s(got['compact_s'])} | {_s(got['current_s'])} | {got['files']:,} "
            f"| {got['run_mb']:.1f} → {got['disk_mb']:.1f} MB | {_s(start.get('start_s'))} | {_s(start.get('rss_mb'), 'MB', 0)} | {notes} |"
        )
    ok = [g for g in results if "error" not in g]
    if len(ok) > 1:
        steps = list(itertools.pairwise(ok))
        lines += ["", "| growth | " + " | ".join(f"{a['size']:,} → {b['size']:,}" for a, b in steps) + " |", "|---|" + "---|" * len(steps)]
        metrics: dict[str, Callable[[dict[str, Any]], float | None]] = {
            f"{name} p50": (lambda g, n=name: g["pages"][n]["product"][0] if g["pages"][n]["product"] else None) for name in PAGES
        }
        metrics["server start"] = lambda g: g["start"].get("start_s")
        metrics["RSS after start"] = lambda g: g["start"].get("rss_mb")
        metrics["Parquet on disk"] = lambda g: g["disk_mb"]
        for label, value in metrics.items():
            cells = [f"{vb / va:.2f}×" if (va := value(a)) and (vb := value(b)) is not None else "—" for a, b in steps]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdicts(results: list[dict[str, Any]], import_rows_per_s: float | None) -> list[str]:
    """One line per target: met, not met (with the figure) or not measured (with why)."""
    by = {g["size"]: g for g in results if "error" not in g}
    at, small = by.get(TARGET), by.get(min(SIZES))
    largest = max(by) if by else None
    lines = []

    def line(target: str, value: float | None, limit: float, unit: str = "ms", higher: bool = False) -> None:
        if value is None:
            why = f"10M not run or failed; largest size measured: {largest:,}" if at is None and largest else "its measurement failed"
            lines.append(f"- {target}: **not measured** ({why})")
        else:
            met = value >= limit if higher else value <= limit
            lines.append(
                f"- {target}: **{'met' if met else 'not met'}** ({value:,.{0 if value >= 1000 else 1}f}{'' if unit == '×' else ' '}{unit})"
            )

    def page(name: str, key: str) -> float | None:  # None when any request of the page failed, too
        row = at["pages"][name] if at else None
        return row[key][0] if row and row[key] and not row["failed"] else None

    for name, limit in LIMITS.items():
        line(f"{name} uncached p50 ≤ {limit:.0f} ms at 10M", page(name, "product"), limit)
    for name in PAGES:
        product, direct = page(name, "product"), page(name, "floor")
        line(f"{name} ≤ 3× its direct DuckDB query at 10M", product / direct if product and direct else None, 3.0, unit="×")
    for label, key, unit in (("server start", "start_s", "×"), ("RSS after start", "rss_mb", "×")):
        first, last = (small or {}).get("start", {}).get(key), (at or {}).get("start", {}).get(key)
        line(f"{label} flat (≤ 1.5×) from 10k to 10M", last / first if first and last else None, 1.5, unit=unit)
    if import_rows_per_s is None:
        lines.append("- import ≥ 100,000 rows/s: **not measured** (the import failed)")
    else:
        line("import ≥ 100,000 rows/s", import_rows_per_s, 100_000.0, unit="rows/s", higher=True)
    return lines


def huge_estimate(results: list[dict[str, Any]]) -> str:
    """Why 100M was not run, and its time and disk extrapolated from the two largest sizes run
    (the cost per added observation between them; from the largest alone when only one ran)."""
    ran = sorted((g for g in results if "wall_s" in g), key=lambda g: g["size"])
    if not ran:
        return f"{HUGE:,} observations were not run (pass --huge); nothing ran to estimate its time from."
    last = ran[-1]
    if len(ran) > 1:
        before = ran[-2]
        per = (last["wall_s"] - before["wall_s"]) / (last["size"] - before["size"])
        per_mb = (last.get("disk_mb", 0) - before.get("disk_mb", 0)) / (last["size"] - before["size"])
        basis = f"the cost per added observation from {before['size']:,} ({before['wall_s']:.0f} s) to {last['size']:,} ({last['wall_s']:.0f} s)"
    else:
        per, per_mb, basis = last["wall_s"] / last["size"], last.get("disk_mb", 0) / last["size"], f"the {last['size']:,} run, linearly"
    wall = last["wall_s"] + per * (HUGE - last["size"])
    disk = last.get("disk_mb", 0) + per_mb * (HUGE - last["size"])
    return (
        f"{HUGE:,} observations were not run (pass --huge to run them): about {wall / 60:,.0f} min and {disk / 1000:,.1f} GB of "
        f"Parquet (plus the same again while generating), estimated from {basis}; the targets are set at {TARGET:,}."
    )


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="price-store benchmark (run by hand)")
    parser.add_argument("sizes", nargs="*", type=int, help=f"observations per synthetic history (default {' '.join(map(str, SIZES))})")
    parser.add_argument("--huge", action="store_true", help=f"also run {HUGE:,} observations")
    parser.add_argument("--import-rows", type=int, default=10_000, help="rows of the import measurement (default 10000)")
    parser.add_argument("--repeat", type=int, default=20, help="timed requests per page (default 20)")
    parser.add_argument("--runs-per-day", type=int, default=1, choices=(1, 2, 3, 4, 6, 8, 12, 24), help="import runs per day (default 1)")
    args = parser.parse_args(argv)
    sizes = sorted(set(args.sizes or SIZES) | ({HUGE} if args.huge else set()))
    print(
        f"Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, DuckDB {duckdb.__version__}; {args.repeat} requests per page, "
        f"{args.runs_per_day} run(s) per day; {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC\n"
    )
    rate: float | None = None
    print("| import | time | rate | result |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as folder:
        try:
            text, rate = import_rate(Path(folder), args.import_rows)
            print(text)
        except Exception as error:
            print(f"| import {args.import_rows:,} new rows | failed | | {type(error).__name__}: {error} |")
    results = []
    for size in sizes:
        results.append(measure(size, args.repeat, args.runs_per_day))
        print(f"[{size:,} done in {results[-1]['wall_s']:.0f} s] " + json.dumps(results[-1], default=str), file=sys.stderr, flush=True)
    print("\n" + tables(results) + "\n")
    if HUGE not in sizes and results:
        print(huge_estimate(results) + "\n")
    print("\n".join(verdicts(results, rate)))


if __name__ == "__main__":
    main(sys.argv[1:])

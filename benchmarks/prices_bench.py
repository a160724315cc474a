"""Price-observation benchmark, run by hand (never in CI; nothing is asserted).

    PYTHONPATH=$PWD .venv/bin/python benchmarks/prices_bench.py [SIZES…]   # default 10000 1000000
    PYTHONPATH=$PWD .venv/bin/python benchmarks/prices_bench.py import [ROWS…]   # the import alone; default 10000

1. **Import**: a synthetic atlas-format CSV of 10,000 rows (instances of the bundled
   instance table, 50 providers' worth of regions, one collection time per row) imported
   through :func:`computeatlas.cloud.runs.import_readings` (parse, place, rules, dedupe,
   write); then the same file again (everything already stored). Rows per second.
2. **Scale**: for each size, a synthetic history written straight as Parquet partitions
   (DuckDB; one partition per day over a year, 20 accelerators, 30 providers) with one run
   manifest. Then, in a fresh subprocess, server start (``create_app``) time and resident
   memory after it (VmRSS; ru_maxrss would carry the parent's peak across exec) — they must not grow with history — and in-process (Starlette's test
   client) the p50/p99 latency of ``/api/prices/{id}/current``, ``/api/prices/{id}/history``
   for the last 30 days, ``/cloud/prices/{id}/history?since=…`` (30 days), and the cached
   pages over the store — ``/cloud/prices/{id}`` and ``/cloud/`` — both rendered (the page
   cache emptied before each request) and served from the page cache.

Prints Markdown; copy it into benchmarks/README.md under "Prices".
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from computeatlas.cloud import rules  # noqa: E402
from computeatlas.cloud.instances import instance_table  # noqa: E402
from computeatlas.cloud.rates import RateTable  # noqa: E402
from computeatlas.cloud.runs import import_readings  # noqa: E402
from computeatlas.cloud.store import Store  # noqa: E402
from computeatlas.core.catalog import load  # noqa: E402

NOW = dt.datetime.now(dt.UTC).replace(microsecond=0)


def import_rate(folder: Path, rows: int = 10_000) -> str:
    catalog = load()
    table = instance_table(catalog)
    placed = [r for r in table.rows if r.billing.value == "all_in"][:40]
    path = folder / "synthetic.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["provider", "instance_type", "region", "pricing", "term", "amount", "currency", "unit", "accelerators",
                         "price_basis", "collected", "source_url", "source_title", "via", "availability", "note"])
        for i in range(rows):
            r = placed[i % len(placed)]
            when = (NOW - dt.timedelta(hours=i // 400)).strftime("%Y-%m-%dT%H:%M:%SZ")
            writer.writerow([r.provider, r.instance_type, f"region-{(i // len(placed)) % 10}", "on_demand", "", f"{2 + (i % 7) * 0.1:.2f}",
                             "USD", "hour", r.accelerators, "accelerator", when, "https://example.org/p", "synthetic", "", "", ""])
    store = Store(folder / "store")
    args = (table, RateTable([]), rules.Limits())
    start = time.perf_counter()
    first = import_readings("atlas", [path], store, *args)
    took = time.perf_counter() - start
    start = time.perf_counter()
    again = import_readings("atlas", [path], store, *args, now=NOW + dt.timedelta(seconds=1))
    took_again = time.perf_counter() - start
    return (f"| import {rows:,} new rows | {took:.2f} s | {rows / took:,.0f} rows/s | accepted {first.accepted}, held {first.held} |\n"
            f"| import the same file again | {took_again:.2f} s | {rows / took_again:,.0f} rows/s | added {again.accepted + again.held} |")


def synthetic_history(root: Path, size: int) -> None:
    (root / "observations").mkdir(parents=True)
    (root / "runs").mkdir()
    run = "20260101T000000000000Z-synthetic"
    with duckdb.connect() as con:
        con.execute("SET TimeZone = 'UTC'")
        con.execute(f"""
            COPY (
              SELECT 'provider-' || (i % 30) AS provider, 'instance-' || (i % 200) AS instance_type, 'region-' || (i % 7) AS region,
                     CASE WHEN i % 4 = 0 THEN 'spot' ELSE 'on_demand' END AS pricing, '' AS term,
                     8 * (2 + (i % 97) / 50.0) AS amount, 'USD' AS currency, 'hour' AS unit, 'instance' AS price_basis,
                     8 AS stated_accelerators, NULL::DOUBLE AS stated_memory_gb, NULL::DOUBLE AS stated_per_accelerator,
                     TIMESTAMPTZ '{NOW:%Y-%m-%d %H:%M:%S}+00' - to_seconds(CAST((i * 31536000) // {size} AS BIGINT)) AS collected,
                     'https://example.org/p' AS source_url, 'synthetic' AS source_title, 'benchmark' AS via, '' AS availability,
                     '' AS note, '' AS raw_extra,
                     CASE WHEN i % 20 = 0 THEN 'nvidia-h100-sxm' ELSE 'acc-' || (i % 20) END AS accelerator, 'sxm-80gb' AS variant,
                     8 AS accelerators, 'all_in' AS billing, 'accepted' AS status, []::VARCHAR[] AS rules, []::VARCHAR[] AS reasons,
                     []::VARCHAR[] AS qualifiers, (2 + (i % 97) / 50.0) AS per_accelerator_hour, '{run}' AS run,
                     CAST(collected AT TIME ZONE 'UTC' AS DATE) AS date
              FROM range({size}) t(i)
            ) TO '{root / "observations"}' (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (date), FILENAME_PATTERN 'part-{run}-{{i}}')
        """)
    (root / "runs" / f"{run}.json").write_text(json.dumps({"run": run, "format": "synthetic", "counts": {"read": size}}))


START = """
import json, sys, time
t = time.perf_counter()
from computeatlas.core.settings import Settings
from computeatlas.web.app import create_app
app = create_app(settings=Settings(prices=sys.argv[1]))
rss = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmRSS:"))
print(json.dumps({"start_s": time.perf_counter() - t, "rss_mb": rss / 1024}))
"""


def latencies(prices: Path) -> dict[str, tuple[float, float]]:
    from fastapi.testclient import TestClient

    from computeatlas.core.settings import Settings
    from computeatlas.web.app import create_app

    app = create_app(settings=Settings(prices=prices))
    client = TestClient(app)
    since = (NOW - dt.timedelta(days=30)).date().isoformat()
    urls = {"current": "/api/prices/nvidia-h100-sxm/current", "history 30 d (JSON)": f"/api/prices/nvidia-h100-sxm/history?since={since}",
            "history page 30 d": f"/cloud/prices/nvidia-h100-sxm/history?since={since}",
            "price page rendered": "/cloud/prices/nvidia-h100-sxm", "price page cached": "/cloud/prices/nvidia-h100-sxm",
            "/cloud/ rendered": "/cloud/", "/cloud/ cached": "/cloud/"}
    out = {}
    for name, url in urls.items():
        times = []
        client.get(url)  # the cached rows time a cache hit
        for _ in range(20):
            if "rendered" in name:
                app.state.cache.clear()
            start = time.perf_counter()
            assert client.get(url).status_code == 200
            times.append(time.perf_counter() - start)
        times.sort()
        out[name] = (statistics.median(times) * 1000, times[int(0.99 * (len(times) - 1))] * 1000)
    return out


def main(sizes: list[int]) -> None:
    print(f"Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, DuckDB {duckdb.__version__}\n")
    with tempfile.TemporaryDirectory() as folder:
        print("| import | time | rate | result |\n|---|---|---|---|")
        print(import_rate(Path(folder)))
    print("\n| observations | on disk | server start | RSS after start | current p50/p99 | history 30 d p50/p99 | history page p50/p99 "
          "| price page rendered | price page cached | /cloud/ rendered | /cloud/ cached |\n|---|---|---|---|---|---|---|---|---|---|---|")
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder) / "prices"
            synthetic_history(root, size)
            disk = sum(p.stat().st_size for p in root.rglob("*.parquet")) / 1e6
            started = json.loads(subprocess.run([sys.executable, "-c", START, str(root)], capture_output=True, text=True, check=True,
                                                env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout)
            lat = latencies(root)
            cells = " | ".join(f"{p50:.0f} / {p99:.0f} ms" for p50, p99 in lat.values())
            print(f"| {size:,} | {disk:.1f} MB | {started['start_s']:.2f} s | {started['rss_mb']:.0f} MB | {cells} |")


def imports(sizes: list[int]) -> None:
    """The import table alone, one synthetic file of each size in ``sizes`` (rows)."""
    print(f"Machine: {os.cpu_count()} CPUs, Python {sys.version.split()[0]}, DuckDB {duckdb.__version__}\n")
    print("| import | time | rate | result |\n|---|---|---|---|")
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            print(import_rate(Path(folder), size))


if __name__ == "__main__":
    if sys.argv[1:2] == ["import"]:
        imports([int(a) for a in sys.argv[2:]] or [10_000])
    else:
        main([int(a) for a in sys.argv[1:]] or [10_000, 1_000_000])

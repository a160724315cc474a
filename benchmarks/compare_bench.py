"""Comparison page latency on the real catalog and on synthetic catalogs 10× and 100× its size.

Run by hand: ``.venv/bin/python benchmarks/compare_bench.py`` (never in CI; nothing is
asserted). For each catalog it measures, in-process through the ASGI app (Starlette's
test client, so no network), the median and 90th-percentile latency of:

- the page of one pair, ``/compare/nvidia-h100-sxm-vs-nvidia-h200-sxm``;
- the page of six parts, ``/compare/?ids=…`` (canonical ids, so no redirect);
- ``computeatlas.silicon.comparison.build`` alone for the same six (no HTTP, no template).

The page cache is switched off for these runs (every request renders), because a cached
page costs the same at any catalog size and would hide the work. Synthetic catalogs are
written to a temporary folder by cloning every accelerator record under new ids
(``{id}-x{n}``, with its predecessor and aliases renamed to match), so the clones are
valid records that the alias index and every scan must carry.

Prints Markdown; copy it into benchmarks/README.md under "Comparisons".
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastapi.testclient import TestClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import synthetic

from computeatlas.catalog import Catalog, load
from computeatlas.silicon import comparison as compare
from computeatlas.web.app import create_app
from computeatlas.web.cache import PageCache

PAIR = "/compare/nvidia-h100-sxm-vs-nvidia-h200-sxm"
SIX = ["nvidia-h100-sxm", "nvidia-h200-sxm", "nvidia-b200", "amd-instinct-mi300x", "aws-trainium-3", "google-tpu-v7"]
RUNS = 300


def timed(call, runs: int = RUNS) -> list[float]:  # type: ignore[no-untyped-def]
    """Wall time of ``call()`` in milliseconds, ``runs`` times, after 20 warm-up calls."""
    for _ in range(20):
        call()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        out.append((time.perf_counter() - start) * 1000)
    return out


def p90(values: list[float]) -> float:
    return statistics.quantiles(values, n=10)[-1]


def measure(label: str, catalog: Catalog, load_s: float) -> list[str]:
    app = create_app(catalog)
    app.state.pages = PageCache(catalog.version, catalog.last_verified, app.state.cache, skip=("/",))  # render every time
    client = TestClient(app)
    six_url = "/compare/?ids=" + ",".join(SIX)
    for url in (PAIR, six_url):
        response = client.get(url, follow_redirects=False)
        assert response.status_code == 200, (url, response.status_code)

    def page(url: str):  # type: ignore[no-untyped-def]
        return lambda: client.get(url)

    rows = []
    for name, call in (
        ("pair page", page(PAIR)),
        ("6-part page", page(six_url)),
        ("`compare.build`, 6 parts", lambda: compare.build(catalog, SIX)),
    ):
        ms = timed(call)
        rows.append(f"| {label} | {len(catalog.accelerators)} | {load_s:.1f} | {name} | {statistics.median(ms):.2f} | {p90(ms):.2f} |")
    return rows


def main() -> None:
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
        f"{RUNS} requests each after 20 warm-up, page cache off; load average at start "
        f"{os.getloadavg()[0]:.1f}.\n"
    )
    print("| catalog | accelerators | load (s) | measure | median (ms) | p90 (ms) |\n|---|---|---|---|---|---|")
    start = time.perf_counter()
    real = load()
    for line in measure("real", real, time.perf_counter() - start):
        print(line, flush=True)
    for factor in (10, 100):
        with tempfile.TemporaryDirectory(prefix=f"atlas-x{factor}-") as tmp:
            folder = synthetic(factor, Path(tmp) / "data")
            start = time.perf_counter()
            catalog = load(folder)
            took = time.perf_counter() - start
            for line in measure(f"synthetic ×{factor}", catalog, took):
                print(line, flush=True)


if __name__ == "__main__":
    main()

"""Static build benchmark, run by hand (never in CI): full build time and pages per second.

Builds the bundled catalog, then a synthetic catalog with 10× its accelerators
(``benchmarks/synthetic.py``: every accelerator record cloned nine times under new ids,
aliases and predecessors renamed; the other records as they are), each ``RUNS`` times
into a temporary folder, in this process, and prints Markdown for benchmarks/README.md
("Static build").

    .venv/bin/python benchmarks/build_bench.py
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import synthetic  # noqa: E402

from computeatlas import load
from computeatlas.build import static as site

RUNS = 3


def measure(data: Path | None) -> tuple[int, int, list[float]]:
    catalog = load(data)
    times, pages = [], 0
    for _ in range(RUNS):
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            result = site.build(catalog, Path(tmp) / "out", "/atlas/", site_url="https://atlas.example.org")
            times.append(time.perf_counter() - start)
            pages = result.pages
    return len(catalog.accelerators), pages, times


def main() -> None:
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; {RUNS} builds each, in one process\n")
    print("| catalog | accelerators | files rendered | build time, median (s) | min–max (s) | pages/s (median) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, data in (("bundled", None), ("synthetic 10×", synthetic(10, Path(tmp) / "data"))):
            count, pages, times = measure(data)
            median = statistics.median(times)
            print(f"| {label} | {count} | {pages} | {median:.2f} | {min(times):.2f}–{max(times):.2f} | {pages / median:.0f} |")


if __name__ == "__main__":
    main()

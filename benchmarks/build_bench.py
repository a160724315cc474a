"""Static build benchmark, run by hand (never in CI): full build time and pages per second.

Builds the bundled catalog, then a synthetic catalog with 10× its accelerators (every
accelerator record copied nine times under new ids, aliases dropped; the other records
as they are), each ``RUNS`` times into a temporary folder, in this process, and prints
Markdown for benchmarks/README.md ("Static build").

    .venv/bin/python benchmarks/build_bench.py
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import tomli_w

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from computeatlas import load, site  # noqa: E402
from computeatlas.catalog import DEFAULT_DATA  # noqa: E402

RUNS = 3


def synthetic(folder: Path, factor: int = 10) -> Path:
    """A copy of the bundled data folder with ``factor``× the accelerators."""
    import shutil

    shutil.copytree(DEFAULT_DATA, folder)
    for path in sorted((folder / "accelerators").glob("*.toml")):
        record = tomllib.loads(path.read_text(encoding="utf-8"))
        for n in range(1, factor):
            copy = dict(record, id=f"{record['id']}-x{n}", name=f"{record['name']} (copy {n})", aliases=[])
            (path.parent / f"{copy['id']}.toml").write_text(tomli_w.dumps(copy), encoding="utf-8")
    return folder


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
        for label, data in (("bundled", None), ("synthetic 10×", synthetic(Path(tmp) / "data"))):
            count, pages, times = measure(data)
            median = statistics.median(times)
            print(f"| {label} | {count} | {pages} | {median:.2f} | {min(times):.2f}–{max(times):.2f} | {pages / median:.0f} |")


if __name__ == "__main__":
    main()

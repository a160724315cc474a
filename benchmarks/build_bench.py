"""Static build benchmark, run by hand (never in CI): full build time and pages per second,
or the CPU time of the build the test suite makes.

Builds the bundled catalog, then a synthetic catalog with 10× its accelerators
(``benchmarks/synthetic.py``: every accelerator record cloned nine times under new ids,
aliases and predecessors renamed; the other records as they are), each ``RUNS`` times
into a temporary folder, in this process, and prints Markdown for benchmarks/README.md
("Static build").

    .venv/bin/python benchmarks/build_bench.py

``--cpu [TREE ...]``: the CPU seconds (``time.process_time``, user + system of every
thread) of the bundled data's build with the arguments of ``tests/test_site.py``'s
``real_build`` (base path ``/atlas/``, a site URL and a live URL), each in a fresh
interpreter (imports and the first render of each template included, as in a test
session; the catalog load is not), ``RUNS`` rounds, the trees (source checkouts, default
this one) taken in turn in each round, so a change in the machine's load touches them
alike; then the CPU of the link check over the output (:func:`dead_links`).

    .venv/bin/python benchmarks/build_bench.py --cpu /path/to/main /path/to/branch
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import synthetic

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


CHILD = """
import json, sys, tempfile, time
from pathlib import Path
from computeatlas.build import static as site
from computeatlas.catalog import load
catalog = load()
with tempfile.TemporaryDirectory() as tmp:
    start = time.process_time()
    result = site.build(catalog, Path(tmp) / "out", "/atlas/", site_url="https://atlas.example.org",
                        live_url="https://live.atlas.example.org")
    build = time.process_time() - start
    start = time.process_time()
    dead = site.dead_links(result.out_dir, "/atlas/", "https://atlas.example.org")
    walk = time.process_time() - start
print(json.dumps({"build": build, "walk": walk, "files": len(result.files), "live": len(result.live), "dead": len(dead)}))
"""


def cpu(trees: list[Path]) -> None:
    """Print the CPU seconds of the test suite's real build for each source tree (see the module doc)."""
    got: dict[Path, list[dict[str, float]]] = {tree: [] for tree in trees}
    for _ in range(RUNS):
        for tree in trees:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            out = subprocess.run([sys.executable, "-c", CHILD], env=env, cwd=tree, capture_output=True, text=True, check=True)
            got[tree].append(json.loads(out.stdout.strip().splitlines()[-1]))
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; {RUNS} rounds, one build per process\n"
    )
    print("| tree | files | live paths | build CPU, median (s) | min–max (s) | link check CPU, median (s) |")
    print("|---|---|---|---|---|---|")
    for tree, runs in got.items():
        builds, walks = [r["build"] for r in runs], [r["walk"] for r in runs]
        print(
            f"| {tree.name} | {runs[0]['files']:.0f} | {runs[0]['live']:.0f} | {statistics.median(builds):.2f} | "
            f"{min(builds):.2f}–{max(builds):.2f} | {statistics.median(walks):.2f} |"
        )


def main() -> None:
    if "--cpu" in sys.argv:
        trees = [Path(a).resolve() for a in sys.argv[sys.argv.index("--cpu") + 1 :]] or [ROOT]
        cpu(trees)
        return
    print(
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; {RUNS} builds each, in one process\n"
    )
    print("| catalog | accelerators | files rendered | build time, median (s) | min–max (s) | pages/s (median) |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, data in (("bundled", None), ("synthetic 10×", synthetic(10, Path(tmp) / "data"))):
            count, pages, times = measure(data)
            median = statistics.median(times)
            print(f"| {label} | {count} | {pages} | {median:.2f} | {min(times):.2f}–{max(times):.2f} | {pages / median:.0f} |")


if __name__ == "__main__":
    main()

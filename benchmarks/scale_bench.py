"""How costs grow with the catalog: load, CSV export and a comparison page at 1×, 10×, 100×.

Run alone: ``.venv/bin/python benchmarks/scale_bench.py`` (``make bench`` runs it too).

For each factor a synthetic data folder is written by :func:`synthetic.synthetic` (the
bundled data with every accelerator cloned under new ids) and, in this process:

- catalog load: ``computeatlas.load(folder)``, warm (pint's registry already built);
- CSV export: what ``computeatlas export --format csv`` does after loading: build the
  silicon table and write the file;
- for load and export: wall and CPU time (``time.process_time``: what this process used,
  so time the machine gave to other processes does not count), CPU time again with the
  cyclic garbage collector paused (its full collections walk the whole heap, which grows
  with the catalog), and the number of Python function calls (cProfile's count: work
  that nothing else on the machine can change);
- comparison page: ``/compare/nvidia-h100-sxm-vs-nvidia-h200-sxm`` and the six-part
  ``/compare/?ids=…`` through the ASGI app in-process with the page cache off, so every
  request builds the comparison and renders it.

The cold load of the bundled catalog (a fresh interpreter, imports excluded) is measured
too. Growth is read as the exponent k in cost ∝ size^k between 10× and 100× (k = 1 is
linear; the 1× figure carries fixed costs — the other records, first-use caches — that
make growth from 1× look sub-linear), from the least CPU time at each size: on a shared
machine other processes only ever add time, so the minimum is the steadiest estimate.
"""

from __future__ import annotations

import cProfile
import gc
import math
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for entry in (str(ROOT), str(HERE)):
    if entry not in sys.path:
        sys.path.insert(0, entry)

from compare_bench import PAIR, SIX
from synthetic import synthetic

from computeatlas.catalog import Catalog, load
from computeatlas.publish.exports import (
    FORMATS,
    silicon_table,
)

FACTORS = (1, 10, 100)
LOAD_RUNS = {1: 7, 10: 5, 100: 3}
EXPORT_RUNS = {1: 7, 10: 5, 100: 5}
PAGE_REQUESTS = 60
LINEAR_MAX_EXPONENT = 1.15
"""Growth exponent (10× → 100×) up to which a cost counts as linear in catalog size."""


def cold_load_ms(runs: int = 5) -> list[float]:
    """Wall time of ``computeatlas.load()`` in fresh interpreters (imports excluded)."""
    code = "import time, computeatlas; t=time.perf_counter(); computeatlas.load(); print((time.perf_counter()-t)*1000)"
    return [float(subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True)) for _ in range(runs)]


def _seconds(call, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    """Wall time of ``call()``, ``runs`` times."""
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return out


def _timed(call, runs: int, collector: bool = True) -> tuple[list[float], list[float]]:  # type: ignore[no-untyped-def]
    """``(wall, cpu)`` seconds of ``call()``, ``runs`` times; CPU time (``time.process_time``) is what this
    process itself used, so it does not count time the machine gave to other processes."""
    wall, cpu = [], []
    if not collector:
        gc.disable()
    try:
        for _ in range(runs):
            w, c = time.perf_counter(), time.process_time()
            call()
            cpu.append(time.process_time() - c)
            wall.append(time.perf_counter() - w)
    finally:
        gc.enable()
    return wall, cpu


def python_calls(call) -> int:  # type: ignore[no-untyped-def]
    """Python function calls made by ``call()`` (cProfile's count): a measure of work that no other
    process on the machine can change, to tell growth in work from growth in time per call."""
    profiler = cProfile.Profile()
    profiler.runcall(call)
    return pstats.Stats(profiler).total_calls  # type: ignore[attr-defined]


def export_csv(catalog: Catalog, out: Path) -> int:
    """The CSV export after loading: build the table, write the file; return its size in bytes."""
    FORMATS["csv"](silicon_table.build(catalog), out)
    return out.stat().st_size


def page_ms(catalog: Catalog) -> dict[str, list[float]]:
    """Comparison pages rendered on every request (page cache off), in milliseconds."""
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app
    from computeatlas.web.cache import PageCache

    app = create_app(catalog)
    app.state.pages = PageCache(catalog.version, catalog.last_verified, app.state.cache, skip=("/",))  # render every time
    out: dict[str, list[float]] = {}
    with TestClient(app) as client:
        for name, url in (("pair", PAIR), ("six", "/compare/?ids=" + ",".join(SIX))):
            response = client.get(url, follow_redirects=False)
            assert response.status_code == 200, (url, response.status_code)
            for _ in range(5):
                client.get(url)
            out[name] = [t * 1000 for t in _seconds(lambda url=url: client.get(url), PAGE_REQUESTS)]
    return out


def exponent(small: float, large: float, ratio: float = 10.0) -> float:
    """k in cost ∝ size^k from two costs ``ratio``× apart in size."""
    return math.log(large / small) / math.log(ratio)


def measure(factors: tuple[int, ...] = FACTORS) -> dict[str, Any]:
    """Every figure of this benchmark as a dict."""
    load()  # pint's registry, imports
    results: dict[str, Any] = {"cold_load_ms": cold_load_ms(), "scales": []}
    for factor in factors:
        with tempfile.TemporaryDirectory(prefix=f"atlas-x{factor}-") as tmp:
            folder = synthetic(factor, Path(tmp) / "data")
            catalog = load(folder)
            csv_path = Path(tmp) / "silicon.csv"
            entry: dict[str, Any] = {"factor": factor, "accelerators": len(catalog.accelerators)}
            for name, call, runs in (
                ("load", lambda folder=folder: load(folder), LOAD_RUNS[factor]),
                ("export", lambda catalog=catalog, csv_path=csv_path: export_csv(catalog, csv_path), EXPORT_RUNS[factor]),
            ):
                entry[f"{name}_s"], entry[f"{name}_cpu_s"] = _timed(call, runs)
                _, entry[f"{name}_nogc_cpu_s"] = _timed(call, min(2, runs), collector=False)
                entry[f"{name}_calls"] = python_calls(call)
            entry["csv_bytes"] = csv_path.stat().st_size
            pages = page_ms(catalog)
            entry["pair_ms"], entry["six_ms"] = pages["pair"], pages["six"]
            results["scales"].append(entry)
            print(
                f"[bench] scale {factor}×: load {min(entry['load_cpu_s']):.2f} s CPU, export {min(entry['export_cpu_s']):.2f} s CPU, "
                f"pair page {statistics.median(pages['pair']):.1f} ms",
                file=sys.stderr,
                flush=True,
            )
            del catalog
    return results


def main() -> None:
    r = measure()
    print(f"cold load (ms): {statistics.median(r['cold_load_ms']):.0f}")
    for s in r["scales"]:
        print(
            s["factor"],
            s["accelerators"],
            *(f"{k} {min(s[k]):.3f}" for k in ("load_cpu_s", "export_cpu_s", "pair_ms", "six_ms")),
            "calls",
            s["load_calls"],
            s["export_calls"],
        )


if __name__ == "__main__":
    main()

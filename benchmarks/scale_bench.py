"""How costs grow with the catalog: load, CSV export and a comparison page at 1×, 10×, 100×.

Run alone: ``.venv/bin/python benchmarks/scale_bench.py`` (``make bench`` runs it too).

For each factor a synthetic data folder is written by :func:`synthetic.synthetic` (the
bundled data with every accelerator cloned under new ids) and, in this process:

- catalog load: ``computeatlas.load(folder)``, warm (pint's registry already built), and
  again with the cyclic garbage collector switched off (to tell its share of any growth);
- CSV export: what ``computeatlas export --format csv`` does after loading: build the
  silicon table and write the file;
- comparison page: ``/compare/nvidia-h100-sxm-vs-nvidia-h200-sxm`` and the six-part
  ``/compare/?ids=…`` through the ASGI app in-process with the page cache off, so every
  request builds the comparison and renders it.

The cold load of the bundled catalog (a fresh interpreter, imports excluded) is measured
too. Growth is read as the exponent k in cost ∝ size^k between 10× and 100× (k = 1 is
linear; the 1× figure carries fixed costs — the other records, first-use caches — that
make growth from 1× look sub-linear).
"""

from __future__ import annotations

import gc
import math
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

from compare_bench import PAIR, SIX  # noqa: E402
from synthetic import synthetic  # noqa: E402

from computeatlas.catalog import Catalog, load  # noqa: E402
from computeatlas.exports import FORMATS  # noqa: E402
from computeatlas.exports import silicon_table  # noqa: E402

FACTORS = (1, 10, 100)
LOAD_RUNS = {1: 7, 10: 5, 100: 3}
EXPORT_RUNS = {1: 7, 10: 5, 100: 3}
PAGE_REQUESTS = 60
LINEAR_MAX_EXPONENT = 1.15
"""Growth exponent (10× → 100×) up to which a cost counts as linear in catalog size."""


def cold_load_ms(runs: int = 5) -> list[float]:
    """Wall time of ``computeatlas.load()`` in fresh interpreters (imports excluded)."""
    code = "import time, computeatlas; t=time.perf_counter(); computeatlas.load(); print((time.perf_counter()-t)*1000)"
    return [float(subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True)) for _ in range(runs)]


def _seconds(call, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        out.append(time.perf_counter() - start)
    return out


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
    app.state.cache = PageCache(catalog.version, catalog.last_verified, skip=("/",))  # render every time
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
            loads = _seconds(lambda: load(folder), LOAD_RUNS[factor])
            gc.disable()  # the same loads without CPython's cyclic collector, to tell its share of any growth
            try:
                loads_nogc = _seconds(lambda: load(folder), min(2, LOAD_RUNS[factor]))
            finally:
                gc.enable()
            csv_path = Path(tmp) / "silicon.csv"
            exports = _seconds(lambda: export_csv(catalog, csv_path), EXPORT_RUNS[factor])
            pages = page_ms(catalog)
            results["scales"].append({
                "factor": factor, "accelerators": len(catalog.accelerators), "load_s": loads, "load_nogc_s": loads_nogc,
                "export_s": exports, "csv_bytes": csv_path.stat().st_size, "pair_ms": pages["pair"], "six_ms": pages["six"],
            })
            print(f"[bench] scale {factor}×: load {statistics.median(loads):.2f} s, export {statistics.median(exports):.2f} s, "
                  f"pair page {statistics.median(pages['pair']):.1f} ms", file=sys.stderr, flush=True)
            del catalog
    return results


def main() -> None:
    r = measure()
    print(f"cold load (ms): {statistics.median(r['cold_load_ms']):.0f}")
    for s in r["scales"]:
        print(s["factor"], s["accelerators"], *(f"{k} {statistics.median(s[k]):.3f}" for k in ("load_s", "export_s", "pair_ms", "six_ms")))


if __name__ == "__main__":
    main()

"""The benchmark's own parts, fast enough for ``make test``: each of these failed silently in a
real ``make bench`` run (the growth part refused its synthetic catalog, the render part's loop
rendered another page than the app's, a peer that answered nothing still ended in 'met')."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from computeatlas.catalog import Catalog, check

BENCHMARKS = Path(__file__).parent.parent / "benchmarks"
if str(BENCHMARKS) not in sys.path:
    sys.path.insert(0, str(BENCHMARKS))

import render_bench  # noqa: E402
import report  # noqa: E402
from synthetic import synthetic  # noqa: E402


def test_the_synthetic_catalog_at_twice_the_size_validates(tmp_path: Path) -> None:
    folder = synthetic(2, tmp_path / "data")
    catalog, problems = check(folder)
    assert [str(p) for p in problems] == []
    # every clone carries its own part numbers (Intel's Gaudi HL-205 named two ids before)
    assert catalog.accelerator("intel-gaudi-x1").part_numbers == [f"{n} x1" for n in catalog.accelerator("intel-gaudi").part_numbers]
    assert len(catalog.accelerators) == 2 * len(check(None)[0].accelerators)


def test_the_render_loop_renders_what_the_app_serves(real_catalog: Catalog) -> None:
    pages = {"/silicon/", "/silicon/aws-trainium-3", "/silicon/nvidia-h100-sxm"}
    assert render_bench.check_same(real_catalog, only=pages) == 3


def _run(datasette_rps: float, nginx_rps: float = 20_000.0, failed: dict[str, str] | None = None) -> dict[str, Any]:
    def served(rps: float) -> dict[str, Any]:
        return {"runs": [{"rps": rps}, {"rps": rps}, {"rps": rps}]}

    ours = {"table": served(900.0), "accelerator": served(3_000.0)}
    return {
        "http": {
            "servers": {
                "ours-1w": ours,
                "ours-2w": ours,
                "datasette": {"table": served(datasette_rps), "accelerator": served(datasette_rps)},
                "nginx": {"accelerator": served(nginx_rps)},
            }
        },
        "scale": {
            "scales": [
                {
                    "factor": f,
                    "load_cpu_s": [f * 0.01],
                    "load_nogc_cpu_s": [f * 0.01],
                    "load_calls": f * 1000,
                    "export_cpu_s": [f * 0.02],
                    "export_nogc_cpu_s": [f * 0.02],
                    "export_calls": f * 2000,
                }
                for f in (1, 10, 100)
            ]
        },
        "failed": failed or {},
    }


def test_a_peer_that_answers_nothing_is_not_measured_never_met() -> None:
    rows = report.targets(_run(datasette_rps=0.0))
    by = {label: (text, ok) for label, text, ok in rows}
    text, ok = by["accelerator page ≥ 50× Datasette's row page (requests/s)"]
    assert ok is None and "datasette answered 0 requests/s" in text
    assert report.verdict(_run(0.0), rows).startswith("Not every target was met")
    healthy = _run(datasette_rps=10.0)
    assert report.verdict(healthy, report.targets(healthy)) == "Every target was met in this run."  # 3,000 ÷ 10 = 300×, 900 ÷ 10 = 90×


def test_a_part_that_failed_makes_the_verdict_say_so() -> None:
    run = _run(10.0, failed={"render": "AssertionError: the Jinja2 loop does not render what the app serves for /silicon/"})
    run["scale"] = {}
    rows = report.targets(run)
    assert [ok for label, _, ok in rows if "linear" in label] == [None, None]
    said = report.verdict(run, rows)
    assert "parts that failed: render" in said and "not measured: catalog load linear" in said


def test_a_missed_peer_ratio_without_a_profile_is_reported_not_a_crash() -> None:
    slow = _run(datasette_rps=200.0)  # 3,000 ÷ 200 = 15×, below the 50× asked; no py-spy profile in the run
    text = "\n".join(report._why(slow, report.targets(slow)))  # the verdict and its reasons, without the machine's table
    assert "missed: accelerator page ≥ 50× Datasette's row page (requests/s)" in text
    assert "No profile: py-spy was not available." in text

"""``make bench``: Compute Atlas against the tools a user would pick instead, in one run.

Never part of ``make test``; loopback only; about 10 minutes on a 2-core machine (the
whole run must stay under 20). Steps, all in one run so every ratio compares figures
taken minutes apart on the same machine:

1. peers (:mod:`peers`): Datasette and py-spy in ``benchmarks/.peers/venv``
   (gitignored, never a project dependency); Debian's nginx and wrk via apt-get if missing;
2. inputs, with our own CLI: ``computeatlas export --format sqlite`` (for Datasette),
   ``--format csv`` and ``computeatlas build OUT --no-check`` (for nginx);
3. HTTP (:mod:`http_bench`): ours (1 and 2 workers) vs Datasette vs nginx, wrk with 32
   connections, warm-up, ``BENCH_REPS`` interleaved rounds of ``BENCH_SECONDS`` s; then a
   py-spy profile of our server under load;
4. rendering (:mod:`render_bench`): the static build vs a plain Jinja2 loop over the same pages;
5. growth (:mod:`scale_bench`): catalog load, CSV export and comparison pages at 1×, 10×,
   100× the catalog (:mod:`synthetic`), and a py-spy profile of load and export at 100×;
6. ``benchmarks/RESULTS.md`` written from the figures (raw figures and profiles kept in
   ``benchmarks/.peers/last-run/``).

    .venv/bin/python benchmarks/run.py [--results PATH]
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib.metadata as md
import json
import os
import platform
import shutil
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

import http_bench
import peers
import render_bench
import report
import scale_bench
from synthetic import synthetic

BIN = Path(sys.executable).parent
BUDGET_S = 20 * 60
KEEP = peers.PEERS_DIR / "last-run"


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def machine() -> dict[str, Any]:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = next(int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal"))
    except (OSError, StopIteration):
        mem_kb = 0
    return {
        "arch": platform.machine(),
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
    }


def versions(found: peers.Peers) -> dict[str, str]:
    def pkg(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "not installed"

    out = {"python": platform.python_version()}
    for name in ("computeatlas", "uvicorn", "fastapi", "starlette", "h11", "jinja2", "pydantic", "uvloop", "httptools"):
        out[name] = pkg(name)
    out["datasette"] = peers.version([str(found.datasette), "--version"]) if found.datasette else "not installed"
    out["nginx"] = peers.version([str(found.nginx), "-v"]) if found.nginx else "not installed"
    out["wrk"] = peers.version([str(found.wrk), "-v"]) if found.wrk else "not installed"
    out["py-spy"] = peers.version([str(found.py_spy), "--version"]) if found.py_spy else "not installed"
    return out


def cli(*args: str) -> float:
    """Run ``computeatlas ARGS`` (output discarded); return its wall time in seconds."""
    start = time.perf_counter()
    subprocess.run([str(BIN / "computeatlas"), *args], cwd=ROOT, check=True, stdout=subprocess.DEVNULL, timeout=600)
    return time.perf_counter() - start


PROFILE_CODE = """
import pathlib, computeatlas
from computeatlas.publish.exports import FORMATS, silicon_table
computeatlas.load()
def load_synthetic():
    return computeatlas.load(pathlib.Path({folder!r}))
def export_csv(catalog):
    FORMATS["csv"](silicon_table.build(catalog), pathlib.Path({out!r}))
export_csv(load_synthetic())
"""


def profile_growth(py_spy: Path, factor: int, work: Path) -> dict[str, Any]:
    """py-spy (200 Hz) over a fresh interpreter that loads the ``factor``× catalog and exports its CSV."""
    folder = synthetic(factor, work / f"data-x{factor}")
    out = KEEP / f"profile-load-export-x{factor}.txt"
    code = PROFILE_CODE.format(folder=str(folder), out=str(work / f"x{factor}.csv"))
    subprocess.run(
        [str(py_spy), "record", "--rate", "200", "--format", "raw", "--output", str(out), "--", sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        check=True,
        timeout=600,
    )
    shutil.rmtree(folder, ignore_errors=True)
    result: dict[str, Any] = {"factor": factor, "file": out.name}
    for part, frame in (("load", "load_synthetic (<string>"), ("export", "export_csv (<string>")):
        result[part] = http_bench.summarise_profile(out, top=12, layers=http_bench.LOAD_LAYERS, within=frame)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--results", type=Path, default=HERE / "RESULTS.md", help="Markdown file to write (default benchmarks/RESULTS.md).")
    args = parser.parse_args()

    started = time.monotonic()
    run: dict[str, Any] = {"date": dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC"), "load_start": os.getloadavg(), "timings": {}}
    found = peers.ensure()
    run["machine"], run["versions"] = machine(), versions(found)
    KEEP.mkdir(parents=True, exist_ok=True)
    for old in KEEP.iterdir():
        old.unlink()

    def step(name: str) -> None:
        run["timings"][name] = round(time.monotonic() - started, 1)
        log(f"{name} ({run['timings'][name]:.0f} s since start)")

    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as tmp:
        work = Path(tmp)
        step("inputs")
        db, csv_file, site_dir = work / "silicon.db", work / "silicon.csv", work / "site"
        run["inputs"] = {
            "export_sqlite_s": cli("export", "--format", "sqlite", "--out", str(db)),
            "export_csv_s": cli("export", "--format", "csv", "--out", str(csv_file)),
            "build_s": cli("build", str(site_dir), "--no-check"),
        }
        shutil.copy(csv_file, site_dir / "silicon.csv")
        for name, call in (
            ("http", lambda: http_bench.measure(found, work, site_dir, db, KEEP)),
            ("render", render_bench.measure),
            ("scale", scale_bench.measure),
        ):
            step(name)
            try:
                run[name] = call()
            except Exception as exc:  # one part failing (say, the data folder mid-edit) must not lose the others
                log(f"{name} failed: {exc!r}")
                run["failed"] = {**run.get("failed", {}), name: f"{type(exc).__name__}: {' / '.join(str(exc).splitlines())[:400]}"}
            if name == "http":
                run["load_after_http"] = os.getloadavg()
        if found.py_spy:
            step("profile-growth")
            try:
                run["growth_profile"] = profile_growth(found.py_spy, 100, work)
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
                run["growth_profile_error"] = str(exc)
    run["load_end"] = os.getloadavg()
    run["elapsed_s"] = round(time.monotonic() - started, 1)
    (KEEP / "results.json").write_text(json.dumps(run, indent=1, default=str), encoding="utf-8")
    text = report.markdown(run)
    args.results.write_text(text, encoding="utf-8")
    print(text)
    log(f"wrote {args.results} in {run['elapsed_s'] / 60:.1f} min")
    if run["elapsed_s"] > BUDGET_S:
        log(f"over the {BUDGET_S // 60}-minute budget")


if __name__ == "__main__":
    main()

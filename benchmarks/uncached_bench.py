"""Compute Atlas without its page cache: CPU per page against Datasette, and the cold load.

Run by hand (never part of ``make test``), loopback only, a few minutes::

    .venv/bin/python benchmarks/uncached_bench.py            # prints Markdown and writes JSON
    .venv/bin/python benchmarks/uncached_bench.py --profile  # adds cProfile's top entries

1. **CPU per page over HTTP, page cache off.** Our app is served by uvicorn exactly as
   ``computeatlas serve`` does (one worker), but with a page cache that keeps nothing, so
   every request builds the page's data and renders its template. Datasette 0.65 (installed
   by ``peers.py`` in ``benchmarks/.peers/venv``) serves ``computeatlas export --format
   sqlite`` in immutable mode. For each page a client sends requests one at a time over one
   keep-alive connection and we read the *server process's* CPU time (user + system, from
   ``/proc/PID/stat``) before and after: CPU per request, HTTP parsing and the framework
   included, which other processes on a shared machine cannot inflate (only the clock-tick
   resolution, 10 ms over a few hundred requests, limits it). Rounds are interleaved (every
   page of every server once per round) and the median round is reported with its min–max.
   Pages: the accelerator page (ours ``/silicon/aws-trainium-3``, Datasette's row page
   ``/silicon/accelerators/aws-trainium-3``) and the table (ours ``/silicon/``, Datasette's
   table page ``/silicon/accelerators``, 100 rows per page, so all 31).
2. **The same pages in-process**: the handler called directly (no HTTP, no framework), CPU
   per call, to split our time into building the view and rendering the template.
3. **Cold load**: a fresh interpreter imports ``computeatlas`` and then times
   ``computeatlas.load(folder)`` (wall and CPU; the domain modules' import on first use is
   inside it, as in ``scale_bench.py``), for the bundled data (31 accelerators) and for a
   synthetic catalog of exactly 100 accelerators (:func:`synthetic.synthetic_parts`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
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

ACCELERATOR = "aws-trainium-3"
PAGES = {
    "accelerator page": {"ours": f"/silicon/{ACCELERATOR}", "datasette": f"/silicon/accelerators/{ACCELERATOR}"},
    "table page": {"ours": "/silicon/", "datasette": "/silicon/accelerators"},
}
TICK = os.sysconf("SC_CLK_TCK")


def serve_uncached(port: int) -> None:
    """Serve the app as ``computeatlas serve`` does (uvicorn, one worker), with a page cache
    that keeps nothing: every request builds and renders its page."""
    import uvicorn

    from computeatlas.web.app import create_app
    from computeatlas.web.cache import PageCache

    app = create_app()
    catalog = app.state.catalog
    app.state.pages = PageCache(catalog.version, catalog.last_verified, app.state.cache, skip=("/",))
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def _wait(port: int, path: str, process: subprocess.Popen, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server on port {port} exited with {process.returncode}")
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", path)
            if connection.getresponse().status == 200:
                connection.close()
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise RuntimeError(f"server on port {port} did not answer {path}")


def _requests(port: int, path: str, count: int) -> tuple[float, int]:
    """``count`` GETs of ``path`` one at a time on one keep-alive connection; wall seconds and body size."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    size = 0
    start = time.perf_counter()
    for _ in range(count):
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        if response.status != 200:
            raise RuntimeError(f"{path}: HTTP {response.status}")
        size = len(body)
    wall = time.perf_counter() - start
    connection.close()
    return wall, size


def http_cpu(rounds: int, count: int) -> dict[str, Any]:
    """CPU ms per request of each page on each server, interleaved rounds."""
    from peers import ensure

    servers: dict[str, tuple[subprocess.Popen, int]] = {}
    work = Path(tempfile.mkdtemp(prefix="uncached-bench-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPUTEATLAS_")}
    env["COMPUTEATLAS_VAR"] = str(work / "var")
    peers = ensure()
    try:
        port = _free_port()
        servers["ours"] = (subprocess.Popen([sys.executable, __file__, "--serve", str(port)], cwd=ROOT, env=env), port)
        _wait(port, "/healthz", servers["ours"][0])
        if peers.datasette is not None:
            db = work / "silicon.db"
            subprocess.run(
                [sys.executable, "-c", "from computeatlas.cli import main; main()", "export", "--format", "sqlite", "--out", str(db)],
                cwd=ROOT,
                env=env,
                check=True,
                capture_output=True,
            )
            port = _free_port()
            argv = [str(peers.datasette), "serve", "-i", str(db), "-h", "127.0.0.1", "-p", str(port)]
            servers["datasette"] = (subprocess.Popen(argv, cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL), port)
            _wait(port, "/-/versions.json", servers["datasette"][0])
        samples: dict[str, dict[str, list[float]]] = {page: {name: [] for name in servers} for page in PAGES}
        walls: dict[str, dict[str, list[float]]] = {page: {name: [] for name in servers} for page in PAGES}
        sizes: dict[str, dict[str, int]] = {page: {} for page in PAGES}
        for urls in PAGES.values():  # warm-up
            for name, (_, port) in servers.items():
                _requests(port, urls[name], 30)
        for _ in range(rounds):
            for page, urls in PAGES.items():
                for name, (process, port) in servers.items():
                    before = _cpu_seconds(process.pid)
                    wall, size = _requests(port, urls[name], count)
                    samples[page][name].append((_cpu_seconds(process.pid) - before) / count * 1000)
                    walls[page][name].append(wall / count * 1000)
                    sizes[page][name] = size
        return {
            "rounds": rounds,
            "requests_per_round": count,
            "urls": {page: {name: PAGES[page][name] for name in servers} for page in PAGES},
            "cpu_ms": samples,
            "wall_ms": walls,
            "bytes": sizes,
            "datasette": peers.datasette is not None,
        }
    finally:
        for process, _ in servers.values():
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def in_process(calls: int, profile: bool) -> dict[str, Any]:
    """CPU ms per call of the handlers' two halves: the view, and the rendered page."""
    from starlette.requests import Request

    from computeatlas.catalog import load
    from computeatlas.pages.accelerator import accelerator_view
    from computeatlas.web import silicon
    from computeatlas.web.app import create_app

    catalog = load()
    app = create_app(catalog)

    def request(path: str) -> Request:
        return Request(
            {
                "type": "http",
                "method": "GET",
                "scheme": "http",
                "path": path,
                "raw_path": path.encode(),
                "query_string": b"",
                "root_path": "",
                "headers": [(b"host", b"localhost")],
                "server": ("localhost", 80),
                "app": app,
            }
        )

    acc = catalog.accelerators[ACCELERATOR]
    jobs = {
        "accelerator page: view only": lambda: accelerator_view(catalog, acc),
        "accelerator page: handler (view + citation + render)": lambda: silicon.silicon_page(
            request(f"/silicon/{ACCELERATOR}"), ACCELERATOR
        ),
        "table page: handler (rows + charts + render)": lambda: silicon.silicon_index(request("/silicon/")),
    }
    out: dict[str, Any] = {}
    for name, job in jobs.items():
        for _ in range(20):
            job()
        times = []
        for _ in range(calls):
            start = time.process_time()
            job()
            times.append(time.process_time() - start)
        out[name] = {"min": min(times) * 1000, "median": statistics.median(times) * 1000}
    if profile:
        import cProfile
        import io
        import pstats

        for name in ("accelerator page: handler (view + citation + render)", "table page: handler (rows + charts + render)"):
            profiler = cProfile.Profile()
            profiler.enable()
            for _ in range(100):
                jobs[name]()
            profiler.disable()
            text = io.StringIO()
            pstats.Stats(profiler, stream=text).sort_stats("tottime").print_stats(15)
            out[f"profile: {name}"] = text.getvalue()
    return out


COLD = (
    "import sys, time, computeatlas\n"
    "w, c = time.perf_counter(), time.process_time()\n"
    "catalog = computeatlas.load(sys.argv[1] if len(sys.argv) > 1 else None)\n"
    "print((time.perf_counter() - w) * 1000, (time.process_time() - c) * 1000, len(catalog.accelerators), 'pint' in sys.modules)\n"
)
COLD_PROFILE = (
    "import sys, cProfile, pstats, computeatlas\n"
    "p = cProfile.Profile(); p.enable(); computeatlas.load(sys.argv[1]); p.disable()\n"
    "pstats.Stats(p).sort_stats('cumulative').print_stats(25)\n"
)


def cold_load(runs: int, profile: bool) -> dict[str, Any]:
    """Cold ``load`` of the bundled data and of 100 accelerators, each in fresh interpreters."""
    from synthetic import synthetic_parts

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folders = {"bundled": None, "100 parts": synthetic_parts(100, Path(tmp) / "data")}
        for name, folder in folders.items():
            argv = [sys.executable, "-c", COLD] + ([str(folder)] if folder else [])
            rows = [subprocess.check_output(argv, cwd=ROOT, text=True).split() for _ in range(runs)]
            out[name] = {
                "accelerators": int(rows[0][2]),
                "wall_ms": [float(r[0]) for r in rows],
                "cpu_ms": [float(r[1]) for r in rows],
                "pint_imported": rows[0][3] == "True",
            }
        if profile:
            out["profile: 100 parts"] = subprocess.check_output(
                [sys.executable, "-c", COLD_PROFILE, str(folders["100 parts"])], cwd=ROOT, text=True
            )
    return out


def _span(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}–{max(values):.2f})"


def report(result: dict[str, Any]) -> str:
    """The figures as Markdown, for benchmarks/RESULTS.md."""
    lines: list[str] = []
    web = result["http"]
    lines += [
        f"CPU per request of the server process over HTTP, page cache off: {web['rounds']} interleaved rounds of "
        f"{web['requests_per_round']} requests per page and server, one at a time on one keep-alive connection; "
        "median round (min–max).",
        "",
        "| page | server | URL | body | CPU ms per request | wall ms per request | ours ÷ Datasette (CPU) |",
        "|---|---|---|---|---|---|---|",
    ]
    for page in PAGES:
        for name in web["cpu_ms"][page]:
            ratio = ""
            if name == "ours" and "datasette" in web["cpu_ms"][page]:
                ratio = f"{statistics.median(web['cpu_ms'][page]['ours']) / statistics.median(web['cpu_ms'][page]['datasette']):.2f}×"
            label = "Compute Atlas, page cache off" if name == "ours" else "Datasette 0.65.5"
            lines.append(
                f"| {page} | {label} | `{web['urls'][page][name]}` | {web['bytes'][page][name] / 1024:.1f} KiB | "
                f"{_span(web['cpu_ms'][page][name])} | {_span(web['wall_ms'][page][name])} | {ratio} |"
            )
    lines += ["", "In-process, no HTTP (CPU ms per call, least and median of the calls):", "", "| what | least | median |", "|---|---|---|"]
    for name, figures in result["in_process"].items():
        if not name.startswith("profile"):
            lines.append(f"| {name} | {figures['min']:.2f} | {figures['median']:.2f} |")
    cold = result["cold"]
    lines += [
        "",
        "Cold load (`computeatlas.load` in a fresh interpreter after `import computeatlas`), "
        f"{len(cold['bundled']['wall_ms'])} runs each, median (min–max):",
        "",
        "| catalog | accelerators | wall ms | CPU ms | pint imported |",
        "|---|---|---|---|---|",
    ]
    for name in ("bundled", "100 parts"):
        row = cold[name]
        lines.append(
            f"| {name} | {row['accelerators']} | {_span(row['wall_ms'])} | {_span(row['cpu_ms'])} | {'yes' if row['pint_imported'] else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--serve", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument("--profile", action="store_true", help="add cProfile's top entries")
    parser.add_argument("--json", type=Path, default=HERE / ".peers" / "uncached.json")
    args = parser.parse_args()
    if args.serve:
        serve_uncached(args.serve)
        return
    load_before = os.getloadavg()[0]
    result = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "http": http_cpu(args.rounds, args.requests),
        "in_process": in_process(300, args.profile),
        "cold": cold_load(args.cold_runs, args.profile),
    }
    result["load_average"] = [load_before, os.getloadavg()[0]]
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1))
    print(f"date {result['date']}, load average (1 min) at start / end: {load_before:.2f} / {result['load_average'][1]:.2f}\n")
    print(report(result))
    for key in ("in_process", "cold"):
        for name, value in result[key].items():
            if name.startswith("profile"):
                print(f"\n### {name}\n\n```\n{value}\n```")


if __name__ == "__main__":
    main()

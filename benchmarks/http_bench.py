"""Our server against Datasette and nginx over HTTP, on loopback, in one run.

Servers (each on a free 127.0.0.1 port, all started before the first measurement and
stopped at the end; each killed by its own process group id):

- ``ours-1w`` / ``ours-2w``: ``computeatlas serve`` as ``make run`` starts it (uvicorn, no
  reload, access log off), with ``--workers 1`` and ``--workers 2``;
- ``ours-2w-nodelay``: the same with 2 workers, launched through ``serve_nodelay.py``,
  which only marks uvicorn's pre-bound listening socket as TCP so that connections get
  ``TCP_NODELAY`` (uvicorn issue #3149): a what-if, table and accelerator pages only;
- ``datasette``: Datasette serving ``computeatlas export --format sqlite``, immutable
  (``-i``, its recommended mode for a read-only file), default settings;
- ``nginx``: Debian's nginx serving ``computeatlas build OUT --no-check`` (plus the
  exported CSV) from a generated ``nginx.conf`` in a temporary folder
  (``worker_processes auto``, sendfile, access log off).

What each measures (``TARGETS``): the table page, one accelerator page, and the table as
data. Our live server has no GET for the CSV (``/data/`` answers it to a form post), so
for us "data" is ``/api/accelerators`` (the table as JSON); Datasette's is its full CSV
(``accelerators.csv?_size=max``); nginx serves both the exported CSV and the static
build's copy of ``/api/accelerators`` (the same JSON document as ours).

Load: wrk, 2 threads, 32 connections, a warm-up per URL, then ``REPS`` rounds; a round
runs every URL once (interleaved, so a change in the machine's background load touches
every server alike). The client shares the 2 cores with the servers, as it would for
anyone repeating this on a laptop. Medians and min–max over the rounds. Then each
server's accelerator page over one keep-alive connection (``wrk -c1``: the latency of a
request alone), and a py-spy profile of ``ours-1w`` under the same load as above.
"""

from __future__ import annotations

import math
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
BIN = Path(sys.executable).parent

CONNECTIONS = 32
THREADS = 2
SECONDS = int(os.environ.get("BENCH_SECONDS", "5"))
WARMUP = 3
REPS = int(os.environ.get("BENCH_REPS", "3"))
PROFILE_SECONDS = 6

ACCELERATOR = "aws-trainium-3"
TARGETS: dict[str, dict[str, str]] = {
    "ours-1w": {"table": "/silicon/", "accelerator": f"/silicon/{ACCELERATOR}", "data": "/api/accelerators"},
    "ours-2w": {"table": "/silicon/", "accelerator": f"/silicon/{ACCELERATOR}", "data": "/api/accelerators"},
    "ours-2w-nodelay": {"table": "/silicon/", "accelerator": f"/silicon/{ACCELERATOR}"},
    "datasette": {
        "table": "/silicon/accelerators",
        "accelerator": f"/silicon/accelerators/{ACCELERATOR}",
        "data": "/silicon/accelerators.csv?_size=max",
    },
    "nginx": {
        "table": "/silicon/",
        "accelerator": f"/silicon/{ACCELERATOR}",
        "data": "/silicon.csv",
        "data-json": "/api/accelerators.json",
    },
}
WHAT = {
    "ours-1w": {"data": "JSON, /api/accelerators (31 rows, the API's summary fields)"},
    "datasette": {"data": "CSV, every row and column (accelerators.csv?_size=max)"},
    "nginx": {"data": "CSV, the file `computeatlas export --format csv` writes", "data-json": "JSON, the static build's /api/accelerators"},
}


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    name: str
    argv: list[str]
    port: int
    ready_path: str
    cwd: Path = ROOT
    env: dict[str, str] = field(default_factory=dict)
    proc: subprocess.Popen[bytes] | None = None
    log_path: Path | None = None

    def start(self, logs: Path) -> None:
        self.log_path = logs / f"{self.name}.log"
        with open(self.log_path, "wb") as out:
            self.proc = subprocess.Popen(
                self.argv,
                cwd=self.cwd,
                env={**os.environ, **self.env},
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # its own process group: stopping it stops its workers, and nothing else
            )

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited: {self.log_path.read_text(errors='replace')[-2000:]}")  # type: ignore[union-attr]
            try:
                with urllib.request.urlopen(self.url(self.ready_path), timeout=5) as response:
                    if response.status == 200:
                        return
            except OSError:
                time.sleep(0.2)
        raise RuntimeError(f"{self.name} did not answer on port {self.port} within {timeout} s")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGTERM)  # the group we created for this server only
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=5)
        except ProcessLookupError:
            pass


NGINX_CONF = """\
worker_processes auto;
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/nginx-error.log warn;
events {{ worker_connections 1024; }}
http {{
    {types}
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    client_body_temp_path {tmp}/client_body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    server {{
        listen 127.0.0.1:{port};
        root {root};
        index index.html;
        # a page is published at its folder (silicon/aws-trainium-3/index.html); serve it at
        # the live site's URL without a redirect, as a static host's pretty URLs do
        location / {{ try_files $uri $uri/index.html =404; }}
    }}
}}
"""


def nginx_server(nginx: Path, root: Path, tmp: Path) -> Server:
    port = free_port()
    types = (
        "include /etc/nginx/mime.types;"
        if Path("/etc/nginx/mime.types").is_file()
        else ("types { text/html html; text/css css; application/json json; text/csv csv; image/svg+xml svg; }")
    )
    conf = tmp / "nginx.conf"
    conf.write_text(NGINX_CONF.format(tmp=tmp, types=types, port=port, root=root), encoding="utf-8")
    return Server("nginx", [str(nginx), "-p", str(tmp), "-c", str(conf), "-e", str(tmp / "nginx-error.log")], port, "/silicon/")


def ours(workers: int, var: Path, nodelay: bool = False) -> Server:
    """``computeatlas serve``; with ``nodelay`` through :mod:`serve_nodelay` (the what-if for uvicorn #3149)."""
    port = free_port()
    command = [str(BIN / "python"), str(HERE / "serve_nodelay.py")] if nodelay else [str(BIN / "computeatlas")]
    argv = [*command, "serve", "--host", "127.0.0.1", "--port", str(port), "--workers", str(workers)]
    name = f"ours-{workers}w" + ("-nodelay" if nodelay else "")
    return Server(name, argv, port, "/healthz", env={"COMPUTEATLAS_VAR": str(var)})


def datasette(datasette_bin: Path, db: Path) -> Server:
    port = free_port()
    argv = [str(datasette_bin), "serve", "-i", str(db), "-h", "127.0.0.1", "-p", str(port)]
    return Server("datasette", argv, port, "/-/versions.json", cwd=db.parent)


# --- wrk -------------------------------------------------------------------------------

_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0, "m": 60000.0}


def _ms(text: str) -> float:
    match = re.fullmatch(r"([\d.]+)(us|ms|s|m)", text.strip())
    if not match:
        raise ValueError(f"wrk latency {text!r}")
    return float(match[1]) * _UNITS[match[2]]


def wrk(wrk_bin: Path, url: str, seconds: int, connections: int = CONNECTIONS, threads: int = THREADS) -> dict[str, Any]:
    argv = [str(wrk_bin), f"-t{threads}", f"-c{connections}", f"-d{seconds}s", "--timeout", "30s", "--latency", url]
    text = subprocess.run(argv, capture_output=True, text=True, check=True, timeout=seconds + 60).stdout
    get = lambda pattern: re.search(pattern, text)
    errors = get(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
    non2xx = get(r"Non-2xx or 3xx responses: (\d+)")
    return {
        "rps": float(get(r"Requests/sec:\s+([\d.]+)")[1]),  # type: ignore[index]
        "p50_ms": _ms(get(r"\s50%\s+(\S+)")[1]),  # type: ignore[index]
        "p99_ms": _ms(get(r"\s99%\s+(\S+)")[1]),  # type: ignore[index]
        "requests": int(get(r"(\d+) requests in")[1]),  # type: ignore[index]
        "non2xx": int(non2xx[1]) if non2xx else 0,
        "socket_errors": sum(int(n) for n in errors.groups()) if errors else 0,
    }


def bound_socket_proto() -> int:
    """``proto`` of the listening socket uvicorn binds for ``--workers N`` (0: accepted sockets get no TCP_NODELAY)."""
    code = "import uvicorn; s = uvicorn.Config('x:y', host='127.0.0.1', port=0, log_level='error').bind_socket(); print(s.proto); s.close()"
    return int(subprocess.run([str(BIN / "python"), "-c", code], capture_output=True, text=True, check=True).stdout)


def body_size(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=60) as response:
        return len(response.read()), response.headers.get("content-type", "")


# --- profile ----------------------------------------------------------------------------

LAYERS = (
    ("asyncio/selector_events", "socket send/receive (asyncio transport, syscalls)"),
    ("h11/", "HTTP/1.1 parsing and writing in pure Python (h11)"),
    ("uvicorn/protocols", "uvicorn's h11 protocol glue"),
    ("uvicorn/", "uvicorn, other"),
    ("starlette/middleware/base.py", "Starlette BaseHTTPMiddleware (web/app.py's @app.middleware('http'))"),
    ("starlette/_utils.py", "Starlette BaseHTTPMiddleware (web/app.py's @app.middleware('http'))"),
    ("anyio/", "anyio task groups, streams, cancel scopes (under BaseHTTPMiddleware)"),
    ("starlette/", "Starlette, other (routing, Request/Response, error middleware)"),
    ("fastapi/", "FastAPI (telemetry and body-limit middleware, app entry)"),
    ("computeatlas/", "Compute Atlas (page cache lookup, security headers)"),
    ("asyncio/", "asyncio event loop"),
    ("selectors.py", "waiting for the network (epoll)"),
    ("contextlib", "contextlib (async context managers in the middleware stack)"),
)


LOAD_LAYERS = (
    ("tomllib/", "TOML parsing (tomllib, pure Python)"),
    ("computeatlas/derive", "derived figures (computeatlas/derive.py)"),
    ("computeatlas/exports", "the silicon table and CSV writer (computeatlas/exports/)"),
    ("csv.py", "csv module"),
    ("pydantic", "pydantic validation and model construction"),
    ("computeatlas/units", "unit parsing (computeatlas/units.py)"),
    ("pint/", "pint"),
    ("computeatlas/", "Compute Atlas, other (records, checks, cross-links)"),
    ("hashlib", "hashing"),
    ("pathlib", "file system"),
)


def _layer(frame: str, layers: tuple[tuple[str, str], ...]) -> str:
    for needle, name in layers:
        if needle in frame:
            return name
    return "other"


IDLE_LEAVES = ("Condition.wait (threading.py", "Queue.get (queue.py", "Event.wait (threading.py")
"""Leaf frames of a thread parked on a lock (an idle thread-pool worker): not work, left out."""


def summarise_profile(raw: Path, top: int = 12, layers: tuple[tuple[str, str], ...] = LAYERS, within: str | None = None) -> dict[str, Any]:
    """Self time by layer and by function from a py-spy ``--format raw`` file (idle parked threads left out;
    with ``within``, only stacks that pass through a frame starting with it)."""
    by_layer: Counter[str] = Counter()
    by_function: Counter[str] = Counter()
    inclusive: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(encoding="utf-8", errors="replace").splitlines():
        stack, _, count = line.rpartition(" ")
        if not stack or not count.isdigit():
            continue
        n = int(count)
        frames = [f for f in stack.split(";") if not f.startswith("process ")]
        leaf = frames[-1] if frames else ""
        if not frames or leaf.startswith(IDLE_LEAVES):
            continue
        if within is not None and not any(f.startswith(within) for f in frames):
            continue
        total += n
        by_layer[_layer(leaf, layers)] += n
        by_function[re.sub(r":\d+\)$", ")", leaf)] += n
        for frame in {f.split(" (")[0] + " (" + f.split(" (")[-1].split(":")[0] + ")" for f in frames}:
            inclusive[frame] += n
    return {
        "samples": total,
        "layers": [(name, n / total) for name, n in by_layer.most_common()] if total else [],
        "functions": [(name, n / total) for name, n in by_function.most_common(top)] if total else [],
        "inclusive": [(name, n / total) for name, n in inclusive.most_common(40)] if total else [],
    }


def profile_server(py_spy: Path, wrk_bin: Path, server: Server, path: str, out: Path) -> dict[str, Any]:
    """py-spy (sampling, 200 Hz) on ``server``'s process and its workers while wrk loads ``path``."""
    assert server.proc is not None
    load = subprocess.Popen(
        [str(wrk_bin), f"-t{THREADS}", f"-c{CONNECTIONS}", f"-d{PROFILE_SECONDS + 3}s", server.url(path)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1)
        subprocess.run(
            [
                str(py_spy),
                "record",
                "--pid",
                str(server.proc.pid),
                "--subprocesses",
                "--rate",
                "200",
                "--duration",
                str(PROFILE_SECONDS),
                "--format",
                "raw",
                "--output",
                str(out),
            ],
            capture_output=True,
            check=True,
            timeout=PROFILE_SECONDS + 60,
        )
    finally:
        load.wait(timeout=PROFILE_SECONDS + 30)
    return summarise_profile(out)


# --- the run ----------------------------------------------------------------------------


LONGEST_RUN_S = 60
DRAIN_LIMIT_S = 180


def alone(url: str) -> float:
    """Seconds one request to ``url`` takes with nothing else in flight (the best of three)."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        with urllib.request.urlopen(url, timeout=60) as response:
            response.read()
        best = min(best, time.perf_counter() - start)
    return best


def duration(alone_s: float) -> int:
    """How long a wrk run of a URL lasts: ``SECONDS``, or long enough for each of the
    ``CONNECTIONS`` to finish about three requests when a request takes ``alone_s`` seconds
    by itself (at most :data:`LONGEST_RUN_S`). A page that takes half a second alone needs
    16 s before 32 queued connections see a first answer: a 5 s run of it counts 0 requests
    and measures nothing (Datasette's table page did)."""
    return int(max(SECONDS, min(LONGEST_RUN_S, math.ceil(3 * CONNECTIONS * alone_s))))


def drain(server: Server) -> float:
    """Wait until ``server`` answers its ready path within a second again (a run's
    abandoned requests may still be queued in it when wrk stops, and would slow the next
    URL's run); return the seconds waited. Raises RuntimeError after :data:`DRAIN_LIMIT_S`."""
    start = time.monotonic()
    while time.monotonic() - start < DRAIN_LIMIT_S:
        ask = time.monotonic()
        try:
            with urllib.request.urlopen(server.url(server.ready_path), timeout=DRAIN_LIMIT_S) as response:
                response.read()
        except OSError:
            time.sleep(0.2)
            continue
        if time.monotonic() - ask < 1.0:
            return round(time.monotonic() - start, 2)
    raise RuntimeError(f"{server.name} still had requests queued after {DRAIN_LIMIT_S} s")


def measure(peers: Any, work: Path, site_dir: Path, db: Path, keep: Path) -> dict[str, Any]:
    """Start every server, measure every target ``REPS`` times interleaved, profile ours; stop them all."""
    if peers.wrk is None:
        return {"skipped": "wrk is not installed"}
    tmp = Path(tempfile.mkdtemp(prefix="nginx-", dir=work))
    os.chmod(work, 0o755)
    os.chmod(tmp, 0o755)  # nginx's workers run as an unprivileged user: they must read the build
    servers = [ours(1, work / "var1"), ours(2, work / "var2"), ours(2, work / "var3", nodelay=True)]
    if peers.datasette:
        servers.append(datasette(peers.datasette, db))
    if peers.nginx:
        servers.append(nginx_server(peers.nginx, site_dir, tmp))
    results: dict[str, Any] = {
        "servers": {},
        "missing": [n for n, p in (("datasette", peers.datasette), ("nginx", peers.nginx)) if p is None],
    }
    try:
        for server in servers:
            server.start(work)
        for server in servers:
            server.wait_ready()
            log(f"{server.name} ready on port {server.port}")
        plan = [(s, page, path) for s in servers for page, path in TARGETS[s.name].items()]
        seconds: dict[tuple[str, str], int] = {}
        for server, page, path in plan:
            size, kind = body_size(server.url(path))
            entry = {"path": path, "bytes": size, "type": kind.split(";")[0], "runs": [], "drain_s": []}
            results["servers"].setdefault(server.name, {})[page] = entry
            wrk(peers.wrk, server.url(path), WARMUP)
            entry["drain_s"].append(drain(server))
            entry["alone_s"] = alone(server.url(path))
            seconds[(server.name, page)] = entry["seconds"] = duration(entry["alone_s"])
        for rep in range(REPS):
            log(f"HTTP round {rep + 1}/{REPS} ({len(plan)} URLs × {SECONDS} s or more)")
            for server, page, path in plan:
                results["servers"][server.name][page]["runs"].append(wrk(peers.wrk, server.url(path), seconds[(server.name, page)]))
                results["servers"][server.name][page]["drain_s"].append(drain(server))
        log("single-connection latency (keep-alive, wrk -c1)")
        results["single_connection"] = {
            s.name: wrk(peers.wrk, s.url(TARGETS[s.name]["accelerator"]), 3, connections=1, threads=1) for s in servers
        }
        results["bound_socket_proto"] = bound_socket_proto()
        if peers.py_spy:
            log("profiling ours-1w under load (py-spy)")
            try:
                results["profile"] = profile_server(
                    peers.py_spy, peers.wrk, servers[0], TARGETS["ours-1w"]["accelerator"], keep / "profile-ours-accelerator.txt"
                )
                results["profile"]["path"] = TARGETS["ours-1w"]["accelerator"]
            except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
                results["profile_error"] = str(exc)
    finally:
        for server in servers:
            server.stop()
    return results


def median(runs: list[dict[str, Any]], key: str) -> float:
    return statistics.median(r[key] for r in runs)

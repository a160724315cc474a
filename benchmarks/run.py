"""Benchmarks, run by hand (`make bench`), never in CI.

Measures, on this machine:
- catalog load time (median of 15 cold loads in fresh subprocesses, and of 30 warm loads
  in one process once pint's registry is built);
- page latency and requests/s for `/silicon/` and `/silicon/aws-trainium-3` with wrk,
  32 connections on loopback, 2 threads, 10 s after a 3 s warm-up, against
  `computeatlas serve` in a subprocess.

Writes the figures to stdout as Markdown; copy them into benchmarks/README.md with the date.
Requires `wrk` (Debian package) for the HTTP part; without it, only load times are measured.
"""

from __future__ import annotations

import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def cold_load_ms(runs: int = 15) -> list[float]:
    """Wall time of `computeatlas.load()` in fresh interpreters (imports excluded)."""
    code = "import time, computeatlas; t=time.perf_counter(); computeatlas.load(); print((time.perf_counter()-t)*1000)"
    return [float(subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True)) for _ in range(runs)]


def warm_load_ms(runs: int = 30) -> list[float]:
    """Wall time of `computeatlas.load()` once the unit registry is built."""
    import computeatlas

    computeatlas.load()
    out = []
    for _ in range(runs):
        start = time.perf_counter()
        computeatlas.load()
        out.append((time.perf_counter() - start) * 1000)
    return out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wrk(url: str, seconds: int = 10) -> dict[str, str]:
    subprocess.run(["wrk", "-t2", "-c32", "-d3s", url], capture_output=True, check=True)  # warm-up
    text = subprocess.run(
        ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", url], capture_output=True, text=True, check=True
    ).stdout
    get = lambda pattern: (re.search(pattern, text) or [None, "?"])[1]  # noqa: E731
    return {
        "rps": get(r"Requests/sec:\s+([\d.]+)"),
        "p50": get(r"\s50%\s+(\S+)"),
        "p99": get(r"\s99%\s+(\S+)"),
        "errors": get(r"Non-2xx or 3xx responses: (\d+)") if "Non-2xx" in text else "0",
    }


def main() -> None:
    print(f"# Benchmarks {time.strftime('%Y-%m-%d')}\n")
    print(f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.platform()}\n")
    cold, warm = cold_load_ms(), warm_load_ms()
    print("| measure | median | min | max |\n|---|---|---|---|")
    print(f"| catalog load, cold process (ms) | {statistics.median(cold):.1f} | {min(cold):.1f} | {max(cold):.1f} |")
    print(f"| catalog load, warm (ms) | {statistics.median(warm):.1f} | {min(warm):.1f} | {max(warm):.1f} |")
    if not shutil.which("wrk"):
        print("\nwrk not found: install Debian's `wrk` for the HTTP figures.")
        return
    port = free_port()
    server = subprocess.Popen([str(BIN / "computeatlas"), "serve", "--port", str(port)], cwd=ROOT)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.1).close()
                break
            except OSError:
                time.sleep(0.1)
        print("\n| page (wrk, 32 connections, 1 server process) | requests/s | p50 | p99 | non-2xx |\n|---|---|---|---|---|")
        for path in ("/silicon/", "/silicon/aws-trainium-3"):
            r = wrk(f"http://127.0.0.1:{port}{path}")
            print(f"| `{path}` | {r['rps']} | {r['p50']} | {r['p99']} | {r['errors']} |")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()

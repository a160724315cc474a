"""The real server in a subprocess, for the tests that need one (browser, durability).

``running(argv, env, log)`` starts ``computeatlas serve`` (``argv`` is the whole command;
``--port`` comes from :func:`free_port`), waits until ``/healthz`` answers, yields a
:class:`Server` and always stops it. A server that exits or does not answer within 60 s
fails the test with the tail of its log. ``meanwhile`` is other start-up work (launching a
browser) done while the server boots: both take CPU for a second or so, and there are two cores.
"""

from __future__ import annotations

import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@dataclass
class Server:
    """A running server: its base URL, its process (for signals) and its log file."""

    url: str
    process: subprocess.Popen
    log: Path


@contextmanager
def running(
    argv: Sequence[str], port: int, env: Mapping[str, str], log: Path, cwd: Path | None = None, meanwhile: Callable[[], object] | None = None
) -> Iterator[Server]:
    """Start ``argv`` (which serves on ``port``), call ``meanwhile`` (if given), wait for
    ``/healthz``, yield it, stop it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    with log.open("wb") as sink:
        process = subprocess.Popen(list(argv), cwd=cwd, env=dict(env), stdout=sink, stderr=subprocess.STDOUT)
    server = Server(f"http://127.0.0.1:{port}", process, log)
    try:
        if meanwhile is not None:
            meanwhile()
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(server.url + "/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the server did not start:\n" + log.read_text(errors="replace")[-3000:])
            time.sleep(0.1)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

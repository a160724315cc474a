"""The real server in a process of its own, for the tests that need one (browser, durability).

``running(args, port, env, log)`` starts ``computeatlas`` with the command-line ``args``
(``serve --port PORT ...``; the port comes from :func:`free_port`) in a new process, waits
until ``/healthz`` answers, yields a :class:`Server` and always stops it. A server that
exits or does not answer within 60 s fails the test with the tail of its log. ``meanwhile``
is other start-up work (launching a browser) done while the server boots: both take CPU
for a second or so, and there are two cores.

The process is forked from a multiprocessing fork server that has imported the package
once (the ``forkserver`` start method with the CLI, the web app, uvicorn and the ledger
preloaded): each server is
still a process of its own, with the environment, working folder and log it is given,
that a test can signal or SIGKILL, but it does not spend a second importing the package
again. What it runs is what the ``computeatlas`` command runs: the CLI's ``app`` with ``args``.
"""

from __future__ import annotations

import multiprocessing
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

_FORKS = multiprocessing.get_context("forkserver")
_FORKS.set_forkserver_preload(["computeatlas.cli", "computeatlas.web.app", "uvicorn", "alembic.command", "computeatlas.ledger.store"])


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class ServerProcess:
    """The server's process, with the part of :class:`subprocess.Popen` the tests use:
    ``pid``, ``poll()``, ``wait(timeout)`` (the exit code; ``-N`` after signal N),
    ``terminate()`` and ``kill()``."""

    def __init__(self, process: multiprocessing.process.BaseProcess) -> None:
        self._process = process

    @property
    def pid(self) -> int:
        """The operating system's process id."""
        return self._process.pid  # type: ignore[return-value]

    def poll(self) -> int | None:
        """The exit code, or ``None`` while it runs."""
        return self._process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        """Wait for the process to end and return its exit code; raises
        :class:`subprocess.TimeoutExpired` after ``timeout`` seconds."""
        self._process.join(timeout)
        if self._process.exitcode is None:
            raise subprocess.TimeoutExpired("computeatlas", timeout or 0)
        return self._process.exitcode

    def terminate(self) -> None:
        """SIGTERM: uvicorn finishes what it is serving and exits."""
        self._process.terminate()

    def kill(self) -> None:
        """SIGKILL."""
        self._process.kill()


@dataclass
class Server:
    """A running server: its base URL, its process (for signals) and its log file."""

    url: str
    process: ServerProcess
    log: Path


def _main(args: list[str], env: dict[str, str], log: str, cwd: str | None) -> None:
    """The server process: the given environment, folder and log (standard output and
    error), then the CLI as the ``computeatlas`` command would run it."""
    os.environ.clear()
    os.environ.update(env)
    if cwd is not None:
        os.chdir(cwd)
    sink = os.open(log, os.O_WRONLY | os.O_APPEND)
    os.dup2(sink, 1)
    os.dup2(sink, 2)
    os.close(sink)
    # Standard input on descriptor 0, as a command has it (/dev/null): multiprocessing left
    # sys.stdin on another descriptor, which `serve --workers N` (uvicorn) hands to each worker
    # it spawns by number, and a spawned worker does not have it.
    null = os.open(os.devnull, os.O_RDONLY)
    if null != 0:
        os.dup2(null, 0)
        os.close(null)
    sys.stdin = open(0, closefd=False)  # noqa: SIM115  (the process's stdin, open while it runs)
    from computeatlas.cli import app

    app(args=args, prog_name="computeatlas")


@contextmanager
def running(
    args: Sequence[str],
    port: int,
    env: Mapping[str, str],
    log: Path,
    cwd: Path | None = None,
    meanwhile: Callable[[], object] | None = None,
) -> Iterator[Server]:
    """Start ``computeatlas ARGS`` (which serves on ``port``), call ``meanwhile`` (if given),
    wait for ``/healthz``, yield it, stop it."""
    log.parent.mkdir(parents=True, exist_ok=True)
    log.touch()
    forked = _FORKS.Process(target=_main, args=(list(args), dict(env), str(log), None if cwd is None else str(cwd)), daemon=False)
    forked.start()
    process = ServerProcess(forked)
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
            time.sleep(0.02)
        yield server
    finally:
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

"""Nothing lost: the real server (``computeatlas serve`` in a subprocess on a free loopback
port, a temporary data directory) under concurrent submissions and a SIGKILL mid-burst,
on SQLite and on a real PostgreSQL (when ``make test`` started one).

Every request here goes to 127.0.0.1 only; loops are bounded in count and time.

The server's folder (its SQLite ledger, form secret and log) is in memory (``/dev/shm``, a
tmpfs) where the machine has one: what is tested is a killed *process*, and the kernel keeps
what a killed process wrote, so each commit's fsync to a disk would add wall time
(milliseconds a commit, one after another: about 2 s of 200 submissions) without adding to
the check; ``synchronous = FULL`` stays on.
The throwaway PostgreSQL (``scripts/with-postgres.sh``) runs with ``fsync=off`` likewise.
"""

from __future__ import annotations

import asyncio
import os
import re
import secrets
import shutil
import signal
import sqlite3
import sys
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from computeatlas.ledger import Ledger
from tests.ledger_support import BACKENDS, ledger_url
from tests.serving import Server, free_port, running
from tests.test_exports import EXPECTED_CSV

EXPECTED = EXPECTED_CSV.encode("utf-8")
COMMAND = Path(sys.executable).with_name("computeatlas")


@contextmanager
def serve(data_dir: Path, var: Path, database: str, **settings: str) -> Iterator[Server]:
    """Start ``computeatlas serve`` on a free port over ``data_dir``; always stop it.
    ``settings`` (``RATE_LIMIT="2/minute"``) become ``COMPUTEATLAS_*`` variables."""
    port = free_port()
    env = {
        **os.environ,
        "COMPUTEATLAS_VAR": str(var),
        "COMPUTEATLAS_DATABASE_URL": database,
        "COMPUTEATLAS_RATE_LIMIT": "100000/minute",
        "COMPUTEATLAS_SECRET": "durability-test-secret-0123456789",
        "COMPUTEATLAS_FORM_MIN_SECONDS": "0",
        **{f"COMPUTEATLAS_{k}": v for k, v in settings.items()},
    }
    command = [str(COMMAND), "serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data_dir)]
    with running(command, port, env, var / f"server-{port}.log") as server:
        yield server


TOKEN = re.compile(r'<input type="hidden" name="token" value="([^"]+)">')


def form(token: str, i: int) -> dict[str, str]:
    return {
        "token": token, "name": f"Zoë Tester {i}", "email": f"person{i}@example.org",
        "organisation": "Université de Test", "intended_use": "research", "licence": "accepted", "website": "",
    }


async def burst(url: str, count: int, kill_after: int | None = None, pid: int | None = None) -> dict[int, bool]:
    """``count`` visitors (each with its own form cookie) open the form, then all submit at
    once; optionally SIGKILL ``pid`` once ``kill_after`` downloads are complete. Returns
    submission index → whether it got the whole CSV. Each request uses its own connection
    (``Connection: close``), as separate visitors would."""
    cookies = [secrets.token_urlsafe(24) for _ in range(count)]
    done: dict[int, bool] = {}
    killed = False
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    async with httpx.AsyncClient(base_url=url, timeout=120, limits=limits) as client:

        def headers(i: int) -> dict[str, str]:
            return {"cookie": f"atlas_form={cookies[i]}", "connection": "close"}

        pages = await asyncio.gather(*(client.get("/data/", headers=headers(i)) for i in range(count)))
        assert {p.status_code for p in pages} == {200}
        tokens = [TOKEN.search(p.text).group(1) for p in pages]  # type: ignore[union-attr]

        async def send(i: int) -> None:
            nonlocal killed
            try:
                response = await client.post("/data/", data=form(tokens[i], i), headers=headers(i))
                done[i] = response.status_code == 200 and response.content == EXPECTED
            except httpx.TransportError:
                done[i] = False
            if kill_after is not None and not killed and sum(done.values()) >= kill_after:
                killed = True
                os.kill(pid, signal.SIGKILL)  # type: ignore[arg-type]

        await asyncio.gather(*(send(i) for i in range(count)))
    return done


def run(count: int, url: str, kill_after: int | None = None, pid: int | None = None) -> dict[int, bool]:
    """:func:`burst` on an event loop of its own thread (another test may have left one running here)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(burst(url, count, kill_after, pid))).result()


SHM = Path("/dev/shm")


@pytest.fixture
def var(tmp_path: Path) -> Iterator[Path]:
    """The server's folder (``COMPUTEATLAS_VAR``): a fresh folder in ``/dev/shm`` (a tmpfs),
    else under ``tmp_path``; removed afterwards."""
    if not (SHM.is_dir() and os.access(SHM, os.W_OK)):
        yield tmp_path / "var"
        return
    folder = Path(tempfile.mkdtemp(prefix="atlas-durability-", dir=SHM))
    try:
        yield folder / "var"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def database(request: pytest.FixtureRequest, var: Path) -> Iterator[str]:
    with ledger_url(request.param, var) as url:
        yield url


def test_200_concurrent_submissions_make_200_rows(data_dir: Path, var: Path, database: str) -> None:
    with serve(data_dir, var, database) as server:
        done = run(200, server.url)
        assert sum(done.values()) == 200, f"{200 - sum(done.values())} submissions did not get the CSV"
        ledger = Ledger.open(database)
        try:
            entries = ledger.list(limit=None)
        finally:
            ledger.close()
        assert len(entries) == 200
        assert sorted(e.email for e in entries) == sorted(f"person{i}@example.org" for i in range(200))
        assert all(e.name.startswith("Zoë Tester ") and e.kind == "download" for e in entries)
    log = server.log.read_text()
    assert "Traceback" not in log and "ERROR" not in log, log


def test_sigkill_mid_burst_loses_no_answered_submission(data_dir: Path, var: Path, database: str) -> None:
    # 120 visitors: far more than the server's 40 worker threads and its 30 database
    # connections, so submissions queue and are in flight when the kill lands after the 15th
    # answer. (With 60, a fast machine answered them all before the kill, once in a run.)
    with serve(data_dir, var, database) as server:
        done = run(120, server.url, kill_after=15, pid=server.process.pid)
        assert server.process.wait(timeout=10) == -signal.SIGKILL
    answered = {i for i, ok in done.items() if ok}
    assert len(answered) >= 15
    if database.startswith("sqlite"):
        raw = sqlite3.connect(database.removeprefix("sqlite:///"))
        try:
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            raw.close()
    ledger = Ledger.open(database)
    try:
        assert ledger.integrity() == "ok"
        recorded = {e.email for e in ledger.list(limit=None)}
    finally:
        ledger.close()
    missing = sorted(i for i in answered if f"person{i}@example.org" not in recorded)
    assert missing == [], f"answered but not in the ledger: {missing}"
    # The killed server's database serves again: a restart records a new request.
    with serve(data_dir, var, database) as again:
        assert run(1, again.url) == {0: True}
    ledger = Ledger.open(database)
    try:
        assert ledger.count() == len(recorded) + 1
    finally:
        ledger.close()


# --- the rate limit behind (and without) a proxy, on the real server --------------------------


def _statuses(url: str, forwarded: list[str]) -> list[int]:
    with httpx.Client(base_url=url, timeout=30) as client:
        return [client.post("/data/", data={"token": "x"}, headers={"x-forwarded-for": f}).status_code for f in forwarded]


def test_rotating_forwarded_for_does_not_escape_the_rate_limit_by_default(data_dir: Path, var: Path) -> None:
    database = f"sqlite:///{var / 'ledger.sqlite3'}"
    with serve(data_dir, var, database, RATE_LIMIT="2/minute") as server:
        assert _statuses(server.url, ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) == [403, 403, 429]


def test_a_trusted_proxy_passes_on_the_visitors_address(data_dir: Path, var: Path) -> None:
    database = f"sqlite:///{var / 'ledger.sqlite3'}"
    with serve(data_dir, var, database, RATE_LIMIT="2/minute", TRUSTED_PROXIES='["127.0.0.1"]') as server:
        assert _statuses(server.url, ["198.51.100.1", "198.51.100.2", "198.51.100.3"]) == [403, 403, 403]
        assert _statuses(server.url, ["198.51.100.9", "203.0.113.5, 198.51.100.9", "198.51.100.9"]) == [403, 403, 429]

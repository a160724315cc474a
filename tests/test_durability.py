"""Nothing lost: the real server (``computeatlas serve`` in a subprocess on a free loopback
port, a temporary data directory) under concurrent submissions and a SIGKILL mid-burst,
on SQLite and on a real PostgreSQL (when ``make test`` started one).

Every request here goes to 127.0.0.1 only; loops are bounded in count and time. The two
burst tests share one server per backend (:class:`Served`); the SIGKILL test's restart is a
new server on the same database.

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
import tempfile
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import pytest

from computeatlas.ledger import Ledger
from tests.conftest import SMALL_CATALOG, write_data
from tests.ledger_support import BACKENDS, ledger_url
from tests.serving import Server, free_port, running
from tests.test_exports import EXPECTED_CSV

EXPECTED = ("\ufeff" + EXPECTED_CSV).encode("utf-8")  # a CSV download opens with the byte-order mark


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
    command = ["serve", "--host", "127.0.0.1", "--port", str(port), "--data", str(data_dir)]
    with running(command, port, env, var / f"server-{port}.log") as server:
        yield server


TOKEN = re.compile(r'<input type="hidden" name="token" value="([^"]+)">')


def email(i: int, tag: str) -> str:
    """Visitor ``i``'s address in the burst named ``tag`` (each burst's addresses are its own)."""
    return f"person{i}@{tag}.example.org"


def form(token: str, i: int, tag: str) -> dict[str, str]:
    return {
        "token": token,
        "name": f"Zoë Tester {i}",
        "email": email(i, tag),
        "organisation": "Université de Test",
        "intended_use": "research",
        "licence": "accepted",
        "website": "",
    }


async def burst(url: str, count: int, tag: str, kill_after: int | None = None, pid: int | None = None) -> dict[int, bool]:
    """``count`` visitors (addresses :func:`email` ``(i, tag)``) (each with its own form cookie) open the form, then all submit at
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
                response = await client.post("/data/", data=form(tokens[i], i, tag), headers=headers(i))
                done[i] = response.status_code == 200 and response.content == EXPECTED
            except httpx.TransportError:
                done[i] = False
            if kill_after is not None and not killed and sum(done.values()) >= kill_after:
                killed = True
                os.kill(pid, signal.SIGKILL)  # type: ignore[arg-type]

        await asyncio.gather(*(send(i) for i in range(count)))
    return done


def run(count: int, url: str, tag: str, kill_after: int | None = None, pid: int | None = None) -> dict[int, bool]:
    """:func:`burst` on an event loop of its own thread (another test may have left one running here)."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(lambda: asyncio.run(burst(url, count, tag, kill_after, pid))).result()


SHM = Path("/dev/shm")


@contextmanager
def server_folder(fallback: Path) -> Iterator[Path]:
    """A fresh folder for a server (``COMPUTEATLAS_VAR``) in ``/dev/shm`` (a tmpfs), else
    ``fallback``; removed afterwards."""
    if not (SHM.is_dir() and os.access(SHM, os.W_OK)):
        yield fallback
        return
    folder = Path(tempfile.mkdtemp(prefix="atlas-durability-", dir=SHM))
    try:
        yield folder / "var"
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def var(tmp_path: Path) -> Iterator[Path]:
    """The server's folder for one test (:func:`server_folder`)."""
    with server_folder(tmp_path / "var") as folder:
        yield folder


class Served:
    """The server of one ledger, shared by the tests that need an identical one (the burst
    tests): started when first asked for, and started again when asked for after it was
    killed (a restart on the same database). Every server started is stopped by :meth:`close`."""

    def __init__(self, data_dir: Path, var: Path, database: str) -> None:
        self.data_dir, self.var, self.database = data_dir, var, database
        self._servers = ExitStack()
        self._current: Server | None = None

    def server(self) -> Server:
        """The running server, started (again) if there is none."""
        if self._current is None or self._current.process.poll() is not None:
            self._current = self._servers.enter_context(serve(self.data_dir, self.var, self.database))
        return self._current

    def ledger_emails(self) -> tuple[int, set[str]]:
        """The ledger's row count and its set of addresses, read directly from the database."""
        ledger = Ledger.open(self.database)
        try:
            return ledger.count(), {e.email for e in ledger.list(limit=None)}
        finally:
            ledger.close()

    def close(self) -> None:
        """Stop every server started here."""
        self._servers.close()


@pytest.fixture(scope="module", params=BACKENDS)
def served(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One server per ledger backend (SQLite, PostgreSQL) over the small catalog, for the
    burst tests of this module: a server start is a second and a half of CPU, and these
    tests need the same server. Each burst uses addresses of its own (:func:`email`), so
    each test checks its own rows whatever ran before it."""
    folder = tmp_path_factory.mktemp(f"durability-{request.param}")
    data_dir = write_data(folder / "data", SMALL_CATALOG)
    with server_folder(folder / "var") as var, ledger_url(request.param, var) as database:
        shared = Served(data_dir, var, database)
        try:
            yield shared
        finally:
            shared.close()


def test_200_concurrent_submissions_make_200_rows(served: Served) -> None:
    server = served.server()
    rows_before, _ = served.ledger_emails()
    done = run(200, server.url, "two-hundred")
    assert sum(done.values()) == 200, f"{200 - sum(done.values())} submissions did not get the CSV"
    ledger = Ledger.open(served.database)
    try:
        rows = ledger.count()
        entries = [e for e in ledger.list(limit=None) if e.email.endswith("@two-hundred.example.org")]
    finally:
        ledger.close()
    assert rows == rows_before + 200
    assert sorted(e.email for e in entries) == sorted(email(i, "two-hundred") for i in range(200))
    assert all(e.name.startswith("Zoë Tester ") and e.kind == "download" for e in entries)
    log = server.log.read_text()  # the server's stderr is line-buffered: a traceback would be here by now
    assert "Traceback" not in log and "ERROR" not in log, log


def test_sigkill_mid_burst_loses_no_answered_submission(served: Served) -> None:
    # 120 visitors: far more than the server's 40 worker threads and its 30 database
    # connections, so submissions queue and are in flight when the kill lands after the 15th
    # answer. (With 60, a fast machine answered them all before the kill, once in a run.)
    server = served.server()
    done = run(120, server.url, "killed", kill_after=15, pid=server.process.pid)
    assert server.process.wait(timeout=10) == -signal.SIGKILL
    answered = {i for i, ok in done.items() if ok}
    assert len(answered) >= 15
    if served.database.startswith("sqlite"):
        raw = sqlite3.connect(served.database.removeprefix("sqlite:///"))
        try:
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            raw.close()
    ledger = Ledger.open(served.database)
    try:
        assert ledger.integrity() == "ok"
    finally:
        ledger.close()
    rows, recorded = served.ledger_emails()
    missing = sorted(i for i in answered if email(i, "killed") not in recorded)
    assert missing == [], f"answered but not in the ledger: {missing}"
    # The killed server's database serves again: a restart records a new request.
    again = served.server()
    assert again is not server
    assert run(1, again.url, "restarted") == {0: True}
    assert served.ledger_emails() == (rows + 1, recorded | {email(0, "restarted")})


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

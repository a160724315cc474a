"""One rate limit for every worker: the form's counts kept in the ledger's database
(:class:`computeatlas.ledger.rate_limits.SQLStorage`), on SQLite and on a real PostgreSQL.

The server tests start ``computeatlas serve --workers 2`` and open keep-alive connections
until each of the two worker processes holds twelve of them (psutil says which process holds
the server side of each), then send 24 form posts at once, twelve through each worker. A
limit of 10 per minute admits exactly 10 of them; with ``memory://`` counts (each worker
counts alone, the behaviour before) the same 24 posts are admitted 20 times, ten per worker.
Every request goes to 127.0.0.1; loops are bounded in count and time.
"""

from __future__ import annotations

import http.client
import os
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import psutil
import pytest
from sqlalchemy import create_engine, select

from computeatlas.catalog import Catalog
from computeatlas.core.settings import Settings
from computeatlas.ledger.rate_limits import SQLStorage
from computeatlas.ledger.tables import rate_limit_hits
from computeatlas.web.guard import FormGuard
from tests.conftest import SMALL_CATALOG, write_data
from tests.ledger_support import BACKENDS, ledger_url
from tests.serving import Server, free_port, running

SECRET = "rate-limit-test-secret-0123456789"
ADDRESS = "203.0.113.7"


def _hit_keys(url: str) -> list[str]:
    engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as connection:
            return list(connection.execute(select(rate_limit_hits.c.key)).scalars())
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_ledger_storage_admits_exactly_the_limit_from_24_threads(backend: str, tmp_path: Path) -> None:
    with ledger_url(backend, tmp_path) as url:
        guard = FormGuard(SECRET.encode(), rate="10/minute;100/day", storage_uri=url)
        start = threading.Barrier(24)

        def post(_: int) -> int | None:
            start.wait()
            return guard.allow(ADDRESS)

        with ThreadPoolExecutor(24) as pool:
            answers = list(pool.map(post, range(24)))
        assert answers.count(None) == 10
        assert all(1 <= retry <= 60 for retry in answers if retry is not None)
        assert guard.allow("198.51.100.1") is None  # another address has its own count
        # 11 admitted posts hit the minute and then the day limit; the 14 refused by the minute limit hit nothing
        mine, other = guard.rate_key(ADDRESS), guard.rate_key("198.51.100.1")
        assert Counter(_hit_keys(url)) == {
            f"LIMITER/dataset-form/{mine}/10/1/minute": 10,
            f"LIMITER/dataset-form/{mine}/100/1/day": 10,
            f"LIMITER/dataset-form/{other}/10/1/minute": 1,
            f"LIMITER/dataset-form/{other}/100/1/day": 1,
        }
        assert len(mine) == 32 and mine != other  # an HMAC of the address, never the address
        guard.storage.close()  # type: ignore[attr-defined]


def test_hits_leave_the_window_and_their_rows_are_deleted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    now = [1_800_000_000.0]
    monkeypatch.setattr("computeatlas.ledger.rate_limits.time.time", lambda: now[0])
    storage = SQLStorage(url)
    assert [storage.acquire_entry("k", 2, 60) for _ in range(3)] == [True, True, False]
    assert storage.get_moving_window("k", 2, 60) == (1_800_000_000.0, 2)
    now[0] += 30
    assert storage.acquire_entry("other", 2, 60) is True
    now[0] += 31  # 61 s after the first two hits: they have left the window
    assert storage.get_moving_window("k", 2, 60) == (now[0], 0)
    assert storage.acquire_entry("k", 2, 60) is True
    assert sorted(_hit_keys(url)) == ["k", "other"]  # the two expired rows went with that hit
    assert storage.acquire_entry("k", 1, 60, amount=2) is False  # more than the limit at once
    storage.clear("k")
    assert _hit_keys(url) == ["other"] and storage.check() is True
    assert storage.reset() == 1
    with pytest.raises(NotImplementedError, match="moving windows only"):
        storage.incr("k", 60)
    storage.close()


def test_an_unreachable_count_refuses_the_post_with_a_503(catalog: Catalog, tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from computeatlas.web.app import create_app

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    app = create_app(catalog, Settings(form_min_seconds=0))
    app.state.form_guard = FormGuard(SECRET.encode(), storage_uri=f"sqlite:///{blocker / 'var' / 'ledger.sqlite3'}")
    response = TestClient(app, raise_server_exceptions=False).post("/data/", data={"token": "x"})
    assert response.status_code == 503
    assert "nothing was recorded and nothing was sent" in response.text


# --- two real workers ----------------------------------------------------------------------------


@contextmanager
def two_workers(folder: Path, database: str, storage: str = "") -> Iterator[tuple[Server, int]]:
    """``computeatlas serve --workers 2`` over the small catalog, 10 posts a minute, on ``database``."""
    port = free_port()
    env = {
        **os.environ,
        "COMPUTEATLAS_VAR": str(folder / "var"),
        "COMPUTEATLAS_DATABASE_URL": database,
        "COMPUTEATLAS_RATE_LIMIT": "10/minute",
        "COMPUTEATLAS_RATE_LIMIT_STORAGE": storage,
        "COMPUTEATLAS_SECRET": SECRET,
        "COMPUTEATLAS_FORM_MIN_SECONDS": "0",
        "COMPUTEATLAS_KEEP_ALIVE_SECONDS": "120",
    }
    data_dir = write_data(folder / "data", SMALL_CATALOG)
    command = ["serve", "--host", "127.0.0.1", "--port", str(port), "--workers", "2", "--data", str(data_dir)]
    with running(command, port, env, folder / "server.log") as server:
        yield server, port


def connections_by_worker(
    server: Server, port: int, opened: list[http.client.HTTPConnection], each: int = 12
) -> dict[int, list[http.client.HTTPConnection]]:
    """Open keep-alive connections (each answers ``/healthz``; all kept in ``opened`` for the
    caller to close) until each of the two worker processes holds ``each`` of them; return
    worker pid → its connections. Fails after 400 connections or 60 s.
    Connections are opened 16 at once: one at a time, the worker that accepted the last
    one tends to accept the next as well."""
    grouped: dict[int, list[http.client.HTTPConnection]] = {}
    deadline = time.monotonic() + 60

    def health() -> http.client.HTTPConnection:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        opened.append(connection)
        connection.request("GET", "/healthz")
        response = connection.getresponse()
        response.read()
        assert response.status == 200
        return connection

    while len(opened) < 400 and time.monotonic() < deadline:
        # 16 at once: a worker busy answering leaves the next connections to the other one
        with ThreadPoolExecutor(16) as pool:
            list(pool.map(lambda _: health(), range(16)))
        owner: dict[int, int] = {}  # the client's local port -> the worker holding the other end
        for process in psutil.Process(server.process.pid).children(recursive=True):
            try:
                held_here = process.net_connections(kind="tcp")
            except psutil.NoSuchProcess:  # a short-lived helper process, gone already
                continue
            for held in held_here:
                if held.laddr and held.raddr and held.laddr.port == port:
                    owner[held.raddr.port] = process.pid
        grouped = {}
        for connection in opened:
            pid = owner.get(connection.sock.getsockname()[1])
            if pid is not None:
                grouped.setdefault(pid, []).append(connection)
        if len(grouped) == 2 and all(len(held) >= each for held in grouped.values()):
            return {pid: held[:each] for pid, held in grouped.items()}
    counts = {pid: len(held) for pid, held in grouped.items()}
    kids = [(k.pid, k.status(), k.cmdline()[-3:], k.cpu_times().user) for k in psutil.Process(server.process.pid).children(recursive=True)]
    pytest.fail(f"two workers did not each take {each} connections: {counts}\n{kids}\n" + server.log.read_text()[-2000:])


def post_through_both(server: Server, port: int) -> dict[int, list[int]]:
    """24 form posts at once from 127.0.0.1, twelve through each worker; worker pid → the statuses
    (403: admitted by the rate limit, then refused for its junk token; 429: refused by the limit)."""
    opened: list[http.client.HTTPConnection] = []
    try:
        return _post(connections_by_worker(server, port, opened))
    finally:
        for connection in opened:
            connection.close()


def _post(groups: dict[int, list[http.client.HTTPConnection]]) -> dict[int, list[int]]:
    chosen = [(pid, connection) for pid, held in groups.items() for connection in held]
    start = threading.Barrier(len(chosen))

    def post(item: tuple[int, http.client.HTTPConnection]) -> tuple[int, int]:
        pid, connection = item
        start.wait()
        connection.request("POST", "/data/", body="token=x", headers={"Content-Type": "application/x-www-form-urlencoded"})
        response = connection.getresponse()
        response.read()
        if response.status == 429:
            assert 1 <= int(response.getheader("Retry-After") or 0) <= 60
        return pid, response.status

    with ThreadPoolExecutor(len(chosen)) as pool:
        answers = list(pool.map(post, chosen))
    statuses: dict[int, list[int]] = {}
    for pid, status in answers:
        statuses.setdefault(pid, []).append(status)
    return statuses


@pytest.mark.parametrize("backend", BACKENDS)
def test_two_workers_admit_10_of_24_posts_with_a_limit_of_10(backend: str, tmp_path: Path) -> None:
    with ledger_url(backend, tmp_path / "var") as database, two_workers(tmp_path, database) as (server, port):
        statuses = post_through_both(server, port)
        assert sorted(len(s) for s in statuses.values()) == [12, 12]
        every = [status for s in statuses.values() for status in s]
        assert Counter(every) == {403: 10, 429: 14}, statuses
        assert len(_hit_keys(database)) == 10
        assert "Traceback" not in server.log.read_text()


def test_two_workers_with_memory_counts_admit_20_of_24(tmp_path: Path) -> None:
    # The behaviour the ledger storage replaces, measured the same way: each worker counts alone.
    database = f"sqlite:///{tmp_path / 'var' / 'ledger.sqlite3'}"
    with two_workers(tmp_path, database, storage="memory://") as (server, port):
        statuses = post_through_both(server, port)
        assert [Counter(s) for s in statuses.values()] == [{403: 10, 429: 2}, {403: 10, 429: 2}], statuses
        assert _hit_keys(database) == []

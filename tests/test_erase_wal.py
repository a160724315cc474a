"""An erase on PostgreSQL, then ``--purge-wal``: the erased address is in none of the server's
files, on the throwaway PostgreSQL of ``make test`` (``scripts/with-postgres.sh``).

What these tests can check: every file of the server's data directory (the table's heap and
index files, the statistics catalog, and each segment in ``pg_wal``) is read as bytes before
and after; the tests run as the user who owns the cluster, or as root, so they can read it.
The throwaway server runs as the README asks (``wal_recycle=off``), with ``full_page_writes``
off and no archive, replica or slot: what they cannot check is a server configured otherwise
(recycled segments, full-page images, archives, replicas, backups), which :mod:`computeatlas.ledger.wal`
reports instead, and blocks the file system freed, which no file shows.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from computeatlas.cli import app
from computeatlas.ledger import Ledger
from tests.conftest import CliRunner
from tests.ledger_support import postgres_database
from tests.test_ledger import NOW, person, record


def _dsn(url: str, **changes: str) -> str:
    return make_url(url).set(drivername="postgresql", **changes).render_as_string(hide_password=False)


def _holding(folder: Path, needle: bytes) -> list[str]:
    """The files under ``folder`` whose bytes contain ``needle``, relative to it."""
    found = []
    for path in sorted(folder.rglob("*")):
        try:
            if path.is_file() and needle in path.read_bytes():
                found.append(str(path.relative_to(folder)))
        except FileNotFoundError:  # a segment or a dropped relation removed while we looked
            continue
    return found


def test_postgresql_erase_and_purge_wal_leave_the_address_in_no_server_file() -> None:
    token = secrets.token_hex(6)
    erased, kept = f"erase-{token}@example.org", f"keep-{token}@example.org"
    with postgres_database() as url:
        ledger = Ledger.open(url)
        try:
            record(ledger, person(name="Erased Person", email=erased), f"key-erase-{token}", NOW)
            for n in range(60):  # enough rows that ANALYZE would put addresses in the statistics
                record(ledger, person(name=f"Kept {n}", email=f"{n}-{kept}"), f"key-keep-{n:03d}-{token}", NOW)
        finally:
            ledger.close()
        with psycopg.connect(_dsn(url), autocommit=True) as admin:
            assert admin.execute("SHOW wal_recycle").fetchone() == ("off",)
            admin.execute("ANALYZE dataset_requests")
            admin.execute("CHECKPOINT")  # the rows reach the table's files, as they would over time
            data = Path(admin.execute("SHOW data_directory").fetchone()[0])
            heap = data / admin.execute("SELECT pg_relation_filepath('dataset_requests')").fetchone()[0]
            analysed = admin.execute("SELECT attname FROM pg_stats WHERE tablename = 'dataset_requests' ORDER BY attname").fetchall()
            before = _holding(data, erased.encode())
            # the test sees the address where it is: the table, its e-mail index, the current WAL segment
            assert str(heap.relative_to(data)) in before and any(p.startswith("pg_wal/") for p in before), before
            # migration 0003: ANALYZE sampled the other columns but none of those a person typed
            assert ("kind",) in analysed and not {("name",), ("email",), ("email_key",), ("organisation",)} & set(analysed)

            result = CliRunner().invoke(
                app, ["requests", "erase", "--email", erased, "--yes", "--purge-wal", "--database", url], env={"COLUMNS": "400"}
            )
            assert result.exit_code == 0, result.output
            lines = result.stdout.splitlines()
            assert lines[:4] == [
                f"Erased 1 request(s) for {erased}.",
                "done: VACUUM FULL pg_statistic",
                "done: SELECT pg_switch_wal()",
                "done: CHECKPOINT",
            ]
            assert "wal_recycle=off" in lines[4] and "archive_mode=off" in lines[4] and "replication_slots=0" in lines[4]
            assert [line for line in lines if line.startswith("remaining: pg_wal")] == []

            assert _holding(data, erased.encode()) == []
            heap = data / admin.execute("SELECT pg_relation_filepath('dataset_requests')").fetchone()[0]
            assert f"0-{kept}".encode() in heap.read_bytes()  # the rewrite kept the other rows


def test_postgresql_purge_wal_by_a_user_who_may_not_says_what_it_did_not_do() -> None:
    role = f"atlas_{secrets.token_hex(4)}"
    with postgres_database() as url:
        with psycopg.connect(_dsn(url), autocommit=True) as admin:
            admin.execute(f'CREATE ROLE "{role}" LOGIN')
            admin.execute(f'GRANT ALL ON SCHEMA public TO "{role}"')
        try:
            ledger = Ledger.open(make_url(url).set(username=role).render_as_string(hide_password=False))
            try:
                report = ledger.purge_wal()
            finally:
                ledger.close()
            assert [(s.command, s.done) for s in report.steps] == [
                ("VACUUM FULL pg_statistic", False),
                ("SELECT pg_switch_wal()", False),
                ("CHECKPOINT", False),
            ]
            assert report.steps[0].note == "not run: only a superuser may vacuum pg_statistic"
            assert "permission denied for function pg_switch_wal" in report.steps[1].note
            assert "pg_checkpoint" in report.steps[2].note
            assert not report.complete
            assert any("grant the ledger's user EXECUTE ON FUNCTION pg_switch_wal()" in r for r in report.remaining)
        finally:
            with psycopg.connect(_dsn(url), autocommit=True) as admin:
                admin.execute(f'DROP OWNED BY "{role}"')
                admin.execute(f'DROP ROLE "{role}"')


def test_purge_wal_on_sqlite_runs_nothing_and_says_why(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    result = CliRunner().invoke(
        app, ["requests", "erase", "--email", "nobody@example.org", "--purge-wal", "--database", url], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0
    assert result.stdout.splitlines() == [
        "Erased 0 request(s) for nobody@example.org.",
        "remaining: SQLite: the erase already emptied ledger.sqlite3-wal; there is no other log to purge.",
    ]


@pytest.mark.parametrize("flag", [[], ["--purge-wal"]])
def test_a_postgresql_erase_without_the_flag_offers_it(flag: list[str]) -> None:
    with postgres_database() as url:
        ledger = Ledger.open(url)
        record(ledger, person(email="offer@example.org"), "key-offer-0000000001", NOW)
        ledger.close()
        result = CliRunner().invoke(app, ["requests", "erase", "--email", "offer@example.org", "--yes", *flag, "--database", url])
        assert result.exit_code == 0
        offered = "run `computeatlas requests erase --email offer@example.org --purge-wal` to close and checkpoint it now"
        assert (offered in result.stderr) is (not flag)

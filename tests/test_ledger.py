"""The request ledger on SQLite and on a real PostgreSQL: record (once per key), list, export,
erase, purge, migrations, and the ``computeatlas requests`` commands."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from computeatlas.cli import app
from computeatlas.core.settings import Settings
from computeatlas.ledger import DatasetRequest, Ledger, check, database_url
from computeatlas.ledger.store import email_key
from tests.conftest import CliRunner
from tests.ledger_support import BACKENDS, ledger_url

NOW = dt.datetime(2026, 11, 30, 12, 0, 0)


@pytest.fixture(params=BACKENDS)
def url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A ledger URL on each backend (PostgreSQL skips unless make test started one)."""
    with ledger_url(request.param, tmp_path) as found:
        yield found


@pytest.fixture
def ledger(url: str) -> Iterator[Ledger]:
    opened = Ledger.open(url)
    yield opened
    opened.close()


def person(name: str = "Zoë O’Brien-Núñez", email: str = "zoe@example.org", use: str = "research") -> DatasetRequest:
    request, errors, _ = check(
        {"name": name, "email": email, "organisation": "Université de Genève", "intended_use": use, "licence": "accepted"}
    )
    assert request is not None, errors
    return request


def record(ledger: Ledger, request: DatasetRequest, key: str, now: dt.datetime = NOW) -> tuple[object, bool]:
    return ledger.record(request, key, data_version="abc123", schema_version="1.0.0", now=now)


def test_record_keeps_what_was_typed(ledger: Ledger) -> None:
    entry, created = record(ledger, person(), "key-0000000000000001")
    assert created
    assert (entry.name, entry.email, entry.organisation) == ("Zoë O’Brien-Núñez", "zoe@example.org", "Université de Genève")
    assert (entry.kind, entry.intended_use, entry.licence_accepted) == ("download", "research", True)
    assert (entry.created_at, entry.data_version, entry.schema_version) == (NOW, "abc123", "1.0.0")
    assert ledger.list() == [entry]


def test_a_commercial_request_is_an_enquiry(ledger: Ledger) -> None:
    entry, _ = record(ledger, person(use="commercial"), "key-0000000000000002")
    assert entry.kind == "enquiry"


def test_the_same_key_records_one_row(ledger: Ledger) -> None:
    first, created = record(ledger, person(), "key-0000000000000003")
    again, created_again = record(ledger, person(name="Someone Else"), "key-0000000000000003")
    assert (created, created_again) == (True, False)
    assert again == first and again.name == "Zoë O’Brien-Núñez"
    assert ledger.count() == 1


def test_list_is_newest_first_and_limited(ledger: Ledger) -> None:
    for day in range(3):
        record(ledger, person(name=f"Person {day}", email=f"p{day}@example.org"), f"key-00000000000001{day}", NOW + dt.timedelta(days=day))
    assert [e.name for e in ledger.list()] == ["Person 2", "Person 1", "Person 0"]
    assert [e.name for e in ledger.list(limit=1)] == ["Person 2"]


def test_export_and_erase_by_email_in_any_case(ledger: Ledger) -> None:
    record(ledger, person(email="Zoë@Example.ORG"), "key-0000000000000021")
    record(ledger, person(email="zoë@example.org"), "key-0000000000000022")
    record(ledger, person(name="Other", email="other@example.org"), "key-0000000000000023")
    assert email_key("ZOË@EXAMPLE.org") == email_key("zoë@example.org") == "zoë@example.org"
    assert [e.email for e in ledger.export("ZOË@example.org")] == ["Zoë@example.org", "zoë@example.org"]
    assert ledger.erase("zoË@EXAMPLE.ORG") == 2
    assert ledger.export("zoë@example.org") == []
    assert [e.email for e in ledger.list()] == ["other@example.org"]
    assert ledger.erase("nobody@example.org") == 0


def test_purge_removes_only_rows_older_than_the_retention(ledger: Ledger) -> None:
    record(ledger, person(name="Old"), "key-0000000000000031", NOW - dt.timedelta(days=366))
    record(ledger, person(name="Edge"), "key-0000000000000032", NOW - dt.timedelta(days=364))
    record(ledger, person(name="New"), "key-0000000000000033", NOW)
    assert ledger.purge(now=NOW) == 1  # default retention: 365 days
    assert sorted(e.name for e in ledger.list()) == ["Edge", "New"]
    assert ledger.purge(older_than_days=30, now=NOW) == 1
    assert [e.name for e in ledger.list()] == ["New"]
    with pytest.raises(ValueError, match="negative"):
        ledger.purge(older_than_days=-1)


def test_opening_twice_keeps_rows_and_migrations_are_idempotent(url: str) -> None:
    first = Ledger.open(url)
    record(first, person(), "key-0000000000000041")
    first.close()
    second = Ledger.open(url)
    assert second.count() == 1 and second.integrity() == "ok"
    second.close()


def test_migrations_build_exactly_the_declared_tables(ledger: Ledger) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from computeatlas.ledger.tables import metadata

    with ledger.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": "ledger_alembic_version"})
        assert compare_metadata(context, metadata) == []
        assert context.get_current_revision() == "0003"


def test_sqlite_ledger_is_in_wal_mode_in_the_var_directory(tmp_path: Path) -> None:
    settings = Settings(var=tmp_path / "var")
    assert database_url(settings) == f"sqlite:///{tmp_path / 'var' / 'ledger.sqlite3'}"
    ledger = Ledger.open(database_url(settings))
    ledger.close()
    db = sqlite3.connect(tmp_path / "var" / "ledger.sqlite3")
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    db.close()


def test_database_url_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COMPUTEATLAS_DATABASE_URL", "postgresql://atlas@db.internal/atlas")
    settings = Settings.from_env()
    monkeypatch.delenv("COMPUTEATLAS_DATABASE_URL")  # read once, by Settings.from_env, never again
    assert database_url(settings) == "postgresql://atlas@db.internal/atlas"
    from computeatlas.ledger.database import _driver_url

    assert _driver_url(database_url(settings)) == "postgresql+psycopg://atlas@db.internal/atlas"


# --- the operator commands -----------------------------------------------------------


def cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_requests_commands_list_export_erase_purge(url: str) -> None:
    ledger = Ledger.open(url)
    record(ledger, person(), "key-0000000000000051", dt.datetime.now(dt.UTC).replace(tzinfo=None))
    record(ledger, person(name="Ancient", email="old@example.org"), "key-0000000000000052", dt.datetime(2020, 1, 1))
    ledger.close()

    code, out, _ = cli("requests", "list", "--json", "--database", url)
    assert code == 0 and [e["name"] for e in json.loads(out)] == ["Zoë O’Brien-Núñez", "Ancient"]
    code, out, _ = cli("requests", "list", "--database", url)
    assert code == 0 and "2 of 2 requests" in out and "old@example.org" in out and "Ancient" in out

    code, out, err = cli("requests", "export", "--email", "ZOE@example.org", "--database", url)
    assert code == 0 and [e["organisation"] for e in json.loads(out)] == ["Université de Genève"]
    assert "1 request(s)" in err

    code, out, _ = cli("requests", "purge", "--yes", "--database", url)
    assert code == 0 and out.strip() == "Purged 1 request(s) older than 365 days."
    code, out, _ = cli("requests", "erase", "--email", "zoe@example.org", "--yes", "--database", url)
    assert code == 0 and out.strip() == "Erased 1 request(s) for zoe@example.org."
    code, out, _ = cli("requests", "list", "--json", "--database", url)
    assert json.loads(out) == []


def test_requests_commands_use_the_var_directory_by_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPUTEATLAS_DATABASE_URL", raising=False)
    monkeypatch.setenv("COMPUTEATLAS_VAR", str(tmp_path / "v"))
    code, out, _ = cli("requests", "purge", "--older-than", "1")
    assert code == 0 and out.strip() == "Purged 0 request(s) older than 1 days."
    assert (tmp_path / "v" / "ledger.sqlite3").is_file()


def test_requests_commands_reject_bad_input(tmp_path: Path) -> None:
    code, _, err = cli("requests", "purge", "--older-than", "-5", "--database", f"sqlite:///{tmp_path / 'l.db'}")
    assert code == 2 and "--older-than" in err
    code, _, err = cli("requests", "list", "--database", "nosuchdb://x")
    assert code == 1 and "cannot open the ledger at nosuchdb://x" in err
    code, _, err = cli("requests", "erase", "--database", f"sqlite:///{tmp_path / 'l.db'}")
    assert code == 2 and "--email" in err


# --- purge and erase: a documented range, a count, confirmation, --dry-run (tester findings) ---


def test_purge_and_count_check_the_range(ledger: Ledger) -> None:
    from computeatlas.ledger import MAX_RETENTION_DAYS

    record(ledger, person(name="Old"), "key-0000000000000061", NOW - dt.timedelta(days=40))
    record(ledger, person(name="New", email="new@example.org"), "key-0000000000000062", NOW)
    assert ledger.count() == 2 and ledger.count(older_than_days=30, now=NOW) == 1 and ledger.count(email="NEW@example.org") == 1
    for days in (MAX_RETENTION_DAYS + 1, 99999999999):
        with pytest.raises(ValueError, match=f"at most {MAX_RETENTION_DAYS}"):
            ledger.purge(older_than_days=days)
        with pytest.raises(ValueError, match=f"at most {MAX_RETENTION_DAYS}"):
            ledger.count(older_than_days=days)
    assert ledger.purge(older_than_days=MAX_RETENTION_DAYS, now=NOW) == 0 and ledger.count() == 2


@pytest.fixture
def filled(tmp_path: Path) -> str:
    """A SQLite ledger URL with one request from today and one from 2020."""
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    ledger = Ledger.open(url)
    record(ledger, person(), "key-0000000000000071", dt.datetime.now(dt.UTC).replace(tzinfo=None) - dt.timedelta(seconds=5))
    record(ledger, person(name="Ancient", email="old@example.org"), "key-0000000000000072", dt.datetime(2020, 1, 1))
    ledger.close()
    return url


def names(url: str) -> list[str]:
    ledger = Ledger.open(url)
    try:
        return sorted(e.name for e in ledger.list(limit=None))
    finally:
        ledger.close()


@pytest.mark.parametrize("days", ["0", "-1", "36501", "99999999999"])
def test_purge_older_than_outside_1_to_36500_is_refused(filled: str, days: str) -> None:
    result = CliRunner().invoke(app, ["requests", "purge", "--older-than", days, "--yes", "--database", filled])
    assert result.exit_code == 2 and "--older-than" in result.stderr
    assert isinstance(result.exception, SystemExit)  # no OverflowError traceback
    assert len(names(filled)) == 2


def test_purge_help_documents_the_range() -> None:
    result = CliRunner().invoke(app, ["requests", "purge", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0 and "1 to 36500" in result.output and "--dry-run" in result.output and "--yes" in result.output


def test_purge_and_erase_refuse_without_yes_when_nothing_can_ask(filled: str) -> None:
    code, out, err = cli("requests", "purge", "--older-than", "1", "--database", filled)
    assert code == 2 and out == ""
    assert err.startswith("This would delete 1 request(s) older than 1 days") and "add --yes" in err
    code, out, err = cli("requests", "erase", "--email", "ZOE@example.org", "--database", filled)
    assert code == 2 and "This would delete 1 request(s) for ZOE@example.org" in err and "add --yes" in err
    assert names(filled) == ["Ancient", "Zoë O’Brien-Núñez"]


def test_dry_run_only_counts(filled: str) -> None:
    code, out, _ = cli("requests", "purge", "--older-than", "1", "--dry-run", "--database", filled)
    assert code == 0 and out.startswith("Would purge 1 request(s) older than 1 days") and "nothing deleted" in out
    code, out, _ = cli("requests", "erase", "--email", "old@example.org", "--dry-run", "--database", filled)
    assert code == 0 and out.strip() == "Would erase 1 request(s) for old@example.org (dry run: nothing deleted)."
    assert len(names(filled)) == 2


def test_purge_and_erase_ask_first_on_a_terminal(filled: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.cli import dataset as dataset_cli

    monkeypatch.setattr(dataset_cli, "_interactive", lambda: True)
    result = CliRunner().invoke(app, ["requests", "purge", "--older-than", "1", "--database", filled], input="n\n")
    assert result.exit_code == 1 and "This will delete 1 request(s) older than 1 days" in result.stderr
    assert "Nothing was deleted." in result.stderr and len(names(filled)) == 2
    result = CliRunner().invoke(app, ["requests", "purge", "--older-than", "1", "--database", filled], input="y\n")
    assert result.exit_code == 0 and result.stdout.splitlines()[-1] == "Purged 1 request(s) older than 1 days."  # the runner echoes "y"
    assert names(filled) == ["Zoë O’Brien-Núñez"]
    result = CliRunner().invoke(app, ["requests", "erase", "--email", "zoe@example.org", "--database", filled], input="y\n")
    assert result.exit_code == 0 and "This will delete 1 request(s) for zoe@example.org" in result.stderr
    assert names(filled) == []


def test_an_unwritable_ledger_folder_is_named(tmp_path: Path) -> None:
    from computeatlas.ledger import LedgerUnavailable

    blocker = tmp_path / "a-file"
    blocker.write_text("x")
    with pytest.raises(LedgerUnavailable) as raised:
        Ledger.open(f"sqlite:///{blocker / 'var' / 'ledger.sqlite3'}")
    assert raised.value.where == f"folder {blocker / 'var'}" and raised.value.reason
    code, _, err = cli("requests", "list", "--database", f"sqlite:///{blocker / 'var' / 'ledger.sqlite3'}")
    assert code == 1 and " ".join(err.split()).startswith(f"cannot open the ledger at folder {blocker / 'var'}: ")


def test_the_ledger_location_hides_a_password() -> None:
    from computeatlas.ledger import location

    assert location("postgresql://atlas:s3cret@db.example/atlas") == "postgresql://atlas:***@db.example/atlas"


# --- what a visitor typed is printed literally, never read as markup -----------------------


@pytest.mark.parametrize(
    ("name", "organisation"),
    [("[/bold]", "Acme"), ("Mallory", "[link=https://evil.example]x[/link]"), ("[red]Eve[/red] :smile:", "[bold]Org")],
)
def test_requests_list_prints_visitor_text_literally(tmp_path: Path, name: str, organisation: str) -> None:
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    ledger = Ledger.open(url)
    request, errors, _ = check(
        {"name": name, "email": "m@example.org", "organisation": organisation, "intended_use": "research", "licence": "accepted"}
    )
    assert request is not None, errors
    record(ledger, request, "key-0000000000000091")
    ledger.close()
    result = CliRunner().invoke(app, ["requests", "list", "--database", url], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert name in result.stdout and organisation in result.stdout


# --- what the form refuses, and files nobody else can read -----------------------------------


def test_an_email_local_part_of_64_is_accepted_and_65_refused() -> None:
    assert person(email="a" * 64 + "@example.org").email == "a" * 64 + "@example.org"
    request, errors, _ = check(
        {"name": "N", "email": "a" * 65 + "@example.org", "organisation": "O", "intended_use": "research", "licence": "accepted"}
    )
    assert request is None and "too long before the @-sign" in errors["email"]


@pytest.mark.parametrize("name", ["박ㅤ지민", "Ĳssel", "ශ්‍රී", "O’Brien ⠁⠃"])
def test_names_with_some_visible_characters_are_kept(name: str) -> None:
    assert person(name=name).name == name


def test_ledger_and_secret_files_are_readable_by_the_owner_only(tmp_path: Path) -> None:
    from computeatlas.web.guard import load_secret

    folder = tmp_path / "var"
    ledger = Ledger.open(f"sqlite:///{folder / 'ledger.sqlite3'}")
    try:
        record(ledger, person(), "key-0000000000000071")
        with ledger.engine.connect() as connection:  # hold the WAL and shared-memory files open
            names = sorted(p.name for p in folder.iterdir() if p.name.startswith("ledger.sqlite3"))
            assert names == ["ledger.sqlite3", "ledger.sqlite3-shm", "ledger.sqlite3-wal"]
            modes = {p.name: oct(p.stat().st_mode & 0o777) for p in folder.iterdir()}
            assert connection.closed is False
    finally:
        ledger.close()
    load_secret(folder)
    modes["secret.key"] = oct((folder / "secret.key").stat().st_mode & 0o777)
    assert modes == {
        "ledger.sqlite3": "0o600",
        "ledger.sqlite3-shm": "0o600",
        "ledger.sqlite3-wal": "0o600",
        "ledger.migrate.lock": "0o600",
        "secret.key": "0o600",
    }
    assert oct(folder.stat().st_mode & 0o777) == "0o700"


def test_an_existing_world_readable_ledger_is_made_owner_only(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite3"
    Ledger.open(f"sqlite:///{path}").close()
    path.chmod(0o644)
    Ledger.open(f"sqlite:///{path}").close()
    assert oct(path.stat().st_mode & 0o777) == "0o600"


# --- erase leaves no readable copy in the ledger's files --------------------------------------

SECRET_NAME = "Quintessa Vantablack"
SECRET_EMAIL = "quintessa.vantablack@example.org"


def _occurrences(paths: list[Path]) -> list[str]:
    """Which of the paths' bytes hold the secret name or email (UTF-8, any letter case)."""
    found = []
    for path in paths:
        if path.is_file():
            data = path.read_bytes().lower()
            found += [f"{path.name}: {needle}" for needle in (SECRET_NAME, SECRET_EMAIL) if needle.lower().encode() in data]
    return found


@pytest.mark.parametrize("how", ["erase", "purge"])
def test_sqlite_erase_and_purge_leave_no_copy_in_the_database_or_wal(tmp_path: Path, how: str) -> None:
    path = tmp_path / "ledger.sqlite3"
    files = [path, path.with_name(path.name + "-wal")]
    ledger = Ledger.open(f"sqlite:///{path}")
    try:
        record(ledger, person(name=SECRET_NAME, email=SECRET_EMAIL), "key-0000000000000081", NOW - dt.timedelta(days=400))
        for n in range(3):
            record(ledger, person(name=f"Other {n}", email=f"o{n}@example.org"), f"key-000000000000008{n + 2}", NOW)
        with ledger.engine.connect() as connection:  # copy the WAL into the main file too, as a server would over time
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")
        assert len(_occurrences(files)) >= 2  # the test can see the data before it is erased
        deleted = ledger.erase(SECRET_EMAIL) if how == "erase" else ledger.purge(now=NOW)
        assert deleted == 1
        assert _occurrences(files) == []
        assert sorted(e.name for e in ledger.list()) == ["Other 0", "Other 1", "Other 2"]
        assert ledger.integrity() == "ok"
    finally:
        ledger.close()


def test_postgresql_erase_rewrites_the_table_files(tmp_path: Path) -> None:
    from sqlalchemy import text

    with ledger_url("postgresql", tmp_path) as url:
        ledger = Ledger.open(url)
        try:
            record(ledger, person(name=SECRET_NAME, email=SECRET_EMAIL), "key-0000000000000091", NOW)
            record(ledger, person(name="Other", email="other@example.org"), "key-0000000000000092", NOW)

            def relation_files() -> list[Path]:
                with ledger.engine.connect() as connection:
                    connection.exec_driver_sql("CHECKPOINT")  # write shared buffers to the files
                    folder = Path(connection.exec_driver_sql("SHOW data_directory").scalar_one())
                    names = (
                        connection.execute(
                            text(
                                "SELECT pg_relation_filepath(c.oid) FROM pg_class c WHERE c.oid = 'dataset_requests'::regclass "
                                "OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = 'dataset_requests'::regclass)"
                            )
                        )
                        .scalars()
                        .all()
                    )
                return [folder / name for name in names]

            before = relation_files()
            assert any(SECRET_EMAIL.encode() in p.read_bytes() for p in before)  # the test can see it before
            assert ledger.erase(SECRET_EMAIL) == 1
            after = relation_files()
            assert _occurrences(after) == []
            assert all(not p.exists() or p.stat().st_size == 0 for p in set(before) - set(after))
            assert [e.name for e in ledger.list()] == ["Other"]
        finally:
            ledger.close()


# --- retention: 365 days, enforced at start-up, every hour while serving, and by a command ------


def _aged(url: str, now: dt.datetime) -> None:
    ledger = Ledger.open(url)
    record(ledger, person(name="Expired", email="expired@example.org"), "key-0000000000000101", now - dt.timedelta(days=366))
    record(ledger, person(name="Kept", email="kept@example.org"), "key-0000000000000102", now - dt.timedelta(days=364))
    ledger.close()


def _names(url: str) -> list[str]:
    ledger = Ledger.open(url)
    try:
        return sorted(e.name for e in ledger.list(limit=None))
    finally:
        ledger.close()


def test_a_sweep_deletes_requests_older_than_365_days_and_keeps_364(url: str) -> None:
    from computeatlas.ledger import RetentionSweeper

    _aged(url, NOW)
    sweeper = RetentionSweeper(lambda: Ledger.open(url), now=lambda: NOW)
    assert sweeper.sweep() == 1
    assert _names(url) == ["Kept"]
    assert sweeper.sweep() == 0


def test_the_sweeper_keeps_sweeping_while_it_runs(tmp_path: Path) -> None:
    import time

    from computeatlas.ledger import SWEEP_INTERVAL, RetentionSweeper

    assert SWEEP_INTERVAL == 3600
    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    sweeper = RetentionSweeper(lambda: Ledger.open(url), interval=0.05, now=lambda: NOW)
    sweeper.start()
    try:
        _aged(url, NOW)  # recorded after the sweeper started: a later sweep must find it
        deadline = time.monotonic() + 10
        while _names(url) != ["Kept"] and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        sweeper.stop()
    assert _names(url) == ["Kept"]


def test_a_sweep_on_an_unreachable_ledger_is_logged_not_raised(caplog: pytest.LogCaptureFixture) -> None:
    from computeatlas.ledger import LedgerUnavailable, RetentionSweeper

    def broken() -> Ledger:
        raise LedgerUnavailable("postgresql://atlas@db/atlas", "connection refused")

    assert RetentionSweeper(broken).sweep() is None
    assert "the retention sweep could not purge expired requests" in caplog.text


def test_requests_purge_expired_deletes_without_asking(url: str) -> None:
    _aged(url, dt.datetime.now(dt.UTC).replace(tzinfo=None))
    code, out, _ = cli("requests", "purge-expired", "--dry-run", "--database", url)
    assert code == 0 and out.strip() == "Would purge 1 request(s) older than 365 days (dry run: nothing deleted)."
    code, out, _ = cli("requests", "purge-expired", "--database", url)
    assert code == 0 and out.strip() == "Purged 1 request(s) older than 365 days."
    assert _names(url) == ["Kept"]


def test_serve_purges_expired_requests_at_start_up_and_keeps_a_sweeper(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from computeatlas.cli.silicon import start_retention
    from computeatlas.core.settings import Settings

    url = f"sqlite:///{tmp_path / 'ledger.sqlite3'}"
    _aged(url, dt.datetime.now(dt.UTC).replace(tzinfo=None))
    sweeper = start_retention(Settings(database_url=url))
    try:
        assert _names(url) == ["Kept"]
        assert sweeper.interval == 3600 and sweeper._thread is not None and sweeper._thread.is_alive()
    finally:
        sweeper.stop()


def test_opening_the_ledger_again_in_a_process_keeps_its_wal_for_another_process(tmp_path: Path) -> None:
    # Opening a second engine on the file (the rate-limit counts, the retention sweep) used to open
    # and close the database file, which drops every POSIX lock this process holds on it; the
    # next process to close a connection then deleted the WAL under the first engine's writes.
    import subprocess
    import sys

    path = tmp_path / "ledger.sqlite3"
    first = Ledger.open(f"sqlite:///{path}")
    try:
        record(first, person(email="first@example.org"), "key-0000000000000601")
        with first.engine.connect() as held:  # a connection of this process stays open, as a server's pool does
            held.exec_driver_sql("SELECT count(*) FROM dataset_requests").scalar_one()
            Ledger.open(f"sqlite:///{path}").close()
            reader = "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM dataset_requests'); c.close()"
            subprocess.run([sys.executable, "-c", reader, str(path)], check=True)
            assert path.with_name(path.name + "-wal").exists()
            record(first, person(email="second@example.org"), "key-0000000000000602")
    finally:
        first.close()
    raw = sqlite3.connect(path)
    try:
        assert raw.execute("SELECT email FROM dataset_requests ORDER BY id").fetchall() == [("first@example.org",), ("second@example.org",)]
    finally:
        raw.close()

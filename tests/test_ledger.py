"""The request ledger on SQLite and on a real PostgreSQL: record (once per key), list, export,
erase, purge, migrations, and the ``computeatlas requests`` commands."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from computeatlas.cli import app
from computeatlas.core.settings import Settings
from computeatlas.ledger import DatasetRequest, Ledger, check, database_url
from computeatlas.ledger.store import email_key
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
    request, errors, _ = check({"name": name, "email": email, "organisation": "Université de Genève", "intended_use": use, "licence": "accepted"})
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


def test_migrations_build_exactly_the_declared_table(ledger: Ledger) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from computeatlas.ledger.tables import metadata

    with ledger.engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"version_table": "ledger_alembic_version"})
        assert compare_metadata(context, metadata) == []
        assert context.get_current_revision() == "0001"


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
    from computeatlas.ledger.store import _driver_url

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
    assert code == 1 and err.startswith(f"cannot open the ledger at folder {blocker / 'var'}: ") and err.count("\n") == 1


def test_the_ledger_location_hides_a_password() -> None:
    from computeatlas.ledger import location

    assert location("postgresql://atlas:s3cret@db.example/atlas") == "postgresql://atlas:***@db.example/atlas"

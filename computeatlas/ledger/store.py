"""The request ledger: where dataset requests are written, listed, exported, erased and purged.

Storage is chosen by URL (:func:`database_url` of the settings): ``database_url`` if set
(``postgresql://user@host/db`` is read as ``postgresql+psycopg://``), otherwise a SQLite
file ``ledger.sqlite3`` in the data directory ``var`` (default ``./var``).
SQLite runs in WAL mode with ``synchronous=FULL``, so a request whose download was sent
was committed to disk first and survives the server being killed.

The schema is kept by the Alembic migrations in :mod:`computeatlas.ledger.migrations`;
:meth:`Ledger.open` brings the database to the newest revision under a lock (a file lock
for SQLite, an advisory lock for PostgreSQL), so several workers may start at once.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import fcntl
import logging
import os
import unicodedata
from collections.abc import Iterator
from pathlib import Path

from email_validator import EmailNotValidError, validate_email
from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine, create_engine, delete, event, func, insert, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from computeatlas.core.settings import Settings
from computeatlas.ledger.request import DatasetRequest
from computeatlas.ledger.tables import requests

DEFAULT_RETENTION_DAYS = 365
"""Requests older than this are removed by ``computeatlas requests purge``."""

MAX_RETENTION_DAYS = 36500
"""The largest retention :meth:`Ledger.purge` accepts, in days (100 years)."""

log = logging.getLogger("computeatlas.ledger")

SQLITE_NAME = "ledger.sqlite3"
_MIGRATIONS = Path(__file__).resolve().parent / "migrations"
_ADVISORY_LOCK = 0x6361_6C65  # "cale": an arbitrary constant naming the ledger's migration lock


def var_dir(settings: Settings) -> Path:
    """The data directory for writable state: :attr:`Settings.var` (default ``./var``), absolute."""
    return settings.var.resolve()


def database_url(settings: Settings) -> str:
    """The ledger's SQLAlchemy URL: :attr:`Settings.database_url`, else SQLite in :func:`var_dir`."""
    url = settings.database_url.strip()
    return url or f"sqlite:///{var_dir(settings) / SQLITE_NAME}"


class LedgerUnavailable(Exception):
    """The ledger cannot be opened, created or migrated.

    ``where`` names the place (the SQLite file's folder, or the database URL without its
    password) and ``reason`` the cause (the OS or database error, in one line).
    """

    def __init__(self, where: str, reason: str) -> None:
        self.where = where
        self.reason = reason
        super().__init__(f"the request ledger at {where} cannot be opened or created: {reason}")


def location(url: str) -> str:
    """Where the ledger at ``url`` (see :func:`database_url`) lives, for messages.

    SQLite: the folder holding the file; any other database: its URL with the password hidden.
    """
    try:
        parsed = make_url(url)
    except Exception:  # noqa: BLE001  (not a URL at all: show it as given)
        return url
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            return f"folder {Path(parsed.database).parent}"
        return "an in-memory SQLite database"
    return parsed.render_as_string(hide_password=True)


def _reason(exc: BaseException) -> str:
    """One line saying why ``exc`` happened (the OS reason and path, or the database's message)."""
    if isinstance(exc, OSError) and exc.strerror:
        return f"{exc.strerror}" + (f" ({exc.filename})" if exc.filename is not None else "")
    original = getattr(exc, "orig", None)  # SQLAlchemy wraps the driver's error
    text = str(original if original is not None else exc) or type(exc).__name__
    return " ".join(text.split())


def safe_reason(exc: BaseException) -> str:
    """One line for a log saying why a ledger operation failed, carrying nothing a visitor typed.

    The error's class and the database's primary message only (``OperationalError: disk I/O
    error``): never the statement's parameters, nor PostgreSQL's ``DETAIL`` (which can quote
    the failing row). Used by the web layer's log lines; the operator reads the cause there.
    """
    if isinstance(exc, LedgerUnavailable):  # where and why it cannot be opened: no row involved
        return str(exc)
    original = getattr(exc, "orig", None)
    if original is None:
        return type(exc).__name__ + (f": {exc.strerror}" if isinstance(exc, OSError) and exc.strerror else "")
    diag = getattr(original, "diag", None)  # psycopg: the primary message without DETAIL or the row
    message = getattr(diag, "message_primary", None) if diag is not None else None
    if message is None:
        message = str(original).splitlines()[0] if str(original) else ""
    return f"{type(original).__name__}: {' '.join(message.split())}" if message else type(original).__name__


def _driver_url(url: str) -> str:
    """Use psycopg (v3) for ``postgresql://`` and ``postgres://`` URLs that name no driver."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix):]
    return url


class LedgerEntry(BaseModel):
    """One recorded request, as ``requests list`` and ``requests export`` show it."""

    model_config = ConfigDict(extra="ignore")

    id: int
    created_at: dt.datetime
    kind: str
    name: str
    email: str
    organisation: str
    intended_use: str
    licence_accepted: bool
    data_version: str
    schema_version: str


def email_key(email: str) -> str:
    """The lookup key of an email address: normalised as the form normalises it, then casefolded.

    ``Zoë@Example.ORG`` and ``ZOË@example.org`` share one key, so an operator finds a
    person's requests however they type the address.
    """
    text = unicodedata.normalize("NFC", email.strip())
    try:
        text = validate_email(text, check_deliverability=False).normalized
    except EmailNotValidError:
        pass
    return text.casefold()


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(tzinfo=None)


def _cutoff(older_than_days: int, now: dt.datetime | None) -> dt.datetime:
    """``now`` (default the current naive UTC time) minus ``older_than_days`` days, range-checked."""
    if older_than_days < 0:
        raise ValueError("older_than_days must not be negative")
    if older_than_days > MAX_RETENTION_DAYS:
        raise ValueError(f"older_than_days must be at most {MAX_RETENTION_DAYS} (100 years)")
    return (now or _utcnow()) - dt.timedelta(days=older_than_days)


OWNER_ONLY = 0o600
"""Mode of every ledger file (the SQLite database, its ``-wal`` and ``-shm`` files, the lock):
read and write for the owner, nothing for anyone else."""


def _owner_only(path: Path) -> None:
    """Create ``path`` (empty) with mode :data:`OWNER_ONLY`, or set that mode on an existing file.

    Raises ``OSError`` when the file cannot be created or its mode changed."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, OWNER_ONLY)
    try:
        os.fchmod(fd, OWNER_ONLY)  # an existing file keeps its mode through os.open: set it
    finally:
        os.close(fd)


def _sqlite_files(database: Path) -> None:
    """Make the SQLite ``database`` file (created empty if missing) and any ``-wal``/``-shm``
    beside it owner-only; SQLite gives the WAL and shared-memory files it creates later the
    database file's mode. A new folder is created with mode 0700."""
    database.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    _owner_only(database)
    for suffix in ("-wal", "-shm", "-journal"):
        companion = database.with_name(database.name + suffix)
        if companion.exists():
            companion.chmod(OWNER_ONLY)


def engine_for(url: str) -> Engine:
    """An engine for ``url``; SQLite connections get WAL, ``synchronous=FULL``, a 30 s busy
    timeout and ``secure_delete`` (a deleted row's bytes are overwritten with zeros).

    Creates the SQLite file's folder when missing; the database, WAL and shared-memory files
    are owner-only (:data:`OWNER_ONLY`). Statement parameters (what visitors typed) never
    appear in SQLAlchemy's log lines or error messages (``hide_parameters``). Raises
    ``OSError`` when the SQLite file or its folder cannot be created.
    """
    url = _driver_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20, hide_parameters=True)
    if parsed.database and parsed.database != ":memory:":
        _sqlite_files(Path(parsed.database))
    engine = create_engine(url, connect_args={"timeout": 30}, pool_size=10, max_overflow=20, hide_parameters=True)

    @event.listens_for(engine, "connect")
    def _pragmas(dbapi_connection, _record) -> None:  # type: ignore[no-untyped-def]
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA busy_timeout = 30000")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = FULL")
        cursor.execute("PRAGMA secure_delete = ON")  # deleted rows are overwritten with zeros, not left in free space
        cursor.close()

    return engine


@contextlib.contextmanager
def _migration_lock(engine: Engine) -> Iterator[None]:
    """Hold an exclusive lock across processes while migrating."""
    if engine.dialect.name == "sqlite" and engine.url.database not in (None, "", ":memory:"):
        lock_path = Path(engine.url.database).with_suffix(".migrate.lock")
        _owner_only(lock_path)
        with open(lock_path, "a+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
    else:
        yield


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` with the packaged Alembic migrations, under a lock."""
    from alembic import command
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    with _migration_lock(engine), engine.begin() as connection:
        if connection.dialect.name == "postgresql":
            connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _ADVISORY_LOCK})
        config.attributes["connection"] = connection
        command.upgrade(config, revision)


class Ledger:
    """The store of dataset requests over one SQLAlchemy engine.

    Use :meth:`open` (which migrates) rather than the constructor. Every method opens
    its own transaction; a write has committed when the method returns.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @classmethod
    def open(cls, url: str) -> Ledger:
        """Open (creating and migrating as needed) the ledger at ``url`` (see :func:`database_url`).

        Raises :class:`LedgerUnavailable` (naming the folder or database and the reason)
        when the folder cannot be created or written, the database cannot be reached, or
        the migrations fail.
        """
        from alembic.util import CommandError

        engine = None
        try:
            engine = engine_for(url)
            migrate(engine)
        except (OSError, SQLAlchemyError, CommandError) as exc:
            if engine is not None:
                engine.dispose()
            raise LedgerUnavailable(location(url), _reason(exc)) from exc
        except ImportError as exc:  # a URL for a database whose driver is not installed (mysql://, …)
            raise LedgerUnavailable(
                location(url), f"no driver for this database ({exc.name or exc}); the ledger runs on sqlite:// or postgresql://"
            ) from exc
        return cls(engine)

    def close(self) -> None:
        """Release the engine's connections."""
        self.engine.dispose()

    def record(
        self,
        request: DatasetRequest,
        key: str,
        *,
        data_version: str,
        schema_version: str,
        now: dt.datetime | None = None,
    ) -> tuple[LedgerEntry, bool]:
        """Record ``request`` under the one-time ``key``; return ``(entry, created)``.

        A second call with the same key records nothing and returns the first entry with
        ``created`` False. ``now`` is naive UTC (default: the current time). Committed on return.
        """
        values = {
            "idempotency_key": key,
            "created_at": now or _utcnow(),
            "kind": request.kind,
            "name": request.name,
            "email": request.email,
            "email_key": email_key(request.email),
            "organisation": request.organisation,
            "intended_use": request.intended_use,
            "licence_accepted": request.licence_accepted,
            "data_version": data_version,
            "schema_version": schema_version,
        }
        dialect = self.engine.dialect.name
        with self.engine.begin() as connection:
            if dialect in ("sqlite", "postgresql"):
                module = __import__(f"sqlalchemy.dialects.{dialect}", fromlist=["insert"])
                statement = (
                    module.insert(requests).values(values).on_conflict_do_nothing(index_elements=["idempotency_key"])
                    .returning(requests.c.id)
                )
                created = connection.execute(statement).first() is not None
            else:  # any other database: rely on the unique constraint
                try:
                    with connection.begin_nested():
                        connection.execute(insert(requests).values(values))
                    created = True
                except IntegrityError:
                    created = False
            row = connection.execute(select(requests).where(requests.c.idempotency_key == key)).mappings().one()
        return LedgerEntry.model_validate(dict(row)), created

    def list(self, limit: int | None = 100) -> list[LedgerEntry]:
        """The newest ``limit`` requests (all when None), newest first."""
        query = select(requests).order_by(requests.c.created_at.desc(), requests.c.id.desc())
        if limit is not None:
            query = query.limit(limit)
        with self.engine.connect() as connection:
            return [LedgerEntry.model_validate(dict(r)) for r in connection.execute(query).mappings()]

    def count(self, *, email: str | None = None, older_than_days: int | None = None, now: dt.datetime | None = None) -> int:
        """How many requests are recorded: all of them, or those :meth:`erase` (``email``) or
        :meth:`purge` (``older_than_days`` before ``now``, naive UTC) would delete.

        Raises ``ValueError`` for ``older_than_days`` outside 0 to :data:`MAX_RETENTION_DAYS`.
        """
        query = select(func.count()).select_from(requests)
        if email is not None:
            query = query.where(requests.c.email_key == email_key(email))
        if older_than_days is not None:
            query = query.where(requests.c.created_at < _cutoff(older_than_days, now))
        with self.engine.connect() as connection:
            return connection.execute(query).scalar_one()

    def export(self, email: str) -> list[LedgerEntry]:
        """Every request made with ``email`` (any case, see :func:`email_key`), oldest first."""
        query = (
            select(requests)
            .where(requests.c.email_key == email_key(email))
            .order_by(requests.c.created_at, requests.c.id)
        )
        with self.engine.connect() as connection:
            return [LedgerEntry.model_validate(dict(r)) for r in connection.execute(query).mappings()]

    def erase(self, email: str) -> int:
        """Delete every request made with ``email`` (any case, see :func:`email_key`); return how many.

        When any were deleted, :meth:`scrub` then removes their bytes from the ledger's files.
        """
        with self.engine.begin() as connection:
            deleted = connection.execute(delete(requests).where(requests.c.email_key == email_key(email))).rowcount
        if deleted:
            self.scrub()
        return deleted

    def purge(self, older_than_days: int = DEFAULT_RETENTION_DAYS, now: dt.datetime | None = None) -> int:
        """Delete requests recorded more than ``older_than_days`` days before ``now`` (naive
        UTC, default the current time); return how many.

        When any were deleted, :meth:`scrub` then removes their bytes from the ledger's files.
        Raises ``ValueError`` for a negative number of days or more than :data:`MAX_RETENTION_DAYS`.
        """
        cutoff = _cutoff(older_than_days, now)
        with self.engine.begin() as connection:
            deleted = connection.execute(delete(requests).where(requests.c.created_at < cutoff)).rowcount
        if deleted:
            self.scrub()
        return deleted

    def scrub(self) -> bool:
        """Leave no readable copy of deleted rows in the files the database keeps the table in.

        - SQLite: deleted rows were already zeroed (``secure_delete``); a ``wal_checkpoint(TRUNCATE)``
          copies the zeroed pages into the main file and empties the ``-wal`` file, whose older
          frames still held the rows. It waits for readers up to the busy timeout (30 s).
        - PostgreSQL: ``VACUUM FULL`` of the table rewrites it and its indexes into new files;
          the old files are removed (emptied at once, unlinked at the next checkpoint). It holds an
          exclusive lock on the table while it runs (milliseconds for a small ledger), so form
          writes wait. What this cannot reach: the server's write-ahead log (``pg_wal``), its
          archives and replicas, backups, and freed disk blocks; see the README.

        Returns True when done completely, False when a SQLite reader kept the WAL from being
        emptied (the deletion itself is committed either way; a later scrub finishes it). Raises
        :class:`sqlalchemy.exc.SQLAlchemyError` when the database refuses (e.g. a PostgreSQL
        user that does not own the table).
        """
        with self.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
            if self.engine.dialect.name == "sqlite":
                busy, _, _ = connection.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)").one()
                if busy:
                    log.warning("the ledger's WAL could not be emptied (a reader held it); erased rows remain in "
                                "ledger.sqlite3-wal until the next erase, purge or restart")
                return not busy
            if self.engine.dialect.name == "postgresql":
                connection.exec_driver_sql(f"VACUUM FULL {requests.name}")
            return True

    def integrity(self) -> str:
        """``"ok"`` when the database checks clean (SQLite ``PRAGMA integrity_check``; a query elsewhere)."""
        with self.engine.connect() as connection:
            if self.engine.dialect.name == "sqlite":
                return connection.execute(text("PRAGMA integrity_check")).scalar_one()
            connection.execute(select(func.count()).select_from(requests)).scalar_one()
            return "ok"

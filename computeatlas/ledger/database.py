"""Where the request ledger lives and how its database is reached.

Storage is chosen by URL (:func:`database_url` of the settings): ``database_url`` if set
(``postgresql://user@host/db`` is read as ``postgresql+psycopg://``), otherwise a SQLite
file ``ledger.sqlite3`` in the data directory ``var`` (default ``./var``). SQLite runs in
WAL mode with ``synchronous=FULL``, so a request whose download was sent was committed to
disk first and survives the server being killed; its files are owner-only.

The schema is kept by the Alembic migrations in :mod:`computeatlas.ledger.migrations`;
:func:`migrate` brings the database to the newest revision under a lock (a file lock for
SQLite, an advisory lock for PostgreSQL), so several workers may start at once.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path

from sqlalchemy import Engine, create_engine, event, text
from sqlalchemy.engine import make_url

from computeatlas.core.settings import Settings

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
    except Exception:
        return url
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            return f"folder {Path(parsed.database).parent}"
        return "an in-memory SQLite database"
    return parsed.render_as_string(hide_password=True)


def reason_of(exc: BaseException) -> str:
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
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


OWNER_ONLY = 0o600
"""Mode of every ledger file (the SQLite database, its ``-wal`` and ``-shm`` files, the lock):
read and write for the owner, nothing for anyone else."""


def _owner_only(path: Path) -> None:
    """Create ``path`` (empty) with mode :data:`OWNER_ONLY`, or set that mode on an existing file.

    An existing file is never opened: closing any descriptor of a SQLite database drops every
    POSIX lock this process holds on it, its SQLite connections' included. Another process (an
    operator's ``computeatlas requests`` command) then found no lock, took itself for the last
    user, checkpointed and deleted the WAL under the server, and the server's next commits went
    to the deleted file ("disk I/O error", answered requests lost). A second engine on the same
    file in one process (the rate-limit counts, the retention sweep) did that open and close.

    Raises ``OSError`` when the file cannot be created or its mode changed."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, OWNER_ONLY)
    except FileExistsError:
        os.chmod(path, OWNER_ONLY)
        return
    try:
        os.fchmod(fd, OWNER_ONLY)  # exactly 0600, whatever the umask
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
    def _pragmas(dbapi_connection, _record) -> None:
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

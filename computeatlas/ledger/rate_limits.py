"""Rate-limit counts kept in the ledger's database, so that every worker and instance shares one count.

:class:`SQLStorage` is a storage for the ``limits`` library's moving-window strategy
(:class:`limits.strategies.MovingWindowRateLimiter`, what :class:`~computeatlas.web.guard.FormGuard`
uses), over a SQLAlchemy URL: ``limits`` itself stores counts in memory (one process), Redis,
Memcached or MongoDB, never in a SQL database. Importing this module registers it with ``limits``
for the schemes ``sqlite``, ``postgresql``, ``postgresql+psycopg`` and ``postgres``, so
``limits.storage.storage_from_string(url)`` of a ledger URL returns one.

One table, ``rate_limit_hits`` (:mod:`computeatlas.ledger.tables`, created by the ledger's migration 0002): a row per admitted hit
holding the rate-limit key, the time of the hit and the time it leaves its window (seconds since
the epoch, by this host's clock). Admitting a hit is one transaction that counts the key's hits in
the window and inserts the new one only when the count stays within the limit, serialised so that
two workers never both take the last place:

- SQLite: ``BEGIN IMMEDIATE`` takes the database's write lock before counting (another writer
  waits up to the ledger's 30 s busy timeout);
- PostgreSQL: ``pg_advisory_xact_lock`` on the key's hash, held until the commit.

The same transaction deletes every key's expired rows, so the table holds at most one row per hit
still inside its window. Counting is exact, as ``memory://`` is in one process; a refused hit is
not stored. The keys are whatever the caller passes: :class:`FormGuard` passes an HMAC of the
client's address, never the address. The table is created on first use (the ledger's migrations,
under their lock), so the storage can be built before the database is reachable.
"""

from __future__ import annotations

import threading
import time
import zlib

from limits.errors import ConfigurationError
from limits.storage import MovingWindowSupport, Storage
from sqlalchemy import Connection, Engine, delete, func, insert, select, text
from sqlalchemy.exc import SQLAlchemyError

from computeatlas.ledger.database import engine_for, migrate
from computeatlas.ledger.tables import rate_limit_hits as hits

_LOCK_SPACE = 0x726C  # "rl": the first half of the two-part PostgreSQL advisory lock of a key


class SQLStorage(Storage, MovingWindowSupport):
    """A ``limits`` storage over the SQLite or PostgreSQL database at a SQLAlchemy ``uri``
    (``sqlite:///var/ledger.sqlite3``, ``postgresql://user@host/db``), for the moving window only.

    The fixed-window methods (``incr``, ``get``, ``get_expiry``) raise ``NotImplementedError``:
    only :class:`limits.strategies.MovingWindowRateLimiter` can use this storage. Database errors
    are :class:`sqlalchemy.exc.SQLAlchemyError` (or ``OSError`` when a SQLite folder cannot be
    created), raised by the first method that needs the database, wrapped in
    :class:`limits.errors.StorageError` when ``wrap_exceptions`` is True. Raises
    :class:`limits.errors.ConfigurationError` for a database other than SQLite or PostgreSQL.
    """

    STORAGE_SCHEME = ["sqlite", "postgresql", "postgresql+psycopg", "postgres"]  # noqa: RUF012 - limits declares it an instance attribute

    def __init__(self, uri: str | None = None, wrap_exceptions: bool = False, **options: float | str | bool) -> None:
        if not uri or not uri.split("://")[0].startswith(("sqlite", "postgres")):
            raise ConfigurationError(f"rate-limit storage {uri!r}: the ledger's database must be sqlite:// or postgresql://")
        self.uri = uri
        self._engine: Engine | None = None
        self._ready = threading.Lock()
        super().__init__(uri, wrap_exceptions=wrap_exceptions, **options)

    @property
    def base_exceptions(self) -> type[Exception] | tuple[type[Exception], ...]:
        """What the database raises: SQLAlchemy's errors, and ``OSError`` for a SQLite folder."""
        return (SQLAlchemyError, OSError)

    def engine(self) -> Engine:
        """The engine, made and migrated on first use (the ledger's :func:`engine_for` and :func:`migrate`)."""
        with self._ready:
            if self._engine is None:
                engine = engine_for(self.uri)
                try:
                    migrate(engine)
                except BaseException:
                    engine.dispose()
                    raise
                self._engine = engine
            return self._engine

    def _locked(self, key: str) -> _Transaction:
        return _Transaction(self.engine(), key)

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        """Admit ``amount`` hits on ``key`` when, with them, at most ``limit`` hits fall in the
        last ``expiry`` seconds; return whether they were admitted (committed on return)."""
        if amount > limit:
            return False
        with self._locked(key) as connection:
            now = time.time()
            connection.execute(delete(hits).where(hits.c.expires_at <= now))
            used = connection.execute(
                select(func.count()).select_from(hits).where(hits.c.key == key, hits.c.at > now - expiry)
            ).scalar_one()
            if used + amount > limit:
                return False
            connection.execute(insert(hits), [{"key": key, "at": now, "expires_at": now + expiry}] * amount)
            return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        """``(time of the oldest hit in the window, hits in the window)`` for ``key`` over the last
        ``expiry`` seconds; ``(now, 0)`` when there are none. Times in seconds since the epoch."""
        now = time.time()
        with self.engine().connect() as connection:
            oldest, count = connection.execute(
                select(func.min(hits.c.at), func.count()).where(hits.c.key == key, hits.c.at > now - expiry)
            ).one()
        return (float(oldest), int(count)) if count else (now, 0)

    def incr(self, key: str, expiry: float, amount: int = 1) -> int:
        """Not supported: fixed windows are not kept here (use the moving window)."""
        raise NotImplementedError("SQLStorage keeps moving windows only (limits.strategies.MovingWindowRateLimiter)")

    def get(self, key: str) -> int:
        """Not supported (see :meth:`incr`)."""
        raise NotImplementedError("SQLStorage keeps moving windows only (limits.strategies.MovingWindowRateLimiter)")

    def get_expiry(self, key: str) -> float:
        """Not supported (see :meth:`incr`)."""
        raise NotImplementedError("SQLStorage keeps moving windows only (limits.strategies.MovingWindowRateLimiter)")

    def check(self) -> bool:
        """True when the database answers a query on the table."""
        try:
            with self.engine().connect() as connection:
                connection.execute(select(func.count()).select_from(hits)).scalar_one()
        except (SQLAlchemyError, OSError):
            return False
        return True

    def reset(self) -> int | None:
        """Delete every stored hit; return how many rows went."""
        with self.engine().begin() as connection:
            return connection.execute(delete(hits)).rowcount

    def clear(self, key: str) -> None:
        """Forget every hit of ``key``."""
        with self.engine().begin() as connection:
            connection.execute(delete(hits).where(hits.c.key == key))

    def close(self) -> None:
        """Release the engine's connections (a later call opens them again)."""
        with self._ready:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None


class _Transaction:
    """A write transaction serialised for one rate-limit key (see the module docstring)."""

    def __init__(self, engine: Engine, key: str) -> None:
        self.engine, self.key = engine, key
        self.connection: Connection | None = None

    def __enter__(self) -> Connection:
        if self.engine.dialect.name == "sqlite":
            # AUTOCOMMIT hands transaction control to us: the driver issues no BEGIN of its own.
            connection = self.engine.connect().execution_options(isolation_level="AUTOCOMMIT")
            try:
                connection.exec_driver_sql("BEGIN IMMEDIATE")
            except BaseException:
                connection.close()
                raise
        else:
            connection = self.engine.connect()
            connection.begin()
            try:
                connection.execute(
                    text("SELECT pg_advisory_xact_lock(:space, :key)"), {"space": _LOCK_SPACE, "key": zlib.crc32(self.key.encode()) - 2**31}
                )
            except BaseException:
                connection.close()
                raise
        self.connection = connection
        return connection

    def __exit__(self, kind: object, error: object, traceback: object) -> None:
        connection = self.connection
        assert connection is not None
        try:
            if self.engine.dialect.name == "sqlite":
                connection.exec_driver_sql("ROLLBACK" if kind is not None else "COMMIT")
            elif kind is None:
                connection.commit()
            else:
                connection.rollback()
        finally:
            connection.close()


__all__ = ["SQLStorage"]

"""The request ledger: where dataset requests are written, listed, exported, erased and purged.

Where the database lives, how it is reached and migrated is :mod:`computeatlas.ledger.database`;
:meth:`Ledger.open` opens and migrates it.
"""

from __future__ import annotations

import builtins
import datetime as dt
import logging
import unicodedata

from email_validator import EmailNotValidError, validate_email
from pydantic import BaseModel, ConfigDict
from sqlalchemy import Engine, delete, func, insert, select, text
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from computeatlas.ledger.database import (
    LedgerUnavailable,
    engine_for,
    location,
    migrate,
    reason_of,
)
from computeatlas.ledger.request import DatasetRequest
from computeatlas.ledger.tables import requests
from computeatlas.ledger.wal import WalPurge, purge_wal

DEFAULT_RETENTION_DAYS = 365
"""Requests older than this are removed by ``computeatlas requests purge``."""

MAX_RETENTION_DAYS = 36500
"""The largest retention :meth:`Ledger.purge` accepts, in days (100 years)."""

log = logging.getLogger("computeatlas.ledger")


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
            raise LedgerUnavailable(location(url), reason_of(exc)) from exc
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
                    module.insert(requests)
                    .values(values)
                    .on_conflict_do_nothing(index_elements=["idempotency_key"])
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

    def export(self, email: str) -> builtins.list[LedgerEntry]:
        """Every request made with ``email`` (any case, see :func:`email_key`), oldest first."""
        query = select(requests).where(requests.c.email_key == email_key(email)).order_by(requests.c.created_at, requests.c.id)
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
                    log.warning(
                        "the ledger's WAL could not be emptied (a reader held it); erased rows remain in "
                        "ledger.sqlite3-wal until the next erase, purge or restart"
                    )
                return not busy
            if self.engine.dialect.name == "postgresql":
                connection.exec_driver_sql(f"VACUUM FULL {requests.name}")
            return True

    def purge_wal(self) -> WalPurge:
        """PostgreSQL: close and checkpoint the write-ahead log that still holds erased rows, with
        the commands this connection may run; report what was done and what still holds them
        (:func:`computeatlas.ledger.wal.purge_wal`). SQLite: nothing to do (:meth:`scrub` emptied its WAL)."""
        return purge_wal(self.engine)

    def integrity(self) -> str:
        """``"ok"`` when the database checks clean (SQLite ``PRAGMA integrity_check``; a query elsewhere)."""
        with self.engine.connect() as connection:
            if self.engine.dialect.name == "sqlite":
                return connection.execute(text("PRAGMA integrity_check")).scalar_one()
            connection.execute(select(func.count()).select_from(requests)).scalar_one()
            return "ok"

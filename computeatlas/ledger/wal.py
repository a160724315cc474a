"""After an erase on PostgreSQL: closing and removing the write-ahead log that still holds the rows.

:meth:`Ledger.erase` deletes the rows and rewrites the table (``VACUUM FULL``), so the table's
and its indexes' files no longer hold them. The server's write-ahead log (``pg_wal``) still
does: every inserted row is written there whole (and, with ``full_page_writes``, every page a
checkpoint later touched), in 16 MB segment files that PostgreSQL keeps until a checkpoint no
longer needs them. :func:`purge_wal` runs, on the ledger's own connection, what moves those
segments out (each step is tried and reported; one the user may not run is skipped, saying why):

1. ``VACUUM FULL pg_statistic``: rewrites the planner statistics catalog, so values an ANALYZE
   collected before migration 0003 (most-common values, histogram bounds: e-mail addresses)
   leave its file. Superusers only; skipped otherwise.
2. ``SELECT pg_switch_wal()``: closes the current segment, which holds the most recent rows and
   the erase itself. Superusers, or a user granted ``EXECUTE`` on the function.
3. ``CHECKPOINT``: once it completes, every segment before it is no longer needed for crash
   recovery and is removed, or, with ``wal_recycle = on`` (the default), renamed for reuse and
   kept with its bytes until new WAL overwrites it. Superusers, or members of ``pg_checkpoint``
   (PostgreSQL 15 and later).

:class:`WalPurge` also reads the settings that decide what is left (``wal_recycle``,
``archive_mode``, ``wal_keep_size``, replication slots) and says in :attr:`WalPurge.remaining`
what still holds the rows: nothing here reaches WAL archives, replicas, backups, or blocks the
file system freed. SQLite needs none of this (the erase empties its ``-wal`` file).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from computeatlas.ledger.database import reason_of

COMMANDS = ("VACUUM FULL pg_statistic", "SELECT pg_switch_wal()", "CHECKPOINT")
"""What :func:`purge_wal` runs, in order."""


@dataclass(frozen=True)
class Step:
    """One command of the purge: ``done``, or not, with ``note`` saying why not."""

    command: str
    done: bool
    note: str = ""


@dataclass(frozen=True)
class WalPurge:
    """What :func:`purge_wal` did (``steps``), the server's settings it read (``settings``:
    name → value as ``SHOW`` gives it, plus ``replication_slots``), and what still holds the
    erased rows (``remaining``: one sentence each)."""

    steps: tuple[Step, ...] = ()
    settings: dict[str, str] = field(default_factory=dict)
    remaining: tuple[str, ...] = ()

    @property
    def complete(self) -> bool:
        """True when every step ran and no setting keeps old segments in ``pg_wal``."""
        return bool(self.steps) and all(s.done for s in self.steps) and not any(r.startswith("pg_wal") for r in self.remaining)


ALWAYS = (
    "Out of reach of the ledger: WAL archives, replicas (their own pg_wal), backups and snapshots, "
    "and disk blocks the file system freed (use encrypted storage)."
)


def _settings(connection) -> dict[str, str]:
    names = ("wal_recycle", "archive_mode", "wal_keep_size", "full_page_writes")
    found = {n: connection.execute(text("SELECT current_setting(:n)"), {"n": n}).scalar_one() for n in names}
    found["replication_slots"] = str(connection.execute(text("SELECT count(*) FROM pg_replication_slots")).scalar_one())
    return found


def _remaining(settings: dict[str, str], steps: tuple[Step, ...]) -> tuple[str, ...]:
    left = []
    if not all(s.done for s in steps if s.command != COMMANDS[0]):
        left.append(
            "pg_wal: the segments holding the rows stay until the server's own checkpoints pass them "
            "(the current one only once 16 MB more WAL fill it); grant the ledger's user EXECUTE ON FUNCTION "
            "pg_switch_wal() and the pg_checkpoint role, or run these commands as a superuser."
        )
    if settings.get("wal_recycle") == "on":
        left.append(
            "pg_wal: wal_recycle is on, so the checkpoint renamed the old segments for reuse instead of "
            "removing them, and they hold the rows until new WAL overwrites them; set wal_recycle = off "
            "(ALTER SYSTEM SET wal_recycle = off; SELECT pg_reload_conf()) and purge again."
        )
    if settings.get("wal_keep_size") not in (None, "0", "0MB") or settings.get("replication_slots") not in (None, "0"):
        left.append(
            f"pg_wal: wal_keep_size ({settings.get('wal_keep_size')}) and {settings.get('replication_slots')} "
            "replication slot(s) keep old segments until they are past them."
        )
    if settings.get("archive_mode") not in (None, "off"):
        left.append(
            "Archive: archive_mode is on, so the segments were (or, until archived, will be) copied to the "
            "WAL archive; expire the archive within the retention."
        )
    if not steps[0].done:
        left.append(
            "pg_statistic: statistics collected before migration 0003 may hold values from the personal "
            "columns until a superuser runs VACUUM FULL pg_statistic."
        )
    left.append(ALWAYS)
    return tuple(left)


def purge_wal(engine: Engine) -> WalPurge:
    """Run :data:`COMMANDS` on ``engine`` (PostgreSQL) in autocommit, each one that the user may
    run; return what was done and what is left. On any other database, nothing is run and
    ``remaining`` says why none is needed. Raises :class:`sqlalchemy.exc.SQLAlchemyError` when
    the database cannot be reached; a command the server refuses is reported, not raised."""
    if engine.dialect.name != "postgresql":
        return WalPurge(remaining=("SQLite: the erase already emptied ledger.sqlite3-wal; there is no other log to purge.",))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        settings = _settings(connection)
        superuser = connection.execute(text("SELECT rolsuper FROM pg_roles WHERE rolname = current_user")).scalar_one()
        steps = []
        for command in COMMANDS:
            if command == COMMANDS[0] and not superuser:  # a non-superuser's VACUUM of it only warns and skips
                steps.append(Step(command, False, "not run: only a superuser may vacuum pg_statistic"))
                continue
            try:
                connection.exec_driver_sql(command)
            except DBAPIError as exc:  # e.g. permission denied; in autocommit the connection goes on
                steps.append(Step(command, False, f"refused: {reason_of(exc)}"))
            else:
                steps.append(Step(command, True))
    done = tuple(steps)
    return WalPurge(done, settings, _remaining(settings, done))


__all__ = ["COMMANDS", "Step", "WalPurge", "purge_wal"]

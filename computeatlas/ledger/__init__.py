"""The request ledger: the one place Compute Atlas writes.

- :mod:`~computeatlas.ledger.request`: the form's fields and how typed text is checked;
- :mod:`~computeatlas.ledger.tables`: the SQLAlchemy Core tables;
- :mod:`~computeatlas.ledger.database`: where the ledger lives (the database URL), the engine
  with its SQLite settings and owner-only files, the Alembic migrations, :class:`LedgerUnavailable`;
- :mod:`~computeatlas.ledger.store`: :class:`Ledger` (record, list, count, export, erase, purge);
- :mod:`~computeatlas.ledger.retention`: :class:`RetentionSweeper`, which deletes expired requests;
- :mod:`~computeatlas.ledger.wal`: after an erase on PostgreSQL, closing and checkpointing the WAL that holds it;
- :mod:`~computeatlas.ledger.rate_limits`: the form's rate-limit counts, in the same database.
"""

from computeatlas.ledger.database import LedgerUnavailable, database_url, location, var_dir
from computeatlas.ledger.request import (
    FORM_FIELDS,
    INTENDED_USES,
    DatasetRequest,
    check,
)
from computeatlas.ledger.retention import SWEEP_INTERVAL, RetentionSweeper
from computeatlas.ledger.store import (
    DEFAULT_RETENTION_DAYS,
    MAX_RETENTION_DAYS,
    Ledger,
    LedgerEntry,
)
from computeatlas.ledger.wal import WalPurge

__all__ = [
    "DEFAULT_RETENTION_DAYS",
    "FORM_FIELDS",
    "INTENDED_USES",
    "MAX_RETENTION_DAYS",
    "SWEEP_INTERVAL",
    "DatasetRequest",
    "Ledger",
    "LedgerEntry",
    "LedgerUnavailable",
    "RetentionSweeper",
    "WalPurge",
    "check",
    "database_url",
    "location",
    "var_dir",
]

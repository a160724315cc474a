"""Helpers for the ledger tests: ledger URLs for SQLite and for a real PostgreSQL.

``scripts/with-postgres.sh`` (run by ``make test``) starts a throwaway PostgreSQL and sets
``COMPUTEATLAS_TEST_POSTGRES_URL``; without it the PostgreSQL variants skip, saying so.
Each PostgreSQL test gets a database of its own, dropped afterwards.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

POSTGRES_ENV = "COMPUTEATLAS_TEST_POSTGRES_URL"
BACKENDS = ("sqlite", "postgresql")


def _admin_url() -> str:
    url = os.environ.get(POSTGRES_ENV, "")
    if not url:
        pytest.skip(f"{POSTGRES_ENV} is not set: run `make test` (scripts/with-postgres.sh) for the PostgreSQL tests")
    return url


@contextmanager
def postgres_database() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test; yields its SQLAlchemy URL."""
    import psycopg
    from sqlalchemy.engine import make_url

    admin = make_url(_admin_url())
    name = f"atlas_{secrets.token_hex(6)}"
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@contextmanager
def ledger_url(backend: str, folder: Path) -> Iterator[str]:
    """A ledger URL for ``backend`` (``sqlite`` in ``folder``, or a fresh PostgreSQL database)."""
    if backend == "sqlite":
        yield f"sqlite:///{folder / 'ledger.sqlite3'}"
    else:
        with postgres_database() as url:
            yield url

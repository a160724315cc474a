"""Alembic migrations of the ledger, run programmatically by :func:`computeatlas.ledger.database.migrate`."""

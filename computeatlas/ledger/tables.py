"""The ledger's one table, as SQLAlchemy Core metadata (the migrations create it).

``dataset_requests`` holds what people type on ``/data/`` and nothing else: no IP
address, no user agent. ``created_at`` is naive UTC. ``idempotency_key`` (unique) is the
one-time key the form carries, so submitting the same form twice records one row.
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Integer, MetaData, String, Table

from computeatlas.ledger.request import MAX_EMAIL, MAX_NAME, MAX_ORGANISATION

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_name)s",
        "uq": "uq_%(table_name)s_%(column_0_name)s",
        "pk": "pk_%(table_name)s",
    }
)

requests = Table(
    "dataset_requests",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("idempotency_key", String(64), nullable=False, unique=True),
    Column("created_at", DateTime(timezone=False), nullable=False, index=True),
    Column("kind", String(16), nullable=False, comment="download or enquiry"),
    Column("name", String(MAX_NAME), nullable=False),
    Column("email", String(MAX_EMAIL), nullable=False),
    Column("email_key", String(MAX_EMAIL), nullable=False, index=True, comment="casefolded email, for export and erase"),
    Column("organisation", String(MAX_ORGANISATION), nullable=False),
    Column("intended_use", String(16), nullable=False),
    Column("licence_accepted", Boolean, nullable=False),
    Column("data_version", String(32), nullable=False),
    Column("schema_version", String(16), nullable=False),
)
"""Dataset requests: one row per submitted form."""

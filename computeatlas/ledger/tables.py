"""The ledger's tables, as SQLAlchemy Core metadata (the migrations create them).

``dataset_requests`` holds what people type on ``/data/`` and nothing else: no IP
address, no user agent. ``created_at`` is naive UTC. ``idempotency_key`` (unique) is the
one-time key the form carries, so submitting the same form twice records one row.

``rate_limit_hits`` holds the form's rate-limit counts (:mod:`computeatlas.ledger.rate_limits`):
one row per admitted post still inside its window, keyed by an HMAC of the client's address
(never the address itself).
"""

from __future__ import annotations

from sqlalchemy import Boolean, Column, DateTime, Float, Index, Integer, MetaData, String, Table

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

rate_limit_hits = Table(
    "rate_limit_hits",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(255), nullable=False, comment="the limits library's key: the limit and an HMAC of the address"),
    Column("at", Float, nullable=False, comment="when the post was admitted, seconds since the epoch"),
    Column("expires_at", Float, nullable=False, comment="at plus the window's length, seconds since the epoch"),
    Index("ix_rate_limit_hits_key_at", "key", "at"),
    Index("ix_rate_limit_hits_expires_at", "expires_at"),
)
"""Rate-limit hits still inside their window: one row per admitted form post and limit."""

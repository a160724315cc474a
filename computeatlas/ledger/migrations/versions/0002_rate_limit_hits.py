"""Create rate_limit_hits: the form's rate-limit counts, shared by every worker.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-03
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the hits table and its two indexes (key and time; expiry)."""
    op.create_table(
        "rate_limit_hits",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("key", sa.String(255), nullable=False, comment="the limits library's key: the limit and an HMAC of the address"),
        sa.Column("at", sa.Float, nullable=False, comment="when the post was admitted, seconds since the epoch"),
        sa.Column("expires_at", sa.Float, nullable=False, comment="at plus the window's length, seconds since the epoch"),
        sa.PrimaryKeyConstraint("id", name="pk_rate_limit_hits"),
    )
    op.create_index("ix_rate_limit_hits_key_at", "rate_limit_hits", ["key", "at"])
    op.create_index("ix_rate_limit_hits_expires_at", "rate_limit_hits", ["expires_at"])


def downgrade() -> None:
    """Drop the hits table."""
    op.drop_index("ix_rate_limit_hits_expires_at", table_name="rate_limit_hits")
    op.drop_index("ix_rate_limit_hits_key_at", table_name="rate_limit_hits")
    op.drop_table("rate_limit_hits")

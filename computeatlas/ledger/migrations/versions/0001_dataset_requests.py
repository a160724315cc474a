"""Create dataset_requests.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create the requests table, its unique idempotency key and its indexes."""
    op.create_table(
        "dataset_requests",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("idempotency_key", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=False), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False, comment="download or enquiry"),
        sa.Column("name", sa.String(100), nullable=False),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("email_key", sa.String(254), nullable=False, comment="casefolded email, for export and erase"),
        sa.Column("organisation", sa.String(150), nullable=False),
        sa.Column("intended_use", sa.String(16), nullable=False),
        sa.Column("licence_accepted", sa.Boolean, nullable=False),
        sa.Column("data_version", sa.String(32), nullable=False),
        sa.Column("schema_version", sa.String(16), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_dataset_requests"),
        sa.UniqueConstraint("idempotency_key", name="uq_dataset_requests_idempotency_key"),
    )
    op.create_index("ix_dataset_requests_created_at", "dataset_requests", ["created_at"])
    op.create_index("ix_dataset_requests_email_key", "dataset_requests", ["email_key"])


def downgrade() -> None:
    """Drop the requests table."""
    op.drop_index("ix_dataset_requests_email_key", table_name="dataset_requests")
    op.drop_index("ix_dataset_requests_created_at", table_name="dataset_requests")
    op.drop_table("dataset_requests")

"""PostgreSQL: collect no planner statistics from the columns people type into.

ANALYZE (autovacuum runs it by itself) copies column values into ``pg_statistic`` as
most-common values and histogram bounds: a ledger of a few hundred requests had e-mail
addresses there, readable through ``pg_stats``, and erasing the rows left them. Statistics
target 0 stops ANALYZE from sampling ``name``, ``email``, ``email_key`` and ``organisation``;
re-declaring each column's own type removes what was already collected (PostgreSQL drops a
column's statistics when its type is set). SQLite keeps no such statistics unless ANALYZE is
run, which the ledger never does; there this migration does nothing.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-03
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

PERSONAL = {"name": "varchar(100)", "email": "varchar(254)", "email_key": "varchar(254)", "organisation": "varchar(150)"}
"""The columns holding what a visitor typed, with their declared types (migration 0001)."""


def upgrade() -> None:
    """Statistics target 0 and no collected statistics on the personal columns (PostgreSQL)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for column, kind in PERSONAL.items():
        op.execute(f"ALTER TABLE dataset_requests ALTER COLUMN {column} SET STATISTICS 0")
        op.execute(f"ALTER TABLE dataset_requests ALTER COLUMN {column} TYPE {kind}")


def downgrade() -> None:
    """Back to the default statistics target (statistics come back with the next ANALYZE)."""
    if op.get_bind().dialect.name != "postgresql":
        return
    for column in PERSONAL:
        op.execute(f"ALTER TABLE dataset_requests ALTER COLUMN {column} SET STATISTICS -1")

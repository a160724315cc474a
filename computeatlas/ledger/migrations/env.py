"""Alembic environment: runs on the connection the caller passes in ``config.attributes``.

There is no ``alembic.ini``; :func:`computeatlas.ledger.database.migrate` builds the config
in code and holds a lock while this runs.
"""

from alembic import context

from computeatlas.ledger.tables import metadata

connection = context.config.attributes["connection"]
context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=connection.dialect.name == "sqlite",
    version_table="ledger_alembic_version",
)
with context.begin_transaction():
    context.run_migrations()

"""Alembic's environment for bigboggle: the migrations run on the connection that
:func:`bigboggle.services.migrations.upgrade` hands over, inside the transaction (and lock) it holds.

There is no offline (``--sql``) mode and no ``alembic.ini``: bigboggle applies its own migrations
when a :class:`bigboggle.services.store.Store` opens a database.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from bigboggle.services.store import Base


def run_on(connection: Connection) -> None:
    """Run the revisions Alembic has chosen on ``connection``."""
    context.configure(
        connection=connection,
        target_metadata=Base.metadata,
        # Autogenerate writes changes to existing tables as batch operations (SQLite rebuilds
        # the table; other databases alter it in place).
        render_as_batch=True,
        compare_type=True,
    )
    # The connection is already in bigboggle's transaction: Alembic neither begins nor commits.
    with context.begin_transaction():
        context.run_migrations()


def main() -> None:
    connection = context.config.attributes.get("connection")
    if context.is_offline_mode() or not isinstance(connection, Connection):
        raise RuntimeError(
            "bigboggle's migrations run on a connection: open the database with "
            "bigboggle.services.store.Store (or see bigboggle.services.migrations for new revisions)"
        )
    run_on(connection)


main()

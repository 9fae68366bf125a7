"""Boards of any length: ``games.board`` becomes TEXT on every database.

The models made it TEXT along with version 2, but the hand-written step from version 1 to 2 left
it at VARCHAR(600) in databases that were upgraded (PostgreSQL enforces that length; SQLite keeps
the declared type). Only a column that is not TEXT yet is changed.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {column["name"]: column for column in sa.inspect(op.get_bind()).get_columns("games")}
    if isinstance(columns["board"]["type"], sa.Text):
        return
    with op.batch_alter_table("games") as games:
        games.alter_column(
            "board", type_=sa.Text(), existing_type=sa.String(600), existing_nullable=False
        )


def downgrade() -> None:
    # Kept TEXT: a board longer than 600 characters could not go back, and TEXT is what version
    # 2's own fresh databases had.
    pass

"""A finished solo game's results stored when it is scored, so that reading it scores nothing
(no work on read).

NULL marks a game still running, or one that ended before this revision (scored once on first
read, then stored).

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("result", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.drop_column("result")

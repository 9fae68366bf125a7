"""Computer opponents' seats in rooms: a seat's strength and seed, a round's opponents' play.

``room_players.opponent`` (the strength, none for a person) and ``room_players.opponent_seed``;
``room_rounds.opponents``: the opponents' timed lists made at the round's start, and how many of
each list are submitted (so every process, and a restart, submits the same words once).

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("room_players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opponent", sa.String(length=20), nullable=True))
        batch_op.add_column(sa.Column("opponent_seed", sa.BigInteger(), nullable=True))
    with op.batch_alter_table("room_rounds", schema=None) as batch_op:
        batch_op.add_column(sa.Column("opponents", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("room_rounds", schema=None) as batch_op:
        batch_op.drop_column("opponents")
    with op.batch_alter_table("room_players", schema=None) as batch_op:
        batch_op.drop_column("opponent_seed")
        batch_op.drop_column("opponent")

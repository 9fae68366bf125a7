"""Multiplayer rooms, and keys to solo games: the schema bigboggle called version 2 before it
used Alembic (what its hand-written step from version 1 did).

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("code", sa.String(12), primary_key=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("host", sa.String(80), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("over", sa.Boolean(), nullable=False),
    )
    op.create_table(
        "room_players",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "room", sa.String(12), sa.ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("joined_at", sa.Float(), nullable=False),
        sa.UniqueConstraint("room", "name"),
    )
    op.create_index("ix_room_players_room", "room_players", ["room"])
    op.create_table(
        "room_rounds",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "room", sa.String(12), sa.ForeignKey("rooms.code", ondelete="CASCADE"), nullable=False
        ),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("board", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("settings", sa.JSON(), nullable=False),
        sa.Column("starts_at", sa.Float(), nullable=False),
        sa.Column("deadline", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
        sa.UniqueConstraint("room", "number"),
    )
    op.create_index("ix_room_rounds_room", "room_rounds", ["room"])
    op.create_table(
        "room_words",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "round_id",
            sa.Integer(),
            sa.ForeignKey("room_rounds.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("player", sa.String(80), nullable=False),
        sa.Column("entry", sa.String(200), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
    )
    op.create_index("ix_room_words_round_id", "room_words", ["round_id"])
    # A game from before this revision has no key: anyone holding its id may play it.
    op.add_column("games", sa.Column("owner_hash", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("games") as games:
        games.drop_column("owner_hash")
    op.drop_index("ix_room_words_round_id", table_name="room_words")
    op.drop_table("room_words")
    op.drop_index("ix_room_rounds_room", table_name="room_rounds")
    op.drop_table("room_rounds")
    op.drop_index("ix_room_players_room", table_name="room_players")
    op.drop_table("room_players")
    op.drop_table("rooms")

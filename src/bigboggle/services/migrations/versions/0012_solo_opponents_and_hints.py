"""Solo games' computer opponents and hints.

New tables: ``game_opponents`` (each computer opponent of a solo game: its seat name, strength,
seed and timed list, made once at the start) and ``game_hints`` (each hint a solo game's player
used: kind, what it revealed, the word it was about, its cost, when). ``games`` gains
``practice`` (free hints, no member's history) and ``hints_allowed`` (hints at their cost);
both NULL, read as false, for every game from before this revision; and ``private_until``
(a challenge round's words are its player's alone until then; NULL: public once over).

Revision ID: 0012
Revises: 0011
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("practice", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("hints_allowed", sa.Boolean(), nullable=True))
        batch_op.add_column(sa.Column("private_until", sa.Float(), nullable=True))
    op.create_table(
        "game_opponents",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("strength", sa.String(length=20), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("entries", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat"),
    )
    with op.batch_alter_table("game_opponents", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_opponents_game_id"), ["game_id"], unique=False)
    op.create_table(
        "game_hints",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("word", sa.String(length=200), nullable=True),
        sa.Column("revealed", sa.JSON(), nullable=False),
        sa.Column("cost", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seq"),
    )
    with op.batch_alter_table("game_hints", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_hints_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("game_hints", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_hints_game_id"))
    op.drop_table("game_hints")
    with op.batch_alter_table("game_opponents", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_game_opponents_game_id"))
    op.drop_table("game_opponents")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("private_until")
        batch_op.drop_column("hints_allowed")
        batch_op.drop_column("practice")

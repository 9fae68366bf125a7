"""Solo games and tournaments: the schema bigboggle called version 1 before it used Alembic.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "settings",
        sa.Column("key", sa.String(40), primary_key=True),
        sa.Column("value", sa.String(200), nullable=False),
    )
    op.create_table(
        "games",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("dictionary", sa.String(80), nullable=False),
        # Version 1 bounded the board's text; revision 0003 makes it TEXT.
        sa.Column("board", sa.String(600), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("player", sa.String(80), nullable=False),
        sa.Column("daily_date", sa.String(10), nullable=True),
        sa.Column("daily_key", sa.String(160), nullable=True, unique=True),
        sa.Column("started_at", sa.Float(), nullable=False),
        sa.Column("deadline", sa.Float(), nullable=False),
        sa.Column("ended_at", sa.Float(), nullable=True),
        sa.Column("score", sa.Integer(), nullable=True),
        sa.Column("max_score", sa.Integer(), nullable=True),
    )
    op.create_index("ix_games_daily", "games", ["daily_date", "rules", "score"])
    op.create_table(
        "game_words",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "game_id",
            sa.String(16),
            sa.ForeignKey("games.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("entry", sa.String(200), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.UniqueConstraint("game_id", "seq"),
    )
    op.create_index("ix_game_words_game_id", "game_words", ["game_id"])
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("rules", sa.String(40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("dictionary", sa.String(80), nullable=False),
        sa.Column("target", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
    )
    op.create_table(
        "tournament_rounds",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column(
            "tournament_id",
            sa.String(16),
            sa.ForeignKey("tournaments.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("request", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.UniqueConstraint("tournament_id", "number"),
    )
    op.create_index("ix_tournament_rounds_tournament_id", "tournament_rounds", ["tournament_id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_rounds_tournament_id", table_name="tournament_rounds")
    op.drop_table("tournament_rounds")
    op.drop_table("tournaments")
    op.drop_index("ix_game_words_game_id", table_name="game_words")
    op.drop_table("game_words")
    op.drop_index("ix_games_daily", table_name="games")
    op.drop_table("games")
    op.drop_table("settings")

"""Asynchronous challenges: boards, rounds and who has played.

New tables: ``challenges`` (rules, options, dictionary, rounds, when it closes, who made it,
its team names if any), ``challenge_rounds`` (each round's board and its standings as last
stored, with the finished games they count), ``challenge_players`` (one seat per name, by its
clash key, a member's by their account, with its team in a team challenge) and
``challenge_games`` (a seat's solo game of a round, reserved before the game is started).
Nothing from before this revision changes.

Revision ID: 0015
Revises: 0014
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("rules", sa.String(length=40), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("duplicates", sa.String(length=8), nullable=False),
        sa.Column("dictionary", sa.String(length=80), nullable=False),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("closes_at", sa.Float(), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("maker", sa.String(length=80), nullable=True),
        sa.Column("teams", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="SET NULL"),
        sa.PrimaryKeyConstraint("code"),
    )
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_challenges_account_id"), ["account_id"], unique=False)
        batch_op.create_index("ix_challenges_closes_at", ["closes_at"], unique=False)
    op.create_table(
        "challenge_players",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=80), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("joined_at", sa.Float(), nullable=False),
        sa.Column("team", sa.String(length=80), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="SET NULL"),
        sa.ForeignKeyConstraint(["code"], ["challenges.code"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("code", "name_key"),
    )
    with op.batch_alter_table("challenge_players", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_challenge_players_account_id"), ["account_id"], unique=False
        )
    op.create_table(
        "challenge_rounds",
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("board", sa.Text(), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=True),
        sa.Column("standings", sa.JSON(), nullable=True),
        sa.Column("counted_games", sa.JSON(), nullable=False),
        sa.Column("counted", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["code"], ["challenges.code"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("code", "number"),
    )
    op.create_table(
        "challenge_games",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("code", sa.String(length=16), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.String(length=16), nullable=True),
        sa.Column("reserved_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["code"], ["challenges.code"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], ondelete="CASCADE"),
        sa.ForeignKeyConstraint(["player_id"], ["challenge_players.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("player_id", "number"),
    )
    with op.batch_alter_table("challenge_games", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_challenge_games_code"), ["code"], unique=False)
        batch_op.create_index(batch_op.f("ix_challenge_games_game_id"), ["game_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("challenge_games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenge_games_game_id"))
        batch_op.drop_index(batch_op.f("ix_challenge_games_code"))
    op.drop_table("challenge_games")
    op.drop_table("challenge_rounds")
    with op.batch_alter_table("challenge_players", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_challenge_players_account_id"))
    op.drop_table("challenge_players")
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.drop_index("ix_challenges_closes_at")
        batch_op.drop_index(batch_op.f("ix_challenges_account_id"))
    op.drop_table("challenges")

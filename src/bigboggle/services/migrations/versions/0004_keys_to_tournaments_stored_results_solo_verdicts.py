"""Keys to tournaments, results stored when scored, solo verdicts kept with each word (for
ownership, no work on read, solo games that cost the same at word 2,000 as at word 1).

Every new column may be NULL and has no default: NULL marks a row from before this revision,
which the services complete on first use (see each model's comments in ``bigboggle.services.store``).

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def _added() -> list[tuple[str, sa.Column[Any]]]:
    """The columns this revision adds, by table, in order (new objects on each call)."""
    return [
        # Tournaments: the owner's key (hashed), and the standings after the last round.
        ("tournaments", sa.Column("owner_hash", sa.String(64), nullable=True)),
        ("tournaments", sa.Column("standings", sa.JSON(), nullable=True)),
        # A tournament round's result and what the standings need of it.
        ("tournament_rounds", sa.Column("result", sa.JSON(), nullable=True)),
        ("tournament_rounds", sa.Column("tally", sa.JSON(), nullable=True)),
        # Solo games: entries so far and their points; each word's verdict as given.
        ("games", sa.Column("word_count", sa.Integer(), nullable=True)),
        ("games", sa.Column("score_so_far", sa.Integer(), nullable=True)),
        ("game_words", sa.Column("word", sa.String(200), nullable=True)),
        ("game_words", sa.Column("verdict", sa.String(20), nullable=True)),
        ("game_words", sa.Column("score", sa.Integer(), nullable=True)),
        ("game_words", sa.Column("bonus", sa.Integer(), nullable=True)),
        ("game_words", sa.Column("path", sa.JSON(), nullable=True)),
    ]


def upgrade() -> None:
    for table, column in _added():
        op.add_column(table, column)
    # "Is this word already on the list?" in one lookup.
    op.create_index("ix_game_words_game_word", "game_words", ["game_id", "word"])


def downgrade() -> None:
    op.drop_index("ix_game_words_game_word", table_name="game_words")
    by_table: dict[str, list[str]] = {}
    for table, column in _added():
        by_table.setdefault(table, []).append(column.name)
    for table, names in by_table.items():
        with op.batch_alter_table(table) as altered:
            for name in reversed(names):
                altered.drop_column(name)

"""Rooms' host powers and activity, results and verdicts stored (so that the host can kick a
seat and hands over when away, idle rooms close for good, no work on read).

Every new column may be NULL and has no default: NULL marks a row from before this revision,
which :mod:`bigboggle.services.rooms` completes on first use (see each model's comments in
``bigboggle.services.store``).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def _added() -> list[tuple[str, sa.Column[Any]]]:
    """The columns this revision adds, by table, in order (new objects on each call)."""
    return [
        # Rooms: standings over the scored rounds, activity, and closing for good.
        ("rooms", sa.Column("standings", sa.JSON(), nullable=True)),
        ("rooms", sa.Column("active_at", sa.Float(), nullable=True)),
        ("rooms", sa.Column("closed_at", sa.Float(), nullable=True)),
        # Seats: kicked by the host; presence, for the host handover.
        ("room_players", sa.Column("kicked_at", sa.Float(), nullable=True)),
        ("room_players", sa.Column("sockets", sa.Integer(), nullable=True)),
        ("room_players", sa.Column("away_since", sa.Float(), nullable=True)),
        # A round's result, and each word's verdict as given.
        ("room_rounds", sa.Column("result", sa.JSON(), nullable=True)),
        ("room_words", sa.Column("verdict", sa.JSON(), nullable=True)),
    ]


def upgrade() -> None:
    for table, column in _added():
        op.add_column(table, column)


def downgrade() -> None:
    by_table: dict[str, list[str]] = {}
    for table, column in _added():
        by_table.setdefault(table, []).append(column.name)
    for table, names in by_table.items():
        with op.batch_alter_table(table) as altered:
            for name in reversed(names):
                altered.drop_column(name)

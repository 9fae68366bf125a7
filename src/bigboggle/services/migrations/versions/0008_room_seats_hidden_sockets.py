"""A seat's hidden sockets: presence is per connection.

``room_players.hidden`` counts the seat's open sockets whose page's tab is hidden, so a seat is
away only while every one of its open sockets is hidden: a player with a second tab in view
stays online when the other tab is hidden or closed. NULL (a row from before this revision)
reads as 0, as ``sockets`` does.

Revision ID: 0008
Revises: 0007
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("room_players", sa.Column("hidden", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("room_players") as altered:
        altered.drop_column("hidden")

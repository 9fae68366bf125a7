"""An index for settling the daily boards: ``plays(kind, daily_date, rules)``.

The ratings' settling asks which presets were played as the daily board on each of the last
days; the indexes before this revision start with the member or the preset, so that question
read every daily play of the table. With this one it reads the last days' entries of the
index alone.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("plays", schema=None) as batch_op:
        batch_op.create_index(
            "ix_plays_kind_date_rules", ["kind", "daily_date", "rules"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("plays", schema=None) as batch_op:
        batch_op.drop_index("ix_plays_kind_date_rules")

"""The trainer's cards: missed words scheduled by spaced repetition.

New table ``trainer_cards``: per member and word, the card (its board and path when known, how
often it was missed, and its FSRS state, as JSON) and when it is next due (indexed with the
member: the cards due first).

Revision ID: 0014
Revises: 0013
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "trainer_cards",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("word", sa.String(length=40), nullable=False),
        sa.Column("card", sa.JSON(), nullable=False),
        sa.Column("due", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_trainer_cards_account", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", "word"),
    )
    with op.batch_alter_table("trainer_cards", schema=None) as batch_op:
        batch_op.create_index("ix_trainer_cards_due", ["account_id", "due"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("trainer_cards", schema=None) as batch_op:
        batch_op.drop_index("ix_trainer_cards_due")
    op.drop_table("trainer_cards")

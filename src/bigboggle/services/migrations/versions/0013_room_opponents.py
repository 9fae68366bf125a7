"""Computer opponents' seats in rooms.

(Placeholder revision: filled in by the rooms helper (opponents' seats and their words); until then it changes nothing.)

Revision ID: 0013
Revises: 0012
"""

from __future__ import annotations

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    pass


def downgrade() -> None:
    pass

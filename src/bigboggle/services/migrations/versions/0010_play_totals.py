"""Play totals: a profile's counts and bests read from a few summed rows, not every play.

New table ``play_totals``: per member, preset family, preset and mode, the number of plays,
the best score and share of the board, the longest and the highest-scoring word (the earliest
play's on a tie, with when it was played). The history updates it in the transaction that
records each play; this revision fills it from the plays already stored. ``plays`` gains three
covering indexes: a member's last weeks (scores and board points), a member's daily boards
(best score per date) and the week's leaderboard (each member's points per daily board of a
preset), each read from the index alone.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

#: The columns of ``play_totals`` as this revision makes them (no model import: a revision
#: stays what it was when the models change).
_TOTALS = sa.table(
    "play_totals",
    *(
        sa.column(name)
        for name in (
            "account_id",
            "family",
            "rules",
            "kind",
            "games",
            "best_score",
            "best_share",
            "longest_word",
            "longest_at",
            "best_word",
            "best_word_points",
            "best_word_at",
        )
    ),
)
_PLAYS_IN_ORDER = sa.text(
    "SELECT account_id, family, rules, kind, played_at, score, max_score, longest_word,"
    " best_word, best_word_points FROM plays"
    " ORDER BY account_id, family, rules, kind, played_at, id"
)
_BATCH = 5_000


def upgrade() -> None:
    op.create_table(
        "play_totals",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=8), nullable=False),
        sa.Column("rules", sa.String(length=40), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("best_score", sa.Integer(), nullable=False),
        sa.Column("best_share", sa.Float(), nullable=True),
        sa.Column("longest_word", sa.String(length=200), nullable=True),
        sa.Column("longest_at", sa.Float(), nullable=True),
        sa.Column("best_word", sa.String(length=200), nullable=True),
        sa.Column("best_word_points", sa.Integer(), nullable=True),
        sa.Column("best_word_at", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name="fk_play_totals_account", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("account_id", "family", "rules", "kind"),
    )
    with op.batch_alter_table("plays", schema=None) as batch_op:
        batch_op.create_index(
            "ix_plays_account_daily", ["account_id", "kind", "daily_date", "score"], unique=False
        )
        batch_op.create_index(
            "ix_plays_account_time_score",
            ["account_id", "played_at", "score", "max_score"],
            unique=False,
        )
        batch_op.create_index(
            "ix_plays_daily_week",
            ["kind", "rules", "daily_date", "account_id", "score"],
            unique=False,
        )
    _fill_totals()


def _fill_totals() -> None:
    """Sum the stored plays into ``play_totals``, each group's plays in time order, as the
    history adds them one by one (a longer word, or more points, replaces; an equal one
    played later does not)."""
    rows: list[dict[str, Any]] = []
    total: dict[str, Any] | None = None
    for play in op.get_bind().execute(_PLAYS_IN_ORDER):
        key = (play.account_id, play.family, play.rules, play.kind)
        if total is None or key != (
            total["account_id"],
            total["family"],
            total["rules"],
            total["kind"],
        ):
            total = dict(zip(("account_id", "family", "rules", "kind"), key, strict=True))
            total.update(games=0, best_score=0, best_share=None, longest_word=None)
            total.update(longest_at=None, best_word=None, best_word_points=None)
            total.update(best_word_at=None)
            rows.append(total)
        _add(total, play)
        if len(rows) > _BATCH:
            op.bulk_insert(_TOTALS, rows[:-1])
            rows = rows[-1:]
    if rows:
        op.bulk_insert(_TOTALS, rows)


def _add(total: dict[str, Any], play: Any) -> None:
    total["games"] += 1
    total["best_score"] = max(total["best_score"], play.score)
    if play.max_score is not None and play.max_score > 0:
        share = min(1.0, play.score / play.max_score)
        if total["best_share"] is None or share > total["best_share"]:
            total["best_share"] = share
    word = play.longest_word
    if word is not None and (
        total["longest_word"] is None or len(word) > len(total["longest_word"])
    ):
        total["longest_word"], total["longest_at"] = word, play.played_at
    points = play.best_word_points
    if (
        play.best_word is not None
        and points is not None
        and (total["best_word_points"] is None or points > total["best_word_points"])
    ):
        total["best_word"], total["best_word_points"] = play.best_word, points
        total["best_word_at"] = play.played_at


def downgrade() -> None:
    with op.batch_alter_table("plays", schema=None) as batch_op:
        batch_op.drop_index("ix_plays_daily_week")
        batch_op.drop_index("ix_plays_account_time_score")
        batch_op.drop_index("ix_plays_account_daily")
    op.drop_table("play_totals")

"""Accounts: members, their sessions and passkeys, their history and ratings.

New tables: ``accounts`` (a user name, reserved in play by its clash key, and an Argon2id hash),
``account_sessions`` (the hash of each logged-in browser's cookie token), ``passkeys`` and
``auth_challenges`` (WebAuthn), ``login_failures`` (the shared log-in throttle), ``plays`` (each
member's finished games and room rounds, as a profile reads them), ``missed_words`` (a bounded
summary per member and preset family), ``ratings``, ``rating_events`` and ``rated_contests``
(OpenSkill ratings, their history, and which contests have been rated). ``games`` and
``room_players`` gain ``account_id``: a member's game or seat (NULL for guests, as every row
from before this revision is).

Revision ID: 0009
Revises: 0008
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("username", sa.String(length=40), nullable=False),
        sa.Column("name_key", sa.String(length=160), nullable=False),
        sa.Column("password_hash", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("password_changed_at", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("name_key"),
    )
    op.create_table(
        "login_failures",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.Float(), nullable=False),
        sa.Column("blocked_until", sa.Float(), nullable=True),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "rated_contests",
        sa.Column("key", sa.String(length=80), nullable=False),
        sa.Column("rated_at", sa.Float(), nullable=False),
        sa.PrimaryKeyConstraint("key"),
    )
    op.create_table(
        "account_sessions",
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("csrf", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("last_seen", sa.Float(), nullable=False),
        sa.Column("method", sa.String(length=16), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("token_hash"),
    )
    with op.batch_alter_table("account_sessions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_account_sessions_account_id"), ["account_id"], unique=False
        )

    op.create_table(
        "auth_challenges",
        sa.Column("id", sa.String(length=64), nullable=False),
        sa.Column("challenge", sa.String(length=200), nullable=False),
        sa.Column("purpose", sa.String(length=16), nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("auth_challenges", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_auth_challenges_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            batch_op.f("ix_auth_challenges_created_at"), ["created_at"], unique=False
        )

    op.create_table(
        "missed_words",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=8), nullable=False),
        sa.Column("summary", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "family"),
    )
    op.create_table(
        "passkeys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("credential_id", sa.String(length=1400), nullable=False),
        sa.Column("public_key", sa.Text(), nullable=False),
        sa.Column("sign_count", sa.BigInteger(), nullable=False),
        sa.Column("label", sa.String(length=80), nullable=False),
        sa.Column("transports", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.Float(), nullable=False),
        sa.Column("last_used", sa.Float(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("credential_id"),
    )
    with op.batch_alter_table("passkeys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_passkeys_account_id"), ["account_id"], unique=False)

    op.create_table(
        "plays",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("rules", sa.String(length=40), nullable=False),
        sa.Column("family", sa.String(length=8), nullable=False),
        sa.Column("ref", sa.String(length=40), nullable=False),
        sa.Column("played_at", sa.Float(), nullable=False),
        sa.Column("daily_date", sa.String(length=10), nullable=True),
        sa.Column("score", sa.Integer(), nullable=False),
        sa.Column("max_score", sa.Integer(), nullable=True),
        sa.Column("words", sa.Integer(), nullable=False),
        sa.Column("longest_word", sa.String(length=200), nullable=True),
        sa.Column("best_word", sa.String(length=200), nullable=True),
        sa.Column("best_word_points", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("account_id", "ref"),
    )
    with op.batch_alter_table("plays", schema=None) as batch_op:
        batch_op.create_index("ix_plays_account_time", ["account_id", "played_at"], unique=False)
        batch_op.create_index(
            "ix_plays_kind_rules_time", ["kind", "rules", "played_at"], unique=False
        )

    op.create_table(
        "rating_events",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=8), nullable=False),
        sa.Column("contest", sa.String(length=80), nullable=False),
        sa.Column("at", sa.Float(), nullable=False),
        sa.Column("place", sa.Integer(), nullable=False),
        sa.Column("field", sa.Integer(), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("rating_events", schema=None) as batch_op:
        batch_op.create_index(
            "ix_rating_events_account", ["account_id", "family", "at"], unique=False
        )

    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer(), nullable=False),
        sa.Column("family", sa.String(length=8), nullable=False),
        sa.Column("mu", sa.Float(), nullable=False),
        sa.Column("sigma", sa.Float(), nullable=False),
        sa.Column("display", sa.Float(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column("updated_at", sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(["account_id"], ["accounts.id"], ondelete="CASCADE"),
        sa.PrimaryKeyConstraint("account_id", "family"),
    )
    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.create_index("ix_ratings_family_display", ["family", "display"], unique=False)

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_account_id"), ["account_id"], unique=False)
        batch_op.create_foreign_key(
            "fk_games_account_id", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )

    with op.batch_alter_table("room_players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("account_id", sa.Integer(), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_room_players_account_id"), ["account_id"], unique=False
        )
        batch_op.create_foreign_key(
            "fk_room_players_account_id", "accounts", ["account_id"], ["id"], ondelete="SET NULL"
        )


def downgrade() -> None:
    with op.batch_alter_table("room_players", schema=None) as batch_op:
        batch_op.drop_constraint("fk_room_players_account_id", type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_room_players_account_id"))
        batch_op.drop_column("account_id")

    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint("fk_games_account_id", type_="foreignkey")
        batch_op.drop_index(batch_op.f("ix_games_account_id"))
        batch_op.drop_column("account_id")

    with op.batch_alter_table("ratings", schema=None) as batch_op:
        batch_op.drop_index("ix_ratings_family_display")

    op.drop_table("ratings")
    with op.batch_alter_table("rating_events", schema=None) as batch_op:
        batch_op.drop_index("ix_rating_events_account")

    op.drop_table("rating_events")
    with op.batch_alter_table("plays", schema=None) as batch_op:
        batch_op.drop_index("ix_plays_kind_rules_time")
        batch_op.drop_index("ix_plays_account_time")

    op.drop_table("plays")
    with op.batch_alter_table("passkeys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_passkeys_account_id"))

    op.drop_table("passkeys")
    op.drop_table("missed_words")
    with op.batch_alter_table("auth_challenges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_auth_challenges_created_at"))
        batch_op.drop_index(batch_op.f("ix_auth_challenges_account_id"))

    op.drop_table("auth_challenges")
    with op.batch_alter_table("account_sessions", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_account_sessions_account_id"))

    op.drop_table("account_sessions")
    op.drop_table("rated_contests")
    op.drop_table("login_failures")
    op.drop_table("accounts")

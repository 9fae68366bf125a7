"""Where games and tournaments are kept: a SQL database through SQLAlchemy 2.

A SQLite file in the user's data directory by default; any SQLAlchemy URL otherwise (the tests
and the multi-process server use PostgreSQL too). The schema's history is a line of Alembic
revisions (:mod:`bigboggle.services.migrations`): opening a database creates it, or brings an older one up
to date in place (once, however many workers start at the same moment), and refuses one written
by a newer bigboggle rather than guess. Rows are plain mapped classes, named for what they hold
(``SoloGameRow``, ``TournamentRoundRow``, ``RoomRoundRow``); the services that give them meaning
(:mod:`bigboggle.services.solo_games`, :mod:`bigboggle.services.paper_games`,
:mod:`bigboggle.services.rooms`) hold the game logic, and answer plain views: no row leaves them.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import platformdirs
from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    func,
    inspect,
    make_url,
    select,
    text,
)
from sqlalchemy.exc import ArgumentError, OperationalError, SQLAlchemyError
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    sessionmaker,
)

from ..errors import StoreError
from . import migrations

#: The schema this bigboggle writes: the number of its newest revision (one file per revision in
#: ``bigboggle/services/migrations/versions``, each saying what it changed).
SCHEMA_VERSION = int(migrations.head())


class Base(DeclarativeBase):
    type_annotation_map: dict[Any, Any] = {dict[str, Any]: JSON, list[Any]: JSON}  # noqa: RUF012


class Setting(Base):
    """A named value kept by the server (the schema version, the daily boards' secret)."""

    __tablename__ = "settings"

    key: Mapped[str] = mapped_column(String(40), primary_key=True)
    value: Mapped[str] = mapped_column(String(200))


class SoloGameRow(Base):
    """A solo game: the board, the rules, the clock, and (once over) the score."""

    __tablename__ = "games"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    rules: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    dictionary: Mapped[str] = mapped_column(String(80))
    board: Mapped[str] = mapped_column(Text)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    player: Mapped[str] = mapped_column(String(80))
    #: The hash of the key its player holds (needed to play it); none for games from schema 1.
    owner_hash: Mapped[str | None] = mapped_column(String(64))
    daily_date: Mapped[str | None] = mapped_column(String(10))
    #: The member who played it (none for a guest's game, until the guest signs up or logs in
    #: with its key: :mod:`bigboggle.services.claims`); cleared when the account is deleted.
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    #: ``date/rules/player`` in lower case for a daily game: one counted game per name and day.
    daily_key: Mapped[str | None] = mapped_column(String(160), unique=True)
    started_at: Mapped[float] = mapped_column(Float)
    deadline: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float)
    score: Mapped[int | None] = mapped_column(Integer)
    max_score: Mapped[int | None] = mapped_column(Integer)
    #: Entries stored so far and their points, kept with each word so that a submit never reads
    #: the whole list; none for games stored before they were kept (counted on first use).
    word_count: Mapped[int | None] = mapped_column(Integer)
    score_so_far: Mapped[int | None] = mapped_column(Integer)
    #: The results as shown once over (the player's verdicts, missed words, maximum), stored
    #: when the game is scored so a read scores nothing; none until then (and for games
    #: ended before results were kept: scored once on first read).
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: A practice game: hints are free and its play goes into no member's history;
    #: none (false) for games from before revision 0012.
    practice: Mapped[bool | None] = mapped_column(Boolean)
    #: Whether hints may be asked for, at their cost (:data:`bigboggle.hints.HINT_COSTS`).
    hints_allowed: Mapped[bool | None] = mapped_column(Boolean)
    #: Until when (seconds since the epoch) its finished words are its player's alone: a round
    #: of an asynchronous challenge, whose words nobody else may see before the challenge
    #: closes. None: shown to anyone once over, as every other game.
    private_until: Mapped[float | None] = mapped_column(Float)
    #: Never loaded with the game (a list of 2,000 words per submit): query SoloWordRow instead.
    words: Mapped[list[SoloWordRow]] = relationship(
        back_populates="game",
        order_by="SoloWordRow.seq",
        cascade="all, delete-orphan",
        lazy="raise",
    )

    __table_args__ = (Index("ix_games_daily", "daily_date", "rules", "score"),)


class SoloWordRow(Base):
    """One word a player submitted, in order, with the verdict it got at the time."""

    __tablename__ = "game_words"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    entry: Mapped[str] = mapped_column(String(200))
    at: Mapped[float] = mapped_column(Float)
    #: The verdict it got when it arrived: the word as compared, the verdict, points, bonus and
    #: path (none for words stored before verdicts were kept: judged again on first use).
    word: Mapped[str | None] = mapped_column(String(200))
    verdict: Mapped[str | None] = mapped_column(String(20))
    score: Mapped[int | None] = mapped_column(Integer)
    bonus: Mapped[int | None] = mapped_column(Integer)
    path: Mapped[list[Any] | None] = mapped_column(JSON)
    game: Mapped[SoloGameRow] = relationship(back_populates="words")

    __table_args__ = (
        UniqueConstraint("game_id", "seq"),
        #: "Is this word already on the list?" in one lookup.
        Index("ix_game_words_game_word", "game_id", "word"),
    )


# -- solo games' computer opponents and hints ------------------------------------------------------


class SoloOpponentRow(Base):
    """A computer opponent of a solo game: its seat name, strength and seed, and its timed list
    (``[[seconds_into_round, entry], ...]``, made once at the start). Its words are never read
    while the game runs but to count those due (see :mod:`bigboggle.services.solo_games`)."""

    __tablename__ = "game_opponents"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seat: Mapped[int] = mapped_column(Integer)
    name: Mapped[str] = mapped_column(String(80))
    strength: Mapped[str] = mapped_column(String(20))
    seed: Mapped[int] = mapped_column(BigInteger)
    entries: Mapped[list[Any]] = mapped_column(JSON)

    __table_args__ = (UniqueConstraint("game_id", "seat"),)


class SoloHintRow(Base):
    """A hint a solo game's player used, in order: its kind, what it revealed (and the word it
    was about, shown once the game is over), its cost in points, and when."""

    __tablename__ = "game_hints"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    game_id: Mapped[str] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    seq: Mapped[int] = mapped_column(Integer)
    kind: Mapped[str] = mapped_column(String(20))
    at: Mapped[float] = mapped_column(Float)
    word: Mapped[str | None] = mapped_column(String(200))
    revealed: Mapped[dict[str, Any]] = mapped_column(JSON)
    cost: Mapped[int] = mapped_column(Integer)

    __table_args__ = (UniqueConstraint("game_id", "seq"),)


class TournamentRow(Base):
    """A tournament of paper games scored here: rules, dictionary and when it ends."""

    __tablename__ = "tournaments"

    id: Mapped[str] = mapped_column(String(16), primary_key=True)
    name: Mapped[str] = mapped_column(String(80))
    rules: Mapped[str] = mapped_column(String(40))
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    dictionary: Mapped[str] = mapped_column(String(80))
    target: Mapped[int | None] = mapped_column(Integer)
    rounds: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    #: The hash of the key its creator holds (needed to add rounds, rename, delete); none for
    #: tournaments from before keys, which are read-only.
    owner_hash: Mapped[str | None] = mapped_column(String(64))
    #: The standings after the last round (totals, standings, leaders, over, winner), stored
    #: when a round is scored so a read scores nothing; none until first computed.
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: Never loaded with the tournament: query TournamentRoundRow instead.
    played: Mapped[list[TournamentRoundRow]] = relationship(
        back_populates="tournament",
        order_by="TournamentRoundRow.number",
        cascade="all, delete-orphan",
        passive_deletes=True,
        lazy="raise",
    )


class TournamentRoundRow(Base):
    """One scored round of a tournament: what was entered, and its result as scored then."""

    __tablename__ = "tournament_rounds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    tournament_id: Mapped[str] = mapped_column(
        ForeignKey("tournaments.id", ondelete="CASCADE"), index=True
    )
    number: Mapped[int] = mapped_column(Integer)
    request: Mapped[dict[str, Any]] = mapped_column()
    created_at: Mapped[float] = mapped_column(Float)
    #: ``RoundResult.to_json()`` and what the standings need of it (points and word lengths per
    #: competitor), stored when the round is scored; none for rounds from before (scored once
    #: on first read, then stored).
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    tally: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    tournament: Mapped[TournamentRow] = relationship(back_populates="played")

    __table_args__ = (UniqueConstraint("tournament_id", "number"),)


class RoomRow(Base):
    """A multiplayer room: its settings, its host, and a counter of the events it has seen."""

    __tablename__ = "rooms"

    code: Mapped[str] = mapped_column(String(12), primary_key=True)
    settings: Mapped[dict[str, Any]] = mapped_column()
    host: Mapped[str] = mapped_column(String(80))
    created_at: Mapped[float] = mapped_column(Float)
    #: Bumped by every event (a join, a start, a round's end): clients resync on a gap.
    seq: Mapped[int] = mapped_column(Integer, default=0)
    over: Mapped[bool] = mapped_column(default=False)
    #: Points and scored word lengths per competitor over the scored rounds, kept up to date
    #: when a round is scored so that reading the totals scores nothing; none for rooms from
    #: before it was kept (computed once on first use).
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    #: The last join, start, setting or host action (none for old rooms: ``created_at``
    #: counts); rooms idle for ``ServerLimits.room_idle_days`` are closed.
    active_at: Mapped[float | None] = mapped_column(Float)
    #: When the room was closed for good for being idle (its rounds stay readable).
    closed_at: Mapped[float | None] = mapped_column(Float)


class RoomPlayerRow(Base):
    """A player seated in a room, with the hash of their private resume token."""

    __tablename__ = "room_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(80))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    joined_at: Mapped[float] = mapped_column(Float)
    #: When the host removed this seat (its token no longer works; the name stays taken).
    kicked_at: Mapped[float | None] = mapped_column(Float)
    #: Open sockets of this seat (none for old rows: 0), and since when it has had none (while
    #: it has some: since when its page's tab is hidden, shown as "away"; ``None`` if in view).
    sockets: Mapped[int | None] = mapped_column(Integer)
    away_since: Mapped[float | None] = mapped_column(Float)
    #: How many of those open sockets have their page's tab hidden (none for old rows: 0):
    #: the seat is away only while every open one is hidden (a second tab in view keeps it
    #: online).
    hidden: Mapped[int | None] = mapped_column(Integer)
    #: The member in this seat (none for a guest, until the guest signs up or logs in with its
    #: token); cleared when the account is deleted (the name stays in the room's results).
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    #: A computer opponent's seat: its strength (``bigboggle.opponents.Opponent.STRENGTHS``;
    #: none for a person's seat). It never connects, never hosts, is never rated.
    opponent: Mapped[str | None] = mapped_column(String(20))
    #: The opponent's seed (each round's list is drawn from it and the round's number).
    opponent_seed: Mapped[int | None] = mapped_column(BigInteger)

    __table_args__ = (UniqueConstraint("room", "name"),)


class RoomRoundRow(Base):
    """One round in a room: the board, the clock, and (once scored) what was entered."""

    __tablename__ = "room_rounds"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    room: Mapped[str] = mapped_column(ForeignKey("rooms.code", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    board: Mapped[str] = mapped_column(Text)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    #: The settings the round was played by (the room's may change between rounds).
    settings: Mapped[dict[str, Any]] = mapped_column()
    starts_at: Mapped[float] = mapped_column(Float)
    deadline: Mapped[float] = mapped_column(Float)
    ended_at: Mapped[float | None] = mapped_column(Float)
    #: ``{"round": RoundResult.to_json(), "tally": {"scores", "lengths"}}``, stored when the
    #: round is scored so that nobody scores it again; none for rounds from before (scored
    #: once on first read) and while a round is being scored.
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))
    #: The computer opponents' play, made once at the round's start so that every process
    #: (and a restart) submits the same words: ``{"lists": {name: [[seconds, entry], …]},
    #: "played": {name: how many of them are submitted}}``; none without opponents.
    opponents: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))

    __table_args__ = (UniqueConstraint("room", "number"),)


class RoomWordRow(Base):
    """A word a player submitted in a round, stored before it is acknowledged."""

    __tablename__ = "room_words"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    round_id: Mapped[int] = mapped_column(
        ForeignKey("room_rounds.id", ondelete="CASCADE"), index=True
    )
    player: Mapped[str] = mapped_column(String(80))
    entry: Mapped[str] = mapped_column(String(200))
    at: Mapped[float] = mapped_column(Float)
    #: The private verdict it got when it arrived (``WordResult.to_json()``), read back by the
    #: room's view; none for words from before (judged once on first read, then stored).
    verdict: Mapped[dict[str, Any] | None] = mapped_column(JSON(none_as_null=True))


class AccountRow(Base):
    """A member: a user name (reserved in play: :attr:`name_key`) and an Argon2id hash of the
    password (none for an account that logs in by passkey only)."""

    __tablename__ = "accounts"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    #: The name as the member wrote it (its normal form: :func:`bigboggle.names.clean_name`).
    username: Mapped[str] = mapped_column(String(40))
    #: :func:`bigboggle.names.name_key` of the name: one member per key, and no one else may
    #: play under a name with this key.
    name_key: Mapped[str] = mapped_column(String(160), unique=True)
    password_hash: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[float] = mapped_column(Float)
    password_changed_at: Mapped[float | None] = mapped_column(Float)


class AccountSessionRow(Base):
    """A logged-in browser: the hash of its cookie's token (the token itself is never stored),
    the CSRF token of its HTML forms, and when it was last used (it expires after inactivity)."""

    __tablename__ = "account_sessions"

    token_hash: Mapped[str] = mapped_column(String(64), primary_key=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    csrf: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[float] = mapped_column(Float)
    last_seen: Mapped[float] = mapped_column(Float)
    #: How it logged in: ``password`` or ``passkey``.
    method: Mapped[str] = mapped_column(String(16))


class PasskeyRow(Base):
    """A WebAuthn credential registered to an account: its id and public key (base64url)."""

    __tablename__ = "passkeys"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    credential_id: Mapped[str] = mapped_column(String(1400), unique=True)
    public_key: Mapped[str] = mapped_column(Text)
    sign_count: Mapped[int] = mapped_column(BigInteger)
    #: What the member called it ("phone", "laptop"), and the transports the browser reported.
    label: Mapped[str] = mapped_column(String(80))
    transports: Mapped[list[Any]] = mapped_column(default=list)
    created_at: Mapped[float] = mapped_column(Float)
    last_used: Mapped[float | None] = mapped_column(Float)


class AuthChallengeRow(Base):
    """A WebAuthn ceremony under way: its challenge, for whom (none for a log-in), which kind
    (``register`` or ``login``), and when it was issued (it is used once, and expires)."""

    __tablename__ = "auth_challenges"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    challenge: Mapped[str] = mapped_column(String(200))
    purpose: Mapped[str] = mapped_column(String(16))
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), index=True
    )
    created_at: Mapped[float] = mapped_column(Float, index=True)


class LoginFailureRow(Base):
    """Failed log-ins counted per key (``account:<name key>`` or ``address:<ip>``) in a window
    that starts at the first failure: the throttle every server process shares."""

    __tablename__ = "login_failures"

    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    failures: Mapped[int] = mapped_column(Integer)
    window_start: Mapped[float] = mapped_column(Float)
    #: Until when log-ins for this key are refused (429), once it failed too often.
    blocked_until: Mapped[float | None] = mapped_column(Float)


class PlayRow(Base):
    """One finished play of a member, as their history keeps it: a solo game, a daily board,
    or a room's round. Written when it is scored (or when a guest's game is claimed), so a
    profile reads this table alone."""

    __tablename__ = "plays"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    #: ``solo``, ``daily`` or ``room``.
    kind: Mapped[str] = mapped_column(String(8))
    rules: Mapped[str] = mapped_column(String(40))
    #: The preset family, by board size: ``4x4``, ``5x5`` or ``6x6`` (other sizes: ``RxC``).
    family: Mapped[str] = mapped_column(String(8))
    #: What it was: the solo game's id, or ``CODE/NUMBER`` of a room's round.
    ref: Mapped[str] = mapped_column(String(40))
    played_at: Mapped[float] = mapped_column(Float)
    #: The daily board's date (``YYYY-MM-DD``), for daily plays.
    daily_date: Mapped[str | None] = mapped_column(String(10))
    score: Mapped[int] = mapped_column(Integer)
    #: The board's points (none where unknown): the share of the board is score / max_score.
    max_score: Mapped[int | None] = mapped_column(Integer)
    words: Mapped[int] = mapped_column(Integer)
    longest_word: Mapped[str | None] = mapped_column(String(200))
    best_word: Mapped[str | None] = mapped_column(String(200))
    best_word_points: Mapped[int | None] = mapped_column(Integer)

    __table_args__ = (
        UniqueConstraint("account_id", "ref"),
        Index("ix_plays_account_time", "account_id", "played_at"),
        Index("ix_plays_kind_rules_time", "kind", "rules", "played_at"),
        #: A profile's weekly averages: the member's last weeks, read from the index alone.
        Index("ix_plays_account_time_score", "account_id", "played_at", "score", "max_score"),
        #: A profile's daily boards (best score per date) and the week's leaderboard (each
        #: member's points per daily board of a preset), read from the index alone.
        Index("ix_plays_account_daily", "account_id", "kind", "daily_date", "score"),
        Index("ix_plays_daily_week", "kind", "rules", "daily_date", "account_id", "score"),
        #: The daily boards of the last days to settle (each date's presets), read from the
        #: index alone, however many days the table holds.
        Index("ix_plays_kind_date_rules", "kind", "daily_date", "rules"),
    )


class PlayTotalRow(Base):
    """A member's plays of one preset in one mode, summed: how many, the best score and share
    of the board, the longest and the highest-scoring word (the earliest play's, on a tie).
    Updated by the history in the transaction that records each play, so a profile reads a
    handful of these rows instead of the member's whole history."""

    __tablename__ = "play_totals"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_play_totals_account"),
        primary_key=True,
    )
    family: Mapped[str] = mapped_column(String(8), primary_key=True)
    rules: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(8), primary_key=True)
    games: Mapped[int] = mapped_column(Integer)
    best_score: Mapped[int] = mapped_column(Integer)
    #: The best score / board points of a play whose board's points are known (0 to 1).
    best_share: Mapped[float | None] = mapped_column(Float)
    longest_word: Mapped[str | None] = mapped_column(String(200))
    #: When the play with :attr:`longest_word` was played (an equal length later does not
    #: replace it).
    longest_at: Mapped[float | None] = mapped_column(Float)
    best_word: Mapped[str | None] = mapped_column(String(200))
    best_word_points: Mapped[int | None] = mapped_column(Integer)
    best_word_at: Mapped[float | None] = mapped_column(Float)


class MissedWordsRow(Base):
    """The words a member most often misses, per preset family: a bounded summary
    (Misra-Gries heavy hitters: ``{"counts": {word: misses}, "games": n}``, at most a few
    hundred words) updated when a play is recorded, so a profile reads one row."""

    __tablename__ = "missed_words"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    family: Mapped[str] = mapped_column(String(8), primary_key=True)
    summary: Mapped[dict[str, Any]] = mapped_column(default=dict)


class RatingRow(Base):
    """A member's OpenSkill rating in a preset family: mu, sigma, and the displayed ordinal."""

    __tablename__ = "ratings"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True
    )
    family: Mapped[str] = mapped_column(String(8), primary_key=True)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    display: Mapped[float] = mapped_column(Float)
    games: Mapped[int] = mapped_column(Integer)
    updated_at: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_ratings_family_display", "family", "display"),)


class RatingEventRow(Base):
    """One change of a member's rating: after which contest, its place there, and the new
    rating (the profile's rating history)."""

    __tablename__ = "rating_events"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    account_id: Mapped[int] = mapped_column(ForeignKey("accounts.id", ondelete="CASCADE"))
    family: Mapped[str] = mapped_column(String(8))
    #: The contest's key (:class:`RatedContestRow`).
    contest: Mapped[str] = mapped_column(String(80))
    at: Mapped[float] = mapped_column(Float)
    place: Mapped[int] = mapped_column(Integer)
    field: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column(Float)
    sigma: Mapped[float] = mapped_column(Float)
    display: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_rating_events_account", "account_id", "family", "at"),)


class RatedContestRow(Base):
    """A contest whose ratings have been updated (``room:CODE:FIRST_ROUND`` for a room's game,
    ``daily:DATE:RULES`` for a day's board): rated once, whoever asks again."""

    __tablename__ = "rated_contests"

    key: Mapped[str] = mapped_column(String(80), primary_key=True)
    rated_at: Mapped[float] = mapped_column(Float)


# -- computer opponents' seats in rooms ----------------------------------------------------------
# RoomPlayerRow.opponent and .opponent_seed (a seat a computer opponent takes) and
# RoomRoundRow.opponents (their timed lists, made once at the round's start) are declared on
# those classes above; revision 0013 adds them.


# -- the trainer -------------------------------------------------------------------------------------


class TrainerCardRow(Base):
    """One card of a member's trainer deck: a word they missed, with its board and path when
    known and its place in the spaced-repetition schedule (:class:`bigboggle.trainer.Card`'s
    JSON form, less the word). Written by :mod:`bigboggle.services.training`."""

    __tablename__ = "trainer_cards"

    account_id: Mapped[int] = mapped_column(
        ForeignKey("accounts.id", ondelete="CASCADE", name="fk_trainer_cards_account"),
        primary_key=True,
    )
    word: Mapped[str] = mapped_column(String(40), primary_key=True)
    card: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: When the card is next due (a copy of the card's ``due``, for the index).
    due: Mapped[float] = mapped_column(Float)

    __table_args__ = (Index("ix_trainer_cards_due", "account_id", "due"),)


# -- asynchronous challenges -------------------------------------------------------------------------


class ChallengeRow(Base):
    """An asynchronous challenge: rules, options and dictionary every round is played by, how
    many rounds, and until when it is open (:mod:`bigboggle.services.challenges`)."""

    __tablename__ = "challenges"

    code: Mapped[str] = mapped_column(String(16), primary_key=True)
    rules: Mapped[str] = mapped_column(String(40))
    #: The solo options each round's game is started with (the timer among them).
    options: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: ``cancel`` (the rule: a word two players found is crossed off) or ``keep``.
    duplicates: Mapped[str] = mapped_column(String(8))
    dictionary: Mapped[str] = mapped_column(String(80))
    rounds: Mapped[int] = mapped_column(Integer)
    created_at: Mapped[float] = mapped_column(Float)
    closes_at: Mapped[float] = mapped_column(Float)
    #: The member who made it (none for a guest's), and the name it was made under.
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    maker: Mapped[str | None] = mapped_column(String(80))
    #: The team names of a team challenge (each player plays for one; words found by
    #: team-mates are not crossed off against each other), ``None`` without teams.
    teams: Mapped[list[str] | None] = mapped_column(JSON)

    #: The sweep's open (and lately closed) challenges, by when they close.
    __table_args__ = (Index("ix_challenges_closes_at", "closes_at"),)


class ChallengeRoundRow(Base):
    """One round (board) of a challenge, with its standings as last stored: scored among all
    the players who had finished it, and which games they were (so a later store only ever
    adds games)."""

    __tablename__ = "challenge_rounds"

    code: Mapped[str] = mapped_column(
        ForeignKey("challenges.code", ondelete="CASCADE"), primary_key=True
    )
    number: Mapped[int] = mapped_column(Integer, primary_key=True)
    board: Mapped[str] = mapped_column(Text)
    seed: Mapped[int | None] = mapped_column(BigInteger)
    #: The scored round as stored (none until its first player finishes).
    standings: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: The ids of the finished games the standings count, and how many (for the sweep's query).
    counted_games: Mapped[list[Any]] = mapped_column(default=list)
    counted: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[float | None] = mapped_column(Float)


class ChallengePlayerRow(Base):
    """A seat in a challenge: one per name (by its clash key), a member's by their account."""

    __tablename__ = "challenge_players"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(ForeignKey("challenges.code", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(80))
    name_key: Mapped[str] = mapped_column(String(160))
    account_id: Mapped[int | None] = mapped_column(
        ForeignKey("accounts.id", ondelete="SET NULL"), index=True
    )
    joined_at: Mapped[float] = mapped_column(Float)
    #: The team this seat plays for in a team challenge (chosen at its first play, then fixed).
    team: Mapped[str | None] = mapped_column(String(80))

    __table_args__ = (UniqueConstraint("code", "name_key"),)


class ChallengeGameRow(Base):
    """A seat's game of one round: reserved first (no game yet), then the solo game it plays."""

    __tablename__ = "challenge_games"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(ForeignKey("challenges.code", ondelete="CASCADE"), index=True)
    number: Mapped[int] = mapped_column(Integer)
    player_id: Mapped[int] = mapped_column(ForeignKey("challenge_players.id", ondelete="CASCADE"))
    game_id: Mapped[str | None] = mapped_column(
        ForeignKey("games.id", ondelete="CASCADE"), index=True
    )
    reserved_at: Mapped[float] = mapped_column(Float)

    __table_args__ = (UniqueConstraint("player_id", "number"),)


def default_url() -> str:
    """The SQLite file in the user's data directory (``BIGBOGGLE_DB`` overrides it)."""
    if os.environ.get("BIGBOGGLE_DB"):
        return os.environ["BIGBOGGLE_DB"]
    folder = Path(platformdirs.user_data_dir("bigboggle", appauthor=False))
    return f"sqlite:///{folder / 'bigboggle.sqlite3'}"


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    # SQLAlchemy, not the sqlite3 module, says when a transaction begins (see _sqlite_begin).
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    _enter_wal(cursor)
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


SQLITE_WAIT_SECONDS = 30.0
"""How long a connection waits for SQLite's locks (the driver's busy timeout, and the switch to
WAL below) before the store reports the database locked."""


def _enter_wal(cursor: sqlite3.Cursor) -> None:
    """Put the database in WAL mode (kept in the file: once done, a no-op for every later
    connection). The switch needs the file to itself, and SQLite answers "database is locked"
    at once, without its busy timeout, when another connection switching at the same moment
    holds it (workers opening a new database together): so it is tried again, briefly, until
    :data:`SQLITE_WAIT_SECONDS` have passed."""
    deadline = time.monotonic() + SQLITE_WAIT_SECONDS
    pause = 0.001
    while True:
        try:
            cursor.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() + pause > deadline:
                raise
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _sqlite_begin(connection: Connection) -> None:
    # A writing transaction takes SQLite's write lock at once (BEGIN IMMEDIATE), so that what it
    # read still holds when it writes; a reading one does not block anybody.
    immediate = connection.get_execution_options().get("bigboggle_write", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")


class Store:
    """A database opened at ``url`` (default: :func:`default_url`), its schema up to date."""

    def __init__(self, url: str | None = None) -> None:
        self.url = url or default_url()
        self._write_lock: threading.Lock | contextlib.nullcontext[None] = contextlib.nullcontext()
        try:
            if self.url.startswith("sqlite"):
                self._make_sqlite_folder()
                self.engine = create_engine(
                    self.url,
                    connect_args={"check_same_thread": False, "timeout": SQLITE_WAIT_SECONDS},
                )
                event.listen(self.engine, "connect", _sqlite_pragmas)
                event.listen(self.engine, "begin", _sqlite_begin)
                self._write_lock = threading.Lock()
            else:
                self.engine = create_engine(self.url, pool_pre_ping=True)
            self._sessions = sessionmaker(self.engine, expire_on_commit=False)
            try:
                self._migrate()
            except BaseException:
                self.engine.dispose()  # a refused database keeps no connection open
                raise
        except ArgumentError as exc:
            raise StoreError(f"database URL {self.shown_url!r} is not valid: {exc}") from None
        except (OperationalError, ModuleNotFoundError, OSError) as exc:
            raise StoreError(f"cannot open the database {self.shown_url!r}: {exc}") from None

    def _make_sqlite_folder(self) -> None:
        prefix = "sqlite:///"
        if self.url.startswith(prefix) and self.url != "sqlite:///:memory:":
            Path(self.url[len(prefix) :]).expanduser().parent.mkdir(parents=True, exist_ok=True)

    def _migrate(self) -> None:
        """Create the schema or bring it up to date (:func:`bigboggle.services.migrations.upgrade`) in one
        transaction that holds a lock, so that workers starting at once migrate exactly once:
        PostgreSQL's advisory lock :data:`~bigboggle.services.migrations.POSTGRES_LOCK_KEY`, SQLite's
        write lock (``BEGIN IMMEDIATE``); other databases get only the transaction."""
        with self.engine.connect() as connection:
            if connection.dialect.name == "sqlite":
                self._migrate_sqlite(connection)
                return
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    lock = func.pg_advisory_xact_lock(migrations.POSTGRES_LOCK_KEY)
                    connection.execute(select(lock))  # held until the commit
                self._upgrade(connection)

    def _migrate_sqlite(self, connection: Connection) -> None:
        # SQLite's way to change a schema: foreign keys off (a table that is rebuilt must not
        # cascade its deletion to the rows that refer to it), the changes, a foreign key check,
        # the commit, foreign keys on. The pragma is ignored inside a transaction, so it goes to
        # the driver's connection before SQLAlchemy begins one.
        driver = connection.connection.driver_connection
        assert driver is not None
        driver.execute("PRAGMA foreign_keys=OFF")
        try:
            with connection.execution_options(bigboggle_write=True).begin():  # BEGIN IMMEDIATE
                self._upgrade(connection)
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").first()
                if broken is not None:
                    raise StoreError(
                        f"upgrading {self.shown_url!r} would leave a row of table "
                        f"{broken[0]!r} pointing at nothing (rowid {broken[1]}); nothing was changed"
                    )
        finally:
            driver.execute("PRAGMA foreign_keys=ON")

    def _upgrade(self, connection: Connection) -> None:
        """Bring the database on ``connection`` (in a transaction holding the lock) to the head."""
        try:
            revision = migrations.upgrade(connection, Base.metadata.tables)
        except migrations.SchemaRefused as refused:
            raise StoreError(f"{self.shown_url!r} {refused}") from None
        except SQLAlchemyError as exc:
            raise StoreError(f"cannot bring {self.shown_url!r} up to date: {exc}") from None
        missing = set(Base.metadata.tables) - set(inspect(connection).get_table_names())
        if missing:
            raise StoreError(
                f"{self.shown_url!r} is at schema revision {revision!r} but lacks the tables "
                f"{sorted(missing)!r}: it was emptied by hand, or a model has no revision yet "
                "(see bigboggle.services.migrations)"
            )

    @property
    def shown_url(self) -> str:
        """The URL with its password (if any) hidden, for messages and logs."""
        try:
            return make_url(self.url).render_as_string(hide_password=True)
        except ArgumentError:
            return self.url

    @property
    def schema_version(self) -> int:
        """The schema version of the open database: the number of its Alembic revision (also
        kept in the ``settings`` row ``schema_version``, which bigboggles from before Alembic read)."""
        with self.engine.connect() as connection:
            revision = migrations.current(connection)
        return int(revision) if revision is not None else 0

    @contextmanager
    def session(self) -> Iterator[Session]:
        """A session committed at the end of the block (rolled back if it raises). A database
        that cannot answer (:func:`_unavailable`) raises :class:`StoreError`."""
        try:
            with self._sessions() as session, session.begin():
                yield session
        except OperationalError as exc:
            raise self._unavailable(exc) from exc

    @contextmanager
    def write_session(self) -> Iterator[Session]:
        """A session for a read-then-write that must not interleave with another one: on
        SQLite it holds the write lock from the start; elsewhere, lock the rows it reads with
        ``with_for_update()``. Committed at the end of the block."""
        # On SQLite, writers in this process queue on a lock of ours first: SQLite's own wait for
        # its write lock sleeps in steps of milliseconds, which a busy room would feel.
        try:
            with self._write_lock, self.engine.connect() as connection:
                connection = connection.execution_options(bigboggle_write=True)
                with Session(bind=connection, expire_on_commit=False) as session, session.begin():
                    yield session
        except OperationalError as exc:
            raise self._unavailable(exc) from exc

    def _unavailable(self, exc: OperationalError) -> StoreError:
        """The :class:`StoreError` for a database that could not do what a session asked:
        unreachable, locked for too long, or missing a table. Only ``OperationalError`` is
        turned: an ``IntegrityError`` (a unique key taken) is the services' to catch around
        their own flushes, as before. The message names the database by :attr:`shown_url`
        (no password) and gives the driver's reason, not the SQL."""
        reason = str(exc.orig if exc.orig is not None else exc).strip().splitlines()
        shown = reason[0] if reason else type(exc).__name__
        return StoreError(f"the database {self.shown_url!r} cannot answer: {shown}")

    def setting(self, key: str, make: Callable[[], str]) -> str:
        """The value of setting ``key``, created with ``make()`` the first time it is asked for."""
        with self.session() as session:
            row = session.get(Setting, key)
            if row is not None:
                return row.value
        try:
            with self.session() as session:
                session.add(Setting(key=key, value=make()))
        except SQLAlchemyError:
            pass  # another process stored it first: theirs wins
        with self.session() as session:
            stored = session.scalar(select(Setting.value).where(Setting.key == key))
            if stored is None:  # pragma: no cover - only if the row was deleted meanwhile
                raise StoreError(f"setting {key!r} could not be stored")
            return stored

    def ping(self) -> None:
        """Raise :class:`StoreError` unless the database answers."""
        try:
            with self.engine.connect() as connection:
                connection.execute(text("SELECT 1"))
        except SQLAlchemyError as exc:
            raise StoreError(f"the database {self.shown_url!r} does not answer: {exc}") from None

    def close(self) -> None:
        """Close every pooled connection."""
        self.engine.dispose()

"""Members' ratings: rated contests stored once, each member's rating and its history.

Two kinds of contest are rated, each under a key that makes it happen once however many
processes ask (:class:`~bigboggle.services.store.RatedContestRow`, whose primary key decides):

- a rated room game, ``room:CODE:FIRST_ROUND``, when it is over (:meth:`Ratings.on_room_round`,
  a listener of :attr:`Rooms.on_round_scored`): its sides (players, or teams when it was played
  in teams) ranked by the game's final totals, equal totals tied. Whether the game is rated is
  the ``rated`` setting it started with (its first round's): turning it off while losing does
  not take a game back. A member who joined late or left counts with their total;
  guests' sides are left out (only members are rated, against each other). A game in which no
  member played a word (idle tabs) is not rated. A game the listener never rated (the process
  died after the last round's commit, or the write failed) is found by
  :meth:`Ratings.sweep_rooms` (the web app's periodic task) for
  :data:`~bigboggle.limits.ROOM_RATING_LOOKBACK` days; a game decided not to be rated keeps
  its key too, so that the sweep passes over it;
- a day's daily board of one preset, ``daily:DATE:RULES``, once that day (UTC) is over
  (:meth:`Ratings.settle_daily`, called by the web app's periodic task): that day's members who
  played it, ranked by score. A day waits while a member's daily game of it is not scored yet
  (after downtime the overdue games are scored in the background). A play added to a day after
  it was rated (a guest's entry claimed later) changes nothing.

Ratings are kept per preset family (:func:`bigboggle.rating.family_of`) and updated by the
pure :func:`bigboggle.rating.rate`; each update writes a :class:`RatingEventRow` (the place
among the rated field, its size and the new rating) for the member's history.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import RulesError, StoreError
from ..limits import (
    RATING_DAILY_PER_SETTLE,
    RATING_HISTORY_ROWS,
    ROOM_RATING_LOOKBACK,
    ROOM_RATING_PER_SWEEP,
)
from ..rating import Entrant, display, family_of, ranks_of, rate
from ..rules import Rules
from .daily import check_date
from .rooms import RoomRoundScored
from .rooms.queries import seat_accounts
from .rooms.standings import Standings
from .store import (
    PlayRow,
    RatedContestRow,
    RatingEventRow,
    RatingRow,
    RoomRoundRow,
    RoomRow,
    SoloGameRow,
    Store,
)

log = logging.getLogger(__name__)

#: Days before today whose daily boards :meth:`Ratings.settle_daily` still looks for: a server
#: that was down longer leaves the older ones unrated (their plays are kept).
DAILY_LOOKBACK_DAYS = 7
#: Members read per statement (a statement's parameters are bounded: SQLite's 32,766).
_CHUNK = 1000
#: The columns of a rating row a contest changes.
_CHANGED = ("mu", "sigma", "display", "games", "updated_at")
#: Times a contest's update is tried when another one wrote a newcomer's rating first, or
#: PostgreSQL aborted it (a deadlock or a serialization failure, which a new try may pass).
_RETRIES = 3
#: SQLSTATEs of an aborted transaction worth trying again: serialization failure, deadlock.
_TRANSIENT_STATES = frozenset({"40001", "40P01"})
#: Seconds in a day.
_DAY = 86_400.0


@dataclass(frozen=True)
class Rating:
    """A member's rating in a preset family: OpenSkill's ``mu`` and ``sigma``, the shown
    number (:func:`bigboggle.rating.display`) and the contests it is made of."""

    family: str
    mu: float
    sigma: float
    display: float
    games: int
    updated_at: float

    def to_json(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "display": self.display, "games": self.games}


@dataclass(frozen=True)
class RatingChange:
    """One rated contest of a member: its key, when, the place among the rated field (1 is
    first; ties share the better place) and the field's size, and the rating after it."""

    contest: str
    at: float
    place: int
    field: int
    mu: float
    sigma: float
    display: float

    def to_json(self) -> dict[str, Any]:
        return {
            "contest": self.contest,
            "at": self.at,
            "place": self.place,
            "field": self.field,
            "mu": self.mu,
            "sigma": self.sigma,
            "display": self.display,
        }


class Ratings:
    """Members' ratings on ``store``, with time from ``clock``."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    # -- rating a contest --------------------------------------------------------------------

    def rate_contest(self, key: str, family: str, at: float, entrants: Sequence[Entrant]) -> bool:
        """Rate the contest ``key`` once: every member among ``entrants`` gets their new rating
        in ``family`` and a history row, and the key is stored, in one transaction. ``False``
        if the key was rated already (by anyone: the key's insert decides between processes);
        a contest of fewer than two sides with members stores the key and changes no rating."""
        for attempt in range(_RETRIES):
            try:
                with self.store.write_session() as session:
                    if session.get(RatedContestRow, key) is not None:
                        return False
                    # Claimed first: a second process inserting the same key waits on it here
                    # and fails, having changed nothing.
                    session.add(RatedContestRow(key=key, rated_at=at))
                    session.flush()
                    self._update(session, key, family, at, entrants)
                return True
            except StoreError as exc:
                if not _transient(exc) or attempt == _RETRIES - 1:
                    raise
                log.warning("contest %s: %s; trying again", key, exc)
            except IntegrityError:
                # The key taken meanwhile (rated: done), or a newcomer's rating row written by
                # another contest at the same moment (tried again, reading it this time).
                with self.store.session() as session:
                    if session.get(RatedContestRow, key) is not None:
                        return False
        raise StoreError(f"contest {key!r} could not be rated: {_RETRIES} tries met other writers")

    def _update(
        self, session: Session, key: str, family: str, at: float, entrants: Sequence[Entrant]
    ) -> None:
        """Write the contest's new ratings and history rows (in ``session``, which holds the
        contest's key). A daily board may have thousands of members, so the rows are read in
        chunks (a statement's parameters are bounded) and written by bulk statements, not one
        ORM object each: the write lock is held for a fraction of a second, not seconds."""
        sides = [e for e in entrants if e.account_ids]
        if len(sides) < 2:
            return
        members = sorted({account for side in sides for account in side.account_ids})
        current: dict[int, tuple[float, float, int]] = {}
        for start in range(0, len(members), _CHUNK):  # locked in one order: no deadlock
            chunk = members[start : start + _CHUNK]
            for account, mu, sigma, games in session.execute(
                select(RatingRow.account_id, RatingRow.mu, RatingRow.sigma, RatingRow.games)
                .where(RatingRow.family == family, RatingRow.account_id.in_(chunk))
                .order_by(RatingRow.account_id)
                .with_for_update()
            ):
                current[account] = (mu, sigma, games)
        new = rate(sides, {account: (mu, sigma) for account, (mu, sigma, _) in current.items()})
        events: list[dict[str, Any]] = []
        fresh: list[dict[str, Any]] = []
        changed: list[dict[str, Any]] = []
        for side, place in zip(sides, ranks_of(sides), strict=True):
            for account in side.account_ids:
                mu, sigma = new[account]
                shown = float(display(mu, sigma))
                rating = {"mu": mu, "sigma": sigma, "display": shown, "updated_at": at}
                ids = {"account_id": account, "family": family}
                if account in current:
                    changed.append({**ids, **rating, "games": current[account][2] + 1})
                else:
                    fresh.append({**ids, **rating, "games": 1})
                events.append(
                    {"contest": key, "at": at, "place": place, "field": len(sides)}
                    | ids
                    | {"mu": mu, "sigma": sigma, "display": shown}
                )
        # Core statements, each executed once for many rows (the driver's executemany). New
        # rows in the order of their members' ids, as the existing ones were locked: two
        # contests inserting the same two newcomers in opposite orders would wait for each
        # other's unique-key entry (a deadlock on PostgreSQL).
        fresh.sort(key=lambda row: row["account_id"])
        changed.sort(key=lambda row: row["account_id"])
        connection = session.connection()
        if fresh:
            connection.execute(insert(RatingRow), fresh)
        if changed:
            by_key = (
                update(RatingRow)
                .where(
                    RatingRow.account_id == bindparam("key_account"),
                    RatingRow.family == bindparam("key_family"),
                )
                .values({name: bindparam(name) for name in _CHANGED})
            )
            connection.execute(
                by_key,
                [
                    {"key_account": row["account_id"], "key_family": family}
                    | {name: row[name] for name in _CHANGED}
                    for row in changed
                ],
            )
        connection.execute(insert(RatingEventRow), events)

    # -- rooms -------------------------------------------------------------------------------

    def on_room_round(self, event: RoomRoundScored) -> None:
        """Rate the room's game if ``event`` ends it and it is rated (see the module's
        docstring); heard again (a game ended twice over), it changes nothing. A game over
        that is not rated (unrated, no round scored, no member played a word, an unknown
        preset) has its key stored with no rating changed: decided, once."""
        if not event.over:
            return
        key = room_contest_key(event.code, event.first_round)
        with self.store.session() as session:
            if session.get(RatedContestRow, key) is not None:
                return
            rounds = session.execute(
                select(RoomRoundRow.settings, RoomRoundRow.result)
                .where(
                    RoomRoundRow.room == event.code,
                    RoomRoundRow.number >= event.first_round,
                    RoomRoundRow.number <= event.number,
                )
                .order_by(RoomRoundRow.number)
            ).all()
        scored = [(settings, result) for settings, result in rounds if result and "tally" in result]
        played = [settings for settings, _ in scored]
        family = None
        if not played or rounds[0][0].get("rated", True) is not True:  # as the game began
            why = "not a rated game"
        elif not _members_played(scored, event.seats):
            why = "no member played a word"
        else:
            try:
                preset = Rules.preset(event.rules)
                family = family_of(preset.rows, preset.cols)
                why = ""
            except RulesError:
                why = f"unknown preset {event.rules!r}"
        if family is None:
            log.info(
                "room %s: the game from round %d is not rated: %s",
                event.code,
                event.first_round,
                why,
            )
            self.rate_contest(key, "", event.at, [])  # the key alone: decided
            return
        entrants = room_entrants(played, event.seats, event.totals)
        self.rate_contest(key, family, event.at, entrants)

    def sweep_rooms(self, limit: int = ROOM_RATING_PER_SWEEP) -> list[str]:
        """Decide the finished room games the listener left undecided (the process died
        after the last round's commit, or the rating's write failed): rooms whose game is over,
        active in the last :data:`~bigboggle.limits.ROOM_RATING_LOOKBACK` days, whose game's
        key is not stored; at most ``limit`` of them per call (the rest wait for the next).
        A game whose last round is still being scored (the host ended it mid-round) waits.
        The keys decided (rated, or stored as not rated)."""
        since = self.clock() - ROOM_RATING_LOOKBACK * _DAY
        with self.store.session() as session:
            over = session.execute(
                select(RoomRow.code, RoomRow.standings)
                .where(
                    RoomRow.over.is_(True),
                    RoomRow.standings.is_not(None),
                    func.coalesce(RoomRow.active_at, RoomRow.created_at) >= since,
                )
                .order_by(RoomRow.code)
            ).all()
            games = {
                room_contest_key(code, Standings.from_json(standings).first_round): code
                for code, standings in over
                if standings is not None
            }
            decided: set[str] = set()
            keys = sorted(games)
            for start in range(0, len(keys), _CHUNK):
                decided.update(
                    session.scalars(
                        select(RatedContestRow.key).where(
                            RatedContestRow.key.in_(keys[start : start + _CHUNK])
                        )
                    )
                )
        done: list[str] = []
        for key in [k for k in keys if k not in decided][:limit]:
            event = self._game_end(games[key])
            if event is None or room_contest_key(event.code, event.first_round) != key:
                continue  # not over any more (a rematch), or a round still being scored
            try:
                self.on_room_round(event)
            except Exception:  # one game failing again never holds up the others
                log.exception("could not rate the game %s", key)
                continue
            done.append(key)
        return done

    def _game_end(self, code: str) -> RoomRoundScored | None:
        """Room ``code``'s finished game as the listener would have heard its end; ``None``
        if the game is not over, or a round of it is still to be scored."""
        with self.store.session() as session:
            room = session.get(RoomRow, code)
            if room is None or not room.over or room.standings is None:
                return None
            standings = Standings.from_json(room.standings)
            rounds = session.execute(
                select(RoomRoundRow.number, RoomRoundRow.settings, RoomRoundRow.result)
                .where(RoomRoundRow.room == code, RoomRoundRow.number >= standings.first_round)
                .order_by(RoomRoundRow.number)
            ).all()
            if any(result is None for _, _, result in rounds):
                return None
            seats = seat_accounts(session, code)
        number, settings, result = rounds[-1] if rounds else (standings.first_round - 1, {}, {})
        return RoomRoundScored(
            code=code,
            number=number,
            first_round=standings.first_round,
            rules=str(settings.get("rules", "big")),
            over=True,
            at=self.clock(),
            seats=seats,
            result=result or {},
            totals=standings.ordered_totals(),
        )

    # -- the daily board ---------------------------------------------------------------------

    def settle_daily(self, today: str, limit: int = RATING_DAILY_PER_SETTLE) -> list[str]:
        """Rate the daily boards of the days before ``today`` (``YYYY-MM-DD``, UTC) not yet
        rated, up to :data:`DAILY_LOOKBACK_DAYS` back, at most ``limit`` of them (oldest
        first; the rest wait for the next call): each day's members of a preset ranked by
        score. The keys rated."""
        first_day = dt.date.fromisoformat(check_date(today)) - dt.timedelta(
            days=DAILY_LOOKBACK_DAYS
        )
        with self.store.session() as session:
            # The last days' entries of ix_plays_kind_date_rules alone (revision 0011).
            fields = session.execute(
                select(PlayRow.daily_date, PlayRow.rules)
                .where(
                    PlayRow.kind == "daily",
                    PlayRow.daily_date < today,
                    PlayRow.daily_date >= first_day.isoformat(),
                )
                .distinct()
            ).all()
            keys = {
                daily_contest_key(date, rules): (date, rules)
                for date, rules in fields
                if date is not None
            }
            rated = set(
                session.scalars(select(RatedContestRow.key).where(RatedContestRow.key.in_(keys)))
            )
        done: list[str] = []
        for key in sorted(set(keys) - rated, key=lambda k: keys[k])[:limit]:
            date, rules = keys[key]
            if self._rate_daily(key, date, rules):
                done.append(key)
        return done

    def _rate_daily(self, key: str, date: str, rules: str) -> bool:
        """Rate the daily board of ``rules`` on ``date``; ``False`` (left for a later call)
        while a member's daily game of it is not scored yet: its play is still to come."""
        with self.store.session() as session:
            unscored = session.scalar(
                select(SoloGameRow.id)
                .where(
                    SoloGameRow.daily_date == date,
                    SoloGameRow.rules == rules,
                    SoloGameRow.account_id.is_not(None),
                    SoloGameRow.result.is_(None),
                )
                .limit(1)
            )
            if unscored is not None:
                log.info("daily board %s waits: game %s is not scored yet", key, unscored)
                return False
            plays = session.execute(
                select(PlayRow.account_id, PlayRow.score, PlayRow.family).where(
                    PlayRow.kind == "daily", PlayRow.daily_date == date, PlayRow.rules == rules
                )
            ).all()
        if not plays:
            return False
        best: dict[int, int] = {}  # one entry per member (the daily allows one; be sure)
        for account, score, _family in plays:
            best[account] = max(score, best.get(account, score))
        family = plays[0][2]
        entrants = [Entrant((account,), score) for account, score in sorted(best.items())]
        day_end = dt.datetime.combine(
            dt.date.fromisoformat(date) + dt.timedelta(days=1), dt.time(), tzinfo=dt.UTC
        )
        return self.rate_contest(key, family, day_end.timestamp(), entrants)

    # -- reading -----------------------------------------------------------------------------

    def rating(self, account_id: int, family: str) -> Rating | None:
        """The member's rating in ``family``; ``None`` before their first rated contest in it
        (they would start at the model's default, shown as 1000)."""
        with self.store.session() as session:
            row = session.get(RatingRow, (account_id, family))
        return None if row is None else _rating_of(row)

    def ratings(self, account_id: int) -> dict[str, dict[str, Any]]:
        """Every family the member is rated in: ``{family: {"mu", "sigma", "display",
        "games"}}`` (families in order of name)."""
        with self.store.session() as session:
            rows = session.scalars(
                select(RatingRow)
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.family)
            ).all()
        return {row.family: _rating_of(row).to_json() for row in rows}

    def history(
        self, account_id: int, family: str, limit: int = RATING_HISTORY_ROWS
    ) -> list[RatingChange]:
        """The member's last ``limit`` rating changes in ``family`` (at most
        :data:`RATING_HISTORY_ROWS`), oldest first (as a chart draws them)."""
        limit = max(0, min(int(limit), RATING_HISTORY_ROWS))
        with self.store.session() as session:
            rows = session.scalars(
                select(RatingEventRow)
                .where(RatingEventRow.account_id == account_id, RatingEventRow.family == family)
                .order_by(RatingEventRow.at.desc(), RatingEventRow.id.desc())
                .limit(limit)
            ).all()
        return [
            RatingChange(r.contest, r.at, r.place, r.field, r.mu, r.sigma, r.display)
            for r in reversed(rows)
        ]


def room_contest_key(code: str, first_round: int) -> str:
    """The contest key of the room game that began at round ``first_round``."""
    return f"room:{code}:{first_round}"


def daily_contest_key(date: str, rules: str) -> str:
    """The contest key of the daily board of ``rules`` on ``date``."""
    return f"daily:{date}:{rules}"


def room_entrants(
    played: Sequence[dict[str, Any]],
    seats: dict[str, int | None],
    totals: dict[str, int],
) -> list[Entrant]:
    """A room game's rated sides from the settings its scored rounds were played by (oldest
    first; each with its ``players`` and, in team play, its ``teams``), its seats (name ->
    account id or ``None``) and its final ``totals`` (competitor -> points). Each player
    counts for the side they last played on (themselves, or their team); a member seated
    under two names counts once, for the first; guests are left out; a side without a member
    is left out."""
    side_of: dict[str, str] = {}
    for settings in played:
        teams = settings.get("teams")
        if teams:
            for team, names in teams.items():
                for name in names:
                    side_of[name] = team
        else:
            for name in settings.get("players", []):
                side_of[name] = name
    members: dict[str, list[int]] = {}
    counted: set[int] = set()
    for name, account in seats.items():
        side = side_of.get(name)
        if account is None or side is None or side not in totals or account in counted:
            continue
        counted.add(account)
        members.setdefault(side, []).append(account)
    return [
        Entrant(tuple(members[side]), points) for side, points in totals.items() if side in members
    ]


def _members_played(
    scored: Sequence[tuple[dict[str, Any], dict[str, Any]]], seats: dict[str, int | None]
) -> bool:
    """Whether a member's seat entered any word in the game's ``scored`` rounds (settings,
    stored result); a game of idle tabs, all at zero, ranks nobody."""
    for _, result in scored:
        for name, player in result.get("round", {}).get("players", {}).items():
            if seats.get(name) is not None and player.get("words"):
                return True
    return False


def _transient(exc: StoreError) -> bool:
    """Whether ``exc`` is PostgreSQL aborting a transaction that a new try may pass (a
    deadlock, a serialization failure), by the SQLSTATE of the driver's error under it."""
    orig = getattr(exc.__cause__, "orig", None)
    return getattr(orig, "sqlstate", None) in _TRANSIENT_STATES


def _rating_of(row: RatingRow) -> Rating:
    return Rating(row.family, row.mu, row.sigma, row.display, row.games, row.updated_at)

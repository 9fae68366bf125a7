"""Members' ratings: rated contests stored once, each member's rating and its history.

Two kinds of contest are rated, each under a key that makes it happen once however many
processes ask (:class:`~bigboggle.services.store.RatedContestRow`, whose primary key decides):

- a rated room game, ``room:CODE:FIRST_ROUND``, when it is over (:meth:`Ratings.on_room_round`,
  a listener of :attr:`Rooms.on_round_scored`): its sides (players, or teams when it was played
  in teams) ranked by the game's final totals, equal totals tied. Whether the game is rated is
  the ``rated`` setting it started with (its first round's): turning it off while losing does
  not take a game back. A member who joined late or left counts with their total;
  guests' sides are left out (only members are rated, against each other);
- a day's daily board of one preset, ``daily:DATE:RULES``, once that day (UTC) is over
  (:meth:`Ratings.settle_daily`, called by the web app's periodic task): that day's members who
  played it, ranked by score. A play added to a day after it was rated (a guest's entry claimed
  later) changes nothing.

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

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import RulesError, StoreError
from ..limits import RATING_DAILY_PER_SETTLE, RATING_HISTORY_ROWS
from ..rating import Entrant, display, family_of, ranks_of, rate
from ..rules import Rules
from .daily import check_date
from .rooms import RoomRoundScored
from .store import PlayRow, RatedContestRow, RatingEventRow, RatingRow, RoomRoundRow, Store

log = logging.getLogger(__name__)

#: Days before today whose daily boards :meth:`Ratings.settle_daily` still looks for: a server
#: that was down longer leaves the older ones unrated (their plays are kept).
DAILY_LOOKBACK_DAYS = 7
#: Members read per statement (a statement's parameters are bounded: SQLite's 32,766).
_CHUNK = 1000
#: The columns of a rating row a contest changes.
_CHANGED = ("mu", "sigma", "display", "games", "updated_at")
#: Times a contest's update is tried again when another one wrote a newcomer's rating first.
_RETRIES = 3


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
        for _ in range(_RETRIES):
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
        # Core statements, each executed once for many rows (the driver's executemany).
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
        docstring); heard again (a game ended twice over), it changes nothing."""
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
        played = [settings for settings, result in rounds if result and "tally" in result]
        if not played or played[0].get("rated", True) is not True:
            return
        try:
            preset = Rules.preset(event.rules)
        except RulesError:
            log.warning("room %s: unknown preset %r, game not rated", event.code, event.rules)
            return
        entrants = room_entrants(played, event.seats, event.totals)
        self.rate_contest(key, family_of(preset.rows, preset.cols), event.at, entrants)

    # -- the daily board ---------------------------------------------------------------------

    def settle_daily(self, today: str, limit: int = RATING_DAILY_PER_SETTLE) -> list[str]:
        """Rate the daily boards of the days before ``today`` (``YYYY-MM-DD``, UTC) not yet
        rated, up to :data:`DAILY_LOOKBACK_DAYS` back, at most ``limit`` of them (oldest
        first; the rest wait for the next call): each day's members of a preset ranked by
        score. The keys rated."""
        first_day = dt.date.fromisoformat(check_date(today)) - dt.timedelta(
            days=DAILY_LOOKBACK_DAYS
        )
        since = dt.datetime.combine(first_day, dt.time(), tzinfo=dt.UTC).timestamp()
        with self.store.session() as session:
            fields = session.execute(
                select(PlayRow.daily_date, PlayRow.rules)
                .where(
                    PlayRow.kind == "daily",
                    PlayRow.played_at >= since,
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
        with self.store.session() as session:
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


def _rating_of(row: RatingRow) -> Rating:
    return Rating(row.family, row.mu, row.sigma, row.display, row.games, row.updated_at)

"""Leaderboards per preset: today's daily board, the week's daily boards, and all time by
rating.

- ``day``: every scored daily game of today's board (UTC) of the preset, guests included, best
  first (an earlier finish breaks a tie in the order, not in the place); members' rows say so.
- ``week``: members only: the points of their daily games of that preset over the last
  :data:`~bigboggle.limits.LEADERBOARD_WEEK_DAYS` UTC days (today included), summed, so
  playing every day counts as much as playing well.
- ``all``: members by their rating (its displayed value) in the preset's family (board size):
  ``big`` and ``big-1979`` share the 5×5 ratings.

Places are competition ranking, the same everywhere: equal scores share a place and the next
place skips (1, 2, 2, 4). A viewer below the rows shown gets their own row: their place is one
more than the number of better entries, counted by the database, not by reading the board.
"""

from __future__ import annotations

import datetime as dt
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from sqlalchemy import Connection, Select, bindparam, case, func, select

from ..errors import RoundInputError, quoted
from ..limits import LEADERBOARD_ROWS, LEADERBOARD_WEEK_DAYS
from ..rating import family_of
from ..rules import Rules
from .daily import utc_date
from .members import marked_member
from .store import AccountRow, PlayRow, RatingRow, SoloGameRow, Store

#: The periods a leaderboard covers, as the API names them.
PERIODS = ("day", "week", "all")


def profile_path(username: str) -> str:
    """The path of a member's profile page (the name escaped for a URL)."""
    return "/players/" + quote(username, safe="")


def check_period(period: object) -> str:
    """``period`` if it is one of :data:`PERIODS`; :class:`RoundInputError` naming it if not."""
    if not isinstance(period, str) or period not in PERIODS:
        raise RoundInputError(f"period {quoted(period)} is not one of {', '.join(PERIODS)}")
    return period


def competition_places(scores: Sequence[float]) -> list[int]:
    """The places of ``scores`` sorted best first: equal scores share a place, and the next
    place skips as many as tied (1, 2, 2, 4)."""
    places: list[int] = []
    for index, score in enumerate(scores):
        same = index > 0 and score == scores[index - 1]
        places.append(places[-1] if same else index + 1)
    return places


@dataclass(frozen=True)
class LeaderEntry:
    """One row of a leaderboard: a place, a name, and the number it is ranked by (points on a
    daily board, the week's points, or the rating's displayed value)."""

    place: int
    player: str
    score: float
    #: The member whose row it is (``None`` for a guest's daily game).
    member: str | None = None
    #: Day: the game's board points and id. Week: how many daily boards were summed.
    #: All: the rating's mu, sigma and rated games.
    max_score: int | None = None
    game: str | None = None
    days: int | None = None
    mu: float | None = None
    sigma: float | None = None
    games: int | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"place": self.place, "player": self.player, "score": self.score}
        if self.member is not None:
            data["member"] = True
            data["profile"] = profile_path(self.member)
        extra = {
            "max_score": self.max_score,
            "game": self.game,
            "days": self.days,
            "mu": self.mu,
            "sigma": self.sigma,
            "games": self.games,
        }
        data.update({key: value for key, value in extra.items() if value is not None})
        return data


@dataclass(frozen=True)
class LeaderboardView:
    """A preset's leaderboard for a period: the top rows, how many are on the board, and the
    viewer's own row (``None`` for a guest, or a member not on this board)."""

    rules: str
    title: str
    family: str
    period: str
    today: str
    #: The first day counted (the day itself for ``day``; none for ``all``).
    since: str | None
    total: int
    entries: tuple[LeaderEntry, ...]
    you: LeaderEntry | None

    @property
    def you_shown(self) -> bool:
        """Whether the viewer's row is among :attr:`entries`."""
        return self.you is not None and self.you in self.entries

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "rules": self.rules,
            "title": self.title,
            "family": self.family,
            "period": self.period,
            "today": self.today,
            "since": self.since,
            "total": self.total,
            "leaderboard": [entry.to_json() for entry in self.entries],
        }
        if self.you is not None:
            data["you"] = {**self.you.to_json(), "shown": self.you_shown}
        return data


class Leaderboards:
    """The leaderboards, read from ``store``; ``clock`` says what today is (UTC)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    def board(
        self,
        rules: str,
        period: str,
        *,
        viewer_id: int | None = None,
        limit: int = 50,
    ) -> LeaderboardView:
        """The leaderboard of preset ``rules`` for ``period`` (``day``, ``week``, ``all``): its
        first ``limit`` rows (1 to :data:`LEADERBOARD_ROWS`) and member ``viewer_id``'s own.
        :class:`RulesError` for an unknown preset, :class:`RoundInputError` for a bad period or
        limit, each naming the value."""
        preset = Rules.preset(rules)
        check_period(period)
        if (
            isinstance(limit, bool)
            or not isinstance(limit, int)
            or not 1 <= limit <= LEADERBOARD_ROWS
        ):
            raise RoundInputError(f"limit {quoted(limit)} must be from 1 to {LEADERBOARD_ROWS}")
        today = utc_date(self.clock())
        family = family_of(preset.rows, preset.cols)
        with self.store.session() as session:
            db = session.connection()  # Core statements: no ORM objects are made
            if period == "day":
                since: str | None = today
                total, entries, you = _day_board(db, rules, today, viewer_id, limit)
            elif period == "week":
                first = dt.date.fromisoformat(today) - dt.timedelta(days=LEADERBOARD_WEEK_DAYS - 1)
                since = first.isoformat()
                total, entries, you = _week_board(db, rules, since, today, viewer_id, limit)
            else:
                since = None
                total, entries, you = _rating_board(db, family, viewer_id, limit)
        return LeaderboardView(
            rules, preset.title, family, period, today, since, total, tuple(entries), you
        )


_Board = tuple[int, list[LeaderEntry], LeaderEntry | None]


def _counts(
    db: Connection,
    query: Select[*tuple[Any, ...]],
    score: Any,
    mine: float | None,
    **bound: Any,
) -> tuple[int, int]:
    """``(entries, better)``: how many entries ``query`` (one per entry, with a ``score``
    column) has, and how many score more than ``mine``, in one counting query."""
    rows = query.subquery()
    better = func.coalesce(func.sum(case((rows.c[score] > bindparam("mine"), 1), else_=0)), 0)
    found = db.execute(
        select(func.count(), better).select_from(rows), {**bound, "mine": mine}
    ).one()
    return found[0] or 0, found[1] if mine is not None else 0


# -- today's daily board ----------------------------------------------------------------------

_DAY_WHERE = (
    SoloGameRow.daily_date == bindparam("today"),
    SoloGameRow.rules == bindparam("rules"),
    SoloGameRow.score.is_not(None),
    SoloGameRow.ended_at.is_not(None),
)
_DAY_COLUMNS = (
    SoloGameRow.id,
    SoloGameRow.player,
    SoloGameRow.score,
    SoloGameRow.max_score,
    AccountRow.username,
)
_DAY_ORDER = (SoloGameRow.score.desc(), SoloGameRow.ended_at, SoloGameRow.id)
_DAY_ENTRIES = select(SoloGameRow.score).where(*_DAY_WHERE)
_Q_DAY_TOP = (
    select(*_DAY_COLUMNS)
    .outerjoin(AccountRow, AccountRow.id == SoloGameRow.account_id)
    .where(*_DAY_WHERE)
    .order_by(*_DAY_ORDER)
    .limit(bindparam("limit"))
)
_Q_DAY_MINE = (
    select(*_DAY_COLUMNS)
    .outerjoin(AccountRow, AccountRow.id == SoloGameRow.account_id)
    .where(*_DAY_WHERE, SoloGameRow.account_id == bindparam("viewer"))
    .order_by(*_DAY_ORDER)
    .limit(1)
)


def _day_entry(place: int, row: Any) -> LeaderEntry:
    # Marked as a member's only under the member's own name: a guest's game played as
    # "Kasparov" and then claimed by member "troll04" must not read "Kasparov (member)".
    member = marked_member(row.player, row.username)
    return LeaderEntry(
        place, row.player, row.score, member, max_score=row.max_score or 0, game=row.id
    )


def _day_board(db: Connection, rules: str, today: str, viewer_id: int | None, limit: int) -> _Board:
    bound = {"today": today, "rules": rules}
    rows = db.execute(_Q_DAY_TOP, {**bound, "limit": limit}).all()
    places = competition_places([row.score for row in rows])
    entries = [_day_entry(place, row) for place, row in zip(places, rows, strict=True)]
    mine = None
    if viewer_id is not None:
        mine = db.execute(_Q_DAY_MINE, {**bound, "viewer": viewer_id}).first()
    total, better = _counts(db, _DAY_ENTRIES, "score", mine.score if mine else None, **bound)
    you = None
    if mine is not None:
        you = _same_game(entries, _day_entry(better + 1, mine))
    return total, entries, you


def _same_game(entries: list[LeaderEntry], you: LeaderEntry) -> LeaderEntry:
    """The row of ``entries`` that is the viewer's game (so the view can tell it is shown),
    else ``you`` itself."""
    for entry in entries:
        if entry.game == you.game:
            return entry
    return you


# -- the week's daily boards ------------------------------------------------------------------

#: Each member's points on the preset's daily boards from ``since`` to ``today``: a range
#: of the index on (kind, rules, daily_date, account_id, score), read from the index alone
#: (the week's daily plays of one preset, one per member and day, whatever else is stored).
_WEEK_SUMS = (
    select(
        PlayRow.account_id,
        func.sum(PlayRow.score).label("total"),
        func.count().label("days"),
    )
    .where(
        PlayRow.kind == "daily",
        PlayRow.rules == bindparam("rules"),
        PlayRow.daily_date >= bindparam("since"),
        PlayRow.daily_date <= bindparam("today"),
    )
    .group_by(PlayRow.account_id)
)
_WEEK = _WEEK_SUMS.subquery()
#: The top rows, each with how many members are on the board (a window over the same
#: grouping: the week's plays are summed once for both).
_Q_WEEK_TOP = (
    select(
        _WEEK.c.total,
        _WEEK.c.days,
        AccountRow.username,
        func.count().over().label("entries"),
    )
    .join(AccountRow, AccountRow.id == _WEEK.c.account_id)
    .order_by(_WEEK.c.total.desc(), AccountRow.name_key)
    .limit(bindparam("limit"))
)
_Q_WEEK_MINE = (
    select(_WEEK.c.total, _WEEK.c.days, AccountRow.username)
    .join(AccountRow, AccountRow.id == _WEEK.c.account_id)
    .where(_WEEK.c.account_id == bindparam("viewer"))
)


def _week_entry(place: int, row: Any) -> LeaderEntry:
    return LeaderEntry(place, row.username, row.total, row.username, days=row.days)


def _week_board(
    db: Connection, rules: str, since: str, today: str, viewer_id: int | None, limit: int
) -> _Board:
    bound = {"rules": rules, "since": since, "today": today}
    rows = db.execute(_Q_WEEK_TOP, {**bound, "limit": limit}).all()
    places = competition_places([row.total for row in rows])
    entries = [_week_entry(place, row) for place, row in zip(places, rows, strict=True)]
    total = rows[0].entries if rows else 0
    mine = None
    if viewer_id is not None:
        mine = db.execute(_Q_WEEK_MINE, {**bound, "viewer": viewer_id}).first()
    if mine is None:
        return total, entries, None
    shown = [entry for entry in entries if entry.member == mine.username]
    if shown:  # among the rows: its place is known, no second count needed
        return total, entries, shown[0]
    _, better = _counts(db, _WEEK_SUMS, "total", mine.total, **bound)
    return total, entries, _week_entry(better + 1, mine)


def _same_member(entries: list[LeaderEntry], you: LeaderEntry) -> LeaderEntry:
    for entry in entries:
        if entry.member == you.member:
            return entry
    return you


# -- all time, by rating -----------------------------------------------------------------------

_RATING_COLUMNS = (
    RatingRow.display,
    RatingRow.mu,
    RatingRow.sigma,
    RatingRow.games,
    AccountRow.username,
)
#: The displayed rating of the last row shown (on the index (family, display)): the rows at
#: or above it are read and ordered, ties by name, so no sort of the whole family is needed.
_Q_RATING_FLOOR = (
    select(RatingRow.display)
    .where(RatingRow.family == bindparam("family"))
    .order_by(RatingRow.display.desc())
    .limit(1)
    .offset(bindparam("last"))
)
_Q_RATING_TOP = (
    select(*_RATING_COLUMNS)
    .join(AccountRow, AccountRow.id == RatingRow.account_id)
    .where(RatingRow.family == bindparam("family"), RatingRow.display >= bindparam("floor"))
    .order_by(RatingRow.display.desc(), AccountRow.name_key)
    .limit(bindparam("limit"))
)
_Q_RATING_MINE = (
    select(*_RATING_COLUMNS)
    .join(AccountRow, AccountRow.id == RatingRow.account_id)
    .where(RatingRow.family == bindparam("family"), RatingRow.account_id == bindparam("viewer"))
)
_RATING_ENTRIES = select(RatingRow.display).where(RatingRow.family == bindparam("family"))


def _rating_entry(place: int, row: Any) -> LeaderEntry:
    return LeaderEntry(
        place,
        row.username,
        round(row.display, 1),
        row.username,
        mu=row.mu,
        sigma=row.sigma,
        games=row.games,
    )


def _rating_board(db: Connection, family: str, viewer_id: int | None, limit: int) -> _Board:
    bound = {"family": family}
    floor = db.execute(_Q_RATING_FLOOR, {**bound, "last": limit - 1}).scalar()
    rows = db.execute(
        _Q_RATING_TOP, {**bound, "floor": floor if floor is not None else -math.inf, "limit": limit}
    ).all()
    places = competition_places([row.display for row in rows])
    entries = [_rating_entry(place, row) for place, row in zip(places, rows, strict=True)]
    mine = None
    if viewer_id is not None:
        mine = db.execute(_Q_RATING_MINE, {**bound, "viewer": viewer_id}).first()
    total, better = _counts(db, _RATING_ENTRIES, "display", mine.display if mine else None, **bound)
    you = None
    if mine is not None:
        you = _same_member(entries, _rating_entry(better + 1, mine))
    return total, entries, you

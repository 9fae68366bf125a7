"""A member's profile: what their history says about them, read from the stored plays.

Everything here is a view of rows other services write (:class:`~.store.PlayRow` and its
sums :class:`~.store.PlayTotalRow` by the history, :class:`~.store.MissedWordsRow` with it,
:class:`~.store.RatingRow` and :class:`~.store.RatingEventRow` by the ratings); nothing is
scored or solved again. Each part of a profile is one bounded query on an index that starts
with the member's id, and none reads the member's whole history: the counts and bests come
from the play totals (a row per preset and mode played), the weekly averages from the last
:data:`~bigboggle.limits.PROFILE_WEEKS` weeks' plays (grouped in the database, from an index
alone), the daily boards from one index row per date played. So a profile costs what the
member's last weeks and days played cost, whatever their history or the database holds.

What is public and what is the member's own (``own=True``):

- Public (``GET /api/players/NAME``, ``/players/NAME``): the name and when the account was made,
  games counted by preset and mode, the bests per preset family, the weekly averages, the daily
  board's streaks and calendar, the words most often missed, the ratings with their history.
- Own only: the last plays, each with a link to its game or room. A solo game's page is public
  to anyone who has its id, but a list of a member's games says when and how often they play,
  game by game; that is theirs to see.

The daily streak counts consecutive UTC days with a daily board played, in any preset. The
current streak still stands on a day not yet played (it counts to yesterday), and is broken
once a whole UTC day passes without one.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    BindParameter,
    Connection,
    Float,
    Integer,
    String,
    bindparam,
    case,
    cast,
    func,
    select,
)

from ..errors import NotFoundError, RoundInputError, quoted
from ..limits import (
    MAX_ENTRY_LENGTH,
    MAX_NAME_LENGTH,
    PROFILE_CALENDAR_WEEKS,
    PROFILE_MISSED_WORDS,
    PROFILE_RATING_POINTS,
    PROFILE_RECENT_PLAYS,
    PROFILE_WEEKS,
)
from ..names import clean_name, name_key
from ..rules import PRESETS
from .challenges import MemberChallenge, member_challenges
from .daily import utc_date
from .store import (
    AccountRow,
    MissedWordsRow,
    PlayRow,
    PlayTotalRow,
    RatingEventRow,
    RatingRow,
    Store,
)

#: The modes a play is counted in, in the order a profile shows them.
MODES = ("solo", "daily", "room")
#: Said wherever the missed words are shown: the summary keeps the most frequent words of a
#: bounded table (Misra-Gries), so a count may be a little low, never high.
MISSED_NOTE = (
    "Counts are approximate: only the most often missed words are kept, so a count may be "
    "a little lower than the true one."
)
_WEEK = dt.timedelta(days=7)


def _day(text: str) -> dt.date:
    return dt.date.fromisoformat(text)


def _monday(day: dt.date) -> dt.date:
    return day - dt.timedelta(days=day.weekday())


def _midnight(day: dt.date) -> float:
    return dt.datetime.combine(day, dt.time(), tzinfo=dt.UTC).timestamp()


@dataclass(frozen=True)
class PresetGames:
    """How many games of one preset a member played, per mode."""

    rules: str
    title: str
    solo: int
    daily: int
    room: int

    @property
    def total(self) -> int:
        return self.solo + self.daily + self.room

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "title": self.title,
            "solo": self.solo,
            "daily": self.daily,
            "room": self.room,
            "total": self.total,
        }


@dataclass(frozen=True)
class FamilyBests:
    """A member's bests on one board size (preset family): score, share of the board's
    points, the longest word and the highest-scoring one."""

    family: str
    games: int
    best_score: int
    #: The best score / board points of a play whose board's points are known (0 to 1).
    best_share: float | None
    longest_word: str | None
    best_word: str | None
    best_word_points: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "games": self.games,
            "best_score": self.best_score,
            "best_share": self.best_share,
            "longest_word": self.longest_word,
            "best_word": self.best_word,
            "best_word_points": self.best_word_points,
        }


@dataclass(frozen=True)
class WeekAverage:
    """One UTC week (Monday to Sunday) of plays: how many, their mean score and mean share
    of the board (none for a week without plays, or without a known board total)."""

    week: str
    games: int
    mean_score: float | None
    mean_share: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "week": self.week,
            "games": self.games,
            "mean_score": self.mean_score,
            "mean_share": self.mean_share,
        }


@dataclass(frozen=True)
class CalendarDay:
    """One UTC day of the daily calendar: played or not, and the best score of the day."""

    date: str
    best: int | None

    @property
    def played(self) -> bool:
        return self.best is not None

    def to_json(self) -> dict[str, Any]:
        return {"date": self.date, "played": self.played, "best": self.best}


@dataclass(frozen=True)
class DailyRecord:
    """The daily board's streaks (consecutive UTC days with a play, any preset) and the last
    weeks' calendar, Monday first."""

    current_streak: int
    longest_streak: int
    played_today: bool
    days_played: int
    calendar: tuple[CalendarDay, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "current_streak": self.current_streak,
            "longest_streak": self.longest_streak,
            "played_today": self.played_today,
            "days_played": self.days_played,
            "calendar": [day.to_json() for day in self.calendar],
        }


@dataclass(frozen=True)
class MissedWords:
    """The words a member most often missed on one board size, most missed first."""

    family: str
    games: int
    words: tuple[tuple[str, int], ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "games": self.games,
            "words": [{"word": word, "count": count} for word, count in self.words],
        }


@dataclass(frozen=True)
class RatingPoint:
    """A member's rating after one rated contest."""

    at: float
    display: float
    mu: float
    sigma: float
    place: int
    field: int

    def to_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "display": self.display,
            "mu": self.mu,
            "sigma": self.sigma,
            "place": self.place,
            "field": self.field,
        }


@dataclass(frozen=True)
class FamilyRating:
    """A member's rating on one board size, with its last changes, oldest first."""

    family: str
    mu: float
    sigma: float
    display: float
    games: int
    history: tuple[RatingPoint, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "family": self.family,
            "mu": self.mu,
            "sigma": self.sigma,
            "display": self.display,
            "games": self.games,
            "history": [point.to_json() for point in self.history],
        }


@dataclass(frozen=True)
class RecentPlay:
    """One of a member's last plays, with where to see it (own profile only)."""

    kind: str
    rules: str
    ref: str
    played_at: float
    score: int
    max_score: int | None
    words: int

    @property
    def link(self) -> str:
        """The game's page (a solo or daily game), or the room's (a room's round)."""
        if self.kind == "room":
            return f"/rooms/{self.ref.split('/', 1)[0]}"
        return f"/games/{self.ref}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "rules": self.rules,
            "ref": self.ref,
            "link": self.link,
            "played_at": self.played_at,
            "score": self.score,
            "max_score": self.max_score,
            "words": self.words,
        }


@dataclass(frozen=True)
class ProfileView:
    """A member's profile as of ``today`` (``recent`` is ``None`` unless it is their own)."""

    name: str
    member_since: float
    today: str
    games: int
    presets: tuple[PresetGames, ...]
    bests: tuple[FamilyBests, ...]
    weekly: tuple[WeekAverage, ...]
    daily: DailyRecord
    missed: tuple[MissedWords, ...]
    ratings: tuple[FamilyRating, ...]
    recent: tuple[RecentPlay, ...] | None = None
    #: The member's open and finished challenges (own only).
    challenges: tuple[MemberChallenge, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "member_since": self.member_since,
            "today": self.today,
            "games": self.games,
            "presets": [games.to_json() for games in self.presets],
            "bests": [best.to_json() for best in self.bests],
            "weekly": [week.to_json() for week in self.weekly],
            "daily": self.daily.to_json(),
            "missed": [missed.to_json() for missed in self.missed],
            "missed_note": MISSED_NOTE,
            "ratings": [rating.to_json() for rating in self.ratings],
        }
        if self.recent is not None:
            data["recent"] = [play.to_json() for play in self.recent]
        if self.challenges is not None:
            data["challenges"] = [challenge.to_json() for challenge in self.challenges]
        return data


def streaks(days: Iterable[str], today: str) -> tuple[int, int]:
    """``(current, longest)``: runs of consecutive UTC dates (``YYYY-MM-DD``) in ``days``. The
    current run ends today, or yesterday if today has no play yet; otherwise it is 0."""
    dates = sorted({_day(day) for day in days})
    longest = run = 0
    previous: dt.date | None = None
    for day in dates:
        run = run + 1 if previous is not None and day - previous == dt.timedelta(days=1) else 1
        longest = max(longest, run)
        previous = day
    present = set(dates)
    end = _day(today)
    if end not in present:
        end -= dt.timedelta(days=1)
    current = 0
    while end in present:
        current += 1
        end -= dt.timedelta(days=1)
    return current, longest


def top_missed(
    summary: object, limit: int = PROFILE_MISSED_WORDS
) -> tuple[int, list[tuple[str, int]]]:
    """``(games, words)`` of a stored missed-words summary: the ``limit`` most missed words
    (ties alphabetical). A summary that is not the expected shape counts as empty, so one
    broken row cannot fail a profile."""
    if not isinstance(summary, dict):
        return 0, []
    counts = summary.get("counts")
    games = summary.get("games")
    found = [
        (word[:MAX_ENTRY_LENGTH], count)
        for word, count in (counts.items() if isinstance(counts, dict) else ())
        if isinstance(word, str)
        and isinstance(count, int)
        and not isinstance(count, bool)
        and count > 0
    ]
    found.sort(key=lambda item: (-item[1], item[0]))
    return (games if isinstance(games, int) else 0), found[:limit]


_ACCOUNT: BindParameter[int] = bindparam("account", type_=Integer)
_FAMILY: BindParameter[str] = bindparam("family", type_=String)
_MINE = PlayRow.account_id == _ACCOUNT


#: The statements a profile runs, built once (so each request only binds the member's id and
#: the dates: SQLAlchemy's compiled-statement cache answers the rest), each on an index that
#: starts with the member's id.
_Q_ACCOUNT = select(AccountRow.id, AccountRow.username, AccountRow.created_at).where(
    AccountRow.name_key == bindparam("key")
)
#: The member's totals per (family, preset, mode), which the history keeps as it records
#: each play: the counts and bests come from these few rows, whatever the history's length.
_Q_TOTALS = select(
    PlayTotalRow.family,
    PlayTotalRow.rules,
    PlayTotalRow.kind,
    PlayTotalRow.games,
    PlayTotalRow.best_score,
    PlayTotalRow.best_share,
    PlayTotalRow.longest_word,
    PlayTotalRow.longest_at,
    PlayTotalRow.best_word,
    PlayTotalRow.best_word_points,
    PlayTotalRow.best_word_at,
).where(PlayTotalRow.account_id == _ACCOUNT)
#: The last weeks' plays, grouped by week in the database: a range of the index on
#: (account_id, played_at, score, max_score), read from the index alone, never further back
#: than :data:`PROFILE_WEEKS` weeks.
_START = bindparam("start", type_=Float)
_WEEK_INDEX = func.floor((PlayRow.played_at - _START) / _WEEK.total_seconds())
_SHARE = case(
    (PlayRow.max_score <= 0, None),
    (PlayRow.score >= PlayRow.max_score, 1.0),
    else_=cast(PlayRow.score, Float) / PlayRow.max_score,
)
_Q_WEEKS = (
    select(_WEEK_INDEX, func.count(), func.sum(PlayRow.score), func.sum(_SHARE), func.count(_SHARE))
    .where(_MINE, PlayRow.played_at >= _START, PlayRow.played_at < bindparam("end", type_=Float))
    .group_by(_WEEK_INDEX)
)
#: The best score of each daily board's date (on (account_id, kind, daily_date, score), read
#: from the index alone): one row per date the member played, whatever else they played.
_Q_DAILY = (
    select(PlayRow.daily_date, func.max(PlayRow.score))
    .where(_MINE, PlayRow.kind == "daily", PlayRow.daily_date.is_not(None))
    .group_by(PlayRow.daily_date)
)
_Q_MISSED = (
    select(MissedWordsRow.family, MissedWordsRow.summary)
    .where(MissedWordsRow.account_id == _ACCOUNT)
    .order_by(MissedWordsRow.family)
)
_Q_RATINGS = (
    select(RatingRow.family, RatingRow.mu, RatingRow.sigma, RatingRow.display, RatingRow.games)
    .where(RatingRow.account_id == _ACCOUNT)
    .order_by(RatingRow.family)
)
#: The last :data:`PROFILE_RATING_POINTS` changes of one family's rating, newest first: a
#: backward walk of the index on (account_id, family, at) that stops there, however many
#: contests the member has been rated in.
_Q_EVENTS = (
    select(
        RatingEventRow.at,
        RatingEventRow.display,
        RatingEventRow.mu,
        RatingEventRow.sigma,
        RatingEventRow.place,
        RatingEventRow.field,
    )
    .where(RatingEventRow.account_id == _ACCOUNT, RatingEventRow.family == _FAMILY)
    .order_by(RatingEventRow.at.desc(), RatingEventRow.id.desc())
    .limit(PROFILE_RATING_POINTS)
)
_Q_RECENT = (
    select(
        PlayRow.kind,
        PlayRow.rules,
        PlayRow.ref,
        PlayRow.played_at,
        PlayRow.score,
        PlayRow.max_score,
        PlayRow.words,
    )
    .where(_MINE)
    .order_by(PlayRow.played_at.desc(), PlayRow.id.desc())
    .limit(PROFILE_RECENT_PLAYS)
)
_Q_GAMES = select(func.sum(PlayTotalRow.games)).where(PlayTotalRow.account_id == _ACCOUNT)


class Profiles:
    """Members' profiles and the short summary ``GET /api/me`` shows, read from ``store``;
    ``clock`` says what "today" and "this week" are (UTC)."""

    def __init__(self, store: Store, clock: Callable[[], float] = time.time) -> None:
        self.store = store
        self.clock = clock

    def profile(self, name: object, *, own: bool = False) -> ProfileView:
        """The profile of the member called ``name`` (compared by :func:`~bigboggle.names.name_key`,
        so ``ANN`` finds ``ann``); with ``own``, the member's private parts too.
        :class:`NotFoundError` if no member has that name."""
        key = self._key(name)
        today = utc_date(self.clock())
        with self.store.session() as session:
            db = session.connection()  # Core statements: no ORM objects are made
            account = db.execute(_Q_ACCOUNT, {"key": key}).first()
            if account is None:
                raise NotFoundError(f"no member called {quoted(name)}")
            mine = {"account": account.id}
            totals = db.execute(_Q_TOTALS, mine).all()
            presets = _presets(totals)
            return ProfileView(
                name=account.username,
                member_since=account.created_at,
                today=today,
                games=sum(games.total for games in presets),
                presets=presets,
                bests=_bests(totals),
                weekly=_weekly(db, mine, _day(today)),
                daily=_daily(db, mine, today),
                missed=_missed(db, mine),
                ratings=_ratings(db, mine),
                recent=_recent(db, mine) if own else None,
                challenges=(
                    tuple(member_challenges(self.store, account.id, self.clock())) if own else None
                ),
            )

    def summary(self, account_id: int) -> dict[str, Any]:
        """``{"games": N, "ratings": {FAMILY: {"mu", "sigma", "display", "games"}}}`` of a
        member (zeros and no ratings for an id that has none), for ``GET /api/me``."""
        with self.store.session() as session:
            db = session.connection()
            mine = {"account": account_id}
            games = db.execute(_Q_GAMES, mine).scalar()
            return {
                "games": games or 0,
                "ratings": {
                    row.family: {
                        "mu": row.mu,
                        "sigma": row.sigma,
                        "display": row.display,
                        "games": row.games,
                    }
                    for row in db.execute(_Q_RATINGS, mine)
                },
            }

    @staticmethod
    def _key(name: object) -> str:
        """The name key of a name from a URL; a name no member could have is not found."""
        if not isinstance(name, str) or len(name) > 4 * MAX_NAME_LENGTH:
            raise NotFoundError(f"no member called {quoted(name)}")
        try:
            return name_key(clean_name(name))
        except RoundInputError:
            raise NotFoundError(f"no member called {quoted(name)}") from None


# -- the parts of a profile ---------------------------------------------------------------------

_Bound = dict[str, Any]


def _presets(tally: Sequence[Any]) -> tuple[PresetGames, ...]:
    counts: dict[str, dict[str, int]] = {}
    for row in tally:
        by_mode = counts.setdefault(row.rules, dict.fromkeys(MODES, 0))
        by_mode[row.kind] = by_mode.get(row.kind, 0) + row.games
    order = {name: index for index, name in enumerate(PRESETS)}
    return tuple(
        PresetGames(
            rules,
            PRESETS[rules].title if rules in PRESETS else rules,
            **{mode: by_mode.get(mode, 0) for mode in MODES},
        )
        for rules, by_mode in sorted(
            counts.items(), key=lambda item: (order.get(item[0], len(order)), item[0])
        )
    )


def _bests(totals: Sequence[Any]) -> tuple[FamilyBests, ...]:
    games: dict[str, int] = {}
    score: dict[str, int] = {}
    share: dict[str, float] = {}
    #: Per family, the longest word and the best-scoring one, each with its rank (longer or
    #: more points first, then the earlier play).
    longest: dict[str, tuple[tuple[int, float], str]] = {}
    best: dict[str, tuple[tuple[int, float], str, int]] = {}
    for row in totals:
        family = row.family
        games[family] = games.get(family, 0) + row.games
        score[family] = max(score.get(family, 0), row.best_score or 0)
        if row.best_share is not None:
            share[family] = max(share.get(family, 0.0), min(1.0, float(row.best_share)))
        if row.longest_word is not None:
            rank = (len(row.longest_word), -(row.longest_at or 0.0))
            if family not in longest or rank > longest[family][0]:
                longest[family] = (rank, row.longest_word)
        if row.best_word is not None and row.best_word_points is not None:
            rank = (row.best_word_points, -(row.best_word_at or 0.0))
            if family not in best or rank > best[family][0]:
                best[family] = (rank, row.best_word, row.best_word_points)
    return tuple(
        FamilyBests(
            family,
            games[family],
            score[family],
            share.get(family),
            longest[family][1] if family in longest else None,
            best[family][1] if family in best else None,
            best[family][2] if family in best else None,
        )
        for family in sorted(games)
    )


def _weekly(db: Connection, mine: _Bound, today: dt.date) -> tuple[WeekAverage, ...]:
    first = _monday(today) - (PROFILE_WEEKS - 1) * _WEEK
    start = _midnight(first)
    bound = {**mine, "start": start, "end": start + PROFILE_WEEKS * _WEEK.total_seconds()}
    weeks: dict[int, tuple[int, int, float | None, int]] = {}
    for index, games, scores, shares, shared in db.execute(_Q_WEEKS, bound):
        weeks[int(index)] = (games, scores or 0, shares, shared)
    averages = []
    for index in range(PROFILE_WEEKS):
        games, scores, shares, shared = weeks.get(index, (0, 0, None, 0))
        averages.append(
            WeekAverage(
                (first + index * _WEEK).isoformat(),
                games,
                scores / games if games else None,
                float(shares) / shared if shared and shares is not None else None,
            )
        )
    return tuple(averages)


def _daily(db: Connection, mine: _Bound, today: str) -> DailyRecord:
    best_of_day: dict[str, int] = {
        date: best
        for date, best in db.execute(_Q_DAILY, mine)
        if isinstance(date, str) and _valid_date(date)
    }
    current, longest = streaks(best_of_day, today)
    last = _day(today)
    first = _monday(last) - (PROFILE_CALENDAR_WEEKS - 1) * _WEEK
    calendar = tuple(
        CalendarDay(day.isoformat(), best_of_day.get(day.isoformat()))
        for day in (first + dt.timedelta(days=n) for n in range((last - first).days + 1))
    )
    return DailyRecord(current, longest, today in best_of_day, len(best_of_day), calendar)


def _missed(db: Connection, mine: _Bound) -> tuple[MissedWords, ...]:
    found = []
    for family, summary in db.execute(_Q_MISSED, mine):
        games, words = top_missed(summary)
        if words:
            found.append(MissedWords(family, games, tuple(words)))
    return tuple(found)


def _ratings(db: Connection, mine: _Bound) -> tuple[FamilyRating, ...]:
    return tuple(
        FamilyRating(
            row.family,
            row.mu,
            row.sigma,
            row.display,
            row.games,
            tuple(
                RatingPoint(
                    event.at, event.display, event.mu, event.sigma, event.place, event.field
                )
                for event in reversed(db.execute(_Q_EVENTS, {**mine, "family": row.family}).all())
            ),
        )
        for row in db.execute(_Q_RATINGS, mine).all()
    )


def _recent(db: Connection, mine: _Bound) -> tuple[RecentPlay, ...]:
    return tuple(
        RecentPlay(row.kind, row.rules, row.ref, row.played_at, row.score, row.max_score, row.words)
        for row in db.execute(_Q_RECENT, mine)
    )


def _valid_date(text: object) -> bool:
    """Whether ``text`` is a date written ``YYYY-MM-DD`` (a stored row's, checked anyway)."""
    try:
        return isinstance(text, str) and len(text) == 10 and bool(_day(text))
    except ValueError:
        return False

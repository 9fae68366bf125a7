"""A member's profile: what their history says about them, read from the stored plays.

Everything here is a view of rows other services write (:class:`~.store.PlayRow` by the
history, :class:`~.store.MissedWordsRow` with it, :class:`~.store.RatingRow` and
:class:`~.store.RatingEventRow` by the ratings); nothing is scored or solved again. Each part
of a profile is one bounded query on an index that starts with the member's id, so a
profile costs what that member's own history costs, whatever the whole database holds.

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
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Float, cast, func, select
from sqlalchemy.orm import Session

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
from .daily import utc_date
from .store import AccountRow, MissedWordsRow, PlayRow, RatingEventRow, RatingRow, Store

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
            account = session.scalar(select(AccountRow).where(AccountRow.name_key == key))
            if account is None:
                raise NotFoundError(f"no member called {quoted(name)}")
            presets = self._presets(session, account.id)
            return ProfileView(
                name=account.username,
                member_since=account.created_at,
                today=today,
                games=sum(games.total for games in presets),
                presets=presets,
                bests=self._bests(session, account.id),
                weekly=self._weekly(session, account.id, _day(today)),
                daily=self._daily(session, account.id, today),
                missed=self._missed(session, account.id),
                ratings=self._ratings(session, account.id),
                recent=self._recent(session, account.id) if own else None,
            )

    def summary(self, account_id: int) -> dict[str, Any]:
        """``{"games": N, "ratings": {FAMILY: {"mu", "sigma", "display", "games"}}}`` of a
        member (zeros and no ratings for an id that has none), for ``GET /api/me``."""
        with self.store.session() as session:
            games = session.scalar(
                select(func.count()).select_from(PlayRow).where(PlayRow.account_id == account_id)
            )
            ratings = session.scalars(
                select(RatingRow)
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.family)
            ).all()
            return {
                "games": games or 0,
                "ratings": {
                    row.family: {
                        "mu": row.mu,
                        "sigma": row.sigma,
                        "display": row.display,
                        "games": row.games,
                    }
                    for row in ratings
                },
            }

    # -- the parts of a profile -------------------------------------------------------------

    @staticmethod
    def _key(name: object) -> str:
        """The name key of a name from a URL; a name no member could have is not found."""
        if not isinstance(name, str) or len(name) > 4 * MAX_NAME_LENGTH:
            raise NotFoundError(f"no member called {quoted(name)}")
        try:
            return name_key(clean_name(name))
        except RoundInputError:
            raise NotFoundError(f"no member called {quoted(name)}") from None

    @staticmethod
    def _presets(session: Session, account_id: int) -> tuple[PresetGames, ...]:
        counts: dict[str, dict[str, int]] = {}
        rows = session.execute(
            select(PlayRow.rules, PlayRow.kind, func.count())
            .where(PlayRow.account_id == account_id)
            .group_by(PlayRow.rules, PlayRow.kind)
        )
        for rules, kind, count in rows:
            counts.setdefault(rules, dict.fromkeys(MODES, 0))[kind] = count
        order = list(PRESETS)
        return tuple(
            PresetGames(
                rules,
                PRESETS[rules].title if rules in PRESETS else rules,
                **{mode: by_mode.get(mode, 0) for mode in MODES},
            )
            for rules, by_mode in sorted(
                counts.items(),
                key=lambda item: (order.index(item[0]) if item[0] in order else 99, item[0]),
            )
        )

    @staticmethod
    def _bests(session: Session, account_id: int) -> tuple[FamilyBests, ...]:
        share = cast(PlayRow.score, Float) / PlayRow.max_score
        mine = PlayRow.account_id == account_id
        families = session.execute(
            select(
                PlayRow.family,
                func.count(),
                func.max(PlayRow.score),
                func.max(share).filter(PlayRow.max_score > 0),
            )
            .where(mine)
            .group_by(PlayRow.family)
            .order_by(PlayRow.family)
        ).all()
        bests = []
        for family, games, best_score, best_share in families:
            longest = session.scalar(
                select(PlayRow.longest_word)
                .where(mine, PlayRow.family == family, PlayRow.longest_word.is_not(None))
                .order_by(func.length(PlayRow.longest_word).desc(), PlayRow.played_at)
                .limit(1)
            )
            best = session.execute(
                select(PlayRow.best_word, PlayRow.best_word_points)
                .where(mine, PlayRow.family == family, PlayRow.best_word.is_not(None))
                .order_by(PlayRow.best_word_points.desc(), PlayRow.played_at)
                .limit(1)
            ).first()
            bests.append(
                FamilyBests(
                    family,
                    games,
                    best_score or 0,
                    min(1.0, float(best_share)) if best_share is not None else None,
                    longest,
                    best[0] if best else None,
                    best[1] if best else None,
                )
            )
        return tuple(bests)

    @staticmethod
    def _weekly(session: Session, account_id: int, today: dt.date) -> tuple[WeekAverage, ...]:
        first = _monday(today) - (PROFILE_WEEKS - 1) * _WEEK
        rows = session.execute(
            select(PlayRow.played_at, PlayRow.score, PlayRow.max_score).where(
                PlayRow.account_id == account_id, PlayRow.played_at >= _midnight(first)
            )
        )
        scores: list[list[int]] = [[] for _ in range(PROFILE_WEEKS)]
        shares: list[list[float]] = [[] for _ in range(PROFILE_WEEKS)]
        for played_at, score, max_score in rows:
            day = dt.datetime.fromtimestamp(played_at, tz=dt.UTC).date()
            index = (day - first).days // 7
            if not 0 <= index < PROFILE_WEEKS:
                continue  # played in the future by the clock given: not in these weeks
            scores[index].append(score)
            if max_score:
                shares[index].append(min(1.0, score / max_score))
        return tuple(
            WeekAverage(
                (first + index * _WEEK).isoformat(),
                len(scores[index]),
                sum(scores[index]) / len(scores[index]) if scores[index] else None,
                sum(shares[index]) / len(shares[index]) if shares[index] else None,
            )
            for index in range(PROFILE_WEEKS)
        )

    @staticmethod
    def _daily(session: Session, account_id: int, today: str) -> DailyRecord:
        rows = session.execute(
            select(PlayRow.daily_date, func.max(PlayRow.score))
            .where(
                PlayRow.account_id == account_id,
                PlayRow.kind == "daily",
                PlayRow.daily_date.is_not(None),
            )
            .group_by(PlayRow.daily_date)
        )
        best_of_day = {day: best for day, best in rows}
        days = [day for day in best_of_day if isinstance(day, str) and _valid_date(day)]
        current, longest = streaks(days, today)
        last = _day(today)
        first = _monday(last) - (PROFILE_CALENDAR_WEEKS - 1) * _WEEK
        calendar = tuple(
            CalendarDay(day.isoformat(), best_of_day.get(day.isoformat()))
            for day in (first + dt.timedelta(days=n) for n in range((last - first).days + 1))
        )
        return DailyRecord(current, longest, today in best_of_day, len(days), calendar)

    @staticmethod
    def _missed(session: Session, account_id: int) -> tuple[MissedWords, ...]:
        rows = session.scalars(
            select(MissedWordsRow)
            .where(MissedWordsRow.account_id == account_id)
            .order_by(MissedWordsRow.family)
        )
        found = []
        for row in rows:
            games, words = top_missed(row.summary)
            if words:
                found.append(MissedWords(row.family, games, tuple(words)))
        return tuple(found)

    @staticmethod
    def _ratings(session: Session, account_id: int) -> tuple[FamilyRating, ...]:
        ratings = session.scalars(
            select(RatingRow).where(RatingRow.account_id == account_id).order_by(RatingRow.family)
        ).all()
        found = []
        for rating in ratings:
            events = session.scalars(
                select(RatingEventRow)
                .where(
                    RatingEventRow.account_id == account_id,
                    RatingEventRow.family == rating.family,
                )
                .order_by(RatingEventRow.at.desc(), RatingEventRow.id.desc())
                .limit(PROFILE_RATING_POINTS)
            ).all()
            history = tuple(
                RatingPoint(e.at, e.display, e.mu, e.sigma, e.place, e.field)
                for e in reversed(events)
            )
            found.append(
                FamilyRating(
                    rating.family, rating.mu, rating.sigma, rating.display, rating.games, history
                )
            )
        return tuple(found)

    @staticmethod
    def _recent(session: Session, account_id: int) -> tuple[RecentPlay, ...]:
        rows = session.scalars(
            select(PlayRow)
            .where(PlayRow.account_id == account_id)
            .order_by(PlayRow.played_at.desc(), PlayRow.id.desc())
            .limit(PROFILE_RECENT_PLAYS)
        )
        return tuple(
            RecentPlay(
                row.kind, row.rules, row.ref, row.played_at, row.score, row.max_score, row.words
            )
            for row in rows
        )


def _valid_date(text: object) -> bool:
    try:
        return isinstance(text, str) and len(text) == 10 and bool(_day(text))
    except ValueError:
        return False

"""Multiplayer rooms kept in the database: players, rounds on the server's clock, private
verdicts, crossing off at the end, and totals across rounds.

Everything a room knows is in the store, and every call reads what it needs from there, so any
number of server processes can serve one room (they only need to tell each other that something
happened; see :mod:`bigboggle.web.hub`). A word is stored before its verdict is returned, so an
acknowledged word survives a crash. A round is scored once its deadline (plus a short grace for
words already on their way) has passed, by whichever process gets there first; the database
decides which.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .dice import shake
from .dictionary import normalise
from .errors import GameStateError, RoundInputError, RulesError
from .judge import Judge
from .rules import MAX_TIMER, MAX_WORD_LENGTH, MIN_WORD_LENGTH, Rules
from .scoring import (
    MAX_LIST_LENGTH,
    MAX_NAME_LENGTH,
    RoundResult,
    Tournament,
    check_name,
    check_setup,
    score_round,
)
from .shelf import DictionaryShelf
from .solo_games import NotFoundError
from .store import RoomPlayerRow, RoomRoundRow, RoomRow, RoomWordRow, Store
from .verdicts import Verdict, WordResult

#: Seconds between "start" and the first word: time for every screen to show the board.
START_DELAY = 3.0
#: Seconds after the deadline before a round is scored: words already sent still arrive.
GRACE = 0.5
#: The most players a room can seat.
MAX_ROOM_PLAYERS = 50
#: Rules options a room may set (besides the timer and the dictionary).
ROOM_OPTIONS = frozenset({"advanced", "min_length", "challenge", "challenge_bonus", "duplicates"})
_CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"


class RoomFullError(GameStateError):
    """A join to a room whose seats are all taken."""


class NotHostError(GameStateError):
    """Something only the room's host may do."""


@dataclass(frozen=True)
class RoomSettings:
    """How a room plays: the preset and its options, the timer, the dictionary, how the game
    ends, the seats, and (set by the host once players have joined) teams and handicaps."""

    rules: str = "big"
    options: dict[str, Any] = field(default_factory=dict)
    timer: int | None = None
    dictionary: str | None = None
    target: int | None = None
    rounds: int | None = None
    max_players: int = 12
    handicaps: dict[str, int] = field(default_factory=dict)
    teams: dict[str, list[str]] | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> RoomSettings:
        """Settings from plain data; :class:`RulesError` or :class:`RoundInputError` name the
        key at fault."""
        if not isinstance(data, Mapping):
            raise RoundInputError("settings: expected an object")
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(data) - known)
        if unknown:
            raise RoundInputError(
                f"settings: unknown key {unknown[0]!r}; keys: {', '.join(sorted(known))}"
            )
        settings = cls(**{key: data[key] for key in data if data[key] is not None})
        settings.ruleset()  # checks the preset, the options and the timer
        for label, value, high in (
            ("target", settings.target, 100_000),
            ("rounds", settings.rounds, 200),
            ("max_players", settings.max_players, MAX_ROOM_PLAYERS),
        ):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high
            ):
                raise RoundInputError(f"settings.{label}={value!r} must be a number 1-{high}")
        if not isinstance(settings.handicaps, dict):
            raise RoundInputError("settings.handicaps: expected player -> shortest word length")
        for name, shortest in settings.handicaps.items():
            check_name(name, "settings.handicaps")
            if (
                isinstance(shortest, bool)
                or not isinstance(shortest, int)
                or not MIN_WORD_LENGTH <= shortest <= MAX_WORD_LENGTH
            ):
                raise RoundInputError(
                    f"settings.handicaps.{name}={shortest!r} must be a word length "
                    f"{MIN_WORD_LENGTH}-{MAX_WORD_LENGTH}"
                )
        if settings.teams is not None:
            if not isinstance(settings.teams, dict) or not settings.teams:
                raise RoundInputError("settings.teams: expected team -> list of player names")
            placed: set[str] = set()
            for team, members in settings.teams.items():
                check_name(team, "settings.teams")
                if not isinstance(members, list) or not members:
                    raise RoundInputError(f"settings.teams.{team}: expected a list of players")
                for member in members:
                    check_name(member, f"settings.teams.{team}")
                    if member in placed:
                        raise RoundInputError(
                            f"settings.teams: {member!r} is in two teams (or twice in one)"
                        )
                    placed.add(member)
        return settings

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "options": dict(self.options),
            "timer": self.timer,
            "dictionary": self.dictionary,
            "target": self.target,
            "rounds": self.rounds,
            "max_players": self.max_players,
            "handicaps": dict(self.handicaps),
            "teams": None if self.teams is None else {k: list(v) for k, v in self.teams.items()},
        }

    def ruleset(self) -> Rules:
        """The rules in force: the preset with the options and the timer."""
        if not isinstance(self.options, dict):
            raise RoundInputError("settings.options: expected an object")
        unknown = sorted(set(self.options) - ROOM_OPTIONS)
        if unknown:
            raise RulesError(
                f"settings.options: {unknown[0]!r} is not a room option; options: "
                f"{', '.join(sorted(ROOM_OPTIONS))}"
            )
        if self.timer is not None and (
            isinstance(self.timer, bool)
            or not isinstance(self.timer, int)
            or not 5 <= self.timer <= MAX_TIMER
        ):
            raise RulesError(f"settings.timer={self.timer!r} must be 5-{MAX_TIMER} seconds")
        return Rules.preset(
            self.rules, **self.options, timer=self.timer, teams=self.teams is not None or None
        )


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Seat:
    """Who a connection speaks for: a room and a player in it."""

    room: str
    player: str


class Rooms:
    """Rooms on ``store``, with dictionaries from ``shelf`` and time from ``clock``."""

    def __init__(
        self, store: Store, shelf: DictionaryShelf, clock: Callable[[], float] = time.time
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock
        self._judges: dict[int, Judge] = {}
        #: Scored rounds by id: a round never changes once scored, so any process may keep it.
        self._results: dict[int, RoundResult] = {}

    # -- seats -------------------------------------------------------------------------------

    def create(self, host: str, settings: Mapping[str, Any] | None = None) -> tuple[str, str]:
        """A new room hosted by ``host`` (seated at once): its code and the host's token."""
        check_name(host, "name")
        parsed = RoomSettings.from_json(settings or {})
        self.shelf.get(parsed.dictionary or parsed.ruleset().dictionary)
        for _ in range(20):
            code = "".join(secrets.choice(_CODE_LETTERS) for _ in range(5))
            with self.store.write_session() as session:
                if session.get(RoomRow, code) is not None:
                    continue
                session.add(
                    RoomRow(
                        code=code,
                        settings=parsed.to_json(),
                        host=host,
                        created_at=self.clock(),
                        seq=0,
                        over=False,
                    )
                )
                session.flush()
                return code, self._seat(session, code, host)
        raise GameStateError("could not find a free room code; try again")  # pragma: no cover

    def join(self, code: str, name: str) -> str:
        """Seat ``name`` in room ``code``; returns the player's private resume token."""
        check_name(name, "name")
        code = self._room(code).code
        try:
            with self.store.write_session() as session:
                room = self._lock_room(session, code)
                if room.over:
                    raise GameStateError(f"the game in room {code} is over")
                settings = RoomSettings.from_json(room.settings)
                seated = session.scalars(
                    select(RoomPlayerRow.name).where(RoomPlayerRow.room == code)
                ).all()
                if name.casefold() in {other.casefold() for other in seated}:
                    raise RoundInputError(f"name {name!r} is taken in room {code}; choose another")
                if len(seated) >= settings.max_players:
                    raise RoomFullError(f"room {code} is full ({settings.max_players} players)")
                return self._seat(session, code, name)
        except IntegrityError:
            raise RoundInputError(
                f"name {name!r} is taken in room {code}; choose another"
            ) from None

    def _seat(self, session: Session, code: str, name: str) -> str:
        token = secrets.token_urlsafe(18)
        session.add(
            RoomPlayerRow(room=code, name=name, token_hash=_hash(token), joined_at=self.clock())
        )
        self._bump(session, code)
        return token

    def resume(self, token: str) -> Seat:
        """The seat a resume token belongs to; :class:`NotFoundError` if none."""
        if not isinstance(token, str) or not 10 <= len(token) <= 100:
            raise NotFoundError("that resume token is not valid")
        with self.store.session() as session:
            row = session.scalar(
                select(RoomPlayerRow).where(RoomPlayerRow.token_hash == _hash(token))
            )
            if row is None:
                raise NotFoundError("that resume token is not valid")
            return Seat(row.room, row.name)

    def players(self, code: str) -> list[str]:
        """The seated players in the order they joined."""
        with self.store.session() as session:
            return list(
                session.scalars(
                    select(RoomPlayerRow.name)
                    .where(RoomPlayerRow.room == code)
                    .order_by(RoomPlayerRow.id)
                ).all()
            )

    # -- the host's controls -----------------------------------------------------------------

    def configure(self, seat: Seat, settings: Mapping[str, Any]) -> RoomSettings:
        """New settings, by the host, between rounds. If the new ending is already reached
        (a target the leader has passed), the game ends now."""
        parsed = RoomSettings.from_json(settings)
        self.shelf.get(parsed.dictionary or parsed.ruleset().dictionary)
        with self.store.write_session() as session:
            room = self._lock_room(session, seat.room)
            self._require_host(room, seat)
            if room.over:
                raise GameStateError("the game is over; create a new room to play again")
            if self._running(seat.room) is not None:
                raise GameStateError("a round is running; change the settings after it")
            room.settings = parsed.to_json()
            room.over = self._tournament(seat.room, parsed).is_over
            self._bump(session, seat.room)
        return parsed

    def start_round(self, seat: Seat, seed: int | None = None) -> RoomRoundRow:
        """Shake a board and start a round (the host only; not while one runs)."""
        self.end_round_if_due(seat.room)
        seed = secrets.randbelow(2**32) if seed is None else seed
        try:
            with self.store.write_session() as session:
                room = self._lock_room(session, seat.room)
                self._require_host(room, seat)
                if room.over:
                    raise GameStateError("the game is over; create a new room to play again")
                if self._running(seat.room, session) is not None:
                    raise GameStateError("a round is already running")
                settings = RoomSettings.from_json(room.settings)
                rules = settings.ruleset()
                players = list(
                    session.scalars(
                        select(RoomPlayerRow.name)
                        .where(RoomPlayerRow.room == seat.room)
                        .order_by(RoomPlayerRow.id)
                    ).all()
                )
                check_setup(
                    {name: [] for name in players},
                    rules,
                    settings.teams,
                    self._minimums(settings, players),
                )
                dealt = shake(rules.dice, seed, challenge=rules.challenge)
                now = self.clock()
                number = (
                    session.scalar(
                        select(func.max(RoomRoundRow.number)).where(RoomRoundRow.room == seat.room)
                    )
                    or 0
                ) + 1
                row = RoomRoundRow(
                    room=seat.room,
                    number=number,
                    board=str(dealt.board),
                    seed=seed,
                    settings={**settings.to_json(), "players": players},
                    starts_at=now + START_DELAY,
                    deadline=now + START_DELAY + rules.timer,
                )
                session.add(row)
                self._bump(session, seat.room)
        except IntegrityError:
            raise GameStateError("a round is already running") from None
        return row

    # -- words -------------------------------------------------------------------------------

    def submit(self, seat: Seat, entry: str) -> WordResult:
        """Judge ``entry`` for the seat's player now, store it, and return the private verdict.
        :class:`GameStateError` before the round starts, after its deadline, or for a player
        who is not in the round. The round's row is locked while the word is stored, so a word
        is either in the scored round or refused, never acknowledged and then left out."""
        if not isinstance(entry, str) or not entry.strip():
            raise RoundInputError(f"word: expected a word, not {entry!r}")
        if len(entry) > 60:
            raise RoundInputError(f"word: {entry[:20]!r}… is longer than 60 characters")
        entry = entry.strip()
        current = self._running(seat.room)
        if current is None:
            raise GameStateError("no round is running")
        judge = self._judge(current)
        settings = RoomSettings.from_json(_settings_of(current))
        with self.store.write_session() as session:
            locked = session.scalar(
                select(RoomRoundRow).where(RoomRoundRow.id == current.id).with_for_update()
            )
            now = self.clock()
            if locked is None or locked.ended_at is not None:
                raise GameStateError("time is up: the round has been scored")
            if now < locked.starts_at:
                raise GameStateError("the round has not started yet")
            if now >= locked.deadline:
                raise GameStateError("time is up: the round's deadline has passed")
            if seat.player not in locked.settings["players"]:
                raise GameStateError("you joined during this round; play the next one")
            earlier = session.scalars(
                select(RoomWordRow.entry).where(
                    RoomWordRow.round_id == current.id, RoomWordRow.player == seat.player
                )
            ).all()
            if len(earlier) >= MAX_LIST_LENGTH:
                raise RoundInputError(f"you have {MAX_LIST_LENGTH} words; no more fit")
            minimum = self._minimums(settings, [seat.player])[seat.player]
            result = judge.judge(entry, minimum, {normalise(word) for word in earlier})
            if result.verdict is not Verdict.REPEATED:
                session.add(
                    RoomWordRow(round_id=current.id, player=seat.player, entry=entry, at=now)
                )
        return result

    # -- the end of a round ------------------------------------------------------------------

    def end_round_if_due(self, code: str) -> RoundResult | None:
        """Score the running round if its deadline (and the grace) has passed. Returns the
        result to whichever caller ended it; ``None`` to everyone else. Marking the round
        ended, scoring it from the stored words and ending the game happen in one locked
        transaction, so no word can slip in between and no round is scored twice."""
        current = self._running(code)
        if current is None or self.clock() < current.deadline + GRACE:
            return None
        previous = self._tournament(code)
        with self.store.write_session() as session:
            locked = session.scalar(
                select(RoomRoundRow).where(RoomRoundRow.id == current.id).with_for_update()
            )
            if locked is None or locked.ended_at is not None:
                return None  # another process scored it first
            result = self._score(locked, session)
            locked.ended_at = self.clock()
            if not previous.is_over:
                previous.add(result)
            if previous.is_over:
                room = self._lock_room(session, code)
                room.over = True
            self._bump(session, code)
        self._results[current.id] = result
        self._judges.pop(current.id, None)
        return result

    def next_deadline(self, code: str) -> float | None:
        """When the running round is due to be scored (its deadline plus the grace)."""
        current = self._running(code)
        return None if current is None else current.deadline + GRACE

    # -- what a player sees ------------------------------------------------------------------

    def view(self, seat: Seat) -> dict[str, Any]:
        """The room as ``seat``'s player sees it now: settings, players, the round in play with
        their own words only, the last round's results and the totals. (Reading only: the
        round in play is scored by :meth:`end_round_if_due`.)"""
        room = self._room(seat.room)
        players = self.players(seat.room)
        now = self.clock()
        data: dict[str, Any] = {
            "room": seat.room,
            "you": seat.player,
            "host": room.host,
            "seq": room.seq,
            "settings": room.settings,
            "players": players,
            "now": now,
            "round": None,
            "last": None,
        }
        with self.store.session() as session:
            rounds = session.scalars(
                select(RoomRoundRow)
                .where(RoomRoundRow.room == seat.room)
                .order_by(RoomRoundRow.number)
            ).all()
        current = next((r for r in rounds if r.ended_at is None), None)
        if current is not None:
            mine = self._words_of(current, seat.player)
            judge = self._judge(current)
            minimum = self._minimums(RoomSettings.from_json(_settings_of(current)), [seat.player])
            seen: set[str] = set()
            verdicts = []
            for entry in mine:
                result = judge.judge(entry, minimum[seat.player], seen)
                seen.add(result.word)
                verdicts.append(result.to_json())
            data["round"] = {
                "number": current.number,
                "board": current.board,
                "starts_at": current.starts_at,
                "deadline": current.deadline,
                "playing": seat.player in current.settings["players"],
                "words": verdicts,
            }
        finished = [r for r in rounds if r.ended_at is not None]
        tournament = self._tournament(seat.room)
        if finished:
            last = finished[-1]
            data["last"] = {
                "number": last.number,
                "seed": last.seed,
                **self._result(last).to_json(),
            }
        data["totals"] = {name: tournament.totals.get(name, 0) for name in tournament.standings}
        data["standings"] = tournament.standings
        data["rounds_played"] = len(finished)
        data["over"] = room.over
        data["winner"] = tournament.winner
        return data

    def public(self, code: str) -> dict[str, Any]:
        """What anyone may know of a room: settings, players, host, rounds, totals."""
        room = self._room(code)
        tournament = self._tournament(room.code)
        return {
            "room": room.code,
            "host": room.host,
            "seq": room.seq,
            "settings": room.settings,
            "players": self.players(room.code),
            "rounds_played": len(tournament.results),
            "totals": {name: tournament.totals.get(name, 0) for name in tournament.standings},
            "over": room.over,
            "winner": tournament.winner,
        }

    # -- internals ---------------------------------------------------------------------------

    def _room(self, code: str) -> RoomRow:
        if not isinstance(code, str) or not 1 <= len(code) <= 12:
            raise NotFoundError(f"no room {code!r}")
        with self.store.session() as session:
            room = session.get(RoomRow, code.upper())
            if room is None:
                raise NotFoundError(f"no room {code!r}")
            return room

    def _require_host(self, room: RoomRow, seat: Seat) -> None:
        if seat.player != room.host:
            raise NotHostError(f"only the host ({room.host}) can do that")

    def _bump(self, session: Any, code: str) -> None:
        session.execute(update(RoomRow).where(RoomRow.code == code).values(seq=RoomRow.seq + 1))

    def _lock_room(self, session: Session, code: str) -> RoomRow:
        room = session.scalar(select(RoomRow).where(RoomRow.code == code).with_for_update())
        if room is None:
            raise NotFoundError(f"no room {code!r}")
        return room

    def _running(self, code: str, session: Session | None = None) -> RoomRoundRow | None:
        query = (
            select(RoomRoundRow)
            .where(RoomRoundRow.room == code, RoomRoundRow.ended_at.is_(None))
            .order_by(RoomRoundRow.number)
        )
        if session is not None:
            return session.scalars(query).first()
        with self.store.session() as own:
            return own.scalars(query).first()

    def _words_of(self, current: RoomRoundRow, player: str) -> list[str]:
        with self.store.session() as session:
            return list(
                session.scalars(
                    select(RoomWordRow.entry)
                    .where(RoomWordRow.round_id == current.id, RoomWordRow.player == player)
                    .order_by(RoomWordRow.id)
                ).all()
            )

    def _judge(self, current: RoomRoundRow) -> Judge:
        judge = self._judges.get(current.id)
        if judge is None:
            settings = RoomSettings.from_json(_settings_of(current))
            rules = settings.ruleset()
            words = self.shelf.get(settings.dictionary or rules.dictionary)
            from .board import Board

            judge = Judge(Board.parse(current.board), rules, words)
            if len(self._judges) > 256:
                self._judges.clear()
            self._judges[current.id] = judge
        return judge

    def _minimums(self, settings: RoomSettings, players: list[str]) -> dict[str, int]:
        rules = settings.ruleset()
        return {name: settings.handicaps.get(name, rules.min_length) for name in players}

    def _score(self, current: RoomRoundRow, session: Session) -> RoundResult:
        settings = RoomSettings.from_json(_settings_of(current))
        rules = settings.ruleset()
        players: list[str] = current.settings["players"]
        lists: dict[str, list[str]] = {name: [] for name in players}
        for player, entry in session.execute(
            select(RoomWordRow.player, RoomWordRow.entry)
            .where(RoomWordRow.round_id == current.id)
            .order_by(RoomWordRow.id)
        ):
            if player in lists:
                lists[player].append(entry)
        return score_round(
            current.board,
            lists,
            rules,
            self.shelf.get(settings.dictionary or rules.dictionary),
            teams=settings.teams,
            min_length={n: m for n, m in settings.handicaps.items() if n in lists} or None,
        )

    def _result(self, played: RoomRoundRow) -> RoundResult:
        """A scored round's result (it never changes, so any process may keep it)."""
        if played.id not in self._results:
            with self.store.session() as session:
                self._results[played.id] = self._score(played, session)
        return self._results[played.id]

    def _tournament(self, code: str, settings: RoomSettings | None = None) -> Tournament:
        """The scored rounds so far, as a tournament with the room's (or these) settings."""
        if settings is None:
            settings = RoomSettings.from_json(self._room(code).settings)
        tournament = Tournament(target=settings.target, rounds=settings.rounds or 10_000)
        with self.store.session() as session:
            finished = session.scalars(
                select(RoomRoundRow)
                .where(RoomRoundRow.room == code, RoomRoundRow.ended_at.is_not(None))
                .order_by(RoomRoundRow.number)
            ).all()
        for played in finished:
            if tournament.is_over:
                break
            tournament.add(self._result(played))
        return tournament


def _settings_of(current: RoomRoundRow) -> dict[str, Any]:
    return {key: value for key, value in current.settings.items() if key != "players"}


__all__ = [
    "GRACE",
    "MAX_NAME_LENGTH",
    "MAX_ROOM_PLAYERS",
    "START_DELAY",
    "NotHostError",
    "RoomFullError",
    "RoomSettings",
    "Rooms",
    "Seat",
]

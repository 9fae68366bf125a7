"""Multiplayer rooms kept in the database: players, rounds on the server's clock, private
verdicts, crossing off at the end, totals across rounds, and the host's powers.

Everything a room knows is in the store, and every call reads what it needs from there, so any
number of server processes can serve one room (they only need to tell each other that something
happened; see :mod:`bigboggle.web.hub`). A word is stored, with its verdict, before the verdict
is returned, so an acknowledged word survives a crash. A round is scored once its deadline (plus
a short grace for words already on their way) has passed, by whichever process gets there
first (the database decides which); its result and the room's running totals are stored then,
so reading a room scores nothing.

The host starts rounds, changes the settings, removes (kicks) a seat and ends the game. A
removed seat's token stops working, and its name stays taken in that room: a removed player
cannot come back as themselves (they may join under another name, and be removed again).
When the host has had no open connection for :attr:`ServerLimits.host_away` seconds, the role
passes to the next seated player, in join order, who is connected. Rooms without activity for
:attr:`ServerLimits.room_idle_days` are closed for good; their rounds stay readable.

Room codes are 10 letters from 20 consonants (no vowels, so no words, and no letters that
look like digits): 20**10, about 43 bits, so a stranger cannot find rooms by guessing; with
the per-address join limit of the web front end, not even close. Codes are read without regard
to case, spaces or dashes (``bcdfg-hjklm``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import and_, func, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..board import Board
from ..dice import new_seed, shake
from ..dictionary import normalise
from ..errors import (
    BoardError,
    BudgetExceededError,
    BusyError,
    GameStateError,
    KickedError,
    NotFoundError,
    NotHostError,
    RoomClosedError,
    RoomFullError,
    RoundInputError,
    RulesError,
    quoted,
)
from ..judge import Judge
from ..limits import (
    JUDGE_CACHE,
    MAX_LIST_LENGTH,
    MAX_NAME_LENGTH,
    MAX_ROOM_PLAYERS,
    MAX_ROOM_ROUNDS,
    MAX_ROOM_TARGET,
    MAX_SETTINGS_BYTES,
    ServerLimits,
)
from ..names import clean_name, name_key
from ..rules import MAX_TIMER, MAX_WORD_LENGTH, MIN_WORD_LENGTH, Rules
from ..scoring import RoundResult, check_setup, score_round
from ..verdicts import Verdict, WordResult
from . import jobs
from .compute import Runner, run_here
from .shelf import DictionaryShelf
from .store import RoomPlayerRow, RoomRoundRow, RoomRow, RoomWordRow, Store

#: Seconds between "start" and the first word: time for every screen to show the board.
START_DELAY = 3.0
#: Seconds after the deadline before a round is scored: words already sent still arrive.
GRACE = 0.5
#: Rules options a room may set (besides the timer and the dictionary).
ROOM_OPTIONS = frozenset({"advanced", "min_length", "challenge", "challenge_bonus", "duplicates"})
#: Letters of room codes: consonants only (no words, no O/0 or I/1), easy to read aloud.
CODE_LETTERS = "BCDFGHJKLMNPQRSTVWXZ"
#: Letters in a new room's code: 20**10 codes, about 43.2 bits.
CODE_LENGTH = 10
#: The longest room code read: the letters with the spaces or dashes people type between them
#: (``BC DF GH JK LM``, ``bcdfg-hjklm``); the same limit everywhere a code comes in.
MAX_CODE_TYPED = 24
#: Seconds a round may stay "being scored" (ended, no result) before another caller scores it
#: again: the scorer died or its job was refused.
SCORING_LEASE = 30.0
#: The longest reason kept in a round's "could not be scored" marker (characters).
MAX_REASON = 300

log = logging.getLogger(__name__)

_DAY = 86_400.0


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
        key at fault. The whole object must be at most :data:`MAX_SETTINGS_BYTES` of JSON."""
        if not isinstance(data, Mapping):
            raise RoundInputError("settings: expected an object")
        _check_size(data)
        known = set(cls.__dataclass_fields__)
        unknown = sorted(str(key) for key in set(data) - known)
        if unknown:
            raise RoundInputError(
                f"settings: unknown key {quoted(unknown[0])}; keys: {', '.join(sorted(known))}"
            )
        settings = cls(**{key: data[key] for key in data if data[key] is not None})
        settings.ruleset()  # checks the preset, the options and the timer
        for label, value, high in (
            ("target", settings.target, MAX_ROOM_TARGET),
            ("rounds", settings.rounds, MAX_ROOM_ROUNDS),
            ("max_players", settings.max_players, MAX_ROOM_PLAYERS),
        ):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high
            ):
                raise RoundInputError(f"settings.{label}={quoted(value)} must be a number 1-{high}")
        handicaps = _clean_handicaps(settings.handicaps)
        teams = _clean_teams(settings.teams)
        return cls(**{**settings.__dict__, "handicaps": handicaps, "teams": teams})

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

    def rules_options(self) -> dict[str, Any]:
        """The options of :meth:`Rules.preset` these settings give (plain data, for a job)."""
        if not isinstance(self.options, dict):
            raise RoundInputError("settings.options: expected an object")
        return {**self.options, "timer": self.timer, "teams": self.teams is not None or None}

    def ruleset(self) -> Rules:
        """The rules in force: the preset with the options and the timer."""
        if not isinstance(self.options, dict):
            raise RoundInputError("settings.options: expected an object")
        unknown = sorted(str(key) for key in set(self.options) - ROOM_OPTIONS)
        if unknown:
            raise RulesError(
                f"settings.options: {quoted(unknown[0])} is not a room option; options: "
                f"{', '.join(sorted(ROOM_OPTIONS))}"
            )
        if self.timer is not None and (
            isinstance(self.timer, bool)
            or not isinstance(self.timer, int)
            or not 5 <= self.timer <= MAX_TIMER
        ):
            raise RulesError(f"settings.timer={quoted(self.timer)} must be 5-{MAX_TIMER} seconds")
        return Rules.preset(self.rules, **self.rules_options())

    @property
    def dictionary_name(self) -> str:
        """The dictionary the room plays with (its own, or the preset's)."""
        return self.dictionary or self.ruleset().dictionary

    def for_seated(self, seated: Iterable[str], room: str) -> RoomSettings:
        """These settings with every name in the handicaps and teams matched to a seated player
        (spelled as seated); :class:`RoundInputError` names a player who is not seated in
        ``room`` (words for the message: ``room BCD…``, ``the new room``)."""
        by_key = {name_key(name): name for name in seated}
        shown = ", ".join(quoted(n) for n in list(by_key.values())[:10])
        if len(by_key) > 10:
            shown += ", …"

        def seated_as(name: str, where: str) -> str:
            found = by_key.get(name_key(name))
            if found is None:
                raise RoundInputError(
                    f"{where}: {quoted(name)} is not a player in {room} (players: {shown}); "
                    "handicaps and teams are for seated players"
                )
            return found

        handicaps = {
            seated_as(name, "settings.handicaps"): shortest
            for name, shortest in self.handicaps.items()
        }
        teams: dict[str, list[str]] | None = None
        if self.teams is not None:
            teams = {}
            placed: set[str] = set()
            for team, members in self.teams.items():
                teams[team] = []
                for member in members:
                    name = seated_as(member, f"settings.teams.{team}")
                    if name in placed:
                        raise RoundInputError(
                            f"settings.teams: {quoted(name)} is in two teams (or twice in one)"
                        )
                    placed.add(name)
                    teams[team].append(name)
        return RoomSettings(**{**self.__dict__, "handicaps": handicaps, "teams": teams})

    def without(self, player: str) -> RoomSettings:
        """These settings with ``player`` out of the handicaps and teams (a team left empty
        goes; no team left means no team play)."""
        handicaps = {name: n for name, n in self.handicaps.items() if name != player}
        teams = None
        if self.teams is not None:
            teams = {
                team: [m for m in members if m != player]
                for team, members in self.teams.items()
                if [m for m in members if m != player]
            } or None
        return RoomSettings(**{**self.__dict__, "handicaps": handicaps, "teams": teams})


def _check_size(data: Mapping[str, Any]) -> None:
    try:
        size = len(json.dumps(data, separators=(",", ":"), ensure_ascii=False).encode())
    except (TypeError, ValueError, RecursionError):
        raise RoundInputError("settings: expected plain JSON data") from None
    if size > MAX_SETTINGS_BYTES:
        raise RoundInputError(
            f"settings: {size:,} bytes of JSON; the limit is {MAX_SETTINGS_BYTES:,}"
        )


def _clean_handicaps(handicaps: object) -> dict[str, int]:
    if not isinstance(handicaps, dict):
        raise RoundInputError("settings.handicaps: expected player -> shortest word length")
    if len(handicaps) > MAX_ROOM_PLAYERS:
        raise RoundInputError(
            f"settings.handicaps: {len(handicaps)} players; a room seats {MAX_ROOM_PLAYERS}"
        )
    cleaned: dict[str, int] = {}
    for name, shortest in handicaps.items():
        normal = clean_name(name, "settings.handicaps")
        if (
            isinstance(shortest, bool)
            or not isinstance(shortest, int)
            or not MIN_WORD_LENGTH <= shortest <= MAX_WORD_LENGTH
        ):
            raise RoundInputError(
                f"settings.handicaps.{normal}={quoted(shortest)} must be a word length "
                f"{MIN_WORD_LENGTH}-{MAX_WORD_LENGTH}"
            )
        cleaned[normal] = shortest
    return cleaned


def _clean_teams(teams: object) -> dict[str, list[str]] | None:
    if teams is None:
        return None
    if not isinstance(teams, dict) or not teams:
        raise RoundInputError("settings.teams: expected team -> list of player names")
    if len(teams) > MAX_ROOM_PLAYERS:
        raise RoundInputError(
            f"settings.teams: {len(teams)} teams; a room seats {MAX_ROOM_PLAYERS}"
        )
    cleaned: dict[str, list[str]] = {}
    placed: set[str] = set()
    team_keys: dict[str, str] = {}
    for team, members in teams.items():
        normal_team = clean_name(team, "settings.teams")
        if name_key(normal_team) in team_keys:
            raise RoundInputError(
                f"settings.teams: {quoted(team_keys[name_key(normal_team)])} and "
                f"{quoted(normal_team)} are the same team name"
            )
        team_keys[name_key(normal_team)] = normal_team
        if not isinstance(members, list) or not members:
            raise RoundInputError(f"settings.teams.{normal_team}: expected a list of players")
        if len(members) > MAX_ROOM_PLAYERS:
            raise RoundInputError(
                f"settings.teams.{normal_team}: {len(members)} players; a room seats "
                f"{MAX_ROOM_PLAYERS}"
            )
        cleaned[normal_team] = []
        for member in members:
            normal = clean_name(member, f"settings.teams.{normal_team}")
            if name_key(normal) in placed:
                raise RoundInputError(
                    f"settings.teams: {quoted(normal)} is in two teams (or twice in one)"
                )
            placed.add(name_key(normal))
            cleaned[normal_team].append(normal)
    return cleaned


def normal_code(code: object) -> str:
    """A room code as stored: upper case, without the spaces and dashes people type;
    :class:`NotFoundError` for anything that cannot be a code."""
    if not isinstance(code, str) or len(code) > MAX_CODE_TYPED:
        raise NotFoundError(f"no room {quoted(code, 30)}")
    cleaned = code.replace("-", "").replace(" ", "").upper()
    if not 1 <= len(cleaned) <= 12 or not cleaned.isascii() or not cleaned.isalpha():
        raise NotFoundError(f"no room {quoted(code, 30)}")
    return cleaned


def new_code() -> str:
    """A fresh random room code (:data:`CODE_LENGTH` letters of :data:`CODE_LETTERS`)."""
    return "".join(secrets.choice(CODE_LETTERS) for _ in range(CODE_LENGTH))


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Presence:
    """What a new connection changed about the host: who took over the role (if the host was
    away too long), or when it may pass (if the host is away, not yet for long)."""

    new_host: str | None = None
    host_due: float | None = None


@dataclass
class CatchUp:
    """What :meth:`Rooms.score_overdue` did: the rooms whose rounds it scored (or marked as
    unscorable), and how many rounds the pool refused (to try again later)."""

    scored: list[str] = field(default_factory=list)
    refused: int = 0
    #: The rooms whose round must be tried again: refused by the pool, or failed (logged).
    retry: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Seat:
    """Who a connection speaks for: a room and a player in it."""

    room: str
    player: str


# -- scoring, as a job for a worker ------------------------------------------------------------


def score_room_round(
    board: str,
    lists: dict[str, list[str]],
    rules_name: str,
    options: dict[str, Any],
    dictionary: str,
    spec: jobs.ShelfSpec,
    teams: dict[str, list[str]] | None,
    min_length: dict[str, int] | None,
) -> dict[str, Any]:
    """Score a room's round from plain data (so a worker process can run it): the stored form,
    ``{"round": RoundResult.to_json(), "tally": {"scores", "lengths"}}``."""
    rules = Rules.preset(rules_name, **options)
    result = score_round(
        board, lists, rules, jobs.words(spec, dictionary), teams=teams, min_length=min_length
    )
    return {"round": result.to_json(), "tally": tally_of(result)}


def tally_of(result: RoundResult) -> dict[str, Any]:
    """What the standings need of a round: each competitor's points and how many of its scored
    words have each length (``{"scores": {"ann": 7}, "lengths": {"ann": {"5": 1, "4": 2}}}``)."""
    lengths: dict[str, dict[str, int]] = {}
    for name, values in result.long_word_lengths().items():
        counts: dict[str, int] = {}
        for value in values:
            counts[str(value)] = counts.get(str(value), 0) + 1
        lengths[name] = counts
    return {"scores": dict(result.scores), "lengths": lengths}


@dataclass
class Standings:
    """The running totals of a room: points and scored word lengths per competitor over the
    rounds scored so far. Ordered as :class:`bigboggle.scoring.Tournament` orders them: points,
    then the longer words (compared longest first), then name. Kept as counts of words per
    length, so it stays small however many rounds are played."""

    rounds: int = 0
    totals: dict[str, int] = field(default_factory=dict)
    lengths: dict[str, dict[str, int]] = field(default_factory=dict)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Standings:
        return cls(
            int(data.get("rounds", 0)),
            dict(data.get("totals", {})),
            {name: dict(counts) for name, counts in data.get("lengths", {}).items()},
        )

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "totals": self.totals, "lengths": self.lengths}

    def add(self, tally: Mapping[str, Any]) -> None:
        """Count one scored round (its :func:`tally_of`)."""
        self.rounds += 1
        for name, points in tally["scores"].items():
            self.totals[name] = self.totals.get(name, 0) + points
            self.lengths.setdefault(name, {})
        for name, counts in tally["lengths"].items():
            mine = self.lengths.setdefault(name, {})
            for letters, count in counts.items():
                mine[letters] = mine.get(letters, 0) + count

    def _keys(self) -> dict[str, tuple[int, ...]]:
        # Sorted longest-first lists compare as the counts per length, longest length first.
        every = sorted({int(n) for counts in self.lengths.values() for n in counts}, reverse=True)
        return {
            name: tuple(-self.lengths.get(name, {}).get(str(n), 0) for n in every)
            for name in self.totals
        }

    @property
    def order(self) -> list[str]:
        """Competitors from first to last."""
        keys = self._keys()
        return sorted(self.totals, key=lambda name: (-self.totals[name], keys[name], name))

    def is_over(self, settings: RoomSettings) -> bool:
        """Whether the settings' ending is reached: the rounds played, or the target."""
        if settings.rounds is not None and self.rounds >= settings.rounds:
            return True
        return settings.target is not None and any(
            points >= settings.target for points in self.totals.values()
        )

    def winner(self, over: bool) -> str | None:
        """The sole leader once the game is over (``None`` before, or on an exact tie)."""
        order = self.order
        if not over or not order:
            return None
        keys = self._keys()
        first = order[0]
        tied = [n for n in order if self.totals[n] == self.totals[first] and keys[n] == keys[first]]
        return first if len(tied) == 1 else None


class Rooms:
    """Rooms on ``store``, with dictionaries from ``shelf``, time from ``clock``, rounds scored
    through ``runner`` (a worker pool in the web app) and the operator's ``limits``."""

    def __init__(
        self,
        store: Store,
        shelf: DictionaryShelf,
        clock: Callable[[], float] = time.time,
        runner: Runner = run_here,
        limits: ServerLimits | None = None,
    ) -> None:
        self.store = store
        self.shelf = shelf
        self.clock = clock
        self.runner = runner
        self.limits = limits or ServerLimits()
        #: Judges of rounds being played, by round id (the most recently used few).
        self._judges: OrderedDict[int, Judge] = OrderedDict()

    # -- seats -------------------------------------------------------------------------------

    def create(self, host: str, settings: Mapping[str, Any] | None = None) -> tuple[str, str]:
        """A new room hosted by ``host`` (seated at once): its code and the host's token.
        Handicaps and teams may name the host only (nobody else is seated yet)."""
        host = clean_name(host, "name")
        parsed = RoomSettings.from_json(settings or {})
        self.shelf.get(parsed.dictionary_name)
        for _ in range(20):
            code = new_code()
            parsed_here = parsed.for_seated([host], "the new room")
            now = self.clock()
            with self.store.write_session() as session:
                if session.get(RoomRow, code) is not None:  # pragma: no cover - 43 bits
                    continue
                session.add(
                    RoomRow(
                        code=code,
                        settings=parsed_here.to_json(),
                        host=host,
                        created_at=now,
                        active_at=now,
                        seq=0,
                        over=False,
                        standings=Standings().to_json(),
                    )
                )
                session.flush()
                return code, self._seat(session, code, host)
        raise GameStateError("could not find a free room code; try again")  # pragma: no cover

    def join(self, code: str, name: str) -> tuple[Seat, str]:
        """Seat ``name`` in room ``code``: the seat (the name in its normal form) and the
        player's private resume token. Names are unique in a room ignoring case, width and
        look-alike letters (:func:`bigboggle.names.name_key`), removed players' names too."""
        name = clean_name(name, "name")
        code = self._room(code).code
        taken = RoundInputError(f"name {quoted(name)} is taken in room {code}; choose another")
        try:
            with self.store.write_session() as session:
                room = self._lock_room(session, code)
                self._require_open(room)
                if room.over:
                    raise GameStateError(f"the game in room {code} is over")
                settings = RoomSettings.from_json(room.settings)
                seated = session.execute(
                    select(RoomPlayerRow.name, RoomPlayerRow.kicked_at).where(
                        RoomPlayerRow.room == code
                    )
                ).all()
                if name_key(name) in {name_key(other) for other, _ in seated}:
                    raise taken
                if sum(1 for _, kicked in seated if kicked is None) >= settings.max_players:
                    raise RoomFullError(f"room {code} is full ({settings.max_players} players)")
                room.active_at = self.clock()
                return Seat(code, name), self._seat(session, code, name)
        except IntegrityError:
            raise taken from None

    def _seat(self, session: Session, code: str, name: str) -> str:
        token = secrets.token_urlsafe(18)
        session.add(
            RoomPlayerRow(
                room=code, name=name, token_hash=_hash(token), joined_at=self.clock(), sockets=0
            )
        )
        self._bump(session, code)
        return token

    def resume(self, token: str) -> Seat:
        """The seat a resume token belongs to; :class:`NotFoundError` if none,
        :class:`KickedError` if the host removed it."""
        if not isinstance(token, str) or not 10 <= len(token) <= 100:
            raise NotFoundError("that resume token is not valid")
        with self.store.session() as session:
            row = session.scalar(
                select(RoomPlayerRow).where(RoomPlayerRow.token_hash == _hash(token))
            )
            if row is None:
                raise NotFoundError("that resume token is not valid")
            if row.kicked_at is not None:
                raise KickedError(f"the host removed {row.name} from room {row.room}")
            return Seat(row.room, row.name)

    def players(self, code: str) -> list[str]:
        """The seated players (not the removed ones) in the order they joined."""
        with self.store.session() as session:
            return self._players(session, code)

    def _players(self, session: Session, code: str) -> list[str]:
        return list(
            session.scalars(
                select(RoomPlayerRow.name)
                .where(RoomPlayerRow.room == code, RoomPlayerRow.kicked_at.is_(None))
                .order_by(RoomPlayerRow.id)
            ).all()
        )

    # -- presence and the host's handover ----------------------------------------------------

    def connected(self, seat: Seat) -> Presence:
        """A connection of ``seat`` opened. If the host has been away for longer than
        ``host_away``, the role passes now (to the first connected player after the host in
        join order); if the host is away for less, :attr:`Presence.host_due` says when it may
        pass (for a timer: the host may have left while no server ran)."""
        with self.store.write_session() as session:
            room = self._lock_room(session, seat.room)  # the room first, as everywhere
            session.execute(
                update(RoomPlayerRow)
                .where(RoomPlayerRow.room == seat.room, RoomPlayerRow.name == seat.player)
                .values(sockets=func.coalesce(RoomPlayerRow.sockets, 0) + 1, away_since=None)
            )
            return self._hand_over(session, room)

    def disconnected(self, seat: Seat) -> float | None:
        """A connection of ``seat`` closed. If that was the host's last one, returns when the
        host role may pass (now + ``host_away``), else ``None``."""
        now = self.clock()
        with self.store.write_session() as session:
            row = session.scalar(
                select(RoomPlayerRow)
                .where(RoomPlayerRow.room == seat.room, RoomPlayerRow.name == seat.player)
                .with_for_update()
            )
            if row is None:
                return None
            row.sockets = max(0, (row.sockets or 0) - 1)
            if row.sockets:
                return None
            row.away_since = now
            host = session.scalar(select(RoomRow.host).where(RoomRow.code == seat.room))
            return now + self.limits.host_away if host == seat.player else None

    def hand_over_if_away(self, code: str) -> str | None:
        """Pass the host role on if the host has been away for longer than ``host_away`` and
        someone is connected: returns the new host, else ``None`` (with nobody connected,
        nothing happens: the room winds down until somebody comes back)."""
        with self.store.write_session() as session:
            return self._hand_over(session, self._lock_room(session, code)).new_host

    def _hand_over(self, session: Session, room: RoomRow) -> Presence:
        """The handover, in a session holding ``room``'s lock: the seats (and their socket
        counts) are read after it, locked too, so no connection or other handover slips in
        between reading who is connected and passing the role."""
        if room.closed_at is not None:
            return Presence()
        code = room.code
        rows = session.scalars(
            select(RoomPlayerRow)
            .where(RoomPlayerRow.room == code, RoomPlayerRow.kicked_at.is_(None))
            .order_by(RoomPlayerRow.id)
            .with_for_update()
            .execution_options(populate_existing=True)
        ).all()
        host = next((row for row in rows if row.name == room.host), None)
        if host is not None and host.sockets:
            return Presence()
        away = (
            0.0
            if host is None
            else (host.away_since if host.away_since is not None else host.joined_at)
        )
        if host is not None and self.clock() - away < self.limits.host_away:
            return Presence(host_due=away + self.limits.host_away)
        start = rows.index(host) + 1 if host is not None else 0
        for row in [*rows[start:], *rows[:start]]:
            if row.sockets and row.name != room.host:
                room.host = row.name
                room.active_at = self.clock()
                self._bump(session, code)
                return Presence(new_host=row.name)
        return Presence()

    def reset_presence(self) -> None:
        """Forget every connection (for a server that is the only one on its database, at
        start-up: connections of a process that died are not open any more)."""
        now = self.clock()
        with self.store.write_session() as session:
            session.execute(
                update(RoomPlayerRow)
                .where(func.coalesce(RoomPlayerRow.sockets, 0) > 0)
                .values(sockets=0, away_since=now)
            )

    # -- the host's controls -----------------------------------------------------------------

    def configure(self, seat: Seat, settings: Mapping[str, Any]) -> RoomSettings:
        """New settings, by the host, between rounds; handicaps and teams may name seated
        players only. If the new ending is already reached (a target the leader has passed),
        the game ends now."""
        parsed = RoomSettings.from_json(settings)
        self.shelf.get(parsed.dictionary_name)
        standings = self.standings(seat.room)
        with self.store.write_session() as session:
            room = self._lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_playing(room)
            if self._current(session, seat.room) is not None:
                raise GameStateError("a round is running; change the settings after it")
            parsed = parsed.for_seated(self._players(session, seat.room), f"room {seat.room}")
            room.settings = parsed.to_json()
            room.over = standings.is_over(parsed)
            room.active_at = self.clock()
            self._bump(session, seat.room)
        return parsed

    def start_round(self, seat: Seat, seed: int | None = None) -> RoomRoundRow:
        """Shake a board and start a round (the host only; not while one runs)."""
        self.end_round_if_due(seat.room)
        self.standings(seat.room)  # an old room's totals are counted before a new round
        seed = new_seed() if seed is None else seed
        try:
            with self.store.write_session() as session:
                room = self._lock_room(session, seat.room)
                self._require_host(room, seat)
                self._require_playing(room)
                if self._current(session, seat.room) is not None:
                    raise GameStateError("a round is already running")
                settings = RoomSettings.from_json(room.settings)
                rules = settings.ruleset()
                players = self._players(session, seat.room)
                check_setup(players, rules, settings.teams, self._minimums(settings, players))
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
                room.active_at = now
                self._bump(session, seat.room)
        except IntegrityError:
            raise GameStateError("a round is already running") from None
        return row

    def kick(self, seat: Seat, player: str) -> None:
        """The host removes ``player``: their token stops working, their name stays taken in
        this room, and they leave the handicaps and teams. Words they already played in a
        running round stay in it (crossing off is everybody's); they play no later round."""
        if not isinstance(player, str):
            raise RoundInputError(f"player: expected a name, not {quoted(player)}")
        with self.store.write_session() as session:
            room = self._lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_open(room)
            if player == room.host:
                raise GameStateError("the host cannot remove themselves")
            row = session.scalar(
                select(RoomPlayerRow).where(
                    RoomPlayerRow.room == seat.room,
                    RoomPlayerRow.name == player,
                    RoomPlayerRow.kicked_at.is_(None),
                )
            )
            if row is None:
                raise NotFoundError(f"no player {quoted(player)} in room {seat.room}")
            row.kicked_at = self.clock()
            room.settings = RoomSettings.from_json(room.settings).without(player).to_json()
            room.active_at = self.clock()
            self._bump(session, seat.room)

    def end_game(self, seat: Seat) -> dict[str, Any] | None:
        """The host ends the game now. A running round ends at once and is scored with the
        words played so far (returned, as stored); the totals so far decide the winner."""
        with self.store.write_session() as session:
            room = self._lock_room(session, seat.room)
            self._require_host(room, seat)
            self._require_open(room)
            if room.over:
                raise GameStateError("the game is already over")
            room.over = True
            room.active_at = now = self.clock()
            current = self._current(session, seat.room)
            if current is not None and current.ended_at is None:
                locked = session.scalar(
                    select(RoomRoundRow).where(RoomRoundRow.id == current.id).with_for_update()
                )
                if locked is not None and locked.deadline > now:
                    locked.deadline = max(now, locked.starts_at)
            self._bump(session, seat.room)
        return self.end_round_if_due(seat.room, grace=False)

    # -- words -------------------------------------------------------------------------------

    def submit(self, seat: Seat, entry: str) -> WordResult:
        """Judge ``entry`` for the seat's player now, store it with its verdict, and return the
        verdict. :class:`GameStateError` before the round starts, after its deadline, or for a
        player who is not in the round (or was removed). The round's row is locked while the
        word is stored, so a word is either in the scored round or refused, never acknowledged
        and then left out."""
        if not isinstance(entry, str) or not entry.strip():
            raise RoundInputError(f"word: expected a word, not {quoted(entry)}")
        if len(entry) > 60:
            raise RoundInputError(f"word: {quoted(entry, 20)} is longer than 60 characters")
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
            kicked = session.scalar(
                select(RoomPlayerRow.kicked_at).where(
                    RoomPlayerRow.room == seat.room, RoomPlayerRow.name == seat.player
                )
            )
            if kicked is not None:
                raise KickedError(f"the host removed {seat.player} from room {seat.room}")
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
                    RoomWordRow(
                        round_id=current.id,
                        player=seat.player,
                        entry=entry,
                        at=now,
                        verdict=result.to_json(),
                    )
                )
        return result

    # -- the end of a round ------------------------------------------------------------------

    def end_round_if_due(self, code: str, *, grace: bool = True) -> dict[str, Any] | None:
        """Score the room's round if it is due (its deadline and the grace have passed), or if
        its scoring was interrupted (ended :data:`SCORING_LEASE` ago, no result). Returns the
        stored result (``{"round": …, "tally": …}``) to whichever caller scored it; ``None``
        to everyone else.

        Three steps, so that no lock is held while the round is scored: the round is marked
        ended (from then on no word gets in; only one caller wins this), then scored through
        the runner from its stored words, then its result and the room's totals are stored
        in one locked transaction (the first result stored wins).

        If the pool refuses the job (:class:`BusyError`, :class:`BudgetExceededError`), the
        claim is let go at once (the caller may try again whenever it likes) and the error is
        raised; so is any other failure (a word list missing at boot, a bug), to be tried
        again later. A round that cannot be scored at all (its stored data fails today's
        checks, :class:`RoundInputError`, :class:`RulesError` or :class:`BoardError`: a round
        from an older bigboggle) gets a marker, ``{"unscored": "could not be scored:
        <reason>"}``, stored as its result, so it is never tried again; the marker is returned."""
        with self.store.session() as session:
            current = self._current(session, code)
        if current is None:
            return None
        return self._score_if_due(current, grace)

    def _score_if_due(self, current: RoomRoundRow, grace: bool = True) -> dict[str, Any] | None:
        claimed = self._claim(current, grace)
        if claimed is None:
            return None
        try:
            stored = self.runner(score_room_round, *self._job_of(claimed))
        except (BusyError, BudgetExceededError):
            self._release(claimed)
            raise
        except (RoundInputError, RulesError, BoardError) as exc:  # today's checks refuse it
            reason = str(exc) or type(exc).__name__
            if len(reason) > MAX_REASON:
                reason = reason[:MAX_REASON] + "…"
            log.warning(
                "round %d of room %s could not be scored: %s", claimed.number, claimed.room, reason
            )
            stored = {"unscored": f"could not be scored: {reason}"}
        except Exception:  # passing (a word list missing at boot) or a bug: never lose points
            self._release(claimed)
            raise
        return stored if self._store_result(claimed.id, stored) else None

    def _claim(self, current: RoomRoundRow, grace: bool) -> RoomRoundRow | None:
        """Mark ``current`` (a round without a result) ended, if it is due and nobody else
        holds it: the claimed row, or ``None``."""
        now = self.clock()
        if current.ended_at is None:
            if now < current.deadline + (GRACE if grace else 0.0):
                return None
        elif now < current.ended_at + SCORING_LEASE:
            return None  # being scored by somebody else
        with self.store.write_session() as session:
            locked = session.scalar(
                select(RoomRoundRow).where(RoomRoundRow.id == current.id).with_for_update()
            )
            if locked is None or locked.result is not None:
                return None
            if locked.ended_at is not None and locked.ended_at != current.ended_at:
                return None  # another caller claimed it meanwhile
            locked.ended_at = now
            session.flush()
            return locked

    def _release(self, claimed: RoomRoundRow) -> None:
        """Let go of a claim whose job the pool refused: the round stays ended (no word gets
        in) but may be claimed again at once, not only after the lease."""
        assert claimed.ended_at is not None
        with self.store.write_session() as session:
            session.execute(
                update(RoomRoundRow)
                .where(
                    RoomRoundRow.id == claimed.id,
                    RoomRoundRow.ended_at == claimed.ended_at,
                    RoomRoundRow.result.is_(None),
                )
                .values(ended_at=claimed.ended_at - SCORING_LEASE)
            )

    def _job_of(self, played: RoomRoundRow) -> tuple[Any, ...]:
        settings = RoomSettings.from_json(_settings_of(played))
        players: list[str] = played.settings["players"]
        lists: dict[str, list[str]] = {name: [] for name in players}
        with self.store.session() as session:
            for player, entry in session.execute(
                select(RoomWordRow.player, RoomWordRow.entry)
                .where(RoomWordRow.round_id == played.id)
                .order_by(RoomWordRow.id)
            ):
                if player in lists:
                    lists[player].append(entry)
        return (
            played.board,
            lists,
            settings.rules,
            settings.rules_options(),
            settings.dictionary_name,
            self.shelf.spec,
            settings.teams,
            {n: m for n, m in settings.handicaps.items() if n in lists} or None,
        )

    def _store_result(self, round_id: int, stored: dict[str, Any]) -> bool:
        """Store a round's result and count it in its room's totals (once); ends the game if
        the ending is reached. ``False`` if another caller stored it first. A marker (a round
        that could not be scored) is stored and counts for nothing. The room is locked before
        the round, as everywhere (the other order could deadlock with :meth:`end_game`)."""
        with self.store.session() as session:
            code = session.scalar(select(RoomRoundRow.room).where(RoomRoundRow.id == round_id))
        if code is None:
            return False
        with self.store.write_session() as session:
            room = self._lock_room(session, code)
            locked = session.scalar(
                select(RoomRoundRow)
                .where(RoomRoundRow.id == round_id)
                .with_for_update()
                .execution_options(populate_existing=True)
            )
            if locked is None or locked.result is not None:
                return False
            locked.result = stored
            if room.standings is not None and "tally" in stored:
                standings = Standings.from_json(room.standings)
                standings.add(stored["tally"])
                room.standings = standings.to_json()
                if standings.is_over(RoomSettings.from_json(room.settings)):
                    room.over = True
            self._bump(session, locked.room)
            code, counted = locked.room, room.standings is not None
        self._judges.pop(round_id, None)
        if not counted:
            self.standings(code)  # an old room: count every round now
        return True

    def next_deadline(self, code: str) -> float | None:
        """When the room's round is due to be scored: its deadline plus the grace, or (if its
        scoring was interrupted) when another caller may score it; ``None`` with no round."""
        with self.store.session() as session:
            current = self._current(session, code)
        if current is None:
            return None
        if current.ended_at is None:
            return current.deadline + GRACE
        return current.ended_at + SCORING_LEASE

    def running(self) -> list[tuple[str, float]]:
        """Every room with a round not yet scored, and when it is due (for timers)."""
        with self.store.session() as session:
            rows = session.execute(
                select(RoomRoundRow.room, RoomRoundRow.deadline, RoomRoundRow.ended_at).where(
                    RoomRoundRow.result.is_(None),
                    or_(RoomRoundRow.ended_at.is_(None), RoomRoundRow.id.in_(self._latest())),
                )
            ).all()
        return [
            (code, deadline + GRACE if ended is None else ended + SCORING_LEASE)
            for code, deadline, ended in rows
        ]

    def score_overdue(self) -> CatchUp:
        """Score, one by one, every round due and without a result: rounds whose deadline
        passed while no server ran, rounds whose scoring was interrupted, and rounds from
        before results were stored (an older bigboggle), in every room (for a background
        task at start-up: reading a room never scores). Each goes through the same claim as
        a round's timer, so it is scored once whoever else tries. A round the pool refuses
        is counted in :attr:`CatchUp.refused` (call again later); one that cannot be scored
        gets its marker and is never tried again; one that fails otherwise (a word list
        missing, a bug) is logged and let go. Both are listed in :attr:`CatchUp.retry`."""
        now = self.clock()
        with self.store.session() as session:
            due = session.scalars(
                select(RoomRoundRow)
                .where(
                    RoomRoundRow.result.is_(None),
                    or_(
                        and_(RoomRoundRow.ended_at.is_(None), RoomRoundRow.deadline + GRACE <= now),
                        RoomRoundRow.ended_at + SCORING_LEASE <= now,
                    ),
                )
                .order_by(RoomRoundRow.id)
            ).all()
        done = CatchUp()
        for played in due:
            try:
                if self._score_if_due(played) is not None:
                    done.scored.append(played.room)
            except (BusyError, BudgetExceededError):
                done.refused += 1
                done.retry.append(played.room)
            except Exception:  # claim let go: tried again later, points kept
                log.exception("could not score round %d of room %s", played.number, played.room)
                done.retry.append(played.room)
        return done

    # -- closing idle rooms ------------------------------------------------------------------

    def close_idle(self) -> int:
        """Close for good every room without activity for ``room_idle_days`` (and no round
        left to score): they refuse joins and rounds; their results stay readable. Returns
        how many were closed."""
        now = self.clock()
        before = now - self.limits.room_idle_days * _DAY
        unscored = select(RoomRoundRow.room).where(RoomRoundRow.result.is_(None))
        with self.store.write_session() as session:
            closed = session.execute(
                update(RoomRow)
                .where(
                    RoomRow.closed_at.is_(None),
                    func.coalesce(RoomRow.active_at, RoomRow.created_at) < before,
                    ~RoomRow.code.in_(unscored),
                )
                .values(closed_at=now, seq=RoomRow.seq + 1)
                .execution_options(synchronize_session=False)
            )
            return int(getattr(closed, "rowcount", 0) or 0)

    # -- what a player sees ------------------------------------------------------------------

    def view(self, seat: Seat) -> dict[str, Any]:
        """The room as ``seat``'s player sees it now: settings, players, the round in play with
        their own words and verdicts (as stored when they arrived), the last round's results
        (as stored when it was scored) and the totals. Reading only: nothing is scored here
        (a round past its deadline shows ``"scoring": true`` until its timer has scored it;
        one that could not be scored shows as ``"unscored": {"number", "seed", "reason"}``);
        words stored before verdicts were kept are judged once."""
        room = self._room(seat.room)
        standings = self._standings_of(room)
        now = self.clock()
        with self.store.session() as session:
            players = self._players(session, seat.room)
            current = self._current(session, seat.room)
            last = self._last_scored(session, seat.room)
        data: dict[str, Any] = {
            "room": room.code,
            "you": seat.player,
            "host": room.host,
            "seq": room.seq,
            "settings": room.settings,
            "players": players,
            "now": now,
            "round": None,
            "last": None,
            "unscored": None,
        }
        if current is not None:
            data["round"] = {
                "number": current.number,
                "board": current.board,
                "starts_at": current.starts_at,
                "deadline": current.deadline,
                "playing": seat.player in current.settings["players"],
                "words": self._verdicts(current, seat.player),
                "scoring": current.ended_at is not None or now >= current.deadline,
            }
        if last is not None and last.result is not None:
            if "round" in last.result:
                data["last"] = {"number": last.number, "seed": last.seed, **last.result["round"]}
            else:
                data["unscored"] = _unscored(last)
        over = room.over
        data["totals"] = {name: standings.totals[name] for name in standings.order}
        data["standings"] = standings.order
        data["rounds_played"] = standings.rounds
        data["over"] = over
        data["winner"] = standings.winner(over)
        return data

    def public(self, code: str) -> dict[str, Any]:
        """What anyone may know of a room: settings, players, host, rounds, totals (readable
        after the room is closed too)."""
        room = self._room(code)
        standings = self._standings_of(room)
        return {
            "room": room.code,
            "host": room.host,
            "seq": room.seq,
            "settings": room.settings,
            "players": self.players(room.code),
            "rounds_played": standings.rounds,
            "totals": {name: standings.totals[name] for name in standings.order},
            "over": room.over,
            "winner": standings.winner(room.over),
            "closed": room.closed_at is not None,
        }

    def round_result(self, code: str, number: int) -> dict[str, Any]:
        """Round ``number`` of room ``code`` as scored (public once scored, as every player
        saw it; readable after the room is closed too); :class:`NotFoundError` if there is no
        such scored round (one still being scored is not found yet: reading never scores).
        A round that could not be scored reads as ``{"number", "seed", "reason"}``."""
        room = self._room(code)
        with self.store.session() as session:
            played = session.scalar(
                select(RoomRoundRow).where(
                    RoomRoundRow.room == room.code, RoomRoundRow.number == number
                )
            )
        if played is None or played.result is None:
            raise NotFoundError(f"room {room.code} has no scored round {number}")
        if "round" not in played.result:
            return _unscored(played)
        return {"number": played.number, "seed": played.seed, **played.result["round"]}

    def standings(self, code: str) -> Standings:
        """The room's running totals (for a room from before they were kept: added up from
        its stored results, and stored once none of its ended rounds is left to score)."""
        return self._standings_of(self._room(code))

    # -- internals ---------------------------------------------------------------------------

    def _standings_of(self, room: RoomRow) -> Standings:
        """The room's totals; an old room's are added up from the results stored so far
        (scoring nothing: its old rounds are scored by :meth:`score_overdue`), and stored once
        no ended round of it is left without a result."""
        if room.standings is not None:
            return Standings.from_json(room.standings)
        with self.store.write_session() as session:
            locked = self._lock_room(session, room.code)
            if locked.standings is not None:
                return Standings.from_json(locked.standings)
            standings = Standings()
            results = session.execute(
                select(RoomRoundRow.ended_at, RoomRoundRow.result)
                .where(RoomRoundRow.room == room.code)
                .order_by(RoomRoundRow.number)
            ).all()
            for _, result in results:
                if result is not None and "tally" in result:
                    standings.add(result["tally"])
            if any(ended is not None and result is None for ended, result in results):
                return standings  # rounds left to score: counted again next time
            locked.standings = standings.to_json()
            if standings.is_over(RoomSettings.from_json(locked.settings)):
                locked.over = True
            return standings

    def _verdicts(self, current: RoomRoundRow, player: str) -> list[dict[str, Any]]:
        with self.store.session() as session:
            rows = session.execute(
                select(RoomWordRow.id, RoomWordRow.entry, RoomWordRow.verdict)
                .where(RoomWordRow.round_id == current.id, RoomWordRow.player == player)
                .order_by(RoomWordRow.id)
            ).all()
        if all(verdict is not None for _, _, verdict in rows):
            return [verdict for _, _, verdict in rows]
        return self._judge_old_words(current, player, [(i, entry) for i, entry, _ in rows])

    def _judge_old_words(
        self, current: RoomRoundRow, player: str, rows: list[tuple[int, str]]
    ) -> list[dict[str, Any]]:
        """Verdicts for words stored before verdicts were kept: judged once, then stored."""
        judge = self._judge(current)
        minimum = self._minimums(RoomSettings.from_json(_settings_of(current)), [player])[player]
        seen: set[str] = set()
        verdicts = []
        for _, entry in rows:
            result = judge.judge(entry, minimum, seen)
            seen.add(result.word)
            verdicts.append(result.to_json())
        with self.store.write_session() as session:
            for (word_id, _), verdict in zip(rows, verdicts, strict=True):
                session.execute(
                    update(RoomWordRow)
                    .where(RoomWordRow.id == word_id, RoomWordRow.verdict.is_(None))
                    .values(verdict=verdict)
                )
        return verdicts

    def _room(self, code: str) -> RoomRow:
        wanted = normal_code(code)
        with self.store.session() as session:
            room = session.get(RoomRow, wanted)
            if room is None:
                raise NotFoundError(f"no room {quoted(code, 30)}")
            return room

    def _require_host(self, room: RoomRow, seat: Seat) -> None:
        if seat.player != room.host:
            raise NotHostError(f"only the host ({room.host}) can do that")

    def _require_open(self, room: RoomRow) -> None:
        if room.closed_at is not None:
            days = self.limits.room_idle_days
            raise RoomClosedError(
                f"room {room.code} was closed after {days:g} days without play; its results "
                "stay readable; create a new room to play"
            )

    def _require_playing(self, room: RoomRow) -> None:
        self._require_open(room)
        if room.over:
            raise GameStateError("the game is over; create a new room to play again")

    def _bump(self, session: Any, code: str) -> None:
        session.execute(update(RoomRow).where(RoomRow.code == code).values(seq=RoomRow.seq + 1))

    def _lock_room(self, session: Session, code: str) -> RoomRow:
        room = session.scalar(
            select(RoomRow)
            .where(RoomRow.code == code)
            .with_for_update()
            .execution_options(populate_existing=True)
        )
        if room is None:
            raise NotFoundError(f"no room {quoted(code, 30)}")
        return room

    def _latest(self) -> Any:
        """The id of each room's latest round (a subquery)."""
        return select(func.max(RoomRoundRow.id)).group_by(RoomRoundRow.room).scalar_subquery()

    def _current(self, session: Session, code: str) -> RoomRoundRow | None:
        """The room's round in play or being scored: its latest, if it has no result yet."""
        latest = session.scalars(
            select(RoomRoundRow)
            .where(RoomRoundRow.room == code)
            .order_by(RoomRoundRow.number.desc())
            .limit(1)
        ).first()
        return latest if latest is not None and latest.result is None else None

    def _running(self, code: str) -> RoomRoundRow | None:
        with self.store.session() as session:
            current = self._current(session, code)
        return current if current is not None and current.ended_at is None else None

    def _last_scored(self, session: Session, code: str) -> RoomRoundRow | None:
        return session.scalars(
            select(RoomRoundRow)
            .where(RoomRoundRow.room == code, RoomRoundRow.result.is_not(None))
            .order_by(RoomRoundRow.number.desc())
            .limit(1)
        ).first()

    def _judge(self, current: RoomRoundRow) -> Judge:
        judge = self._judges.get(current.id)
        if judge is None:
            settings = RoomSettings.from_json(_settings_of(current))
            words = self.shelf.get(settings.dictionary_name)
            judge = Judge(Board.parse(current.board), settings.ruleset(), words)
            self._judges[current.id] = judge
            while len(self._judges) > JUDGE_CACHE:
                self._judges.popitem(last=False)
        else:
            self._judges.move_to_end(current.id)
        return judge

    def _minimums(self, settings: RoomSettings, players: list[str]) -> dict[str, int]:
        rules = settings.ruleset()
        return {name: settings.handicaps.get(name, rules.min_length) for name in players}


def _unscored(played: RoomRoundRow) -> dict[str, Any]:
    """How a round that could not be scored reads: its number, seed and the reason."""
    assert played.result is not None
    return {"number": played.number, "seed": played.seed, "reason": played.result["unscored"]}


def _settings_of(current: RoomRoundRow) -> dict[str, Any]:
    return {key: value for key, value in current.settings.items() if key != "players"}


__all__ = [
    "CODE_LENGTH",
    "CODE_LETTERS",
    "GRACE",
    "MAX_CODE_TYPED",
    "MAX_NAME_LENGTH",
    "MAX_ROOM_PLAYERS",
    "START_DELAY",
    "CatchUp",
    "KickedError",
    "NotHostError",
    "Presence",
    "RoomClosedError",
    "RoomFullError",
    "RoomSettings",
    "Rooms",
    "Seat",
    "Standings",
    "normal_code",
    "score_room_round",
    "tally_of",
]

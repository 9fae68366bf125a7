"""What the rooms service hands out to read: plain, frozen values with ``to_json``.

The JSON is the room protocol's (a player's ``state``, the public room, one scored round), so
front ends send ``view.to_json()`` as it is; nothing here is an ORM row or reads the database.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...scoring import competition_places


@dataclass(frozen=True)
class StartedRound:
    """A round the host just started (what :meth:`Rooms.start_round` returns): its number in
    the room, the board, when it takes its first word and its deadline, on the server's clock,
    and who plays it (the players seated at its start, in join order)."""

    number: int
    board: str
    starts_at: float
    deadline: float
    players: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "board": self.board,
            "starts_at": self.starts_at,
            "deadline": self.deadline,
            "players": list(self.players),
        }


@dataclass(frozen=True)
class RoomRoundResult:
    """A round of a room as stored when it was scored: its result (``RoundResult.to_json()``),
    or, for a round that could not be scored, the reason (then ``result`` is ``None``)."""

    number: int
    seed: int | None
    result: Mapping[str, Any] | None
    reason: str | None = None

    #: Competitor -> place in this round (the same points share one), for a round stored
    #: before its result kept its own ``"places"``.
    places: Mapping[str, int] | None = None

    @classmethod
    def of_stored(cls, number: int, seed: int | None, stored: Mapping[str, Any]) -> RoomRoundResult:
        """From a round's stored result: ``{"round": …, "tally": …}`` or ``{"unscored": …}``."""
        if "round" in stored:
            round_ = stored["round"]
            places = None
            if "places" not in round_ and "tally" in stored:  # scored before places were kept
                scores = stored["tally"]["scores"]
                places = competition_places(round_["ranking"], scores.get)
            return cls(number, seed, round_, places=places)
        return cls(number, seed, None, str(stored["unscored"]))

    @property
    def scored(self) -> bool:
        """Whether the round has a result (else it could not be scored: see ``reason``)."""
        return self.result is not None

    def to_json(self) -> dict[str, Any]:
        """``{"number", "seed", **result}``, or ``{"number", "seed", "reason"}``."""
        if self.result is None:
            return {"number": self.number, "seed": self.seed, "reason": self.reason}
        data = {"number": self.number, "seed": self.seed, **self.result}
        if self.places is not None:
            data["places"] = dict(self.places)
        return data


@dataclass(frozen=True)
class RoomRoundView:
    """The round in play as one player sees it: the board, the clock, and their own words with
    the verdicts they got (``WordResult.to_json()``, as stored when each word arrived)."""

    number: int
    board: str
    starts_at: float
    deadline: float
    #: Whether this player plays the round (not if they joined after it started).
    playing: bool
    words: tuple[Mapping[str, Any], ...]
    #: Whether the round is past its deadline or being scored (no more words).
    scoring: bool
    #: How many words each of the round's players (people and computer opponents) has
    #: entered so far: counts only, the words stay private until the end.
    counts: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "board": self.board,
            "starts_at": self.starts_at,
            "deadline": self.deadline,
            "playing": self.playing,
            "words": list(self.words),
            "scoring": self.scoring,
            "counts": dict(self.counts),
        }


@dataclass(frozen=True)
class RoomView:
    """A room as one seated player sees it now (the protocol's ``state``): settings, players,
    the round in play, the last scored round (or the last that could not be scored), totals."""

    room: str
    you: str
    host: str
    seq: int
    settings: Mapping[str, Any]
    players: tuple[str, ...]
    now: float
    round: RoomRoundView | None
    last: RoomRoundResult | None
    unscored: RoomRoundResult | None
    #: Competitor -> points, first to last.
    totals: Mapping[str, int]
    standings: tuple[str, ...]
    rounds_played: int
    over: bool
    winner: str | None
    #: Competitor -> place over the game, tied competitors sharing one (as ``standings``).
    places: Mapping[str, int] = field(default_factory=dict)
    #: Each seated player's presence: ``"online"``, ``"away"`` (tab hidden) or ``"offline"``.
    presence: Mapping[str, str] = field(default_factory=dict)
    #: The number of the current game's first round: a rematch starts a new game, and the
    #: rounds before this one (still readable by number) are the earlier games'.
    first_round: int = 1
    #: Seated players whose seat is a member's: seat name -> the member's user name (a
    #: member may sit under another name), so a guest is never mistaken for a member.
    members: Mapping[str, str] = field(default_factory=dict)
    #: Whether the game in progress (or just over) is rated: the ``rated`` setting its first
    #: round was played by, whatever the settings say now; ``None`` before its first round
    #: (the settings decide).
    rated: bool | None = None
    #: Seated computer opponents: seat name -> strength (a mark no name can fake: a person's
    #: seat is never in it). They are never connected (not in ``presence``) and never host.
    opponents: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "you": self.you,
            "host": self.host,
            "seq": self.seq,
            "settings": self.settings,
            "players": list(self.players),
            "now": self.now,
            "round": None if self.round is None else self.round.to_json(),
            "last": None if self.last is None else self.last.to_json(),
            "unscored": None if self.unscored is None else self.unscored.to_json(),
            "totals": dict(self.totals),
            "standings": list(self.standings),
            "rounds_played": self.rounds_played,
            "over": self.over,
            "winner": self.winner,
            "places": dict(self.places),
            "presence": dict(self.presence),
            "first_round": self.first_round,
            "members": dict(self.members),
            "rated": self.rated,
            "opponents": dict(self.opponents),
        }


@dataclass(frozen=True)
class RoomPublicView:
    """What anyone may know of a room: settings, players, host, rounds played, totals, and
    whether the game is over or the room closed."""

    room: str
    host: str
    seq: int
    settings: Mapping[str, Any]
    players: tuple[str, ...]
    rounds_played: int
    #: Competitor -> points, first to last.
    totals: Mapping[str, int]
    over: bool
    winner: str | None
    closed: bool
    #: As :attr:`RoomView.first_round`: where the current game's rounds begin.
    first_round: int = 1
    #: As :attr:`RoomView.members`.
    members: Mapping[str, str] = field(default_factory=dict)
    #: As :attr:`RoomView.opponents`.
    opponents: Mapping[str, str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "room": self.room,
            "host": self.host,
            "seq": self.seq,
            "settings": self.settings,
            "players": list(self.players),
            "rounds_played": self.rounds_played,
            "totals": dict(self.totals),
            "over": self.over,
            "winner": self.winner,
            "closed": self.closed,
            "first_round": self.first_round,
            "members": dict(self.members),
            "opponents": dict(self.opponents),
        }

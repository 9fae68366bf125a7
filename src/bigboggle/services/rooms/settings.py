"""How a room plays: :class:`RoomSettings`, checked when the host sets them.

Settings are plain JSON (stored with the room, and with each round as it was played), bounded
as a whole (:data:`~bigboggle.limits.MAX_SETTINGS_BYTES`) before any key is read. Teams and
handicaps are checked by the one check of a round's setup (:mod:`bigboggle.round_setup`): their
shape here, their names against the seated players when they are set
(:meth:`RoomSettings.for_seated`), and whether they fit together when a round starts
(:func:`~bigboggle.round_setup.check_setup`). Options are checked by the one options check
(:func:`bigboggle.rules.check_options`) against :data:`ROOM_OPTIONS`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ...errors import RoundInputError, RulesError, quoted
from ...limits import MAX_ROOM_PLAYERS, MAX_ROOM_ROUNDS, MAX_ROOM_TARGET, MAX_SETTINGS_BYTES
from ...round_setup import clean_handicaps, clean_teams, seat_handicaps, seat_teams
from ...rules import MAX_TIMER, Rules, check_options

#: Rules options a room may set (besides the timer and the dictionary).
ROOM_OPTIONS = frozenset(
    {"advanced", "min_length", "challenge", "challenge_bonus", "duplicates", "family"}
)


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
    #: Whether the room's games change members' ratings (:mod:`bigboggle.services.ratings`);
    #: a game counts as its first round was played. Unrated rooms stay possible.
    rated: bool = True

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
        if not isinstance(settings.rated, bool):
            raise RoundInputError(f"settings.rated={quoted(settings.rated)} must be true or false")
        handicaps = clean_handicaps(
            settings.handicaps, "settings.handicaps", limit=MAX_ROOM_PLAYERS
        )
        teams = None
        if settings.teams is not None:
            teams = clean_teams(settings.teams, "settings.teams", limit=MAX_ROOM_PLAYERS)
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
            "rated": self.rated,
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
        check_options(self.options, ROOM_OPTIONS, "settings.options", "room")
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
        (spelled as seated, by :func:`bigboggle.round_setup.seat_teams` and ``seat_handicaps``);
        :class:`RoundInputError` names a player who is not seated in ``room`` (words for the
        message: ``room BCD…``, ``the new room``)."""
        players = list(seated)
        shown = ", ".join(quoted(n) for n in players[:10])
        if len(players) > 10:
            shown += ", …"
        among = f"a player in {room} (players: {shown}); handicaps and teams are for seated players"
        handicaps = seat_handicaps(self.handicaps, players, "settings.handicaps", among=among)
        teams = None
        if self.teams is not None:
            teams = seat_teams(self.teams, players, "settings.teams", among=among)
        return RoomSettings(**{**self.__dict__, "handicaps": handicaps, "teams": teams})

    def with_latecomer(self, player: str) -> RoomSettings:
        """These settings with ``player`` (just seated) on the team with the fewest members,
        the first such in the teams' order: in team play everyone is on a team, and a player
        who joins after the host set the teams must not leave Start refused."""
        current = self.teams
        if not current:
            return self
        smallest = min(current, key=lambda team: len(current[team]))
        teams = {
            team: [*members, player] if team == smallest else list(members)
            for team, members in current.items()
        }
        return RoomSettings(**{**self.__dict__, "teams": teams})

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

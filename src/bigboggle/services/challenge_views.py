"""What :class:`~bigboggle.services.challenges.Challenges` answers: plain values, never rows.

Each view is a frozen dataclass of plain values with ``to_json`` for the API. A round's
standings (:class:`RoundStanding`) carry the words only when the viewer may see them
(``visible``: they finished that round, or the challenge is over for it); everything else a
view says (who has played, scores, places) is public to anyone with the code. In a team
challenge each player's ``team`` and the teams' standings (names, scores, places) are public
too; the teams' words are their players' words, shown as those are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rules import Rules


def shown_code(code: str) -> str:
    """A code as people read it: two groups of four (``BCDF-2345``)."""
    return f"{code[:4]}-{code[4:]}"


@dataclass(frozen=True)
class Seat:
    """A player of a challenge as everyone sees them: who, which rounds they have finished,
    which one they are playing now, their points so far."""

    name: str
    #: The member's user name when the seat is a member's under that very name.
    member: str | None
    finished: tuple[int, ...]
    playing: int | None
    total: int
    #: The team they play for, in a team challenge.
    team: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "finished": list(self.finished),
            "playing": self.playing,
            "total": self.total,
        }
        if self.team is not None:
            data["team"] = self.team
        if self.member is not None:
            data["member"] = True
            data["username"] = self.member
        return data


@dataclass(frozen=True)
class RoundStanding:
    """One round as a viewer may see it: the stored standings, with the words only if
    ``visible`` (the viewer finished the round, or the challenge is over for it)."""

    number: int
    visible: bool
    board: str
    standings: Mapping[str, Any] | None
    members: Mapping[str, str | None]

    def to_json(self) -> dict[str, Any]:
        stored = self.standings or {}
        players: Mapping[str, Any] = stored.get("players", {})
        games: Mapping[str, str] = stored.get("games", {})
        places: Mapping[str, int] = stored.get("places", {})
        ranking: list[str] = list(stored.get("ranking", []))
        rows = []
        for name in ranking:
            player = players[name]
            row: dict[str, Any] = {
                "name": name,
                "place": places.get(name, 1),
                "score": player["score"],
                "found": player.get("found", 0),
            }
            member = self.members.get(name)
            if member is not None:
                row["member"] = True
                row["username"] = member
            if self.visible:
                row["words"] = player["words"]
                row["game"] = games.get(name)
            rows.append(row)
        data: dict[str, Any] = {
            "number": self.number,
            "visible": self.visible,
            "finished": len(ranking),
            "ranking": ranking,
            "players": rows,
        }
        if "team_standings" in stored:  # a team challenge: each team's score and place
            team_of = {
                member: team["team"]
                for team in stored["team_standings"]
                for member in team["members"]
            }
            for row in rows:
                row["team"] = team_of.get(row["name"])
            data["team_standings"] = [
                {
                    "team": team["team"],
                    "place": team["place"],
                    "score": team["score"],
                    "members": list(team["members"]),
                }
                for team in stored["team_standings"]
            ]
        if self.visible:
            data["board"] = self.board
            data["max_score"] = stored.get("max_score")
            data["total_words"] = stored.get("total_words")
            data["missed"] = stored.get("missed", [])
        return data


@dataclass(frozen=True)
class Standing:
    """A player's place over all rounds: the sum of their rounds' points."""

    name: str
    member: str | None
    place: int
    total: int
    rounds: Mapping[int, int]
    #: The team they play for, in a team challenge.
    team: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "place": self.place,
            "total": self.total,
            "rounds": {str(number): points for number, points in sorted(self.rounds.items())},
            "rounds_played": len(self.rounds),
        }
        if self.team is not None:
            data["team"] = self.team
        if self.member is not None:
            data["member"] = True
            data["username"] = self.member
        return data


@dataclass(frozen=True)
class TeamStanding:
    """A team's place over all rounds: the sum of its rounds' team scores (each round's
    distinct words of its players who finished it)."""

    team: str
    place: int
    total: int
    rounds: Mapping[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "team": self.team,
            "place": self.place,
            "total": self.total,
            "rounds": {str(number): points for number, points in sorted(self.rounds.items())},
        }


@dataclass(frozen=True)
class You:
    """The viewer's own seat, when they proved one: their name, rounds and next round."""

    name: str
    finished: tuple[int, ...]
    playing: int | None
    next_round: int | None
    #: Their team, in a team challenge (fixed after their first round).
    team: str | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "name": self.name,
            "finished": list(self.finished),
            "playing": self.playing,
            "next_round": self.next_round,
        }
        if self.team is not None:
            data["team"] = self.team
        return data


@dataclass(frozen=True)
class ChallengeView:
    """A challenge as one viewer sees it at ``now``: its settings, who has played, the
    standings (words only where this viewer may see them)."""

    code: str
    rules: Rules
    options: Mapping[str, Any]
    dictionary: str
    rounds: int
    created_at: float
    closes_at: float
    now: float
    maker: str | None
    final: bool
    seats: tuple[Seat, ...]
    round_standings: tuple[RoundStanding, ...]
    standings: tuple[Standing, ...]
    you: You | None = None
    #: Whether the viewer may play a round now (open, a round left, not full, nothing running).
    can_play: bool = False
    #: Why not, when :attr:`can_play` is false (for a page to say).
    why_not: str | None = None
    #: A team challenge's teams, each with the names of its players; ``None`` without teams.
    teams: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    #: The teams' places over all rounds (teams nobody has finished a round for left out).
    team_standings: tuple[TeamStanding, ...] = ()

    @property
    def closed(self) -> bool:
        return self.now >= self.closes_at

    @property
    def url(self) -> str:
        return f"/challenges/{self.code}"

    def settings_json(self) -> dict[str, Any]:
        """What it is: the code, the link, the rules and when it closes (no standings)."""
        return {
            "code": self.code,
            "shown_code": shown_code(self.code),
            "url": self.url,
            "closes": self.closes_at,
            "closed": self.closed,
            "final": self.final,
            "now": self.now,
            "created_at": self.created_at,
            "rules": self.rules.name,
            "title": self.rules.title,
            "options": dict(self.options),
            "dictionary": self.dictionary,
            "duplicates": self.rules.duplicates,
            "timer": self.rules.timer,
            "min_length": self.rules.min_length,
            "rounds": self.rounds,
            "maker": self.maker,
            "teams": None
            if self.teams is None
            else [{"name": team, "players": list(players)} for team, players in self.teams],
        }

    def to_json(self) -> dict[str, Any]:
        """``GET /api/challenges/CODE``: the settings, who has played (scores, never words),
        and the viewer's own seat if they proved one."""
        data = self.settings_json()
        data["players"] = [seat.to_json() for seat in self.seats]
        data["round_list"] = [
            {
                "number": standing.number,
                "finished": len((standing.standings or {}).get("ranking", [])),
                "visible": standing.visible,
                **({"board": standing.board} if standing.visible else {}),
            }
            for standing in self.round_standings
        ]
        data["standings"] = [standing.to_json() for standing in self.standings]
        if self.teams is not None:
            data["team_standings"] = [team.to_json() for team in self.team_standings]
        data["you"] = self.you.to_json() if self.you is not None else None
        data["can_play"] = self.can_play
        data["why_not"] = self.why_not
        return data

    def results_json(self) -> dict[str, Any]:
        """``GET /api/challenges/CODE/results``: every round's standings (each finished
        player's verdicts after crossing off where this viewer may see them, scores, places),
        what nobody found, and the overall standings."""
        data = self.settings_json()
        data["rounds"] = self.rounds
        data["round_results"] = [standing.to_json() for standing in self.round_standings]
        data["standings"] = [standing.to_json() for standing in self.standings]
        if self.teams is not None:
            data["team_standings"] = [team.to_json() for team in self.team_standings]
        data["you"] = self.you.to_json() if self.you is not None else None
        return data


@dataclass(frozen=True)
class MemberChallenge:
    """One of a member's challenges, as their profile lists it."""

    code: str
    title: str
    rounds: int
    closes_at: float
    closed: bool
    final: bool
    finished: int
    place: int | None
    players: int

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "url": f"/challenges/{self.code}",
            "title": self.title,
            "rounds": self.rounds,
            "closes": self.closes_at,
            "closed": self.closed,
            "final": self.final,
            "finished": self.finished,
            "place": self.place,
            "players": self.players,
        }

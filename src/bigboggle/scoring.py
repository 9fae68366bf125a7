"""Scoring a round: every player's list gets a verdict per entry, then points and a ranking.

Verdicts, checked in this order for each entry as typed: ``not_a_word`` (not letters),
``repeated`` (earlier in the same list), ``too_short`` (for that player), ``not_on_board``,
``not_in_dictionary``, ``refused`` (an offensive word, under the rules option ``family``),
``crossed_off`` (the same valid word is on another player's list, or in team play on another
team's list; only valid words cross each other off, so a refused word crosses nothing off) and
``scored``.

Team play, our reading of the rules: each member writes a list; a word written by several
members of one team counts once for the team; a word found by two teams is crossed off for both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any, Protocol

from .board import Board
from .dictionary import Dictionary
from .errors import RoundInputError, quoted
from .judge import Judge
from .limits import MAX_LIST_LENGTH, MAX_PLAYERS
from .round_setup import RoundSetup, check_name, check_setup
from .rules import Rules
from .solver import FoundWord, Solution
from .verdicts import Verdict, WordResult

__all__ = [
    "PlayerResult",
    "RoundResult",
    "RoundTotals",
    "TeamResult",
    "Tournament",
    "judge_round",
    "score_round",
]

# The setup's checks (players, teams, handicaps, names) are bigboggle.round_setup's; the limits
# (players, list length, name length) are bigboggle.limits'.


@dataclass(frozen=True)
class PlayerResult:
    """A player's verdicts and points for the round."""

    name: str
    min_length: int
    words: tuple[WordResult, ...]

    @property
    def score(self) -> int:
        """Points of the scored words, bonuses included."""
        return sum(result.score for result in self.words)

    @property
    def scored(self) -> tuple[WordResult, ...]:
        """The entries that scored."""
        return tuple(result for result in self.words if result.verdict is Verdict.SCORED)

    def to_json(self) -> dict[str, Any]:
        return {
            "score": self.score,
            "min_length": self.min_length,
            "words": [result.to_json() for result in self.words],
        }


@dataclass(frozen=True)
class TeamResult:
    """A team's round: its members and the distinct words it scored, each counted once."""

    name: str
    members: tuple[str, ...]
    words: dict[str, int]

    @property
    def score(self) -> int:
        """Points of the team's distinct scored words."""
        return sum(self.words.values())

    def to_json(self) -> dict[str, Any]:
        return {"score": self.score, "members": list(self.members), "words": dict(self.words)}


def _tie_break(lengths: Sequence[int]) -> tuple[int, ...]:
    """Longest words first: the competitor with the longer words wins a tie on points."""
    return tuple(sorted(lengths, reverse=True))


#: How many of a team's shared words :meth:`RoundResult.team_sharing` names.
SHOWN_SHARED_WORDS = 5


@dataclass(frozen=True)
class TeamSharing:
    """A team's points as its members' points less what was counted twice: the words several
    members scored count once for the team (``red 3 = ann 2 + amy 2 - 1 shared (cats)``)."""

    team: str
    #: The team's points.
    score: int
    #: Each member and their own points, in the team's order.
    members: tuple[tuple[str, int], ...]
    #: The members' points less the team's: the shared words' extra counts.
    counted_twice: int
    #: The first shared words, alphabetically (at most :data:`SHOWN_SHARED_WORDS`).
    first_shared: tuple[str, ...]
    #: How many words are shared in all.
    shared_count: int

    @property
    def more_shared(self) -> bool:
        """Whether more words are shared than :attr:`first_shared` names."""
        return self.shared_count > len(self.first_shared)


@dataclass(frozen=True)
class RoundResult:
    """The scored round: players, teams (team play only), ranking and the words nobody found."""

    board: Board
    rules: Rules
    players: dict[str, PlayerResult]
    teams: dict[str, TeamResult] | None
    solution: Solution

    @property
    def scores(self) -> dict[str, int]:
        """Competitor (team in team play, else player) -> points."""
        if self.teams is not None:
            return {name: team.score for name, team in self.teams.items()}
        return {name: player.score for name, player in self.players.items()}

    def long_word_lengths(self) -> dict[str, tuple[int, ...]]:
        """Competitor -> the letter counts of its scored words, longest first (for tie-breaks)."""
        if self.teams is not None:
            return {
                name: _tie_break([len(word) for word in team.words])
                for name, team in self.teams.items()
            }
        return {
            name: _tie_break([len(result.word) for result in player.scored])
            for name, player in self.players.items()
        }

    @property
    def ranking(self) -> list[str]:
        """Competitors from first to last: points, then longer words, then name."""
        scores = self.scores
        lengths = self.long_word_lengths()
        return sorted(scores, key=lambda name: (-scores[name], _negate(lengths[name]), name))

    @property
    def places(self) -> dict[str, int]:
        """Competitor -> place in :attr:`ranking` order: the same points share a place
        ("1 ann, 1 bob, 3 cy", standard competition ranking); a round's tie is not broken."""
        return competition_places(self.ranking, self.scores.__getitem__)

    def shared_words(self, team: str) -> dict[str, tuple[str, ...]]:
        """The words of ``team`` that several of its members scored, each counted once for the
        team: word -> those members (so a team's score can be explained beside its members')."""
        if self.teams is None:
            return {}
        writers: dict[str, list[str]] = {}
        for member in self.teams[team].members:
            for result in self.players[member].scored:
                writers.setdefault(result.word, []).append(member)
        return {word: tuple(names) for word, names in sorted(writers.items()) if len(names) > 1}

    def team_sharing(self, team: str) -> TeamSharing | None:
        """How ``team``'s points come from its members' where several of them scored the same
        word (each counted once for the team), or ``None`` when none did (or no teams): what
        every front end explains beside a team's total."""
        if self.teams is None:
            return None
        shared = self.shared_words(team)
        if not shared:
            return None
        found = self.teams[team]
        members = tuple((member, self.players[member].score) for member in found.members)
        return TeamSharing(
            team=team,
            score=found.score,
            members=members,
            counted_twice=sum(score for _, score in members) - found.score,
            first_shared=tuple(shared)[:SHOWN_SHARED_WORDS],
            shared_count=len(shared),
        )

    @property
    def missed(self) -> tuple[FoundWord, ...]:
        """The board's words that no player found (valid on nobody's list), best first."""
        found = {
            result.word
            for player in self.players.values()
            for result in player.words
            if result.verdict.is_valid
        }
        return tuple(word for word in self.solution.words if word.word not in found)

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``bigboggle score --json``."""
        data: dict[str, Any] = {
            "board": str(self.board),
            "rules": self.rules.name,
            "players": {name: player.to_json() for name, player in self.players.items()},
        }
        if self.teams is not None:
            data["teams"] = {name: team.to_json() for name, team in self.teams.items()}
        data["ranking"] = self.ranking
        data["places"] = self.places
        data["max_score"] = self.solution.total_score
        data["missed"] = [word.to_json() for word in self.missed]
        return data


def competition_places(order: Sequence[str], key: Callable[[str], object]) -> dict[str, int]:
    """Name -> place for names in ``order`` (first to last): names whose ``key`` equals the
    one before share its place, and the next different one takes its own index ("1, 1, 3")."""
    places: dict[str, int] = {}
    previous: object = None
    place = 0
    for index, name in enumerate(order):
        current = key(name)
        if index == 0 or current != previous:
            place = index + 1
        places[name] = place
        previous = current
    return places


@dataclass(frozen=True)
class TieBreak:
    """Two competitors level on points whom the longer words part: compared longest first,
    their ``same`` longest words have the same lengths, and the next is longer for ``ahead``
    (``ahead_length`` letters) than for ``behind`` (``behind_length``, ``None``: no more words)."""

    ahead: str
    behind: str
    points: int
    same: int
    ahead_length: int
    behind_length: int | None

    def to_json(self) -> dict[str, Any]:
        return {
            "ahead": self.ahead,
            "behind": self.behind,
            "points": self.points,
            "same": self.same,
            "ahead_length": self.ahead_length,
            "behind_length": self.behind_length,
        }


def _negate(lengths: tuple[int, ...]) -> tuple[int, ...]:
    return (*(-length for length in lengths), 0)


def standings_order(
    totals: Mapping[str, int], lengths: Mapping[str, Sequence[int]]
) -> tuple[list[str], dict[str, int]]:
    """Competitors first to last over several rounds, and their places: points, then the
    longer words (``lengths``: each one's scored words' letter counts over every round, in
    any order), then name; a place is shared only when the tie-break cannot part them. What
    :class:`Tournament` ranks by, for standings kept elsewhere (a challenge's)."""
    broken = {name: _tie_break(lengths.get(name, ())) for name in totals}
    order = sorted(totals, key=lambda name: (-totals[name], _negate(broken[name]), name))
    return order, competition_places(order, lambda name: (totals[name], broken[name]))


def _check_lists(lists: Mapping[str, Sequence[str]]) -> None:
    if not isinstance(lists, Mapping):
        raise RoundInputError("players: expected a mapping of player name -> list of words")
    if not lists:
        raise RoundInputError("players: a round needs at least one player")
    if len(lists) > MAX_PLAYERS:
        raise RoundInputError(f"players: {len(lists)} players; the limit is {MAX_PLAYERS}")
    for name, entries in lists.items():
        check_name(name, "players")
        if isinstance(entries, str) or not isinstance(entries, Sequence):
            raise RoundInputError(
                f"players.{name}: expected a list of words, not {type(entries).__name__}"
            )
        if len(entries) > MAX_LIST_LENGTH:
            raise RoundInputError(
                f"players.{name}: {len(entries)} entries; the limit is {MAX_LIST_LENGTH}"
            )
        for i, entry in enumerate(entries):
            if not isinstance(entry, str):
                raise RoundInputError(f"players.{name}[{i}]: expected a word, not {quoted(entry)}")


def score_round(
    board: Board | str,
    lists: Mapping[str, Sequence[str]],
    rules: Rules,
    words: Dictionary,
    teams: Mapping[str, Sequence[str]] | None = None,
    min_length: Mapping[str, int] | None = None,
) -> RoundResult:
    """Score one round: each player's list, as typed, against the board, rules and dictionary.

    ``teams`` (team name -> members) turns on team play; ``min_length`` (player -> minimum)
    gives handicaps. :class:`RoundInputError` names what does not fit (an unknown player in a
    team, a list that is not a list, a handicap out of range).
    """
    board = board if isinstance(board, Board) else Board.parse(board)
    _check_lists(lists)
    setup = check_setup(lists, rules, teams, min_length)
    return judge_round(Judge(board, rules, words), lists, setup, teams)


def judge_round(
    judge: Judge,
    lists: Mapping[str, Sequence[str]],
    setup: RoundSetup,
    teams: Mapping[str, Sequence[str]] | None,
) -> RoundResult:
    """Score checked lists with a :class:`~bigboggle.judge.Judge` already made for the board."""
    rules = judge.rules
    provisional: dict[str, list[WordResult]] = {}
    for name, entries in lists.items():
        seen: set[str] = set()
        results = []
        for entry in entries:
            result = judge.judge(entry, setup.minimums[name], seen)
            if result.verdict is not Verdict.NOT_A_WORD:
                seen.add(result.word)
            results.append(result)
        provisional[name] = results

    # Who holds each valid word: players, or teams in team play.
    holders: dict[str, set[str]] = {}
    for name, results in provisional.items():
        side = setup.team_of[name] if setup.team_of is not None else name
        for result in results:
            if result.verdict is Verdict.SCORED:
                holders.setdefault(result.word, set()).add(side)

    players: dict[str, PlayerResult] = {}
    for name, results in provisional.items():
        final = []
        for result in results:
            if (
                result.verdict is Verdict.SCORED
                and rules.duplicates == "cancel"
                and len(holders[result.word]) > 1
            ):
                result = WordResult(
                    result.entry, result.word, Verdict.CROSSED_OFF, path=result.path
                )
            final.append(result)
        players[name] = PlayerResult(name, setup.minimums[name], tuple(final))

    team_results = None
    if teams is not None:
        team_results = {}
        for team, members in teams.items():
            best: dict[str, int] = {}
            for member in members:
                for result in players[member].scored:
                    best[result.word] = max(best.get(result.word, 0), result.score)
            team_results[team] = TeamResult(team, tuple(members), dict(sorted(best.items())))

    return RoundResult(judge.board, rules, players, team_results, judge.solution)


class RoundTotals(Protocol):
    """What a :class:`Tournament` needs of a round: a :class:`RoundResult`, or a stored tally."""

    @property
    def scores(self) -> dict[str, int]: ...

    def long_word_lengths(self) -> dict[str, tuple[int, ...]]: ...


@dataclass
class Tournament:
    """Rounds that add up until someone reaches ``target`` points or ``rounds`` are played.

    With a target, the game ends after the round in which someone reaches it; with a number of
    rounds, after that many. Ties on points go to the competitor with the longer words
    (compared longest first, as in :attr:`RoundResult.ranking`).
    """

    target: int | None = None
    rounds: int | None = None

    def __post_init__(self) -> None:
        if self.target is None and self.rounds is None:
            raise RoundInputError("a tournament needs a points target, a number of rounds, or both")
        for label, value in (("target", self.target), ("rounds", self.rounds)):
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise RoundInputError(f"tournament {label}={value!r} must be a whole number >= 1")
        self.results: list[RoundTotals] = []

    def add(self, result: RoundTotals) -> None:
        """Count a round; :class:`RoundInputError` if the tournament is already over."""
        if self.is_over:
            raise RoundInputError("the tournament is over; start a new one")
        self.results.append(result)

    @property
    def totals(self) -> dict[str, int]:
        """Competitor -> points over every round so far."""
        totals: dict[str, int] = {}
        for result in self.results:
            for name, points in result.scores.items():
                totals[name] = totals.get(name, 0) + points
        return totals

    def _lengths(self) -> dict[str, tuple[int, ...]]:
        lengths: dict[str, list[int]] = {}
        for result in self.results:
            for name, values in result.long_word_lengths().items():
                lengths.setdefault(name, []).extend(values)
        return {name: _tie_break(values) for name, values in lengths.items()}

    @property
    def standings(self) -> list[str]:
        """Competitors from first to last by total, then longer words, then name."""
        return standings_order(self.totals, self._lengths())[0]

    @property
    def places(self) -> dict[str, int]:
        """Competitor -> place in :attr:`standings`: competitors share a place only when the
        tie-break cannot part them (the same points and the same word lengths)."""
        return standings_order(self.totals, self._lengths())[1]

    @property
    def tie_breaks(self) -> list[TieBreak]:
        """Each place the longer words decided: neighbours in :attr:`standings` with the same
        points and different word lengths, with their lengths up to the first difference."""
        totals = self.totals
        lengths = self._lengths()
        order = self.standings
        found: list[TieBreak] = []
        for ahead, behind in pairwise(order):
            if totals[ahead] != totals[behind] or lengths[ahead] == lengths[behind]:
                continue
            first, second = lengths[ahead], lengths[behind]
            same = next(
                (i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b),
                len(second),
            )
            behind_length = second[same] if same < len(second) else None
            found.append(TieBreak(ahead, behind, totals[ahead], same, first[same], behind_length))
        return found

    @property
    def is_over(self) -> bool:
        """Whether the target is reached or every round is played."""
        if self.rounds is not None and len(self.results) >= self.rounds:
            return True
        return self.target is not None and any(
            points >= self.target for points in self.totals.values()
        )

    @property
    def leaders(self) -> list[str]:
        """Everyone tied for first place: same points and the same word lengths."""
        totals = self.totals
        lengths = self._lengths()
        standings = self.standings
        if not standings:
            return []
        first = standings[0]
        return [
            name
            for name in standings
            if totals[name] == totals[first] and lengths[name] == lengths[first]
        ]

    @property
    def winner(self) -> str | None:
        """The winner once the tournament is over; ``None`` before, or on an exact tie."""
        leaders = self.leaders
        return leaders[0] if self.is_over and len(leaders) == 1 else None

"""What :class:`~bigboggle.services.solo_games.SoloGames` answers: plain values, never rows.

Each view is a frozen dataclass of plain values (strings, numbers, the core's own value types)
with ``to_json`` for the API; the ORM rows they are read from stay inside the service, so a page
or a route can neither lazy-load a column nor change what is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..hints import HINT_COSTS
from ..rules import Rules
from ..verdicts import WordResult


@dataclass(frozen=True)
class SoloGame:
    """A solo game as stored: the board, the rules it is played by, its clock and (once scored)
    its score. What a list of recent games shows, and what a :class:`SoloView` is of."""

    id: str
    #: The preset's name, the options it was given and the dictionary's name.
    rules: str
    options: Mapping[str, Any]
    dictionary: str
    board: str
    #: The seed the board was shaken from (none for a given board).
    seed: int | None
    player: str
    #: The date (``YYYY-MM-DD``, UTC) of the daily board it is, if it is one.
    daily_date: str | None
    started_at: float
    deadline: float
    ended_at: float | None
    #: The score, once scored, and the board's points (its maximum score): known from the start
    #: (a game started before they were stored has them once scored).
    score: int | None
    max_score: int | None
    #: Whether someone holds its key (a game from before keys can be played by anyone).
    has_owner: bool
    #: The user name of the member whose game it is, where the list that made this value
    #: read it (recent games: so a guest's name is never taken for a member's) and the game
    #: was played under that very name (:func:`~bigboggle.services.members.marked_member`);
    #: else ``None``.
    member: str | None = None
    #: A practice game: hints are free, and its play goes into no member's history.
    practice: bool = False
    #: Whether its player may ask for hints at their cost (:data:`bigboggle.hints.HINT_COSTS`).
    hints_allowed: bool = False
    #: Until when its words are its player's alone (a challenge's round: until it closes).
    private_until: float | None = None

    @property
    def hints_on(self) -> bool:
        """Whether its player may ask for hints (free in practice, else at their cost)."""
        return self.practice or self.hints_allowed

    @property
    def replay(self) -> dict[str, Any]:
        """What it takes to shake the same board again: the rules, options and seed."""
        query: dict[str, Any] = {"rules": self.rules, "dictionary": self.dictionary}
        if self.seed is not None:
            query["seed"] = self.seed
        else:
            query["board"] = self.board
        query.update({key: value for key, value in self.options.items() if value is not None})
        if self.practice:
            query["practice"] = True
        if self.hints_allowed:
            query["hints"] = True
        return query

    def to_json(self) -> dict[str, Any]:
        """The game as stored, in the API's names (a summary: no words, no results)."""
        return {
            "id": self.id,
            "board": self.board,
            "rules": self.rules,
            "options": dict(self.options),
            "dictionary": self.dictionary,
            "seed": self.seed,
            "player": self.player,
            "daily": self.daily_date,
            "started_at": self.started_at,
            "deadline": self.deadline,
            "ended_at": self.ended_at,
            "score": self.score,
            "max_score": self.max_score,
            "practice": self.practice,
            "hints": self.hints_allowed,
        }


@dataclass(frozen=True)
class OpponentChoice:
    """A computer opponent a solo game's start asks for: its strength (one of
    :attr:`bigboggle.opponents.Opponent.STRENGTHS`) and, to replay the same list, its seed."""

    strength: str
    seed: int | None = None


@dataclass(frozen=True)
class OpponentSeat:
    """A computer opponent of a running game as anyone may see it: its name, strength and the
    times (seconds into the round) of its entries, never the entries themselves, so that a page
    shows its count growing on the server's clock without asking again."""

    name: str
    strength: str
    times: tuple[float, ...]

    def written(self, seconds: float) -> int:
        """How many entries it has written ``seconds`` into the round."""
        return sum(1 for at in self.times if at <= seconds)

    def to_json(self, seconds: float) -> dict[str, Any]:
        return {
            "name": self.name,
            "strength": self.strength,
            "label": self.strength.capitalize(),
            "written": self.written(seconds),
            "times": list(self.times),
        }


#: What a sealed game's results show anyone but its player: how it went, no word of it.
SEALED_KEYS = ("score", "max_score", "share", "found", "total_words")


@dataclass(frozen=True)
class SoloView:
    """A solo game as the player sees it at ``now``: the board, the clock, the words so far and,
    once over, the scored round."""

    game: SoloGame
    rules: Rules
    now: float
    #: Whether the view is its player's (who may see the words of a game still running).
    owner: bool = False
    #: The game's private key: only in the answer that starts the game.
    key: str | None = None
    #: A running game's words with the verdicts they got (its player's view only).
    words: tuple[WordResult, ...] = ()
    #: The results as stored when the game was scored (see
    #: :func:`~bigboggle.services.solo_games.score_solo_game`).
    results: Mapping[str, Any] | None = None
    #: Past its deadline (or ended) but its results not stored yet: its player's next request
    #: scores it, or another request is scoring it now. Nothing is scored on anyone else's read.
    scoring: bool = False
    #: A running (or scoring) game's computer opponents: names, strengths and times only.
    opponents: tuple[OpponentSeat, ...] = ()
    #: The hints its player has used so far (its player's view only, while it runs), each as
    #: :meth:`bigboggle.hints.Hint.to_json` without the word.
    hints: tuple[Mapping[str, Any], ...] = ()

    @property
    def over(self) -> bool:
        return self.results is not None

    @property
    def sealed(self) -> bool:
        """Whether this view withholds the game's words: a private game (a challenge's round)
        seen by anyone but its player before its :attr:`SoloGame.private_until`."""
        until = self.game.private_until
        return not self.owner and until is not None and self.now < until

    @property
    def time_left(self) -> float:
        """Seconds until the deadline (0 once over or being scored)."""
        return 0.0 if self.over or self.scoring else max(0.0, self.game.deadline - self.now)

    def to_json(self) -> dict[str, Any]:
        """The game as the API answers it (results only once it is over)."""
        game = self.game
        data: dict[str, Any] = {
            "id": game.id,
            "board": game.board,
            "rules": game.rules,
            "options": dict(game.options),
            "dictionary": game.dictionary,
            "seed": game.seed,
            "player": game.player,
            "daily": game.daily_date,
            "min_length": self.rules.min_length,
            "started_at": game.started_at,
            "deadline": game.deadline,
            "now": self.now,
            "time_left": round(self.time_left, 3),
            "phase": "ended" if self.over else "scoring" if self.scoring else "running",
            "replay": game.replay,
        }
        if self.key is not None:
            data["key"] = self.key
        data["practice"] = game.practice
        if self.results is None:
            # Opponents' counts on the server's clock (their words only in the results).
            seconds = min(self.now, game.deadline) - game.started_at
            data["opponents"] = [seat.to_json(seconds) for seat in self.opponents]
        if self.sealed and self.results is None:
            # A challenge's round that runs or lies unfinished: its board (the solver would
            # give every word of it), seed and replay are its player's alone until the
            # challenge closes, as its sealed results are.
            data.update(board=None, seed=None, replay=None, sealed=True)
            data["private_until"] = game.private_until
            return data
        if self.scoring:
            return data
        if self.results is None:
            # A running game's words are its player's business (a daily rival could copy them).
            data["words"] = [word.to_json() for word in self.words]
            data["score_so_far"] = sum(word.score for word in self.words)
            # The board's points (not its words): what the player's meter measures against.
            data["max_score"] = game.max_score
            data["hints"] = self._hints_json()
            return data
        data["ended_at"] = game.ended_at
        if self.sealed:
            # A challenge's round: its score, never its words nor its board (the solver would
            # give every word of it), until the challenge closes.
            data.update({key: self.results[key] for key in SEALED_KEYS if key in self.results})
            data.update(board=None, seed=None, replay=None, sealed=True)
            data["private_until"] = game.private_until
            return data
        data.update(self.results)
        return data

    def _hints_json(self) -> dict[str, Any]:
        """What a running game's page needs to offer hints: whether it may, at what costs, and
        (its player's view) the hints used so far and their cost."""
        game = self.game
        hints: dict[str, Any] = {"allowed": game.hints_on, "practice": game.practice}
        if game.hints_on:
            free = game.practice
            hints["costs"] = {kind: 0 if free else cost for kind, cost in HINT_COSTS.items()}
        if self.owner:
            hints["used"] = [dict(used) for used in self.hints]
            hints["cost"] = sum(int(used.get("cost", 0)) for used in self.hints)
        return hints


@dataclass(frozen=True)
class Submitted:
    """The answer to one submitted word: its verdict and where the game stands after it."""

    result: WordResult
    #: Entries on the list (repeats are not stored) and their points so far.
    words: int
    score_so_far: int
    now: float
    deadline: float

    def to_json(self) -> dict[str, Any]:
        return {
            "result": self.result.to_json(),
            "words": self.words,
            "score_so_far": self.score_so_far,
            "time_left": round(max(0.0, self.deadline - self.now), 3),
            "now": self.now,
            "deadline": self.deadline,
        }


@dataclass(frozen=True)
class HintAnswer:
    """The answer to a hint asked for: the hint (without its word) and where the game stands."""

    hint: Mapping[str, Any]
    #: Whether this very hint had been used already (shown again, at no cost, not stored again).
    again: bool
    #: Hints used so far and their cost together (this one included).
    used: int
    cost: int
    now: float
    deadline: float

    def to_json(self) -> dict[str, Any]:
        return {
            "hint": dict(self.hint),
            "again": self.again,
            "used": self.used,
            "hint_cost": self.cost,
            "time_left": round(max(0.0, self.deadline - self.now), 3),
            "now": self.now,
            "deadline": self.deadline,
        }


@dataclass(frozen=True)
class LeaderboardEntry:
    """One finished daily game."""

    player: str
    score: int
    max_score: int
    game_id: str
    ended_at: float
    #: The user name of the member whose game it is, if it was played under that very name
    #: (``None``: a guest's, or a claimed one under another name), so a guest's name is never
    #: mistaken for a member's: the JSON says ``"member": true`` and ``"username"``.
    member: str | None = None
    #: The place on the board by competition ranking: equal scores share it (1, 2, 2, 4).
    place: int = 1

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "player": self.player,
            "score": self.score,
            "max_score": self.max_score,
            "game": self.game_id,
            "ended_at": self.ended_at,
            "place": self.place,
        }
        if self.member is not None:
            data["member"] = True
            data["username"] = self.member
        return data

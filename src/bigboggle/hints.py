"""Hints for a board being played: pure functions of the board's solution and the words found.

Four kinds, each with its cost in points (:data:`HINT_COSTS`, the one table the rules help and
the README show):

========== ====== ==============================================================================
kind       cost   what it reveals
========== ====== ==============================================================================
words_left 1      how many of the board's words are still to find, by length
letters    2      the hinted word's length and its first two letters
start      2      the hinted word's starting cube (its row, column and face)
path       5      the hinted word's whole path (every cube, in order)
========== ====== ==============================================================================

The three word hints are all about one word, **the hinted word**: the easiest word of the board
not found yet (the most common by the dictionary's level, then the shortest, then the first
alphabetically; never an offensive word). It stays the same until it is found, so asking for
its letters, then its starting cube, then its path narrows one word down, and each answer is a
function of the solution and the words found alone (the same question asked twice gets the same
answer). A path costs more than most words score, so no hint pays for itself: hints are for
learning, or for getting unstuck.

In a practice game every hint is free (``free=True``); a game that allows hints charges these
costs against its score. Nothing here reads a clock or a database: a service stores each hint
used (:mod:`bigboggle.services.solo_games`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import GameStateError, RulesError, quoted
from .family import is_offensive
from .solver import FoundWord, Solution

#: Each kind of hint and its cost in points, in the order the pages offer them.
HINT_COSTS: Mapping[str, int] = {
    "words_left": 1,
    "letters": 2,
    "start": 2,
    "path": 5,
}
#: What each kind reveals, as the pages and the README say it.
HINT_LABELS: Mapping[str, str] = {
    "words_left": "How many words are left, by length",
    "letters": "A word's length and first letters",
    "start": "A word's starting cube",
    "path": "A word's whole path",
}
#: How many first letters the ``letters`` hint shows.
FIRST_LETTERS = 2
#: The level given to a word the dictionary grades not at all (after every graded word).
_UNGRADED = 1_000

#: A word's commonness level (lower is more common), or ``None`` if unknown:
#: :meth:`bigboggle.dictionary.Dictionary.level`.
Level = Callable[[str], int | None]


@dataclass(frozen=True)
class Hint:
    """One hint: its kind, what it reveals (plain JSON-able data), the word it is about (``None``
    for ``words_left``; shown only once the game is over) and its cost in points."""

    kind: str
    revealed: Mapping[str, Any]
    word: str | None
    cost: int
    #: The hint in words ("a word of 5 letters starting with TR").
    text: str = field(default="")

    def to_json(self, *, with_word: bool = False) -> dict[str, Any]:
        """``{"kind", "label", "revealed", "text", "cost"}``, and ``"word"`` if ``with_word``
        (the results: a running game's hint never names its word)."""
        data: dict[str, Any] = {
            "kind": self.kind,
            "label": HINT_LABELS[self.kind],
            "revealed": dict(self.revealed),
            "text": self.text,
            "cost": self.cost,
        }
        if with_word and self.word is not None:
            data["word"] = self.word
        return data


def check_kind(kind: object) -> str:
    """``kind`` if it names a kind of hint; :class:`RulesError` naming the choices otherwise."""
    if isinstance(kind, str) and kind in HINT_COSTS:
        return kind
    raise RulesError(f"unknown hint kind {quoted(kind)}; choose one of {', '.join(HINT_COSTS)}")


def words_left(solution: Solution, found: Iterable[str]) -> dict[int, int]:
    """Letters -> how many of the board's words of that length are not in ``found`` yet, for
    every length that has any left, shortest first."""
    have = set(found)
    left: dict[int, int] = {}
    for word in solution.words:
        if word.word not in have:
            left[len(word.word)] = left.get(len(word.word), 0) + 1
    return dict(sorted(left.items()))


def hinted_word(
    solution: Solution, found: Iterable[str], level: Level | None = None
) -> FoundWord | None:
    """The word the word hints are about: the easiest word not in ``found`` (by ``level``, the
    dictionary's commonness, then length, then alphabetically), never an offensive one;
    ``None`` when every such word is found."""
    have = set(found)
    grade = level if level is not None else (lambda _word: None)
    candidates = [w for w in solution.words if w.word not in have and not is_offensive(w.word)]
    if not candidates:
        return None

    def easiness(word: FoundWord) -> tuple[int, int, str]:
        graded = grade(word.word)
        return (_UNGRADED if graded is None else graded, len(word.word), word.word)

    return min(candidates, key=easiness)


def hint(
    kind: str,
    solution: Solution,
    found: Iterable[str],
    *,
    level: Level | None = None,
    free: bool = False,
) -> Hint:
    """The hint of ``kind`` (:func:`check_kind`) for a player who has found the words ``found``
    (normalised) on the board ``solution`` is of; costing nothing if ``free`` (practice).
    :class:`GameStateError` for a word hint when no word is left to hint at."""
    kind = check_kind(kind)
    cost = 0 if free else HINT_COSTS[kind]
    found = set(found)
    if kind == "words_left":
        left = words_left(solution, found)
        total = sum(left.values())
        return Hint(
            kind,
            {"left": {str(length): count for length, count in left.items()}, "total": total},
            None,
            cost,
            _left_text(left, total),
        )
    target = hinted_word(solution, found, level)
    if target is None:
        raise GameStateError("no word is left to hint at: you have found every one")
    board = solution.board
    letters = len(target.word)
    if kind == "letters":
        first = target.word[:FIRST_LETTERS]
        return Hint(
            kind,
            {"length": letters, "first": first},
            target.word,
            cost,
            f"a word of {letters} letters starting with {first.upper()}",
        )
    row, col = target.path[0]
    face = board[(row, col)]
    if kind == "start":
        return Hint(
            kind,
            {"cell": [row, col], "face": face},
            target.word,
            cost,
            f"a word starting at the cube in row {row + 1}, column {col + 1} ({face})",
        )
    faces = "-".join(board[step] for step in target.path)
    return Hint(
        kind,
        {"path": [list(step) for step in target.path], "length": letters},
        target.word,
        cost,
        f"a word of {letters} letters along the path {faces}",
    )


def _left_text(left: Mapping[int, int], total: int) -> str:
    if not total:
        return "no words left: you have found every one"
    parts = ", ".join(f"{count} of {length}" for length, count in left.items())
    return f"{total} word{'' if total == 1 else 's'} left (by letters: {parts})"


def hint_cost(hints: Iterable[Mapping[str, Any]]) -> int:
    """The points the hints used cost together (each stored hint's own ``cost``)."""
    return sum(int(used.get("cost", 0)) for used in hints)


def net_score(points: int, cost: int) -> int:
    """A score less its hints' cost, never below zero: hints can take away the points a player
    has, not more (a player who asks for hints before finding anything ends at 0, not below)."""
    return max(0, points - cost)

"""The verdict on one entry of one player, short of crossing off (which needs every list).

Shared by round scoring and by the game's immediate private verdicts, so the two can never
disagree. The board is solved once at the shortest length any player may play; a dictionary
word is on the board exactly when that solution holds it, with a path that runs through the
challenge cell whenever one can. Only entries that are not dictionary words need a search of
their own, and that search has a budget, so no entry can make scoring hang.
"""

from __future__ import annotations

from collections.abc import Container

from .board import Board, SearchBudgetExceeded
from .dictionary import SHORTEST_WORD, Dictionary, normalise
from .rules import Rules
from .solver import Solution, solve, word_score
from .verdicts import Verdict, WordResult

#: Cells a search for a non-dictionary entry may try before giving up on "is it on the board".
PATH_SEARCH_BUDGET = 50_000


class Judge:
    """Judges entries against one board, rules and dictionary."""

    def __init__(self, board: Board, rules: Rules, words: Dictionary) -> None:
        self.board = board
        self.rules = rules
        self.words = words
        self._everything = solve(board, words, rules, min_length=SHORTEST_WORD)
        #: The board's words at the rules' minimum length: the maximum score and missed words.
        self.solution: Solution = solve(board, words, rules)

    def judge(self, entry: str, minimum: int, earlier: Container[str]) -> WordResult:
        """The verdict on ``entry`` for a player whose minimum length is ``minimum`` and whose
        list already holds the words ``earlier`` (normalised). ``scored`` means valid so far."""
        word = normalise(entry)
        if not word.isascii() or not word.isalpha():
            return WordResult(entry, entry.strip(), Verdict.NOT_A_WORD)
        if word in earlier:
            return WordResult(entry, word, Verdict.REPEATED)
        if len(word) < minimum:
            return WordResult(entry, word, Verdict.TOO_SHORT)
        found = self._everything.get(word)
        if found is not None:
            challenge = self.board.challenge
            through = challenge is not None and challenge in found.path
            points, bonus = word_score(
                word, self.rules, min_length=minimum, through_challenge=through
            )
            return WordResult(entry, word, Verdict.SCORED, points, bonus, found.path)
        if word in self.words:
            return WordResult(entry, word, Verdict.NOT_ON_BOARD)
        try:
            path = self.board.path_for(word, budget=PATH_SEARCH_BUDGET)
        except SearchBudgetExceeded:
            # Certainly not a dictionary word; whether it is on the board stays open.
            return WordResult(entry, word, Verdict.NOT_IN_DICTIONARY)
        if path is None:
            return WordResult(entry, word, Verdict.NOT_ON_BOARD)
        return WordResult(entry, word, Verdict.NOT_IN_DICTIONARY, path=path)

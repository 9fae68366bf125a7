"""The verdict on one entry of one player, short of crossing off (which needs every list).

Shared by round scoring and by the game's immediate private verdicts, so the two can never
disagree. The board is solved once at the shortest length any player may play; a dictionary
word is on the board exactly when that solution holds it, with a path that runs through the
challenge cell whenever one can. Only entries that are not dictionary words need a search of
their own; each search has a budget, and so do all of a judge's searches together (each entry
searched once), so no list, however long or hostile, can make scoring hang.

Under the rules option ``family`` an offensive word (:mod:`bigboggle.family`) that would score
is ``refused`` instead, and the judge's solution (the board's maximum and the missed words)
leaves such words out, since no one can score them.
"""

from __future__ import annotations

from collections.abc import Container

from .board import Board, Path, SearchBudget
from .dictionary import SHORTEST_WORD, Dictionary, normalise
from .errors import SearchBudgetExceeded
from .family import is_offensive
from .rules import Rules
from .solver import Solution, solve, word_score
from .verdicts import Verdict, WordResult

#: Cells a search for a non-dictionary entry may try before giving up on "is it on the board".
PATH_SEARCH_BUDGET = 50_000
#: Cells all of one judge's searches may try together (about a second of work). Past it, entries
#: that are not dictionary words are judged ``not_in_dictionary`` without a search.
ROUND_SEARCH_BUDGET = 1_000_000


class Judge:
    """Judges entries against one board, rules and dictionary."""

    def __init__(self, board: Board, rules: Rules, words: Dictionary) -> None:
        self.board = board
        self.rules = rules
        self.words = words
        self._everything = solve(board, words, rules, min_length=SHORTEST_WORD)
        #: The board's words at the rules' minimum length: the maximum score and missed words
        #: (under the family filter, the words it does not refuse).
        solution = solve(board, words, rules)
        self.solution: Solution = solution.without_offensive() if rules.family else solution
        self._search_budget = SearchBudget(ROUND_SEARCH_BUDGET)
        self._searched: dict[str, Path | None] = {}

    @property
    def search_steps_left(self) -> int:
        """Cells this judge's path searches may still try, of :data:`ROUND_SEARCH_BUDGET`."""
        return self._search_budget.left

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
            if self.rules.family and is_offensive(word):
                return WordResult(entry, word, Verdict.REFUSED, path=found.path)
            challenge = self.board.challenge
            through = challenge is not None and challenge in found.path
            points, bonus = word_score(
                word, self.rules, min_length=minimum, through_challenge=through
            )
            return WordResult(entry, word, Verdict.SCORED, points, bonus, found.path)
        if word in self.words:
            return WordResult(entry, word, Verdict.NOT_ON_BOARD)
        if word not in self._searched:
            self._searched[word] = self._search(word)
        path = self._searched[word]
        if path is None:
            return WordResult(entry, word, Verdict.NOT_ON_BOARD)
        return WordResult(entry, word, Verdict.NOT_IN_DICTIONARY, path=path or None)

    def _search(self, word: str) -> Path | None:
        """Where ``word`` (not a dictionary word) lies on the board, or ``None``. Past the budget
        the answer is a path of no cells: certainly not a word, perhaps on the board."""
        entry = SearchBudget(min(PATH_SEARCH_BUDGET, self._search_budget.left))
        before = entry.left
        try:
            return self.board.path_for(word, budget=entry)
        except SearchBudgetExceeded:
            return ()
        finally:
            self._search_budget.left -= before - max(entry.left, 0)

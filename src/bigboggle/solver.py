"""Finding every word on a board, with one path and the points of each.

:func:`solve` returns a :class:`Solution` (every word, a path, its score, counts); :func:`score`
only the board's total, the fast path; :func:`score_many` the totals of a batch. The points come
from :func:`word_score`, the one scoring function used wherever points are shown.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, NamedTuple

from . import implementation
from .board import Board, Path
from .dictionary import Dictionary
from .errors import BoardError, RulesError
from .family import is_offensive
from .rules import MAX_WORD_LENGTH, MIN_WORD_LENGTH, Rules


def word_score(
    word: str, rules: Rules, *, min_length: int | None = None, through_challenge: bool = False
) -> tuple[int, int]:
    """``(points, bonus)`` for a valid word: the table's points plus the challenge bonus.

    ``points`` includes ``bonus``. A word below ``min_length`` (default: the rules') scores
    ``(0, 0)``.
    """
    base = rules.word_points(len(word), min_length)
    if base == 0:
        return (0, 0)
    bonus = rules.challenge_bonus if through_challenge else 0
    return (base + bonus, bonus)


class FoundWord(NamedTuple):
    """A word on the board with one path that spells it and its points (bonus included).

    A named tuple rather than a dataclass: a solve builds hundreds of these, and tuples are the
    cheapest immutable values CPython makes.
    """

    word: str
    path: Path
    score: int
    bonus: int = 0

    @property
    def offensive(self) -> bool:
        """Whether the family filter's list holds the word (:func:`bigboggle.family.is_offensive`)."""
        return is_offensive(self.word)

    def to_json(self) -> dict[str, Any]:
        """The contract's JSON form: ``{"word", "score", "path": [[row, col], …]}``, with
        ``"bonus"`` when the word earns one and ``"offensive": true`` when the family filter's
        list holds it (pages hide such words unless the player asks)."""
        data: dict[str, Any] = {
            "word": self.word,
            "score": self.score,
            "path": [list(step) for step in self.path],
        }
        if self.bonus:
            data["bonus"] = self.bonus
        if is_offensive(self.word):
            data["offensive"] = True
        return data


@dataclass(frozen=True)
class Solution:
    """Every word a board holds under some rules and dictionary.

    ``words`` are sorted by score (highest first), then alphabetically.
    """

    board: Board
    rules: Rules
    dictionary: str
    min_length: int
    words: tuple[FoundWord, ...]

    @functools.cached_property
    def _index(self) -> dict[str, FoundWord]:
        return {found.word: found for found in self.words}

    @property
    def count(self) -> int:
        """How many words."""
        return len(self.words)

    @property
    def total_score(self) -> int:
        """The sum of every word's points: the most a single player could score."""
        return sum(found.score for found in self.words)

    def counts_by_length(self) -> dict[int, int]:
        """Letters -> how many words of that length, in increasing length."""
        counts = Counter(len(found.word) for found in self.words)
        return dict(sorted(counts.items()))

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self._index

    def __iter__(self) -> Iterator[FoundWord]:
        return iter(self.words)

    def __len__(self) -> int:
        return len(self.words)

    def get(self, word: str) -> FoundWord | None:
        """The entry for ``word``, or ``None`` if the board does not hold it."""
        return self._index.get(word.lower())

    def without_offensive(self) -> Solution:
        """The solution less the words the family filter's list holds (itself if none): what a
        game under the rules option ``family`` can score, or a solver asked to omit them."""
        kept = tuple(found for found in self.words if not is_offensive(found.word))
        return self if len(kept) == len(self.words) else dataclasses.replace(self, words=kept)

    def to_json(self) -> dict[str, Any]:
        """The JSON of ``bigboggle solve --json``."""
        return {
            "board": str(self.board),
            "rules": self.rules.name,
            "dictionary": self.dictionary,
            "min_length": self.min_length,
            "implementation": implementation.name(),
            "count": self.count,
            "total_score": self.total_score,
            "counts_by_length": {str(k): v for k, v in self.counts_by_length().items()},
            "words": [found.to_json() for found in self.words],
        }


def _as_board(board: Board | str) -> Board:
    return board if isinstance(board, Board) else Board.parse(board)


def _resolve(
    dictionary: Dictionary | None, rules: Rules | None, min_length: int | None
) -> tuple[Dictionary, Rules, int]:
    rules = rules if rules is not None else Rules.preset("big")
    words = dictionary if dictionary is not None else Dictionary.load(rules.dictionary)
    minimum = rules.min_length if min_length is None else min_length
    if isinstance(minimum, bool) or not isinstance(minimum, int):
        raise RulesError(f"min_length={minimum!r} must be a whole number")
    if not MIN_WORD_LENGTH <= minimum <= MAX_WORD_LENGTH:
        raise RulesError(
            f"min_length={minimum!r} must be between {MIN_WORD_LENGTH} and {MAX_WORD_LENGTH}"
        )
    return words, rules, minimum


def solve(
    board: Board | str,
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
) -> Solution:
    """Every word of at least the minimum length on ``board``, with a path and its score.

    Defaults: the ``big`` rules and the dictionary they name. A word whose path can run through
    the board's challenge cell gets a path through it and the rules' challenge bonus.
    """
    board = _as_board(board)
    words, rules, minimum = _resolve(dictionary, rules, min_length)
    found = implementation.core().solve_cells(
        implementation.trie_for(words),
        words.word_list,
        board.cell_letters,
        board.rows,
        board.cols,
        _challenge(board),
        points_table(rules, minimum, words.longest),
        rules.challenge_bonus,
        FoundWord,
    )
    return Solution(board, rules, words.name, minimum, tuple(found))


def _challenge(board: Board) -> int:
    index = board.challenge_index
    return -1 if index is None else index


@functools.lru_cache(maxsize=64)
def points_table(rules: Rules, minimum: int, longest: int) -> tuple[int, ...]:
    """Points by letter count, for every length up to the dictionary's longest word."""
    return tuple(rules.word_points(length, minimum) for length in range(longest + 2))


def score(
    board: Board | str,
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
) -> int:
    """The board's total points (the sum :func:`solve` would give), without building paths."""
    board = _as_board(board)
    words, rules, minimum = _resolve(dictionary, rules, min_length)
    return int(
        implementation.core().score_cells(
            implementation.trie_for(words),
            board.cell_letters,
            board.rows,
            board.cols,
            _challenge(board),
            points_table(rules, minimum, words.longest),
            rules.challenge_bonus,
        )
    )


def score_many(
    boards: Iterable[Board | str],
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> list[int]:
    """The total points of each board of a batch, in order.

    Boards may be :class:`Board` values or board texts (a bad text raises :class:`BoardError`
    naming it before any board is solved). The compiled core scores the batch without holding
    the GIL, so ``threads`` > 1 splits it across that many threads and cores.
    """
    return [
        int(total)
        for total in _batch("score_batch", boards, dictionary, rules, min_length, threads)
    ]


def tally_many(
    boards: Iterable[Board | str],
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> list[tuple[int, int]]:
    """``(total points, number of words)`` of each board of a batch, as :func:`score_many`."""
    return [
        (int(total), int(count))
        for total, count in _batch("tally_batch", boards, dictionary, rules, min_length, threads)
    ]


def _batch(
    method: str,
    boards: Iterable[Board | str],
    dictionary: Dictionary | None,
    rules: Rules | None,
    min_length: int | None,
    threads: int,
) -> list[Any]:
    if isinstance(boards, str | Board):
        raise BoardError("a batch is a list of boards; for one board use score() or solve()")
    parsed = [_as_board(board) for board in boards]
    words, rules, minimum = _resolve(dictionary, rules, min_length)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise RulesError(f"threads={threads!r} must be a whole number of at least 1")
    run = getattr(implementation.core(), method)
    trie = implementation.trie_for(words)
    points = points_table(rules, minimum, words.longest)
    bonus = rules.challenge_bonus
    cells = [(b.cell_letters, b.rows, b.cols, _challenge(b)) for b in parsed]
    if threads == 1 or len(cells) < 2:
        return list(run(trie, cells, points, bonus))
    return _threaded(lambda chunk: list(run(trie, chunk, points, bonus)), cells, threads)


# Boards a thread takes at a time: small enough that threads finish together (a thread that
# drew slow boards does not hold the others up), large enough that a chunk's fixed costs (the
# GIL taken twice, a fresh de-duplication array) stay below a percent of its walk.
_THREAD_CHUNK = 256


def _threaded(run: Callable[[list[Any]], list[Any]], cells: list[Any], threads: int) -> list[Any]:
    """``run`` over ``cells`` in chunks handed out on demand to ``threads`` threads, in order.

    The compiled core releases the GIL while it walks, and each call has its own walk state
    and its own de-duplication arrays, so the threads share nothing while they score.
    """
    size = max(1, min(_THREAD_CHUNK, -(-len(cells) // (threads * 4))))
    starts = iter(range(0, len(cells), size))
    results: list[list[Any]] = [[] for _ in range(-(-len(cells) // size))]
    lock = threading.Lock()

    def work() -> None:
        while True:
            with lock:
                start = next(starts, None)
            if start is None:
                return
            results[start // size] = run(cells[start : start + size])

    with ThreadPoolExecutor(max_workers=threads) as pool:
        for future in [pool.submit(work) for _ in range(threads)]:
            future.result()
    return [item for chunk in results for item in chunk]

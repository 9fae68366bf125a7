"""Finding every word on a board, with one path and the points of each.

:func:`solve` returns a :class:`Solution` (every word, a path, its score, counts); :func:`score`
only the board's total, the fast path; :func:`score_many` the totals of a batch (Boards or board texts, which the compiled core parses
itself), :func:`score_stream` the same as they come and :func:`score_lines` those of a file of
board texts, both in flat memory. The points come from :func:`word_score`, the one scoring
function used wherever points are shown.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import io
import itertools
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

import orjson

from . import implementation
from .board import Board, Path
from .dictionary import Dictionary
from .errors import BoardError, RulesError, quoted
from .family import is_offensive
from .limits import MAX_BOARD_LINE_BYTES, MAX_BOARD_TEXT, MAX_SOLVER_THREADS
from .rules import MAX_WORD_LENGTH, MIN_WORD_LENGTH, Rules

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor


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
        data = self._json_head()
        data["words"] = [found.to_json() for found in self.words]
        return data

    def json_bytes(self, extra: Mapping[str, Any] | None = None, *, indent: bool = False) -> bytes:
        """:meth:`to_json` with ``extra``'s keys after its own, encoded as UTF-8 JSON: compact
        (as the web API sends it) or with ``indent``, two spaces (as ``solve --json`` prints).

        Byte for byte what encoding :meth:`to_json` gives, but built straight from the found
        words: a word's entry is one small dict holding its path tuple as it is (a tuple
        encodes as the same array as a list), so no list is made per word or per step."""
        data = self._json_head()
        data["words"] = [_word_json(found) for found in self.words]
        if extra:
            data.update(extra)
        return orjson.dumps(data, option=orjson.OPT_INDENT_2 if indent else None)

    def _json_head(self) -> dict[str, Any]:
        return {
            "board": str(self.board),
            "rules": self.rules.name,
            "dictionary": self.dictionary,
            "min_length": self.min_length,
            "implementation": implementation.name(),
            "count": self.count,
            "total_score": self.total_score,
            "counts_by_length": {str(k): v for k, v in self.counts_by_length().items()},
        }


def _word_json(found: FoundWord) -> dict[str, Any]:
    """:meth:`FoundWord.to_json` with the path left a tuple of tuples (for :mod:`orjson`)."""
    word, path, points, bonus = found
    data: dict[str, Any] = {"word": word, "score": points, "path": path}
    if bonus:
        data["bonus"] = bonus
    if is_offensive(word):
        data["offensive"] = True
    return data


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
    letters = board.cell_letters
    # The compiled core names each word by its place in the word list; without the list (the
    # first solve of a dictionary still one blob, see Dictionary._list_for_solving) it is
    # given a list of blanks as long, and each word is spelled from its path's faces instead.
    listed = words._list_for_solving() if implementation.name() == "c" else words.word_list
    found = implementation.core().solve_cells(
        implementation.trie_for(words),
        listed if listed is not None else [None] * len(words),
        letters,
        board.rows,
        board.cols,
        _challenge(board),
        # No word on the board is longer than all its faces together: a table that long is
        # exact, and it spares a first solve the scan of every word for the longest.
        points_table(rules, minimum, sum(map(len, letters))),
        rules.challenge_bonus,
        FoundWord,
    )
    if listed is None:
        found = _spelled(found, letters, board.cols)
    return Solution(board, rules, words.name, minimum, tuple(found))


def _spelled(found: list[FoundWord], letters: tuple[str, ...], cols: int) -> list[FoundWord]:
    """The core's entries with each word spelled from the letters along its path: the words
    the core found are exactly those the faces along their paths spell."""
    return [
        FoundWord("".join([letters[row * cols + col] for row, col in path]), path, points, bonus)
        for _, path, points, bonus in found
    ]


def _challenge(board: Board) -> int:
    index = board.challenge_index
    return -1 if index is None else index


@functools.lru_cache(maxsize=64)
def points_table(rules: Rules, minimum: int, longest: int) -> tuple[int, ...]:
    """Points by letter count, for every length up to ``longest`` (the dictionary's longest
    word, or the most letters a board's path can spell) and one more."""
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

    Boards may be :class:`Board` values or board texts, in any iterable; the compiled core
    parses texts itself, with no :class:`Board` made. A bad text raises the :class:`BoardError`
    ``Board.parse`` gives it when the batch reaches it. The compiled core scores the batch
    without holding the GIL, so ``threads`` > 1 splits it across that many threads and cores.
    For a batch too large to hold, :func:`score_stream` gives the totals as they come.
    """
    totals: list[int] = []
    for chunk in _batch("score_texts", boards, dictionary, rules, min_length, threads):
        totals.extend(chunk)
    return totals


def tally_many(
    boards: Iterable[Board | str],
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> list[tuple[int, int]]:
    """``(total points, number of words)`` of each board of a batch, as :func:`score_many`."""
    tallies: list[tuple[int, int]] = []
    for chunk in _batch("tally_texts", boards, dictionary, rules, min_length, threads):
        tallies.extend(chunk)
    return tallies


def score_stream(
    boards: Iterable[Board | str],
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> Iterator[int]:
    """The totals of :func:`score_many`, one by one as the boards are read, in flat memory:
    for a generator over more boards than fit in memory. The arguments are checked at once;
    a bad board text raises when the stream reaches it, after the totals of every board before
    it (so a consumer knows where it stopped)."""
    return _flatten(_batch("score_texts", boards, dictionary, rules, min_length, threads))


def tally_stream(
    boards: Iterable[Board | str],
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> Iterator[tuple[int, int]]:
    """The ``(total points, number of words)`` of :func:`tally_many`, as :func:`score_stream`."""
    return _flatten(_batch("tally_texts", boards, dictionary, rules, min_length, threads))


def score_lines(
    source: LineSource,
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> Iterator[int]:
    """The total points of each line of ``source`` (bytes, or a file opened in binary mode),
    one board text a line, as they come, in flat memory: for files of millions of boards.

    A bad line raises the :class:`BoardError` ``Board.parse`` gives its text, with a note
    naming the line, after the totals of every line before it; a line longer than any board text (or not UTF-8) is refused by number
    before more of it is read.
    """
    return _flatten(_line_batches("score_lines", source, dictionary, rules, min_length, threads))


def tally_lines(
    source: LineSource,
    dictionary: Dictionary | None = None,
    rules: Rules | None = None,
    *,
    min_length: int | None = None,
    threads: int = 1,
) -> Iterator[tuple[int, int]]:
    """``(total points, number of words)`` of each line of ``source``, as :func:`score_lines`."""
    return _flatten(_line_batches("tally_lines", source, dictionary, rules, min_length, threads))


#: Boards handed to the core at once by the batch forms: enough to make a call's overhead
#: vanish, few enough that a stream's memory stays small.
BATCH_CHUNK = 8192
#: Bytes of a line source read at once.
LINE_BLOCK = 1 << 18


class BinaryReader(Protocol):
    """A file opened in binary mode, as far as :func:`score_lines` reads it."""

    def read(self, size: int = -1, /) -> bytes | None:
        """Up to ``size`` bytes; ``b""`` at the end."""
        ...


#: What :func:`score_lines` reads: bytes, or a binary file.
LineSource = bytes | bytearray | memoryview | BinaryReader
BoardCells = tuple[tuple[str, ...], int, int, int]


def _cells(board: Board | str) -> BoardCells:
    """The core's arguments for one board: its cells, shape and challenge cell (parsing a
    text with ``Board.parse``, whose error a bad one raises)."""
    board = _as_board(board)
    return (board.cell_letters, board.rows, board.cols, _challenge(board))


def _flatten(chunks: Iterator[list[Any]]) -> Iterator[Any]:
    for chunk in chunks:
        yield from chunk


class _Scoring(NamedTuple):
    """What every batch passes the core with its boards."""

    trie: Any
    points: tuple[int, ...]
    bonus: int


def _scoring(
    dictionary: Dictionary | None, rules: Rules | None, min_length: int | None, threads: int
) -> _Scoring:
    words, rules, minimum = _resolve(dictionary, rules, min_length)
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise RulesError(f"threads={quoted(threads)} must be a whole number of at least 1")
    if threads > MAX_SOLVER_THREADS:
        raise RulesError(f"threads={quoted(threads)} is too many: at most {MAX_SOLVER_THREADS}")
    return _Scoring(
        implementation.trie_for(words),
        points_table(rules, minimum, words.longest),
        rules.challenge_bonus,
    )


def _batch(
    method: str,
    boards: Iterable[Board | str],
    dictionary: Dictionary | None,
    rules: Rules | None,
    min_length: int | None,
    threads: int,
) -> Iterator[list[Any]]:
    """The core's results for ``boards``, a chunk at a time (checked now, run as iterated):
    texts go to the core as they are, anything else through :func:`_cells`."""
    if isinstance(boards, str | Board):
        raise BoardError("a batch is a list of boards; for one board use score() or solve()")
    scoring = _scoring(dictionary, rules, min_length, threads)
    core_method = getattr(implementation.core(), method)

    def score(chunk: list[Any], fallback: Callable[[Any], BoardCells]) -> list[Any]:
        return list(core_method(scoring.trie, chunk, scoring.points, scoring.bonus, fallback))

    def run(chunk: list[Any]) -> _Part:
        failed: list[tuple[Any, Exception]] = []

        def fallback(item: Any) -> BoardCells:
            try:
                return _cells(item)
            except Exception as error:
                failed.append((item, error))
                raise

        try:
            return _Part(score(chunk, fallback), None)
        except Exception as error:
            if not failed or failed[-1][1] is not error:
                raise
            # The core gives up the whole call at a bad board: score the good ones before it
            # again (the same objects, as the core holds them), so a stream yields them first.
            bad = failed[-1][0]
            index = next(i for i, item in enumerate(chunk) if item is bad)
            return _Part(score(chunk[:index], _cells), error)

    def chunks() -> Iterator[list[Any]]:
        items = iter(boards)
        with _pool(threads) as pool:
            while chunk := list(itertools.islice(items, BATCH_CHUNK)):
                yield from _yield_part(_split(run, chunk, threads, pool))

    return chunks()


class _Part(NamedTuple):
    """The results of a part of a batch: all of them, or those of the boards before the first
    bad one and that board's error."""

    results: list[Any]
    error: Exception | None


def _yield_part(part: _Part) -> Iterator[list[Any]]:
    """The part's results, then its error: a stream's consumer gets every good board's result
    up to a bad one (and so knows where to resume) before the error."""
    if part.results:
        yield part.results
    if part.error is not None:
        raise part.error


# Items a thread takes at a time: small enough that threads finish together (a thread that
# drew slow boards does not hold the others up), large enough that a chunk's fixed costs (the
# GIL taken twice, fresh de-duplication arrays in the core) stay below a percent of its walk.
_THREAD_CHUNK = 256


def _split(
    run: Callable[[list[Any]], _Part],
    items: list[Any],
    threads: int,
    pool: ThreadPoolExecutor | None,
) -> _Part:
    """``run(items)``, the items handed out in small chunks to ``threads`` threads of ``pool``
    as each asks for more, the results in order up to the first chunk that stopped at an error
    (with that error).

    The compiled core releases the GIL while it walks, and each call has its own walk state
    and its own de-duplication arrays, so the threads share nothing while they score.
    """
    if pool is None or threads == 1 or len(items) < 2:
        return run(items)
    size = max(1, min(_THREAD_CHUNK, -(-len(items) // (threads * 4))))
    starts = iter(range(0, len(items), size))
    results: list[_Part | None] = [None] * -(-len(items) // size)
    lock = threading.Lock()
    stopped = False  # a chunk stopped at an error: the chunks after it are not needed

    def work() -> None:
        nonlocal stopped
        while True:
            with lock:
                start = None if stopped else next(starts, None)
            if start is None:
                return
            try:
                part = results[start // size] = run(items[start : start + size])
            except BaseException:
                # Not a board's error (memory, an interrupt): the other threads stop taking
                # chunks too, and the error comes out of future.result() below.
                with lock:
                    stopped = True
                raise
            if part.error is not None:
                with lock:
                    stopped = True

    for future in [pool.submit(work) for _ in range(threads)]:
        future.result()
    # Chunks are taken in order, so every chunk before the first stopped one has run.
    done: list[Any] = []
    for part in results:
        assert part is not None
        done.extend(part.results)
        if part.error is not None:
            return _Part(done, part.error)
    return _Part(done, None)


def _pool(threads: int) -> contextlib.AbstractContextManager[ThreadPoolExecutor | None]:
    """A pool of ``threads`` threads for a batch's life, or nothing for one thread."""
    if threads == 1:
        return contextlib.nullcontext()
    # Here, not at the top: concurrent.futures (and the logging it imports) would cost every
    # process that solves one board, such as `bigboggle solve`, about 4 ms of start-up.
    from concurrent.futures import ThreadPoolExecutor

    return ThreadPoolExecutor(max_workers=threads)


def _line_batches(
    method: str,
    source: LineSource,
    dictionary: Dictionary | None,
    rules: Rules | None,
    min_length: int | None,
    threads: int,
) -> Iterator[list[Any]]:
    """The core's results for the lines of ``source``, a block of lines at a time."""
    blocks = _line_blocks(source)
    scoring = _scoring(dictionary, rules, min_length, threads)
    core_method = getattr(implementation.core(), method)

    def score(data: bytes, fallback: Callable[[bytes, int], BoardCells]) -> list[Any]:
        return list(core_method(scoring.trie, data, scoring.points, scoring.bonus, fallback))

    def run_piece(data: bytes, first: int) -> _Part:
        failed: list[tuple[int, Exception]] = []

        def fallback(line: bytes, index: int) -> BoardCells:
            try:
                return _line_cells(line, first + index)
            except Exception as error:
                failed.append((index, error))
                raise

        try:
            return _Part(score(data, fallback), None)
        except Exception as error:
            if not failed or failed[-1][1] is not error:
                raise
            # As in _batch: the lines before the bad one again, to be yielded before its error.
            index = failed[-1][0]
            rest = data.split(b"\n", index)[-1]  # from line `index` on
            return _Part(score(data[: len(data) - len(rest)], fallback), error)

    def run(pieces: list[tuple[bytes, int]]) -> _Part:
        results: list[Any] = []
        for data, first in pieces:
            part = run_piece(data, first)
            results.extend(part.results)
            if part.error is not None:
                return _Part(results, part.error)
        return _Part(results, None)

    def chunks() -> Iterator[list[Any]]:
        with _pool(threads) as pool:
            for data, first in blocks:
                # Four pieces a thread, handed out as threads ask (see _split).
                pieces = _split_lines(data, first, 4 * threads)
                yield from _yield_part(_split(run, pieces, threads, pool))

    return chunks()


def _split_lines(data: bytes, first: int, parts: int) -> list[tuple[bytes, int]]:
    """``data`` (whole lines, the first numbered ``first``) cut at line ends into about
    ``parts`` pieces, each with the number of its first line."""
    pieces = []
    start = 0
    step = -(-len(data) // parts)
    while start < len(data):
        cut = data.find(b"\n", min(start + step, len(data)) - 1) + 1 or len(data)
        pieces.append((data[start:cut], first))
        first += data.count(b"\n", start, cut)
        start = cut
    return pieces


def _line_blocks(source: LineSource) -> Iterator[tuple[bytes, int]]:
    """Blocks of whole lines of ``source``, each with the number of its first line (from 1).
    Checks the source's type at once; reads it as iterated."""
    if isinstance(source, bytes | bytearray | memoryview):
        view = memoryview(source).cast("B")
        return _blocks(lambda start: bytes(view[start : start + LINE_BLOCK]))
    read = getattr(source, "read", None)
    if not callable(read) or isinstance(source, io.TextIOBase):
        raise TypeError(
            "lines are read as bytes: pass bytes or a file opened in binary mode ('rb'), "
            f"not {type(source).__name__}"
        )
    return _blocks(lambda _start: _read_bytes(read))


def _read_bytes(read: Callable[[int], object]) -> bytes:
    block = read(LINE_BLOCK)
    if not isinstance(block, bytes | bytearray):
        raise TypeError(f"a line source's read() gave {type(block).__name__}, not bytes")
    return bytes(block)


def _blocks(read: Callable[[int], bytes]) -> Iterator[tuple[bytes, int]]:
    """Cut what ``read(offset)`` gives, block by block, into whole lines; a partial line is
    carried into the next block, and refused once it is longer than any board text."""
    carry = b""
    offset = 0
    line = 1
    while block := read(offset):
        offset += len(block)
        data = carry + block if carry else block
        end = data.rfind(b"\n") + 1
        if end:
            yield data[:end], line
            line += data.count(b"\n", 0, end)
        carry = data[end:]
        if len(carry) > MAX_BOARD_LINE_BYTES:
            raise _line_too_long(line)
    if carry:
        yield carry, line


def _line_too_long(number: int) -> BoardError:
    return BoardError(
        f"line {number} is longer than any board text (over {MAX_BOARD_LINE_BYTES} bytes; a board "
        f"is at most {MAX_BOARD_TEXT} characters): is this a file of boards, one a line?"
    )


def _line_cells(line: bytes, number: int) -> BoardCells:
    """The cells of line ``number``, parsed by ``Board.parse`` (its error, with a note naming
    the line); a line no board text can be is refused by number."""
    if len(line) > MAX_BOARD_LINE_BYTES:
        raise _line_too_long(number)
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError:
        raise BoardError(f"line {number} is not UTF-8 text: {quoted(line)}") from None
    try:
        return _cells(text)
    except BoardError as error:
        error.add_note(f"(line {number})")
        raise

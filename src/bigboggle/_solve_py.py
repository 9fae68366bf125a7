"""The pure-Python solver core: a depth-first walk of the board and the trie together.

This module is the reference for the compiled core (``_solve_c.c``) and keeps to the same small
contract, :func:`solve_cells`, :func:`score_cells`, :func:`score_batch` and
:func:`tally_batch`; all validation, rules
and scoring tables live in :mod:`bigboggle.solver`, which passes:

- ``letters``: the lowercase face of each cell, row-major (``""`` for a blank), ``rows``, ``cols``;
- ``challenge``: the challenge cell's index, or -1;
- ``points``: points by letter count (``points[n]`` for an ``n``-letter word, the last entry for
  longer words; 0 means the word does not count, which is how the minimum length arrives);
- ``bonus``: points added to a word whose path can run through the challenge cell.

The trie here is a :class:`bigboggle.trie.Trie` of dicts; the compiled core takes its own packed
trie, which is why ``words`` (the dictionary's sorted list) is passed too.

Speed notes (CPython): the walk's steps are precomputed once per board shape and leave out the
cell just left; a used cell is marked by blanking its face (so one dict lookup both tests
"unused" and steps the trie); a leaf stops the walk without a call; and the score-only walk
builds no paths.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from .board import adjacency
from .trie import WORD_KEY, Trie, TrieNode

Cells = Sequence[str]
#: A board for :func:`score_batch`: (letters, rows, cols, challenge).
BoardCells = tuple[Cells, int, int, int]


def _points(points: Sequence[int], letters: int) -> int:
    return points[letters] if letters < len(points) else points[-1]


def solve_cells(
    trie: Trie,
    words: Sequence[str],
    letters: Cells,
    rows: int,
    cols: int,
    challenge: int,
    points: Sequence[int],
    bonus: int,
    make: Callable[[str, tuple[tuple[int, int], ...], int, int], Any],
) -> list[Any]:
    """Every word with points, as ``make(word, path, score, bonus)``, best first then A-Z.

    ``path`` is a tuple of ``(row, column)``; when some path of a word runs through the
    challenge cell, that is the path given and ``bonus`` is added to the score.
    """
    del words  # the dict trie holds its words; the packed trie needs the list
    root = trie.for_faces(letters)
    found = find_words(root, letters, adjacency(rows, cols), None if challenge < 0 else challenge)
    positions = [divmod(cell, cols) for cell in range(rows * cols)]
    at = positions.__getitem__
    entries = []
    for word, (cells, through) in found.items():
        value = _points(points, len(word))
        if value:
            extra = bonus if through else 0
            entries.append(make(word, tuple(map(at, cells)), value + extra, extra))
    entries.sort(key=lambda entry: (-entry[2], entry[0]))
    return entries


def score_cells(
    trie: Trie,
    letters: Cells,
    rows: int,
    cols: int,
    challenge: int,
    points: Sequence[int],
    bonus: int,
) -> int:
    """The board's total points: the sum :func:`solve_cells` would give, without paths."""
    root = trie.for_faces(letters)
    found, through = find_word_set(
        root, letters, adjacency(rows, cols), None if challenge < 0 else challenge
    )
    if len(points) <= trie.longest:  # the contract's "last entry for longer words"
        points = [*points, *[points[-1]] * (trie.longest + 1 - len(points))]
    value = points.__getitem__
    total = sum(map(value, map(len, found)))
    return total + bonus * sum(1 for word in through if value(len(word)))


def tally_batch(
    trie: Trie, boards: Sequence[BoardCells], points: Sequence[int], bonus: int
) -> list[tuple[int, int]]:
    """``(total points, words with points)`` for each ``(letters, rows, cols, challenge)``."""
    tallies = []
    for letters, rows, cols, challenge in boards:
        root = trie.for_faces(letters)
        found, _ = find_word_set(root, letters, adjacency(rows, cols), None)
        words = sum(1 for word in found if _points(points, len(word)))
        total = score_cells(trie, letters, rows, cols, challenge, points, bonus)
        tallies.append((total, words))
    return tallies


def score_batch(
    trie: Trie, boards: Sequence[BoardCells], points: Sequence[int], bonus: int
) -> list[int]:
    """:func:`score_cells` for each ``(letters, rows, cols, challenge)`` of a batch."""
    return [
        score_cells(trie, letters, rows, cols, challenge, points, bonus)
        for letters, rows, cols, challenge in boards
    ]


#: From a cell: the (neighbour, its own list of this kind) pairs to try next. Each list leaves
#: out the cell the walk came from, which is always in use, and every blank.
Steps = list[tuple[int, "Steps"]]


def _steps(adjacency: Sequence[Sequence[int]], blanks: frozenset[int]) -> list[Steps]:
    """For each starting cell, the steps of a walk over ``adjacency`` avoiding ``blanks``."""
    edges: dict[tuple[int, int], Steps] = {
        (cell, n): [] for cell in range(len(adjacency)) for n in adjacency[cell]
    }
    for (previous, cell), steps in edges.items():
        steps.extend(
            (n, edges[cell, n]) for n in adjacency[cell] if n != previous and n not in blanks
        )
    return [
        [(n, edges[cell, n]) for n in adjacency[cell] if n not in blanks]
        for cell in range(len(adjacency))
    ]


#: id(adjacency) -> (adjacency, {blanks: steps}); adjacency tables are shared per board shape
#: (Board and adjacency() both reuse one object), so identity is a cheap, exact key.
_STEPS_CACHE: dict[int, tuple[Sequence[Sequence[int]], dict[frozenset[int], list[Steps]]]] = {}
_EMPTY: frozenset[int] = frozenset()


def _walk_from(letters: Sequence[str], adjacency: Sequence[Sequence[int]]) -> list[Steps]:
    """The steps for this board: one structure serves every board of a shape and blank pattern
    (most boards have no blanks), so the walk never looks up the cell it just left, a fifth of
    all lookups otherwise, at no cost per board."""
    blanks = (
        frozenset(cell for cell, face in enumerate(letters) if not face)
        if "" in letters
        else _EMPTY
    )
    entry = _STEPS_CACHE.get(id(adjacency))
    if entry is None or entry[0] is not adjacency:
        if len(_STEPS_CACHE) > 64:
            _STEPS_CACHE.clear()
        entry = _STEPS_CACHE[id(adjacency)] = (adjacency, {})
    by_blanks = entry[1]
    steps = by_blanks.get(blanks)
    if steps is None:
        if len(by_blanks) > 256:
            by_blanks.clear()
        steps = by_blanks[blanks] = _steps(adjacency, blanks)
    return steps


def find_words(
    root: TrieNode,
    letters: Sequence[str],
    adjacency: Sequence[Sequence[int]],
    challenge: int | None = None,
) -> dict[str, tuple[tuple[int, ...], bool]]:
    """Every word on the board -> (one path of cell indices, whether that path uses ``challenge``).

    When some path of a word runs through the challenge cell, the path returned does.
    """
    if challenge is None:
        return {word: (path, False) for word, path in _find_paths(root, letters, adjacency).items()}
    starts = _walk_from(letters, adjacency)
    faces: list[str | None] = list(letters)
    found: dict[str, tuple[tuple[int, ...], bool]] = {}

    def record(word: str, path: tuple[int, ...]) -> None:
        through = challenge in path
        earlier = found.get(word)
        if earlier is None or (through and not earlier[1]):
            found[word] = (path, through)

    def visit(node: TrieNode, cell: int, path: tuple[int, ...], steps: Steps) -> None:
        faces[cell] = None
        for n, onward in steps:
            child = node.get(faces[n])  # type: ignore[arg-type]
            if child is not None:
                here = (*path, n)
                if WORD_KEY in child:
                    record(child[WORD_KEY], here)
                    if len(child) > 1:
                        visit(child, n, here, onward)
                else:
                    visit(child, n, here, onward)
        faces[cell] = letters[cell]

    for cell, face in enumerate(letters):
        if face:
            child = root.get(face)
            if child is not None:
                if WORD_KEY in child:
                    record(child[WORD_KEY], (cell,))
                visit(child, cell, (cell,), starts[cell])
    return found


def _find_paths(
    root: TrieNode, letters: Sequence[str], adjacency: Sequence[Sequence[int]]
) -> dict[str, tuple[int, ...]]:
    """Every word -> the first path found for it, for boards without a challenge cell."""
    starts = _walk_from(letters, adjacency)
    faces: list[str | None] = list(letters)
    found: dict[str, tuple[int, ...]] = {}

    def visit(node: TrieNode, cell: int, path: tuple[int, ...], steps: Steps) -> None:
        faces[cell] = None
        for n, onward in steps:
            child = node.get(faces[n])  # type: ignore[arg-type]
            if child is not None:
                if WORD_KEY in child:
                    word = child[WORD_KEY]
                    if word not in found:
                        found[word] = (*path, n)
                    if len(child) > 1:
                        visit(child, n, (*path, n), onward)
                else:
                    visit(child, n, (*path, n), onward)
        faces[cell] = letters[cell]

    for cell, face in enumerate(letters):
        if face:
            child = root.get(face)
            if child is not None:
                if WORD_KEY in child and child[WORD_KEY] not in found:
                    found[child[WORD_KEY]] = (cell,)
                visit(child, cell, (cell,), starts[cell])
    return found


def find_word_set(
    root: TrieNode,
    letters: Sequence[str],
    adjacency: Sequence[Sequence[int]],
    challenge: int | None = None,
) -> tuple[set[str], set[str]]:
    """Every word on the board, and the subset whose path can run through ``challenge``.

    The fast path: no paths are built. A used cell's face is set to ``None`` while the walk is
    below it, so one dict lookup both checks "unused" and steps the trie.
    """
    if challenge is not None:
        words = find_words(root, letters, adjacency, challenge)
        return set(words), {word for word, (_, through) in words.items() if through}
    starts = _walk_from(letters, adjacency)
    faces: list[str | None] = list(letters)
    found: set[str] = set()
    add = found.add

    def visit(node: TrieNode, cell: int, steps: Steps) -> None:
        faces[cell] = None
        for n, onward in steps:
            child = node.get(faces[n])  # type: ignore[arg-type]
            if child is not None:
                if WORD_KEY in child:
                    add(child[WORD_KEY])
                    if len(child) > 1:
                        visit(child, n, onward)
                else:
                    visit(child, n, onward)
        faces[cell] = letters[cell]

    for cell, face in enumerate(letters):
        if face:
            child = root.get(face)
            if child is not None:
                if WORD_KEY in child:
                    add(child[WORD_KEY])
                visit(child, cell, starts[cell])
    return found, set()


# -- board texts and lines (the compiled core parses texts itself; this twin leaves them all to
# the fallback, which is Board.parse, so both give the same cells and the same errors) ---------

#: Turns an item the core does not parse (a Board, a text) into its cells, or raises.
Fallback = Callable[[Any], BoardCells]
#: Turns a line (bytes, without its newline) and its 0-based index into cells, or raises.
LineFallback = Callable[[bytes, int], BoardCells]


def parse_text(text: object) -> BoardCells | None:
    """The core's own cells of a board text, or ``None`` where it leaves the text to
    ``Board.parse``: this twin parses none itself."""
    del text
    return None


def score_texts(
    trie: Trie, items: Sequence[Any], points: Sequence[int], bonus: int, fallback: Fallback
) -> list[int]:
    """:func:`score_batch` of board texts (or anything ``fallback`` turns into cells)."""
    return score_batch(trie, [fallback(item) for item in items], points, bonus)


def tally_texts(
    trie: Trie, items: Sequence[Any], points: Sequence[int], bonus: int, fallback: Fallback
) -> list[tuple[int, int]]:
    """:func:`tally_batch` of board texts, as :func:`score_texts`."""
    return tally_batch(trie, [fallback(item) for item in items], points, bonus)


def _lines(data: bytes | bytearray | memoryview) -> list[bytes]:
    """The lines of ``data`` without their ``\\n``; a final line needs none."""
    lines = bytes(data).split(b"\n")
    if lines[-1] == b"":
        lines.pop()
    return lines


def score_lines(
    trie: Trie,
    data: bytes | bytearray | memoryview,
    points: Sequence[int],
    bonus: int,
    fallback: LineFallback,
) -> list[int]:
    """:func:`score_batch` of one board text a line of ``data``."""
    boards = [fallback(line, index) for index, line in enumerate(_lines(data))]
    return score_batch(trie, boards, points, bonus)


def tally_lines(
    trie: Trie,
    data: bytes | bytearray | memoryview,
    points: Sequence[int],
    bonus: int,
    fallback: LineFallback,
) -> list[tuple[int, int]]:
    """:func:`tally_batch` of one board text a line of ``data``."""
    boards = [fallback(line, index) for index, line in enumerate(_lines(data))]
    return tally_batch(trie, boards, points, bonus)


#: The most faces :func:`score_alternatives` takes at once (as the compiled core).
MAX_ALTERNATIVES = 31


def score_alternatives(
    trie: Trie,
    letters: Sequence[str],
    rows: int,
    cols: int,
    cell: int,
    faces: Sequence[str],
    points: Sequence[int],
) -> list[int]:
    """The board's total (:func:`score_cells`, no challenge cell) with each of ``faces`` at
    ``cell`` in turn; ``letters[cell]`` plays no part in the totals (the compiled core still
    checks that it is a face, as every cell). The compiled core does this in one walk; here it
    is the definition, one board a face."""
    if not 0 <= cell < rows * cols:
        raise ValueError(f"cell {cell} is off the board")
    if not 1 <= len(faces) <= MAX_ALTERNATIVES:
        raise ValueError(f"faces must have 1-{MAX_ALTERNATIVES} entries, not {len(faces)}")
    board = list(letters)
    totals = []
    for face in faces:
        board[cell] = face
        totals.append(score_cells(trie, board, rows, cols, -1, points, 0))
    return totals

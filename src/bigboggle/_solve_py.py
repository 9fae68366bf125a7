"""The pure-Python solver core: a depth-first walk of the board and the trie together.

This module is the reference for the compiled core (``_solve_c.c``) and keeps to the same small
contract, :func:`solve_cells`, :func:`score_cells` and :func:`score_batch`; all validation, rules
and scoring tables live in :mod:`bigboggle.solver`, which passes:

- ``letters``: the lowercase face of each cell, row-major (``""`` for a blank), ``rows``, ``cols``;
- ``challenge``: the challenge cell's index, or -1;
- ``points``: points by letter count (``points[n]`` for an ``n``-letter word, the last entry for
  longer words; 0 means the word does not count, which is how the minimum length arrives);
- ``bonus``: points added to a word whose path can run through the challenge cell.

The trie here is a :class:`bigboggle.trie.Trie` of dicts; the compiled core takes its own packed
trie, which is why ``words`` (the dictionary's sorted list) is passed too.

Speed notes (CPython): each cell's non-blank neighbours are precomputed per board, a used cell is
marked by blanking its face (so one dict lookup both tests "unused" and steps the trie), a leaf
stops the walk without a call, and the score-only walk builds no paths.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .trie import WORD_KEY, Trie, TrieNode

Cells = Sequence[str]
#: A board for :func:`score_batch`: (letters, rows, cols, challenge).
BoardCells = tuple[Cells, int, int, int]


@functools.cache
def adjacency(rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """For each row-major cell of a ``rows`` x ``cols`` board, its neighbours' indices."""
    return tuple(
        tuple(
            r * cols + c
            for r in range(max(0, row - 1), min(rows, row + 2))
            for c in range(max(0, col - 1), min(cols, col + 2))
            if (r, c) != (row, col)
        )
        for row in range(rows)
        for col in range(cols)
    )


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
    total = sum(_points(points, len(word)) for word in found)
    return total + bonus * sum(1 for word in through if _points(points, len(word)))


def score_batch(
    trie: Trie, boards: Sequence[BoardCells], points: Sequence[int], bonus: int
) -> list[int]:
    """:func:`score_cells` for each ``(letters, rows, cols, challenge)`` of a batch."""
    return [
        score_cells(trie, letters, rows, cols, challenge, points, bonus)
        for letters, rows, cols, challenge in boards
    ]


def _neighbours(
    letters: Sequence[str], adjacency: Sequence[Sequence[int]]
) -> list[tuple[int, ...]]:
    """Each cell's non-blank neighbours."""
    return [tuple(n for n in adjacency[cell] if letters[n]) for cell in range(len(letters))]


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
    neighbours = _neighbours(letters, adjacency)
    faces: list[str | None] = list(letters)
    found: dict[str, tuple[tuple[int, ...], bool]] = {}
    path: list[int] = []
    marked = -1 if challenge is None else challenge

    def record(word: str, cell: int) -> None:
        through = cell == marked or (marked >= 0 and faces[marked] is None)
        earlier = found.get(word)
        if earlier is None or (through and not earlier[1]):
            path.append(cell)
            found[word] = (tuple(path), through)
            path.pop()

    def visit(node: TrieNode, cell: int) -> None:
        faces[cell] = None
        path.append(cell)
        for n in neighbours[cell]:
            child = node.get(faces[n])  # type: ignore[arg-type]
            if child is not None:
                if WORD_KEY in child:
                    record(child[WORD_KEY], n)
                    if len(child) > 1:
                        visit(child, n)
                else:
                    visit(child, n)
        path.pop()
        faces[cell] = letters[cell]

    for cell, face in enumerate(letters):
        if face:
            child = root.get(face)
            if child is not None:
                if WORD_KEY in child:
                    record(child[WORD_KEY], cell)
                visit(child, cell)
    return found


def _find_paths(
    root: TrieNode, letters: Sequence[str], adjacency: Sequence[Sequence[int]]
) -> dict[str, tuple[int, ...]]:
    """Every word -> the first path found for it, for boards without a challenge cell."""
    neighbours = _neighbours(letters, adjacency)
    faces: list[str | None] = list(letters)
    found: dict[str, tuple[int, ...]] = {}

    def visit(node: TrieNode, cell: int, path: tuple[int, ...]) -> None:
        faces[cell] = None
        for n in neighbours[cell]:
            child = node.get(faces[n])  # type: ignore[arg-type]
            if child is not None:
                if WORD_KEY in child:
                    word = child[WORD_KEY]
                    if word not in found:
                        found[word] = (*path, n)
                    if len(child) > 1:
                        visit(child, n, (*path, n))
                else:
                    visit(child, n, (*path, n))
        faces[cell] = letters[cell]

    for cell, face in enumerate(letters):
        if face:
            child = root.get(face)
            if child is not None:
                if WORD_KEY in child and child[WORD_KEY] not in found:
                    found[child[WORD_KEY]] = (cell,)
                visit(child, cell, (cell,))
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
    neighbours = _neighbours(letters, adjacency)
    faces: list[str | None] = list(letters)
    found: set[str] = set()
    add = found.add

    def visit(node: TrieNode, cell: int) -> None:
        faces[cell] = None
        for n in neighbours[cell]:
            child = node.get(faces[n])  # type: ignore[arg-type]
            if child is not None:
                if WORD_KEY in child:
                    add(child[WORD_KEY])
                    if len(child) > 1:
                        visit(child, n)
                else:
                    visit(child, n)
        faces[cell] = letters[cell]

    for cell, face in enumerate(letters):
        if face:
            child = root.get(face)
            if child is not None:
                if WORD_KEY in child:
                    add(child[WORD_KEY])
                visit(child, cell)
    return found, set()

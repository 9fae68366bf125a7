"""The pure-Python solver core: a depth-first walk of the board and the trie together.

This module is the reference for the compiled core and keeps to the same small contract; all
validation, rules and scoring live in :mod:`bigboggle.solver`. Cells are row-major indices;
``letters[i]`` is the lowercase face of cell ``i`` (``""`` for a blank) and ``adjacency[i]`` its
neighbours. ``root`` must already hold shortcuts for the board's multi-letter faces
(:meth:`bigboggle.trie.Trie.for_faces`). Words of every length in the trie are reported; the
caller applies the minimum length.

Speed notes (CPython): each cell's non-blank neighbours are precomputed per board, a used cell is
marked by blanking its face (so one dict lookup both tests "unused" and steps the trie), a leaf
stops the walk without a call, and the score-only walk builds no paths.
"""

from __future__ import annotations

from collections.abc import Sequence

from .trie import WORD_KEY, TrieNode


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

"""Golden boards: the published best 4x4 and 5x5 boards, and non-square boards (3x4 against its
transpose 4x3, 2x7 against 7x2), on ENABLE2K with classic scoring, on each solver core.

The non-square boards are checked against a brute force written here, which shares nothing
with the solver: it reads the word list file itself, works out neighbours from the rows and
columns, and looks for each word of the list by a plain recursive search over the cells (no
trie, no prefix table), and it scores by its own copy of the classic table. A board and its
transpose must have the same words and score, and every path transposed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest

from bigboggle import Board, Dictionary, Rules, score, score_many, solve
from conftest import enable2k_path

GOLDEN = [
    # Published best boards, ENABLE2K, minimum length 3, classic scoring.
    ("PERS/LATG/SINE/TERS", 1045, 3625),
    ("LIGDR/MANES/IETIL/DSRAC/SEPES", 2344, 10406),
]


@pytest.mark.parametrize(("text", "count", "total"), GOLDEN)
def test_golden_boards(enable2k: Dictionary, text: str, count: int, total: int) -> None:
    rules = Rules.preset("classic")
    solution = solve(text, enable2k, rules)
    assert (solution.count, solution.total_score) == (count, total)
    assert score(text, enable2k, rules) == total
    assert score_many([text, Board(text)], enable2k, rules) == [total, total]


# -- non-square boards, against a brute force of their own -------------------------------------

Grid = tuple[tuple[str, ...], ...]
Cell = tuple[int, int]


def grid(text: str) -> Grid:
    """``STRP/EIAE/DNTS`` as faces, row by row (``Qu`` is one face of two letters)."""
    return tuple(
        tuple(face.lower() for face in re.findall("Qu|[A-Z]", row)) for row in text.split("/")
    )


#: Non-square boards as faces row by row (found by the best-board search, so rich in words;
#: one with a Qu cube), the challenge cell, if any, and the words and points on ENABLE2K with
#: classic scoring (a word through the challenge cube earns the bonus, 5).
NON_SQUARE: dict[str, tuple[Grid, Cell | None, int, int]] = {
    "3x4": (grid("STRP/EIAE/DNTS"), None, 528, 1475),
    "3x4 challenge": (grid("STRP/EIAE/DNTS"), (1, 2), 528, 3260),
    "2x7": (grid("SERATER/DPLINGS"), None, 369, 1137),
    "2x7 qu": (grid("SQuAREST/TLINGED"), None, 189, 388),
}

#: Classic scoring, written out again: 3-4 letters 1, 5: 2, 6: 3, 7: 5, 8 or more: 11.
CLASSIC_POINTS = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5}
CHALLENGE_BONUS = 5


def transposed(grid: Grid) -> Grid:
    return tuple(zip(*grid, strict=True))


def neighbours(rows: int, cols: int) -> dict[Cell, list[Cell]]:
    """Each cell's neighbours (sides and corners), from the board's size alone."""
    return {
        (r, c): [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < rows and 0 <= c + dc < cols
        ]
        for r in range(rows)
        for c in range(cols)
    }


@cache
def word_list() -> tuple[str, ...]:
    """ENABLE2K as the file has it: one lower-case word a line."""
    path: Path = enable2k_path()
    return tuple(line.strip() for line in path.read_text(encoding="ascii").splitlines() if line)


def paths_of(word: str, grid: Grid, around: dict[Cell, list[Cell]]) -> Iterator[tuple[Cell, ...]]:
    """Every path that spells ``word``: a plain recursive search, cube by cube."""

    def extend(path: tuple[Cell, ...], done: int) -> Iterator[tuple[Cell, ...]]:
        if done == len(word):
            yield path
            return
        for r, c in around[path[-1]]:
            face = grid[r][c]
            if (r, c) not in path and word.startswith(face, done):
                yield from extend((*path, (r, c)), done + len(face))

    for r, row in enumerate(grid):
        for c, face in enumerate(row):
            if word.startswith(face):
                yield from extend(((r, c),), len(face))


@cache
def brute_force(grid: Grid) -> dict[str, frozenset[tuple[Cell, ...]]]:
    """Every word of the list (3+ letters) on the board, with every path that spells it."""
    around = neighbours(len(grid), len(grid[0]))
    letters = {letter for row in grid for face in row for letter in face}
    found = {}
    for word in word_list():
        if len(word) >= 3 and set(word) <= letters:
            paths = frozenset(paths_of(word, grid, around))
            if paths:
                found[word] = paths
    return found


def brute_force_total(grid: Grid, challenge: Cell | None) -> int:
    return sum(
        CLASSIC_POINTS.get(len(word), 11)
        + (CHALLENGE_BONUS if any(challenge in path for path in paths) else 0)
        for word, paths in brute_force(grid).items()
    )


def board_of(grid: Grid, challenge: Cell | None) -> Board:
    return Board.from_faces([list(row) for row in grid], challenge=challenge)


def flip(path: tuple[Cell, ...]) -> tuple[Cell, ...]:
    return tuple((c, r) for r, c in path)


@pytest.mark.parametrize("name", sorted(NON_SQUARE))
def test_a_non_square_board_and_its_transpose_agree_with_brute_force(
    enable2k: Dictionary, name: str
) -> None:
    grid, challenge, count, total = NON_SQUARE[name]
    rules = Rules.preset("classic")
    flipped_challenge = None if challenge is None else (challenge[1], challenge[0])
    expected = brute_force(grid)
    flipped = brute_force(transposed(grid))
    # The brute force itself: the transpose's paths are the board's, transposed.
    assert {word: {flip(p) for p in paths} for word, paths in expected.items()} == flipped
    assert (len(expected), brute_force_total(grid, challenge)) == (count, total)
    assert brute_force_total(transposed(grid), flipped_challenge) == total
    if any("qu" in row for row in grid):  # the two-letter cube is in play
        assert any("qu" in word for word in expected)

    board = board_of(grid, challenge)
    across = board_of(transposed(grid), flipped_challenge)
    assert (board.rows, board.cols) == (len(grid), len(grid[0]))
    assert (across.rows, across.cols) == (board.cols, board.rows)
    solution, solution_across = solve(board, enable2k, rules), solve(across, enable2k, rules)
    for found_on, paths_on, other, solved in (
        (board, expected, across, solution),
        (across, flipped, board, solution_across),
    ):
        assert {found.word for found in solved} == set(paths_on)
        assert (solved.count, solved.total_score) == (count, total)
        assert score(found_on, enable2k, rules) == total
        for found in solved:
            path = tuple(found.path)
            assert path in paths_on[found.word], found.word
            assert other.is_valid_path(flip(path)) and other.spell(flip(path)) == found.word
            through = any(found_on.challenge in p for p in paths_on[found.word])
            assert found.bonus == (CHALLENGE_BONUS if through else 0), found.word
            if through:
                assert found_on.challenge in path  # the bonus path is the one returned
            points = CLASSIC_POINTS.get(len(found.word), 11) + found.bonus
            assert found.score == points, found.word

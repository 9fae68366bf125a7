"""The compiled core and the pure-Python reference agree, board for board."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bigboggle import (
    DICE_SETS,
    Board,
    Dictionary,
    Rules,
    Solution,
    implementation,
    score,
    score_lines,
    score_many,
    shake,
    solve,
    tally_many,
)
from core_support import core

pytestmark = [
    pytest.mark.compares_cores,
    pytest.mark.skipif(
        not implementation.compiled_available(), reason="the compiled core is not built here"
    ),
]


def both(board: Board, words: Dictionary, rules: Rules) -> tuple[Solution, Solution]:
    with core("c"):
        compiled = solve(board, words, rules)
    with core("python"):
        reference = solve(board, words, rules)
    return compiled, reference


def check_agree(board: Board, compiled: Solution, reference: Solution) -> None:
    # The same words, scores and bonuses, and the same path for each word: both walks try a
    # cell's neighbours in ascending order and keep a word's first path (the first through
    # the challenge cell once one is), so a solve reads the same on either core.
    assert [(w.word, w.score, w.bonus, w.path) for w in compiled] == [
        (w.word, w.score, w.bonus, w.path) for w in reference
    ]
    for found in compiled:
        assert board.is_valid_path(found.path), found
        assert board.spell(found.path) == found.word
        if found.bonus:
            assert board.challenge in found.path


@pytest.mark.parametrize("dice", sorted(DICE_SETS))
def test_agree_on_real_dice_with_the_standard_dictionary(standard: Dictionary, dice: str) -> None:
    rules = Rules.preset("big", min_length=3, scoring="superbig" if dice == "superbig" else "big")
    boards = [shake(dice, seed, challenge=seed % 3 == 0).board for seed in range(400)]
    for board in boards:
        check_agree(board, *both(board, standard, rules))
    with core("c"):
        compiled = score_many(boards, standard, rules)
        assert compiled == score_many(boards, standard, rules, threads=2)
    with core("python"):
        assert score_many(boards, standard, rules) == compiled


def test_agree_on_big_boards_with_enable2k(enable2k: Dictionary) -> None:
    rules = Rules.preset("classic")
    boards = [shake("big", seed).board for seed in range(1000)]
    with core("c"):
        compiled = score_many(boards, enable2k, rules)
    with core("python"):
        assert score_many(boards, enable2k, rules) == compiled
    for board in boards[:200]:
        check_agree(board, *both(board, enable2k, rules))


FACES = ["A", "E", "S", "T", "R", "N", "Qu", "Th", "In", "", "O"]


@st.composite
def boards(draw: st.DrawFn) -> Board:
    rows = draw(st.integers(2, 12))
    cols = draw(st.integers(2, 12))
    faces = [[draw(st.sampled_from(FACES)) for _ in range(cols)] for _ in range(rows)]
    # The challenge cube always shows a letter: it never lands on a blank cell.
    lettered = [(r, c) for r in range(rows) for c in range(cols) if faces[r][c]]
    challenge = draw(st.sampled_from(lettered)) if lettered and draw(st.booleans()) else None
    return Board.from_faces(faces, challenge=challenge)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=boards(),
    words=st.lists(
        st.text(alphabet="aestrnqhuoi", min_size=3, max_size=10), min_size=1, max_size=200
    ),
    minimum=st.integers(3, 6),
    table=st.sampled_from(["classic", "big", "superbig", "superbig-alt"]),
)
def test_agree_on_random_boards_of_every_size(
    board: Board, words: list[str], minimum: int, table: str
) -> None:
    dictionary = Dictionary.from_words(words)
    rules = Rules.preset("big", min_length=minimum, scoring=table, challenge_bonus=minimum)
    compiled, reference = both(board, dictionary, rules)
    check_agree(board, compiled, reference)
    # The text path: the compiled core parses the texts itself, the reference through Board.
    # (render() of a large board of wide faces runs past the length limit: then it is left out.)
    texts = [str(board), str(board).lower(), board.render()][
        : 3 if len(board.render()) <= 800 else 2
    ]
    expected = [compiled.total_score] * len(texts)
    for name in ("c", "python"):
        with core(name):
            assert score(board, dictionary, rules) == compiled.total_score
            assert score_many(texts, dictionary, rules) == expected
            assert tally_many([board, *texts], dictionary, rules)[1:] == [
                (compiled.total_score, compiled.count)
            ] * len(texts)
            assert list(score_lines(str(board).encode(), dictionary, rules)) == expected[:1]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    batch=st.lists(boards(), min_size=1, max_size=6),
    words=st.lists(
        st.text(alphabet="aestrnqhuoi", min_size=3, max_size=8), min_size=1, max_size=200
    ),
    threads=st.integers(1, 3),
)
def test_batches_of_mixed_shapes_agree(batch: list[Board], words: list[str], threads: int) -> None:
    # One compiled walk scores a whole batch and keeps the neighbour table of the last shape
    # it saw: boards of several shapes (over and under 64 cells, with blanks) in one batch.
    dictionary = Dictionary.from_words(words)
    rules = Rules.preset("big", min_length=3, scoring="big", challenge_bonus=2)
    with core("python"):
        expected = tally_many(batch, dictionary, rules)
    with core("c"):
        assert tally_many(batch, dictionary, rules, threads=threads) == expected
        assert score_many(batch, dictionary, rules, threads=threads) == [t for t, _ in expected]


def test_both_builds_of_the_compiled_walk_agree(enable2k: Dictionary) -> None:
    from bigboggle import _solve_c

    default = _solve_c.walk_variant()
    rules = Rules.preset("classic", challenge_bonus=5)
    boards = [shake("superbig", seed, challenge=True).board for seed in range(300)]
    boards += [shake("big", seed).board for seed in range(300)]
    with core("c"):
        try:
            _solve_c.walk_variant("portable")
            portable = score_many(boards, enable2k, rules)
            portable_words = [solve(board, enable2k, rules).words for board in boards[:50]]
        finally:
            _solve_c.walk_variant(default)
        assert score_many(boards, enable2k, rules) == portable
        assert [solve(board, enable2k, rules).words for board in boards[:50]] == portable_words
    with pytest.raises(ValueError, match="not available"):
        _solve_c.walk_variant("quantum")


def test_environment_forces_the_reference() -> None:
    def version(env: dict[str, str]) -> str:
        done = subprocess.run(
            [sys.executable, "-m", "bigboggle", "--version"],
            capture_output=True,
            text=True,
            env={**os.environ, **env},
            check=True,
        )
        return done.stdout

    assert "(solver: python)" in version({"BIGBOGGLE_PURE_PYTHON": "1"})
    assert "(solver: c)" in version({"BIGBOGGLE_PURE_PYTHON": ""})


def test_the_compiled_core_refuses_bad_arguments_without_crashing() -> None:
    from bigboggle import _solve_c
    from bigboggle.solver import FoundWord

    trie = _solve_c.PackedTrie.build(["cat", "cats", "quit"])
    words = ["cat", "cats", "quit"]
    good = (("c", "a", "t", "s"), 2, 2, -1, (0, 0, 0, 1, 1, 2), 0)
    assert _solve_c.score_cells(trie, *good) == 2  # cat and cats, a point each
    bad_calls = [
        lambda: _solve_c.score_cells(trie, ("c", "a", "t"), 2, 2, -1, (0, 1), 0),  # 3 cells for 2x2
        lambda: _solve_c.score_cells(trie, ("c", "A", "t", "s"), 2, 2, -1, (0, 1), 0),
        lambda: _solve_c.score_cells(trie, ("c", "abcd", "t", "s"), 2, 2, -1, (0, 1), 0),
        lambda: _solve_c.score_cells(trie, ("c", "a", "t", "s"), 13, 1, -1, (0, 1), 0),
        lambda: _solve_c.score_cells(trie, ("c", "a", "t", "s"), 2, 2, 4, (0, 1), 0),
        lambda: _solve_c.score_cells(trie, ("c", "a", "t", "s"), 2, 2, -1, (), 0),
        lambda: _solve_c.score_cells(trie, ("c", "a", "t", "s"), 2, 2, -1, (0, -1), 0),
        lambda: _solve_c.score_cells(trie, ("c", "a", "t", "s"), 2, 2, -1, (0, 1), -5),
        lambda: _solve_c.score_batch(trie, [("cats", 2, 2)], (0, 1), 0),
        lambda: _solve_c.score_batch(trie, ["not a board"], (0, 1), 0),
        lambda: _solve_c.solve_cells(trie, words[:2], *good[:5], 0, FoundWord),
        lambda: _solve_c.solve_cells(trie, words, *good[:5], 0, dict),
        lambda: _solve_c.PackedTrie.build(["ok", "Not"]),
        lambda: _solve_c.PackedTrie.build(["same", "same"]),
        lambda: _solve_c.PackedTrie.build([""]),
        lambda: _solve_c.PackedTrie.from_bytes(b"\x00" * 7, 1, 0),
    ]
    for call in bad_calls:
        with pytest.raises((ValueError, TypeError)):
            call()
    found = _solve_c.solve_cells(trie, words, *good[:5], 0, FoundWord)
    assert [(f.word, f.path, f.score) for f in found] == [  # equal scores: alphabetical
        ("cat", ((0, 0), (0, 1), (1, 0)), 1),
        ("cats", ((0, 0), (0, 1), (1, 0), (1, 1)), 1),
    ]


def test_compiled_results_are_true_found_words(enable2k: Dictionary) -> None:
    from bigboggle.solver import FoundWord

    with core("c"):
        solution = solve("PERS/LATG/SINE/TERS", enable2k, Rules.preset("classic"))
    first = solution.words[0]
    twin = FoundWord(*first)
    assert type(first) is FoundWord
    assert first == twin and hash(first) == hash(twin)
    assert twin in set(solution.words)


def test_compiled_results_share_positions_and_keep_cycle_free_entries_off_the_collector(
    enable2k: Dictionary,
) -> None:
    """Every path holds the same (row, col) tuples, across solves; an entry that cannot hold a
    reference cycle (a FoundWord, its path) is left to reference counting, but one of a tuple
    type with a __dict__ (which could) stays with the cycle collector."""
    import gc

    from bigboggle import _solve_c

    with core("c"):
        # The first solve of a dictionary spells its words in Python (see
        # Dictionary._list_for_solving), and which test makes it depends on the order the tests
        # run in: make it here, so the two below take the compiled core's own entries.
        solve("AAAA/AAAA/AAAA/AAAA", enable2k, Rules.preset("classic"))
        first = solve("PERS/LATG/SINE/TERS", enable2k, Rules.preset("classic"))
        second = solve("SERS/LATG/PINE/TERS", enable2k, Rules.preset("classic"))
    steps = [step for solution in (first, second) for found in solution for step in found.path]
    assert len({id(step) for step in steps}) == len(set(steps)) == 16  # one tuple per cell
    assert not gc.is_tracked(first.words[0]) and not gc.is_tracked(first.words[0].path)

    class Loose(tuple):  # type: ignore[type-arg]
        """A tuple with a __dict__: an attribute could point back at it."""

    trie = _solve_c.PackedTrie.build(["cat"])
    found = _solve_c.solve_cells(
        trie, ["cat"], ("c", "a", "t", "x"), 2, 2, -1, (0, 0, 0, 1), 0, Loose
    )
    assert found == [("cat", ((0, 0), (0, 1), (1, 0)), 1, 0)] and gc.is_tracked(found[0])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    board=boards(),
    words=st.lists(
        st.text(alphabet="aestrnqhuoi", min_size=3, max_size=9), min_size=1, max_size=200
    ),
    data=st.data(),
)
def test_alternatives_at_a_cell_are_the_totals_of_each_board(
    board: Board, words: list[str], data: st.DataObject
) -> None:
    # score_alternatives values several faces at one cell in one walk (the search's climb):
    # each must be the total of the board with that face there, on both cores and both builds
    # of the compiled walk, whatever the shape (over 64 cells too), blanks and wide faces.
    from bigboggle import _solve_c, _solve_py

    dictionary = Dictionary.from_words(words)
    points = (0, 0, 0, 1, 1, 2, 3, 5, 11)
    letters = [face.lower() for face in board.cell_faces]
    cell = data.draw(st.integers(0, len(letters) - 1))
    faces = data.draw(st.lists(st.sampled_from(FACES).map(str.lower), min_size=1, max_size=31))
    trie = implementation.trie_for(dictionary)
    expected = []
    for face in faces:
        changed = [*letters[:cell], face, *letters[cell + 1 :]]
        expected.append(_solve_c.score_cells(trie, changed, *board.size, -1, points, 0))
    reference = Dictionary.from_words(words)
    with core("python"):
        python_trie = implementation.trie_for(reference)
    assert (
        _solve_py.score_alternatives(python_trie, letters, *board.size, cell, faces, points)
        == expected
    )
    default = _solve_c.walk_variant()
    try:
        for variant in ("portable", default):
            _solve_c.walk_variant(variant)
            got = _solve_c.score_alternatives(trie, letters, *board.size, cell, faces, points)
            assert got == expected, variant
    finally:
        _solve_c.walk_variant(default)


def test_alternatives_refuse_bad_arguments_on_both_cores() -> None:
    from bigboggle import _solve_c, _solve_py

    with core("python"):
        python_trie = implementation.trie_for(Dictionary.from_words(["cat", "cats"]))
    for module, trie in (
        (_solve_c, _solve_c.PackedTrie.build(["cat", "cats"])),
        (_solve_py, python_trie),
    ):
        good = (["c", "a", "t", "s"], 2, 2)
        assert module.score_alternatives(trie, *good, 3, ["s", "x", ""], (0, 0, 0, 1, 1)) == [
            2,
            1,
            1,
        ]
        for cell, faces, message in (
            (4, ["a"], "cell 4 is off the board"),
            (-1, ["a"], "cell -1 is off the board"),
            (0, [], "1-31 entries, not 0"),
            (0, ["a"] * 32, "1-31 entries, not 32"),
        ):
            with pytest.raises(ValueError, match=message):
                module.score_alternatives(trie, *good, cell, faces, (0, 1))
    for faces in (["A"], ["abcd"], [7]):
        with pytest.raises((ValueError, TypeError)):
            _solve_c.score_alternatives(
                _solve_c.PackedTrie.build(["cat"]), ["c", "a", "t", "s"], 2, 2, 0, faces, (0, 1)
            )

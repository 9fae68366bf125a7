"""The solver: exhaustive cross-checks and the public API (golden boards: test_golden_boards.py)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bigboggle import (
    Board,
    BoardError,
    Dictionary,
    Rules,
    RulesError,
    score,
    score_many,
    shake,
    solve,
)


def walk_paths(
    board: Board, prefixes: set[str] | None = None
) -> Iterator[tuple[str, tuple[int, ...]]]:
    """Every simple path over non-blank cells with the letters it spells (brute force).

    With ``prefixes``, a path is only extended while its letters start some word.
    """
    letters = board.cell_letters
    adjacency = board.adjacency

    def extend(path: tuple[int, ...], text: str) -> Iterator[tuple[str, tuple[int, ...]]]:
        if prefixes is not None and text not in prefixes:
            return
        yield text, path
        if prefixes is None and len(path) >= 7:
            return
        for nxt in adjacency[path[-1]]:
            if letters[nxt] and nxt not in path:
                yield from extend((*path, nxt), text + letters[nxt])

    for cell, face in enumerate(letters):
        if face:
            yield from extend((cell,), face)


def brute_force(board: Board, words: set[str]) -> tuple[set[str], set[str]]:
    """The words found by enumerating paths, and those with a path through the challenge cell."""
    prefixes = {word[:end] for word in words for end in range(1, len(word) + 1)}
    found: set[str] = set()
    through: set[str] = set()
    challenge = board.challenge_index
    for text, path in walk_paths(board, prefixes):
        if text in words:
            found.add(text)
            if challenge in path:
                through.add(text)
    return found, through


FACES = ["A", "E", "S", "T", "R", "U", "Qu", "Th", "", "In"]


@st.composite
def small_boards(draw: st.DrawFn) -> Board:
    rows = draw(st.integers(2, 3))
    cols = draw(st.integers(2, 4))
    faces = [[draw(st.sampled_from(FACES)) for _ in range(cols)] for _ in range(rows)]
    # The challenge cube always shows a letter: it never lands on a blank cell.
    lettered = [(r, c) for r in range(rows) for c in range(cols) if faces[r][c]]
    challenge = draw(st.sampled_from(lettered)) if lettered and draw(st.booleans()) else None
    return Board.from_faces(faces, challenge=challenge)


WORDS = st.lists(st.text(alphabet="aestrqhuin", min_size=3, max_size=8), min_size=1, max_size=60)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=small_boards(), extra=WORDS, data=st.data())
def test_solver_finds_exactly_what_brute_force_finds(
    board: Board, extra: list[str], data: st.DataObject
) -> None:
    # Mix random strings with strings that really lie on the board, so both hits and misses occur.
    spelled = sorted({text for text, _ in walk_paths(board) if len(text) >= 3})
    picked = data.draw(st.lists(st.sampled_from(spelled), max_size=30)) if spelled else []
    words = Dictionary.from_words([*extra, *picked])
    rules = Rules.preset("classic")
    solution = solve(board, words, rules)
    expected, through = brute_force(board, set(words))
    assert {found.word for found in solution} == {w for w in expected if len(w) >= 3}
    for found in solution:
        assert board.is_valid_path(found.path)
        assert board.spell(found.path) == found.word
        if found.word in through:
            assert board.challenge in found.path  # the bonus path is the one returned
            assert found.bonus == rules.challenge_bonus
        else:
            assert found.bonus == 0
        assert found.score == rules.word_points(len(found.word)) + found.bonus
    assert score(board, words, rules) == solution.total_score


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), name=st.sampled_from(["classic", "big", "big-1979", "superbig"]))
def test_paths_spell_every_word_on_real_shakes(standard: Dictionary, seed: int, name: str) -> None:
    rules = Rules.preset(name, challenge=seed % 2 == 0)
    board = shake(rules.dice, seed, challenge=rules.challenge).board
    solution = solve(board, standard, rules)
    for found in solution:
        assert found.word in standard
        assert len(found.word) >= rules.min_length
        assert board.is_valid_path(found.path)
        assert board.spell(found.path) == found.word
    assert score(board, standard, rules) == solution.total_score


def test_qu_counts_two_letters_and_a_second_u_comes_from_another_cell() -> None:
    board = Board("STAT/XXEU/XXSQ/XXXE")
    words = Dictionary.from_words(["statuesque", "quest", "qest", "sque"])
    solution = solve(board, words, Rules.preset("big"))
    statuesque = solution.get("statuesque")
    assert statuesque is not None
    assert statuesque.score == 11  # ten letters, nine cells
    assert board.spell(statuesque.path) == "statuesque"
    assert "qest" not in solution  # the Qu face always brings its u
    assert solution.get("sque") is not None and solution.get("sque").score == 1  # type: ignore[union-attr]


def test_two_letter_faces_and_blanks() -> None:
    board = Board("[Th]E./NX.")
    words = Dictionary.from_words(["then", "the", "ten", "hen", "thex"])
    found = {w.word for w in solve(board, words, Rules.preset("classic"))}
    assert found == {"then", "the", "thex"}


def test_rectangular_and_large_boards() -> None:
    words = Dictionary.from_words(["abcdefghijkl", "lkj", "ace"])
    wide = solve("ABCDEFGHIJKL/XXXXXXXXXXXX", words, Rules.preset("classic"))
    assert {w.word for w in wide} == {"abcdefghijkl", "lkj"}
    twelve = Board("/".join(["ABCDEFGHIJKL"] * 12))
    assert "abcdefghijkl" in solve(twelve, words, Rules.preset("classic"))


def test_min_length_and_sorting(enable2k: Dictionary) -> None:
    solution = solve("PERS/LATG/SINE/TERS", enable2k, Rules.preset("classic"), min_length=6)
    assert all(len(found.word) >= 6 for found in solution)
    keys = [(-found.score, found.word) for found in solution]
    assert keys == sorted(keys)
    assert solution.min_length == 6
    assert sum(solution.counts_by_length().values()) == solution.count


def test_same_word_on_several_paths_counts_once() -> None:
    board = Board("SEES/EEEE")
    paths = {path for text, path in walk_paths(board) if text == "sees"}
    assert len(paths) > 1
    solution = solve(board, Dictionary.from_words(["sees"]), Rules.preset("classic"))
    assert [found.word for found in solution] == ["sees"]
    assert solution.total_score == 1


def test_solution_json_contract(standard: Dictionary) -> None:
    data = solve("LINES/TQARD/HEMOP/ABCKI/PSTEW", standard).to_json()
    assert data["board"] == "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
    assert (data["rules"], data["dictionary"], data["min_length"]) == ("big", "standard", 4)
    assert data["count"] == len(data["words"])
    assert data["total_score"] == sum(word["score"] for word in data["words"])
    first = data["words"][0]
    assert set(first) >= {"word", "score", "path"}
    assert all(isinstance(step, list) and len(step) == 2 for step in first["path"])


def test_solution_json_bytes_are_what_encoding_to_json_gives(standard: Dictionary) -> None:
    """json_bytes (what /api/solve and ``solve --json`` send) is byte for byte the encoding of
    to_json() plus the extra keys, by the standard library (``solve --json``'s indent of two)
    and by orjson (the web's compact form): on a shake, a challenge board (bonuses), a board
    holding an offensive word, a board without words, and two-letter faces and blanks."""
    from bigboggle.family import OFFENSIVE

    rude = next(w for w in sorted(OFFENSIVE) if len(w) == 4 and w in standard and "q" not in w)
    boards = [
        shake("big", 3).board,
        shake("big", 5, challenge=True).board,
        Board.parse(f"{rude[:2]}/{rude[2:]}"),
        Board.parse("XX/XX"),
        Board.parse("[Th]E./SIN/ERS"),
    ]
    extras: list[dict[str, object]] = [{}, {"seed": 2**63 - 1, "standing": {"rank": 0.8842}}]
    for board in boards:
        solution = solve(board, standard, Rules.preset("big", min_length=3))
        for extra in extras:
            data = {**solution.to_json(), **extra}
            printed = json.dumps(data, indent=2, ensure_ascii=False).encode()
            assert solution.json_bytes(extra, indent=True) == printed
            assert solution.json_bytes(extra) == orjson.dumps(data)
            assert solution.json_bytes(extra) == json.dumps(data, separators=(",", ":")).encode()
    assert any(word.get("bonus") for word in solve(boards[1], standard).to_json()["words"])
    assert any(word.get("offensive") for word in solve(boards[2], standard).to_json()["words"])


def test_score_many_threads_agree(standard: Dictionary) -> None:
    boards = [shake("big", seed).board for seed in range(40)]
    rules = Rules.preset("big")
    one = score_many(boards, standard, rules)
    assert score_many(boards, standard, rules, threads=2) == one
    assert one == [solve(board, standard, rules).total_score for board in boards]


def test_threads_take_chunks_on_demand_and_keep_the_order() -> None:
    from concurrent.futures import ThreadPoolExecutor

    from bigboggle.solver import _Part, _split

    seen: list[int] = []

    def run(chunk: list[int]) -> _Part:
        seen.append(len(chunk))
        return _Part([2 * x for x in chunk], None)

    def stops_at_3000(chunk: list[int]) -> _Part:
        good = [x for x in chunk if x < 3000]
        error = BoardError("3000") if len(good) < len(chunk) else None
        return _Part([2 * x for x in good], error)

    with ThreadPoolExecutor(max_workers=3) as pool:
        assert _split(run, list(range(5000)), 3, pool) == _Part([2 * x for x in range(5000)], None)
        assert len(seen) > 3 and max(seen) <= 256  # many small chunks, not one slice a thread
        assert _split(run, [7], 3, pool) == _Part([14], None)
        # A chunk that stops at an error: every result before it, in order, then that error.
        stopped = _split(stops_at_3000, list(range(5000)), 3, pool)
        assert stopped.results == [2 * x for x in range(3000)]
        assert str(stopped.error) == "3000"
        # A chunk that raises (not a board's error): the others stop taking chunks, and the
        # error comes out of the call.
        calls: list[int] = []
        first_ran = threading.Event()

        def raises_at_first(chunk: list[int]) -> _Part:
            calls.append(chunk[0])
            if chunk[0] == 0:
                first_ran.set()
                raise MemoryError("no room")
            first_ran.wait(10)  # the other chunks never outrun the first one
            return _Part(chunk, None)

        with pytest.raises(MemoryError, match="no room"):
            _split(raises_at_first, list(range(50_000)), 3, pool)
        assert len(calls) < 50_000 // 256  # not every chunk of the batch was run


def test_bad_input() -> None:
    words = Dictionary.from_words(["abc"])
    with pytest.raises(BoardError):
        solve("AB/C", words)
    with pytest.raises(BoardError):
        score_many(["AB/CD", "nonsense!"], words)
    with pytest.raises(RulesError, match="min_length=0"):
        solve("AB/CD", words, min_length=0)
    with pytest.raises(RulesError, match="threads"):
        score_many(["AB/CD"], words, threads=0)

"""Board texts straight to the solver: the compiled core's own text parser, the batch forms that
take texts and any iterable, and the line forms, all agreeing with ``Board.parse`` exactly.

The compiled parser accepts a text only when ``Board.parse`` gives the same cells, and leaves
every other text to ``Board.parse``; so every path gives ``Board.parse``'s own error.
"""

from __future__ import annotations

import io
import itertools
import random
import tracemalloc
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bigboggle import (
    Board,
    BoardError,
    Dictionary,
    Rules,
    RulesError,
    implementation,
    score,
    score_lines,
    score_many,
    score_stream,
    tally_lines,
    tally_many,
    tally_stream,
)
from bigboggle.limits import MAX_BOARD_LINE_BYTES, MAX_BOARD_TEXT, MAX_SOLVER_THREADS
from core_support import core

pytestmark = [pytest.mark.compares_cores]

CORES = sorted(implementation.CORES)
compiled_only = pytest.mark.skipif(
    not implementation.compiled_available(), reason="the compiled core is not built here"
)
WORDS = Dictionary.from_words(
    ["ate", "tea", "eat", "seat", "quote", "quoin", "thin", "this", "sent", "nest", "rent", "unto"]
)
RULES = Rules.preset("big", min_length=3, challenge_bonus=2)
FACES = ["A", "E", "S", "T", "R", "N", "O", "U", "I", "Qu", "Th", "In", "Quo", ""]


def outcome(action: Callable[[], Any]) -> tuple[str, Any]:
    """What an action gives: its value, or its error's type and message."""
    try:
        return ("value", action())
    except Exception as error:  # the type and message are what is compared
        return (type(error).__name__, str(error))


def compiled_parse(text: str) -> tuple[tuple[str, ...], int, int, int] | None:
    """The compiled parser's cells of ``text`` (None: left to Board.parse, or no such core)."""
    if not implementation.compiled_available():
        return None
    from bigboggle import _solve_c

    return _solve_c.parse_text(text)


def cells(board: Board) -> tuple[tuple[str, ...], int, int, int]:
    index = board.challenge_index
    return (board.cell_letters, board.rows, board.cols, -1 if index is None else index)


# -- texts: boards written in every accepted way, mutations of them, and anything ------------


def _spell(rng: random.Random, face: str, next_face: str, spaced: bool) -> str:
    """One cell, spelled in one of the ways Board.parse reads it."""
    if face == "":
        return "."
    if face == "Qu":
        choices = ["Qu", "qu", "QU", "[Qu]", "[q]", "[QU]"]
        if not next_face.startswith("U"):  # a lone Q takes a u after it into its face
            choices += ["Q", "q"]
        if spaced:
            choices.append("Q u" if not next_face.startswith("U") else "[ Q u ]")
        return rng.choice(choices)
    if len(face) == 1:
        return rng.choice([face, face.lower()])
    choices = [f"[{face}]", f"[{face.lower()}]", f"[{face.upper()}]"]
    if spaced:
        choices.append("[ " + " ".join(face) + " ]")
    return rng.choice(choices)


STYLES = ["canonical", "render", "lower", "slash", "lines", "spaces"]
SEPARATORS = {
    "slash": ["/", " / ", "/ \t", "\t/"],
    "lines": ["\n", "\r\n", "\n\n", "\n \t\n"],
    "spaces": [" ", "\t", "  ", "\r"],
}


def write_board(rng: random.Random, rows: int, cols: int, style: str) -> tuple[Board, str]:
    """A random board of every face kind, maybe with a challenge cell, and a text of it."""
    faces = [[rng.choice(FACES) for _ in range(cols)] for _ in range(rows)]
    lettered = [(r, c) for r in range(rows) for c in range(cols) if faces[r][c]]
    challenge = rng.choice(lettered) if lettered and rng.random() < 0.5 else None
    board = Board.from_faces(faces, challenge=challenge)
    if style in ("canonical", "render", "lower"):
        text = {"canonical": str(board), "render": board.render(), "lower": str(board).lower()}
        return board, _bounded(text[style], board)
    spaced = style != "spaces"
    spaces = ["", " ", "\t", "  "] if spaced else [""]
    written = []
    for r in range(rows):
        row = []
        for c in range(cols):
            next_face = faces[r][c + 1] if c + 1 < cols else ""
            cell = _spell(rng, faces[r][c], next_face, spaced) + rng.choice(spaces)
            if challenge == (r, c):
                cell += "*" + rng.choice(spaces)
            row.append(cell)
        written.append("".join(row))
    around = ["", " ", "\n", "\t\r\n "]
    text = rng.choice(SEPARATORS[style]).join(written)
    return board, _bounded(rng.choice(around) + text + rng.choice(around), board)


def _bounded(text: str, board: Board) -> str:
    """``text``, or the canonical text where a roomy spelling of a large board runs past the
    length limit (``render()`` of a 12x12 board of three-letter faces does)."""
    return text if len(text) <= MAX_BOARD_TEXT else str(board)


@st.composite
def written_boards(draw: st.DrawFn) -> tuple[Board, str]:
    """:func:`write_board` of a drawn shape and style; the rest comes from a drawn random
    generator (cheap to make, so a property test sees many boards a second)."""
    rows = draw(st.integers(2, 12))
    cols = draw(st.integers(2, 12))
    style = draw(st.sampled_from(STYLES))
    return write_board(draw(st.randoms(use_true_random=False)), rows, cols, style)


NOTATION = [*"aAqQuUtTeEsS.[]*/", " ", "\t", "\n", "\r"]
ODD = ["\v", "\f", "\x1c", "\x1f", "\x85", "\u2028", "\u3000", "\xa0", "é", "ß", "1", "\x00", "-"]


@st.composite
def mutated(draw: st.DrawFn) -> str:
    """A board's text with a few characters inserted, removed or replaced."""
    _, text = draw(written_boards())
    rng = draw(st.randoms(use_true_random=False))
    chars = list(text)
    for _ in range(rng.randint(1, 3)):
        at = rng.randint(0, len(chars))
        op = rng.choice(["insert", "delete", "replace"])
        new = rng.choice(NOTATION + ODD)
        if op == "insert":
            chars.insert(at, new)
        elif at < len(chars):
            chars[at : at + 1] = [] if op == "delete" else [new]
    return "".join(chars)


HUGE = [
    "AB/CD" + " " * (MAX_BOARD_TEXT - 5),  # exactly at the limit: accepted
    "AB/CD" + " " * (MAX_BOARD_TEXT - 4),  # one past it
    "A" * (MAX_BOARD_TEXT + 1),
    "/".join(["ABCDEFGHIJKLM"] * 12),  # a 13th column
    "/".join(["AB"] * 13),  # a 13th row
    "\n".join([" ".join("[Th]" * 12)] * 12),
    "",
    " \n\t ",
]

texts = st.one_of(
    written_boards().map(lambda pair: pair[1]),
    mutated(),
    st.text(alphabet=NOTATION + ODD, max_size=30),
    st.text(max_size=12),
    st.sampled_from(HUGE),
)


def test_written_boards_are_what_they_say() -> None:
    """The generator's texts parse to its boards (so the properties below test real boards)."""

    @settings(max_examples=100, deadline=None)
    @given(written_boards())
    def check(pair: tuple[Board, str]) -> None:
        board, text = pair
        assert Board.parse(text) == board

    check()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=texts)
def test_every_path_gives_board_parse_s_cells_or_its_error(text: str) -> None:
    # The yardstick is board.py's own parser: Board.parse itself takes the compiled parser's
    # cells when it accepts a text, and must give the same board, faces and error.
    expected = outcome(lambda: cells(Board._from_notation(text)))
    own = compiled_parse(text)
    if own is not None:  # accepted by the compiled parser: exactly Board.parse's cells
        assert expected == ("value", own)
    assert outcome(lambda: cells(Board.parse(text))) == expected
    if expected[0] == "value":
        assert Board.parse(text).cell_faces == Board._from_notation(text).cell_faces
    want_score = outcome(lambda: score(text, WORDS, RULES))
    assert (want_score[0] == "value") == (expected[0] == "value")
    want_tally = outcome(lambda: tally_many([Board.parse(text)], WORDS, RULES)[0])
    if expected[0] != "value":
        want_tally = want_score
    line = text.encode()
    for name in CORES:
        with core(name):
            got = outcome(lambda: score_many([text], WORDS, RULES)[0])
            assert got == want_score, name
            assert outcome(lambda: tally_many(iter([text]), WORDS, RULES)[0]) == want_tally
            assert outcome(lambda: next(score_stream([text], WORDS, RULES))) == want_score
            assert outcome(lambda: next(tally_stream([text], WORDS, RULES))) == want_tally
            if "\n" not in text and text and len(line) <= MAX_BOARD_LINE_BYTES:
                assert outcome(lambda: next(score_lines(line, WORDS, RULES))) == want_score
                assert outcome(lambda: next(tally_lines(line, WORDS, RULES))) == want_tally


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pairs=st.lists(written_boards(), min_size=1, max_size=3), data=st.data())
def test_the_compiled_parser_reads_every_common_spelling(
    pairs: list[tuple[Board, str]], data: st.DataObject
) -> None:
    """Not a parser that leaves everything to Board.parse: every text of the common notation is
    its own, and mixed batches of texts and Boards score the same on both cores and as lines."""
    for board, text in pairs:
        if implementation.compiled_available():
            assert compiled_parse(text) == cells(board), text
        parsed = Board.parse(text)
        assert parsed == board and parsed.cell_faces == board.cell_faces, text
    items = [data.draw(st.sampled_from([text, board])) for board, text in pairs]
    expected = [score(board, WORDS, RULES) for board, _ in pairs]
    lines = b"\n".join(str(board).encode() for board, _ in pairs)
    for name in CORES:
        with core(name):
            assert score_many(items, WORDS, RULES) == expected
            assert score_many(items, WORDS, RULES, threads=2) == expected
            assert [t for t, _ in tally_many(items, WORDS, RULES)] == expected
            assert list(score_lines(lines, WORDS, RULES, threads=2)) == expected


# -- batches and streams ------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORES)
def test_a_bad_text_deep_in_a_batch_raises_board_parse_s_error(name: str) -> None:
    good = ["ATE/SET", "[Th]IN/SET"]
    bad = "AB/C"
    with pytest.raises(BoardError) as expected:
        Board.parse(bad)
    before = 5000 if name == "c" else 150  # past the first chunk of boards, in C
    with core(name):
        for call in (score_many, tally_many, score_stream, tally_stream):
            with pytest.raises(BoardError) as caught:
                list(call(iter(good * before + [bad] + good), WORDS, RULES))  # type: ignore[operator]
            assert str(caught.value) == str(expected.value)
        with pytest.raises(BoardError, match="a board must be text, not int"):
            score_many(["AB/CD", 5], WORDS, RULES)
        with pytest.raises(BoardError, match="a batch is a list of boards"):
            score_many("AB/CD", WORDS, RULES)


#: Texts of more than 144 cells, or 13 rows, each near the 12x12 edge: the compiled parser
#: once bounded only a row's cells and counted the rows when a row ENDED, so 12 full rows and a
#: 13th wrote that row's cells past the end of its board buffer (a crash, or a corrupted
#: neighbour in a batch).
TOO_MANY_ROWS = [
    "/".join(["ABCDEFGHIJKL"] * 13),  # 13 full rows
    "/".join(["ABCDEFGHIJKL"] * 12) + "/A",  # 12 full rows and one cell of a 13th
    "/".join(["ABCDEFGHIJKL"] * 12) + "/[Th]IN*",  # faces and a challenge in the 13th
    "\n".join(["ABCDEFGHIJKL"] * 13),  # rows as lines
    " ".join(["ABCDEFGHIJKL"] * 13),  # rows split by spaces
    "/".join(["ABCDEFGHIJKL"] * 12 + ["ABCDEFGHIJKLM"]),  # a 13th row, too wide as well
]


@pytest.mark.parametrize("text", TOO_MANY_ROWS)
def test_a_thirteenth_row_of_a_full_board_is_board_parse_s_error_on_every_path(text: str) -> None:
    """Declined by the compiled parser (so Board.parse's own error), through parse_text, the
    batch forms (the bad text last of a chunk, where the overflow was past the chunk's
    buffer, and first, where it ran into the next board) and the lines, on both cores."""
    with pytest.raises(BoardError) as expected:
        Board.parse(text)
    assert compiled_parse(text) is None
    full = "/".join(["ABCDEFGHIJKL"] * 12)
    if implementation.compiled_available():  # the 12x12 edge itself is still the parser's
        assert compiled_parse(full) == cells(Board.parse(full))
    good = ["ATE/SET"]
    line = text.encode()
    for name in CORES:
        chunk = 8191 if name == "c" else 3
        with core(name):
            for batch in ([*(good * chunk), text], [text, *good]):
                for call in (score_many, tally_many, score_stream, tally_stream):
                    with pytest.raises(BoardError) as caught:
                        list(call(batch, WORDS, RULES))  # type: ignore[operator]
                    assert str(caught.value) == str(expected.value), (name, call)
            if b"\n" not in line:
                for lines in (line, b"ATE/SET\n" * chunk + line + b"\nATE/SET\n"):
                    for call in (score_lines, tally_lines):
                        with pytest.raises(BoardError) as caught:
                            list(call(lines, WORDS, RULES, threads=2))  # type: ignore[operator]
                        assert str(caught.value) == str(expected.value), (name, call)
            assert score_many([full], WORDS, RULES) == [score(full, WORDS, RULES)]


class _Restated(str):
    """A str subclass whose strip() gives another board: Board.parse reads it through that."""

    def strip(self, chars: str | None = None) -> str:
        return "ATE/SET"


def test_a_str_subclass_is_read_as_board_parse_reads_it() -> None:
    """The compiled parser reads only exact str (it reads the characters, not the methods a
    subclass may override), so every path gives what Board.parse makes of the subclass."""
    text = _Restated("AB/CD")
    assert compiled_parse(text) is None
    want = score(Board.parse(text), WORDS, RULES)
    assert want == score("ATE/SET", WORDS, RULES) > 0
    for name in CORES:
        with core(name):
            assert score_many([text], WORDS, RULES) == [want], name
            assert list(score_stream(iter([text, "AB/CD"]), WORDS, RULES)) == [want, 0], name


def _until_error(stream: Iterator[Any]) -> tuple[list[Any], BaseException]:
    """What a stream gives before it raises, and its error."""
    got: list[Any] = []
    with pytest.raises(BoardError) as caught:
        for value in stream:
            got.append(value)
    return got, caught.value


@pytest.mark.parametrize("name", CORES)
@pytest.mark.parametrize("threads", [1, 2])
def test_a_stream_gives_every_good_board_s_result_before_a_bad_one_s_error(
    name: str, threads: int
) -> None:
    """The core gives up a chunk at its first bad board; the stream still yields the results of
    the boards before it (in that chunk too), then raises, so a consumer can record them and
    resume right after the bad board. A bad board early, late and in either thread's part."""
    good = ["ATE/SET", "[Th]IN/SET", "quo* n/ti e"]
    bad = "A/B!"
    with pytest.raises(BoardError) as expected:
        Board.parse(bad)
    with core(name):
        for before in (0, 5, 1000 if name == "c" else 40):
            boards = (good * before)[:before]
            want_scores = score_many(boards, WORDS, RULES)
            want_tallies = tally_many(boards, WORDS, RULES)
            after = good * 50
            got, error = _until_error(
                score_stream(iter([*boards, bad, *after]), WORDS, RULES, threads=threads)
            )
            assert (got, str(error)) == (want_scores, str(expected.value)), before
            got, error = _until_error(
                tally_stream([*boards, bad, *after], WORDS, RULES, threads=threads)
            )
            assert (got, str(error)) == (want_tallies, str(expected.value)), before
            lines = "\n".join([*boards, bad, *after]).encode()
            got, error = _until_error(score_lines(lines, WORDS, RULES, threads=threads))
            assert (got, error.__notes__) == (want_scores, [f"(line {before + 1})"]), before
            got, error = _until_error(tally_lines(io.BytesIO(lines), WORDS, RULES, threads=threads))
            assert got == want_tallies, before
            with pytest.raises(BoardError):
                score_many([*boards, bad], WORDS, RULES, threads=threads)  # the list forms raise


@pytest.mark.parametrize("name", CORES)
def test_streams_check_their_arguments_at_once_and_give_what_the_lists_give(name: str) -> None:
    boards = [f"A{ch}/ET" for ch in "STRNOE" * (3000 if name == "c" else 100)]
    with core(name):
        expected = score_many(boards, WORDS, RULES)
        assert list(score_stream(iter(boards), WORDS, RULES, threads=2)) == expected
        assert [t for t, _ in tally_stream(iter(boards), WORDS, RULES)] == expected
        assert list(score_stream([], WORDS, RULES)) == []
        with pytest.raises(Exception, match="threads=0"):
            score_stream(boards, WORDS, RULES, threads=0)  # before anything is iterated


@pytest.mark.parametrize("name", CORES)
def test_threads_are_bounded_in_every_batch_form(name: str) -> None:
    """Each thread is an OS thread, so a caller's threads=10**6 is refused, by value, before a
    board is read; MAX_SOLVER_THREADS itself is allowed."""
    boards = ["ATE/SET", "TE*/AS"] * 3
    forms: list[Callable[..., Any]] = [
        score_many,
        tally_many,
        lambda b, *a, **k: list(score_stream(b, *a, **k)),
        lambda b, *a, **k: list(tally_stream(b, *a, **k)),
        lambda b, *a, **k: list(score_lines("\n".join(b).encode(), *a, **k)),
        lambda b, *a, **k: list(tally_lines("\n".join(b).encode(), *a, **k)),
    ]
    with core(name):
        expected = [score(b, WORDS, RULES) for b in boards]
        for form in forms:
            results = form(boards, WORDS, RULES, threads=MAX_SOLVER_THREADS)
            assert [r if isinstance(r, int) else r[0] for r in results] == expected
            for too_many in (MAX_SOLVER_THREADS + 1, 10**6, 10**5000):
                with pytest.raises(
                    RulesError, match=r"threads=\S+ is too many: at most 64"
                ) as caught:
                    form(boards, WORDS, RULES, threads=too_many)
                assert len(str(caught.value)) < 120
        with pytest.raises(RulesError, match="threads=65 is too many"):
            score_stream(iter(boards), WORDS, RULES, threads=65)  # before anything is iterated


# -- lines ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", CORES)
def test_lines_score_one_board_a_line_from_bytes_or_a_binary_file(name: str) -> None:
    texts = ["ATE/SET", "[Th]IN/SET", "quo* n/ti e", "AT\tES"]
    data = "\r\n".join(texts * 700).encode()  # a final line with no newline, CRLF endings
    expected = score_many(texts * 700, WORDS, RULES)
    with core(name):
        assert list(score_lines(data, WORDS, RULES)) == expected
        assert list(score_lines(bytearray(data), WORDS, RULES, threads=2)) == expected
        assert list(score_lines(io.BytesIO(data + b"\n"), WORDS, RULES)) == expected
        assert list(tally_lines(memoryview(data), WORDS, RULES)) == tally_many(
            texts * 700, WORDS, RULES
        )
        assert list(score_lines(b"", WORDS, RULES)) == []


@pytest.mark.parametrize("name", CORES)
@pytest.mark.parametrize("threads", [1, 2])
def test_a_bad_line_is_named_by_its_number(name: str, threads: int) -> None:
    count = 200_000 if name == "c" else 2_000  # past the first block of lines, in C
    good = b"ATE/SET\n" * count
    with core(name):
        with pytest.raises(BoardError, match="row 2 has 1 cells") as caught:
            list(score_lines(good + b"AB/C\n" + good, WORDS, RULES, threads=threads))
        assert caught.value.__notes__ == [f"(line {count + 1})"]
        with pytest.raises(BoardError, match=r"^the board is empty") as caught:
            list(score_lines(io.BytesIO(b"ATE/SET\n\nATE/SET\n"), WORDS, RULES, threads=threads))
        assert caught.value.__notes__ == ["(line 2)"]
        with pytest.raises(BoardError, match="line 3 is not UTF-8 text"):
            list(score_lines(b"ATE/SET\nATE/SET\n\xff\xfe\n", WORDS, RULES, threads=threads))


@pytest.mark.parametrize("name", CORES)
def test_a_line_longer_than_any_board_is_refused_before_it_is_read(name: str) -> None:
    class Endless(io.RawIOBase):
        """A stream of one good line and then an endless one: reading it all would hang."""

        def __init__(self) -> None:
            self.reads = 0

        def readable(self) -> bool:
            return True

        def read(self, size: int = -1) -> bytes:
            self.reads += 1
            return b"ATE/SET\n" if self.reads == 1 else b"A" * max(size, 1)

    endless = Endless()
    with core(name):
        with pytest.raises(BoardError, match=r"^line 2 is longer than any board text"):
            list(score_lines(endless, WORDS, RULES))
        assert endless.reads <= 3
        long_line = b"ATE/SET\n" + b" " * (MAX_BOARD_LINE_BYTES + 1) + b"\nATE/SET\n"
        with pytest.raises(BoardError, match=r"^line 2 is longer than any board text"):
            list(score_lines(long_line, WORDS, RULES))
        with pytest.raises(BoardError, match="board text is 900 characters"):
            list(score_lines(b"ATE/SET\n" + b" " * 900 + b"\n", WORDS, RULES))


def test_lines_are_bytes() -> None:
    for source in ("ATE/SET", io.StringIO("ATE/SET"), 5):
        with pytest.raises(TypeError, match="lines are read as bytes"):
            score_lines(source, WORDS, RULES)  # type: ignore[arg-type]


@compiled_only
def test_the_compiled_text_functions_refuse_bad_arguments_without_crashing() -> None:
    from bigboggle import _solve_c

    trie = WORDS.packed_trie
    points = (0, 0, 0, 1, 1, 2)
    expected = _solve_c.score_cells(trie, *cells(Board.parse("ate/set")), points, 0)
    assert _solve_c.score_texts(trie, ["ate/set"], points, 0, print) == [expected]
    bad_calls = [
        lambda: _solve_c.score_texts(trie, [Board.parse("ab/cd")], points, 0, lambda b: None),
        lambda: _solve_c.score_texts(trie, ["ab/c"], points, 0, lambda b: ("ab", 1, 1, -1)),
        lambda: _solve_c.score_texts(trie, ["ab/cd"], points, 0, 5),
        lambda: _solve_c.score_texts(trie, ("ab/cd",), points, 0, print),
        lambda: _solve_c.score_lines(trie, "ab/cd", points, 0, print),
        lambda: _solve_c.tally_lines(trie, b"ab/c", points, 0, lambda line, i: (1, 2)),
        lambda: _solve_c.score_lines(trie, b"ab/cd", (), 0, print),
    ]
    for call in bad_calls:
        with pytest.raises((ValueError, TypeError)):
            call()


# -- memory --------------------------------------------------------------------------------------

#: Boards in the flat-memory runs: their results alone, held in a list, would take 8 MB.
BULK = 1_000_000


def _peak(run: Callable[[], object]) -> int:
    """The most memory Python allocated (tracemalloc) while ``run`` ran, in bytes."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class BoardLines(io.RawIOBase):
    """``count`` lines of small boards, made as they are read (the file never exists whole)."""

    def __init__(self, count: int) -> None:
        self.left = count

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        lines = min(self.left, max(size, 8) // 8)
        self.left -= lines
        return b"ATE/SET\n" * lines


@compiled_only
def test_a_million_boards_stream_in_flat_memory() -> None:
    """10^6 2x2 boards (texts and a Board) and 10^6 lines, in the compiled core: the peak is
    the same as for 5 * 10^4 boards (the core's chunk buffers, about 1.5 MB), far below the 8 MB a
    list of the results alone would hold, so nothing grows with the number of boards."""
    with core("c"):
        boards = ["ATE/SET", "TE*/AS", Board.parse("[Th]I/NS"), "AT ES"]
        expected = [score(b, WORDS, RULES) for b in boards]

        def stream(count: int) -> Callable[[], None]:
            def run() -> None:
                source = itertools.islice(itertools.cycle(boards), count)
                for index, total in enumerate(score_stream(source, WORDS, RULES)):
                    assert total == expected[index % 4]
                assert index == count - 1

            return run

        def lines(count: int) -> Callable[[], None]:
            def run() -> None:
                assert sum(1 for _ in score_lines(BoardLines(count), WORDS, RULES)) == count

            return run

        for measure in (stream, lines):
            small, bulk = _peak(measure(BULK // 20)), _peak(measure(BULK))
            assert bulk < small + 256 * 1024, measure.__name__
            assert bulk < BULK * 8 // 3, measure.__name__

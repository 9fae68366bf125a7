"""Board notation, geometry and paths."""

from __future__ import annotations

import pytest

from bigboggle import Board, BoardError


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("LINES/TQARD/HEMOP/ABCKI/PSTEW", "LINES/TQuARD/HEMOP/ABCKI/PSTEW"),
        ("lines/tquard/hemop/abcki/pstew", "LINES/TQuARD/HEMOP/ABCKI/PSTEW"),
        ("LINES\nTQARD\nHEMOP\nABCKI\nPSTEW\n", "LINES/TQuARD/HEMOP/ABCKI/PSTEW"),
        ("PERS LATG SINE TERS", "PERS/LATG/SINE/TERS"),
        ("P E R S\nL A T G\nS I N E\nT E R S", "PERS/LATG/SINE/TERS"),
        ("AB[th]/C.D*", "AB[Th]/C.D*"),
        ("A[qu]/QUU", "AQu/QuU"),
        ("a[Q]/bc", "AQu/BC"),
        ("ab*/cd", "AB*/CD"),
        ("[AN][er]/[HE]x", "[An][Er]/[He]X"),
    ],
)
def test_parse_gives_canonical_text(text: str, canonical: str) -> None:
    board = Board.parse(text)
    assert str(board) == canonical
    assert Board(str(board)) == board


def test_repr_round_trips() -> None:
    board = Board("AB[Th]/C.D*/EFG")
    assert repr(board) == "Board('AB[Th]/C.D*/EFG')"
    assert eval(repr(board)) == board
    assert hash(eval(repr(board))) == hash(board)


def test_faces_and_letters() -> None:
    board = Board("AQ/[Th]./XY")
    assert board.size == (3, 2)
    assert board.faces == (("A", "Qu"), ("Th", ""), ("X", "Y"))
    assert board.cell_letters == ("a", "qu", "th", "", "x", "y")
    assert board[1, 0] == "Th"
    assert board.challenge is None


def test_challenge_cell_position() -> None:
    board = Board("ABC/DE*F/GHI")
    assert board.challenge == (1, 1)
    assert board.challenge_index == 4


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("ABC/DE1/GHI", "'1' at row 2, position 3"),
        ("ABC/DE/GHI", "row 2 has 2 cells"),
        ("A/B", "1 column"),
        ("AB", "1 row"),
        ("/".join(["A" * 13] * 2), "13 columns"),
        ("/".join(["AB"] * 13), "13 rows"),
        ("AB/C[TH", "unclosed '['"),
        ("AB/C[]", "face '[]'"),
        ("AB/C[T1]", "face '[T1]'"),
        ("AB/C[ABCD]", "face '[ABCD]'"),
        ("*AB/CD", "must follow the cell"),
        ("A*B*/CD", "second '*'"),
        ("AB/C.*", "'*' after a blank cell at row 2, position 3 of board 'AB/C.*'"),
        ("A.*B/CDE", "row 1, position 3"),
        ("AB//CD", "row 2"),
        ("AÉ/CD", "'É'"),
    ],
)
def test_bad_board_text_names_the_problem(text: str, fragment: str) -> None:
    with pytest.raises(BoardError) as caught:
        Board.parse(text)
    assert fragment in str(caught.value)
    assert isinstance(caught.value, ValueError)


def test_non_text_board_is_an_error() -> None:
    with pytest.raises(BoardError, match="must be text"):
        Board.parse(12345)  # type: ignore[arg-type]


def test_largest_and_smallest_boards() -> None:
    assert Board("/".join(["AB"] * 2)).size == (2, 2)
    assert Board("/".join(["A" * 12] * 12)).size == (12, 12)
    assert Board("/".join(["ABCDEFGHIJKL"] * 3)).size == (3, 12)


def test_neighbours_side_and_corner() -> None:
    board = Board("ABC/DEF/GHI")
    assert set(board.neighbours(1, 1)) == {
        (0, 0),
        (0, 1),
        (0, 2),
        (1, 0),
        (1, 2),
        (2, 0),
        (2, 1),
        (2, 2),
    }
    assert set(board.neighbours(0, 0)) == {(0, 1), (1, 0), (1, 1)}
    assert len(board.neighbours(0, 1)) == 5
    with pytest.raises(IndexError):
        board.neighbours(3, 0)


def test_path_for_follows_adjacent_distinct_cells() -> None:
    board = Board("CAT/XXS/XXX")
    assert board.path_for("cats") == ((0, 0), (0, 1), (0, 2), (1, 2))
    assert board.path_for("CAT") == ((0, 0), (0, 1), (0, 2))
    assert board.path_for("tact") is None  # would need the T twice
    assert board.path_for("cast") == ((0, 0), (0, 1), (1, 2), (0, 2))
    assert board.path_for("scat") is None  # C is not next to S
    assert board.path_for("") is None


def test_path_for_qu_and_two_letter_faces() -> None:
    board = Board("QIT/[Th]EN/XXX")
    assert board.path_for("quit") == ((0, 0), (0, 1), (0, 2))
    assert board.path_for("qit") is None  # a Qu face always brings its u
    assert board.path_for("then") == ((1, 0), (1, 1), (1, 2))
    assert board.path_for("hen") is None  # the Th cell is not an H
    assert Board("[Th]E/XN").path_for("ten") is None  # nor a T alone


def test_path_for_skips_blanks() -> None:
    board = Board("C.T/AXX")
    assert board.path_for("cat") is None  # A is not next to T, and the blank is never a letter
    assert board.path_for("ca") == ((0, 0), (1, 0))


def test_path_for_through_a_cell() -> None:
    board = Board("TOT/OXX/XXX")
    assert board.path_for("tot") == ((0, 0), (0, 1), (0, 2))
    assert board.path_for("to", through=(1, 0)) == ((0, 0), (1, 0))


def test_is_valid_path_and_spell() -> None:
    board = Board("CAT/XXS/XXX")
    assert board.is_valid_path([(0, 0), (0, 1), (0, 2)])
    assert not board.is_valid_path([(0, 0), (0, 2)])  # not adjoining
    assert not board.is_valid_path([(0, 0), (0, 1), (0, 0)])  # a cell twice
    assert not board.is_valid_path([(0, 0), (5, 5)])
    assert not board.is_valid_path([])
    assert board.spell([(0, 0), (0, 1), (0, 2), (1, 2)]) == "cats"


def test_render_marks_challenge_and_blanks() -> None:
    lines = Board("AQu/.B*").render().splitlines()
    assert lines[0].split() == ["A", "Qu"]
    assert lines[1].split() == [".", "B*"]


def test_board_is_immutable() -> None:
    board = Board("AB/CD")
    with pytest.raises(AttributeError):
        board.rows = 3  # type: ignore[misc]


def test_from_faces_validates() -> None:
    assert str(Board.from_faces([["a", "q"], ["th", ""]], challenge=(1, 0))) == "AQu/[Th]*."
    with pytest.raises(BoardError, match="outside the board"):
        Board.from_faces([["A", "B"], ["C", "D"]], challenge=(2, 0))
    with pytest.raises(BoardError, match=r"challenge cell \(1, 1\) is blank"):
        Board.from_faces([["A", "B"], ["C", ""]], challenge=(1, 1))
    with pytest.raises(BoardError):
        Board.from_faces([["A", "1"], ["C", "D"]])


def test_faces_with_a_bare_q_are_refused() -> None:
    for text in ("[Aq]U/AX", "[Qa]B/CD", "AB/C[QuQ]"):
        with pytest.raises(BoardError, match="followed by u"):
            Board.parse(text)
    assert str(Board("[Que]B/CD")) == "[Que]B/CD"


def test_render_parses_back_to_the_same_board() -> None:
    for text in ("[Th]E/[Er]A*", "AQu./B[In]C/DEF", "LINES/TQARD/HEMOP/ABCKI/PSTEW"):
        board = Board(text)
        assert Board(board.render()) == board


def test_path_for_rejects_missing_letters_at_once_and_honours_a_budget() -> None:
    from bigboggle.errors import SearchBudgetExceeded

    board = Board("/".join(["EEEEE"] * 5))
    assert board.path_for("e" * 12 + "x") is None  # no X: no search at all
    assert board.path_for("e" * 26) is None  # more letters than the board holds
    assert board.path_for("e" * 10, budget=100) is not None
    with pytest.raises(SearchBudgetExceeded):
        board.path_for("e" * 10, budget=5)


def test_one_search_budget_can_cover_several_searches() -> None:
    from bigboggle.board import SearchBudget
    from bigboggle.errors import SearchBudgetExceeded

    board = Board("/".join(["EEEEE"] * 5))
    shared = SearchBudget(5)
    assert board.path_for("eee", budget=shared) is not None
    assert shared.left == 2  # one cell per letter on the way straight to a path
    with pytest.raises(SearchBudgetExceeded):
        board.path_for("eee", budget=shared)
    assert shared.left < 0


# -- bounds: board text is checked for size before it is parsed ---------------------------------

LONGEST_MESSAGE = 300  # no board error, however large the input, is longer than this


@pytest.mark.once
def test_board_text_at_the_limit_parses_and_one_more_character_is_refused() -> None:
    from bigboggle.limits import MAX_BOARD_TEXT

    text = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
    assert str(Board.parse(text.ljust(MAX_BOARD_TEXT))) == "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
    with pytest.raises(BoardError) as caught:
        Board.parse(text.ljust(MAX_BOARD_TEXT + 1))
    message = str(caught.value)
    assert f"{MAX_BOARD_TEXT + 1} characters" in message
    assert f"the limit is {MAX_BOARD_TEXT}" in message


@pytest.mark.once
@pytest.mark.parametrize(
    "text",
    ["A" * 1_000_000, "[" * 1_000_000, "AB/" * 300_000, "q" * 10**6],
    ids=["letters", "brackets", "rows", "q"],
)
def test_a_megabyte_of_board_text_is_refused_with_a_short_message(text: str) -> None:
    with pytest.raises(BoardError) as caught:
        Board.parse(text)
    message = str(caught.value)
    assert f"{len(text)} characters" in message
    assert len(message) <= LONGEST_MESSAGE
    assert repr(text[:20])[:-1] in message  # a bounded excerpt of the text, quoted with !r


@pytest.mark.once
@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("AB" * 390 + "1/" + "AB" * 4, ["'1'", "row 1, position 781", "near 'ABAB", "AB1'"]),
        ("/".join(["ABCDEFGHIJKL"] * 12) + "/" + "C[" + "X" * 600, ["unclosed '['", "row 13"]),
        ("/".join(["ABCDEFGHIJKL"] * 12) + "/[" + "T" * 600 + "]", ["face '[TTT", "row 13"]),
        ("AB*/" + "C" * 700 + "*", ["second '*'", "row 2, position 701"]),
        ("A" * 700 + "/" + "//" + "B" * 50, ["row 2", "is empty"]),
        ("AB/" + "C" * 700 + ".*", ["'*' after a blank cell", "row 2, position 702", "C.*'"]),
    ],
    ids=[
        "bad-character",
        "unclosed-bracket",
        "long-face",
        "second-star",
        "empty-row",
        "blank-star",
    ],
)
def test_errors_in_long_board_text_say_where_and_quote_a_bounded_excerpt(
    text: str, fragments: list[str]
) -> None:
    from bigboggle.limits import MAX_BOARD_TEXT

    assert len(text) <= MAX_BOARD_TEXT
    with pytest.raises(BoardError) as caught:
        Board.parse(text)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    assert len(message) <= LONGEST_MESSAGE
    assert text not in message


@pytest.mark.once
def test_from_faces_refuses_oversized_grids_before_reading_faces() -> None:
    with pytest.raises(BoardError, match="100000 rows"):
        Board.from_faces([["A", "B"]] * 100_000)
    with pytest.raises(BoardError, match=r"row 2 has 100000 cells; a board has 2-12 columns"):
        Board.from_faces([["A", "B"], ["C"] * 100_000])
    with pytest.raises(BoardError) as caught:
        Board.from_faces([["A" * 100_000, "B"], ["C", "D"]])
    assert len(str(caught.value)) <= LONGEST_MESSAGE
    with pytest.raises(BoardError) as caught:
        Board.from_faces([["A", "B"], ["C", "D"]], challenge=[0] * 100_000)  # type: ignore[arg-type]
    assert len(str(caught.value)) <= LONGEST_MESSAGE
    assert "must be (row, column)" in str(caught.value)

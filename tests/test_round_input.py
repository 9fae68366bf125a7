"""Reading a round to score from JSON-shaped data: good input, and errors naming the key."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from bigboggle import (
    Board,
    BoggleError,
    Dictionary,
    RoundInputError,
    RoundRequest,
    Rules,
    Verdict,
    parse_round_request,
    score_round,
)


def test_full_request() -> None:
    text = """{
        "board": "lines/tqard/hemop/abcki/pstew",
        "players": {"ann": ["line", "Lines"], "kid": []},
        "teams": {"red": ["ann"], "blue": ["kid"]},
        "min_length": {"kid": 3},
        "rules": "big",
        "dictionary": "standard",
        "options": {"challenge": true}
    }"""
    request = parse_round_request(json.loads(text))
    assert isinstance(request, RoundRequest)
    assert request.board == Board.parse("LINES/TQuARD/HEMOP/ABCKI/PSTEW")
    assert str(request.board) == "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
    assert request.players == {"ann": ["line", "Lines"], "kid": []}
    assert request.teams == {"red": ["ann"], "blue": ["kid"]}
    assert request.min_length == {"kid": 3}
    assert request.rules == "big"
    assert request.dictionary == "standard"
    assert request.options == {"challenge": True}


def test_only_players_is_required() -> None:
    request = parse_round_request({"players": {"ann": ["line"]}})
    assert request.board is None
    assert request.players == {"ann": ["line"]}
    assert request.teams is None
    assert request.min_length is None
    assert request.rules is None
    assert request.dictionary is None
    assert request.options is None


def test_nulls_count_as_absent() -> None:
    request = parse_round_request(
        {"board": None, "players": {}, "teams": None, "min_length": None, "rules": None}
    )
    assert request.board is None
    assert request.players == {}
    assert request.teams is None
    assert request.min_length is None
    assert request.rules is None


def test_board_with_challenge_cell() -> None:
    request = parse_round_request({"board": "COATS/XXXT*X/POSEX", "players": {"a": []}})
    assert request.board is not None
    assert request.board.challenge == (1, 3)


def test_request_is_a_copy() -> None:
    data: dict[str, Any] = {"players": {"ann": ["line"]}, "min_length": {"ann": 3}}
    request = parse_round_request(data)
    data["players"]["ann"].append("mare")
    data["min_length"]["ann"] = 5
    assert request.players == {"ann": ["line"]}
    assert request.min_length == {"ann": 3}


def test_parsed_request_scores() -> None:
    request = parse_round_request(
        {
            "board": "LINES/TQARD/HEMOP/ABCKI/PSTEW",
            "players": {"ann": ["lines", "mare"], "bob": ["MARE", "quilt"]},
        }
    )
    assert request.board is not None
    words = Dictionary.from_words(["lines", "mare", "quilt"])
    result = score_round(request.board, request.players, Rules.preset("big"), words)
    assert [w.verdict for w in result.players["ann"].words] == [
        Verdict.SCORED,
        Verdict.CROSSED_OFF,
    ]
    # lines and quilt: 5 letters, 2 points each.
    assert result.scores == {"ann": 2, "bob": 2}


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"players": {"ann": ["line"]}, "colour": "red"}, "'colour'"),
        ({"board": 42, "players": {}}, "board:"),
        ({"board": ["LINES"], "players": {}}, "board:"),
        ({"board": "LINES/TQARD/HEM", "players": {}}, "board:"),
        ({"board": "LIN#S/TQARD", "players": {}}, "board:"),
        ({"board": "   ", "players": {}}, "board:"),
        ({"board": "A", "players": {}}, "board:"),
        ({"board": "LINES/TQARD/HEMOP/ABCKI/PSTEW"}, "players:"),
        ({"players": ["ann"]}, "players:"),
        ({"players": "ann"}, "players:"),
        ({"players": {"ann": "line"}}, "players.ann:"),
        ({"players": {"ann": ["line", 7]}}, "players.ann[1]:"),
        ({"players": {"ann": ["line", None]}}, "players.ann[1]:"),
        ({"players": {"ann": [], "bob": ["a", "b", ["c"]]}}, "players.bob[2]:"),
        ({"players": {"ann": []}, "teams": ["ann"]}, "teams:"),
        ({"players": {"ann": []}, "teams": {"red": "ann"}}, "teams.red:"),
        ({"players": {"ann": []}, "teams": {"red": [1]}}, "teams.red[0]:"),
        ({"players": {"ann": []}, "min_length": 3}, "min_length:"),
        ({"players": {"ann": []}, "min_length": [["ann", 3]]}, "min_length:"),
        ({"players": {"ann": []}, "rules": 5}, "rules:"),
        ({"players": {"ann": []}, "rules": {"name": "big"}}, "rules:"),
        ({"players": {"ann": []}, "dictionary": True}, "dictionary:"),
        ({"players": {"ann": []}, "options": ["challenge"]}, "options:"),
    ],
)
def test_bad_input_names_the_key(data: dict[str, Any], key: str) -> None:
    with pytest.raises(RoundInputError) as caught:
        parse_round_request(data)
    assert isinstance(caught.value, BoggleError)
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    if key.startswith("'"):
        assert key in message
    else:
        assert message.startswith(key), message


@pytest.mark.parametrize("data", [None, [], "players", 3, [{"players": {}}]])
def test_top_level_not_an_object(data: Any) -> None:
    with pytest.raises(RoundInputError, match=re.escape("JSON object")):
        parse_round_request(data)


def test_bad_board_message_keeps_the_board_error() -> None:
    with pytest.raises(RoundInputError) as caught:
        parse_round_request({"board": "LINES/TQARD/HEM", "players": {}})
    message = str(caught.value)
    assert message.startswith("board: ")
    # The board parser's own explanation follows: row 3 is shorter than row 1.
    assert "row 3" in message
    assert "rectangular" in message


def test_unknown_key_lists_the_known_keys() -> None:
    with pytest.raises(RoundInputError) as caught:
        parse_round_request({"players": {}, "Board": "LINES"})
    message = str(caught.value)
    assert "'Board'" in message
    for key in ("board", "players", "teams", "min_length", "rules", "dictionary", "options"):
        assert key in message

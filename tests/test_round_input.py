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
    RulesError,
    Verdict,
    parse_round_request,
    score_round,
)
from bigboggle.errors import kind_of
from bigboggle.round import check_entry
from bigboggle.services import jobs


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


# -- bounds: everything a stranger sends is bounded before any deep work ------------------------

#: No refusal, however large or deep the input, has a longer message than this.
LONGEST_MESSAGE = 300


def refused(data: Any, *fragments: str) -> str:
    """``parse_round_request(data)`` is refused with a short message holding ``fragments``."""
    with pytest.raises(RoundInputError) as caught:
        parse_round_request(data)
    message = str(caught.value)
    for fragment in fragments:
        assert fragment in message, message
    assert len(message) <= LONGEST_MESSAGE, message
    return message


@pytest.mark.once
def test_board_text_over_the_limit_is_refused_before_parsing() -> None:
    from bigboggle.limits import MAX_BOARD_TEXT

    board = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
    request = parse_round_request({"board": board.ljust(MAX_BOARD_TEXT), "players": {}})
    assert str(request.board) == "LINES/TQuARD/HEMOP/ABCKI/PSTEW"
    message = refused(
        {"board": board.ljust(MAX_BOARD_TEXT + 1), "players": {}},
        f"{MAX_BOARD_TEXT + 1} characters",
        f"the limit is {MAX_BOARD_TEXT}",
    )
    assert message.startswith("board: ")
    refused({"board": "A" * 1_000_000, "players": {}}, "board: ", "1000000 characters")


@pytest.mark.once
def test_players_lists_and_entries_are_bounded() -> None:
    from bigboggle.limits import MAX_ENTRY_LENGTH, MAX_LIST_LENGTH, MAX_PLAYERS

    most = {f"p{i}": ["line"] for i in range(MAX_PLAYERS)}
    assert len(parse_round_request({"players": most}).players) == MAX_PLAYERS
    refused(
        {"players": {**most, "one-more": []}},
        "players:",
        f"{MAX_PLAYERS + 1} entries",
        f"limit is {MAX_PLAYERS}",
    )
    longest = ["line"] * MAX_LIST_LENGTH
    assert parse_round_request({"players": {"ann": longest}}).players["ann"] == longest
    refused(
        {"players": {"ann": [*longest, "mare"]}},
        "players.ann:",
        f"{MAX_LIST_LENGTH + 1} entries",
        f"limit is {MAX_LIST_LENGTH}",
    )
    entry = "a" * MAX_ENTRY_LENGTH
    assert parse_round_request({"players": {"ann": [entry]}}).players["ann"] == [entry]
    message = refused(
        {"players": {"ann": ["line", entry + "a"]}},
        "players.ann[1]:",
        f"{MAX_ENTRY_LENGTH + 1} characters",
        f"at most {MAX_ENTRY_LENGTH}",
    )
    assert message.startswith("players.ann[1]: ")
    refused({"players": {"ann": ["x" * 100_000]}}, "players.ann[0]:", "100000 characters")


@pytest.mark.once
def test_an_entry_with_a_lone_surrogate_is_refused() -> None:
    # JSON can spell one ("\ud800"); it could never be written out again as UTF-8.
    data = json.loads('{"players": {"ann": ["line", "li\\ud800ne"]}}')
    refused(data, "players.ann[1]:", "surrogate", "U+D800")


@pytest.mark.once
def test_names_are_normalised_and_team_members_and_handicaps_follow() -> None:
    request = parse_round_request(
        {
            "players": {"ａｎｎ": ["line"], "  bob   smith ": []},
            "teams": {"Ｒｅｄ": ["ANN", "bob smith"]},
            "min_length": {"Ann": 3},
        }
    )
    assert request.players == {"ann": ["line"], "bob smith": []}
    assert request.teams == {"Red": ["ann", "bob smith"]}
    assert request.min_length == {"ann": 3}


@pytest.mark.once
@pytest.mark.parametrize(
    ("players", "fragments"),
    [
        ({"ann": [], "ANN": []}, ["'ann' and 'ANN'", "same name"]),
        ({"ann": [], "\u0430nn": []}, ["same name"]),  # a Cyrillic а
        ({"ann": [], "ａｎｎ": []}, ["same name"]),  # full-width letters
        ({"ann\u200b": []}, ["invisible", "U+200B", "position 4"]),
        ({"ann\x00": []}, ["control", "U+0000"]),
        ({"x" * 100_000: []}, ["longer than 40"]),
        ({"   ": []}, ["non-empty"]),
    ],
    ids=["case", "cyrillic", "width", "zero-width", "nul", "long", "blank"],
)
def test_bad_or_clashing_player_names_are_refused(
    players: dict[str, Any], fragments: list[str]
) -> None:
    message = refused({"players": players}, *fragments)
    assert message.startswith("players: ")


@pytest.mark.once
@pytest.mark.parametrize(
    ("extra", "key", "fragments"),
    [
        ({"teams": {"red": ["zed"]}}, "teams.red[0]:", ["'zed'", "not one of the players"]),
        ({"teams": {"red": ["ann"], "RED": ["bob"]}}, "teams:", ["same name"]),
        ({"teams": {"red": ["ann"] * 101}}, "teams:", ["101 members in all", "limit is 100"]),
        (
            {"teams": {f"t{i}": ["ann", "bob"] * 50 for i in range(100)}},
            "teams:",
            ["10000 members in all", "limit is 100"],
        ),
        ({"teams": {f"t{i}": ["ann"] for i in range(101)}}, "teams:", ["101 entries"]),
        ({"teams": {"red": ["x" * 100_000]}}, "teams.red[0]:", ["longer than 40"]),
        ({"min_length": {"zed": 3}}, "min_length.zed:", ["not one of the players"]),
        ({"min_length": {"ann": 3, "ANN": 4}}, "min_length.ANN:", ["already"]),
        ({"min_length": {"ann": 2}}, "min_length.ann:", ["between 3 and 25"]),
        ({"min_length": {"ann": int("9" * 4000)}}, "min_length.ann:", ["between 3 and 25"]),
        ({"min_length": {"ann": "x" * 100_000}}, "min_length.ann:", ["whole number", "text"]),
        ({"min_length": {"x" * 100_000: 3}}, "min_length:", ["longer than 40"]),
        ({"rules": "x" * 100_000}, "rules:", ["100000 characters"]),
        ({"dictionary": "x" * 100_000}, "dictionary:", ["100000 characters"]),
        ({"options": {"timer": ["x"] * 100_000}}, "options.timer:", ["a list"]),
        ({"options": {"timer": {"a": 1}}}, "options.timer:", ["an object"]),
        ({"options": {"dictionary": "x" * 100_000}}, "options.dictionary:", ["text"]),
        ({"options": {f"o{i}": 1 for i in range(17)}}, "options:", ["17 entries"]),
        ({"x" * 100_000: 1}, "unknown key", ["'xxxx"]),
    ],
    ids=lambda value: value if isinstance(value, str) else None,
)
def test_teams_handicaps_and_settings_are_bounded(
    extra: dict[str, Any], key: str, fragments: list[str]
) -> None:
    message = refused({"players": {"ann": ["line"], "bob": []}, **extra}, *fragments)
    assert message.startswith(key), message


@pytest.mark.parametrize(
    ("options", "fragments"),
    [
        ({"name": "x"}, ["unknown rules option 'name'", "rules options are: advanced"]),
        ({"x" * 100_000: 1}, ["unknown rules option 'xxxx"]),
    ],
    ids=["unknown", "long"],
)
def test_unknown_options_get_the_one_options_error(
    options: dict[str, Any], fragments: list[str]
) -> None:
    # The whitelist is checked by rules.check_options, as for rooms and solo games: RulesError.
    with pytest.raises(RulesError) as caught:
        parse_round_request({"players": {"ann": ["line"]}, "options": options})
    message = str(caught.value)
    assert message.startswith("options: "), message
    for fragment in fragments:
        assert fragment in message, message
    assert len(message) <= LONGEST_MESSAGE, message


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("lines", "expected a JSON object at the top level, not text 'lines'"),
        ({"players": {"ann": "line"}}, "players.ann: expected a list, not text 'line'"),
        ({"players": {"ann": 3}}, "players.ann: expected a list, not the number 3"),
        ({"players": {"ann": None}}, "players.ann: expected a list, not null"),
    ],
    ids=["top level", "text", "number", "null"],
)
def test_a_value_of_the_wrong_kind_is_described_as_round_setup_describes_it(
    data: Any, message: str
) -> None:
    # One description of a value's kind (errors.kind_of) for round_input and round_setup.
    with pytest.raises(RoundInputError) as caught:
        parse_round_request(data)
    assert str(caught.value) == message
    assert message.endswith(kind_of(data if isinstance(data, str) else data["players"]["ann"]))


@pytest.mark.parametrize("options", [{"name": "x"}, {"x" * 100_000: 1}], ids=["unknown", "long"])
def test_the_score_job_refuses_an_option_as_the_request_does(options: dict[str, Any]) -> None:
    # POST /api/score's job (jobs.rules_with) has no whitelist of its own: the same error.
    with pytest.raises(RulesError) as parsed:
        parse_round_request({"players": {"ann": ["line"]}, "options": options})
    with pytest.raises(RulesError) as job:
        jobs.rules_with("big", options)
    assert str(job.value) == str(parsed.value)


@pytest.mark.once
def test_load_json_refuses_text_over_its_limit_before_parsing() -> None:
    from bigboggle.limits import MAX_ROUND_JSON
    from bigboggle.round_input import load_json

    assert load_json('{"players": {}}') == {"players": {}}
    with pytest.raises(RoundInputError) as caught:
        load_json(" " * (MAX_ROUND_JSON + 1), "the body")
    message = str(caught.value)
    assert message.startswith("the body is")
    assert f"{MAX_ROUND_JSON + 1} characters" in message
    assert len(message) <= LONGEST_MESSAGE
    with pytest.raises(RoundInputError, match=r"the limit is 10$"):
        load_json('{"players": {}}', max_chars=10)


@pytest.mark.once
@pytest.mark.parametrize(
    "text",
    [
        "[" * 100_000,
        "[" * 1_000_000,
        '{"a":' * 200_000,
        '{"players": {"ann": ' + "[" * 100_000 + "]" * 100_000 + "}}",
        '{"players": {"ann": []}, "min_length": {"ann": ' + "9" * 5000 + "}}",
        '{"' + "k" * 500_000 + '": 1, "' + "k" * 500_000 + '": 2}',
        '{"players": {"ann": ["line"] "bob": []}}',
    ],
    ids=["deep-100k", "deep-1M", "deep-objects", "deep-list", "long-number", "dup-key", "syntax"],
)
def test_hostile_json_is_refused_with_a_short_message(text: str) -> None:
    from bigboggle.round_input import load_json

    with pytest.raises(RoundInputError) as caught:
        parse_round_request(load_json(text, "the body"))
    message = str(caught.value)
    assert message.startswith("the body"), message
    assert len(message) <= LONGEST_MESSAGE, message


@pytest.mark.once
def test_a_megabyte_of_junk_entries_is_refused_or_read_with_every_bound_kept() -> None:
    from bigboggle.round_input import load_json

    # 100 players x 2000 entries is the most a round holds: read, and nothing is lost.
    junk = {f"p{i}": [f"#{j}!" for j in range(2000)] for i in range(100)}
    request = parse_round_request(load_json(json.dumps({"players": junk})))
    assert len(request.players) == 100
    assert all(len(entries) == 2000 for entries in request.players.values())
    # One entry more in one list is refused, naming the list.
    junk["p7"].append("x")
    refused(json.loads(json.dumps({"players": junk})), "players.p7:", "2001 entries")


@pytest.mark.once
def test_load_json_refuses_more_keys_than_it_takes_before_parsing() -> None:
    from bigboggle.limits import MAX_JSON_KEYS
    from bigboggle.round_input import load_json

    # Colons are counted, inside strings too: the count bounds the keys before any parsing.
    at_the_limit = json.dumps({"players": {"ann": [":" * (MAX_JSON_KEYS - 2)]}})
    assert load_json(at_the_limit)["players"]["ann"] == [":" * (MAX_JSON_KEYS - 2)]
    many_keys = json.dumps(
        {"players": {"ann": []}, "min_length": {f"k{i}": 3 for i in range(90_000)}}
    )
    with pytest.raises(RoundInputError) as caught:
        load_json(many_keys, "the body")
    message = str(caught.value)
    assert message.startswith("the body has 90003 ':' characters")
    assert f"at most {MAX_JSON_KEYS} object keys" in message
    with pytest.raises(RoundInputError, match="at most 2 object keys"):
        load_json('{"a": 1, "b": 2, "c": 3}', max_keys=2)


# -- invisible and control characters ------------------------------------------------------------


@pytest.mark.parametrize(
    "entry", ["quilt\u200b", "\u00adquilt", "\ufeffquilt", "q\u200eu\u202eilt", "quilt\u2060"]
)
def test_invisible_characters_leave_an_entry_before_it_is_judged(entry: str) -> None:
    request = parse_round_request({"players": {"ann": ["lines", entry]}})
    assert request.players["ann"] == ["lines", "quilt"]
    assert check_entry(entry) == "quilt"


@pytest.mark.parametrize(
    ("entry", "named"),
    [
        ("\x07quilt", "BEL, U+0007) at position 1"),
        ("ab\x01cd", "U+0001) at position 3"),
        ("\x1b]0;pwned\x07quilt", "ESC, U+001B) at position 1"),
        ("  qu\x00ilt", "NUL, U+0000) at position 5"),
        ("quilt\x9b", "CSI, U+009B) at position 6"),
    ],
)
def test_a_control_character_in_an_entry_is_refused_by_name_and_position(
    entry: str, named: str
) -> None:
    with pytest.raises(RoundInputError) as caught:
        parse_round_request({"players": {"ann": ["lines", entry]}})
    message = str(caught.value)
    assert message.startswith("players.ann[1]: ") and named in message, message
    assert message.isprintable()
    with pytest.raises(RoundInputError, match=r"^word: .*control character"):
        check_entry(entry)


def test_blanks_around_an_entry_are_not_refused_as_controls() -> None:
    request = parse_round_request({"players": {"ann": ["\tlines\n", " quilt\u200b\r\n"]}})
    assert request.players["ann"] == ["\tlines\n", " quilt\r\n"]
    assert check_entry("\tlines\n") == "lines"

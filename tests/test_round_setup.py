"""The one check of a round's setup (teams, handicaps) and the one check of options: the same
mistake gets the same message from the score JSON, a room's settings and the round engine, each
starting with the key its input calls the thing."""

from __future__ import annotations

from typing import Any

import pytest

from bigboggle import Dictionary, Round, RoundInputError, Rules, RulesError, parse_round_request
from bigboggle.errors import kind_of
from bigboggle.round_setup import (
    check_setup,
    clean_handicaps,
    clean_teams,
    seat_handicaps,
    seat_teams,
    settle_setup,
)
from bigboggle.rules import RULES_OPTIONS, check_options
from bigboggle.scoring import score_round
from bigboggle.services.rooms import ROOM_OPTIONS, RoomSettings
from bigboggle.services.solo_games import SOLO_OPTIONS, solo_rules

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
WORDS = Dictionary.from_words(["line", "lines", "mare", "roam"])
BIG = Rules.preset("big")
PLAYERS = ("ann", "bob")


def from_score_json(key: str, value: Any) -> str:
    with pytest.raises(RoundInputError) as caught:
        parse_round_request({"players": {name: [] for name in PLAYERS}, key: value})
    return str(caught.value)


def from_room(key: str, value: Any) -> str:
    with pytest.raises(RoundInputError) as caught:
        RoomSettings.from_json({key: value})
    return str(caught.value)


def from_round(teams: Any = None, min_length: Any = None) -> str:
    game = Round(BOARD, BIG, WORDS, PLAYERS, teams=teams, min_length=min_length)
    with pytest.raises(RoundInputError) as caught:
        game.start(0.0)
    return str(caught.value)


BAD_TEAMS = [
    ({"red": ["ann"], "RED": ["bob"]}, "teams: 'red' and 'RED' are the same name"),
    ({"red": []}, "teams.red: expected a non-empty list of players' names"),
    ({"red": "ann"}, "teams.red: expected a non-empty list of players' names, not text"),
    ({"red": ["ann"], "blue": ["ann"]}, "teams.blue[0]: 'ann' is already on team 'red'"),
    ({"red": ["ann", "ANN"]}, "teams.red[1]: 'ANN' is already on team 'red'"),
    ({"": ["ann"]}, "teams: a name must be non-empty text"),
    ({"red": [7]}, "teams.red[0]: a name must be text"),
    ({}, "teams: expected an object of team name -> list of players' names"),
    (["red"], "teams: expected an object"),
]


@pytest.mark.parametrize(("teams", "start"), BAD_TEAMS)
def test_bad_teams_get_one_message_from_every_front_end(teams: Any, start: str) -> None:
    json_message = from_score_json("teams", teams)
    assert json_message.startswith(start), json_message
    assert from_round(teams=teams) == json_message
    assert from_room("teams", teams) == "settings." + json_message


BAD_HANDICAPS = [
    ({"ann": 99}, "min_length.ann: 99 must be a word length between 3 and 25"),
    ({"ann": 2}, "min_length.ann: 2 must be a word length between 3 and 25"),
    ({"ann": "3"}, "min_length.ann: expected a whole number, not text"),
    ({"ann": True}, "min_length.ann: expected a whole number, not true/false"),
    ({"ann": 3, "ANN": 4}, "min_length.ANN: 'ann' has a handicap already"),
    ({"": 3}, "min_length: a name must be non-empty text"),
    (3, "min_length: expected an object of player -> shortest word length"),
]


@pytest.mark.parametrize(("handicaps", "start"), BAD_HANDICAPS)
def test_bad_handicaps_get_one_message_from_every_front_end(handicaps: Any, start: str) -> None:
    json_message = from_score_json("min_length", handicaps)
    assert json_message.startswith(start), json_message
    room = from_room("handicaps", handicaps)
    assert room == json_message.replace("min_length", "settings.handicaps", 1)
    if isinstance(handicaps, dict):  # (Round refuses a handicap that is no mapping itself)
        assert from_round(min_length=handicaps) == json_message


def test_a_member_who_does_not_play_is_named_alike_by_the_score_json_and_the_round() -> None:
    message = "teams.red[1]: 'zed' is not one of the players"
    assert from_score_json("teams", {"red": ["ann", "zed"], "blue": ["bob"]}) == message
    assert from_round(teams={"red": ["ann", "zed"], "blue": ["bob"]}) == message
    settings = RoomSettings.from_json({"teams": {"red": ["ann", "zed"]}})
    with pytest.raises(RoundInputError, match=r"^settings\.teams\.red\[1\]: 'zed' is not a player"):
        settings.for_seated(PLAYERS, "room BCDFG")


def test_one_team_is_a_valid_setup_everywhere() -> None:
    one = {"all": ["ann", "bob"]}
    assert parse_round_request({"players": {"ann": [], "bob": []}, "teams": one}).teams == one
    assert RoomSettings.from_json({"teams": one}).for_seated(PLAYERS, "a room").teams == one
    assert check_setup(PLAYERS, BIG, one).team_of == {"ann": "all", "bob": "all"}
    result = score_round(BOARD, {"ann": ["lines"], "bob": ["lines", "mare"]}, BIG, WORDS, one)
    assert result.teams is not None and result.teams["all"].words == {"lines": 2, "mare": 1}
    assert result.ranking == ["all"]  # nothing is crossed off within a team


def test_counts_are_bounded_before_the_names_are_read() -> None:
    with pytest.raises(RoundInputError, match=r"^settings\.teams: 3 entries; the limit is 2$"):
        clean_teams({"a": ["x"], "b": ["y"], "c": ["z"]}, "settings.teams", limit=2)
    with pytest.raises(RoundInputError, match="3 members in all; the limit is 2"):
        clean_teams({"a": ["x", "y", "z"]}, "teams", limit=2)
    with pytest.raises(RoundInputError, match=r"^settings\.handicaps: 3 entries; the limit is 2$"):
        clean_handicaps({"x": 3, "y": 3, "z": 3}, "settings.handicaps", limit=2)


def test_names_are_cleaned_and_seated_as_the_players_spell_them() -> None:
    teams = clean_teams({" Ｒｅｄ ": ["ANN", "bob"]}, "teams")
    assert teams == {"Red": ["ANN", "bob"]}
    assert seat_teams(teams, ["Ann", "Bob"]) == {"Red": ["Ann", "Bob"]}
    assert seat_handicaps(clean_handicaps({"ＡＮＮ": 3}), ["Ann"]) == {"Ann": 3}
    with pytest.raises(RoundInputError, match=r"^min_length\.zed: 'zed' is not one of the players"):
        seat_handicaps({"zed": 3}, ["Ann"])


def test_settle_setup_checks_and_seats_typed_names_in_one_call() -> None:
    teams, handicaps = settle_setup(
        ["Ann", "Bob", "cy"], BIG, {"red": ["ann", "BOB"], "blue": ["CY"]}, {"bob": 3}
    )
    assert teams == {"red": ["Ann", "Bob"], "blue": ["cy"]}
    assert handicaps == {"Bob": 3}
    assert settle_setup(["ann"], BIG) == (None, {})
    with pytest.raises(
        RoundInputError,
        match=(
            r"^players\.cy: 'cy' is on no team; in team play everyone is on a team: "
            r"put them on one, or turn team play off$"
        ),
    ):
        settle_setup(["ann", "cy"], BIG, {"red": ["ann"]})
    with pytest.raises(RoundInputError, match=r"^teams: these rules are for team play"):
        settle_setup(["ann"], Rules.preset("big", teams=True))
    with pytest.raises(RoundInputError, match=r"^teams\.red\[0\]: 'zed' is not one of the players"):
        settle_setup(["ann"], BIG, {"red": ["zed"]})


# -- options --------------------------------------------------------------------------------------


def _option_error(call: Any) -> str:
    with pytest.raises(RulesError) as caught:
        call()
    return str(caught.value)


def test_every_options_whitelist_refuses_with_one_error_and_one_shape() -> None:
    shapes = {
        "rules": _option_error(lambda: Rules.preset("big", colour="red")),
        "score json": _option_error(
            lambda: parse_round_request({"players": {"ann": []}, "options": {"colour": 1}})
        ),
        "room": _option_error(lambda: RoomSettings.from_json({"options": {"colour": 1}})),
        "solo": _option_error(lambda: solo_rules("big", {"colour": 1})),
    }
    rules_list = ", ".join(sorted(RULES_OPTIONS))
    assert (
        shapes["rules"]
        == f"options: unknown rules option 'colour'; rules options are: {rules_list}"
    )
    assert shapes["score json"] == shapes["rules"]
    assert shapes["room"] == (
        "settings.options: unknown room option 'colour'; room options are: "
        + ", ".join(sorted(ROOM_OPTIONS))
    )
    assert shapes["solo"] == (
        "options: unknown solo game option 'colour'; solo game options are: "
        + ", ".join(sorted(SOLO_OPTIONS))
    )


def test_the_whitelists_differ_on_purpose() -> None:
    # A rules option a room or a solo game does not offer is refused there, by name.
    message = _option_error(lambda: RoomSettings.from_json({"options": {"teams": True}}))
    assert "unknown room option 'teams'" in message
    message = _option_error(lambda: solo_rules("big", {"duplicates": "keep"}))
    assert "unknown solo game option 'duplicates'" in message
    assert solo_rules("big", {"timer": 60}).timer == 60


@pytest.mark.parametrize("name", ["x" * 100_000, 7, None])
def test_check_options_quotes_a_bad_option_short(name: object) -> None:
    message = _option_error(lambda: check_options([name], {"timer"}, "options", "solo game"))
    assert message.startswith("options: unknown solo game option ")
    assert message.endswith("; solo game options are: timer")
    assert len(message) < 150
    check_options(["timer"], {"timer"}, "options")  # a known one passes


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({"a": 1}, "an object"),
        ([1, 2], "a list"),
        ("x" * 100, "text '" + "x" * 20 + "..."),
        (True, "true/false"),
        (None, "null"),
        (3, "the number 3"),
        (2.5, "the number 2.5"),
        (b"ann", "bytes"),
    ],
    ids=["object", "list", "long text", "bool", "null", "int", "float", "other"],
)
def test_a_refused_value_is_described_by_its_kind_short(value: object, kind: str) -> None:
    # One description for the setup's messages and the round request's (errors.kind_of).
    assert kind_of(value) == kind

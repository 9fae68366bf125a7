"""The core's smaller parsers (rules, options, dice, bands) and the error excerpt they share:
oversized or odd input is refused with a short message that quotes a bounded excerpt."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from bigboggle import Dictionary, Rules
from bigboggle.analysis import Band, parse_band
from bigboggle.dice import dice_set, parse_die
from bigboggle.errors import BoggleError, DiceError, RulesError, quoted
from bigboggle.limits import MAX_DICTIONARY_SPEC, MAX_QUOTED, MAX_SPEC_NAME
from bigboggle.rules import RULES_OPTIONS, scoring_table

pytestmark = pytest.mark.once  # no solver here: one run is enough

#: No refusal, however large the input, has a longer message than this.
LONGEST_MESSAGE = 300
MEGABYTE = "x" * 1_000_000


def short_error(call: Any, kind: type[BoggleError], *fragments: str) -> str:
    with pytest.raises(kind) as caught:
        call()
    message = str(caught.value)
    assert len(message) <= LONGEST_MESSAGE, message
    for fragment in fragments:
        assert fragment in message, message
    return message


# -- errors.quoted ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    [
        "x" * 1_000_000,
        "\x00" * 1000,
        ["a"] * 1_000_000,
        {str(i): i for i in range(10_000)},
        int("9" * 4000),
        b"z" * 100_000,
        3.5,
        None,
    ],
    ids=["text", "escapes", "list", "dict", "int", "bytes", "float", "none"],
)
def test_quoted_is_never_longer_than_its_limit(value: object) -> None:
    shown = quoted(value)
    assert len(shown) <= MAX_QUOTED
    assert len(quoted(value, 20)) <= 20


def test_quoted_is_repr_when_short_and_marks_a_cut() -> None:
    assert quoted("ann") == "'ann'"
    assert quoted("a'b") == repr("a'b")
    assert quoted(7) == "7"
    assert quoted(["a", "b"]) == "['a', 'b']"
    cut = quoted("y" * 100)
    assert cut.startswith("'yyyy") and cut.endswith("...")


def test_quoted_survives_deep_nesting() -> None:
    deep: list[Any] = []
    for _ in range(100_000):
        deep = [deep]
    assert len(quoted(deep)) <= MAX_QUOTED


# -- rules and options --------------------------------------------------------------------------


def test_an_option_called_name_is_an_unknown_option_not_a_crash() -> None:
    # Rules.preset(name, **options) with options {"name": ...} was a TypeError (a 500 on the web).
    short_error(
        lambda: Rules.preset("big", name="x"), RulesError, "unknown rules option 'name'", "timer"
    )
    assert Rules.preset("classic").name == "classic"
    # Every option names a field of the rules, and "name" (the preset's) is not one of them.
    fields = {field.name for field in dataclasses.fields(Rules)}
    assert RULES_OPTIONS.issubset(fields)
    assert "name" not in RULES_OPTIONS


@pytest.mark.parametrize(
    ("call", "fragments"),
    [
        (lambda: Rules.preset(MEGABYTE), ["unknown rules 'xxxx", "classic"]),
        (lambda: Rules.preset("big", timer=int("9" * 4000)), ["option timer=9999", "between"]),
        (lambda: Rules.preset("big", timer=MEGABYTE), ["option timer='xxx", "whole number"]),
        (lambda: Rules.preset("big", timer=["x"] * 10**6), ["option timer=['x'", "whole"]),
        (lambda: Rules.preset("big", challenge=MEGABYTE), ["option challenge=", "true or"]),
        (lambda: Rules.preset("big", duplicates=MEGABYTE), ["duplicates=", "'cancel'"]),
        (lambda: Rules.preset("big", duplicates=["cancel"]), ["duplicates=", "'keep'"]),
        (lambda: Rules.preset("big", scoring=MEGABYTE), ["unknown scoring table 'xxx"]),
        (lambda: Rules.preset("big", **{MEGABYTE: 1}), ["unknown rules option 'xxx"]),
        (lambda: scoring_table(MEGABYTE), ["unknown scoring table"]),
        (
            lambda: Rules.preset("big", dictionary="d" * (MAX_DICTIONARY_SPEC + 1)),
            [f"at most {MAX_DICTIONARY_SPEC}"],
        ),
    ],
    ids=[
        "preset",
        "huge-int",
        "text-timer",
        "list-timer",
        "flag",
        "duplicates",
        "duplicates-list",
        "scoring",
        "option-key",
        "table",
        "dictionary",
    ],
)
def test_rules_refuse_oversized_values_briefly(call: Any, fragments: list[str]) -> None:
    short_error(call, RulesError, *fragments)


# -- dice -----------------------------------------------------------------------------------------


def test_dice_names_and_dice_text_are_bounded() -> None:
    short_error(lambda: dice_set(MEGABYTE), DiceError, "unknown dice set 'xxx", "classic")
    short_error(lambda: parse_die("A" * 1_000_000), DiceError, "six faces", "'AAAA")
    short_error(lambda: parse_die(None), DiceError, "six faces")  # type: ignore[arg-type]
    assert parse_die("HIMNQuU") == ("H", "I", "M", "N", "Qu", "U")
    assert parse_die("QuQuQuQuQuQu") == ("Qu",) * 6  # the longest die text there is


# -- bands ----------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny() -> Dictionary:
    return Dictionary.from_words(["lines", "mare"])


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("1" * 1_000_000, [f"at most {MAX_SPEC_NAME} characters", "'1111"]),
        ("9" * (MAX_SPEC_NAME + 1) + "-", [f"at most {MAX_SPEC_NAME}"]),
        ("²-5", ["points like 300-500"]),  # str.isdigit says yes; int() would say no
        ("٣-5", ["points like 300-500"]),  # an Arabic-Indic digit
        ("words:1-2-3", ["points like"]),
    ],
    ids=["megabyte", "just-over", "superscript", "arabic-indic", "two-dashes"],
)
def test_bands_are_bounded_and_in_ascii_digits(
    text: str, fragments: list[str], tiny: Dictionary
) -> None:
    short_error(lambda: parse_band(text, Rules.preset("big"), tiny), RulesError, *fragments)


def test_the_longest_band_text_still_parses(tiny: Dictionary) -> None:
    text = "words:" + "1" * 16 + "-" + "9" * (MAX_SPEC_NAME - 23)
    assert len(text) == MAX_SPEC_NAME
    band = parse_band(text, Rules.preset("big"), tiny)
    assert band == Band(min_words=int("1" * 16), max_words=int(text.rpartition("-")[2]))


# -- invisible and control characters in words, on every path that takes words -----------------

#: ``quilt`` as pasted with something invisible: a zero-width space, a soft hyphen, a BOM,
#: a right-to-left mark, a zero-width joiner, a variation selector.
INVISIBLE_QUILTS = [
    "quilt\u200b",
    "\u00adquilt",
    "\ufeffquilt",
    "qui\u200flt",
    "qu\u200dilt",
    "quilt\ufe0f",
]
#: Words with control characters in them: BEL, SOH, an OSC escape sequence, DEL, a C1 CSI.
CONTROL_WORDS = ["\x07quilt", "ab\x01cd", "\x1b]0;pwned\x07quilt", "quil\x7ft", "\x9b31mquilt"]
BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def client(db_url: str) -> Any:
    from fastapi.testclient import TestClient

    from bigboggle.web import create_app

    return TestClient(create_app(db_url))


def test_the_score_api_judges_a_word_without_its_invisible_characters(client: Any) -> None:
    answer = client.post("/api/score", json={"board": BOARD, "players": {"ann": INVISIBLE_QUILTS}})
    assert answer.status_code == 200, answer.text
    verdicts = [(w["word"], w["verdict"]) for w in answer.json()["players"]["ann"]["words"]]
    assert verdicts[0] == ("quilt", "scored")
    assert {verdict for _, verdict in verdicts[1:]} == {"repeated"}


@pytest.mark.parametrize("word", CONTROL_WORDS)
def test_the_score_api_refuses_a_control_character_naming_the_entry(client: Any, word: str) -> None:
    answer = client.post("/api/score", json={"board": BOARD, "players": {"ann": ["lines", word]}})
    assert answer.status_code == 400, answer.text
    error = answer.json()["error"]
    assert "players.ann[1]" in error and "control character" in error and repr(word)[:8] in error
    assert not any(char in error for char in "\x07\x1b\x9b\x7f\x01")


def test_a_tournament_round_refuses_control_characters_and_cleans_invisible_ones(
    client: Any,
) -> None:
    created = client.post("/api/tournaments", json={"name": "Friday", "rounds": 2}).json()
    url, key = f"/api/tournaments/{created['id']}/rounds", {"X-Tournament-Key": created["key"]}
    refused = client.post(
        url, json={"board": BOARD, "players": {"ann": ["\x1bquilt"]}}, headers=key
    )
    assert refused.status_code == 400 and "players.ann[0]" in refused.json()["error"]
    scored = client.post(
        url, json={"board": BOARD, "players": {"ann": ["quilt\u200b"]}}, headers=key
    )
    assert scored.status_code == 201, scored.text
    (word,) = scored.json()["round"]["players"]["ann"]["words"]
    assert word["word"] == "quilt" and word["verdict"] == "scored"


def test_a_solo_game_stores_the_word_judged_and_refuses_control_characters(client: Any) -> None:
    game = client.post("/api/games", json={"board": BOARD, "options": {"timer": 60}}).json()
    url, key = f"/api/games/{game['id']}/words", {"X-Game-Key": game["key"]}
    for word in CONTROL_WORDS:
        refused = client.post(url, json={"word": word}, headers=key)
        assert refused.status_code == 400, refused.text
        assert "control character" in refused.json()["error"]
    answer = client.post(url, json={"word": "\u00adquilt"}, headers=key).json()["result"]
    assert (answer["word"], answer["verdict"]) == ("quilt", "scored")
    assert answer.get("entry", "quilt") == "quilt"
    stored = client.get(f"/api/games/{game['id']}", headers=key).json()["words"]
    assert [(w["word"], w.get("entry", "quilt")) for w in stored] == [("quilt", "quilt")]
    only_invisible = client.post(url, json={"word": "\u200b\u200d"}, headers=key)
    assert only_invisible.status_code == 400 and "expected a word" in only_invisible.json()["error"]


def test_a_room_word_with_a_control_character_is_refused_by_the_socket(client: Any) -> None:
    from test_web_rooms import answer, create, join

    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        answer(ann, {"type": "start"})
        refused = answer(ann, {"type": "submit", "word": "\x1b]0;pwned\x07quilt"})
        assert refused["type"] == "error", refused
        assert "control character" in refused["message"] and "\x1b" not in refused["message"]

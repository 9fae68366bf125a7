"""Scoring tables and rule presets."""

from __future__ import annotations

import json

import pytest

from bigboggle import PRESETS, Rules, RulesError, scoring_table


@pytest.mark.parametrize(
    ("table", "expected"),
    [
        ("classic", {2: 0, 3: 1, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 12: 11}),
        ("big", {3: 0, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 15: 11}),
        ("superbig", {3: 0, 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9: 18, 10: 20, 12: 24}),
        ("superbig-alt", {4: 1, 8: 11, 9: 13, 10: 15, 12: 19}),
    ],
)
def test_tables(table: str, expected: dict[int, int]) -> None:
    for letters, points in expected.items():
        assert scoring_table(table).points(letters) == points, letters


def test_table_descriptions() -> None:
    assert scoring_table("big").describe() == "4:1 5:2 6:3 7:5 8+:11"
    assert "9+: 2 a letter" in scoring_table("superbig").describe()
    assert "beyond 8" in scoring_table("superbig-alt").describe()


def test_presets_match_the_design() -> None:
    facts = {
        "classic": (4, 4, "classic", 3, 180, "classic"),
        "classic-old": (4, 4, "classic-old", 3, 180, "classic"),
        "big": (5, 5, "big", 4, 180, "big"),
        "big-1979": (5, 5, "big-1979", 4, 180, "big"),
        "superbig": (6, 6, "superbig", 4, 240, "superbig"),
    }
    assert set(PRESETS) == set(facts)
    for name, (rows, cols, dice, minimum, timer, table) in facts.items():
        rules = Rules.preset(name)
        assert (
            rules.rows,
            rules.cols,
            rules.dice,
            rules.min_length,
            rules.timer,
            rules.scoring,
        ) == (rows, cols, dice, minimum, timer, table)
        assert rules.duplicates == "cancel"
        assert rules.dictionary == "standard"


def test_options() -> None:
    assert Rules.preset("big", advanced=True).min_length == 5
    assert Rules.preset("big", advanced=True, min_length=6).min_length == 6
    rules = Rules.preset("big", challenge=True, duplicates="keep", timer=90, teams=True)
    assert (rules.challenge, rules.duplicates, rules.timer, rules.teams) == (True, "keep", 90, True)
    assert Rules.preset("superbig", scoring="superbig-alt").table.points(9) == 13


def test_word_points_and_handicap() -> None:
    rules = Rules.preset("big")
    assert rules.word_points(3) == 0
    assert rules.word_points(3, min_length=3) == 1  # a younger player's 3-letter word
    assert rules.word_points(4) == 1
    assert rules.word_points(8) == 11
    assert Rules.preset("big", advanced=True).word_points(4) == 0


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"min_length": 2}, "min_length=2"),
        ({"min_length": "4"}, "whole number"),
        ({"timer": 0}, "timer=0"),
        ({"duplicates": "sometimes"}, "duplicates='sometimes'"),
        ({"advanced": "yes"}, "advanced='yes'"),
        ({"scoring": "weird"}, "unknown scoring table 'weird'"),
        ({"colour": "red"}, "unknown rules option 'colour'"),
        ({"challenge_bonus": -1}, "challenge_bonus=-1"),
    ],
)
def test_bad_options(options: dict[str, object], fragment: str) -> None:
    with pytest.raises(RulesError) as caught:
        Rules.preset("big", **options)
    assert fragment in str(caught.value)


def test_unknown_preset() -> None:
    with pytest.raises(RulesError, match="known presets: classic"):
        Rules.preset("giant")


def test_to_json_is_plain_data() -> None:
    data = Rules.preset("big").to_json()
    assert data["name"] == "big"
    assert data["scoring_table"] == "4:1 5:2 6:3 7:5 8+:11"
    assert json.loads(json.dumps(data)) == data


def test_describe_is_one_line_of_text() -> None:
    """Every ``describe()`` in the library is one human-readable line; ``to_json()`` is data."""
    assert Rules.preset("big").describe() == (
        "big: Big Boggle (5x5, Deluxe dice), words of 4+ letters, 3:00, "
        "scoring 4:1 5:2 6:3 7:5 8+:11, duplicates cancel, standard dictionary"
    )
    options = Rules.preset("classic", advanced=True, challenge=True, teams=True, timer=90)
    assert options.describe().endswith(", advanced, challenge +5, teams")
    assert "words of 5+ letters" in options.describe()
    for rules in PRESETS.values():
        assert isinstance(rules.describe(), str) and "\n" not in rules.describe()
        assert isinstance(rules.table.describe(), str) and "\n" not in rules.table.describe()


def test_every_describe_in_the_library_is_text_and_to_json_is_data() -> None:
    """One shape: ``describe()`` is a line for people, ``to_json()`` plain data for JSON."""
    import importlib
    import inspect
    import pkgutil
    import typing

    import bigboggle

    seen = set()
    for module_info in pkgutil.iter_modules(bigboggle.__path__, "bigboggle."):
        if module_info.name.split(".")[1] in ("cli", "tui", "web", "__main__", "_solve_c"):
            continue
        module = importlib.import_module(module_info.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__:
                continue
            if "describe" in vars(cls):
                assert typing.get_type_hints(cls.describe)["return"] is str, name
                seen.add(name)
            if "to_json" in vars(cls):
                returned = typing.get_type_hints(cls.to_json)["return"]
                assert typing.get_origin(returned) is dict, name
    assert {"Rules", "ScoringTable", "LoadReport", "Standing"} <= seen

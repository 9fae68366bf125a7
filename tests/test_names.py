"""Players', teams' and rooms' names: the normal form, the refused characters, the clash key."""

from __future__ import annotations

import pytest

from bigboggle.errors import BoggleError, RoundInputError
from bigboggle.limits import MAX_NAME_LENGTH, MAX_QUOTED
from bigboggle.names import clean_name, name_key

pytestmark = pytest.mark.once  # no solver here: one run is enough

#: No refusal, however long the name, has a longer message than this.
LONGEST_MESSAGE = 250


def refused(name: object, *fragments: str, where: str = "players") -> str:
    with pytest.raises(RoundInputError) as caught:
        clean_name(name, where)
    assert isinstance(caught.value, BoggleError)
    assert isinstance(caught.value, ValueError)
    message = str(caught.value)
    assert message.startswith(f"{where}: "), message
    for fragment in fragments:
        assert fragment in message, message
    assert len(message) <= LONGEST_MESSAGE, message
    return message


@pytest.mark.parametrize(
    ("name", "normal"),
    [
        ("ann", "ann"),
        ("Ann", "Ann"),  # case is kept; only the clash key folds it
        ("  ann  ", "ann"),
        ("Ann   Marie\u00a0 Lee", "Ann Marie Lee"),  # runs of space, a no-break space too
        ("ａｎｎ", "ann"),  # full-width letters
        ("ﬁona", "fiona"),  # the fi ligature
        ("Zoe\u0308", "Zoë"),  # e + combining diaeresis composes
        ("Zoë", "Zoë"),
        ("Ⅻ", "XII"),  # a Roman numeral sign
        ("李雷", "李雷"),
        ("a" * MAX_NAME_LENGTH, "a" * MAX_NAME_LENGTH),
    ],
)
def test_names_take_their_nfkc_normal_form(name: str, normal: str) -> None:
    assert clean_name(name) == normal
    assert clean_name(normal) == normal  # the normal form is a fixed point


@pytest.mark.parametrize(
    ("name", "fragments"),
    [
        ("ann\u200b", ["ZERO WIDTH SPACE", "U+200B", "position 4"]),
        ("\u200dann", ["ZERO WIDTH JOINER", "U+200D", "position 1"]),
        ("an\u00adn", ["SOFT HYPHEN", "U+00AD"]),
        ("ann\u202e", ["RIGHT-TO-LEFT OVERRIDE", "U+202E"]),
        ("ann\ufeff", ["U+FEFF"]),
        ("a\x00nn", ["U+0000", "position 2"]),
        ("ann\x1b[31m", ["U+001B"]),
        ("ann\n", ["U+000A"]),
        ("ann\tlee", ["U+0009"]),
        ("ann\u2028", ["LINE SEPARATOR", "U+2028"]),
        ("ann\ue000", ["U+E000"]),  # private use
        ("ann\ud800", ["U+D800"]),  # a lone surrogate
        ("ann\U000e0001", ["U+E0001"]),  # a tag character
    ],
)
def test_invisible_and_control_characters_are_refused_and_named(
    name: str, fragments: list[str]
) -> None:
    message = refused(name, "invisible or control character", *fragments)
    assert repr(name)[:-1][: MAX_QUOTED - 4] in message  # the name itself, quoted with !r


@pytest.mark.parametrize("name", ["", "   ", "\u00a0", "\u3000 \u2003"])
def test_blank_names_are_refused(name: str) -> None:
    refused(name, "non-empty")


@pytest.mark.parametrize("name", [None, 7, ["ann"], {"name": "ann"}, b"ann"])
def test_a_name_must_be_text(name: object) -> None:
    refused(name, "must be text")


def test_names_are_bounded_after_normalising_and_before() -> None:
    refused("a" * (MAX_NAME_LENGTH + 1), f"longer than {MAX_NAME_LENGTH}")
    # Full-width letters are one character each before and after: 41 of them are too long.
    refused("ａ" * (MAX_NAME_LENGTH + 1), f"longer than {MAX_NAME_LENGTH}")
    # A ligature grows when normalised: 21 "ﬀ" are 42 letters.
    refused("ﬀ" * 21, f"longer than {MAX_NAME_LENGTH}")
    # A megabyte is refused by its length alone, with a bounded excerpt.
    message = refused("x" * 1_000_000, f"longer than {MAX_NAME_LENGTH}")
    assert "'xxxxxxxx" in message
    # Space around a name does not count towards its length.
    assert clean_name(" " * 10 + "a" * MAX_NAME_LENGTH + " " * 10) == "a" * MAX_NAME_LENGTH


def test_where_names_the_field() -> None:
    refused("ann\u200b", where="settings.teams")
    refused("", where="name")


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("ann", "ANN"),
        ("ann", "Ann"),
        ("straße", "STRASSE"),  # case folding, not just lowering
        ("ann", "ａｎｎ"),  # full width
        ("ann", "\u0430nn"),  # Cyrillic а
        ("ANN", "\u0410NN"),  # Cyrillic А
        ("bob", "b\u043eb"),  # Cyrillic о
        ("oscar", "\u03bfscar"),  # Greek ο
        ("pepe", "\u0440e\u0440e"),  # Cyrillic р
        ("alice", "\u0430lice"),
    ],
)
def test_look_alike_names_share_a_key(first: str, second: str) -> None:
    assert name_key(clean_name(first)) == name_key(clean_name(second))


@pytest.mark.parametrize(
    ("first", "second"),
    [("ann", "anne"), ("ann", "an n"), ("bob", "rob"), ("zoe", "zoë"), ("李雷", "李雪")],
)
def test_different_names_have_different_keys(first: str, second: str) -> None:
    assert name_key(clean_name(first)) != name_key(clean_name(second))


def test_the_key_is_stable_and_ascii_names_are_their_own_casefold() -> None:
    assert name_key("Ann Lee") == "ann lee"
    assert name_key("\u0430nn") == "ann"
    assert name_key(name_key("ANN")) == name_key("ANN")


@pytest.mark.parametrize(
    "invisible",
    ["\ufe0f", "\U000e0100", "\u034f", "\u3164", "\u115f", "\u2800", "\u180b", "\U000e0041"],
)
def test_characters_that_draw_nothing_are_refused(invisible: str) -> None:
    with pytest.raises(RoundInputError, match=f"U\\+{ord(invisible):04X}"):
        clean_name("alice" + invisible)

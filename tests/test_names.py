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
        # Latin look-alikes and digits (UTS #39 confusables, Latin to Latin included):
        ("alice", "a\u04cfice"),  # Cyrillic palochka
        ("alice", "\u0251lice"),  # Latin alpha
        ("alice", "al\u0131ce"),  # dotless i
        ("alice", "a\u01c0ice"),  # Latin letter dental click
        ("Alice", "AIice"),  # capital I for l
        ("ALICE", "alice"),  # ... so a capital I is an l in any case
        ("Alice", "A1ice"),  # digit one
        ("bob", "b0b"),  # digit zero
        ("BOB", "B0B"),
        ("mary", "rnary"),  # r n for m
        # marks dropped:
        ("victim", "vi\u0307ctim"),  # i with a combining dot above
        ("VICTIM", "V\u0130CT\u0130M"),  # capital I with dot above
        ("victim", "VICTI\u1e40"),  # M with dot above
        ("zoe", "zoë"),
        # separators dropped:
        ("victim", "vict im"),
        ("victim", "victim."),
        ("victim", "vi_ctim"),
        ("victim", "vi-ctim"),
        ("victim", "vi\u00b7ctim"),  # middle dot
        ("Rater A", "Rater_A"),
        ("Rater A", "Rater-A"),
        ("Rater A", "rater a."),
        ("ann", "an n"),
    ],
)
def test_look_alike_names_share_a_key(first: str, second: str) -> None:
    assert name_key(clean_name(first)) == name_key(clean_name(second))


@pytest.mark.parametrize(
    ("first", "second"),
    [("ann", "anne"), ("bob", "rob"), ("李雷", "李雪"), ("-", "alice"), ("-", "_")],
)
def test_different_names_have_different_keys(first: str, second: str) -> None:
    assert name_key(clean_name(first)) != name_key(clean_name(second))


#: Ordinary first names that nobody would take for one another.
ORDINARY_NAMES = [
    "ann",
    "anna",
    "anne",
    "bob",
    "rob",
    "tim",
    "tom",
    "sam",
    "pam",
    "jim",
    "jon",
    "jan",
    "dan",
    "don",
    "ben",
    "ken",
    "len",
    "lee",
    "eve",
    "ava",
    "ivy",
    "amy",
    "max",
    "alex",
    "alan",
    "adam",
    "emma",
    "ella",
    "noah",
    "liam",
    "mia",
    "zoe",
    "joe",
    "jo",
    "al",
    "ed",
    "ted",
    "tess",
    "jess",
    "kim",
    "kit",
    "nick",
    "rick",
    "mick",
    "mark",
    "mike",
    "luke",
    "lucy",
    "lily",
    "lola",
    "omar",
    "oscar",
    "olga",
    "ivan",
    "igor",
    "nina",
    "nils",
    "otto",
    "李雷",
    "李雪",
    "Иван",
    "Ольга",
    "Ηλίας",
    "राम",
    "रमा",
]


def test_ordinary_distinct_names_keep_distinct_keys() -> None:
    keys: dict[str, list[str]] = {}
    for name in ORDINARY_NAMES:
        keys.setdefault(name_key(clean_name(name)), []).append(name)
    assert [names for names in keys.values() if len(names) > 1] == []


def test_the_key_is_stable_text() -> None:
    assert name_key("Ann Lee") == name_key("annlee") == "annlee"
    assert name_key("\u0430nn") == "ann"
    for name in ("ANN", "Mary-Jo", "VİCTİM", "Zoë"):
        assert isinstance(name_key(name), str)
        assert name_key(name_key(name)) == name_key(name)


@pytest.mark.parametrize(
    "symbol", ["\u2713", "\u2714", "\u2705", "\u2611", "\U0001f5f8", "\U0001f600", "^", "\u00a8"]
)
def test_symbols_such_as_the_member_check_mark_are_refused_and_named(symbol: str) -> None:
    with pytest.raises(RoundInputError, match=f"symbol .*U\\+{ord(symbol):04X}.* position 8"):
        clean_name("victim " + symbol)


@pytest.mark.parametrize(
    "invisible",
    ["\ufe0f", "\U000e0100", "\u034f", "\u3164", "\u115f", "\u2800", "\u180b", "\U000e0041"],
)
def test_characters_that_draw_nothing_are_refused(invisible: str) -> None:
    with pytest.raises(RoundInputError, match=f"U\\+{ord(invisible):04X}"):
        clean_name("alice" + invisible)

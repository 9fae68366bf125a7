"""Players', teams' and rooms' names: one normal form, and one key for "is this name taken?".

A name is what a person typed, NFKC-normalised (so full-width ``ａｎｎ`` is ``ann``), with
surrounding space trimmed and inner runs of space folded to one. Control characters, format
characters (zero-width spaces and joiners, bidirectional overrides), unassigned and private-use
code points and surrogates are refused with a message that says which character and where: they
make two names look alike, or text render backwards.

:func:`name_key` is what uniqueness is decided on: a UTS #39 *skeleton* of the name, made
blind to case, to generic accents and to separators, so names a reader would take for one
another share it: ``Alice``, ``ALICE``, ``Аlice`` (Cyrillic А), ``AIice`` (capital I),
``A1ice``, ``ɑlice``, ``alıce``, ``aӏice``, ``a l i c e``, ``alice.`` and ``al_ice`` are one
name, while ``ann`` and ``anna``, ``bob`` and ``rob``, ``tim`` and ``tom`` stay two. The
look-alikes are Unicode's own (``confusables.txt``, as the ``confusable-homoglyphs`` package
ships it: the data is Unicode's, the package is already a dependency, and it is read here
into a character -> prototype table, see :func:`_prototypes`). Symbols (``✓``, emoji) are
refused in names: the pages mark a member's name with a badge no name can draw.

The key is stored: ``accounts.name_key`` (unique) and ``games.daily_key`` (one counted daily
game per name, date and preset). Both came with revision 0009, not yet released when this
key replaced the older one (case folding and other scripts' letters only), so no data needs
migrating: accounts are new with it, and a daily row keeps the key it was written with, which
only matters for the slot of the day the server is upgraded on (a name with a look-alike
written before the upgrade may play that day's board once more under the other spelling).
Room seats compare keys live, never stored.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources

from .errors import RoundInputError, quoted
from .limits import MAX_NAME_LENGTH

#: Unicode general categories a name may not contain: controls, format characters (zero-width,
#: bidi overrides), surrogates, private use, unassigned; line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
#: Characters that draw nothing although their category is a visible one: Unicode's
#: Default_Ignorable_Code_Point ranges outside the refused categories (the combining grapheme
#: joiner, Hangul fillers, Khmer inherent vowels, Mongolian and other variation selectors, tag
#: characters), and blank symbols (the braille blank). From DerivedCoreProperties.txt.
_INVISIBLE_RANGES: tuple[tuple[int, int], ...] = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180F),
    (0x2800, 0x2800),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0000, 0xE0FFF),
)
#: The characters of :data:`_INVISIBLE_RANGES` as one pattern, to find them at C speed.
INVISIBLE = re.compile(
    "["
    + "".join(f"{re.escape(chr(low))}-{re.escape(chr(high))}" for low, high in _INVISIBLE_RANGES)
    + "]"
)
#: Symbol categories a name may not contain: other symbols (check marks ✓ ✔ ☑ ✅ 🗸, which
#: the pages use to mark a member, and the rest of the dingbats and emoji) and modifier
#: symbols (lone accents such as ``^`` or ``¨``, which draw on their neighbours).
_SYMBOL_CATEGORIES = frozenset({"So", "Sk"})
#: Generic combining diacritics (the Combining Diacritical Marks blocks, their Extended and
#: Supplement blocks, those for symbols and the half marks) that :func:`name_key` leaves out:
#: ``vi̇ctim`` (i with a combining dot above) and ``zoë`` read as ``victim`` and ``zoe``. Marks
#: that are parts of letters in Indic, Arabic or Hebrew writing are other blocks, and count.
_DIACRITICS = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
#: Dots that separate a name's parts (``victim.``, ``a.b``), not letters: full stop, middle
#: dots, one-dot leader, hyphenation point, katakana middle dot and their full-width forms.
_DOTS = frozenset(".\u00b7\u2024\u2027\u2219\u30fb\uff0e\uff65")
#: How often :func:`name_key` folds at most (it settles after two rounds on Unicode's data).
_MAX_FOLDS = 4
#: Looked at before normalising, so a hostile string costs no more than this many times the
#: longest name (room for combining marks and full-width forms that normalise shorter).
_RAW_SLACK = 4


def clean_name(name: object, where: str = "name", *, max_length: int = MAX_NAME_LENGTH) -> str:
    """``name`` in its normal form; :class:`RoundInputError` (a ``ValueError``) says what is
    wrong and where (``where`` names the field, like ``players`` or ``settings.teams``).
    ``max_length`` bounds the normal form (a tournament's name may be longer than a player's)."""
    if not isinstance(name, str):
        raise RoundInputError(f"{where}: a name must be text, not {quoted(name)}")
    if len(name) > max_length * _RAW_SLACK:
        raise RoundInputError(
            f"{where}: name {quoted(name)} is longer than {max_length} characters"
        )
    for index, char in enumerate(name):
        if unicodedata.category(char) in _REFUSED_CATEGORIES or draws_nothing(char):
            label = unicodedata.name(char, "")
            shown = f"{label}, U+{ord(char):04X}" if label else f"U+{ord(char):04X}"
            raise RoundInputError(
                f"{where}: name {quoted(name)} has an invisible or control character "
                f"({shown}) at position {index + 1}; names are visible text"
            )
        if unicodedata.category(char) in _SYMBOL_CATEGORIES:
            label = unicodedata.name(char, f"U+{ord(char):04X}")
            raise RoundInputError(
                f"{where}: name {quoted(name)} has a symbol ({label}, U+{ord(char):04X}) at "
                f"position {index + 1}; names are letters, digits, spaces and punctuation "
                "(pages mark members' names with symbols)"
            )
    normal = " ".join(unicodedata.normalize("NFKC", name).split())
    if not normal:
        raise RoundInputError(f"{where}: a name must be non-empty text, not {quoted(name)}")
    if len(normal) > max_length:
        raise RoundInputError(
            f"{where}: name {quoted(normal)} is longer than {max_length} characters"
        )
    return normal


def draws_nothing(char: str) -> bool:
    """Whether ``char`` is one of the characters that draw nothing although their category is
    a visible one (the table above); words and names both leave them out."""
    code = ord(char)
    return any(low <= code <= high for low, high in _INVISIBLE_RANGES)


def name_key(name: str) -> str:
    """The key two names clash on: their UTS #39 *skeleton*, made blind to case, marks and
    separators, so names people would take for one another share it. (Give it a name that
    :func:`clean_name` accepted.)

    Step by step: the name in NFKD; generic diacritics (:data:`_DIACRITICS`) and separators
    (:func:`_is_separator`) left out; each character replaced by its confusables prototype
    (:func:`_prototype`, Latin to Latin included: ``ɑ`` is ``a``, ``ı`` is ``i``, ``I`` and
    ``1`` are ``l``, ``0`` is ``O``, ``m`` is ``rn``); case-folded; and all that again until
    nothing changes (folding case can make a new look-alike: ``M`` -> ``m`` -> ``rn``).
    Last, ``i`` is ``l``: a capital ``I`` is both the letter ``i`` and the look-alike of
    ``l``, so a key blind to case and to look-alikes cannot keep them apart. A name that is
    nothing but separators keeps them (so ``-`` is still a name with a key of its own)."""
    key = _fold(name, drop_separators=True) or _fold(name, drop_separators=False)
    return key.replace("i", "l")


def _fold(name: str, *, drop_separators: bool) -> str:
    """:func:`name_key`'s repeated step, to a fixed point (at most :data:`_MAX_FOLDS` rounds:
    the confusables data is a star, a prototype maps to itself, so two rounds settle it)."""
    text = name
    for _ in range(_MAX_FOLDS):
        decomposed = unicodedata.normalize("NFKD", text)
        kept = (
            char
            for char in decomposed
            if not _DIACRITICS.match(char) and not (drop_separators and _is_separator(char))
        )
        folded = "".join(_prototype(char) for char in kept).casefold()
        if folded == text:
            break
        text = folded
    return text


@lru_cache(maxsize=8192)
def _is_separator(char: str) -> bool:
    """Whether ``char`` separates the parts of a name without being one: spaces, dashes,
    connector punctuation (``_``), full stops and middle dots, and characters that draw nothing
    (format characters, the default-ignorable ones): ``vict im``, ``vi_ctim`` and ``victim.``
    are ``victim`` to a reader."""
    category = unicodedata.category(char)
    return (
        char.isspace()
        or category in {"Zs", "Pd", "Pc", "Cf"}
        or char in _DOTS
        or draws_nothing(char)
    )


@lru_cache(maxsize=8192)
def _prototype(char: str) -> str:
    """``char``'s confusables prototype (itself if it has none)."""
    return _prototypes().get(char, char)


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each character of Unicode's confusables data (UTS #39 ``confusables.txt``, as the
    ``confusable-homoglyphs`` package ships it) -> its prototype.

    The package keeps each line ``source ; prototype`` of ``confusables.txt`` both ways round
    (every character lists its look-alikes), not which side was the prototype. In that data a
    prototype is never a source, so the look-alike pairs form stars: one prototype, its
    sources around it. The prototype is the star's centre; in a star of two, the one of more
    than one character (``m`` -> ``rn``), else the ASCII one, else the lower code point (in a
    pair both sides get the same key whichever is chosen)."""
    data = json.loads(
        resources.files("confusable_homoglyphs")
        .joinpath("confusables.json")
        .read_text(encoding="utf-8")
    )
    neighbours: dict[str, set[str]] = {}
    for char, glyphs in data.items():
        source = _strip_marks(char)
        for glyph in glyphs:
            other = _strip_marks(glyph["c"])
            if source and other and other != source:
                neighbours.setdefault(source, set()).add(other)
                neighbours.setdefault(other, set()).add(source)
    table: dict[str, str] = {}
    for char, around in neighbours.items():
        if char in table:
            continue
        star = {char} | around | {far for near in around for far in neighbours[near]}
        centre = max(
            star, key=lambda each: (len(neighbours[each]), len(each), each.isascii(), -ord(each[0]))
        )
        for member in star:
            if len(member) == 1:
                table[member] = centre
    return table


def _strip_marks(text: str) -> str:
    """``text`` without the left-to-right and right-to-left marks the package wraps around
    right-to-left characters."""
    return text.replace("\u200e", "").replace("\u200f", "")

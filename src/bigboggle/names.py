"""Players', teams' and rooms' names: one normal form, and one key for "is this name taken?".

A name is what a person typed, NFKC-normalised (so full-width ``ａｎｎ`` is ``ann``), with
surrounding space trimmed and inner runs of space folded to one. Control characters, format
characters (zero-width spaces and joiners, bidirectional overrides), unassigned and private-use
code points and surrogates are refused with a message that says which character and where: they
make two names look alike, or text render backwards.

:func:`name_key` is what uniqueness is decided on: the normal form, case-folded, with letters of
other scripts that look like Latin ones (Cyrillic ``а``, Greek ``ο``) replaced by the Latin
letter, using the Unicode confusables data of ``confusable-homoglyphs``. So ``Alice``,
``ALICE`` and ``Аlice`` (Cyrillic А) cannot sit in one room together.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from confusable_homoglyphs import confusables  # type: ignore[import-untyped]

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
    """The key two names clash on: the normal form, case-folded, with cross-script look-alike
    letters replaced by their Latin twins. (Give it a name that :func:`clean_name` accepted.)"""
    folded = unicodedata.normalize("NFKC", name.casefold())
    return "".join(_latin_twin(char) for char in folded)


@lru_cache(maxsize=4096)
def _latin_twin(char: str) -> str:
    if char.isascii():
        return char
    found = confusables.is_confusable(char, greedy=True, preferred_aliases=["latin"])
    if found:
        for glyph in found[0]["homoglyphs"]:
            twin: str = glyph["c"]
            if twin.isascii() and twin.isalpha():
                return twin.casefold()
    return char

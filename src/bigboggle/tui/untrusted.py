"""What a server sends the terminal, made safe to show: text cleaned, JSON parsed strictly,
shapes checked.

``bigboggle play --challenge CODE --server URL`` talks to whatever server a player is pointed
at, so everything it answers is a stranger's input bound for the player's terminal. A terminal
obeys escape sequences in the text it is given: ESC and the other control characters in a name
or an error message could write the clipboard (OSC 52), retitle the window, move the cursor,
leave the alternate screen or ring the bell. So :func:`safe_text` **replaces** every such
character with ``U+FFFD`` (a visible mark: the player sees that something was there), never
removes it, and :func:`cleaned` does so in every string of an answer (keys too), before any
screen sees it. :func:`shown` also cuts a text to a bound, for error messages.

:func:`parse_json` refuses what Python's ``json`` would otherwise accept but no real server
sends: ``NaN``, ``Infinity`` and numbers too large for a float (``1e999``), and answers nested
deeper than a bigboggle answer is. The shape checks (:func:`record`, :func:`list_of`,
:func:`whole`, :func:`number`, ...) describe what the client's callers read of an answer, so a
wrong type or a number out of range is one clear :class:`Unexpected`, naming where it is, and
not a traceback later in a screen.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping, Sequence

from ..errors import quoted
from ..limits import CLIENT_MAX_ANSWER_DEPTH, CLIENT_MAX_SHOWN_TEXT

#: What replaces a character a terminal could obey: the replacement character, visible.
PLACEHOLDER = "\ufffd"

#: Characters never passed to the terminal: every C0 control (tab and newline too), DEL, every
#: C1 control (``\x9b`` is CSI on its own), the line and paragraph separators, and the bidi
#: embeddings, overrides and isolates (which make text read other than it is).
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

#: How a cut text ends.
ELLIPSIS = "…"


class Unexpected(ValueError):
    """An answer is not of the shape expected; the message says where and what was found."""


def safe_text(text: str) -> str:
    """``text`` with every character of :data:`UNSAFE` replaced by :data:`PLACEHOLDER` (one
    for one, so lengths and positions are kept)."""
    return UNSAFE.sub(PLACEHOLDER, text) if UNSAFE.search(text) else text


def shown(text: str, limit: int = CLIENT_MAX_SHOWN_TEXT) -> str:
    """``text`` safe to print (:func:`safe_text`) and at most ``limit`` characters, an
    ellipsis marking a cut: for a server's words inside an error message."""
    if len(text) > limit:
        text = text[: limit - 1] + ELLIPSIS
    return safe_text(text)


def _refuse_constant(name: str) -> float:
    raise Unexpected(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise Unexpected(f"{shown(text, 40)} is too large a number")
    return value


def parse_json(raw: bytes) -> object:
    """``raw`` as JSON, strictly, every string cleaned (:func:`cleaned`): :class:`Unexpected`
    for what is JSON of a kind no server should send (``NaN``/``Infinity``, a float
    overflowing to infinity, nesting past the bound), :class:`ValueError` (a
    ``UnicodeDecodeError`` among them) for what is not JSON at all."""
    try:
        data = json.loads(raw, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise Unexpected(f"nested deeper than {CLIENT_MAX_ANSWER_DEPTH} levels") from None
    return cleaned(data)


def cleaned(value: object, depth: int = 0) -> object:
    """``value`` (parsed JSON) with every string, keys too, made safe (:func:`safe_text`);
    :class:`Unexpected` past :data:`~bigboggle.limits.CLIENT_MAX_ANSWER_DEPTH` levels."""
    if isinstance(value, str):
        return safe_text(value)
    if depth >= CLIENT_MAX_ANSWER_DEPTH and isinstance(value, dict | list):
        raise Unexpected(f"nested deeper than {CLIENT_MAX_ANSWER_DEPTH} levels")
    if isinstance(value, dict):
        return {safe_text(key): cleaned(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list):
        return [cleaned(item, depth + 1) for item in value]
    return value


# -- shapes -----------------------------------------------------------------------------------

#: A check of one value of an answer, given where it is (``standings[2].total``).
Shape = Callable[[object, str], None]


def _wrong(value: object, where: str, expected: str) -> Unexpected:
    return Unexpected(f"{where or 'the answer'} is {quoted(value, 60)}, not {expected}")


def text(value: object, where: str) -> None:
    """A string."""
    if not isinstance(value, str):
        raise _wrong(value, where, "text")


def flag(value: object, where: str) -> None:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise _wrong(value, where, "true or false")


def whole(least: int, most: int) -> Shape:
    """A whole number from ``least`` to ``most`` (``true`` is not one)."""

    def check(value: object, where: str) -> None:
        if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
            raise _wrong(value, where, f"a whole number from {least:,} to {most:,}")

    return check


def number(least: float, most: float) -> Shape:
    """A number (whole or not) from ``least`` to ``most``; finite, as the parser ensures."""

    def check(value: object, where: str) -> None:
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not least <= value <= most
        ):
            raise _wrong(value, where, f"a number from {least:,g} to {most:,g}")

    return check


def optional(shape: Shape) -> Shape:
    """``null`` or ``shape``."""

    def check(value: object, where: str) -> None:
        if value is not None:
            shape(value, where)

    return check


def list_of(shape: Shape) -> Shape:
    """A list whose every item is ``shape``."""

    def check(value: object, where: str) -> None:
        if not isinstance(value, list):
            raise _wrong(value, where, "a list")
        for index, item in enumerate(value):
            shape(item, f"{where}[{index}]")

    return check


def pair(first: Shape, second: Shape) -> Shape:
    """A list of exactly two items: ``first`` then ``second``."""

    def check(value: object, where: str) -> None:
        if not isinstance(value, list) or len(value) != 2:
            raise _wrong(value, where, "a pair")
        first(value[0], f"{where}[0]")
        second(value[1], f"{where}[1]")

    return check


def table_of(shape: Shape) -> Shape:
    """An object whose every value is ``shape`` (any keys)."""

    def check(value: object, where: str) -> None:
        if not isinstance(value, Mapping):
            raise _wrong(value, where, "an object")
        for key, item in value.items():
            shape(item, f"{where}.{key}" if where else str(key))

    return check


def record(fields: Mapping[str, Shape], required: Sequence[str] = ()) -> Shape:
    """An object: each key of ``fields`` checked when present (``required`` ones must be);
    other keys are let through as they are (a contract may gain keys)."""

    def check(value: object, where: str) -> None:
        if not isinstance(value, Mapping):
            raise _wrong(value, where, "an object")
        for name in required:
            if name not in value:
                raise Unexpected(f"{where + ' ' if where else ''}has no {name!r}")
        for name, shape in fields.items():
            if name in value:
                shape(value[name], f"{where}.{name}" if where else name)

    return check

"""Reading a round to score from JSON-shaped data (the ``score`` command, the web API).

The input is ``{"board": …, "players": {"ann": ["line", …]}, "teams": {"red": ["ann"]},
"min_length": {"kid": 3}, "rules": "big", "dictionary": "standard", "options": {…}}``; only
``players`` is required (the board may come from elsewhere). Errors name the JSON key at fault.

Everything a stranger sends is bounded before any deep work, so a hostile document costs no more
than reading it (limits in :mod:`bigboggle.limits`): the JSON text (:data:`MAX_ROUND_JSON`), the
board text, the number of players, teams and entries, each entry's length, every name (normalised
by :func:`bigboggle.names.clean_name`, and no two alike by :func:`bigboggle.names.name_key`),
the rules' name, the dictionary and the options (known names, plain values). Team members and
handicaps must name players of the round. Teams and handicaps are checked by the one check of a
round's setup (:mod:`bigboggle.round_setup`) and option names by the one options check
(:func:`bigboggle.rules.check_options`), as a room's settings and the round engine are, so the
same mistake reads the same everywhere. Messages quote a bounded excerpt of what was wrong.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from dataclasses import dataclass
from typing import Any

from .board import Board
from .errors import BoggleError, RoundInputError, kind_of, quoted
from .limits import (
    MAX_DICTIONARY_SPEC,
    MAX_ENTRY_LENGTH,
    MAX_JSON_KEYS,
    MAX_LIST_LENGTH,
    MAX_PLAYERS,
    MAX_ROUND_JSON,
    MAX_RULES_OPTIONS,
    MAX_SPEC_NAME,
)
from .names import INVISIBLE, clean_name, draws_nothing
from .round_setup import (
    check_distinct,
    clean_handicaps,
    clean_teams,
    seat_handicaps,
    seat_teams,
)
from .rules import RULES_OPTIONS, check_options

_KEYS = ("board", "players", "teams", "min_length", "rules", "dictionary", "options")


@dataclass(frozen=True)
class RoundRequest:
    """A round to score, checked for shape and size; names are in their normal form.

    Rules, dictionary and option values are checked when the round is scored."""

    board: Board | None
    players: dict[str, list[str]]
    teams: dict[str, list[str]] | None = None
    min_length: dict[str, int] | None = None
    rules: str | None = None
    dictionary: str | None = None
    options: dict[str, Any] | None = None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    mapping = dict(pairs)
    if len(mapping) == len(pairs):  # the usual case, at C speed
        return mapping
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            raise RoundInputError(
                f"duplicate key {quoted(key)}: each player, team or option may appear once "
                "(a second list would silently replace the first)"
            )
        seen.add(key)
    raise AssertionError("unreachable: a shorter dict means a repeated key")


def load_json(
    text: str,
    source: str = "the input",
    *,
    max_chars: int = MAX_ROUND_JSON,
    max_keys: int = MAX_JSON_KEYS,
) -> Any:
    """Parse JSON text, refusing duplicate keys (a second ``"ann"`` would drop the first list).

    Before parsing, text longer than ``max_chars`` is refused, and so is text with more than
    ``max_keys`` ``:`` characters (every object key has one; keys are what parsing costs most).
    Nesting deeper than Python's recursion limit (about a thousand levels: a round needs three)
    is refused, not a crash. :class:`RoundInputError` names the source and the position of a
    syntax error.
    """
    if not isinstance(text, str):
        raise RoundInputError(f"{source} is not text but {type(text).__name__}")
    if len(text) > max_chars:
        raise RoundInputError(
            f"{source} is {len(text)} characters of JSON; the limit is {max_chars}"
        )
    colons = text.count(":")
    if colons > max_keys:
        raise RoundInputError(
            f"{source} has {colons} ':' characters; JSON here has at most {max_keys} object "
            "keys (each is followed by one)"
        )
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise RoundInputError(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise RoundInputError(
            f"{source} is not valid JSON here: it is nested too deeply (more than about a "
            "thousand levels; a round's JSON has three)"
        ) from None
    except RoundInputError as exc:
        raise RoundInputError(f"{source}: {exc}") from None
    except ValueError as exc:  # a number of more digits than Python converts
        reason = str(exc)
        if "integer string conversion" in reason:
            reason = f"a number has more than {sys.get_int_max_str_digits()} digits"
        raise RoundInputError(f"{source} is not valid JSON here: {reason[:120]}") from None


def parse_round_request(data: Any) -> RoundRequest:
    """Check the shape and size of ``data``, normalise its names and parse its board;
    :class:`RoundInputError` (naming the key) otherwise."""
    if not isinstance(data, dict):
        raise RoundInputError(f"expected a JSON object at the top level, not {kind_of(data)}")
    unknown = [key for key in data if key not in _KEYS]
    if unknown:
        raise RoundInputError(f"unknown key {quoted(unknown[0])}; the keys are: {', '.join(_KEYS)}")
    board = _board(data.get("board"))
    if "players" not in data:
        raise RoundInputError("players: missing; give each player's list of words")
    players = _players(data["players"])
    teams = _teams(data["teams"], players) if data.get("teams") is not None else None
    min_length = None
    if data.get("min_length") is not None:
        min_length = _min_length(data["min_length"], players)
    rules = _spec(data.get("rules"), "rules", MAX_SPEC_NAME)
    dictionary = _spec(data.get("dictionary"), "dictionary", MAX_DICTIONARY_SPEC)
    options = _options(data["options"]) if data.get("options") is not None else None
    return RoundRequest(
        board=board,
        players=players,
        teams=teams,
        min_length=min_length,
        rules=rules,
        dictionary=dictionary,
        options=options,
    )


def _board(value: Any) -> Board | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise RoundInputError(f"board: expected board text, not {kind_of(value)}")
    try:
        return Board.parse(value)  # refuses text over MAX_BOARD_TEXT before parsing it
    except BoggleError as exc:
        raise RoundInputError(f"board: {exc}") from None


def _bounded_mapping(value: Any, key: str, what: str, limit: int) -> dict[Any, Any]:
    """``value`` if it is an object of at most ``limit`` entries (``what`` says of what)."""
    if not isinstance(value, dict):
        raise RoundInputError(f"{key}: expected an object of {what}, not {kind_of(value)}")
    if len(value) > limit:
        raise RoundInputError(f"{key}: {len(value)} entries; the limit is {limit}")
    return value


def _bounded_list(value: Any, key: str, limit: int, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise RoundInputError(f"{key}: expected a list, not {kind_of(value)}")
    if len(value) > limit:
        raise RoundInputError(f"{key}: {len(value)} {what}; the limit is {limit}")
    return value


def _text(name: Any, where: str) -> str:
    """``name`` if it is text (refused by its kind otherwise: a list is not printed whole)."""
    if not isinstance(name, str):
        raise RoundInputError(f"{where}: a name must be text, not {kind_of(name)}")
    return name


def _players(value: Any) -> dict[str, list[str]]:
    players = _bounded_mapping(value, "players", "name -> list", MAX_PLAYERS)
    out: dict[str, list[str]] = {}
    for raw_name in players:
        _text(raw_name, "players")
    check_distinct(players, "players")
    for raw_name, items in players.items():
        name = clean_name(raw_name, "players")
        key = f"players.{name}"
        entries = _bounded_list(items, key, MAX_LIST_LENGTH, "entries")
        if _plain_entries(entries):
            out[name] = list(entries)
            continue
        checked = []
        for i, entry in enumerate(entries):  # only to say which entry is at fault
            _check_entry(entry, f"{key}[{i}]")
            checked.append(clean_entry(entry, f"{key}[{i}]"))
        out[name] = checked
    return out


def clean_entry(entry: str, where: str = "word") -> str:
    """``entry`` (text already bounded in length) as it is judged and stored: characters that
    draw nothing (format characters such as the zero-width space and joiner, the soft hyphen,
    the byte-order mark and bidirectional marks, and the other default-ignorable ones that
    :func:`bigboggle.names.draws_nothing` knows) are removed, so ``quilt`` pasted with a
    zero-width space is judged as ``quilt``, the word the screen shows.

    A control character (Unicode category ``Cc``: ``BEL``, ``ESC``, ``DEL``, the C1 controls)
    inside the entry is refused with :class:`RoundInputError` naming ``where``, the character
    and its position, as a name's is: no word holds one, and echoed to a terminal it would run
    an escape sequence. Blanks around the entry (a tab, a newline) are left to the judge, which
    trims them. Printable text, the usual entry, is returned as it is after one C-speed test.
    """
    if entry.isprintable() and (entry.isascii() or not INVISIBLE.search(entry)):
        return entry
    core = entry.strip()
    offset = len(entry) - len(entry.lstrip())
    for index, char in enumerate(core):
        if unicodedata.category(char) == "Cc":
            raise RoundInputError(
                f"{where}: {quoted(entry, 40)} has a control character "
                f"({_char_name(char)}) at position {offset + index + 1}; a word is letters"
            )
    return "".join(
        char for char in entry if unicodedata.category(char) != "Cf" and not draws_nothing(char)
    )


def _char_name(char: str) -> str:
    """``char`` as a message names it: ``BEL, U+0007`` (controls have no Unicode name; their
    common abbreviation is used where there is one)."""
    label = unicodedata.name(char, "") or _CONTROL_NAMES.get(ord(char), "")
    return f"{label}, U+{ord(char):04X}" if label else f"U+{ord(char):04X}"


#: Short names of the control characters people meet (Unicode gives controls no name).
_CONTROL_NAMES = {
    0x00: "NUL",
    0x07: "BEL",
    0x08: "BACKSPACE",
    0x09: "TAB",
    0x0A: "LINE FEED",
    0x0D: "CARRIAGE RETURN",
    0x1B: "ESC",
    0x7F: "DEL",
    0x9B: "CSI",
}


def _plain_entries(entries: list[Any]) -> bool:
    """Whether every entry is printable text of at most MAX_ENTRY_LENGTH that UTF-8 can write,
    checked a list at a time (no per-entry Python work for the usual, good list); an entry
    that is not printable (a control or format character) is looked at by :func:`clean_entry`."""
    if not set(map(type, entries)) <= {str}:
        return False
    if max(map(len, entries), default=0) > MAX_ENTRY_LENGTH:
        return False
    joined = "".join(entries)
    if not joined.isprintable():
        return False
    if joined.isascii():
        return True
    if INVISIBLE.search(joined):
        return False
    try:
        joined.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_entry(entry: Any, where: str) -> None:
    """Refuse ``entry`` if it is not text, too long or holds a lone surrogate."""
    if not isinstance(entry, str):
        raise RoundInputError(f"{where}: expected text, not {kind_of(entry)}")
    if len(entry) > MAX_ENTRY_LENGTH:
        raise RoundInputError(
            f"{where}: {quoted(entry, 24)} is {len(entry)} characters; an entry is at most "
            f"{MAX_ENTRY_LENGTH} (no word on any board is longer)"
        )
    if not entry.isascii():
        try:
            entry.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise RoundInputError(
                f"{where}: {quoted(entry, 24)} holds a lone surrogate "
                f"(U+{ord(entry[exc.start]):04X}); an entry is text"
            ) from None


def _teams(value: Any, players: dict[str, list[str]]) -> dict[str, list[str]]:
    """The teams, checked by the one check of a round's setup, members spelled as players."""
    return seat_teams(clean_teams(value, "teams"), players, "teams")


def _min_length(value: Any, players: dict[str, list[str]]) -> dict[str, int]:
    """The handicaps, checked by the one check of a round's setup, spelled as players."""
    return seat_handicaps(clean_handicaps(value, "min_length"), players, "min_length")


def _spec(value: Any, key: str, limit: int) -> str | None:
    """A rules or dictionary name: text of at most ``limit`` characters, or ``None``."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise RoundInputError(f"{key}: expected a name, not {kind_of(value)}")
    if not value or len(value) > limit:
        raise RoundInputError(
            f"{key}: {quoted(value)} is {len(value)} characters; a name is 1-{limit}"
        )
    return value


def _plain_value(value: Any) -> bool:
    """Whether ``value`` may be an option's: true/false, a whole number or a short text."""
    return isinstance(value, bool | int) or (
        isinstance(value, str) and len(value) <= MAX_DICTIONARY_SPEC
    )


def _options(value: Any) -> dict[str, Any]:
    options = _bounded_mapping(value, "options", "option -> value", MAX_RULES_OPTIONS)
    check_options(options, RULES_OPTIONS, "options")
    for name, setting in options.items():
        if not _plain_value(setting):
            raise RoundInputError(
                f"options.{name}: expected true/false, a whole number or a name, "
                f"not {kind_of(setting)}"
            )
    return dict(options)

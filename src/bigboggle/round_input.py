"""Reading a round to score from JSON-shaped data (the ``score`` command, the web API).

The input is ``{"board": …, "players": {"ann": ["line", …]}, "teams": {"red": ["ann"]},
"min_length": {"kid": 3}, "rules": "big", "dictionary": "standard", "options": {…}}``; only
``players`` is required (the board may come from elsewhere). Errors name the JSON key at fault.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from .board import Board
from .errors import BoggleError, RoundInputError

_KEYS = ("board", "players", "teams", "min_length", "rules", "dictionary", "options")


@dataclass(frozen=True)
class RoundRequest:
    """A round to score, checked for shape; the values are checked when it is scored."""

    board: Board | None
    players: dict[str, list[str]]
    teams: dict[str, list[str]] | None = None
    min_length: dict[str, int] | None = None
    rules: str | None = None
    dictionary: str | None = None
    options: dict[str, Any] | None = None


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise RoundInputError(
                f"duplicate key {key!r}: each player, team or option may appear once "
                "(a second list would silently replace the first)"
            )
        seen[key] = value
    return seen


def load_json(text: str, source: str = "the input") -> Any:
    """Parse JSON text, refusing duplicate keys (a second ``"ann"`` would drop the first list).

    :class:`RoundInputError` names the source and the position of a syntax error.
    """
    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as exc:
        raise RoundInputError(
            f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}"
        ) from None
    except RecursionError:
        raise RoundInputError(f"{source} is not valid JSON here: it is nested too deeply") from None
    except RoundInputError as exc:
        raise RoundInputError(f"{source}: {exc}") from None
    except ValueError as exc:  # e.g. a number of thousands of digits
        raise RoundInputError(f"{source} is not valid JSON here: {exc}") from None


def parse_round_request(data: Any) -> RoundRequest:
    """Check the shape of ``data`` and parse its board; :class:`RoundInputError` otherwise."""
    if not isinstance(data, dict):
        raise RoundInputError(f"expected a JSON object at the top level, not {_kind(data)}")
    unknown = [key for key in data if key not in _KEYS]
    if unknown:
        raise RoundInputError(f"unknown key {unknown[0]!r}; the keys are: {', '.join(_KEYS)}")
    board = None
    if data.get("board") is not None:
        if not isinstance(data["board"], str):
            raise RoundInputError(f"board: expected board text, not {_kind(data['board'])}")
        try:
            board = Board.parse(data["board"])
        except BoggleError as exc:
            raise RoundInputError(f"board: {exc}") from None
    if "players" not in data:
        raise RoundInputError("players: missing; give each player's list of words")
    players = _mapping_of_lists(data["players"], "players")
    teams = _mapping_of_lists(data["teams"], "teams") if data.get("teams") is not None else None
    min_length = None
    if data.get("min_length") is not None:
        if not isinstance(data["min_length"], dict):
            raise RoundInputError(
                f"min_length: expected an object of player -> number, not {_kind(data['min_length'])}"
            )
        min_length = dict(data["min_length"])
    for key in ("rules", "dictionary"):
        if data.get(key) is not None and not isinstance(data[key], str):
            raise RoundInputError(f"{key}: expected a name, not {_kind(data[key])}")
    options = None
    if data.get("options") is not None:
        if not isinstance(data["options"], dict):
            raise RoundInputError(f"options: expected an object, not {_kind(data['options'])}")
        options = dict(data["options"])
    return RoundRequest(
        board=board,
        players=players,
        teams=teams,
        min_length=min_length,
        rules=data.get("rules"),
        dictionary=data.get("dictionary"),
        options=options,
    )


def _mapping_of_lists(value: Any, key: str) -> dict[str, list[str]]:
    if not isinstance(value, dict):
        raise RoundInputError(f"{key}: expected an object of name -> list, not {_kind(value)}")
    out: dict[str, list[str]] = {}
    for name, items in value.items():
        if not isinstance(items, list):
            raise RoundInputError(f"{key}.{name}: expected a list, not {_kind(items)}")
        for i, item in enumerate(items):
            if not isinstance(item, str):
                raise RoundInputError(f"{key}.{name}[{i}]: expected text, not {_kind(item)}")
        out[name] = list(items)
    return out


def _kind(value: Any) -> str:
    names = {dict: "an object", list: "a list", str: "text", bool: "true/false", type(None): "null"}
    for kind, label in names.items():
        if type(value) is kind:
            return label
    if isinstance(value, int | float):
        return f"the number {value!r}"
    return type(value).__name__

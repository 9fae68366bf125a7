"""A pydantic validation error in one line for people: the first bad key (``players.ann[4]``)
and what is wrong with it, the value quoted short. The JSON API's 400s and the room protocol's
``bad_message`` errors both say it so. And :data:`WHOLE_NUMBER`, what every integer query
parameter of the API and of the pages is checked by."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BeforeValidator, ValidationError

#: A whole number as a query string writes it: ASCII digits, a minus sign at most, one way
#: only (no leading zero, no ``-0``), so that one number is one request to a cache or a log.
_WHOLE_NUMBER = re.compile(r"0|-?[1-9][0-9]*")


def _whole_number(value: object) -> object:
    """``value`` if it is not text, or is a whole number in digits; pydantic's own parsing of a
    query parameter's text takes ``0.0``, `` 1``, ``+1`` and ``1_000`` for numbers too, which
    no client means (and a cache or log would not see as the same request)."""
    if isinstance(value, str) and not _WHOLE_NUMBER.fullmatch(value):
        raise ValueError("expected a whole number written in digits, like 42")
    return value


#: The check of every integer query parameter of the API, after its bounds (so that the
#: OpenAPI document keeps them as ``minimum`` and ``maximum``):
#: ``Annotated[Annotated[int, Field(ge=1, le=9)], WHOLE_NUMBER, Query()]``, or for an optional
#: one ``Annotated[Annotated[int, Field(...)] | None, WHOLE_NUMBER, Query()]``. Only digits (and
#: a leading ``-``), with no leading zero, are a number (``007`` and ``-0`` are refused: each
#: has a shorter way to be written); anything else is a 400 naming the parameter.
WHOLE_NUMBER = BeforeValidator(_whole_number)


def describe_validation(exc: ValidationError | Any) -> str:
    """One line naming the first bad key (``players.ann[4]``) and what is wrong with it."""
    errors = exc.errors() if hasattr(exc, "errors") else []
    if not errors:
        return "the request is not valid"
    first = errors[0]
    where = ""
    for part in first.get("loc", ()):
        if part in ("body", "query", "path"):
            continue
        where += f"[{part}]" if isinstance(part, int) else (f".{part}" if where else str(part))
    message = first.get("msg", "is not valid")
    kind = first.get("type", "")
    if kind == "value_error":
        # A check of ours raised it: its own words, without pydantic's "Value error, ".
        message = message.removeprefix("Value error, ")
    if kind == "extra_forbidden":
        message = "is not a known key"
    elif kind == "missing":
        message = "is missing"
    shown = first.get("input")
    detail = f" (got {_short(shown)})" if kind not in ("missing", "extra_forbidden") else ""
    more = f"; and {len(errors) - 1} more problem(s)" if len(errors) > 1 else ""
    return f"{where or 'the request'}: {message}{detail}{more}"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

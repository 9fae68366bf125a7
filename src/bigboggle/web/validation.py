"""A pydantic validation error in one line for people: the first bad key (``players.ann[4]``)
and what is wrong with it, the value quoted short. The JSON API's 400s and the room protocol's
``bad_message`` errors both say it so."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError


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

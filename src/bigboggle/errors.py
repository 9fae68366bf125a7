"""The exceptions of bigboggle.

Every error the library raises on bad input derives from :class:`BoggleError`, so front ends can
catch one class and show its message. Parse errors also derive from :class:`ValueError`
because they are, to Python, a bad value. Messages quote the offending input with ``!r`` and
say where it is.
"""

from __future__ import annotations

import reprlib

from .limits import MAX_QUOTED


class BoggleError(Exception):
    """Base class of every error bigboggle raises for bad input or an impossible request."""


class BoardError(BoggleError, ValueError):
    """Board text that cannot be parsed, or a board that breaks a size limit."""


class DiceError(BoggleError, ValueError):
    """An unknown dice set or a malformed die."""


class RulesError(BoggleError, ValueError):
    """An unknown preset, scoring table or option, or an option value out of range."""


class WordListError(BoggleError, ValueError):
    """A word list that is missing, empty, binary or undecodable, or an unknown built-in name."""


class RoundInputError(BoggleError, ValueError):
    """Players' lists, teams or handicaps that do not fit together (for round scoring)."""


class DeckError(RoundInputError):
    """A trainer's deck (a file, a browser's) that cannot be read: what is wrong and where."""


class PhotoError(BoggleError, ValueError):
    """A photo that cannot be read as a board: not an image, too large, damaged, or no tray
    found in it."""


class AtlasError(BoggleError, ValueError):
    """An atlas file (``bigboggle atlas``'s JSON) that cannot be read: what is wrong and where
    (``entries[3].best[1].value: must be a whole number``)."""


class GameStateError(BoggleError):
    """A game action at the wrong time: submitting before the start or after the deadline."""


class BusyError(BoggleError):
    """The server has more work queued than it takes: try again after ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BudgetExceededError(BoggleError):
    """A job (a solve, a round's scoring, a search) ran past its time budget."""


class NotFoundError(BoggleError):
    """No such thing (a game, a tournament, a room, a round, a resume token) to read or change."""


class NotOwnerError(GameStateError):
    """A change to something (a solo game, a tournament) by someone without its key."""


class RoomFullError(GameStateError):
    """A join to a room whose seats are all taken."""


class NotHostError(GameStateError):
    """Something only the room's host may do."""


class KickedError(GameStateError):
    """A seat the host removed: its token no longer works."""


class RoomClosedError(GameStateError):
    """A room closed for good (idle too long): it can be read, not played."""


class AccountError(RoundInputError):
    """A user name or password that breaks a rule (the message names the rule): 400."""


class NameTakenError(GameStateError):
    """A user name already a member's, or a name in play that a member holds (reserved): 409."""


class NotLoggedInError(BoggleError):
    """Something only a logged-in member may do, asked without a (live) session: 401."""


class WrongPasswordError(NotLoggedInError):
    """A log-in (or a password check) with a wrong user name or password: 401. The message
    never says which of the two was wrong."""


class ThrottledError(BoggleError):
    """Too many failed log-ins for an account or from an address: try again after
    ``retry_after`` seconds (429)."""

    def __init__(self, message: str, retry_after: int = 60) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StoreError(BoggleError):
    """A database that cannot be opened, one this version of bigboggle cannot use, or one
    that cannot answer a session (unreachable, locked too long, a table missing)."""


class SearchBudgetExceeded(BoggleError):
    """:meth:`~bigboggle.board.Board.path_for` gave up: the word might be on the board, but
    finding out costs more than the budget allowed."""


_SHORT = reprlib.Repr()
_SHORT.maxlevel = 2
_SHORT.maxlist = _SHORT.maxtuple = _SHORT.maxdict = _SHORT.maxset = 3
_SHORT.maxstring = _SHORT.maxother = _SHORT.maxlong = MAX_QUOTED


def quoted(value: object, limit: int = MAX_QUOTED) -> str:
    """``repr(value)`` for an error message, cut to at most ``limit`` characters (``...`` marks
    a cut). Costs no more than the excerpt it shows, however large or deep ``value`` is, so a
    message can quote anything a stranger sent."""
    if isinstance(value, str):
        shown = repr(value[: limit + 1])
        if len(value) <= limit and len(shown) <= limit:
            return shown
    else:
        try:
            shown = _SHORT.repr(value)
        except (ValueError, RecursionError):  # an int too long to print, a cycle of views
            shown = f"<{type(value).__name__}>"
        if len(shown) <= limit:
            return shown
    return shown[: limit - 3] + "..."


def kind_of(value: object) -> str:
    """What ``value`` is, for a message that refuses it: ``an object``, ``a list``,
    ``true/false``, ``null``, ``text 'abc'`` or ``the number 3`` (text and numbers quoted short
    by :func:`quoted`; a large list or object is named, not printed)."""
    labels = {dict: "an object", list: "a list", bool: "true/false", type(None): "null"}
    for kind, label in labels.items():
        if type(value) is kind:
            return label
    if isinstance(value, str):
        return f"text {quoted(value, 24)}"
    if isinstance(value, int | float):
        return f"the number {quoted(value, 24)}"
    return type(value).__name__

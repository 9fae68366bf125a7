"""The exceptions of bigboggle.

Every error the library raises on bad input derives from :class:`BoggleError`, so front ends can
catch one class and show its message. Parse errors also derive from :class:`ValueError`
because they are, to Python, a bad value. Messages quote the offending input with ``!r`` and
say where it is.
"""

from __future__ import annotations


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


class GameStateError(BoggleError):
    """A game action at the wrong time: submitting before the start or after the deadline."""


class BusyError(BoggleError):
    """The server has more work queued than it takes: try again after ``retry_after`` seconds."""

    def __init__(self, message: str, retry_after: int = 1) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class BudgetExceededError(BoggleError):
    """A job (a solve, a round's scoring, a search) ran past its time budget."""

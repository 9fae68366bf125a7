"""Verdicts: what became of one entry of a player's list."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .board import Path
from .family import is_offensive


class Verdict(StrEnum):
    """What became of one entry of a player's list."""

    NOT_A_WORD = "not_a_word"
    REPEATED = "repeated"
    TOO_SHORT = "too_short"
    NOT_ON_BOARD = "not_on_board"
    NOT_IN_DICTIONARY = "not_in_dictionary"
    #: A word the game's family filter refuses (rules option ``family``): 0 points, and it
    #: crosses nothing off.
    REFUSED = "refused"
    CROSSED_OFF = "crossed_off"
    SCORED = "scored"

    @property
    def label(self) -> str:
        """The verdict in words, as every Python front end shows it ("not on the board")."""
        return VERDICT_LABELS[self]

    @property
    def is_valid(self) -> bool:
        """Whether the word itself was good (scored, or crossed off by another player's)."""
        return self in (Verdict.CROSSED_OFF, Verdict.SCORED)


#: Each verdict in words: the one place the command line, the terminal game and the web pages'
#: templates take them from (the pages' scripts have their own copy in ``static/api.js``,
#: checked against this one by the tests).
VERDICT_LABELS: dict[Verdict, str] = {
    Verdict.NOT_A_WORD: "not a word",
    Verdict.REPEATED: "repeated",
    Verdict.TOO_SHORT: "too short",
    Verdict.NOT_ON_BOARD: "not on the board",
    Verdict.NOT_IN_DICTIONARY: "not in the dictionary",
    Verdict.REFUSED: "not allowed here (family filter)",
    Verdict.CROSSED_OFF: "crossed off",
    Verdict.SCORED: "scored",
}


@dataclass(frozen=True)
class WordResult:
    """One entry of a list: as typed, as compared, its verdict and points (bonus included)."""

    entry: str
    word: str
    verdict: Verdict
    score: int = 0
    bonus: int = 0
    path: Path | None = None

    @property
    def offensive(self) -> bool:
        """Whether the family filter's list holds the word (:func:`bigboggle.family.is_offensive`)."""
        return is_offensive(self.word)

    def to_json(self) -> dict[str, Any]:
        """``{"word", "verdict", "score", "bonus"}``, with ``"entry"`` (as typed) when it
        differs from the word, ``"path"`` when the word lies on the board and
        ``"offensive": true`` when the family filter's list holds the word."""
        data: dict[str, Any] = {
            "word": self.word,
            "verdict": self.verdict.value,
            "score": self.score,
            "bonus": self.bonus,
        }
        if self.entry != self.word:
            data["entry"] = self.entry
        if self.path is not None:
            data["path"] = [list(step) for step in self.path]
        if is_offensive(self.word):
            data["offensive"] = True
        return data

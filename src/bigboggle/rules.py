"""Scoring tables and rule presets.

A :class:`ScoringTable` turns a word's letter count into points (``Qu`` counts two letters, since
the word ``queen`` has five). :class:`Rules` bundles what a game needs: the dice and board size
for shaking, the minimum word length, the timer, the table and the optional games (advanced,
challenge cube, teams, duplicates kept as a house rule, the dictionary, the family filter).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from .dice import DICE_SETS
from .errors import RulesError, quoted
from .limits import MAX_DICTIONARY_SPEC

#: Shortest and longest minimum word length the rules accept.
MIN_WORD_LENGTH = 3
MAX_WORD_LENGTH = 25
#: Longest timer the rules accept, in seconds (an hour).
MAX_TIMER = 3600

Duplicates = Literal["cancel", "keep"]

#: The options :meth:`Rules.with_options` (and :meth:`Rules.preset`) take.
RULES_OPTIONS = frozenset(
    {
        "advanced",
        "min_length",
        "challenge",
        "challenge_bonus",
        "teams",
        "duplicates",
        "timer",
        "dictionary",
        "scoring",
        "family",
    }
)


@dataclass(frozen=True)
class ScoringTable:
    """Points by letter count.

    ``steps`` are ``(letters, points)`` pairs in increasing order; a word scores the points of
    the last step its length reaches. From ``long_from`` letters on (if set) a word instead
    scores ``long_base + long_per_letter * (letters - long_offset)``.
    """

    name: str
    title: str
    steps: tuple[tuple[int, int], ...]
    long_from: int | None = None
    long_base: int = 0
    long_per_letter: int = 0
    long_offset: int = 0

    def points(self, letters: int) -> int:
        """Points for a word of ``letters`` letters (0 below the table's shortest step)."""
        if self.long_from is not None and letters >= self.long_from:
            return self.long_base + self.long_per_letter * (letters - self.long_offset)
        earned = 0
        for length, value in self.steps:
            if letters >= length:
                earned = value
            else:
                break
        return earned

    @property
    def shortest(self) -> int:
        """The fewest letters that score by the table itself."""
        return self.steps[0][0]

    def describe(self) -> str:
        """A one-line summary such as ``4:1 5:2 6:3 7:5 8+:11``."""
        parts = []
        for number, (length, value) in enumerate(self.steps):
            last = number == len(self.steps) - 1
            parts.append(f"{length}{'+' if last and self.long_from is None else ''}:{value}")
        if self.long_from is not None:
            if self.long_base == 0 and self.long_offset == 0:
                parts.append(f"{self.long_from}+: {self.long_per_letter} a letter")
            else:
                parts.append(
                    f"{self.long_from}+: {self.long_base} + {self.long_per_letter} a letter "
                    f"beyond {self.long_offset}"
                )
        return " ".join(parts)


_TABLES = [
    ScoringTable(
        "classic",
        "Boggle: 3-4 letters 1, 5: 2, 6: 3, 7: 5, 8 or more: 11",
        ((3, 1), (4, 1), (5, 2), (6, 3), (7, 5), (8, 11)),
    ),
    ScoringTable(
        "big",
        "Big Boggle: 4 letters 1, 5: 2, 6: 3, 7: 5, 8 or more: 11",
        ((4, 1), (5, 2), (6, 3), (7, 5), (8, 11)),
    ),
    ScoringTable(
        "superbig",
        "Super Big Boggle: 4: 1, 5: 2, 6: 3, 7: 5, 8: 11, 9 or more: 2 points a letter",
        ((4, 1), (5, 2), (6, 3), (7, 5), (8, 11)),
        long_from=9,
        long_per_letter=2,
    ),
    ScoringTable(
        "superbig-alt",
        "Super Big Boggle, other printing: as superbig but 9 or more: 11 + 2 a letter beyond 8",
        ((4, 1), (5, 2), (6, 3), (7, 5), (8, 11)),
        long_from=9,
        long_base=11,
        long_per_letter=2,
        long_offset=8,
    ),
]

#: Every scoring table, by name.
SCORING_TABLES: dict[str, ScoringTable] = {table.name: table for table in _TABLES}


def scoring_table(name: str) -> ScoringTable:
    """The scoring table called ``name``; :class:`RulesError` lists the known names otherwise."""
    try:
        if not isinstance(name, str):
            raise KeyError(name)
        return SCORING_TABLES[name]
    except KeyError:
        known = ", ".join(SCORING_TABLES)
        raise RulesError(f"unknown scoring table {quoted(name)}; known tables: {known}") from None


@dataclass(frozen=True)
class Rules:
    """The rules of a game: a preset plus options. Build one with :meth:`Rules.preset`.

    ``min_length`` is the minimum for every player (``advanced`` raises it to 5 unless set
    explicitly); a handicapped player's own minimum is given to round scoring per player.
    ``timer`` is in seconds. ``challenge`` asks shakes for the challenge cube; a word whose path
    can run through a board's challenge cell earns ``challenge_bonus`` whether or not the board
    came from a shake. ``duplicates`` is ``"cancel"`` (the rule: words found by two players are
    crossed off) or ``"keep"`` (a house rule). ``family`` makes the game refuse offensive
    words (:mod:`bigboggle.family`; verdict ``refused``, no points, nothing crossed off); by
    default the dictionary scores unfiltered.
    """

    name: str
    title: str
    dice: str
    rows: int
    cols: int
    min_length: int
    timer: int
    scoring: str
    advanced: bool = False
    challenge: bool = False
    challenge_bonus: int = 5
    teams: bool = False
    duplicates: Duplicates = "cancel"
    dictionary: str = "standard"
    family: bool = False

    def __post_init__(self) -> None:
        _check_int("min_length", self.min_length, MIN_WORD_LENGTH, MAX_WORD_LENGTH)
        _check_int("timer", self.timer, 1, MAX_TIMER)
        _check_int("challenge_bonus", self.challenge_bonus, 0, 100)
        for flag in ("advanced", "challenge", "teams", "family"):
            if not isinstance(getattr(self, flag), bool):
                raise RulesError(
                    f"option {flag}={quoted(getattr(self, flag))} must be true or false"
                )
        if not isinstance(self.duplicates, str) or self.duplicates not in ("cancel", "keep"):
            raise RulesError(
                f"option duplicates={quoted(self.duplicates)} must be 'cancel' or 'keep'"
            )
        if not isinstance(self.dice, str) or self.dice not in DICE_SETS:
            raise RulesError(
                f"unknown dice set {quoted(self.dice)}; known sets: {', '.join(DICE_SETS)}"
            )
        scoring_table(self.scoring)
        if (
            not isinstance(self.dictionary, str)
            or not self.dictionary
            or len(self.dictionary) > MAX_DICTIONARY_SPEC
        ):
            raise RulesError(
                f"option dictionary={quoted(self.dictionary)} must be a name or a path "
                f"(at most {MAX_DICTIONARY_SPEC} characters)"
            )

    @classmethod
    def preset(cls, name: str = "big", /, **options: Any) -> Rules:
        """The preset called ``name`` with ``options`` applied (see :meth:`with_options`).

        ``name`` is positional only, so an option called ``name`` (from a stranger's JSON) is
        an unknown option, not a clash of arguments."""
        try:
            if not isinstance(name, str):
                raise KeyError(name)
            base = PRESETS[name]
        except KeyError:
            known = ", ".join(PRESETS)
            raise RulesError(f"unknown rules {quoted(name)}; known presets: {known}") from None
        return base.with_options(**options)

    def with_options(self, **options: Any) -> Rules:
        """A copy with options changed: ``advanced``, ``min_length``, ``challenge``,
        ``challenge_bonus``, ``teams``, ``duplicates``, ``timer``, ``dictionary``, ``scoring``,
        ``family``.

        ``advanced=True`` sets the minimum length to 5 unless ``min_length`` is given too.
        """
        check_options(options, RULES_OPTIONS, "options")
        options = {key: value for key, value in options.items() if value is not None}
        if options.get("advanced") and "min_length" not in options:
            options["min_length"] = max(self.min_length, 5)
        return dataclasses.replace(self, **options)

    @property
    def table(self) -> ScoringTable:
        """The scoring table in force."""
        return scoring_table(self.scoring)

    def word_points(self, letters: int, min_length: int | None = None) -> int:
        """Points for a word of ``letters`` letters, for a player whose minimum is ``min_length``.

        Below the minimum a word scores nothing. A word the player may play but the table does
        not list (a handicapped player's 3-letter word in Big Boggle) scores 1.
        """
        minimum = self.min_length if min_length is None else min_length
        if letters < minimum:
            return 0
        return self.table.points(letters) or 1

    def describe(self) -> str:
        """A one-line summary, such as ``big: Big Boggle (5x5, Deluxe dice), words of 4+
        letters, 3:00, scoring 4:1 5:2 6:3 7:5 8+:11, duplicates cancel, standard dictionary``
        (options in force follow: advanced, challenge +5, teams, family filter)."""
        options = [
            *(["advanced"] if self.advanced else []),
            *([f"challenge +{self.challenge_bonus}"] if self.challenge else []),
            *(["teams"] if self.teams else []),
            *(["family filter (offensive words refused)"] if self.family else []),
        ]
        return (
            f"{self.name}: {self.title}, words of {self.min_length}+ letters, "
            f"{self.timer // 60}:{self.timer % 60:02d}, scoring {self.table.describe()}, duplicates {self.duplicates}, "
            f"{self.dictionary} dictionary" + "".join(f", {option}" for option in options)
        )

    def to_json(self) -> dict[str, Any]:
        """The rules as plain data (every field, and ``scoring_table``: the table's
        :meth:`ScoringTable.describe`), as ``/api/rules`` and ``bigboggle rules --json`` serve
        them."""
        data = dataclasses.asdict(self)
        data["scoring_table"] = self.table.describe()
        return data


def check_options(
    options: Iterable[object], allowed: Collection[str], where: str, what: str = "rules"
) -> None:
    """Refuse an option that is not one of ``allowed``: every whitelist of options (the rules'
    own, a room's, a solo game's) says so with this one :class:`RulesError`, naming the key
    (``where``), the option (quoted short, however long) and the ones there are:
    ``settings.options: unknown room option 'teams'; room options are: advanced, …``.
    ``what`` says whose options they are (``rules``, ``room``, ``solo game``). Values are
    checked by :class:`Rules` itself."""
    for name in options:
        if not isinstance(name, str) or name not in allowed:
            raise RulesError(
                f"{where}: unknown {what} option {quoted(name)}; {what} "
                f"options are: {', '.join(sorted(allowed))}"
            )


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"option {name}={quoted(value)} must be a whole number")
    if not low <= value <= high:
        raise RulesError(f"option {name}={quoted(value)} must be between {low} and {high}")


_PRESETS = [
    Rules("classic", "Boggle (4x4, new dice)", "classic", 4, 4, 3, 180, "classic"),
    Rules("classic-old", "Boggle (4x4, old dice)", "classic-old", 4, 4, 3, 180, "classic"),
    Rules("big", "Big Boggle (5x5, Deluxe dice)", "big", 5, 5, 4, 180, "big"),
    Rules("big-1979", "Big Boggle (5x5, 1979 dice)", "big-1979", 5, 5, 4, 180, "big"),
    Rules("superbig", "Super Big Boggle (6x6)", "superbig", 6, 6, 4, 240, "superbig"),
]

#: Every rules preset, by name.
PRESETS: dict[str, Rules] = {rules.name: rules for rules in _PRESETS}

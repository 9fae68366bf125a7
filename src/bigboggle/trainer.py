"""The trainer: drills built from the words a player missed, scheduled by spaced repetition.

A **card** is one missed word, with the board and path it was missed on when known, how often
it was missed, and its place in the schedule. A **deck** is a player's cards as plain JSON-able
data (``{"version": 1, "cards": [...]}``, at most :data:`~bigboggle.limits.TRAINER_MAX_CARDS`
cards), checked whole when it is read (:meth:`Deck.from_json`): a deck from a file or a browser
is a stranger's input, so a bad one is a :class:`~bigboggle.errors.DeckError` naming the card
and the key at fault, never a traceback.

**Drills.** Each time a card comes up it is shown one of two ways, in turn (its number of
reviews even: a fragment; odd: an anagram), each shaken with a seed drawn from the word and that
number, so the same card at the same point shows the same drill on any machine:

- a *board fragment*: a small grid (3×3 up to 6×6) holding the word's path: the real board's
  cells around the path it was missed on when the card knows them, otherwise the word laid along
  a seeded random path, the other cells filled with faces of the Big Boggle dice; "find the
  N-letter word".
- an *anagram*: the word's faces (``Qu`` one tile, as on a cube) shuffled, never in the word's
  own order (a word whose letters are all alike is always a fragment).

**Judging** (:func:`judge`): the word itself is right; on a fragment, another word of the
dictionary that lies on the grid is "also a word here"; on an anagram, another word of exactly
those letters is "also right". Either way the card waits for its own word: nothing is scheduled.

**Scheduling** uses FSRS (the ``fsrs`` package, without fuzzing, so a schedule is repeatable):
right within :func:`quick_seconds` and unaided is ``Good``; right slowly or after the hint
(the first letter) is ``Hard``; wrong or given up is ``Again``. The intervals then grow with
each ``Good`` and fall back to the relearning steps with ``Again``. At most
:data:`~bigboggle.limits.TRAINER_NEW_PER_DAY` new cards are started per day (UTC): the cards
due come first, then new ones, the most missed first.

:class:`DeckFile` keeps a deck in a JSON file (the terminal's, in the user's data directory),
written atomically. The module reads no clock it is not given, except :class:`DeckFile`'s
default for "now".
"""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import itertools
import json
import math
import os
import random
import re
import tempfile
import time
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path as FilePath
from typing import Any

import fsrs

from .board import Board, Path, Position, adjacency
from .dice import dice_set
from .dictionary import COMMON_LEVEL, SHORTEST_WORD, Dictionary, normalise
from .errors import BoardError, DeckError, RoundInputError, SearchBudgetExceeded, quoted
from .family import is_offensive
from .limits import (
    MAX_ENTRY_LENGTH,
    TRAINER_DECK_BYTES,
    TRAINER_MAX_CARDS,
    TRAINER_MAX_WORD_LETTERS,
    TRAINER_NEW_PER_DAY,
    TRAINER_WORDS_PER_GAME,
)
from .solver import FoundWord

#: The deck format this module writes and reads.
DECK_VERSION = 1
#: The largest fragment side, and the largest board a card may carry (6×6: Super Big Boggle).
MAX_FRAGMENT_SIDE = 6
#: Cells a path search on a fragment may try (an answer is judged in bounded work).
_SEARCH_STEPS = 20_000
#: Times and counts a card may hold (past them, a deck is not one this module wrote): a time
#: is seconds since the epoch before 2200-01-01 UTC, a count a whole number up to a million.
_MAX_TIME = 7_258_118_400.0
_MAX_COUNT = 1_000_000
#: The stability a card may hold (days; FSRS's grows without bound, but past the longest
#: interval it changes nothing, so :func:`schedule` keeps it within what a deck reads back).
_STABILITY = (1e-4, 1e6)
#: The largest step a card in its (re)learning steps may be at (FSRS moves a card past its
#: last step on to review).
_MAX_STEP = 10
#: The scheduler: FSRS's default parameters, no fuzzing (the same answers, the same dates).
_SCHEDULER = fsrs.Scheduler(enable_fuzzing=False, maximum_interval=3650)
#: The dice whose faces fill a fragment's other cells.
_FILLER_DICE = "big"


class Outcome(StrEnum):
    """What an answer was."""

    RIGHT = "right"
    #: Another word of the dictionary that fits the drill (the card stays as it was).
    ALSO = "also"
    WRONG = "wrong"
    GAVE_UP = "gave_up"


# -- cards and decks --------------------------------------------------------------------------


@dataclass(frozen=True)
class Card:
    """One missed word and its place in the schedule (FSRS's card state, times in seconds
    since the epoch). ``reps == 0``: a new card, never answered."""

    word: str
    #: The board it was missed on and its path there (both or neither).
    board: str | None = None
    path: Path | None = None
    misses: int = 1
    added: float = 0.0
    reps: int = 0
    lapses: int = 0
    state: int = int(fsrs.State.Learning)
    step: int | None = 0
    stability: float | None = None
    difficulty: float | None = None
    due: float = 0.0
    last_review: float | None = None
    first_review: float | None = None

    @property
    def id(self) -> str:
        """A drill's handle on this card that does not spell the word out."""
        return card_id(self.word)

    @property
    def is_new(self) -> bool:
        return self.reps == 0

    def to_json(self) -> dict[str, Any]:
        return {
            "word": self.word,
            "board": self.board,
            "path": [list(step) for step in self.path] if self.path is not None else None,
            "misses": self.misses,
            "added": self.added,
            "reps": self.reps,
            "lapses": self.lapses,
            "state": self.state,
            "step": self.step,
            "stability": self.stability,
            "difficulty": self.difficulty,
            "due": self.due,
            "last_review": self.last_review,
            "first_review": self.first_review,
        }

    def progress(self, now: float) -> dict[str, Any]:
        """What a page shows of the card's progress (never the word of a card due)."""
        return {
            "reps": self.reps,
            "lapses": self.lapses,
            "misses": self.misses,
            "due": self.due,
            "due_in": max(0.0, self.due - now),
            "learned": self.state == int(fsrs.State.Review),
        }


def card_id(word: str) -> str:
    """The handle of ``word``'s card: 16 hex digits of its SHA-256."""
    return hashlib.sha256(word.encode()).hexdigest()[:16]


@dataclass
class Deck:
    """A player's cards by word, most recently added last."""

    cards: dict[str, Card] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards.values())

    def find(self, handle: str) -> Card | None:
        """The card whose :attr:`Card.id` is ``handle``."""
        return next((card for card in self if card.id == handle), None)

    def add_missed(
        self,
        word: str,
        now: float,
        *,
        board: Board | str | None = None,
        path: Sequence[Position] | None = None,
        misses: int = 1,
        keep: Collection[str] = (),
    ) -> bool:
        """Count a miss of ``word`` (``misses`` of them): a new card (due now) unless it is
        known, when its count grows and it gains the board and path if it had none. A word that
        cannot be a card (not letters, too long) is left out: ``False``. A full deck makes room
        by giving up one card (:meth:`make_room`), never one of the words in ``keep`` (the
        words being fed in now, so that a feed never pushes out its own words, in a cycle);
        if it cannot, the word is left out."""
        if not is_trainable(word):
            return False
        where = _checked_place(word, board, path)
        held = self.cards.get(word)
        if held is not None:
            fuller = held if held.board is not None or where is None else _placed(held, where)
            self.cards[word] = replace(fuller, misses=min(_MAX_COUNT, held.misses + misses))
            return False
        if len(self.cards) >= TRAINER_MAX_CARDS and not self.make_room(misses, keep):
            return False
        card = Card(word=word, misses=misses, added=now, due=now)
        self.cards[word] = _placed(card, where) if where is not None else card
        return True

    def note(
        self,
        word: str,
        now: float,
        *,
        board: Board | str | None = None,
        path: Sequence[Position] | None = None,
        misses: int = 1,
        keep: Collection[str] = (),
    ) -> bool:
        """Know that ``word`` was missed at least ``misses`` times, idempotently (a history
        read again counts nothing twice): a new card unless it is known, when its count is
        raised to ``misses`` if lower and it gains the board and path if it had none. ``True``
        if a card was made (``keep``: as for :meth:`add_missed`)."""
        if not is_trainable(word):
            return False
        where = _checked_place(word, board, path)
        held = self.cards.get(word)
        if held is None:
            return self.add_missed(word, now, board=board, path=path, misses=misses, keep=keep)
        fuller = held if held.board is not None or where is None else _placed(held, where)
        self.cards[word] = replace(fuller, misses=min(_MAX_COUNT, max(held.misses, misses)))
        return False

    def make_room(self, misses: int, keep: Collection[str] = ()) -> bool:
        """Give up one card for a newly missed word (missed ``misses`` times), ``True`` if one
        went: the learned card known best (in review, due furthest ahead: the word the player
        has mastered); failing that, the never-drilled card missed least (and earliest added),
        if it was missed no more than the newcomer. A card in its learning steps, being
        drilled now, and the words in ``keep`` are never given up."""
        learned = [
            card
            for card in self
            if card.state == int(fsrs.State.Review) and not card.is_new and card.word not in keep
        ]
        if learned:
            victim = max(learned, key=lambda card: (card.due, card.word))
        else:
            fresh = [
                card
                for card in self
                if card.is_new and card.misses <= misses and card.word not in keep
            ]
            if not fresh:
                return False
            victim = min(fresh, key=lambda card: (card.misses, card.added, card.word))
        del self.cards[victim.word]
        return True

    def queue(self, now: float, new_per_day: int = TRAINER_NEW_PER_DAY) -> list[Card]:
        """The cards to drill now, in order: those due (the earliest first), then new cards
        (the most missed first) within the day's allowance of new cards."""
        due = sorted(
            (card for card in self if not card.is_new and card.due <= now),
            key=lambda card: (card.due, card.word),
        )
        today = _day_start(
            now
        )  # (a first review dated after today, from a clock ahead, is not today's)
        started_today = sum(
            1
            for card in self
            if card.first_review is not None and today <= card.first_review < today + 86_400
        )
        fresh = sorted(
            (card for card in self if card.is_new),
            key=lambda card: (-card.misses, card.added, card.word),
        )
        return due + fresh[: max(0, new_per_day - started_today)]

    def next_card(self, now: float) -> Card | None:
        queue = self.queue(now)
        return queue[0] if queue else None

    def counts(self, now: float) -> dict[str, Any]:
        """``{"cards", "due", "new", "learned", "next_due"}``: how many cards, due now, new
        ones allowed today, learned (in review), and when the next one not yet due is due."""
        queue = self.queue(now)
        later = [card.due for card in self if not card.is_new and card.due > now]
        return {
            "cards": len(self.cards),
            "due": sum(1 for card in queue if not card.is_new),
            "new": sum(1 for card in queue if card.is_new),
            "learned": sum(1 for card in self if card.state == int(fsrs.State.Review)),
            "next_due": min(later) if later else None,
        }

    def review(self, word: str, rating: fsrs.Rating, now: float) -> Card:
        """``word``'s card answered with ``rating`` at ``now``: its new state, kept here."""
        card = self.cards[word]
        updated = schedule(card, rating, now)
        self.cards[word] = updated
        return updated

    def to_json(self) -> dict[str, Any]:
        return {"version": DECK_VERSION, "cards": [card.to_json() for card in self]}

    @classmethod
    def from_json(cls, data: object, where: str = "deck") -> Deck:
        """A deck from its JSON form, every card checked (:class:`DeckError` names what is
        wrong and where: ``deck.cards[3].due``)."""
        if not isinstance(data, dict):
            raise DeckError(f"{where}: expected an object, got {quoted(data)}")
        if data.get("version") != DECK_VERSION:
            raise DeckError(
                f"{where}.version: expected {DECK_VERSION}, got {quoted(data.get('version'))}"
            )
        unknown = set(data) - {"version", "cards"}
        if unknown:
            raise DeckError(f"{where}: unknown key {quoted(sorted(unknown)[0])}")
        cards = data.get("cards")
        if not isinstance(cards, list):
            raise DeckError(f"{where}.cards: expected a list, got {quoted(cards)}")
        if len(cards) > TRAINER_MAX_CARDS:
            raise DeckError(f"{where}.cards: at most {TRAINER_MAX_CARDS} cards, got {len(cards)}")
        deck = cls()
        for index, item in enumerate(cards):
            card = card_from_json(item, f"{where}.cards[{index}]")
            if card.word in deck.cards:
                raise DeckError(f"{where}.cards[{index}].word: {card.word!r} is there twice")
            deck.cards[card.word] = card
        return deck

    @classmethod
    def from_text(cls, text: str, where: str = "deck") -> Deck:
        """A deck from JSON text, bounded at :data:`TRAINER_DECK_BYTES` before it is parsed."""
        if len(text) > TRAINER_DECK_BYTES:
            raise DeckError(f"{where}: more than {TRAINER_DECK_BYTES} characters")
        try:
            data = json.loads(text)
        except ValueError as error:
            raise DeckError(f"{where}: not JSON ({error})") from None
        return cls.from_json(data, where)


_CARD_KEYS = frozenset(Card("x").to_json())


def card_from_json(data: object, where: str) -> Card:
    """One card from its JSON form, checked key by key (see :meth:`Deck.from_json`)."""
    if not isinstance(data, dict):
        raise DeckError(f"{where}: expected an object, got {quoted(data)}")
    unknown = set(data) - _CARD_KEYS
    if unknown:
        raise DeckError(f"{where}: unknown key {quoted(sorted(map(str, unknown))[0])}")
    word = data.get("word")
    if not isinstance(word, str) or not is_trainable(word):
        raise DeckError(f"{where}.word: expected a word of letters, got {quoted(word)}")
    board, path = data.get("board"), _path_of(data.get("path"), f"{where}.path")
    if (board is None) != (path is None):
        raise DeckError(f"{where}: board and path: give both or neither")
    if board is not None and path is not None:
        _check_placed(word, board, path, where)
    state = data.get("state")
    if state not in {int(s) for s in fsrs.State}:
        raise DeckError(f"{where}.state: expected 1, 2 or 3, got {quoted(state)}")
    card = Card(
        word=word,
        board=board,
        path=path,
        misses=_count(data.get("misses"), f"{where}.misses", least=1),
        added=_time(data.get("added"), f"{where}.added"),
        reps=_count(data.get("reps"), f"{where}.reps"),
        lapses=_count(data.get("lapses"), f"{where}.lapses"),
        state=int(state),
        step=_optional(_count, data.get("step"), f"{where}.step", most=_MAX_STEP),
        stability=_optional(_real, data.get("stability"), f"{where}.stability", *_STABILITY),
        difficulty=_optional(_real, data.get("difficulty"), f"{where}.difficulty", 1.0, 10.0),
        due=_time(data.get("due"), f"{where}.due"),
        last_review=_optional(_time, data.get("last_review"), f"{where}.last_review"),
        first_review=_optional(_time, data.get("first_review"), f"{where}.first_review"),
    )
    _check_schedule(card, where)
    return card


#: One cell of a board's canonical text (``str(Board)``): a letter, ``Qu``, ``.`` for a blank,
#: or a face of 2-3 letters in brackets (``[Th]``, ``[Qui]``; a ``q`` always with its ``u``),
#: with ``*`` after the challenge cell.
_CELL = re.compile(
    r"([A-PR-Z]|Qu|\.|\[(?=[A-Za-z]{2,3}\])(?!Qu\])(?:[A-PR-Z]|Qu)(?:[a-pr-z]|qu)*\])(\*?)"
)


def _check_placed(word: str, board: object, path: Path, where: str) -> None:
    """Refuse a card's board that is not a board's canonical text of at most
    :data:`MAX_FRAGMENT_SIDE` on a side (as :func:`_placed` writes it), or a path that does
    not spell ``word`` on it (in, adjoining, no cell twice or blank). A cheap check, in one
    pass over the text: a full deck holds hundreds of boards, read on every request."""
    if not isinstance(board, str) or len(board) > 400:
        got = f"{len(board)} characters" if isinstance(board, str) else quoted(board)
        raise DeckError(f"{where}: board: too long or not text ({got})")
    plain = board.replace("/", "")
    if plain.isascii() and plain.isalpha() and plain.isupper() and "Q" not in plain:
        rows: list[list[str] | None] = [list(row) for row in board.split("/")]  # (the usual)
    else:
        rows = [_cells_of(row) for row in board.split("/")]
    width = len(rows[0]) if rows[0] is not None else 0
    marks = board.count("*")
    if not (
        2 <= len(rows) <= MAX_FRAGMENT_SIDE
        and 2 <= width <= MAX_FRAGMENT_SIDE
        and all(row is not None and len(row) == width for row in rows)
        and marks <= 1
        and "." + "*" not in board
    ):
        raise DeckError(
            f"{where}: board: expected a board's text as this module writes it (rows like "
            f"'LINES/TQARD', 2-{MAX_FRAGMENT_SIDE} cells a side), got {quoted(board)}"
        )
    faces = [face for row in rows if row is not None for face in row]
    height = len(rows)
    cells = [r * width + c if 0 <= r < height and 0 <= c < width else -1 for r, c in path]
    if (
        min(cells) < 0
        or len(set(cells)) != len(cells)
        or not set(itertools.pairwise(cells)) <= _adjoining(height, width)
        or "".join([faces[cell] for cell in cells]).lower() != word
        or not all([faces[cell] for cell in cells])
    ):
        raise DeckError(f"{where}: path: does not spell {word!r} on the board")


@functools.cache
def _adjoining(height: int, width: int) -> frozenset[tuple[int, int]]:
    """The pairs of cells (row-major indices) that adjoin on a ``height`` × ``width`` grid."""
    near = adjacency(height, width)
    return frozenset((cell, other) for cell, others in enumerate(near) for other in others)


_ROW = re.compile(f"(?:{_CELL.pattern})+")


def _cells_of(row: str) -> list[str] | None:
    """The faces of one row of a board's canonical text (``""`` a blank), ``None`` if it is
    not one."""
    if _ROW.fullmatch(row) is None:
        return None
    return ["" if face == "." else face.strip("[]") for face, _mark in _CELL.findall(row)]


#: A new card's schedule: at its first learning step, no lapse, no memory state, no review.
_NEW_SCHEDULE = (int(fsrs.State.Learning), 0, 0, None, None, None, None)


def _check_schedule(card: Card, where: str) -> None:
    """Refuse a card whose schedule is not one :func:`schedule` writes (:class:`DeckError`
    naming the card's field): a new card (``reps`` 0) is at its first learning step with no
    memory state and no review yet; an answered one has its stability, difficulty and review
    times, at most one lapse per review, and a step exactly when it is (re)learning. FSRS
    asserts these, so a forged deck would otherwise fail inside it."""
    if card.is_new:
        if (
            card.state,
            card.step,
            card.lapses,
            card.stability,
            card.difficulty,
            card.last_review,
            card.first_review,
        ) == _NEW_SCHEDULE:
            return
        expected: dict[str, object] = {
            "state": int(fsrs.State.Learning),
            "step": 0,
            "lapses": 0,
            "stability": None,
            "difficulty": None,
            "last_review": None,
            "first_review": None,
        }
        for key, value in expected.items():
            if getattr(card, key) != value:
                raise DeckError(
                    f"{where}.{key}: a new card (reps 0) has {key} {value!r}, "
                    f"got {quoted(getattr(card, key))}"
                )
        return
    for key in ("stability", "difficulty", "last_review", "first_review"):
        if getattr(card, key) is None:
            raise DeckError(f"{where}.{key}: a card answered (reps {card.reps}) needs its {key}")
    if card.lapses > card.reps:
        raise DeckError(
            f"{where}.lapses: at most one lapse per review ({card.reps}), got {card.lapses}"
        )
    in_review = card.state == int(fsrs.State.Review)
    if in_review and card.step is not None:
        raise DeckError(f"{where}.step: a card in review (state 2) has no step, got {card.step}")
    if not in_review and card.step is None:
        raise DeckError(
            f"{where}.step: a card in its (re)learning steps (state {card.state}) needs its step"
        )


def _count(value: object, where: str, least: int = 0, most: int = _MAX_COUNT) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not least <= value <= most:
        raise DeckError(f"{where}: expected a whole number {least}-{most}, got {quoted(value)}")
    return value


def _real(value: object, where: str, least: float, most: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise DeckError(f"{where}: expected a number, got {quoted(value)}")
    # A whole number is compared before it becomes a float (10**400 has no float).
    in_range = least <= value <= most if isinstance(value, int) else True
    number = float(value) if in_range else math.inf
    if not (math.isfinite(number) and least <= number <= most):
        raise DeckError(f"{where}: expected a number {least:g}-{most:g}, got {quoted(value)}")
    return number


def _time(value: object, where: str) -> float:
    return _real(value, where, 0.0, _MAX_TIME)


def _optional(check: Any, value: object, where: str, *bounds: Any, **named: Any) -> Any:
    return None if value is None else check(value, where, *bounds, **named)


def _path_of(value: object, where: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, list) or not 1 <= len(value) <= MAX_FRAGMENT_SIDE**2:
        raise DeckError(f"{where}: expected a list of [row, column] cells, got {quoted(value)}")
    steps = []
    for index, step in enumerate(value):
        if not (  # (type() is: a bool is no cell number; the exact test is the cheap one)
            type(step) is list and len(step) == 2 and type(step[0]) is int and type(step[1]) is int
        ):
            raise DeckError(f"{where}[{index}]: expected [row, column], got {quoted(step)}")
        steps.append((int(step[0]), int(step[1])))
    return tuple(steps)


def is_trainable(word: object) -> bool:
    """Whether ``word`` can be a card: lowercase ASCII letters, 3 to
    :data:`TRAINER_MAX_WORD_LETTERS` of them."""
    return (
        isinstance(word, str)
        and SHORTEST_WORD <= len(word) <= TRAINER_MAX_WORD_LETTERS
        and word.isascii()
        and word.isalpha()
        and word.islower()
    )


def _checked_place(
    word: str, board: Board | str | None, path: Sequence[Position] | None
) -> tuple[Board, Path] | None:
    """``(board, path)`` if both are given and the path spells ``word`` on the board (at most
    :data:`MAX_FRAGMENT_SIDE` on a side); ``None`` if neither. :class:`RoundInputError`
    otherwise (a board without its path, a path that does not spell the word)."""
    if board is None and path is None:
        return None
    if board is None or path is None:
        raise RoundInputError("board and path: give both or neither")
    if isinstance(board, str):
        if len(board) > 400:
            raise RoundInputError(f"board: too long ({len(board)} characters)")
        board = Board.parse(board)
    if max(board.rows, board.cols) > MAX_FRAGMENT_SIDE:
        raise RoundInputError(f"board: at most {MAX_FRAGMENT_SIDE} on a side")
    steps = tuple((int(r), int(c)) for r, c in path)
    inside = all(0 <= r < board.rows and 0 <= c < board.cols for r, c in steps)
    if not inside or not board.is_valid_path(steps) or board.spell(steps) != word:
        raise RoundInputError(f"path: does not spell {word!r} on the board")
    return board, steps


def _placed(card: Card, place: tuple[Board, Path]) -> Card:
    board, path = place
    return replace(card, board=str(board), path=path)


def _day_start(now: float) -> float:
    """Midnight (UTC) of the day of ``now``: where a day's allowance of new cards starts."""
    day = dt.datetime.fromtimestamp(now, dt.UTC).date()
    return dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp()


# -- scheduling ---------------------------------------------------------------------------------


def _moment(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, dt.UTC)


def schedule(card: Card, rating: fsrs.Rating, now: float) -> Card:
    """``card`` answered with ``rating`` at ``now``: FSRS's next state and due date."""
    state = fsrs.Card(
        card_id=1,
        state=fsrs.State(card.state),
        step=card.step,
        stability=card.stability,
        difficulty=card.difficulty,
        due=_moment(card.due),
        last_review=_moment(card.last_review) if card.last_review is not None else None,
    )
    lapsed = not card.is_new and card.state == int(fsrs.State.Review)
    if card.is_new:
        state = fsrs.Card(card_id=1, due=_moment(now))
    after, _log = _SCHEDULER.review_card(state, rating, _moment(now))
    return replace(
        card,
        reps=min(_MAX_COUNT, card.reps + 1),
        # A lapse is a learned card forgotten: Again on a card in review, not one still learning.
        lapses=min(_MAX_COUNT, card.lapses + (rating == fsrs.Rating.Again and lapsed)),
        state=int(after.state),
        step=after.step,
        stability=min(max(after.stability, _STABILITY[0]), _STABILITY[1])
        if after.stability is not None
        else None,
        difficulty=after.difficulty,
        due=after.due.timestamp(),
        last_review=now,
        first_review=card.first_review if card.first_review is not None else now,
    )


def quick_seconds(word: str) -> float:
    """How long a right answer may take and still be ``Good``: 5 s and 1 s a letter."""
    return 5.0 + len(word)


def rating_for(outcome: Outcome, word: str, seconds: float, hinted: bool) -> fsrs.Rating | None:
    """The rating an answer gives its card (``None`` for "also right": nothing scheduled)."""
    if outcome is Outcome.ALSO:
        return None
    if outcome is not Outcome.RIGHT:
        return fsrs.Rating.Again
    if hinted or seconds > quick_seconds(word):
        return fsrs.Rating.Hard
    return fsrs.Rating.Good


# -- drills ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drill:
    """What a player is shown for a card: a fragment of a board or an anagram's tiles."""

    card: str
    kind: str
    #: The word's length in letters ("find the 6-letter word").
    letters: int
    #: A fragment's rows of faces (``""`` a blank), or an anagram's one row of tiles.
    grid: tuple[tuple[str, ...], ...]
    #: The hint: the word's first face, and on a fragment the cell it starts on.
    first: str
    start: Position | None
    #: Where the word lies on a fragment (shown once the drill is answered).
    path: Path | None = None

    @property
    def prompt(self) -> str:
        if self.kind == "fragment":
            return f"Find the {self.letters}-letter word on this board."
        return f"Unscramble these tiles into a {self.letters}-letter word."

    def to_json(self) -> dict[str, Any]:
        """The drill for a page (neither the word nor its path: those come with the answer)."""
        data: dict[str, Any] = {
            "card": self.card,
            "kind": self.kind,
            "letters": self.letters,
            "grid": [list(row) for row in self.grid],
            "prompt": self.prompt,
        }
        if self.kind == "fragment":
            data["board"] = str(Board.from_faces(self.grid))
        return data

    def hint_json(self) -> dict[str, Any]:
        return {
            "first": self.first,
            "start": list(self.start) if self.start is not None else None,
        }


def faces_of(word: str) -> list[str]:
    """``word`` as cube faces: ``qu`` one face ``Qu`` (as on the dice), every other letter one."""
    faces: list[str] = []
    index = 0
    while index < len(word):
        if word.startswith("qu", index):
            faces.append("Qu")
            index += 2
        else:
            faces.append(word[index].upper())
            index += 1
    return faces


def _rng(word: str, reps: int, what: str) -> random.Random:
    digest = hashlib.sha256(f"{what}|{word}|{reps}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def drill_for(card: Card) -> Drill:
    """The drill for ``card`` at its number of reviews (see the module's doc): the same card
    at the same point gives the same drill."""
    faces = faces_of(card.word)
    if card.reps % 2 == 1 and len(set(faces)) > 1:
        return _anagram(card, faces)
    return _fragment(card, faces)


def _anagram(card: Card, faces: list[str]) -> Drill:
    rng = _rng(card.word, card.reps, "anagram")
    tiles = list(faces)
    while tiles == faces:
        rng.shuffle(tiles)
    return Drill(card.id, "anagram", len(card.word), (tuple(tiles),), faces[0], None)


def _fragment(card: Card, faces: list[str]) -> Drill:
    if card.board is not None and card.path is not None:
        grid, path = _cut(Board.parse(card.board), card.path)
    else:
        grid, path = _laid(card.word, card.reps, faces)
    return Drill(card.id, "fragment", len(card.word), grid, faces[0], path[0], path)


def _cut(board: Board, path: Path) -> tuple[tuple[tuple[str, ...], ...], Path]:
    """The square of ``board`` around ``path`` (at least 3×3 where the board allows), and the
    path within it."""
    rows = [r for r, _ in path]
    cols = [c for _, c in path]
    side = max(3, max(rows) - min(rows) + 1, max(cols) - min(cols) + 1)
    height, width = min(side, board.rows), min(side, board.cols)

    def origin(low: int, high: int, size: int, limit: int) -> int:
        centred = low - (size - (high - low + 1)) // 2
        return max(0, min(centred, limit - size))

    top = origin(min(rows), max(rows), height, board.rows)
    left = origin(min(cols), max(cols), width, board.cols)
    faces = board.faces
    grid = tuple(tuple(faces[top + r][left + c] for c in range(width)) for r in range(height))
    return grid, tuple((r - top, c - left) for r, c in path)


def _laid(word: str, reps: int, faces: list[str]) -> tuple[tuple[tuple[str, ...], ...], Path]:
    """``faces`` laid along a seeded random path on the smallest square that takes it easily,
    the other cells filled with faces of the Big Boggle dice."""
    rng = _rng(word, reps, "fragment")
    side = 3
    while side * side * 3 < len(faces) * 4 and side < MAX_FRAGMENT_SIDE:
        side += 1
    path = None
    while path is None:
        path = _random_path(rng, side, len(faces))
        side += 1
    side -= 1
    dice = [[face for face in die if face] for die in dice_set(_FILLER_DICE).dice]
    cells = [[rng.choice(rng.choice(dice)) for _ in range(side)] for _ in range(side)]
    for (r, c), face in zip(path, faces, strict=True):
        cells[r][c] = face
    return tuple(tuple(row) for row in cells), path


def _random_path(rng: random.Random, side: int, length: int) -> Path | None:
    """A self-avoiding path of ``length`` cells on a ``side``-square grid, by a seeded random
    search with a bounded number of steps (``None`` if it found none)."""
    if length > side * side:
        return None
    steps = [0]

    def extend(path: list[Position]) -> bool:
        if len(path) == length:
            return True
        steps[0] += 1
        if steps[0] > _SEARCH_STEPS:
            return False
        r, c = path[-1]
        near = [
            (r + dr, c + dc)
            for dr in (-1, 0, 1)
            for dc in (-1, 0, 1)
            if (dr or dc) and 0 <= r + dr < side and 0 <= c + dc < side
        ]
        rng.shuffle(near)
        for cell in near:
            if cell not in path:
                path.append(cell)
                if extend(path):
                    return True
                path.pop()
        return False

    start = [(rng.randrange(side), rng.randrange(side))]
    return tuple(start) if extend(start) else None


# -- judging --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """What an answer was, with the word and (on a fragment) its path once it is settled."""

    outcome: Outcome
    answer: str
    word: str | None
    path: Path | None
    message: str

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome.value,
            "answer": self.answer,
            "word": self.word,
            "path": [list(step) for step in self.path] if self.path is not None else None,
            "message": self.message,
        }


def judge(card: Card, answer: str, words: Dictionary, *, gave_up: bool = False) -> Judgement:
    """Judge ``answer`` to ``card``'s drill (:func:`drill_for`) against ``words``. The word is
    shown with a settled answer (right, wrong, given up), not with "also"."""
    drill = drill_for(card)
    if not isinstance(answer, str) or len(answer) > MAX_ENTRY_LENGTH:
        raise RoundInputError(f"answer: expected at most {MAX_ENTRY_LENGTH} characters")
    said = normalise(answer).replace(" ", "")
    if gave_up:
        return _settled(Outcome.GAVE_UP, said, card, drill, f"The word was {card.word!r}.")
    if not said:
        raise RoundInputError("answer: empty (type a word, or give up)")
    if said == card.word:
        return _settled(Outcome.RIGHT, said, card, drill, f"Right: {card.word!r}.")
    if _also(drill, said, card.word, words):
        where = "here" if drill.kind == "fragment" else "of these letters"
        message = f"{said!r} is also a word {where}, but not the one you missed. Try again."
        return Judgement(Outcome.ALSO, said, None, None, message)
    return _settled(Outcome.WRONG, said, card, drill, f"Not {said!r}: the word was {card.word!r}.")


def _settled(outcome: Outcome, said: str, card: Card, drill: Drill, message: str) -> Judgement:
    return Judgement(outcome, said, card.word, drill.path, message)


def _also(drill: Drill, said: str, word: str, words: Dictionary) -> bool:
    if len(said) < SHORTEST_WORD or said not in words:
        return False
    if drill.kind == "anagram":
        return sorted(said) == sorted(word)
    board = Board.from_faces(drill.grid)
    try:
        return board.path_for(said, budget=_SEARCH_STEPS) is not None
    except SearchBudgetExceeded:
        return False


@dataclass(frozen=True)
class Answered:
    """An answer judged and its card scheduled (``rating`` ``None``: nothing changed)."""

    judgement: Judgement
    card: Card
    rating: fsrs.Rating | None

    def to_json(self, now: float) -> dict[str, Any]:
        return {
            **self.judgement.to_json(),
            "rating": self.rating.name.lower() if self.rating is not None else None,
            "progress": self.card.progress(now),
        }


def answer_card(
    deck: Deck,
    handle: str,
    answer: str,
    words: Dictionary,
    now: float,
    *,
    seconds: float = 0.0,
    hinted: bool = False,
    gave_up: bool = False,
) -> Answered:
    """Judge ``answer`` to the drill of the card ``handle`` and schedule it by the outcome
    (:func:`rating_for`). :class:`RoundInputError` for a card not in ``deck``."""
    card = deck.find(handle) if isinstance(handle, str) else None
    if card is None:
        raise RoundInputError(f"card: no card {quoted(handle)} in this deck")
    judgement = judge(card, answer, words, gave_up=gave_up)
    seconds = seconds if math.isfinite(seconds) and seconds >= 0 else 0.0
    rating = rating_for(judgement.outcome, card.word, seconds, hinted)
    if rating is not None:
        card = deck.review(card.word, rating, now)
    return Answered(judgement, card, rating)


# -- choosing a round's missed words ----------------------------------------------------------


def worth_training(
    missed: Iterable[FoundWord | str],
    words: Dictionary | None = None,
    most: int | None = TRAINER_WORDS_PER_GAME,
) -> list[FoundWord | str]:
    """The missed words a deck takes from one round: not hidden by the family filter, not rare
    in ``words`` (by its SCOWL level, when it has levels), the highest-scoring first (a plain
    string counts as its length), at most ``most`` of them (``None``: all)."""

    def text(item: FoundWord | str) -> str:
        return item if isinstance(item, str) else item.word

    def points(item: FoundWord | str) -> int:
        return len(item) if isinstance(item, str) else item.score

    def rare(word: str) -> bool:
        level = words.level(word) if words is not None else None
        return level is not None and level > COMMON_LEVEL

    kept = {
        text(item): item
        for item in missed
        if is_trainable(text(item)) and not is_offensive(text(item)) and not rare(text(item))
    }
    chosen = sorted(kept.values(), key=lambda item: (-points(item), text(item)))
    return chosen if most is None else chosen[:most]


# -- a deck in a file (the terminal's) -------------------------------------------------------------


def default_deck_path() -> FilePath:
    """The terminal's deck: ``trainer-deck.json`` in the user's data directory
    (``BIGBOGGLE_TRAINER_DECK`` overrides it)."""
    if os.environ.get("BIGBOGGLE_TRAINER_DECK"):
        return FilePath(os.environ["BIGBOGGLE_TRAINER_DECK"])
    import platformdirs

    return FilePath(platformdirs.user_data_dir("bigboggle", appauthor=False)) / "trainer-deck.json"


class DeckFile:
    """A deck kept in the JSON file at ``path``: read whole and checked, written atomically (a
    temporary file beside it, then renamed), so a crash never leaves half a deck."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = FilePath(path)

    def load(self) -> Deck:
        """The deck in the file (an empty deck if there is no file yet); :class:`DeckError`
        names the file and what is wrong for a file that is not a deck."""
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(TRAINER_DECK_BYTES + 1)
        except FileNotFoundError:
            return Deck()
        except OSError as error:
            raise DeckError(f"{self.path}: cannot read it ({error.strerror})") from None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise DeckError(f"{self.path}: not UTF-8 text") from None
        return Deck.from_text(text, where=str(self.path))

    def save(self, deck: Deck) -> None:
        """Write ``deck`` to the file (its folder made if need be), atomically."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(deck.to_json(), separators=(",", ":"))
        handle, temporary = tempfile.mkstemp(
            dir=self.path.parent, prefix=f".{self.path.name}.", suffix=".tmp"
        )
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except BaseException:
            FilePath(temporary).unlink(missing_ok=True)
            raise

    def keep(self, card: Card) -> None:
        """Write one card's new state into the file, read again first: a round's missed words
        added meanwhile (by a game in another terminal) are kept."""
        deck = self.load()
        deck.cards[card.word] = card
        self.save(deck)

    def add_missed(
        self,
        *missed: FoundWord | str,
        board: Board | str | None = None,
        words: Dictionary | None = None,
        now: float | None = None,
    ) -> int:
        """Add one round's missed words to the deck in the file and save it: the words
        :func:`worth_training` keeps (``words``, the round's dictionary, leaves out rare ones),
        each with its path on ``board`` when it is a :class:`FoundWord` and ``board`` is given.
        Returns how many new cards there are (a word already a card counts a miss more)."""
        deck = self.load()
        at = time.time() if now is None else now
        added = 0
        chosen = worth_training(missed, words)
        keep = {item if isinstance(item, str) else item.word for item in chosen}
        for item in chosen:
            word = item if isinstance(item, str) else item.word
            try:
                if isinstance(item, str) or board is None:
                    raise RoundInputError("no path")
                added += deck.add_missed(word, at, board=board, path=item.path, keep=keep)
            except (BoardError, RoundInputError):  # no board, or one too large: no fragment
                added += deck.add_missed(word, at, keep=keep)
        self.save(deck)
        return added


__all__ = [
    "DECK_VERSION",
    "Answered",
    "Card",
    "Deck",
    "DeckFile",
    "Drill",
    "Judgement",
    "Outcome",
    "answer_card",
    "card_from_json",
    "default_deck_path",
    "drill_for",
    "faces_of",
    "judge",
    "quick_seconds",
    "rating_for",
    "schedule",
    "worth_training",
]

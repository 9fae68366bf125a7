"""Computer opponents that play like people: a model of a person finding words on a board.

An :class:`Opponent` of a named strength turns a board's solution into a timed list of entries,
``[(seconds_into_round, entry), ...]``, the way a person's list grows during a round:

- **Difficulty.** Every word on the board gets a :class:`Difficulty` of two parts
  (:func:`word_difficulty`). Its *rarity*, from the dictionary's SCOWL level,
  :data:`PER_LEVEL` a level above 10 (``mother``, level 10: 0; ``uttered``, 35: 1.5;
  ``rhetor``, 70: 3.6); a dictionary without levels (a user's file) takes each word's level
  from the built-in ``huge`` list, and a word no list grades counts as :data:`UNKNOWN_LEVEL`,
  as rare as SCOWL gets. Its *sight*, from the board: :data:`PER_LETTER` a letter beyond four,
  :data:`PER_DOUBLE_FACE` for each two-letter face on its path (``Qu``, ``Th``, ``In``: the eye
  reads the cube as one letter), and :data:`PER_EXTRA_PATH` less for each extra path that
  spells it (a word the board spells twice is easier to see; up to
  :data:`MAX_PATHS_COUNTED` paths, :func:`count_paths`).
- **Finding.** An opponent of skill ``s`` finds a word when it *knows* it and *sees* it:
  ``p = σ(KNOW_SLOPE (KNOW_REACH + KNOW_GROWTH s - rarity)) · σ(SLOPE (s - sight))``
  (:func:`chance`), for the sigmoid ``σ(x) = (1 + x / sqrt(1 + x²)) / 2``. Vocabulary ends
  sharply (a beginner knows ``mother`` but not ``ottar``; an expert's reaches SCOWL's level
  65), sight falls slowly with length. A word whose stem the opponent has already written
  (``greet`` before ``greets``, ``date`` before ``dated``) is :data:`STEM_EASE` easier to see,
  and with chance :data:`WITH_STEM` written a moment after it, as people do.
- **Timing.** A person's search has a clock of its own: each word is seen at a time drawn
  from an exponential distribution whose rate grows with how surely the opponent comes on it
  (:func:`sureness`: its sight and, more slowly, its rarity: a rare word is recalled later),
  and its time is that distribution cut at the round's end (:func:`discovery`). So a word
  well within reach comes early, a word barely found comes anywhere: a strong player's list
  is front-loaded, a weak one's words arrive at a steady pace, as people's do. A long word
  also waits :data:`WAIT_PER_LETTER` of the round a letter beyond four: long words are built
  late, from short ones. Every time is strictly inside ``(0, seconds)``, at least
  :data:`READING_SECONDS` from either end (a twentieth of a short round): nobody writes a
  word before reading the board. A round shorter than three minutes (:data:`USUAL_SECONDS`)
  is the first part of a usual round (:func:`_in_round`): a person does not find words
  faster because the timer is short. Only the solver, a machine, fits everything into any
  round.
- **Slips.** People write words that are not valid. For each word found an opponent slips
  with its strength's :data:`SLIP_RATE` and writes, a moment later, one of the three most
  plausible invalid entries beside that word (:func:`slip_candidates`): a wrong plural or
  tense that a path on the board spells (``steped``: no word); a well-known word one letter
  away that the board does not hold (``rested`` beside ``tested``: a letter misread); or
  another wrong plural or tense (``greeted`` beside ``greet``: a word, not on the board). The
  solver never slips.
- **Strengths.** :attr:`Opponent.STRENGTHS` names five, each with its target share of the
  board's points on Big Boggle boards (rules ``big``, the standard dictionary): beginner 5%,
  casual 12%, club 25%, expert 45%, and the solver, 100%, which finds every word and never
  writes an invalid one. Each strength's skill (:data:`SKILL`) is fitted to its target by
  ``tools/calibrate_opponents.py``; the share is the opponent's list scored alone by the rules
  (:func:`bigboggle.scoring.judge_round`) over the board's total, and
  :func:`measure_strengths` (``bigboggle opponents``) measures it again on other boards.

Reproducible anywhere: everything is drawn from one :class:`random.Random` seeded with a
SHA-256 digest of (seed, strength, board text), never :func:`hash`, which Python salts per
process; the words are taken in one fixed order (shortest first, then alphabetical); and the
model uses only arithmetic, square roots (which IEEE 754 rounds exactly) and a logarithm of
its own (:func:`_ln`: ``math.exp`` and ``math.log`` are only as exact as the platform's C
library). A list is the same in any process on any machine.

Why no ``wordfreq``: a finer word-frequency measure was evaluated and left out. On the words of
300 Big Boggle boards its Zipf frequency and the SCOWL level agree (Spearman ρ = -0.75; the
level's mean Zipf falls from 4.8 at level 10 to 1.2 at level 70), and inside one level it
spreads by about 0.9 Zipf, so it would reorder words within a level; but the package is 58 MB
with five dependencies, a runtime dependency of the core for this one term, its data are CC
BY-SA (a baked table in our data would carry that licence beside SCOWL's), and it knows a
third of SCOWL's rarest words not at all. The level, with the board's terms and a calibration
to a share of points, already gives the shape people show: common short words first and
often, rare and long ones late and seldom.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import math
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import ClassVar, NamedTuple

from .board import Board
from .dice import MAX_SEED, new_seed, shake
from .dictionary import Dictionary
from .errors import RulesError, SearchBudgetExceeded, quoted
from .family import is_offensive
from .judge import Judge
from .limits import MAX_LIST_LENGTH
from .names import name_key
from .round_setup import RoundSetup
from .rules import MAX_TIMER, Rules
from .scoring import judge_round
from .solver import FoundWord, Solution, solve

# -- the model's constants ------------------------------------------------------------------------

#: Difficulty per SCOWL level above 10 (SCOWL's everyday words are level 10, its rarest 80).
PER_LEVEL = 0.06
#: The level taken for a word no list grades (a user's dictionary, a word SCOWL lacks): as rare
#: as the ``huge`` dictionary's rarest.
UNKNOWN_LEVEL = 80
#: Difficulty per letter beyond four (a three-letter word, where the rules allow one, is easier).
PER_LETTER = 0.5
#: Difficulty per two-letter face on the word's path (``Qu``, ``Th``, ``In``, ``Er``, ``He``...).
PER_DOUBLE_FACE = 0.4
#: Difficulty taken off for each path beyond the first that spells the word...
PER_EXTRA_PATH = 0.3
#: ...counting at most this many paths.
MAX_PATHS_COUNTED = 3
#: Difficulty taken off a word whose stem the opponent has already written.
STEM_EASE = 1.0
#: How steeply the chance of seeing a word falls with its sight difficulty.
SLOPE = 1.2
#: The rarity an opponent of skill 0 knows half the words of...
KNOW_REACH = 2.6
#: ...how much further each unit of skill reaches...
KNOW_GROWTH = 1.5
#: ...and how sharply its vocabulary ends (a beginner knows ``mother``, not ``ottar``).
KNOW_SLOPE = 2.5
#: The share of the round a word waits for each letter beyond four (at most
#: :data:`MOST_WAIT`): long words are built late, from the short ones seen first.
WAIT_PER_LETTER = 0.05
MOST_WAIT = 0.4
#: Seconds at either end of the round with no word (at most a twentieth of the round).
READING_SECONDS = 2.0
#: The round the strengths are calibrated on (Big Boggle's three minutes): a shorter round is
#: the first part of one this long (:func:`_in_round`), whatever a game's timer says.
USUAL_SECONDS = 180.0
#: The chance that a word whose stem the opponent has written follows the stem at once.
WITH_STEM = 0.6

#: Strength -> target share of the board's points on Big Boggle boards (weakest first).
TARGETS: Mapping[str, float] = MappingProxyType(
    {"beginner": 0.05, "casual": 0.12, "club": 0.25, "expert": 0.45, "solver": 1.0}
)
#: Strength -> skill, fitted to :data:`TARGETS` by ``tools/calibrate_opponents.py`` (the
#: solver's is infinite: it finds everything).
SKILL: Mapping[str, float] = MappingProxyType(
    {"beginner": -0.756, "casual": -0.406, "club": 0.009, "expert": 0.484, "solver": math.inf}
)
#: Strength -> the chance, for each word found, of writing an invalid entry beside it.
SLIP_RATE: Mapping[str, float] = MappingProxyType(
    {"beginner": 0.3, "casual": 0.2, "club": 0.12, "expert": 0.06, "solver": 0.0}
)
#: How much quicker than it finds words at all an opponent finds the ones it will find (the
#: skill its times are paced by, :func:`sureness`)...
PACE_BOOST = 1.0
#: ...the pace of the solver's times (it finds everything; its late words are the hard ones)...
SOLVER_PACE = 2.0
#: ...and how much a word's rarity slows recalling it, beside the effort of seeing it.
RECALL = 0.5
#: Chances are kept this far from 1 so that a time can always be drawn.
_SUREST = 1.0 - 1e-9

_VOWELS = frozenset("aeiou")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
#: A slip is one of the first this many candidates (:func:`slip_candidates`), evenly.
SLIP_CHOICES = 3
#: A misread word is written only if it is this common (SCOWL level): people write words they know.
MISREAD_LEVEL = 50
#: Cells a search may try to see whether a wrong inflection is traced on the board.
TRACE_BUDGET = 2_000


class Opponent:
    """A computer opponent of a named strength, with the seed its lists are drawn from.

    ``Opponent("club", seed=7).play(board, dictionary, rules)`` gives the entries it writes in a
    round, ``[(seconds, entry), ...]`` sorted by time. See the module's notes for the model.
    """

    #: Strength name -> target share of the board's points (weakest first; ``solver``: 1.0).
    STRENGTHS: ClassVar[Mapping[str, float]] = TARGETS

    def __init__(self, strength: str, seed: int | None = None) -> None:
        self.strength = check_strength(strength)
        if seed is None:
            seed = new_seed()
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
            raise RulesError(f"seed {quoted(seed)}: expected a whole number from 0 to {MAX_SEED}")
        self.seed = seed

    def __repr__(self) -> str:
        return f"Opponent({self.strength!r}, seed={self.seed})"

    @staticmethod
    def label(strength: str) -> str:
        """The strength as people read it: ``"Club"``."""
        return check_strength(strength).capitalize()

    def play(
        self,
        board: Board | str,
        dictionary: Dictionary,
        rules: Rules,
        seconds: float | None = None,
    ) -> list[tuple[float, str]]:
        """The entries this opponent writes on ``board`` in a round of ``seconds`` (default:
        the rules' timer): ``(seconds into the round, lowercase entry)``, sorted by time."""
        parsed = board if isinstance(board, Board) else Board.parse(board)
        return self.play_solution(solve(parsed, dictionary, rules), dictionary, rules, seconds)

    def play_solution(
        self,
        solution: Solution,
        dictionary: Dictionary,
        rules: Rules,
        seconds: float | None = None,
    ) -> list[tuple[float, str]]:
        """:meth:`play` from the board's solution already made (under ``rules`` with
        ``dictionary``), so that a service solves each board once."""
        span = check_seconds(rules.timer if seconds is None else seconds)
        if rules.family:
            solution = solution.without_offensive()
        words = _prepared(solution, dictionary)
        rng = random.Random(_digest(self.seed, self.strength, str(solution.board)))
        return _in_round(
            lambda length: _play(self.strength, solution, words, dictionary, rng, length),
            self.strength,
            span,
        )


def check_strength(strength: object) -> str:
    """``strength`` if it names one of :attr:`Opponent.STRENGTHS`; :class:`RulesError` naming
    the choices otherwise."""
    if isinstance(strength, str) and strength in TARGETS:
        return strength
    raise RulesError(
        f"unknown opponent strength {quoted(strength)}; choose one of {', '.join(TARGETS)}"
    )


def check_seconds(seconds: object) -> float:
    """A round's length in seconds for an opponent: a number above 0 and at most the rules'
    longest timer; :class:`RulesError` otherwise."""
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 < seconds <= MAX_TIMER
    ):
        raise RulesError(
            f"seconds {quoted(seconds)}: expected a number above 0 and at most {MAX_TIMER}"
        )
    return float(seconds)


def opponent_name(strength: str, taken: Iterable[str]) -> str:
    """A seat name for an opponent of ``strength`` that no name of ``taken`` clashes with (by
    :func:`bigboggle.names.name_key`): ``"Club bot"``, else ``"Club bot 2"``, ``"Club bot 3"``..."""
    keys = {name_key(name) for name in taken}
    base = f"{Opponent.label(strength)} bot"
    name, number = base, 1
    while name_key(name) in keys:
        number += 1
        name = f"{base} {number}"
    return name


# -- difficulty -----------------------------------------------------------------------------------


class Difficulty(NamedTuple):
    """How hard a word is for a person: to know, and to see on this board."""

    #: From the word's SCOWL level: :data:`PER_LEVEL` a level above 10 (0 to 4.2).
    rarity: float
    #: From its length, its two-letter faces and how many paths spell it (stems aside).
    sight: float


def word_difficulty(found: FoundWord, board: Board, dictionary: Dictionary) -> Difficulty:
    """How hard ``found`` is to know and to see on ``board`` (see the module's notes)."""
    return _difficulty(found, _board_index(board), dictionary)


def _difficulty(found: FoundWord, index: _BoardIndex, dictionary: Dictionary) -> Difficulty:
    word = found.word
    level = _level(word, dictionary)
    doubles = len(word) - len(found.path)  # each two-letter face adds a letter to the path's
    paths = _count_paths(index, word, MAX_PATHS_COUNTED)
    sight = PER_LETTER * (len(word) - 4) + PER_DOUBLE_FACE * doubles - PER_EXTRA_PATH * (paths - 1)
    return Difficulty(PER_LEVEL * (level - 10), sight)


def _level(word: str, dictionary: Dictionary) -> int:
    level = dictionary.level(word) if dictionary.has_levels else None
    if level is None:
        level = _reference_levels().level(word)
    return UNKNOWN_LEVEL if level is None else level


@functools.cache
def _reference_levels() -> Dictionary:
    """The built-in list with the most graded words, for a dictionary without levels."""
    return Dictionary.builtin("huge")


def count_paths(board: Board, word: str, cap: int) -> int:
    """How many distinct paths spell ``word`` on ``board`` (at least 1), counting no further
    than ``cap`` (the search stops there, so it costs little however many paths there are)."""
    return _count_paths(_board_index(board), word, cap)


#: A board as the path count walks it: each cell's face, the cells by first letter, and each
#: cell's neighbours by first letter.
_BoardIndex = tuple[tuple[str, ...], dict[str, list[int]], tuple[dict[str, list[int]], ...]]


def _board_index(board: Board) -> _BoardIndex:
    letters = board.cell_letters
    starts: dict[str, list[int]] = {}
    for cell, face in enumerate(letters):
        if face:
            starts.setdefault(face[0], []).append(cell)
    around = tuple(_by_letter(letters, neighbours) for neighbours in board.adjacency)
    return letters, starts, around


def _by_letter(letters: Sequence[str], cells: Iterable[int]) -> dict[str, list[int]]:
    grouped: dict[str, list[int]] = {}
    for cell in cells:
        if letters[cell]:
            grouped.setdefault(letters[cell][0], []).append(cell)
    return grouped


def _count_paths(index: _BoardIndex, word: str, cap: int) -> int:
    letters, starts, around = index
    size = len(word)
    count = 0
    used: list[int] = []

    def walk(cell: int, end: int) -> None:
        nonlocal count
        if end == size:
            count += 1
            return
        used.append(cell)
        for nxt in around[cell].get(word[end], ()):
            face = letters[nxt]
            if nxt not in used and (len(face) == 1 or word.startswith(face, end)):
                walk(nxt, end + len(face))
                if count >= cap:
                    break
        used.pop()

    for start in starts.get(word[0], ()):
        face = letters[start]
        if len(face) == 1 or word.startswith(face):
            walk(start, len(face))
            if count >= cap:
                break
    return max(count, 1)


class _Word(NamedTuple):
    """A word of the board as every strength plays it: its difficulty and its stems there."""

    found: FoundWord
    difficulty: Difficulty
    stems: tuple[str, ...]


@dataclass
class _Prepared:
    """A board's words in playing order, and the slips beside each word once looked for."""

    words: tuple[_Word, ...]
    slips: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def slips_beside(
        self, found: FoundWord, solution: Solution, dictionary: Dictionary
    ) -> tuple[str, ...]:
        """:func:`slip_candidates` of ``found``, looked for once per board."""
        known = self.slips.get(found.word)
        if known is None:
            known = self.slips[found.word] = tuple(slip_candidates(found, solution, dictionary))
        return known


_cache_lock = threading.Lock()
_cache: dict[tuple[int, int], tuple[Solution, Dictionary, _Prepared]] = {}
_CACHE_SIZE = 8


def _prepared(solution: Solution, dictionary: Dictionary) -> _Prepared:
    """The board's words in playing order (shortest first, then alphabetical) with their
    difficulties and stems, kept for the last few solutions: every strength playing one board
    (a room's opponents, the calibration) measures its words once."""
    key = (id(solution), id(dictionary))
    with _cache_lock:
        hit = _cache.get(key)
    if hit is not None and hit[0] is solution and hit[1] is dictionary:
        return hit[2]
    index = _board_index(solution.board)
    order = sorted(solution, key=lambda f: (len(f.word), f.word))
    words = tuple(
        _Word(
            found,
            _difficulty(found, index, dictionary),
            tuple(stem for stem in _stems(found.word) if stem in solution),
        )
        for found in order
    )
    prepared = _Prepared(words)
    with _cache_lock:
        if len(_cache) >= _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
        _cache[key] = (solution, dictionary, prepared)
    return prepared


# -- playing --------------------------------------------------------------------------------------


def _digest(seed: int, strength: str, board: str) -> int:
    """The random stream's seed: a SHA-256 digest, the same in every process and machine."""
    text = f"{seed}\x1f{strength}\x1f{board}".encode()
    return int.from_bytes(hashlib.sha256(text).digest()[:16], "big")


def _sigmoid(x: float) -> float:
    """A sigmoid from 0 to 1 (1/2 at 0) made of arithmetic and a square root alone."""
    return 0.5 * (1.0 + x / math.sqrt(1.0 + x * x))


def chance(skill: float, difficulty: Difficulty, stem: bool = False) -> float:
    """The chance that an opponent of ``skill`` finds a word of ``difficulty``: that it knows
    the word, times that it sees it (easier after its ``stem``)."""
    if skill == math.inf:
        return 1.0
    reach = KNOW_REACH + KNOW_GROWTH * skill
    knows = _sigmoid(KNOW_SLOPE * (reach - difficulty.rarity))
    sight = difficulty.sight - (STEM_EASE if stem else 0.0)
    return knows * _sigmoid(SLOPE * (skill - sight))


def sureness(skill: float, difficulty: Difficulty, stem: bool = False) -> float:
    """How surely (0 to 1) an opponent of ``skill`` comes on a word it finds, which paces
    its time (:func:`discovery`): seeing it, and recalling it (a rare word comes slower)."""
    pace = SOLVER_PACE if skill == math.inf else skill + PACE_BOOST
    effort = difficulty.sight - (STEM_EASE if stem else 0.0) + RECALL * difficulty.rarity
    return _sigmoid(SLOPE * (pace - effort))


def discovery(chance: float, draw: float, letters: int) -> float:
    """When in the round (0 to 1) a word found is written, from its ``chance`` of being found
    and a uniform ``draw``.

    A person's search is a clock of its own: each word is seen at a time drawn from an
    exponential distribution whose rate grows with its ease, and found when that time falls
    within the round, so ``chance = 1 - exp(-rate)`` (the round as 1). Given that it was found,
    its time is that distribution cut at the round's end, ``ln(1 - draw * chance) / ln(1 -
    chance)``: a word the opponent was sure to find comes early, one it barely found anywhere
    (a weak player's words arrive at a steady pace, a strong one's front-loaded). A long word
    also waits :data:`WAIT_PER_LETTER` of the round a letter beyond four (at most
    :data:`MOST_WAIT`)."""
    sure = min(chance, _SUREST)
    if sure <= 0.0:
        return draw
    searched = _ln(1.0 - draw * sure) / _ln(1.0 - sure)
    wait = min(MOST_WAIT, max(0.0, WAIT_PER_LETTER * (letters - 4)))
    return wait + (1.0 - wait) * min(1.0, max(0.0, searched))


_LN2 = 0.6931471805599453
_SQRT_HALF = 0.7071067811865476


def _ln(x: float) -> float:
    """The natural logarithm of ``x`` > 0 by :func:`math.frexp` (exact) and a fixed polynomial
    (to about 1e-13), so the same on every machine: ``math.log`` is only as exact as the
    platform's C library."""
    mantissa, exponent = math.frexp(x)  # x = mantissa * 2**exponent, mantissa in [0.5, 1)
    if mantissa < _SQRT_HALF:
        mantissa, exponent = mantissa * 2.0, exponent - 1  # now in [0.707, 1.414)
    s = (mantissa - 1.0) / (mantissa + 1.0)  # ln(m) = 2 atanh(s), |s| < 0.18
    s2 = s * s
    series = 1 + s2 * (1 / 3 + s2 * (1 / 5 + s2 * (1 / 7 + s2 * (1 / 9 + s2 * (1 / 11)))))
    return exponent * _LN2 + 2.0 * s * series


def _play(
    strength: str,
    solution: Solution,
    prepared: _Prepared,
    dictionary: Dictionary,
    rng: random.Random,
    seconds: float,
    skill: float | None = None,
) -> list[tuple[float, str]]:
    """The list itself: for each word in order one draw says whether it is found; a found
    word draws its time and whether the opponent slips beside it. (A board's words share a
    few difficulties, so each chance is worked out once.)"""
    if skill is None:
        skill = SKILL[strength]
    slip_rate = SLIP_RATE[strength]
    margin = min(READING_SECONDS, seconds / 20)
    low, high = margin, seconds - margin
    span = high - low
    draw = rng.random
    found_at: dict[str, float] = {}
    slips: dict[str, float] = {}
    odds_of: dict[tuple[Difficulty, bool], tuple[float, float]] = {}
    for found, difficulty, stems in prepared.words:
        word = found.word
        stem = None
        for earlier in stems:
            if earlier in found_at:
                stem = earlier
                break
        key = (difficulty, stem is not None)
        odds = odds_of.get(key)
        if odds is None:
            odds = odds_of[key] = (chance(skill, *key), sureness(skill, *key))
        if draw() >= odds[0]:
            continue
        if stem is not None and draw() < WITH_STEM:
            at = min(high, found_at[stem] + 1.0 + 3.0 * draw())
        else:
            at = low + span * discovery(odds[1], draw(), len(word))
        found_at[word] = at
        if slip_rate and draw() < slip_rate:
            beside = prepared.slips_beside(found, solution, dictionary)
            _slip(beside, draw(), at, high, found_at, slips)
    entries = [(_tidy(at, seconds), word) for word, at in found_at.items()]
    entries += [(_tidy(at, seconds), word) for word, at in slips.items() if word not in found_at]
    entries.sort()
    return entries[:MAX_LIST_LENGTH]


def _in_round(
    play: Callable[[float], list[tuple[float, str]]], strength: str, seconds: float
) -> list[tuple[float, str]]:
    """The list written in a round of ``seconds``, from ``play`` (the list of a round of a given
    length). A person's pace does not change with the timer: in a round shorter than
    :data:`USUAL_SECONDS`, an opponent plays a usual round on its clock and only what it wrote
    in the first ``seconds`` counts (an expert's 15-second round is that round's first 15
    seconds, not its whole list squeezed in). The solver, a machine that finds everything, and
    a round at least as long as the usual one, spread the list over the whole round."""
    if strength == "solver" or seconds >= USUAL_SECONDS:
        return play(seconds)
    last = seconds - min(READING_SECONDS, seconds / 20)
    return [(at, entry) for at, entry in play(USUAL_SECONDS) if at <= last]


def _tidy(at: float, seconds: float) -> float:
    """``at`` to the millisecond when that keeps it strictly inside the round."""
    rounded = round(at, 3)
    return rounded if 0 < rounded < seconds else at


def _stems(word: str) -> list[str]:
    stems = []
    if word.endswith("s"):
        stems.append(word[:-1])
    if word.endswith(("es", "ed", "er")):
        stems.append(word[:-2])
    if word.endswith(("ed", "er")):
        stems.append(word[:-1])
    if word.endswith("ies") or word.endswith("ied"):
        stems.append(word[:-3] + "y")
    if word.endswith("ing"):
        stems += [word[:-3], word[:-3] + "e"]
    return stems


def _slip(
    beside: Sequence[str],
    pick: float,
    at: float,
    high: float,
    found_at: Mapping[str, float],
    slips: dict[str, float],
) -> None:
    """Write one plausible invalid entry of ``beside`` (the slips beside a word found at
    ``at``) a moment later, if one is left."""
    candidates = [c for c in beside if c not in found_at and c not in slips]
    if candidates:
        top = candidates[:SLIP_CHOICES]
        choice = top[min(int(pick * len(top)), len(top) - 1)]
        slips[choice] = min(high, at + 0.5 + 3.0 * pick)


def slip_candidates(found: FoundWord, solution: Solution, dictionary: Dictionary) -> list[str]:
    """The invalid entries a person might write beside ``found``, most plausible first.

    First the wrong plurals and tenses (:func:`inflections` the board does not hold) that a
    path on the board spells all the same (the player saw it there: ``steped``); then real,
    well-known words one letter away from ``found`` that the board does not hold (a letter
    misread: ``rested`` beside ``tested``), commonest first; then the other wrong plurals and
    tenses. None is valid on the board under ``solution``'s rules and dictionary: a real word
    among them is not on the board, anything else is no word."""
    word = found.word
    minimum = solution.min_length
    board = solution.board
    known = _word_set(dictionary)
    built = [v for v in inflections(word) if len(v) >= minimum and v not in solution]
    traced = [v for v in built if v not in known and _traceable(board, v)]
    misread = sorted(
        (v for v in _one_letter_away(word, known) if len(v) >= minimum and v not in solution),
        key=lambda v: (_level(v, dictionary), v),
    )
    ordered = traced + [v for v in misread if _level(v, dictionary) <= MISREAD_LEVEL] + built
    unique = dict.fromkeys(c for c in ordered if not is_offensive(c))
    return list(unique)


def _traceable(board: Board, text: str) -> bool:
    """Whether a path on ``board`` spells ``text`` (a small search: the text is short)."""
    try:
        return board.path_for(text, budget=TRACE_BUDGET) is not None
    except SearchBudgetExceeded:
        return False


def _one_letter_away(word: str, known: frozenset[str]) -> list[str]:
    """The words of ``known`` that one letter changed in ``word`` spells, in a fixed order."""
    return [
        changed
        for i, letter in enumerate(word)
        for other in _ALPHABET
        if other != letter and (changed := word[:i] + other + word[i + 1 :]) in known
    ]


_sets_lock = threading.Lock()
_sets: dict[int, tuple[Dictionary, frozenset[str]]] = {}


def _word_set(dictionary: Dictionary) -> frozenset[str]:
    """The dictionary's words as a set, for the many look-ups of a slip (kept for a few)."""
    with _sets_lock:
        hit = _sets.get(id(dictionary))
        if hit is not None and hit[0] is dictionary:
            return hit[1]
    words = frozenset(dictionary.word_list)
    with _sets_lock:
        if len(_sets) >= 4:
            _sets.pop(next(iter(_sets)))
        _sets[id(dictionary)] = (dictionary, words)
    return words


def inflections(word: str) -> list[str]:
    """The plurals and tenses a hurried player builds from ``word`` by rule, right or wrong
    (``step``: ``steps``, ``steped``, ``steper``, ``steping``; ``cape``: ``caped``,
    ``capes``, ``caper``). A word that already looks inflected (``-s``, ``-ed``, ``-ing``,
    ``-er``, ``-ly``) gets none: nobody writes ``noteds``."""
    if word.endswith(("ed", "ing", "er", "ly")) or (word.endswith("s") and not word.endswith("ss")):
        return []
    last = word[-1]
    if last == "e":
        return [word + "d", word + "s", word + "r"]
    if last == "y":
        if len(word) > 1 and word[-2] in _VOWELS:
            return [word + "s", word + "ed", word + "er"]
        return [word[:-1] + "ies", word[:-1] + "ied", word[:-1] + "ier"]
    if word.endswith(("ss", "sh", "ch", "x", "z")):
        return [word + "es", word + "ed", word + "er"]
    if last in _VOWELS:
        return [word + "s"]
    return [word + "s", word + "ed", word + "er", word + "ing"]


# -- measuring the strengths ----------------------------------------------------------------------


@dataclass(frozen=True)
class StrengthShare:
    """One strength's measured means over shaken boards, beside its target."""

    strength: str
    target: float
    #: The mean share of each board's points the opponent's list scores alone (by the rules).
    points: float
    #: The mean share of each board's words it finds.
    words: float
    #: The mean number of invalid entries it writes a board.
    invalid: float

    def to_json(self) -> dict[str, object]:
        """``{"strength", "target", "points", "words", "invalid"}`` (shares from 0 to 1)."""
        return dataclasses.asdict(self)


def measure_strengths(
    rules: Rules,
    dictionary: Dictionary,
    boards: int,
    *,
    first_seed: int = 0,
    strengths: Iterable[str] = TARGETS,
    skills: Mapping[str, float] | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[StrengthShare]:
    """Each strength's mean share of the board's points and words over ``boards`` shakes of the
    rules' dice (seeds ``first_seed``, ``first_seed + 1``...; opponent ``i`` plays with the
    board's seed). Each board is solved once for every strength; each list is scored alone by
    :func:`bigboggle.scoring.judge_round`. ``skills`` overrides :data:`SKILL` (calibration);
    ``progress`` is told of each board done (with 1)."""
    chosen = [check_strength(name) for name in strengths]
    totals = {name: [0.0, 0.0, 0.0] for name in chosen}
    alone = rules.with_options(duplicates="keep", teams=False)  # each list scored as if alone
    counted = 0
    for i in range(boards):
        seed = first_seed + i
        board = shake(rules.dice, seed, challenge=rules.challenge).board
        judge = Judge(board, alone, dictionary)
        solution = judge.solution
        if progress is not None:
            progress(1)
        if not solution.total_score:
            continue
        counted += 1
        lists = {
            name: [
                entry for _, entry in _play_with(name, seed, solution, dictionary, rules, skills)
            ]
            for name in chosen
        }
        setup = RoundSetup(dict.fromkeys(chosen, solution.min_length), None)
        result = judge_round(judge, lists, setup, None)
        for name in chosen:
            player = result.players[name]
            valid = sum(1 for r in player.words if r.verdict.is_valid)
            sums = totals[name]
            sums[0] += player.score / solution.total_score
            sums[1] += valid / solution.count
            sums[2] += len(player.words) - valid
    return [
        StrengthShare(
            name,
            TARGETS[name],
            *(value / counted if counted else 0.0 for value in totals[name]),
        )
        for name in chosen
    ]


def _play_with(
    strength: str,
    seed: int,
    solution: Solution,
    dictionary: Dictionary,
    rules: Rules,
    skills: Mapping[str, float] | None,
) -> list[tuple[float, str]]:
    if skills is None or strength not in skills:
        return Opponent(strength, seed).play_solution(solution, dictionary, rules)
    rng = random.Random(_digest(seed, strength, str(solution.board)))
    words = _prepared(solution, dictionary)
    return _play(strength, solution, words, dictionary, rng, float(rules.timer), skills[strength])

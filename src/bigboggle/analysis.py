"""Statistics of shaken boards: how rich a preset's boards are, and where one board stands.

:func:`shake_stats` shakes and solves many boards of a preset's dice (reproducibly from a seed)
and summarises the distribution of their points and word counts. The distributions of the
built-in presets and dictionaries ship with the package (``data/distributions.json``, made by
``tools/build_distributions.py``), so :func:`standing` can say at once that a board is "better
than 93% of Big Boggle shakes". :func:`shake_in_band` shakes until a board falls in a band
(easy, normal, rich, or explicit numbers).
"""

from __future__ import annotations

import bisect
import functools
import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import package_data
from .board import Board
from .dice import MAX_SEED, Shake, shake
from .dictionary import Dictionary
from .errors import RulesError, quoted
from .limits import MAX_SPEC_NAME
from .rules import Rules
from .solver import Solution, tally_many

#: Boards shaken and solved per call of the solver (and per progress report).
CHUNK = 2000
#: Percentiles reported in summaries.
PERCENTILES = (1, 5, 10, 25, 50, 75, 90, 95, 99)


@dataclass(frozen=True)
class Distribution:
    """A sample of one quantity (points or words per board), kept as sorted quantiles."""

    count: int
    mean: float
    stdev: float
    quantiles: tuple[float, ...]  # 0th..100th percentile, 101 values

    @classmethod
    def of(cls, values: Sequence[int]) -> Distribution:
        """The distribution of a sample."""
        if not values:
            raise ValueError("a distribution needs at least one value")
        ordered = sorted(values)
        quantiles = tuple(_quantile(ordered, p / 100) for p in range(101))
        import statistics  # here: only sampling needs it, and it slows every solve's startup

        stdev = statistics.pstdev(ordered) if len(ordered) > 1 else 0.0
        return cls(len(ordered), statistics.fmean(ordered), stdev, quantiles)

    def percentile(self, p: int) -> float:
        """The ``p``-th percentile (0-100)."""
        return self.quantiles[p]

    def rank(self, value: float) -> float:
        """The share (0-1) of the sample below ``value``, read off the quantiles (a value equal
        to a run of equal quantiles sits in the middle of the run)."""
        q = self.quantiles
        if value < q[0]:
            return 0.0
        if value > q[-1]:
            return 1.0
        low = bisect.bisect_left(q, value)
        high = bisect.bisect_right(q, value)
        if high > low:  # value is one of the quantiles
            return (low + high - 1) / 2 / (len(q) - 1)
        below, above = q[low - 1], q[low]
        return (low - 1 + (value - below) / (above - below)) / (len(q) - 1)

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "mean": round(self.mean, 3),
            "stdev": round(self.stdev, 3),
            "min": self.quantiles[0],
            "max": self.quantiles[-1],
            "percentiles": {str(p): round(self.quantiles[p], 2) for p in PERCENTILES},
            "quantiles": [round(q, 2) for q in self.quantiles],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Distribution:
        return cls(
            int(data["count"]), float(data["mean"]), float(data["stdev"]), tuple(data["quantiles"])
        )


def _quantile(ordered: Sequence[int], q: float) -> float:
    """Linear interpolation between the closest ranks (as numpy's default)."""
    position = q * (len(ordered) - 1)
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True)
class BoardScore:
    """One shaken board with its points and word count."""

    board: str
    seed: int
    points: int
    words: int


@dataclass(frozen=True)
class ShakeStats:
    """What many shakes of one preset's dice hold, under one dictionary."""

    rules: str
    dictionary: str
    min_length: int
    boards: int
    seed: int
    points: Distribution
    words: Distribution
    best: tuple[BoardScore, ...] = field(default=())
    worst: tuple[BoardScore, ...] = field(default=())
    #: The raw sample (for histograms); empty for the shipped statistics.
    point_values: tuple[int, ...] = field(default=(), repr=False)
    word_values: tuple[int, ...] = field(default=(), repr=False)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "dictionary": self.dictionary,
            "min_length": self.min_length,
            "boards": self.boards,
            "seed": self.seed,
            "points": self.points.to_json(),
            "words": self.words.to_json(),
            "best": [vars(board) for board in self.best],
            "worst": [vars(board) for board in self.worst],
        }


Progress = Callable[[int], None]


def shake_stats(
    rules: Rules,
    words: Dictionary,
    *,
    boards: int = 100_000,
    seed: int = 0,
    threads: int = 2,
    keep: int = 5,
    progress: Progress | None = None,
) -> ShakeStats:
    """Shake ``boards`` boards of the rules' dice (seeds ``seed``, ``seed + 1``, …), solve them
    all and summarise. ``progress(n)`` is called after each chunk of ``n`` boards."""
    if isinstance(boards, bool) or not isinstance(boards, int) or boards < 1:
        raise RulesError(f"boards={boards!r} must be a whole number of at least 1")
    points: list[int] = []
    counts: list[int] = []
    scored: list[BoardScore] = []
    for start in range(seed, seed + boards, CHUNK):
        seeds = range(start, min(start + CHUNK, seed + boards))
        shaken = [shake(rules.dice, s, challenge=rules.challenge).board for s in seeds]
        tallies = tally_many(shaken, words, rules, threads=threads)
        for s, board, (total, count) in zip(seeds, shaken, tallies, strict=True):
            points.append(total)
            counts.append(count)
            scored.append(BoardScore(str(board), s, total, count))
        scored.sort(key=lambda b: (-b.points, b.seed))
        scored = scored[:keep] + scored[-keep:] if len(scored) > 2 * keep else scored
        if progress is not None:
            progress(len(seeds))
    ranked = sorted(scored, key=lambda b: (-b.points, b.seed))
    return ShakeStats(
        rules=rules.name,
        dictionary=words.name,
        min_length=rules.min_length,
        boards=boards,
        seed=seed,
        points=Distribution.of(points),
        words=Distribution.of(counts),
        best=tuple(ranked[:keep]),
        worst=tuple(reversed(ranked[-keep:])),
        point_values=tuple(points),
        word_values=tuple(counts),
    )


# -- the shipped distributions ----------------------------------------------------------------


@functools.cache
def shipped() -> dict[str, ShakeStats]:
    """The precomputed statistics of the built-in presets and dictionaries, by ``preset/dictionary``."""
    try:
        text = package_data.read_text("distributions.json")
    except FileNotFoundError:
        return {}
    table: dict[str, ShakeStats] = {}
    for key, entry in json.loads(text)["distributions"].items():
        table[key] = ShakeStats(
            rules=entry["rules"],
            dictionary=entry["dictionary"],
            min_length=entry["min_length"],
            boards=entry["boards"],
            seed=entry["seed"],
            points=Distribution.from_json(entry["points"]),
            words=Distribution.from_json(entry["words"]),
        )
    return table


def reference_stats(rules: Rules, words: Dictionary) -> ShakeStats | None:
    """The shipped statistics that fit these rules and dictionary, if any do."""
    stats = shipped().get(f"{rules.name}/{words.name}")
    if stats is None or stats.min_length != rules.min_length:
        return None
    base = Rules.preset(rules.name)
    if (rules.scoring, rules.challenge) != (base.scoring, base.challenge):
        return None
    return stats


@dataclass(frozen=True)
class Standing:
    """Where a board stands among shakes of its preset's dice."""

    points_rank: float
    words_rank: float
    boards: int
    rules: str
    dictionary: str

    def describe(self) -> str:
        return (
            f"better than {100 * self.points_rank:.0f}% of {self.rules} shakes by points "
            f"({100 * self.words_rank:.0f}% by words; {self.boards:,} shaken boards, "
            f"{self.dictionary} dictionary)"
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "points_rank": round(self.points_rank, 4),
            "words_rank": round(self.words_rank, 4),
            "boards": self.boards,
            "rules": self.rules,
            "dictionary": self.dictionary,
        }


def standing(
    board: Board,
    rules: Rules,
    words: Dictionary,
    points: int,
    count: int,
    *,
    min_length: int | None = None,
) -> Standing | None:
    """How ``board`` (with ``points`` and ``count`` words of ``min_length``+ letters) compares
    with shakes of its preset, when the package ships statistics that fit: the same rules,
    dictionary, minimum length and board size, and no challenge cube (shakes had none)."""
    stats = reference_stats(rules, words)
    if stats is None or board.size != (rules.rows, rules.cols) or board.challenge is not None:
        return None
    if min_length is not None and min_length != stats.min_length:
        return None
    return Standing(
        stats.points.rank(points), stats.words.rank(count), stats.boards, rules.name, words.name
    )


def standing_of(solution: Solution, words: Dictionary) -> Standing | None:
    """Where a solved board stands among shakes of its rules' preset (see :func:`standing`)."""
    return standing(
        solution.board,
        solution.rules,
        words,
        solution.total_score,
        solution.count,
        min_length=solution.min_length,
    )


# -- boards to order ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Band:
    """A range of points and of word counts (inclusive; ``None``: no limit)."""

    min_points: int | None = None
    max_points: int | None = None
    min_words: int | None = None
    max_words: int | None = None

    def holds(self, points: int, words: int) -> bool:
        return (
            (self.min_points is None or points >= self.min_points)
            and (self.max_points is None or points <= self.max_points)
            and (self.min_words is None or words >= self.min_words)
            and (self.max_words is None or words <= self.max_words)
        )


#: Named bands as percentile ranges of points among shakes of the preset.
NAMED_BANDS = {"easy": (0, 25), "normal": (25, 75), "rich": (75, 100)}


def named_band(name: str, rules: Rules, words: Dictionary, *, sample: int = 2000) -> Band:
    """The band ``easy``, ``normal`` or ``rich`` for these rules and dictionary: the shipped
    statistics' percentiles, or those of a fresh sample when none ship."""
    if name not in NAMED_BANDS:
        raise RulesError(f"unknown band {name!r}; bands: {', '.join(NAMED_BANDS)}")
    stats = reference_stats(rules, words) or shake_stats(rules, words, boards=sample, seed=10**9)
    low, high = NAMED_BANDS[name]
    # Each band starts just above the one below it, so no board is in two named bands.
    return Band(
        min_points=None if low == 0 else math.floor(stats.points.percentile(low)) + 1,
        max_points=None if high == 100 else math.floor(stats.points.percentile(high)),
    )


def parse_band(text: str, rules: Rules, words: Dictionary) -> Band:
    """A band from text: ``easy``, ``normal`` or ``rich``; points as ``300-500`` (or
    ``points:300-500``); words as ``words:100-200``; one end may stay open (``300-``).
    Text longer than :data:`~bigboggle.limits.MAX_SPEC_NAME` is refused before it is read."""
    usage = (
        "give easy, normal or rich, points like 300-500, or words like words:100-200 "
        "(one end may be left open: 300-)"
    )
    if not isinstance(text, str) or len(text) > MAX_SPEC_NAME:
        raise RulesError(f"{quoted(text)}: {usage}; a band is at most {MAX_SPEC_NAME} characters")
    if text in NAMED_BANDS:
        return named_band(text, rules, words)
    kind, _, numbers = text.rpartition(":")
    low, sep, high = numbers.partition("-")
    if (
        kind not in ("", "points", "words")
        or not sep
        or not (low or high)
        or not all(_is_number(end) for end in (low, high) if end)
    ):
        raise RulesError(f"{quoted(text)}: {usage}")
    bounds = (int(low) if low else None, int(high) if high else None)
    if bounds[0] is not None and bounds[1] is not None and bounds[0] > bounds[1]:
        raise RulesError(f"{quoted(text)}: the low end is above the high end")
    if kind == "words":
        return Band(min_words=bounds[0], max_words=bounds[1])
    return Band(min_points=bounds[0], max_points=bounds[1])


def _is_number(text: str) -> bool:
    """Whether ``text`` is a whole number in ASCII digits (``str.isdigit`` also takes ``²``)."""
    return text.isascii() and text.isdigit()


def shake_in_band(
    rules: Rules, words: Dictionary, band: Band, *, seed: int = 0, tries: int = 10_000
) -> tuple[Shake, int]:
    """The first shake (seeds ``seed``, ``seed + 1``, …) whose board falls in ``band``, and its
    seed. :class:`RulesError` after ``tries`` shakes without one."""
    last = min(seed + tries, MAX_SEED + 1)  # seeds past MAX_SEED could not be replayed
    for start in range(seed, last, 256):
        seeds = range(start, min(start + 256, last))
        shakes = [shake(rules.dice, s, challenge=rules.challenge) for s in seeds]
        tallies = tally_many([dealt.board for dealt in shakes], words, rules)
        for s, dealt, (points, count) in zip(seeds, shakes, tallies, strict=True):
            if band.holds(points, count):
                return dealt, s
    raise RulesError(f"no board in the band after {tries} shakes; widen the band")

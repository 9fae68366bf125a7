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
import itertools
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from . import package_data
from .board import Board
from .dice import MAX_SEED, Shake, shake, shake_text
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
        counts: dict[int, int] = {}
        for value in values:
            counts[value] = counts.get(value, 0) + 1
        return cls.of_counts(counts)

    @classmethod
    def of_counts(cls, counts: Mapping[int, int]) -> Distribution:
        """The distribution of a sample given as exact counts (``{value: how many}``): the same
        as :meth:`of` the expanded sample, but counts merge by adding, so the shakes of many
        processes (or a cluster's workers) combine exactly, whatever the order they finish in."""
        ordered = sorted((value, count) for value, count in counts.items() if count)
        n = sum(count for _, count in ordered)
        if n == 0:
            raise ValueError("a distribution needs at least one value")
        values = [value for value, _ in ordered]
        ends = list(itertools.accumulate(count for _, count in ordered))  # rank after each value

        def at(rank: int) -> int:  # the value at a 0-based rank of the sorted sample
            return values[bisect.bisect_right(ends, rank)]

        quantiles = []
        for p in range(101):
            position = p / 100 * (n - 1)
            low = math.floor(position)
            high = min(low + 1, n - 1)
            below, above = at(low), at(high)
            quantiles.append(below + (above - below) * (position - low))
        total = sum(value * count for value, count in ordered)
        squares = sum(value * value * count for value, count in ordered)
        # Exact in integers until the last steps: the same whatever the order of the counts.
        return cls(n, total / n, math.sqrt(n * squares - total * total) / n, tuple(quantiles))

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


@dataclass(frozen=True)
class BoardScore:
    """One shaken board with its points and word count."""

    board: str
    seed: int
    points: int
    words: int


Progress = Callable[[int], None]


@dataclass(frozen=True)
class ShakeTally:
    """What the shakes of consecutive seeds ``first_seed`` … ``first_seed + boards - 1`` held:
    exact counts of each points total and word count, and the ``keep`` best and worst boards.
    Tallies of any runs of seeds merge exactly (:meth:`merge`), in any order, so a run split into
    chunks over processes or a cluster's workers gives the same statistics as one process."""

    first_seed: int
    boards: int
    point_counts: dict[int, int]
    word_counts: dict[int, int]
    best: tuple[BoardScore, ...]
    worst: tuple[BoardScore, ...]

    @staticmethod
    def merge(tallies: Iterable[ShakeTally], keep: int = 5) -> ShakeTally:
        """One tally of several (of disjoint seeds); ``first_seed`` is the lowest of them."""
        points: dict[int, int] = {}
        words: dict[int, int] = {}
        boards = 0
        first = None
        extremes: list[BoardScore] = []
        for tally in tallies:
            boards += tally.boards
            first = tally.first_seed if first is None else min(first, tally.first_seed)
            for value, count in tally.point_counts.items():
                points[value] = points.get(value, 0) + count
            for value, count in tally.word_counts.items():
                words[value] = words.get(value, 0) + count
            extremes.extend(tally.best)
            extremes.extend(tally.worst)
        best, worst = _extremes(extremes, keep)
        return ShakeTally(first or 0, boards, points, words, best, worst)

    def to_json(self) -> dict[str, Any]:
        """A form for a checkpoint file (counts as ``[[value, count], …]``, sorted)."""
        return {
            "first_seed": self.first_seed,
            "boards": self.boards,
            "points": sorted(self.point_counts.items()),
            "words": sorted(self.word_counts.items()),
            "best": [vars(board) for board in self.best],
            "worst": [vars(board) for board in self.worst],
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ShakeTally:
        return cls(
            int(data["first_seed"]),
            int(data["boards"]),
            {int(value): int(count) for value, count in data["points"]},
            {int(value): int(count) for value, count in data["words"]},
            tuple(BoardScore(**board) for board in data["best"]),
            tuple(BoardScore(**board) for board in data["worst"]),
        )


def _extremes(
    boards: Iterable[BoardScore], keep: int
) -> tuple[tuple[BoardScore, ...], tuple[BoardScore, ...]]:
    """The ``keep`` best boards (most points, then lowest seed) and the ``keep`` worst (fewest
    points, then highest seed), each board once."""
    unique = {board.seed: board for board in boards}.values()
    best = sorted(unique, key=lambda b: (-b.points, b.seed))[:keep]
    worst = sorted(unique, key=lambda b: (b.points, -b.seed))[:keep]
    return tuple(best), tuple(worst)


def shake_tally(
    rules: Rules,
    words: Dictionary,
    first_seed: int,
    boards: int,
    *,
    threads: int = 1,
    keep: int = 5,
    progress: Progress | None = None,
) -> ShakeTally:
    """Shake and solve the boards of seeds ``first_seed`` … ``first_seed + boards - 1`` (in
    chunks of :data:`CHUNK`, calling ``progress(n)`` after each) and tally them."""
    if isinstance(boards, bool) or not isinstance(boards, int) or boards < 1:
        raise RulesError(f"boards={boards!r} must be a whole number of at least 1")
    if isinstance(first_seed, bool) or not isinstance(first_seed, int):
        raise RulesError(f"first_seed={first_seed!r} must be a whole number")
    if first_seed < 0 or first_seed + boards - 1 > MAX_SEED:
        raise RulesError(f"seeds {first_seed}..{first_seed + boards - 1} must lie in 0..{MAX_SEED}")
    points: dict[int, int] = {}
    counts: dict[int, int] = {}
    extremes: tuple[BoardScore, ...] = ()
    for start in range(first_seed, first_seed + boards, CHUNK):
        seeds = range(start, min(start + CHUNK, first_seed + boards))
        texts = [shake_text(rules.dice, s, challenge=rules.challenge) for s in seeds]
        tallies = tally_many(texts, words, rules, threads=threads)
        scored = []
        for s, text, (total, count) in zip(seeds, texts, tallies, strict=True):
            points[total] = points.get(total, 0) + 1
            counts[count] = counts.get(count, 0) + 1
            scored.append(BoardScore(text, s, total, count))
        best, worst = _extremes([*extremes, *scored], keep)
        extremes = best + worst
        if progress is not None:
            progress(len(seeds))
    best, worst = _extremes(extremes, keep)
    return ShakeTally(first_seed, boards, points, counts, best, worst)


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
    #: Exact counts of each value (for histograms); empty for the shipped statistics.
    point_counts: dict[int, int] = field(default_factory=dict, repr=False)
    word_counts: dict[int, int] = field(default_factory=dict, repr=False)

    @classmethod
    def of_tally(
        cls, rules: Rules, dictionary: str, tally: ShakeTally, *, seed: int | None = None
    ) -> ShakeStats:
        """The statistics of a tally (``seed``: the run's first seed, if not the tally's)."""
        return cls(
            rules=rules.name,
            dictionary=dictionary,
            min_length=rules.min_length,
            boards=tally.boards,
            seed=tally.first_seed if seed is None else seed,
            points=Distribution.of_counts(tally.point_counts),
            words=Distribution.of_counts(tally.word_counts),
            best=tally.best,
            worst=tally.worst,
            point_counts=tally.point_counts,
            word_counts=tally.word_counts,
        )

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
    tally = shake_tally(rules, words, seed, boards, threads=threads, keep=keep, progress=progress)
    return ShakeStats.of_tally(rules, words.name, tally)


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

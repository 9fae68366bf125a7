"""The search for the best board: simulated annealing, then large-neighbourhood search.

A state is a board (free letters, or the real dice: which die lies where and which face is up).
A move changes one cell's letter or swaps two cells (with dice: swaps two dice or turns one to
another face). Moves that lower the value are accepted with probability ``exp(delta / T)``, the
temperature ``T`` falling geometrically over each anneal; its scale grows with the board, since
a move's change does.

Each restart anneals a fresh board, then climbs exhaustively to a local optimum (every letter at
every cell, every swap). Then comes a large-neighbourhood search around that peak: rewrite a
region (two neighbouring rows or columns, or a 3x3 block), re-anneal only that region, climb,
and keep the result if it is no worse. Plain annealing gets the board's broad shape right but
stalls a few hundred points short on 5x5: the last gains need several neighbouring letters
changed together, which these region moves make. After a run of region moves that do not beat
the peak, the search restarts afresh, which keeps it from spending all its time on one peak.

The value of a board is the solver's total with a points table that encodes the objective: the
rules' points, one per word (most words), or one per word of at least ``long_length`` letters
(boards holding long words).
"""

from __future__ import annotations

import functools
import math
import multiprocessing
import queue
import random
import signal
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from multiprocessing.managers import SyncManager
from typing import Any, Literal

from . import implementation
from .board import Board
from .dice import DiceSet, dice_set
from .dictionary import Dictionary
from .errors import RulesError
from .rules import MAX_WORD_LENGTH, Rules
from .solver import points_table

Objective = Literal["points", "words", "long"]

#: Bytes of board values a search remembers at most (a value and its board's key, about
#: 120 bytes and two a cell): some 260,000 5x5 boards, 30,000 on 12x12.
MEMO_BYTES = 45 << 20

#: Letters of the free-letter search, as faces, and how often a move proposes each: the
#: frequencies of the Big Boggle dice, which favour letters that make words.
_ALPHABET = [chr(c) for c in range(ord("a"), ord("z") + 1)] + ["qu"]


@dataclass(frozen=True)
class Improvement:
    """A new best board, found ``seconds`` after the start."""

    seconds: float
    evaluations: int
    value: int
    board: str


@dataclass
class SearchResult:
    """The best board found and how the search got there."""

    board: Board
    value: int
    objective: Objective
    evaluations: int = 0
    seconds: float = 0.0
    restarts: int = 0
    #: Boards the solver scored: ``evaluations`` less those whose value was remembered.
    solved: int = 0
    improvements: list[Improvement] = field(default_factory=list)
    #: Whether Ctrl-C stopped the search early (the best board so far is kept).
    interrupted: bool = False
    #: Whether the time limit stopped it before its ``max_evaluations`` (so its board is not
    #: the one the seed and that budget give).
    timed_out: bool = False


def _weights(dice: DiceSet) -> list[float]:
    counts = dict.fromkeys(_ALPHABET, 0.5)
    for face in dice.faces:
        if face:
            counts[face.lower()] = counts.get(face.lower(), 0.5) + 1
    return [counts[letter] for letter in _ALPHABET]


def objective_points(
    objective: Objective, rules: Rules, words: Dictionary, long_length: int | None
) -> tuple[int, ...]:
    """The points table that makes the solver's total the objective's value."""
    if long_length is not None and objective != "long":
        raise RulesError("long_length goes with the 'long' objective only")
    if objective == "points":
        return points_table(rules, rules.min_length, words.longest)
    if objective == "words":
        return tuple(int(n >= rules.min_length) for n in range(words.longest + 2))
    if objective == "long":
        if long_length is None or not rules.min_length <= long_length <= MAX_WORD_LENGTH:
            raise RulesError(
                f"long_length={long_length!r}: give the shortest long word, "
                f"{rules.min_length}-{MAX_WORD_LENGTH} letters"
            )
        return tuple(int(n >= long_length) for n in range(words.longest + 2))
    raise RulesError(f"unknown objective {objective!r}; objectives: points, words, long")


@dataclass(frozen=True)
class _Plan:
    """The knobs of one search, chosen by :func:`_plan` for the objective and board size."""

    #: Temperatures at the start and end of an anneal: a move that loses ``d`` is taken with
    #: probability ``exp(-d / T)``.
    temperature_start: float
    temperature_end: float
    #: Moves per anneal from a fresh board.
    steps: int
    #: Region re-anneals in a row that may fail to beat the restart's peak before the search
    #: gives up on that peak and starts afresh.
    patience: int
    #: Moves and starting temperature of each region re-anneal.
    region_steps: int
    region_temperature: float


def _plan(objective: Objective, size: int, steps: int | None) -> _Plan:
    """The plan for an objective on a board of ``size`` cells (``steps`` per fresh anneal)."""
    steps = 100_000 if steps is None else steps
    # Points: a move's change grows with the board's total, which grows faster than the number
    # of cells. 40 suits 4x4, and (cells / 16) ** 2 scales it: about 100 on 5x5, where 40
    # froze the board into a mediocre peak. Word counts change by a few words a move.
    hot = 40.0 * (size / 16) ** 2 if objective == "points" else 8.0
    cold = 0.3 if objective == "points" else 0.1
    return _Plan(hot, cold, steps, 60, max(1, steps // 10), 0.3 * hot)


def _regions(rows: int, cols: int) -> list[list[int]]:
    """The regions a large-neighbourhood move re-anneals: every two neighbouring rows, every
    two neighbouring columns and every 3x3 block. Each is a connected patch where a run of
    letters can be rewritten as a whole, which single changes and swaps cannot do uphill."""
    regions = [
        [r * cols + c for r in (top, top + 1) for c in range(cols)] for top in range(rows - 1)
    ]
    regions += [
        [r * cols + c for c in (left, left + 1) for r in range(rows)] for left in range(cols - 1)
    ]
    regions += [
        [r * cols + c for r in range(top, top + 3) for c in range(left, left + 3)]
        for top in range(rows - 2)
        for left in range(cols - 2)
    ]
    return regions or [list(range(rows * cols))]


def search_best(
    rules: Rules,
    words: Dictionary,
    *,
    objective: Objective = "points",
    long_length: int | None = None,
    use_dice: bool = False,
    seconds: float | None = None,
    seed: int = 0,
    max_evaluations: int | None = None,
    stop_at: int | None = None,
    steps_per_restart: int | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    on_progress: Callable[[float, int, int], None] | None = None,
    progress_every: float = 2.0,
    clock: Callable[[], float] = time.monotonic,
) -> SearchResult:
    """Search for the board of the rules' size with the highest value, for ``seconds`` or
    ``max_evaluations`` boards, whichever comes first (or until a board worth ``stop_at`` or
    more is found). ``seconds`` defaults to 60 without ``max_evaluations`` and to no limit
    with it. With
    ``use_dice`` only boards the preset's dice can make count.
    The same seed and evaluation budget give the same result (unless ``seconds`` cut the
    search short first: then ``timed_out`` says so). ``on_improve`` hears of each new
    best board; ``on_progress(seconds, evaluations, best value)`` every ``progress_every``
    seconds. ``steps_per_restart`` is the length of each fresh anneal (default 100,000 moves;
    each region re-anneal is a tenth of it).

    The steps are the methods of :class:`_Search`: ``run`` restarts until the budget is
    spent; each ``restart`` shakes a fresh board, anneals it (``anneal``: ``swap_move`` and
    ``change_move``, kept or undone by the acceptance rule ``accepts``) and climbs it to a
    peak (``climb``: ``best_neighbour``, ``make``), then ``explore_peak`` re-anneals regions
    around that peak. ``out_of_time`` is the budget and the progress reports, ``note`` keeps
    the best board so far."""
    if seconds is None:
        seconds = math.inf if max_evaluations is not None else 60.0
    elif isinstance(seconds, bool) or not (
        isinstance(seconds, int | float) and seconds > 0 and math.isfinite(seconds)
    ):
        raise RulesError(f"seconds={seconds!r} must be a positive number (or None)")
    if steps_per_restart is not None and (
        isinstance(steps_per_restart, bool)
        or not isinstance(steps_per_restart, int)
        or steps_per_restart < 1
    ):
        raise RulesError(f"steps_per_restart={steps_per_restart!r} must be a whole number >= 1")
    if stop_at is not None and (
        isinstance(stop_at, bool) or not isinstance(stop_at, int) or stop_at < 0
    ):
        raise RulesError(
            f"stop_at={stop_at!r} must be a value of the objective, 0 or more (or None)"
        )
    points = objective_points(objective, rules, words, long_length)
    search = _Search(
        rules,
        words,
        objective,
        points,
        _plan(objective, rules.rows * rules.cols, steps_per_restart),
        use_dice=use_dice,
        seed=seed,
        budget=_Budget(seconds, max_evaluations, stop_at, clock, on_progress, progress_every),
        on_improve=on_improve,
    )
    return search.run()


@dataclass(frozen=True)
class _Budget:
    """When a search stops (``seconds`` on ``clock`` or ``max_evaluations`` boards when set,
    whichever comes first, or once a board worth ``stop_at`` is found), and who hears of its progress
    (``on_progress`` every ``progress_every`` seconds)."""

    seconds: float
    max_evaluations: int | None
    stop_at: int | None
    clock: Callable[[], float]
    on_progress: Callable[[float, int, int], None] | None
    progress_every: float


#: A move :meth:`_Search.best_neighbour` found best: (0, cell, face) turns the cell's die to a face,
#: (1, cell, letter) writes a letter in the cell, (2, a, b) swaps two cells.
_Move = tuple[int, int, int | str]


class _Search:
    """One seeded search: the board being changed, the random draws, the budget and the best
    board so far. :meth:`run` is the whole search; the other methods are its named steps.

    The state is the letters per cell; with dice, also which die lies where (``order``) and
    which of its faces is up (``faces``). Every step draws from the one seeded generator in a
    fixed order, so a seed and an evaluation budget always give the same search."""

    __slots__ = (
        "alternatives",
        "budget",
        "cols",
        "dice",
        "evaluate",
        "evaluations",
        "faces",
        "letters",
        "memo",
        "memo_limit",
        "next_report",
        "on_improve",
        "order",
        "plan",
        "random",
        "randrange",
        "regions",
        "result",
        "rng",
        "rows",
        "size",
        "solved",
        "started",
        "table",
        "use_dice",
    )

    def __init__(
        self,
        rules: Rules,
        words: Dictionary,
        objective: Objective,
        points: tuple[int, ...],
        plan: _Plan,
        *,
        use_dice: bool,
        seed: int,
        budget: _Budget,
        on_improve: Callable[[Improvement], None] | None,
    ) -> None:
        self.rows, self.cols = rules.rows, rules.cols
        self.size = self.rows * self.cols
        self.dice = dice_set(rules.dice)
        self.use_dice = use_dice
        self.plan = plan
        self.regions = _regions(self.rows, self.cols)
        rng = random.Random(seed)
        self.rng = rng
        self.random = rng.random
        self.randrange = rng.randrange
        # Letters drawn with the dice's frequencies, from a flat table: one random() a draw,
        # which is much cheaper than choices() in the hot loop.
        self.table = [
            letter
            for letter, weight in zip(_ALPHABET, _weights(self.dice), strict=True)
            for _ in range(round(weight * 2))
        ]
        self.letters: list[str] = []
        self.order = list(range(self.size))
        self.faces = [0] * self.size
        # The solver's total for ``letters`` as they stand (the list is changed in place,
        # never replaced), bound once: the search's hot loop calls it for every move.
        core, trie = implementation.core(), implementation.trie_for(words)
        self.evaluate = functools.partial(
            core.score_cells, trie, self.letters, self.rows, self.cols, -1, points, 0
        )
        # The value with each of several faces at one cell, in one walk of the solver.
        self.alternatives: Callable[[int, list[str]], list[int]] = lambda cell, faces: (
            core.score_alternatives(trie, self.letters, self.rows, self.cols, cell, faces, points)
        )
        self.budget = budget
        self.on_improve = on_improve
        self.evaluations = 0
        self.solved = 0
        self.memo: dict[str, int] = {}
        self.memo_limit = MEMO_BYTES // (120 + 2 * self.size)
        self.started = budget.clock()
        self.next_report = self.started + budget.progress_every
        self.result = SearchResult(Board.from_faces([["a"] * self.cols] * self.rows), -1, objective)

    # -- the whole search -------------------------------------------------------------------

    def run(self) -> SearchResult:
        """Restart until the budget is spent (or Ctrl-C, which keeps the best board so far),
        and return the best board with the search's counts."""
        result = self.result
        try:
            while not self.out_of_time():
                self.restart()
                result.restarts += 1
        except KeyboardInterrupt:  # stop, and keep the best board so far
            result.interrupted = True
        budget = self.budget
        result.timed_out = (
            not result.interrupted
            and budget.max_evaluations is not None
            and self.evaluations < budget.max_evaluations
            and (budget.stop_at is None or result.value < budget.stop_at)
        )
        result.evaluations = self.evaluations
        result.solved = self.solved
        result.seconds = self.budget.clock() - self.started
        return result

    def restart(self) -> None:
        """One restart: a fresh board, annealed over every cell and climbed to its peak, then
        the large-neighbourhood search around that peak."""
        self.fresh()
        current = self.value()
        self.note(current)
        plan = self.plan
        current = self.anneal(current, plan.steps, plan.temperature_start, list(range(self.size)))
        self.explore_peak(self.climb(current))

    def explore_peak(self, current: int) -> None:
        """Large-neighbourhood search around a restart's peak (worth ``current``): rewrite one
        region at random, re-anneal only that region, climb; keep the board if it is no worse
        (equal boards let the search drift along a plateau), else go back. After the plan's
        ``patience`` region moves in a row that do not beat the peak, the peak is left for a
        fresh restart, which keeps the search diverse."""
        plan = self.plan
        peak = self.snapshot()
        stale = 0
        while stale < plan.patience and not self.out_of_time():
            region = self.regions[self.randrange(len(self.regions))]
            self.rewrite(region)
            reached = self.anneal(self.value(), plan.region_steps, plan.region_temperature, region)
            reached = self.climb(reached)
            stale = 0 if reached > current else stale + 1
            if reached >= current:
                current = reached
                peak = self.snapshot()
            else:
                self.restore(peak)

    # -- the moves --------------------------------------------------------------------------

    def anneal(self, current: int, steps: int, hot: float, cells: list[int]) -> int:
        """Simulated annealing from ``hot`` down to the plan's cold temperature, with moves
        that change a cell of ``cells`` (its letter, or its die's face) or swap one with any
        cell, half and half. Returns the value of the board it ends on."""
        temperature = hot
        cooling = (self.plan.temperature_end / hot) ** (1 / steps)
        random_ = self.random
        swap_move, change_move, out_of_time = self.swap_move, self.change_move, self.out_of_time
        for step in range(steps):
            if step & 511 == 0 and out_of_time():
                break
            temperature *= cooling
            if random_() < 0.5:
                current = swap_move(cells, current, temperature)
            else:
                current = change_move(cells, current, temperature)
        return current

    def swap_move(self, cells: list[int], current: int, temperature: float) -> int:
        """Swap a cell of ``cells`` with any cell (and their dice), kept if :meth:`accepts`
        says so; returns the board's value after the move (or without it)."""
        random_, letters = self.random, self.letters
        a, b = cells[int(random_() * len(cells))], self.randrange(self.size)
        if letters[a] == letters[b]:
            return current
        self.swap(a, b)
        candidate = self.value()
        if self.accepts(candidate - current, temperature):
            self.note(candidate)
            return candidate
        self.swap(a, b)
        return current

    def change_move(self, cells: list[int], current: int, temperature: float) -> int:
        """Give a cell of ``cells`` a new letter (with dice: turn its die to a random face),
        kept if :meth:`accepts` says so; returns the board's value after the move (or
        without it)."""
        letters = self.letters
        cell = cells[int(self.random() * len(cells))]
        before = letters[cell]
        old_face = self.faces[cell]
        self.redraw(cell)
        if letters[cell] == before:
            return current
        candidate = self.value()
        if self.accepts(candidate - current, temperature):
            self.note(candidate)
            return candidate
        if self.use_dice:
            self.set_face(cell, old_face)
        else:
            letters[cell] = before
        return current

    def accepts(self, delta: int, temperature: float) -> bool:
        """The annealing's acceptance rule: a move that keeps or raises the value is taken; one
        that lowers it by ``-delta`` with probability ``exp(delta / temperature)``."""
        return delta >= 0 or self.random() < math.exp(delta / temperature)

    def climb(self, current: int) -> int:
        """Climb to a local optimum: take the best of every one-cell change (every letter, or
        every face of the cell's die) and every swap, until none helps. An anneal or a region
        re-anneal can stop a change or two short of its peak; this makes sure it does not."""
        while True:
            found = self.best_neighbour(current)
            if found is None:
                return current
            move, current = found
            self.make(move)
            self.note(current)

    def best_neighbour(self, current: int) -> tuple[_Move, int] | None:
        """The best single change or swap from this board, and the value it gives; ``None``
        when none beats ``current`` or the budget ran out on the way."""
        letters, value = self.letters, self.value
        best_move: _Move | None = None
        best_value = current
        for cell in range(self.size):
            if self.out_of_time():
                return None
            before = letters[cell]
            if self.use_dice:
                die = self.dice.dice[self.order[cell]]
                turns = [face for face in range(6) if die[face].lower() != before]
                values = self.values_at(cell, [die[face].lower() for face in turns])
                for face, candidate in zip(turns, values, strict=True):
                    if candidate > best_value:
                        best_value, best_move = candidate, (0, cell, face)
                continue
            others = [letter for letter in _ALPHABET if letter != before]
            for letter, candidate in zip(others, self.values_at(cell, others), strict=True):
                if candidate > best_value:
                    best_value, best_move = candidate, (1, cell, letter)
        for a in range(self.size):
            if self.out_of_time():
                return None
            for b in range(a + 1, self.size):
                if letters[a] != letters[b]:
                    self.swap(a, b)
                    if (candidate := value()) > best_value:
                        best_value, best_move = candidate, (2, a, b)
                    self.swap(a, b)
        return None if best_move is None else (best_move, best_value)

    def make(self, move: _Move) -> None:
        """Make a move :meth:`best_neighbour` chose."""
        kind, x, y = move
        if kind == 0:
            self.set_face(x, int(y))
        elif kind == 1:
            self.letters[x] = str(y)
        else:
            self.swap(x, int(y))

    # -- the board --------------------------------------------------------------------------

    def fresh(self) -> None:
        """A fresh random board: letters drawn with the dice's frequencies, or (with dice) the
        dice shuffled into the cells and each turned to a random face."""
        size = self.size
        if not self.use_dice:
            table, random_ = self.table, self.random
            self.letters[:] = [table[int(random_() * len(table))] for _ in range(size)]
            return
        self.rng.shuffle(self.order)
        for cell in range(size):
            self.faces[cell] = self.randrange(6)
        dice, order, faces = self.dice.dice, self.order, self.faces
        self.letters[:] = [dice[order[cell]][faces[cell]].lower() for cell in range(size)]

    def rewrite(self, region: list[int]) -> None:
        """Redraw every cell of ``region`` (a large-neighbourhood move)."""
        for cell in region:
            self.redraw(cell)

    def redraw(self, cell: int) -> None:
        """A new random letter in ``cell`` (with dice: its die turned to a random face)."""
        if self.use_dice:
            self.set_face(cell, self.randrange(6))
        else:
            self.letters[cell] = self.table[int(self.random() * len(self.table))]

    def set_face(self, cell: int, face: int) -> None:
        """Turn the die in ``cell`` to ``face``."""
        self.faces[cell] = face
        self.letters[cell] = self.dice.dice[self.order[cell]][face].lower()

    def swap(self, a: int, b: int) -> None:
        """Swap two cells' letters (and, with dice, their dice)."""
        letters = self.letters
        letters[a], letters[b] = letters[b], letters[a]
        if self.use_dice:
            order, faces = self.order, self.faces
            order[a], order[b] = order[b], order[a]
            faces[a], faces[b] = faces[b], faces[a]

    def snapshot(self) -> tuple[list[str], list[int], list[int]]:
        """A copy of the state, to come back to."""
        return list(self.letters), list(self.order), list(self.faces)

    def restore(self, state: tuple[list[str], list[int], list[int]]) -> None:
        """Go back to a :meth:`snapshot`."""
        self.letters[:], self.order[:], self.faces[:] = state

    # -- value, budget and the best board ---------------------------------------------------

    def value(self) -> int:
        """The value of the board as it stands (one evaluation of the budget, whether the
        solver scores it or its value is remembered).

        Most boards a search values it has valued before: a cold anneal proposes the same few
        hundred neighbours of a board it rarely leaves, and a climb looks again at the boards
        around a peak. So values are remembered, up to :data:`MEMO_BYTES` of them (then the
        memory starts afresh); on ENABLE2K that spares the solver 80% of the boards of a 4x4
        search and two thirds on 5x5. The budget counts every board valued, so a seed and an
        evaluation budget give the same search with or without the memory."""
        self.evaluations += 1
        key = ",".join(self.letters)
        memo = self.memo
        found = memo.get(key)
        if found is not None:
            return found
        if len(memo) >= self.memo_limit:
            memo.clear()
        self.solved += 1
        found = memo[key] = int(self.evaluate())
        return found

    def values_at(self, cell: int, faces: list[str]) -> list[int]:
        """The board's value with each of ``faces`` at ``cell`` (the cell is left as it was):
        an evaluation of the budget each, as :meth:`value` is, remembered as its values are.
        The faces not remembered are valued together, in one walk of the solver: the paths
        that miss the cell are the same for every face, so a climb's 26 letters at a cell
        cost a few walks rather than 26."""
        letters, memo = self.letters, self.memo
        before = letters[cell]
        keys = []
        for face in faces:
            letters[cell] = face
            keys.append(",".join(letters))
        letters[cell] = before
        self.evaluations += len(faces)
        values = [memo.get(key) for key in keys]
        missing = [i for i, known in enumerate(values) if known is None]
        if not missing:
            return values  # type: ignore[return-value]
        if len(memo) + len(missing) > self.memo_limit:
            memo.clear()
        self.solved += len(missing)
        for i, found in zip(
            missing, self.alternatives(cell, [faces[i] for i in missing]), strict=True
        ):
            values[i] = memo[keys[i]] = found
        return values  # type: ignore[return-value]

    def out_of_time(self) -> bool:
        """Whether the budget is spent; on the way, a progress report when one is due."""
        budget = self.budget
        now = budget.clock()
        if budget.on_progress is not None and now >= self.next_report:
            self.next_report = now + budget.progress_every
            budget.on_progress(now - self.started, self.evaluations, self.result.value)
        if budget.stop_at is not None and self.result.value >= budget.stop_at:
            return True
        if budget.max_evaluations is not None and self.evaluations >= budget.max_evaluations:
            return True
        return now - self.started >= budget.seconds

    def note(self, current: int) -> None:
        """Keep the board if it beats the best so far, and tell ``on_improve``."""
        result = self.result
        if current > result.value:
            board = _board(self.letters, self.rows, self.cols)
            result.board, result.value = board, current
            found = Improvement(
                self.budget.clock() - self.started, self.evaluations, current, str(board)
            )
            result.improvements.append(found)
            if self.on_improve is not None:
                self.on_improve(found)


def _board(letters: list[str], rows: int, cols: int) -> Board:
    return Board.from_faces([letters[r * cols : (r + 1) * cols] for r in range(rows)])


def _search_worker(
    rules: Rules, words_spec: str, seed: int, options: dict[str, Any], messages: Any
) -> tuple[str, int, int, float, int, list[Improvement], int, bool]:
    """One search in a worker process; improvements and progress go to the parent by a queue."""
    words = Dictionary.load(words_spec)
    result = search_best(
        rules,
        words,
        seed=seed,
        on_improve=lambda found: messages.put(found),
        on_progress=lambda *progress: messages.put((seed, *progress)),
        **options,
    )
    return (
        str(result.board),
        result.value,
        result.evaluations,
        result.seconds,
        result.restarts,
        result.improvements,
        result.solved,
        result.timed_out,
    )


def search_parallel(
    rules: Rules,
    words_spec: str,
    *,
    jobs: int = 2,
    seed: int = 0,
    on_improve: Callable[[Improvement], None] | None = None,
    on_progress: Callable[[float, int, int], None] | None = None,
    **options: Any,
) -> SearchResult:
    """:func:`search_best` in ``jobs`` processes at once (seeds ``seed``, ``seed + 1``, …), so a
    search uses every core; the best board of all wins. ``words_spec`` names the dictionary
    (a built-in name or a word list path: each process loads it, from the cache).
    ``on_improve`` hears of each board better than every board reported before;
    ``on_progress(seconds, evaluations, best)`` sums the workers' progress reports. Ctrl-C
    stops every worker and keeps the best board found; if a worker dies, the others' boards
    are kept. A ``stop_at`` in ``options`` stops each process on its own once it finds such
    a board, not the others."""
    if isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1:
        raise RulesError(f"jobs={jobs!r} must be a whole number of at least 1")
    Dictionary.load(words_spec)  # fail here, clearly, rather than in a worker
    context = multiprocessing.get_context("spawn")
    best_reported = -1
    progress: dict[int, tuple[float, int]] = {}
    interrupted = False
    # The queue's server process ignores Ctrl-C, so the workers can still report after one.
    manager = SyncManager(ctx=context)
    manager.start(initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN))
    with manager:
        messages = manager.Queue()
        with ProcessPoolExecutor(max_workers=jobs, mp_context=context) as pool:
            futures = [
                pool.submit(_search_worker, rules, words_spec, seed + i, options, messages)
                for i in range(jobs)
            ]

            def drain(wait: float) -> None:
                nonlocal best_reported
                try:
                    message = messages.get(timeout=wait)
                except (queue.Empty, EOFError, OSError):
                    return
                if isinstance(message, Improvement):
                    if message.value > best_reported:
                        best_reported = message.value
                        if on_improve is not None:
                            on_improve(message)
                    return
                worker, seconds_so_far, evaluations, _ = message
                progress[worker] = (seconds_so_far, evaluations)
                if on_progress is not None and len(progress) == jobs:
                    elapsed = max(done for done, _ in progress.values())
                    total = sum(count for _, count in progress.values())
                    on_progress(elapsed, total, best_reported)
                    progress.clear()

            def on_interrupt(signum: int, frame: object) -> None:
                # The workers get Ctrl-C too: they stop and send their best boards. The parent
                # only notes it, so no call to the queue is cut off half way.
                nonlocal interrupted
                interrupted = True

            previous = signal.signal(signal.SIGINT, on_interrupt)
            try:
                while not all(future.done() for future in futures):
                    drain(0.2)
            finally:
                signal.signal(signal.SIGINT, previous)
            for _ in range(10_000):  # what is left in the queue
                try:
                    if messages.empty():
                        break
                except (EOFError, OSError):
                    break
                drain(0.0)
            outcomes = []
            for future in futures:
                try:
                    outcomes.append(future.result())
                except (BrokenProcessPool, OSError, EOFError, KeyboardInterrupt):
                    interrupted = True
                    continue
    if not outcomes:
        raise RulesError("every search process failed; try --jobs 1")
    board, value, *_ = max(outcomes, key=lambda outcome: outcome[1])
    result = SearchResult(
        Board(board),
        value,
        options.get("objective", "points"),
        interrupted=interrupted,
        evaluations=sum(outcome[2] for outcome in outcomes),
        seconds=max(outcome[3] for outcome in outcomes),
        restarts=sum(outcome[4] for outcome in outcomes),
        solved=sum(outcome[6] for outcome in outcomes),
        timed_out=any(outcome[7] for outcome in outcomes),
    )
    for found in sorted(
        (found for outcome in outcomes for found in outcome[5]), key=lambda f: f.seconds
    ):
        if not result.improvements or found.value > result.improvements[-1].value:
            result.improvements.append(found)
    return result

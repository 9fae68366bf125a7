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
    improvements: list[Improvement] = field(default_factory=list)
    #: Whether Ctrl-C stopped the search early (the best board so far is kept).
    interrupted: bool = False


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
    seconds: float = 60.0,
    seed: int = 0,
    max_evaluations: int | None = None,
    steps_per_restart: int | None = None,
    on_improve: Callable[[Improvement], None] | None = None,
    on_progress: Callable[[float, int, int], None] | None = None,
    progress_every: float = 2.0,
    clock: Callable[[], float] = time.monotonic,
) -> SearchResult:
    """Search for the board of the rules' size with the highest value, for ``seconds`` (or
    ``max_evaluations`` boards). With ``use_dice`` only boards the preset's dice can make count.
    The same seed and evaluation budget give the same result. ``on_improve`` hears of each new
    best board; ``on_progress(seconds, evaluations, best value)`` every ``progress_every``
    seconds. ``steps_per_restart`` is the length of each fresh anneal (default 100,000 moves;
    each region re-anneal is a tenth of it)."""
    if not (isinstance(seconds, int | float) and seconds > 0 and math.isfinite(seconds)):
        raise RulesError(f"seconds={seconds!r} must be a positive number")
    if steps_per_restart is not None and (
        isinstance(steps_per_restart, bool)
        or not isinstance(steps_per_restart, int)
        or steps_per_restart < 1
    ):
        raise RulesError(f"steps_per_restart={steps_per_restart!r} must be a whole number >= 1")
    rows, cols = rules.rows, rules.cols
    size = rows * cols
    dice = dice_set(rules.dice)
    points = objective_points(objective, rules, words, long_length)
    plan = _plan(objective, size, steps_per_restart)
    regions = _regions(rows, cols)
    core = implementation.core()
    trie = implementation.trie_for(words)
    score_cells = core.score_cells
    rng = random.Random(seed)
    random_ = rng.random
    randrange = rng.randrange
    # Letters drawn with the dice's frequencies, from a flat table: one random() a draw, which
    # is much cheaper than choices() in the hot loop.
    table = [
        letter
        for letter, weight in zip(_ALPHABET, _weights(dice), strict=True)
        for _ in range(round(weight * 2))
    ]

    # The state: letters per cell; with dice, also which die is where and which face is up.
    letters: list[str] = []
    order = list(range(size))
    faces = [0] * size

    started = clock()
    result = SearchResult(Board.from_faces([["a"] * cols] * rows), -1, objective)
    evaluations = 0
    next_report = started + progress_every

    def value() -> int:
        nonlocal evaluations
        evaluations += 1
        return int(score_cells(trie, letters, rows, cols, -1, points, 0))

    def out_of_time() -> bool:
        nonlocal next_report
        now = clock()
        if on_progress is not None and now >= next_report:
            next_report = now + progress_every
            on_progress(now - started, evaluations, result.value)
        if max_evaluations is not None:
            return evaluations >= max_evaluations
        return now - started >= seconds

    def note(current: int) -> None:
        """Keep the board if it beats the best so far, and tell ``on_improve``."""
        if current > result.value:
            board = _board(letters, rows, cols)
            result.board, result.value = board, current
            found = Improvement(clock() - started, evaluations, current, str(board))
            result.improvements.append(found)
            if on_improve is not None:
                on_improve(found)

    def fresh() -> None:
        if not use_dice:
            letters[:] = [table[int(random_() * len(table))] for _ in range(size)]
            return
        rng.shuffle(order)
        for cell in range(size):
            faces[cell] = randrange(6)
        letters[:] = [dice.dice[order[cell]][faces[cell]].lower() for cell in range(size)]

    def set_face(cell: int, face: int) -> None:
        faces[cell] = face
        letters[cell] = dice.dice[order[cell]][face].lower()

    def swap(a: int, b: int) -> None:
        letters[a], letters[b] = letters[b], letters[a]
        if use_dice:
            order[a], order[b] = order[b], order[a]
            faces[a], faces[b] = faces[b], faces[a]

    def anneal(current: int, steps: int, hot: float, cells: list[int]) -> int:
        """Simulated annealing from ``hot`` down to the plan's cold temperature, with moves
        that change a cell of ``cells`` (its letter, or its die's face) or swap one with any
        cell. Returns the value of the board it ends on."""
        temperature = hot
        cooling = (plan.temperature_end / hot) ** (1 / steps)
        exp = math.exp
        n_letters = len(table)
        n_cells = len(cells)
        for step in range(steps):
            if step & 511 == 0 and out_of_time():
                break
            temperature *= cooling
            if random_() < 0.5:  # swap two cells (and their dice)
                a, b = cells[int(random_() * n_cells)], randrange(size)
                if letters[a] == letters[b]:
                    continue
                swap(a, b)
                candidate = value()
                delta = candidate - current
                if delta >= 0 or random_() < exp(delta / temperature):
                    current = candidate
                    note(current)
                else:
                    swap(a, b)
                continue
            cell = cells[int(random_() * n_cells)]
            before = letters[cell]
            old_face = faces[cell]
            if use_dice:
                set_face(cell, randrange(6))
            else:
                letters[cell] = table[int(random_() * n_letters)]
            if letters[cell] == before:
                continue
            candidate = value()
            delta = candidate - current
            if delta >= 0 or random_() < exp(delta / temperature):
                current = candidate
                note(current)
            elif use_dice:
                set_face(cell, old_face)
            else:
                letters[cell] = before
        return current

    def climb(current: int) -> int:
        """Climb to a local optimum: take the best of every one-cell change (every letter, or
        every face of the cell's die) and every swap, until none helps. An anneal or a region
        re-anneal can stop a change or two short of its peak; this makes sure it does not."""
        while True:
            best_move: tuple[int, int, int | str] | None = None
            best_value = current
            for cell in range(size):
                if out_of_time():
                    return current
                before = letters[cell]
                if use_dice:
                    old_face = faces[cell]
                    for face in range(6):
                        set_face(cell, face)
                        if letters[cell] != before and (candidate := value()) > best_value:
                            best_value, best_move = candidate, (0, cell, face)
                    set_face(cell, old_face)
                    continue
                for letter in _ALPHABET:
                    if letter != before:
                        letters[cell] = letter
                        if (candidate := value()) > best_value:
                            best_value, best_move = candidate, (1, cell, letter)
                letters[cell] = before
            for a in range(size):
                if out_of_time():
                    return current
                for b in range(a + 1, size):
                    if letters[a] != letters[b]:
                        swap(a, b)
                        if (candidate := value()) > best_value:
                            best_value, best_move = candidate, (2, a, b)
                        swap(a, b)
            if best_move is None:
                return current
            kind, x, y = best_move
            if kind == 0:
                set_face(x, int(y))
            elif kind == 1:
                letters[x] = str(y)
            else:
                swap(x, int(y))
            current = best_value
            note(current)

    every_cell = list(range(size))
    try:
        while not out_of_time():
            fresh()
            current = value()
            note(current)
            current = climb(anneal(current, plan.steps, plan.temperature_start, every_cell))
            # Large-neighbourhood search around this restart's peak: rewrite one region at
            # random, re-anneal only that region, climb; keep the board if it is no worse
            # (equal boards let the search drift along a plateau), else go back. A peak that
            # stops improving is left for a fresh restart, which keeps the search diverse.
            peak = (list(letters), list(order), list(faces))
            stale = 0
            while stale < plan.patience and not out_of_time():
                region = regions[randrange(len(regions))]
                for cell in region:
                    if use_dice:
                        set_face(cell, randrange(6))
                    else:
                        letters[cell] = table[int(random_() * len(table))]
                reached = anneal(value(), plan.region_steps, plan.region_temperature, region)
                reached = climb(reached)
                stale = 0 if reached > current else stale + 1
                if reached >= current:
                    current = reached
                    peak = (list(letters), list(order), list(faces))
                else:
                    letters[:], order[:], faces[:] = peak
            result.restarts += 1
    except KeyboardInterrupt:  # stop, and keep the best board so far
        result.interrupted = True
    result.evaluations = evaluations
    result.seconds = clock() - started
    return result


def _board(letters: list[str], rows: int, cols: int) -> Board:
    return Board.from_faces([letters[r * cols : (r + 1) * cols] for r in range(rows)])


def _search_worker(
    rules: Rules, words_spec: str, seed: int, options: dict[str, Any], messages: Any
) -> tuple[str, int, int, float, int, list[Improvement]]:
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
    are kept."""
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
    )
    for found in sorted(
        (found for outcome in outcomes for found in outcome[5]), key=lambda f: f.seconds
    ):
        if not result.improvements or found.value > result.improvements[-1].value:
            result.improvements.append(found)
    return result

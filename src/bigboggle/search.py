"""The search for the best board: simulated annealing with restarts.

A state is a board (free letters, or the real dice: which die lies where and which face is up).
A move changes one cell's letter or swaps two cells (with dice: swaps two dice or turns one to
another face). Moves that lower the value are accepted with probability ``exp(delta / T)``, the
temperature ``T`` falling geometrically over each restart; every restart begins either afresh
or from a shaken-up copy of the best board so far. The value of a board is the solver's total
with a points table that encodes the objective: the rules' points, one per word (most words),
or one per word of at least ``long_length`` letters (boards holding long words).
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
    steps_per_restart: int = 150_000,
    on_improve: Callable[[Improvement], None] | None = None,
    on_progress: Callable[[float, int, int], None] | None = None,
    progress_every: float = 2.0,
    clock: Callable[[], float] = time.monotonic,
) -> SearchResult:
    """Search for the board of the rules' size with the highest value, for ``seconds`` (or
    ``max_evaluations`` boards). With ``use_dice`` only boards the preset's dice can make count.
    The same seed and evaluation budget give the same result. ``on_improve`` hears of each new
    best board; ``on_progress(seconds, evaluations, best value)`` every ``progress_every``
    seconds."""
    if not (isinstance(seconds, int | float) and seconds > 0 and math.isfinite(seconds)):
        raise RulesError(f"seconds={seconds!r} must be a positive number")
    rows, cols = rules.rows, rules.cols
    size = rows * cols
    dice = dice_set(rules.dice)
    points = objective_points(objective, rules, words, long_length)
    core = implementation.core()
    trie = implementation.trie_for(words)
    rng = random.Random(seed)
    weights = _weights(dice)
    temperature_start = 40.0 if objective == "points" else 8.0
    temperature_end = 0.3 if objective == "points" else 0.1
    cooling = (temperature_end / temperature_start) ** (1 / steps_per_restart)

    def value(letters: list[str]) -> int:
        return int(core.score_cells(trie, letters, rows, cols, -1, points, 0))

    # A state: letters per cell; with dice, also which die is where and which face is up.
    order = list(range(size))
    faces = [0] * size

    def fresh() -> list[str]:
        if not use_dice:
            return rng.choices(_ALPHABET, weights, k=size)
        rng.shuffle(order)
        for cell in range(size):
            faces[cell] = rng.randrange(6)
        return [dice.dice[order[cell]][faces[cell]].lower() for cell in range(size)]

    started = clock()
    result = SearchResult(Board.from_faces([["a"] * cols] * rows), -1, objective)
    best_letters: list[str] = []
    best_state: tuple[list[int], list[int]] = ([], [])
    evaluations = 0
    next_report = started + progress_every

    def out_of_time() -> bool:
        nonlocal next_report
        now = clock()
        if on_progress is not None and now >= next_report:
            next_report = now + progress_every
            on_progress(now - started, evaluations, result.value)
        if max_evaluations is not None:
            return evaluations >= max_evaluations
        return now - started >= seconds

    try:
        while not out_of_time():
            if best_letters and rng.random() < 0.5:
                letters = list(best_letters)
                if use_dice:
                    order[:], faces[:] = list(best_state[0]), list(best_state[1])
                for _ in range(max(2, size // 4)):
                    _move(rng, letters, order, faces, dice, use_dice, weights)
            else:
                letters = fresh()
            current = value(letters)
            evaluations += 1
            temperature = temperature_start
            for step in range(steps_per_restart):
                if step % 512 == 0 and out_of_time():
                    break
                undo = _move(rng, letters, order, faces, dice, use_dice, weights)
                candidate = value(letters)
                evaluations += 1
                delta = candidate - current
                if delta >= 0 or rng.random() < math.exp(delta / temperature):
                    current = candidate
                    if current > result.value:
                        board = _board(letters, rows, cols)
                        result.board, result.value = board, current
                        best_letters = list(letters)
                        best_state = (list(order), list(faces))
                        found = Improvement(clock() - started, evaluations, current, str(board))
                        result.improvements.append(found)
                        if on_improve is not None:
                            on_improve(found)
                else:
                    undo()
                temperature *= cooling
            result.restarts += 1
    except KeyboardInterrupt:  # stop, and keep the best board so far
        result.interrupted = True
    result.evaluations = evaluations
    result.seconds = clock() - started
    return result


def _board(letters: list[str], rows: int, cols: int) -> Board:
    return Board.from_faces([letters[r * cols : (r + 1) * cols] for r in range(rows)])


def _move(
    rng: random.Random,
    letters: list[str],
    order: list[int],
    faces: list[int],
    dice: DiceSet,
    use_dice: bool,
    weights: list[float],
) -> Callable[[], None]:
    """Change the board a little; returns the function that undoes the change."""
    size = len(letters)
    if rng.random() < 0.5:  # swap two cells (and their dice)
        a, b = rng.randrange(size), rng.randrange(size)
        letters[a], letters[b] = letters[b], letters[a]
        if use_dice:
            order[a], order[b] = order[b], order[a]
            faces[a], faces[b] = faces[b], faces[a]

        def undo_swap() -> None:
            letters[a], letters[b] = letters[b], letters[a]
            if use_dice:
                order[a], order[b] = order[b], order[a]
                faces[a], faces[b] = faces[b], faces[a]

        return undo_swap
    cell = rng.randrange(size)
    before = letters[cell]
    if use_dice:
        old_face = faces[cell]
        faces[cell] = rng.randrange(6)
        letters[cell] = dice.dice[order[cell]][faces[cell]].lower()

        def undo_turn() -> None:
            faces[cell] = old_face
            letters[cell] = before

        return undo_turn
    letters[cell] = rng.choices(_ALPHABET, weights)[0]

    def undo_letter() -> None:
        letters[cell] = before

    return undo_letter


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

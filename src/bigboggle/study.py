"""Study runs cut into seeded chunks, so that any number of processes or machines can share them.

A ``stats`` run is the shakes of seeds ``seed`` … ``seed + boards - 1``: chunk ``i`` is a fixed
run of :data:`STATS_CHUNK` of those seeds, and its :class:`~bigboggle.analysis.ShakeTally`
(exact counts) merges with the others in any order. A ``best`` run is ``restarts`` searches:
chunk ``i`` is one seeded search (seed ``seed + i``) with a fixed budget of boards, and the
best board overall is the highest value, the lowest chunk among equals. So a run's result is
the same whatever runs its chunks, in whatever order, and however often a chunk is run again
after a worker died: this is what lets :mod:`bigboggle.cluster` hand chunks to Dask, and
:mod:`bigboggle.checkpoint` keep finished chunks on disk.

The chunk functions are plain functions of picklable arguments that any engine (this
process, a process pool, a Dask worker) can call. A worker gets its dictionary from a
:class:`DictionarySource`: a built-in's name, or a word list's bytes (a remote worker cannot
read the client's files), loaded once per process. The bytes travel with the source, or (on
a cluster, where every chunk carries its run) once per worker by :func:`provide`, the chunks
then carrying only the word list's digest.
"""

from __future__ import annotations

import functools
import hashlib
import time
from dataclasses import dataclass
from typing import Any

from .analysis import ShakeTally, shake_tally
from .board import Board
from .checkpoint import Inconsistent
from .dice import MAX_SEED
from .dictionary import BUILTIN_LEVELS, Dictionary, word_list_path
from .errors import RulesError
from .rules import Rules
from .search import Objective, search_best
from .solver import tally_many

#: Shakes in one chunk of a stats run: about a second of one core on 5x5 boards, so that a
#: lost worker costs little and the scheduler's cost per chunk (a few milliseconds) is small.
STATS_CHUNK = 10_000
#: Chunks of a run at most (a stats run of 10^10 boards; 10^6 restarts of a search).
MAX_CHUNKS = 1_000_000
#: Boards one search restart may value at most (its budget), and by default.
MAX_RESTART_EVALUATIONS = 100_000_000
DEFAULT_RESTART_EVALUATIONS = 20_000


class TimeUp(Exception):
    """A run's time limit passed: it stops as by Ctrl-C, keeping what is done (raised by a
    chunk that the limit cut short, whose result is then not kept)."""


@dataclass(frozen=True)
class DictionarySource:
    """Where a worker finds the run's dictionary: a built-in by ``name``, or a word list whose
    ``data`` (its bytes) travels with the run (or was given to the worker apart, by
    :func:`provide`: see :meth:`without_data`). ``digest`` names the content (the checkpoint's
    check that a resumed run has the same words)."""

    name: str
    digest: str
    data: bytes | None = None

    @classmethod
    def of(cls, spec: str | None, words: Dictionary) -> DictionarySource:
        """The source of a dictionary the client has loaded from ``spec`` (a built-in name, a
        path, or ``None``: the default). A word list file is read again: one that can be read
        only once (a pipe) goes through :meth:`read` instead."""
        if spec is None or spec in BUILTIN_LEVELS:
            name = spec or words.name
            return cls(name, f"builtin:{name}")
        return cls._of_bytes(words.name, Dictionary.read_file(spec))

    @classmethod
    def read(cls, spec: str) -> tuple[DictionarySource, Dictionary]:
        """The dictionary ``spec`` names (a built-in name or a word list file) and its source,
        a file read once: the run's workers get the very bytes the client's words came from.
        :class:`~bigboggle.errors.WordListError` names what is wrong."""
        if spec in BUILTIN_LEVELS:
            return cls(spec, f"builtin:{spec}"), Dictionary.builtin(spec)
        data = Dictionary.read_file(word_list_path(spec))
        words = Dictionary.from_file_bytes(data, spec)
        return cls._of_bytes(words.name, data), words

    @classmethod
    def _of_bytes(cls, name: str, data: bytes) -> DictionarySource:
        return cls(name, hashlib.blake2b(data, digest_size=16).hexdigest(), data)

    @property
    def builtin(self) -> bool:
        """Whether this is a built-in dictionary, which every worker has by its name."""
        return self.digest == f"builtin:{self.name}"

    def without_data(self) -> DictionarySource:
        """This word list without its bytes, for workers given them once (:func:`provide`)
        rather than with every chunk."""
        return DictionarySource(self.name, self.digest)

    def load(self) -> Dictionary:
        """The dictionary, loaded once per process (and, from a word list's bytes, through the
        on-disk cache, like any word list file)."""
        if self.builtin:
            return _load_source(self.name, self.digest, None)
        data = self.data if self.data is not None else _PROVIDED.get(self.digest)
        if data is None:
            raise RulesError(
                f"the word list {self.name!r} ({self.digest}) did not reach this worker"
            )
        return _load_source(self.name, self.digest, data)


#: Word lists given to this process once for a run's chunks, by digest (:func:`provide`).
_PROVIDED: dict[str, bytes] = {}
#: How many runs gave this process each of them (two runs may share a word list).
_PROVIDED_BY: dict[str, int] = {}


def provide(source: DictionarySource) -> None:
    """Keep a word list's bytes in this process, for chunks whose source came without them
    (a cluster's workers get them once, by a plugin, rather than with every chunk)."""
    if source.data is not None:
        _PROVIDED[source.digest] = source.data
        _PROVIDED_BY[source.digest] = _PROVIDED_BY.get(source.digest, 0) + 1


def withdraw(digest: str) -> None:
    """One run that :func:`provide` a word list for is over: forget its bytes once no run
    needs them (the dictionary loaded from them stays in this process's small cache)."""
    left = _PROVIDED_BY.pop(digest, 0) - 1
    if left > 0:
        _PROVIDED_BY[digest] = left
    else:
        _PROVIDED.pop(digest, None)


@functools.lru_cache(maxsize=4)
def _load_source(name: str, digest: str, data: bytes | None) -> Dictionary:
    if data is None:
        return Dictionary.builtin(name)
    # Read as the client read the file (its errors name the client's file), through the
    # on-disk cache of prepared word lists, keyed by content.
    return Dictionary.from_file_bytes(data, name)


def _check_count(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RulesError(f"{name}={value!r} must be a whole number from {low:,} to {high:,}")
    return value


# -- stats ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StatsRun:
    """The shakes of seeds ``seed`` … ``seed + boards - 1`` of the rules' dice, in chunks of
    ``chunk`` seeds; ``keep`` best and worst boards are kept."""

    rules: Rules
    source: DictionarySource
    boards: int
    seed: int = 0
    chunk: int = STATS_CHUNK
    keep: int = 5

    def __post_init__(self) -> None:
        _check_count("boards", self.boards, 1, MAX_CHUNKS * STATS_CHUNK)
        _check_count("seed", self.seed, 0, MAX_SEED)
        _check_count("chunk", self.chunk, 1, 10_000_000)
        _check_count("keep", self.keep, 0, 1000)
        if self.seed + self.boards - 1 > MAX_SEED:
            raise RulesError(f"seeds {self.seed}..{self.seed + self.boards - 1} pass {MAX_SEED}")
        if self.chunks > MAX_CHUNKS:
            raise RulesError(
                f"{self.chunks:,} chunks of {self.chunk:,} boards: at most {MAX_CHUNKS:,}"
            )

    @property
    def chunks(self) -> int:
        """How many chunks the run has."""
        return -(-self.boards // self.chunk)

    def seeds_of(self, index: int) -> tuple[int, int]:
        """Chunk ``index``'s first seed and its number of boards."""
        first = self.seed + index * self.chunk
        return first, min(self.chunk, self.seed + self.boards - first)

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same run (a checkpoint's header)."""
        return {
            "kind": "stats",
            "rules": self.rules.to_json(),
            "dictionary": self.source.digest,
            "boards": self.boards,
            "seed": self.seed,
            "chunk": self.chunk,
            "keep": self.keep,
        }

    def check(self, indices: set[int], tally: ShakeTally) -> None:
        """:class:`~bigboggle.checkpoint.Inconsistent` unless ``tally`` could be the merge of
        chunks ``indices`` of this run: their seeds and number of boards, every board counted
        once in each histogram, its extreme boards among those seeds (a checkpoint's line)."""
        firsts = [self.seeds_of(index) for index in indices]
        boards = sum(count for _, count in firsts)
        if tally.first_seed != min(first for first, _ in firsts) or tally.boards != boards:
            raise Inconsistent(f"its seeds are not those of its {len(indices)} chunk(s)")
        for name, counts in (("points", tally.point_counts), ("words", tally.word_counts)):
            if any(value < 0 or count < 1 for value, count in counts.items()):
                raise Inconsistent(f"a count of {name} below 1, or a negative value")
            if sum(counts.values()) != boards:
                raise Inconsistent(f"its {name} count {sum(counts.values())} boards of {boards}")
        for board in (*tally.best, *tally.worst):
            if not any(first <= board.seed < first + count for first, count in firsts):
                raise Inconsistent(f"a board of seed {board.seed} outside its chunks")
            shown = Board.parse(board.board)
            if (shown.rows, shown.cols) != (self.rules.rows, self.rules.cols):
                raise Inconsistent(f"a board {board.board!r} of another size")


def stats_chunk(run: StatsRun, index: int, threads: int = 1) -> ShakeTally:
    """Shake, solve and tally chunk ``index`` of a stats run (``threads``: solver threads)."""
    first, count = run.seeds_of(index)
    words = run.source.load()
    return shake_tally(run.rules, words, first, count, threads=threads, keep=run.keep)


# -- best ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BestRun:
    """``restarts`` seeded searches (seeds ``seed``, ``seed + 1``, …), each valuing
    ``evaluations`` boards, for the best board of the rules' size by ``objective``."""

    rules: Rules
    source: DictionarySource
    restarts: int
    evaluations: int = DEFAULT_RESTART_EVALUATIONS
    seed: int = 0
    objective: Objective = "points"
    long_length: int | None = None
    use_dice: bool = False

    def __post_init__(self) -> None:
        _check_count("restarts", self.restarts, 1, MAX_CHUNKS)
        _check_count("evaluations", self.evaluations, 1, MAX_RESTART_EVALUATIONS)
        _check_count("seed", self.seed, 0, MAX_SEED)
        if self.seed + self.restarts - 1 > MAX_SEED:
            raise RulesError(f"seeds {self.seed}..{self.seed + self.restarts - 1} pass {MAX_SEED}")
        if self.objective not in ("points", "words", "long"):
            raise RulesError(f"objective={self.objective!r} must be points, words or long")

    @property
    def chunks(self) -> int:
        return self.restarts

    def identity(self) -> dict[str, Any]:
        return {
            "kind": "best",
            "rules": self.rules.to_json(),
            "dictionary": self.source.digest,
            "restarts": self.restarts,
            "evaluations": self.evaluations,
            "seed": self.seed,
            "objective": self.objective,
            "long_length": self.long_length,
            "dice": self.use_dice,
        }

    def check(self, indices: set[int], restart: Restart) -> None:
        """:class:`~bigboggle.checkpoint.Inconsistent` unless ``restart`` could be chunk
        ``indices``' (one) search of this run: its index and seed, a board of the rules'
        size (a checkpoint's line)."""
        (index,) = indices
        if restart.index != index or restart.seed != self.seed + index:
            raise Inconsistent(f"restart {restart.index} (seed {restart.seed}) in chunk {index}")
        if restart.evaluations < 0:  # past the budget is fine: a step values several at once
            raise Inconsistent(f"{restart.evaluations} boards valued")
        board = Board.parse(restart.board)
        if (board.rows, board.cols) != (self.rules.rows, self.rules.cols):
            raise Inconsistent(f"a board {restart.board!r} of another size")


@dataclass(frozen=True)
class Restart:
    """One search of a best run: chunk ``index``, its seed, the best board it found with its
    objective ``value`` and its plain ``points`` and ``words``, the boards it valued, and the
    CPU seconds it took (``worker``: who ran it, when known; not part of the result)."""

    index: int
    seed: int
    board: str
    value: int
    points: int
    words: int
    evaluations: int
    cpu_seconds: float
    worker: str = ""

    def to_json(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Restart:
        return cls(
            int(data["index"]),
            int(data["seed"]),
            str(data["board"]),
            int(data["value"]),
            int(data["points"]),
            int(data["words"]),
            int(data["evaluations"]),
            float(data["cpu_seconds"]),
            str(data.get("worker", "")),
        )

    def same_result(self, other: Restart) -> bool:
        """Equal but for who ran it and how long it took."""
        return (self.index, self.seed, self.board, self.value, self.points, self.words) == (
            other.index,
            other.seed,
            other.board,
            other.value,
            other.points,
            other.words,
        )


def best_command(run: BestRun, *, restarts: int | None = None, seed: int | None = None) -> str:
    """The ``bigboggle best`` command line that runs ``run`` again (or ``restarts`` of its
    searches from ``seed``: ``restarts=1, seed=r.seed`` finds restart ``r``'s board alone)."""
    import shlex

    base = type(run.rules).preset(run.rules.name)
    parts = ["bigboggle", "best", "--rules", run.rules.name]
    if run.source.data is not None or run.source.name != base.dictionary:
        parts += ["--dictionary", run.source.name]
    if run.rules.min_length != base.min_length:
        parts += ["--min-length", str(run.rules.min_length)]
    if run.objective != "points":
        parts += ["--objective", run.objective]
    if run.long_length is not None:
        parts += ["--long-length", str(run.long_length)]
    if run.use_dice:
        parts.append("--dice")
    parts += ["--restarts", str(run.restarts if restarts is None else restarts)]
    parts += ["--evaluations", str(run.evaluations)]
    parts += ["--seed", str(run.seed if seed is None else seed)]
    return shlex.join(parts)


def best_chunk(run: BestRun, index: int, deadline: float | None = None) -> Restart:
    """Chunk ``index`` of a best run: one search, seeded ``run.seed + index``, of
    ``run.evaluations`` boards (a count, not a clock, so the same everywhere).

    ``deadline`` is the run's time limit, on the wall clock (``time.time()``: a remote
    worker's monotonic clock is its own). A search it cuts short raises :class:`TimeUp`:
    its board is not the one the seed gives, so it is not kept."""
    if not 0 <= index < run.restarts:
        raise RulesError(f"chunk {index} is not one of the run's {run.restarts}")
    words = run.source.load()
    seconds = None
    if deadline is not None:  # what is left once the words are loaded (a first load is slow)
        seconds = deadline - time.time()
        if seconds <= 0:
            raise TimeUp
    seed = run.seed + index
    started = time.thread_time()
    result = search_best(
        run.rules,
        words,
        objective=run.objective,
        long_length=run.long_length,
        use_dice=run.use_dice,
        seconds=seconds,
        seed=seed,
        max_evaluations=run.evaluations,
    )
    if result.interrupted:  # the search keeps its best board on Ctrl-C; the run stops
        raise KeyboardInterrupt
    if result.timed_out:
        raise TimeUp
    ((points, count),) = tally_many([result.board], words, run.rules)
    return Restart(
        index,
        seed,
        str(result.board),
        result.value,
        points,
        count,
        result.evaluations,
        round(time.thread_time() - started, 3),
    )


def best_of(restarts: list[Restart]) -> Restart | None:
    """The best restart: the highest value, then the lowest chunk (the same whatever order
    the restarts finished in)."""
    return min(restarts, key=lambda r: (-r.value, r.index), default=None)

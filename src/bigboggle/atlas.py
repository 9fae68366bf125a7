"""The atlas: for each rules preset and built-in dictionary, how the preset's shakes are
distributed (exact counts of the points and words per board of a run of seeds) and the best
boards a search found for each objective (most points, most words, most long words), each with
its score, its seed and the command that reproduces it.

``bigboggle atlas`` computes one and writes it as JSON; the package ships the project's own as
``data/atlas.json`` (:func:`shipped_atlas`), and an operator may serve their own
(:meth:`Atlas.load`). The file is read strictly: :meth:`Atlas.from_json` checks every key and
value before anything is built, and :class:`~bigboggle.errors.AtlasError` names what is wrong
and where (``entries[3].best[1].value: must be a whole number``), so a damaged or hostile file
is refused with a message rather than shown wrong or crashing a page. Sizes are bounded
(:data:`~bigboggle.limits.MAX_ATLAS_BYTES` and its neighbours) before and while parsing.

Format, version 1 (``made`` is an ISO date; seconds are of CPU and of the wall clock)::

    {"version": 1, "made": "2026-12-02", "command": "bigboggle atlas ...",
     "cpu_seconds": 1234.5, "wall_seconds": 640.2, "workers": 2,
     "entries": [{"rules": "big", "dictionary": "standard", "min_length": 4,
                  "distribution": {"boards": 100000, "seed": 0,
                                   "points": [[value, count], ...], "words": [[value, count], ...]},
                  "best": [{"objective": "points", "long_length": null, "board": "LINES/...",
                            "value": 1234, "points": 1234, "words": 321, "seed": 0,
                            "restarts": 4, "evaluations": 20000, "cpu_seconds": 55.0,
                            "command": "bigboggle best ..."}]}]}

This module is part of the core: the standard library and bigboggle's core only.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

from . import package_data
from .analysis import Distribution, Standing
from .board import Board
from .dice import MAX_SEED
from .dictionary import BUILTIN_LEVELS
from .errors import AtlasError, BoggleError, RoundInputError, kind_of, quoted
from .limits import (
    MAX_ATLAS_BEST,
    MAX_ATLAS_BYTES,
    MAX_ATLAS_COMMAND,
    MAX_ATLAS_ENTRIES,
    MAX_ATLAS_VALUES,
    MAX_BOARD_TEXT,
)
from .round_input import load_json
from .rules import MAX_WORD_LENGTH, MIN_WORD_LENGTH, PRESETS

__all__ = [
    "ATLAS_FILE",
    "ATLAS_VERSION",
    "OBJECTIVES",
    "Atlas",
    "AtlasEntry",
    "BestBoard",
    "Shakes",
    "shipped_atlas",
]

ATLAS_VERSION = 1
#: The shipped atlas, in the package's ``data/`` folder.
ATLAS_FILE = "atlas.json"
AtlasObjective = Literal["points", "words", "long"]
#: The objectives a best board may be found for, in the order pages list them.
OBJECTIVES: tuple[AtlasObjective, ...] = ("points", "words", "long")
#: The largest value (points or words of one board) a histogram may count: far past any
#: board's (a 12×12 board's total is a few tens of thousands), far below a float's exactness.
MAX_VALUE = 10**9
#: The most CPU or wall-clock seconds an atlas may say it took (a century).
MAX_SECONDS = 100 * 365 * 86_400
#: The most workers an atlas may say it ran on.
MAX_WORKERS = 1_000_000
#: JSON object keys an atlas file may have (counted as ``:`` before parsing): every key of the
#: largest atlas the bounds above allow, with room to spare.
MAX_ATLAS_KEYS = MAX_ATLAS_ENTRIES * (MAX_ATLAS_BEST * 14 + 12) + 100

_TOP_KEYS = ("version", "made", "command", "cpu_seconds", "wall_seconds", "workers", "entries")
_ENTRY_KEYS = ("rules", "dictionary", "min_length", "distribution", "best")
_SHAKES_KEYS = ("boards", "seed", "points", "words")
_BEST_KEYS = (
    "objective",
    "long_length",
    "board",
    "value",
    "points",
    "words",
    "seed",
    "restarts",
    "evaluations",
    "cpu_seconds",
    "command",
)
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


@dataclass(frozen=True)
class BestBoard:
    """The best board a search found for one objective: its value for that objective, its
    plain points and words under the rules, and how the search that found it ran."""

    objective: AtlasObjective
    #: The shortest long word, for the ``long`` objective (``None`` for the others).
    long_length: int | None
    #: The board's canonical text (``str(Board)``).
    board: str
    value: int
    points: int
    words: int
    seed: int
    restarts: int
    evaluations: int
    cpu_seconds: float
    #: The command that finds it again (the same seed and budget give the same board).
    command: str

    @property
    def label(self) -> str:
        """The objective in words: ``most points``, ``most words``, ``most words of 8+``."""
        if self.objective == "long":
            return f"most words of {self.long_length}+ letters"
        return f"most {self.objective}"

    def to_json(self) -> dict[str, Any]:
        return {key: getattr(self, key) for key in _BEST_KEYS}


@dataclass(frozen=True)
class Shakes:
    """What ``boards`` shakes of a preset's dice (seeds ``seed`` onwards) held: how many
    boards had each points total and each word count."""

    boards: int
    seed: int
    points: Mapping[int, int]
    words: Mapping[int, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "boards": self.boards,
            "seed": self.seed,
            "points": [[value, count] for value, count in sorted(self.points.items())],
            "words": [[value, count] for value, count in sorted(self.words.items())],
        }


@dataclass(frozen=True)
class AtlasEntry:
    """One preset under one dictionary: its shakes' distribution and its best boards."""

    rules: str
    dictionary: str
    min_length: int
    shakes: Shakes
    best: tuple[BestBoard, ...] = ()
    #: The distributions of points and of words per board, made once (quantiles, mean).
    _distributions: dict[str, Distribution] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )

    @property
    def points(self) -> Distribution:
        """The distribution of points per shaken board."""
        return self._distribution("points")

    @property
    def words(self) -> Distribution:
        """The distribution of words per shaken board."""
        return self._distribution("words")

    def _distribution(self, which: str) -> Distribution:
        made = self._distributions.get(which)
        if made is None:
            counts = self.shakes.points if which == "points" else self.shakes.words
            made = self._distributions[which] = Distribution.of_counts(counts)
        return made

    def rank(self, points: int, words: int) -> Standing:
        """Where a board of ``points`` and ``words`` (under these rules and this dictionary)
        stands among the shakes: the share of them it beats by each."""
        return Standing(
            self.points.rank(points),
            self.words.rank(words),
            self.shakes.boards,
            self.rules,
            self.dictionary,
        )

    def best_by(self, objective: AtlasObjective) -> list[BestBoard]:
        """The best boards for ``objective``, highest value first (for ``long``, the
        shortest long word first, then the value)."""
        chosen = [board for board in self.best if board.objective == objective]
        return sorted(chosen, key=lambda b: (b.long_length or 0, -b.value, b.seed))

    def top(self) -> BestBoard | None:
        """The board of most points among the best boards (of any objective), if any."""
        return max(self.best, key=lambda b: (b.points, -b.seed), default=None)

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": self.rules,
            "dictionary": self.dictionary,
            "min_length": self.min_length,
            "distribution": self.shakes.to_json(),
            "best": [board.to_json() for board in self.best],
        }


@dataclass(frozen=True)
class Atlas:
    """An atlas: how and when it was made, and its entries (one per preset and dictionary)."""

    made: str
    command: str
    cpu_seconds: float
    wall_seconds: float
    workers: int
    entries: tuple[AtlasEntry, ...]

    def entry(self, rules: str, dictionary: str) -> AtlasEntry | None:
        """The entry of preset ``rules`` under ``dictionary``, if the atlas has one."""
        for entry in self.entries:
            if (entry.rules, entry.dictionary) == (rules, dictionary):
                return entry
        return None

    def presets(self) -> list[str]:
        """The presets the atlas covers, in the order of :data:`~bigboggle.rules.PRESETS`."""
        covered = {entry.rules for entry in self.entries}
        return [name for name in PRESETS if name in covered]

    def entries_of(self, rules: str) -> list[AtlasEntry]:
        """The entries of preset ``rules``, in the order of the built-in dictionaries."""
        order = list(BUILTIN_LEVELS)
        chosen = [entry for entry in self.entries if entry.rules == rules]
        return sorted(chosen, key=lambda entry: order.index(entry.dictionary))

    def to_json(self) -> dict[str, Any]:
        return {
            "version": ATLAS_VERSION,
            "made": self.made,
            "command": self.command,
            "cpu_seconds": self.cpu_seconds,
            "wall_seconds": self.wall_seconds,
            "workers": self.workers,
            "entries": [entry.to_json() for entry in self.entries],
        }

    @classmethod
    def from_json(cls, data: object, where: str = "atlas") -> Atlas:
        """An atlas from its JSON form, every key and value checked first:
        :class:`AtlasError` names the first thing wrong and where, as a path from the top
        (``entries[3].best[1].value``); ``where`` names the top itself when it is no object."""
        top = _object(data, where, _TOP_KEYS)
        if top["version"] != ATLAS_VERSION or isinstance(top["version"], bool):
            raise AtlasError(
                f"version: this bigboggle reads atlas version {ATLAS_VERSION}, "
                f"not {kind_of(top['version'])}"
            )
        entries = _list(top["entries"], "entries", MAX_ATLAS_ENTRIES, "entries")
        read: list[AtlasEntry] = []
        seen: set[tuple[str, str]] = set()
        for index, item in enumerate(entries):
            entry = _entry(item, f"entries[{index}]")
            key = (entry.rules, entry.dictionary)
            if key in seen:
                raise AtlasError(
                    f"entries[{index}]: a second entry for {entry.rules} with the "
                    f"{entry.dictionary} dictionary"
                )
            seen.add(key)
            read.append(entry)
        return cls(
            made=_made(top["made"], "made"),
            command=_command(top["command"], "command"),
            cpu_seconds=_seconds(top["cpu_seconds"], "cpu_seconds"),
            wall_seconds=_seconds(top["wall_seconds"], "wall_seconds"),
            workers=_whole(top["workers"], "workers", 1, MAX_WORKERS),
            entries=tuple(read),
        )

    @classmethod
    def from_text(cls, text: str, source: str = "the atlas") -> Atlas:
        """An atlas from JSON text, refused past :data:`MAX_ATLAS_BYTES` characters (and
        past :data:`MAX_ATLAS_KEYS` keys) before it is parsed."""
        try:
            data = load_json(text, source, max_chars=MAX_ATLAS_BYTES, max_keys=MAX_ATLAS_KEYS)
        except RoundInputError as exc:
            # The JSON reader speaks of rounds' lists where it refuses a repeated key.
            said = re.sub(
                r"(duplicate key .*?): each player.*", r"\1: each key may appear once", str(exc)
            )
            raise AtlasError(said) from None
        try:
            return cls.from_json(data)
        except AtlasError as exc:
            raise AtlasError(f"{source}: {exc}") from None

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Atlas:
        """The atlas in file ``path`` (an operator's own): at most :data:`MAX_ATLAS_BYTES`
        bytes are read, a larger file is refused unparsed, and :class:`AtlasError` names the
        file and what is wrong with it."""
        shown = quoted(str(path), 200)
        try:
            with open(path, "rb") as file:
                raw = file.read(MAX_ATLAS_BYTES + 1)
        except OSError as exc:
            raise AtlasError(f"cannot read the atlas {shown}: {exc.strerror or exc}") from None
        if len(raw) > MAX_ATLAS_BYTES:
            raise AtlasError(f"the atlas {shown} is larger than {MAX_ATLAS_BYTES:,} bytes")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise AtlasError(f"the atlas {shown} is not UTF-8 text (byte {exc.start})") from None
        return cls.from_text(text, f"the atlas {shown}")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the atlas as JSON (one entry a line, so a diff of two atlases reads), whole:
        a new file beside the old one, renamed over it, so a crash leaves the old atlas."""
        import tempfile

        text = self.dumps()
        target = os.path.realpath(path)
        handle, partial = tempfile.mkstemp(dir=os.path.dirname(target), suffix=".part")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                file.write(text)
            os.chmod(partial, 0o644)
            os.replace(partial, target)
        except BaseException:
            if os.path.exists(partial):
                os.unlink(partial)
            raise

    def dumps(self) -> str:
        """The atlas as JSON text: the top keys and each entry on a line of its own. It is
        checked first as a reader checks it (:class:`AtlasError`), so what is written reads."""
        data = self.to_json()
        Atlas.from_json(data)
        entries = data.pop("entries")
        head = json.dumps(data)[:-1]
        lines = ",\n  ".join(json.dumps(entry, separators=(",", ":")) for entry in entries)
        return f'{head}, "entries": [\n  {lines}\n]}}\n' if entries else head + ', "entries": []}\n'


@functools.cache
def shipped_atlas() -> Atlas | None:
    """The atlas the package ships (``data/atlas.json``), read once; ``None`` if there is
    none. A damaged shipped file raises :class:`AtlasError` (a packaging fault, said plainly)."""
    try:
        text = package_data.read_text(ATLAS_FILE)
    except FileNotFoundError:
        return None
    return Atlas.from_text(text, f"the shipped {ATLAS_FILE}")


# -- the checks ---------------------------------------------------------------------------------


def _object(data: object, where: str, keys: Sequence[str]) -> dict[str, Any]:
    """``data`` as an object with exactly ``keys`` (each present, no other)."""
    if not isinstance(data, dict):
        raise AtlasError(f"{where}: expected an object, got {kind_of(data)}")
    unknown = [key for key in data if key not in keys]
    if unknown:
        raise AtlasError(
            f"{where}: unknown key {quoted(unknown[0])}; the keys are: {', '.join(keys)}"
        )
    for key in keys:
        if key not in data:
            raise AtlasError(f"{_at(where, key)}: missing")
    return cast(dict[str, Any], data)


def _at(where: str, key: str) -> str:
    return key if where == "atlas" else f"{where}.{key}"


def _list(value: object, where: str, most: int, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise AtlasError(f"{where}: expected a list, got {kind_of(value)}")
    if len(value) > most:
        raise AtlasError(f"{where}: at most {most:,} {what}, got {len(value):,}")
    return value


def _whole(value: object, where: str, least: int, most: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise AtlasError(f"{where}: must be a whole number, got {kind_of(value)}")
    if not least <= value <= most:
        raise AtlasError(f"{where}: must be between {least:,} and {most:,}, got {quoted(value)}")
    return value


def _seconds(value: object, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise AtlasError(f"{where}: must be a number of seconds, got {kind_of(value)}")
    if not (math.isfinite(value) and 0 <= value <= MAX_SECONDS):
        raise AtlasError(f"{where}: must be between 0 and {MAX_SECONDS:,}, got {quoted(value)}")
    return float(value)


def _text(value: object, where: str, most: int) -> str:
    if not isinstance(value, str):
        raise AtlasError(f"{where}: must be text, got {kind_of(value)}")
    if len(value) > most:
        raise AtlasError(f"{where}: at most {most:,} characters, got {len(value):,}")
    return value


def _command(value: object, where: str) -> str:
    """A command line: one line of printable text, shown as it is."""
    text = _text(value, where, MAX_ATLAS_COMMAND)
    if not text.strip() or not text.isprintable():
        raise AtlasError(f"{where}: must be one line of printable text, got {quoted(text)}")
    return text


def _made(value: object, where: str) -> str:
    """An ISO date (``2026-12-02``), or a date and time (``2026-12-02T15:10:00+00:00``)."""
    text = _text(value, where, 40)
    try:
        if not _DATE.fullmatch(text[:10]):
            raise ValueError(text)
        dt.date.fromisoformat(text[:10])
        if len(text) > 10:
            dt.datetime.fromisoformat(text)
    except ValueError:
        raise AtlasError(
            f"{where}: expected an ISO date like 2026-12-02, got {quoted(text)}"
        ) from None
    return text


def _entry(data: object, where: str) -> AtlasEntry:
    item = _object(data, where, _ENTRY_KEYS)
    rules = item["rules"]
    if not isinstance(rules, str) or rules not in PRESETS:
        raise AtlasError(
            f"{where}.rules: unknown preset {quoted(rules)}; presets: {', '.join(PRESETS)}"
        )
    dictionary = item["dictionary"]
    if not isinstance(dictionary, str) or dictionary not in BUILTIN_LEVELS:
        raise AtlasError(
            f"{where}.dictionary: unknown dictionary {quoted(dictionary)}; the built-in "
            f"dictionaries: {', '.join(BUILTIN_LEVELS)}"
        )
    min_length = _whole(item["min_length"], f"{where}.min_length", MIN_WORD_LENGTH, MAX_WORD_LENGTH)
    shakes = _shakes(item["distribution"], f"{where}.distribution")
    best = _list(item["best"], f"{where}.best", MAX_ATLAS_BEST, "best boards")
    boards = tuple(
        _best(board, f"{where}.best[{index}]", rules, min_length)
        for index, board in enumerate(best)
    )
    return AtlasEntry(rules, dictionary, min_length, shakes, boards)


def _shakes(data: object, where: str) -> Shakes:
    item = _object(data, where, _SHAKES_KEYS)
    boards = _whole(item["boards"], f"{where}.boards", 1, MAX_SEED)
    seed = _whole(item["seed"], f"{where}.seed", 0, MAX_SEED)
    if seed + boards - 1 > MAX_SEED:
        raise AtlasError(f"{where}: seeds {seed} onwards for {boards:,} boards pass {MAX_SEED}")
    points = _counts(item["points"], f"{where}.points", boards)
    words = _counts(item["words"], f"{where}.words", boards)
    return Shakes(boards, seed, points, words)


def _counts(data: object, where: str, boards: int) -> dict[int, int]:
    """``[[value, count], ...]``: each value once, counts of at least 1 adding up to ``boards``."""
    pairs = _list(data, where, MAX_ATLAS_VALUES, "values")
    counts: dict[int, int] = {}
    total = 0
    for index, pair in enumerate(pairs):
        at = f"{where}[{index}]"
        if not isinstance(pair, list) or len(pair) != 2:
            raise AtlasError(f"{at}: expected [value, count], got {kind_of(pair)}")
        value = _whole(pair[0], f"{at}[0]", 0, MAX_VALUE)
        count = _whole(pair[1], f"{at}[1]", 1, MAX_SEED)
        if value in counts:
            raise AtlasError(f"{at}[0]: the value {value} is counted twice")
        counts[value] = count
        total += count
    if total != boards:
        raise AtlasError(f"{where}: the counts add up to {total:,} boards, not {boards:,}")
    return counts


def _best(data: object, where: str, rules: str, min_length: int) -> BestBoard:
    item = _object(data, where, _BEST_KEYS)
    objective = item["objective"]
    if not isinstance(objective, str) or objective not in OBJECTIVES:
        raise AtlasError(
            f"{where}.objective: unknown objective {quoted(objective)}; "
            f"objectives: {', '.join(OBJECTIVES)}"
        )
    long_length = item["long_length"]
    if objective == "long":
        long_length = _whole(long_length, f"{where}.long_length", min_length, MAX_WORD_LENGTH)
    elif long_length is not None:
        raise AtlasError(f"{where}.long_length: must be null for the {objective} objective")
    board = _board(item["board"], f"{where}.board", rules)
    value = _whole(item["value"], f"{where}.value", 0, MAX_VALUE)
    points = _whole(item["points"], f"{where}.points", 0, MAX_VALUE)
    words = _whole(item["words"], f"{where}.words", 0, MAX_VALUE)
    expected = {"points": points, "words": words}.get(objective)
    if expected is not None and value != expected:
        raise AtlasError(
            f"{where}.value: {value:,} is the board's {objective}, which are {expected:,}"
        )
    if objective == "long" and value > words:
        raise AtlasError(f"{where}.value: {value:,} long words, but the board has {words:,} words")
    return BestBoard(
        objective=objective,
        long_length=long_length,
        board=board,
        value=value,
        points=points,
        words=words,
        seed=_whole(item["seed"], f"{where}.seed", 0, MAX_SEED),
        restarts=_whole(item["restarts"], f"{where}.restarts", 0, MAX_VALUE),
        evaluations=_whole(item["evaluations"], f"{where}.evaluations", 0, MAX_SEED),
        cpu_seconds=_seconds(item["cpu_seconds"], f"{where}.cpu_seconds"),
        command=_command(item["command"], f"{where}.command"),
    )


def _board(value: object, where: str, rules: str) -> str:
    """A board text of the preset's size, as its canonical text."""
    text = _text(value, where, MAX_BOARD_TEXT)
    try:
        board = Board.parse(text)
    except BoggleError as exc:
        raise AtlasError(f"{where}: {exc}") from None
    preset = PRESETS[rules]
    if board.size != (preset.rows, preset.cols):
        raise AtlasError(
            f"{where}: a {rules} board is {preset.rows}x{preset.cols}, "
            f"this one is {board.rows}x{board.cols}"
        )
    if board.challenge is not None:
        raise AtlasError(f"{where}: a best board has no challenge cube ('*')")
    return str(board)

"""Compute an atlas: for every preset and dictionary, the distribution of its shaken boards
and the best boards found by each objective, with the command that finds each again.

Each part is a study run (:mod:`bigboggle.study`) on whatever engine is given (this process,
or a Dask cluster: :mod:`bigboggle.cluster`), so an atlas is the same whatever computed it,
and a checkpoint folder keeps every finished chunk of every part, so a long build stopped by
Ctrl-C (or a lost machine) resumes where it was. The result is the JSON that
:class:`bigboggle.atlas.Atlas` reads (and checks).
"""

from __future__ import annotations

import datetime as dt
import os
import shlex
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .cluster import Engine, run_best, run_stats
from .dictionary import BUILTIN_LEVELS, Dictionary
from .errors import RulesError
from .rules import PRESETS, Rules
from .search import Objective
from .study import STATS_CHUNK, BestRun, DictionarySource, Restart, StatsRun, best_command

#: Objectives an atlas searches by default, and the shortest "long" word.
OBJECTIVES: tuple[Objective, ...] = ("points", "words", "long")
DEFAULT_LONG_LENGTH = 8
#: Best boards an atlas keeps per objective (distinct boards, best first).
KEEP_BEST = 3

#: ``progress(part, done, total, rate)``: which part is running (``big/standard points``), and
#: its progress as :data:`bigboggle.cluster.Progress` gives it.
AtlasProgress = Callable[[str, int, int, float | None], None]


@dataclass(frozen=True)
class AtlasPlan:
    """What an atlas holds and how hard it looks: ``boards`` shakes per preset and dictionary
    (seeds ``seed`` …), and per objective ``restarts`` searches of ``evaluations`` boards."""

    presets: tuple[str, ...] = tuple(PRESETS)
    dictionaries: tuple[str, ...] = tuple(BUILTIN_LEVELS)
    objectives: tuple[Objective, ...] = OBJECTIVES
    boards: int = 100_000
    seed: int = 0
    restarts: int = 4
    evaluations: int = 100_000
    long_length: int = DEFAULT_LONG_LENGTH

    def __post_init__(self) -> None:
        for name in self.presets:
            if name not in PRESETS:
                raise RulesError(f"unknown preset {name!r}; presets: {', '.join(PRESETS)}")
        for name in self.dictionaries:
            if name not in BUILTIN_LEVELS:
                raise RulesError(
                    f"unknown dictionary {name!r}; an atlas uses the built-ins: "
                    f"{', '.join(BUILTIN_LEVELS)}"
                )
        for objective in self.objectives:
            if objective not in OBJECTIVES:
                raise RulesError(
                    f"unknown objective {objective!r}; objectives: points, words, long"
                )
        if not (self.presets and self.dictionaries):
            raise RulesError("an atlas needs at least one preset and one dictionary")

    def command(self) -> str:
        """The ``bigboggle atlas`` command line that computes this atlas again."""
        parts = ["bigboggle", "atlas"]
        if self.presets != tuple(PRESETS):
            parts += [f"--rules={','.join(self.presets)}"]
        if self.dictionaries != tuple(BUILTIN_LEVELS):
            parts += [f"--dictionaries={','.join(self.dictionaries)}"]
        if self.objectives != OBJECTIVES:
            parts += [f"--objectives={','.join(self.objectives)}"]
        parts += ["--boards", str(self.boards), "--seed", str(self.seed)]
        parts += ["--restarts", str(self.restarts), "--evaluations", str(self.evaluations)]
        if self.long_length != DEFAULT_LONG_LENGTH:
            parts += ["--long-length", str(self.long_length)]
        return shlex.join(parts)


def build_atlas(
    plan: AtlasPlan,
    engine: Engine,
    *,
    checkpoints: str | None = None,
    progress: AtlasProgress | None = None,
) -> tuple[dict[str, Any], bool]:
    """The atlas's JSON, and whether it is complete (``False``: Ctrl-C stopped it; what was
    done is in it, and with ``checkpoints`` (a folder) the same call resumes it)."""
    if checkpoints is not None:
        os.makedirs(checkpoints, exist_ok=True)
    started = time.monotonic()
    cpu = 0.0
    entries: list[dict[str, Any]] = []
    for preset in plan.presets:
        for name in plan.dictionaries:
            rules = Rules.preset(preset)
            words = Dictionary.builtin(name)
            source = DictionarySource.of(name, words)
            part = f"{preset}/{name}"

            def report(label: str) -> Callable[[int, int, float | None], None] | None:
                if progress is None:
                    return None
                return lambda done, total, rate: progress(label, done, total, rate)

            stats_run = StatsRun(
                rules, source, plan.boards, plan.seed, min(STATS_CHUNK, plan.boards)
            )
            shaken = run_stats(
                stats_run,
                engine,
                checkpoint=_path(checkpoints, f"{preset}-{name}-stats"),
                progress=report(f"{part} shakes"),
            )
            cpu += shaken.cpu_seconds
            if shaken.interrupted or shaken.stats is None:
                return _atlas(plan, entries, cpu, started, engine), False
            best = []
            for objective in plan.objectives:
                long_length = plan.long_length if objective == "long" else None
                if long_length is not None and long_length < rules.min_length:
                    long_length = rules.min_length
                search = BestRun(
                    rules,
                    source,
                    plan.restarts,
                    plan.evaluations,
                    plan.seed,
                    objective,
                    long_length,
                )
                found = run_best(
                    search,
                    engine,
                    checkpoint=_path(checkpoints, f"{preset}-{name}-{objective}"),
                    progress=report(f"{part} {objective}"),
                )
                cpu += found.cpu_seconds
                if found.interrupted:
                    return _atlas(plan, entries, cpu, started, engine), False
                best.extend(_best_boards(search, found.restarts))
            stats = shaken.stats
            entries.append(
                {
                    "rules": preset,
                    "dictionary": name,
                    "min_length": rules.min_length,
                    "distribution": {
                        "boards": stats.boards,
                        "seed": stats.seed,
                        "points": [list(item) for item in sorted(stats.point_counts.items())],
                        "words": [list(item) for item in sorted(stats.word_counts.items())],
                    },
                    "best": best,
                }
            )
    return _atlas(plan, entries, cpu, started, engine), True


def _path(folder: str | None, name: str) -> str | None:
    return None if folder is None else os.path.join(folder, f"{name}.ckpt")


def _best_boards(run: BestRun, restarts: Sequence[Restart]) -> list[dict[str, Any]]:
    """The :data:`KEEP_BEST` best distinct boards of a search's restarts, each with the
    command that finds it alone."""
    kept: list[dict[str, Any]] = []
    seen: set[str] = set()
    for restart in sorted(restarts, key=lambda r: (-r.value, r.index)):
        if restart.board in seen:
            continue
        seen.add(restart.board)
        kept.append(
            {
                "objective": run.objective,
                "long_length": run.long_length,
                "board": restart.board,
                "value": restart.value,
                "points": restart.points,
                "words": restart.words,
                "seed": restart.seed,
                "restarts": run.restarts,
                "evaluations": run.evaluations,
                "cpu_seconds": round(restart.cpu_seconds, 3),
                "command": best_command(run, restarts=1, seed=restart.seed),
            }
        )
        if len(kept) == KEEP_BEST:
            break
    return kept


def _atlas(
    plan: AtlasPlan, entries: list[dict[str, Any]], cpu: float, started: float, engine: Engine
) -> dict[str, Any]:
    return {
        "version": 1,
        "made": dt.datetime.now(dt.UTC).date().isoformat(),
        "command": plan.command(),
        "cpu_seconds": round(cpu, 1),
        "wall_seconds": round(time.monotonic() - started, 1),
        "workers": engine.workers,
        "entries": entries,
    }

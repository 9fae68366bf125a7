"""Solver benchmark: boards per second and dictionary load times, medians of several runs.

Boards are shaken from a preset's dice with fixed seeds (0, 1, 2, ...), so every run and both
solver cores see the same boards. Each figure is the median of ``--repeat`` runs made in this
one process, compiled core and pure-Python reference side by side. Run from the checkout::

    python benchmarks/bench_solver.py                # ENABLE2K, min length 3, 5x5 Big Boggle dice
    python benchmarks/bench_solver.py --all          # the four configurations of the README table
    python benchmarks/bench_solver.py --dictionary standard --rules big --min-length 4

ENABLE2K is looked for at ../shared/wordlists/enable2k.txt (or $BIGBOGGLE_ENABLE2K).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bigboggle import Board, Dictionary, Rules, implementation, score_many, shake, solve
from bigboggle.dictionary import BUILTIN_LEVELS, _load_builtin

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Config:
    """One benchmark setting: which dice to shake and which words and rules to solve with."""

    label: str
    dice: str
    dictionary: str
    rules: str
    min_length: int
    scoring: str


CONFIGS = [
    Config("5x5 Big Boggle dice, ENABLE2K, 3+ letters", "big", "enable2k", "big", 3, "classic"),
    Config("5x5 Big Boggle dice, standard, big rules", "big", "standard", "big", 4, "big"),
    Config("4x4 Boggle dice, ENABLE2K, 3+ letters", "classic", "enable2k", "classic", 3, "classic"),
    Config(
        "6x6 Super Big Boggle dice, ENABLE2K, 3+ letters",
        "superbig",
        "enable2k",
        "superbig",
        3,
        "superbig",
    ),
]


def enable2k() -> Path:
    """The ENABLE2K word list beside the checkout (or where $BIGBOGGLE_ENABLE2K says)."""
    return Path(os.environ.get("BIGBOGGLE_ENABLE2K", ROOT.parent / "shared/wordlists/enable2k.txt"))


def load(spec: str) -> Dictionary:
    """The dictionary as a program gets it: through the on-disk cache when the entry exists."""
    if spec in BUILTIN_LEVELS:
        return _load_builtin.__wrapped__(spec)  # bypass the in-process memo, not the disk cache
    return Dictionary.from_file(enable2k() if spec == "enable2k" else spec)


def median_of(repeat: int, run: Callable[[], float]) -> float:
    return statistics.median(run() for _ in range(repeat))


def timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def rate(count: int, action: Callable[[], object]) -> float:
    return count / timed(action)


def textbook_words(root: dict[str, Any], letters: tuple[str, ...], adjacency: Any) -> set[str]:
    """The yardstick: a plain trie DFS as tutorials write it (a dict trie, a visited set)."""
    found: set[str] = set()

    def dfs(node: dict[str, Any], cell: int, visited: set[int]) -> None:
        for n in adjacency[cell]:
            if n in visited or not letters[n]:
                continue
            child = node.get(letters[n])
            if child is None:
                continue
            if "" in child:
                found.add(child[""])
            visited.add(n)
            dfs(child, n, visited)
            visited.remove(n)

    for cell, face in enumerate(letters):
        child = root.get(face) if face else None
        if child is not None:
            if "" in child:
                found.add(child[""])
            dfs(child, cell, {cell})
    return found


def textbook_score(boards: list[Board], words: Dictionary, rules: Rules) -> None:
    root = words.trie.root
    for board in boards:
        found = textbook_words(root, board.cell_letters, board.adjacency)
        sum(rules.word_points(len(word)) for word in found)


def solve_all(boards: list[Board], words: Dictionary, rules: Rules) -> None:
    for board in boards:
        solve(board, words, rules)


def bench(
    config: Config, boards_count: int, reference_boards: int, repeat: int
) -> dict[str, float]:
    """Every figure for one configuration."""
    figures: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as empty_cache:
        os.environ["BIGBOGGLE_CACHE_DIR"] = empty_cache
        figures["build_ms"] = 1000 * timed(lambda: load(config.dictionary).packed_trie)
        figures["load_ms"] = 1000 * median_of(
            repeat, lambda: timed(lambda: load(config.dictionary))
        )
        words = load(config.dictionary)
    rules = Rules.preset(config.rules, min_length=config.min_length, scoring=config.scoring)
    boards = [shake(config.dice, seed).board for seed in range(boards_count)]
    few = boards[:reference_boards]
    figures["mean_points"] = statistics.fmean(score_many(few, words, rules))

    implementation.use("c")
    figures["c_score"] = median_of(
        repeat, lambda: rate(len(boards), lambda: score_many(boards, words, rules))
    )
    figures["c_score_2"] = median_of(
        repeat, lambda: rate(len(boards), lambda: score_many(boards, words, rules, threads=2))
    )
    figures["c_solve"] = median_of(
        repeat,
        lambda: rate(len(boards) // 4, lambda: solve_all(boards[: len(boards) // 4], words, rules)),
    )
    implementation.use("python")
    _ = words.trie
    figures["py_score"] = median_of(
        repeat, lambda: rate(len(few), lambda: score_many(few, words, rules))
    )
    figures["py_solve"] = median_of(
        repeat, lambda: rate(len(few), lambda: solve_all(few, words, rules))
    )
    figures["textbook"] = median_of(
        repeat, lambda: rate(len(few), lambda: textbook_score(few, words, rules))
    )
    implementation.use("c")
    return figures


def report(
    config: Config, figures: dict[str, float], boards: int, reference: int, repeat: int
) -> None:
    print(f"== {config.label}")
    print(
        f"   boards: {boards} shaken with seeds 0..{boards - 1} (reference: the first {reference}); "
        f"median of {repeat} runs; mean points {figures['mean_points']:.1f}"
    )
    print(
        f"   dictionary: first build {figures['build_ms']:.0f} ms (read, normalise, pack, cache); "
        f"cached load {figures['load_ms']:.1f} ms"
    )
    print(
        f"   score_many, 1 thread:  compiled {figures['c_score']:>9,.0f} boards/s   "
        f"reference {figures['py_score']:>7,.0f} boards/s   ({figures['c_score'] / figures['py_score']:.0f}x)"
    )
    print(
        f"   a textbook trie DFS, for scale:             {figures['textbook']:>7,.0f} boards/s   "
        f"(the reference does {figures['py_score'] / figures['textbook']:.2f}x)"
    )
    print(
        f"   score_many, 2 threads: compiled {figures['c_score_2']:>9,.0f} boards/s   "
        f"({figures['c_score_2'] / figures['c_score']:.2f}x one thread)"
    )
    print(
        f"   solve (words + paths): compiled {figures['c_solve']:>9,.0f} boards/s   "
        f"reference {figures['py_solve']:>7,.0f} boards/s   ({figures['c_solve'] / figures['py_solve']:.0f}x)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--all", action="store_true", help="run the four standard configurations")
    parser.add_argument("--rules", default="big", help="preset whose dice are shaken (default big)")
    parser.add_argument(
        "--dictionary", default="enable2k", help="enable2k, a built-in name or a path"
    )
    parser.add_argument("--min-length", type=int, default=3, help="minimum word length (default 3)")
    parser.add_argument("--scoring", default="classic", help="scoring table (default classic)")
    parser.add_argument("--boards", type=int, default=20_000, help="boards per run (default 20000)")
    parser.add_argument(
        "--reference-boards", type=int, default=2_000, help="boards per reference run"
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (default 5)")
    args = parser.parse_args()

    if not implementation.compiled_available():
        sys.exit("the compiled core is not built; reinstall with a C compiler (pip install -e .)")
    configs = (
        CONFIGS
        if args.all
        else [
            Config(
                f"{args.rules} dice, {args.dictionary}, {args.min_length}+ letters",
                args.rules,
                args.dictionary,
                args.rules,
                args.min_length,
                args.scoring,
            )
        ]
    )
    for config in configs:
        if config.dictionary == "enable2k" and not enable2k().is_file():
            sys.exit(f"ENABLE2K not found at {enable2k()}; set BIGBOGGLE_ENABLE2K")
        figures = bench(config, args.boards, args.reference_boards, args.repeat)
        report(config, figures, args.boards, args.reference_boards, args.repeat)


if __name__ == "__main__":
    main()

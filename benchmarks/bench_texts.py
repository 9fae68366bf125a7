"""Board texts benchmark: what a board text costs on its way to the solver, one run.

Compares, interleaved in one process (per-thread CPU time, medians of ``--repeat`` rounds):

- ``Board.parse`` against the compiled core's own text parser: ``_solve_c.parse_text`` (which
  also builds a tuple of faces, so an upper bound), the core's ``score_texts`` with a one-word
  dictionary (the parse plus an all but empty walk) beside ``score_batch`` of the same boards as
  ready cell tuples (the walk and reading the tuples, no parse), and ``score_many`` on texts
  with that dictionary (everything a caller pays);
- ``score_many`` on board texts against ``score_many`` on parsed :class:`Board` values (parsed
  beforehand, not timed), and against the old text path (``Board.parse`` per text, then the
  core's ``score_batch``), ENABLE2K, 3+ letters, on 5x5 Big Boggle dice boards and 4x4 boards of
  uniform random letters (danvk's convention: ``q`` is Qu).

Run from the checkout (ENABLE2K at ../shared/wordlists/enable2k.txt, or $BIGBOGGLE_ENABLE2K)::

    python benchmarks/bench_texts.py
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

from bigboggle import Board, Dictionary, Rules, implementation, score_many, shake
from bigboggle.solver import _challenge, points_table

ROOT = Path(__file__).resolve().parents[1]


def enable2k() -> Path:
    """Where ENABLE2K is (never part of the project)."""
    return Path(os.environ.get("BIGBOGGLE_ENABLE2K", ROOT.parent / "shared/wordlists/enable2k.txt"))


def dice_texts(count: int) -> list[str]:
    """Canonical texts of 5x5 Big Boggle dice boards, seeds 0, 1, 2, ..."""
    return [str(shake("big", seed).board) for seed in range(count)]


def uniform_texts(count: int, side: int = 4) -> list[str]:
    """Texts of boards of uniform random letters; ``q`` is written ``Qu`` (one cell)."""
    draw = random.Random(1).choice
    letters = string.ascii_lowercase
    return [
        "/".join(
            "".join(
                "Qu" if ch == "q" else ch.upper() for ch in (draw(letters) for _ in range(side))
            )
            for _ in range(side)
        )
        for _ in range(count)
    ]


def cells_of(board: Board) -> tuple[tuple[str, ...], int, int, int]:
    """The core's arguments for a board."""
    return (board.cell_letters, board.rows, board.cols, _challenge(board))


def per_board(count: int, action: Callable[[], object]) -> float:
    """Microseconds of this thread's CPU time per board for one run of ``action``."""
    start = time.thread_time()
    action()
    return (time.thread_time() - start) / count * 1e6


def old_text_path(texts: list[str], words: Dictionary, rules: Rules) -> list[int]:
    """What score_many did with texts before: a Board per text, then the core's batch."""
    boards = [Board.parse(text) for text in texts]
    cells = [cells_of(b) for b in boards]
    points = points_table(rules, rules.min_length, words.longest)
    trie = implementation.trie_for(words)
    return list(implementation.core().score_batch(trie, cells, points, rules.challenge_bonus))


def interleaved(repeat: int, runs: dict[str, Callable[[], float]]) -> dict[str, float]:
    """The median of each run over ``repeat`` rounds, the runs taking turns."""
    samples: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, run in runs.items():
            samples[name].append(run())
    return {name: statistics.median(values) for name, values in samples.items()}


def bench_parse(texts: list[str], repeat: int) -> None:
    """Board.parse against the compiled parser, µs a board."""
    from bigboggle import _solve_c

    tiny = Dictionary.from_words(["zzzz"])
    rules = Rules.preset("classic", min_length=3)
    n = len(texts)
    trie, points = tiny.packed_trie, points_table(rules, 3, tiny.longest)
    tuples = [cells_of(Board.parse(t)) for t in texts]
    figures = interleaved(
        repeat,
        {
            "core: score_texts, 1-word dictionary": lambda: per_board(
                n, lambda: _solve_c.score_texts(trie, texts, points, 0, print)
            ),
            "core: score_batch of cell tuples (no parse)": lambda: per_board(
                n, lambda: _solve_c.score_batch(trie, tuples, points, 0)
            ),
            "Board.parse": lambda: per_board(n, lambda: [Board.parse(t) for t in texts]),
            "_solve_c.parse_text": lambda: per_board(
                n, lambda: [_solve_c.parse_text(t) for t in texts]
            ),
            "score_many(texts), 1-word dictionary": lambda: per_board(
                n, lambda: score_many(texts, tiny, rules)
            ),
        },
    )
    for name, value in figures.items():
        print(f"  {name:46s} {value:7.2f} µs/board")


def bench_score(label: str, texts: list[str], rules: Rules, words: Dictionary, repeat: int) -> None:
    """score_many on texts, on parsed Boards, and the old text path, µs a board."""
    boards = [Board.parse(text) for text in texts]
    expected = score_many(boards, words, rules)
    assert score_many(texts, words, rules) == expected == old_text_path(texts, words, rules)
    n = len(texts)
    figures = interleaved(
        repeat,
        {
            "texts": lambda: per_board(n, lambda: score_many(texts, words, rules)),
            "parsed Boards": lambda: per_board(n, lambda: score_many(boards, words, rules)),
            "texts, old path (Board.parse each)": lambda: per_board(
                n, lambda: old_text_path(texts, words, rules)
            ),
        },
    )
    print(f"{label} ({n} boards, median of {repeat}):")
    for name, value in figures.items():
        print(f"  score_many on {name:36s} {value:7.2f} µs/board  {1e6 / value:9,.0f} boards/s")
    print(f"  texts / parsed Boards: {figures['texts'] / figures['parsed Boards']:.3f}× the time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=3000, help="5x5 boards a round")
    parser.add_argument("--repeat", type=int, default=7, help="rounds (the median is shown)")
    args = parser.parse_args()
    if implementation.name() != "c":
        sys.exit("the compiled core is not built here: this benchmark measures it")
    if not enable2k().is_file():
        sys.exit(f"ENABLE2K not found at {enable2k()}; set BIGBOGGLE_ENABLE2K")
    words = Dictionary.from_file(enable2k())
    dice = dice_texts(args.boards)
    uniform = uniform_texts(args.boards * 5)
    print("Parsing a 5x5 dice board text:")
    bench_parse(dice, args.repeat)
    print("Parsing a 4x4 uniform board text:")
    bench_parse(uniform, args.repeat)
    bench_score(
        "5x5 Big Boggle dice, ENABLE2K, 3+",
        dice,
        Rules.preset("big", min_length=3, scoring="classic"),
        words,
        args.repeat,
    )
    bench_score(
        "4x4 uniform letters, ENABLE2K, 3+",
        uniform,
        Rules.preset("classic", min_length=3),
        words,
        args.repeat,
    )


if __name__ == "__main__":
    main()

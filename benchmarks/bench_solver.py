"""Solver benchmark: boards per second and dictionary load time, as medians over several runs.

Boards are shaken from a preset's dice with fixed seeds (0, 1, 2, ...), so every run and every
implementation sees the same boards. Run from the repository root::

    python benchmarks/bench_solver.py                       # ENABLE2K, min length 3, 5x5 Big Boggle dice
    python benchmarks/bench_solver.py --dictionary standard --min-length 4
    python benchmarks/bench_solver.py --rules classic --boards 5000

ENABLE2K is looked for at ../shared/wordlists/enable2k.txt (or $BIGBOGGLE_ENABLE2K).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from bigboggle import IMPLEMENTATION, Dictionary, Rules, score_many, shake, solve
from bigboggle.dictionary import BUILTIN_LEVELS

ROOT = Path(__file__).resolve().parents[1]


def enable2k() -> Path:
    """The ENABLE2K word list beside the checkout (or where $BIGBOGGLE_ENABLE2K says)."""
    return Path(os.environ.get("BIGBOGGLE_ENABLE2K", ROOT.parent / "shared/wordlists/enable2k.txt"))


def load(spec: str) -> Dictionary:
    """A fresh dictionary with its trie built (no process-wide cache), so load time is honest."""
    if spec in BUILTIN_LEVELS:
        from bigboggle.dictionary import _load_builtin

        words = _load_builtin.__wrapped__(spec)
    else:
        words = Dictionary.from_file(enable2k() if spec == "enable2k" else spec)
    _ = words.trie
    return words


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rules", default="big", help="preset whose dice are shaken (default big)")
    parser.add_argument(
        "--dictionary", default="enable2k", help="enable2k, a built-in name or a path"
    )
    parser.add_argument("--min-length", type=int, default=3, help="minimum word length (default 3)")
    parser.add_argument("--scoring", default="classic", help="scoring table (default classic)")
    parser.add_argument("--boards", type=int, default=20_000, help="boards per run (default 20000)")
    parser.add_argument("--solve-boards", type=int, default=5_000, help="boards per solve run")
    parser.add_argument("--repeat", type=int, default=5, help="runs per figure (default 5)")
    args = parser.parse_args()

    if args.dictionary == "enable2k" and not enable2k().is_file():
        sys.exit(f"ENABLE2K not found at {enable2k()}; set BIGBOGGLE_ENABLE2K or pass --dictionary")

    load_times = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        words = load(args.dictionary)
        load_times.append(time.perf_counter() - started)
    rules = Rules.preset(args.rules, min_length=args.min_length, scoring=args.scoring)
    boards = [shake(rules.dice, seed).board for seed in range(args.boards)]

    score_rates = []
    totals: list[int] = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        totals = score_many(boards, words, rules)
        score_rates.append(len(boards) / (time.perf_counter() - started))

    solve_boards = boards[: args.solve_boards]
    solve_rates = []
    for _ in range(args.repeat):
        started = time.perf_counter()
        for board in solve_boards:
            solve(board, words, rules)
        solve_rates.append(len(solve_boards) / (time.perf_counter() - started))

    print(f"implementation      {IMPLEMENTATION}")
    print(f"dictionary          {args.dictionary} ({len(words)} words)")
    print(f"boards              {len(boards)} x {args.rules} dice, seeds 0..{len(boards) - 1}")
    print(f"rules               min length {args.min_length}, {args.scoring} scoring")
    print(f"mean points         {statistics.fmean(totals):.1f}")
    print(
        f"dictionary load     {statistics.median(load_times) * 1000:.0f} ms (median of {args.repeat}, word list + trie)"
    )
    print(
        f"score_many          {statistics.median(score_rates):,.0f} boards/s (median of {args.repeat}; min {min(score_rates):,.0f}, max {max(score_rates):,.0f})"
    )
    print(
        f"solve (with paths)  {statistics.median(solve_rates):,.0f} boards/s (median of {args.repeat}, {len(solve_boards)} boards)"
    )


if __name__ == "__main__":
    main()

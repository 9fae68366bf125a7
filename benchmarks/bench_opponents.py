"""Computer opponents' benchmark: what making an opponent's list costs, per strength.

A service makes each opponent's list once, when a game or round starts (``jobs.opponent_entries``:
solve the board, then play it). This measures, on boards shaken with fixed seeds (0, 1, 2, ...)
of a preset's dice, the median milliseconds of: solving a board; preparing its words for the
opponents (each word's difficulty and stems: once per board, shared by every strength playing
it); and one strength's list from the prepared board. Run from the checkout::

    python benchmarks/bench_opponents.py                  # 200 Big Boggle boards
    python benchmarks/bench_opponents.py --rules superbig --boards 100
"""

from __future__ import annotations

import argparse
import statistics
import time

from bigboggle import Dictionary, Opponent, Rules, shake, solve
from bigboggle.opponents import TARGETS, _prepared


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rules", default="big")
    parser.add_argument("--boards", type=int, default=200)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    words = Dictionary.load(rules.dictionary)
    timings: dict[str, list[float]] = {"solve": [], "prepare": [], **{s: [] for s in TARGETS}}
    for seed in range(args.boards):
        board = shake(rules.dice, seed).board
        started = time.perf_counter()
        solution = solve(board, words, rules)
        timings["solve"].append(time.perf_counter() - started)
        started = time.perf_counter()
        _prepared(solution, words)
        timings["prepare"].append(time.perf_counter() - started)
        for strength in TARGETS:
            started = time.perf_counter()
            Opponent(strength, seed).play_solution(solution, words, rules)
            timings[strength].append(time.perf_counter() - started)
    print(f"{args.boards} boards of the {rules.name} rules, {words.name} dictionary (median ms)")
    for name, values in timings.items():
        print(f"  {name:<10} {statistics.median(values) * 1000:7.2f}")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Fit each computer opponent's skill (bigboggle.opponents.SKILL) to its target share of the
board's points on Big Boggle boards (rules "big", the standard dictionary), then measure the
fitted skills again by the rules on other boards.

    python tools/calibrate_opponents.py                 # fit on 600 boards, check on 1,000
    python tools/calibrate_opponents.py --write         # ...and write SKILL into opponents.py

The fit shakes boards with seeds from 1,000,000 on (opponent i plays with its board's seed), so
the check, `bigboggle opponents` and the statistics test (seeds from 0) measure boards the fit
never saw. Each board is solved once; a bisection per strength runs on the same boards and
draws every step (the share of a list is the sum of its words' points over the board's total:
an opponent never repeats a word and writes none too short, so this is what the rules give it,
as the check confirms with `bigboggle.scoring.judge_round`).
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import time
from pathlib import Path

from bigboggle import Dictionary, Rules
from bigboggle.dice import shake
from bigboggle.opponents import (
    SKILL,
    TARGETS,
    _digest,
    _play,
    _Prepared,
    _prepared,
    measure_strengths,
)
from bigboggle.solver import Solution, solve

MODULE = Path(__file__).resolve().parents[1] / "src" / "bigboggle" / "opponents.py"
FIT_SEEDS = 1_000_000
#: The bisection's bracket of skills, and its steps (the bracket / 2**steps: about 0.001).
LOW, HIGH, STEPS = -4.0, 8.0, 14

Board = tuple[int, Solution, _Prepared]


def shaken(rules: Rules, words: Dictionary, count: int) -> list[Board]:
    """``count`` boards from seed FIT_SEEDS on, each solved and prepared once."""
    boards = []
    for seed in range(FIT_SEEDS, FIT_SEEDS + count):
        solution = solve(shake(rules.dice, seed).board, words, rules)
        if solution.total_score:
            boards.append((seed, solution, _prepared(solution, words)))
    return boards


def mean_share(strength: str, skill: float, boards: list[Board], words: Dictionary) -> float:
    """The mean share of each board's points an opponent of ``strength`` with ``skill`` finds."""
    total = 0.0
    for seed, solution, prepared in boards:
        rng = random.Random(_digest(seed, strength, str(solution.board)))
        timer = float(solution.rules.timer)
        entries = _play(strength, solution, prepared, words, rng, timer, skill)
        points = 0
        for _at, entry in entries:
            found = solution.get(entry)
            if found is not None:
                points += found.score
        total += points / solution.total_score
    return total / len(boards)


def fit(strength: str, boards: list[Board], words: Dictionary) -> float:
    """The skill whose mean share is the strength's target, by bisection."""
    low, high = LOW, HIGH
    for _ in range(STEPS):
        middle = (low + high) / 2
        if mean_share(strength, middle, boards, words) < TARGETS[strength]:
            low = middle
        else:
            high = middle
    return round((low + high) / 2, 3)


def write(skills: dict[str, float]) -> None:
    """Replace the SKILL mapping in opponents.py with ``skills`` (the solver keeps inf)."""
    text = MODULE.read_text(encoding="utf-8")
    body = ", ".join(f'"{name}": {value!r}' for name, value in skills.items())
    new, count = re.subn(
        r"SKILL: Mapping\[str, float\] = MappingProxyType\(\n    \{[^}]*\}\n\)",
        f'SKILL: Mapping[str, float] = MappingProxyType(\n    {{{body}, "solver": math.inf}}\n)',
        text,
    )
    if count != 1:
        sys.exit("could not find the SKILL mapping in opponents.py")
    MODULE.write_text(new, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--boards", type=int, default=600, help="boards to fit on")
    parser.add_argument("--check", type=int, default=1000, help="boards to check on")
    parser.add_argument("--write", action="store_true", help="write SKILL into opponents.py")
    args = parser.parse_args()
    rules = Rules.preset("big")
    words = Dictionary.builtin("standard")
    started = time.perf_counter()
    boards = shaken(rules, words, args.boards)
    skills = {name: fit(name, boards, words) for name in TARGETS if name != "solver"}
    print(f"fitted on {len(boards)} boards in {time.perf_counter() - started:.0f} s:")
    print("SKILL = {" + ", ".join(f'"{k}": {v}' for k, v in skills.items()) + ', "solver": inf}')
    print(f"(in opponents.py now: {dict(SKILL)})")
    if args.write:
        write(skills)
        print(f"wrote {MODULE}")
    print(f"\ncheck on {args.check} other boards (seeds from 0), scored by the rules:")
    print(f"{'strength':<10} {'target':>7} {'points':>7} {'words':>7} {'invalid':>8}")
    check = measure_strengths(rules, words, args.check, skills=skills)
    for row in check:
        print(
            f"{row.strength:<10} {row.target:>7.1%} {row.points:>7.1%} {row.words:>7.1%} "
            f"{row.invalid:>8.2f}"
        )


if __name__ == "__main__":
    main()

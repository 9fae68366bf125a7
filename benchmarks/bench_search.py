"""Best-board search benchmark: how often, and how fast, seeded runs reach a target.

Each run is `bigboggle.search.search_best` from a random start with its own seed, on ENABLE2K at
minimum length 3 with classic scoring (the convention of published best-board figures), and
runs go in parallel processes (``--jobs``, default one per core of a 2-core machine). Each run
keeps time on its own CPU clock (``time.thread_time``), so its seconds are seconds of one core
whatever else the machine is doing, and stops once it reaches the target (``--go-on`` searches
for the whole budget). It prints each run and the median time to the target, a run that missed
it counting as slower than any that reached it. Run from the checkout::

    python benchmarks/bench_search.py --size 4 --seeds 1 2 3 4 --seconds 300
    python benchmarks/bench_search.py --size 5 --seeds 1 2 3 4 --seconds 1800

The 4x4 optimum, 3625 points, is PERS/LATG/SINE/TERS (and its rotations and reflections);
the best known 5x5 board scores 10406 (LIGDR/MANES/IETIL/DSRAC/SEPES).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path

from bigboggle import Dictionary, Rules
from bigboggle.search import search_best

ROOT = Path(__file__).resolve().parents[1]


def enable2k() -> Path:
    return Path(os.environ.get("BIGBOGGLE_ENABLE2K", ROOT.parent / "shared/wordlists/enable2k.txt"))


def one_run(
    size: int, seed: int, seconds: float, target: int, verbose: bool = False, go_on: bool = False
) -> dict[str, object]:
    """One seeded search; when it first reached the target, and the best it found. With
    ``verbose``, each new best board is printed as it comes (to follow a long run's log)."""
    words = Dictionary.from_file(enable2k())
    rules = replace(
        Rules.preset("classic"), rows=size, cols=size, dice="classic" if size == 4 else "big"
    )
    reached: list[float] = []

    def note(found: object) -> None:
        value = getattr(found, "value", 0)
        if verbose:
            seconds_so_far = float(getattr(found, "seconds", 0.0))
            print(f"  seed {seed}: {value} after {seconds_so_far:.0f} s", flush=True)
        if value >= target and not reached:
            reached.append(float(getattr(found, "seconds", 0.0)))

    result = search_best(
        rules,
        words,
        seconds=seconds,
        seed=seed,
        on_improve=note,
        stop_at=None if go_on else target,
        clock=time.thread_time,
    )
    return {
        "seed": seed,
        "best": result.value,
        "board": str(result.board),
        "reached_after_s": reached[0] if reached else None,
        "best_after_s": result.improvements[-1].seconds if result.improvements else 0.0,
        "evaluations": result.evaluations,
        "solved": result.solved,
        "rate": result.evaluations / result.seconds,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--size", type=int, choices=(4, 5), default=4)
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    parser.add_argument("--seconds", type=float, default=300)
    parser.add_argument(
        "--target", type=int, default=None, help="default: 3625 (4x4) or 10406 (5x5)"
    )
    parser.add_argument("--jobs", type=int, default=2, help="runs at once (1 on a shared machine)")
    parser.add_argument("--verbose", action="store_true", help="print every new best board")
    parser.add_argument(
        "--go-on", action="store_true", help="search for the whole budget after the target"
    )
    args = parser.parse_args()
    if not enable2k().is_file():
        sys.exit(f"ENABLE2K not found at {enable2k()}")
    target = args.target or (3625 if args.size == 4 else 10406)
    print(
        f"{args.size}x{args.size}, ENABLE2K, 3+ letters, classic scoring; target {target}; "
        f"up to {args.seconds:.0f} s of CPU per run",
        flush=True,
    )
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        runs = list(
            pool.map(
                one_run,
                [args.size] * len(args.seeds),
                args.seeds,
                [args.seconds] * len(args.seeds),
                [target] * len(args.seeds),
                [args.verbose] * len(args.seeds),
                [args.go_on] * len(args.seeds),
            )
        )
    for run in runs:
        when = (
            f"reached {target} after {run['reached_after_s']:.0f} s"
            if run["reached_after_s"] is not None
            else "did not reach it"
        )
        print(
            f"seed {run['seed']}: best {run['best']} {run['board']} "
            f"(found after {run['best_after_s']:.0f} s)  {when}  "
            f"({run['evaluations']:,} boards valued, {run['rate']:,.0f}/s; "
            f"{run['solved']:,} solved)",
            flush=True,
        )
    hits = sum(run["reached_after_s"] is not None for run in runs)
    times = [
        math.inf if run["reached_after_s"] is None else float(run["reached_after_s"])  # type: ignore[arg-type]
        for run in runs
    ]
    median = statistics.median(times)
    print(
        f"{hits} of {len(runs)} runs reached {target}; best overall "
        f"{max(run['best'] for run in runs)}; median CPU time to {target}: "
        + ("not reached" if math.isinf(median) else f"{median:.1f} s")
    )


if __name__ == "__main__":
    main()

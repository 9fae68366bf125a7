"""Study on a cluster: how a ``stats`` run scales on a local Dask cluster, and what the cluster
costs against the plain single-process path.

Three ways to run the same seeded run of shakes, interleaved ``--repeat`` times:

- ``plain``: this process, chunk after chunk (``LocalEngine``, one solver thread): what
  ``bigboggle stats --threads 1`` does;
- ``dask-1``, ``dask-2``: a local Dask cluster of 1 or 2 worker processes
  (``bigboggle stats --cluster --workers N``), its start and close included.

It checks that all three give identical statistics, then prints the median wall time and
boards/s of each, the scaling (dask-2 against dask-1) and the overhead of dask-1 against plain.
Run from the checkout (the issue's figures are for 10^6 boards; the default is 10^6)::

    python benchmarks/bench_cluster.py
    python benchmarks/bench_cluster.py --boards 200000 --repeat 3 --rules classic
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from bigboggle import Dictionary, Rules
from bigboggle.analysis import ShakeStats
from bigboggle.cluster import DaskEngine, LocalEngine, run_stats
from bigboggle.study import DictionarySource, StatsRun


def _timed(run: StatsRun, make: Callable[[], object]) -> tuple[float, ShakeStats | None]:
    started = time.perf_counter()
    engine = make()
    if isinstance(engine, DaskEngine):
        with engine as running:
            outcome = run_stats(run, running)
    else:
        outcome = run_stats(run, engine)  # type: ignore[arg-type]
    return time.perf_counter() - started, outcome.stats


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", type=int, default=1_000_000)
    parser.add_argument("--rules", default="big")
    parser.add_argument("--dictionary", default="standard")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    rules = Rules.preset(args.rules)
    words = Dictionary.builtin(args.dictionary)
    run = StatsRun(rules, DictionarySource.of(args.dictionary, words), args.boards, seed=0)
    ways: dict[str, Callable[[], object]] = {
        "plain": lambda: LocalEngine(threads=1),
        "dask-1": lambda: DaskEngine(workers=1),
        "dask-2": lambda: DaskEngine(workers=2),
    }
    times: dict[str, list[float]] = {name: [] for name in ways}
    reference: ShakeStats | None = None
    for repeat in range(args.repeat):
        for name, make in ways.items():
            seconds, stats = _timed(run, make)
            if reference is None:
                reference = stats
            if stats != reference:
                raise SystemExit(f"{name} gave other statistics than the first run")
            times[name].append(seconds)
            print(f"  repeat {repeat + 1}: {name:7} {seconds:8.2f} s", flush=True)
    print(
        f"\n{args.boards:,} boards of {args.rules} dice, {args.dictionary} dictionary; "
        f"identical statistics every run; medians of {args.repeat}:"
    )
    medians = {name: statistics.median(values) for name, values in times.items()}
    for name, seconds in medians.items():
        print(f"  {name:7} {seconds:8.2f} s  {args.boards / seconds:10,.0f} boards/s")
    # Each repeat's three runs are side by side, so their ratios are also given one repeat at
    # a time (the other load on a shared machine moves between repeats more than within one).
    scaling = [one / two for one, two in zip(times["dask-1"], times["dask-2"], strict=True)]
    overhead = [one / plain - 1 for one, plain in zip(times["dask-1"], times["plain"], strict=True)]
    print(
        f"  scaling, dask-2 / dask-1 boards/s: {medians['dask-1'] / medians['dask-2']:.2f}x "
        f"(of the medians); by repeat {', '.join(f'{r:.2f}x' for r in scaling)}, "
        f"median {statistics.median(scaling):.2f}x"
    )
    print(
        f"  overhead, dask-1 against plain:    {medians['dask-1'] / medians['plain'] - 1:+.1%} "
        f"(of the medians); by repeat {', '.join(f'{r:+.1%}' for r in overhead)}, "
        f"median {statistics.median(overhead):+.1%}"
    )


if __name__ == "__main__":
    main()

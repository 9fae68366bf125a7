"""Whole-process benchmark of ``bigboggle solve BOARD --json``: wall time and peak memory.

Each run is a fresh process (Python start-up, imports, the cached dictionary, the solve and the
JSON output), as a user or a script calling the command gets it. The first, uncached run warms
the dictionary cache and is not counted. Run from the checkout::

    python benchmarks/bench_cli.py                  # the default dictionary and rules
    python benchmarks/bench_cli.py --runs 30 -- --dictionary ../shared/wordlists/enable2k.txt --min-length 3
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time


def run_once(command: list[str]) -> tuple[float, float]:
    """Seconds of wall time and peak resident memory in MB of one run of ``command``."""
    started = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        assert process.stderr is not None
        sys.exit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    return elapsed, usage.ru_maxrss / 1024  # ru_maxrss is in KB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--board", default="LINES/TQARD/HEMOP/ABCKI/PSTEW")
    parser.add_argument("--runs", type=int, default=20, help="timed runs (default 20)")
    parser.add_argument("extra", nargs="*", help="more arguments for 'bigboggle solve'")
    args = parser.parse_args()

    executable = shutil.which("bigboggle")
    if executable is None:
        sys.exit("bigboggle is not on PATH; pip install -e . first")
    command = [executable, "solve", args.board, "--json", *args.extra]
    run_once(command)  # warm the dictionary cache
    runs = [run_once(command) for _ in range(args.runs)]
    times = sorted(elapsed for elapsed, _ in runs)
    memory = [peak for _, peak in runs]
    print(f"command      {' '.join(['bigboggle', *command[1:]])}")
    print(
        f"wall time    median {statistics.median(times) * 1000:.0f} ms, "
        f"min {times[0] * 1000:.0f} ms, max {times[-1] * 1000:.0f} ms ({args.runs} runs)"
    )
    print(f"peak memory  median {statistics.median(memory):.1f} MB, max {max(memory):.1f} MB")


if __name__ == "__main__":
    main()

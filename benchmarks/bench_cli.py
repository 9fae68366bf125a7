"""Whole-process benchmark of ``bigboggle solve BOARD --json``: wall time, CPU time, peak memory.

Each run is a fresh process (Python start-up, imports, the cached dictionary, the solve and the
JSON output), as a user or a script calling the command gets it. The first runs, uncached,
warm the dictionary cache and the bytecode cache and are not counted. Run from the checkout::

    python benchmarks/bench_cli.py                  # the default dictionary and rules
    python benchmarks/bench_cli.py --runs 30 -- --dictionary ../shared/wordlists/enable2k.txt --min-length 3
    python benchmarks/bench_cli.py --against ../main/src     # interleaved with another checkout

Bytecode: an installed package has its modules compiled once (pip does it), so by default the
runs keep compiled bytecode too, in a directory of this benchmark's own (``PYTHONPYCACHEPREFIX``:
nothing is written into the checkout), even where the environment sets
``PYTHONDONTWRITEBYTECODE``. ``--no-bytecode-cache`` measures instead what a checkout without
``__pycache__`` costs under ``PYTHONDONTWRITEBYTECODE=1``: every module compiled on every run
(about 30 ms more on a 2-core machine, most of it the command line's own module).

``--against SRC`` times the same command with SRC (another checkout's ``src``) first on
``PYTHONPATH`` too, run for run in alternation (the order swapped every other round), and prints
both and their ratio: compare figures within one run, since the machine's load moves them.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field


@dataclass
class Runs:
    """One way of running the command, and what its runs took."""

    label: str
    environ: dict[str, str]
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    memory: list[float] = field(default_factory=list)

    def report(self) -> list[str]:
        wall = sorted(self.wall)
        return [
            f"{self.label}",
            f"  wall time    median {statistics.median(wall) * 1000:.1f} ms, "
            f"min {wall[0] * 1000:.1f} ms, max {wall[-1] * 1000:.1f} ms ({len(wall)} runs)",
            f"  CPU time     median {statistics.median(self.cpu) * 1000:.1f} ms (user + system)",
            f"  peak memory  median {statistics.median(self.memory):.1f} MB, "
            f"max {max(self.memory):.1f} MB",
        ]


def run_once(command: list[str], environ: dict[str, str]) -> tuple[float, float, float]:
    """Seconds of wall time and of CPU time, and peak resident memory in MB, of one run."""
    started = time.perf_counter()
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=environ
    )
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        assert process.stderr is not None
        sys.exit(f"{' '.join(command)} failed: {process.stderr.read().decode()}")
    assert process.stderr is not None
    process.stderr.close()
    # ru_maxrss is in KB on Linux
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def environment(source: str | None, bytecode: str | None) -> dict[str, str]:
    """This environment, with ``source`` first on PYTHONPATH if given, and bytecode kept in
    the directory ``bytecode`` (or never written, with ``None``)."""
    environ = dict(os.environ)
    if source is not None:
        rest = environ.get("PYTHONPATH")
        environ["PYTHONPATH"] = os.pathsep.join([source, *([rest] if rest else [])])
    if bytecode is None:
        environ["PYTHONDONTWRITEBYTECODE"] = "1"
        environ.pop("PYTHONPYCACHEPREFIX", None)
    else:
        environ.pop("PYTHONDONTWRITEBYTECODE", None)
        environ["PYTHONPYCACHEPREFIX"] = bytecode
    return environ


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--board", default="LINES/TQARD/HEMOP/ABCKI/PSTEW")
    parser.add_argument("--runs", type=int, default=20, help="timed runs (default 20)")
    parser.add_argument(
        "--no-bytecode-cache",
        action="store_true",
        help="compile every module on every run (PYTHONDONTWRITEBYTECODE=1)",
    )
    parser.add_argument(
        "--against",
        metavar="SRC",
        help="also time SRC (another checkout's src directory), interleaved",
    )
    parser.add_argument("extra", nargs="*", help="more arguments for 'bigboggle solve'")
    args = parser.parse_args()

    executable = shutil.which("bigboggle")
    if executable is None:
        sys.exit("bigboggle is not on PATH; pip install -e . first")
    command = [executable, "solve", args.board, "--json", *args.extra]
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as scratch:
        sources: list[tuple[str, str | None]] = [("this environment", None)]
        if args.against is not None:
            sources.insert(0, (f"--against {args.against}", os.path.abspath(args.against)))
        ways = [
            Runs(
                label,
                environment(
                    source, None if args.no_bytecode_cache else os.path.join(scratch, str(number))
                ),
            )
            for number, (label, source) in enumerate(sources)
        ]
        for way in ways:  # warm the dictionary cache, then (twice) the bytecode cache
            for _ in range(3):
                run_once(command, way.environ)
        for round_number in range(args.runs):
            for way in ways if round_number % 2 == 0 else ways[::-1]:
                wall, cpu, memory = run_once(command, way.environ)
                way.wall.append(wall)
                way.cpu.append(cpu)
                way.memory.append(memory)
    print(f"command      {' '.join(['bigboggle', *command[1:]])}")
    cached = "compiled on every run" if args.no_bytecode_cache else "cached (as installed)"
    print(f"bytecode     {cached}")
    for way in ways:
        print("\n".join(way.report()))
    if len(ways) == 2:
        ratio = statistics.median(ways[1].wall) / statistics.median(ways[0].wall)
        cpu_ratio = statistics.median(ways[1].cpu) / statistics.median(ways[0].cpu)
        print(f"this / against  wall {ratio:.3f}, CPU {cpu_ratio:.3f}")


if __name__ == "__main__":
    main()

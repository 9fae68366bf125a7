"""Dictionary benchmark: a first build and a cached load of ENABLE2K, each in a fresh process.

"First build" is what a program pays the first time it meets a word list: read the file,
read its entries, build the packed trie the compiled core walks and write the cache entry
(``Dictionary.from_file(path).packed_trie`` into an empty cache). "Cached load" is every
later start: ``Dictionary.from_file(path)`` with the entry in place. Each run is a new Python
process (a warm heap would hide the page faults a real start pays), timed in that process's
per-thread CPU time; the figures are medians of ``--repeat`` runs. With ``--against SRC``
(another checkout's ``src``) the two are run in alternation, so the machine's noise falls on
both alike. Run from the checkout::

    python benchmarks/bench_dictionary.py
    python benchmarks/bench_dictionary.py --against ../main/src --repeat 7

ENABLE2K is looked for at ../shared/wordlists/enable2k.txt (or $BIGBOGGLE_ENABLE2K).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Run in the child: argv is (mode, word list, cache directory); prints milliseconds.
CHILD = """
import os, sys, time
mode, path, cache = sys.argv[1:4]
os.environ["BIGBOGGLE_CACHE_DIR"] = cache
from bigboggle.dictionary import Dictionary
if mode == "cached":
    Dictionary.from_file(path).packed_trie  # makes sure the entry is there
start = time.thread_time()
words = Dictionary.from_file(path)
if mode == "build":
    words.packed_trie
print(1000 * (time.thread_time() - start))
"""


def enable2k() -> Path:
    """The ENABLE2K word list (public domain; never copied into the project)."""
    default = ROOT.parent / "shared" / "wordlists" / "enable2k.txt"
    return Path(os.environ.get("BIGBOGGLE_ENABLE2K", default))


def run(src: Path, mode: str, path: Path, cache: Path) -> float:
    """Milliseconds of one first build or cached load, in a fresh process importing ``src``."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    done = subprocess.run(
        [sys.executable, "-c", CHILD, mode, str(path), str(cache)],
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode:
        sys.exit(f"the benchmark's child failed ({src}):\n{done.stderr[-2000:]}")
    return float(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="runs of each (default 5)")
    parser.add_argument("--against", type=Path, help="another checkout's src, run alternately")
    parser.add_argument("--words", type=Path, default=None, help="a word list (default ENABLE2K)")
    args = parser.parse_args()
    path = args.words or enable2k()
    if not path.is_file():
        sys.exit(f"word list not found at {path} (set BIGBOGGLE_ENABLE2K or pass --words)")
    sources = {"this checkout": ROOT / "src"}
    if args.against:
        sources[str(args.against)] = args.against.resolve()
    figures: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for _ in range(args.repeat):
            for number, (name, src) in enumerate(sources.items()):
                with tempfile.TemporaryDirectory(dir=scratch) as empty:
                    build = run(src, "build", path, Path(empty))
                figures.setdefault((name, "build"), []).append(build)
                cached = run(src, "cached", path, Path(scratch) / f"cache-{number}")
                figures.setdefault((name, "cached"), []).append(cached)
    print(f"== {path.name}: medians of {args.repeat} fresh processes, per-thread CPU time")
    for name in sources:
        build = statistics.median(figures[name, "build"])
        cached = statistics.median(figures[name, "cached"])
        print(f"   {name}: first build {build:6.1f} ms   cached load {cached:5.1f} ms")


if __name__ == "__main__":
    main()

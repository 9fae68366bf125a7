"""How a solo game's submit costs as its list grows: 2,000 words into one game on SQLite.

Each submit is judged by the round engine against the stored list (one indexed lookup for
"repeated") and stored with its verdict and the game's running score, so word 2,000 should
cost what word 1 costs (before, every word rebuilt the game from all its rows: 485 ms at word
1,000). Prints the median submit time over words 1-100 and 1,901-2,000. Run from the checkout::

    python benchmarks/bench_solo.py
    python benchmarks/bench_solo.py --words 2000 --db sqlite:////tmp/solo.sqlite3
"""

from __future__ import annotations

import argparse
import itertools
import random
import statistics
import string
import tempfile
import time
from pathlib import Path

from bigboggle import Rules, solve
from bigboggle.limits import MAX_LIST_LENGTH
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import Store

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


class Clock:
    """Time that stands still inside the game's three minutes (the benchmark is not timed by
    the game's clock)."""

    def __init__(self) -> None:
        self.now = 1_790_000_000.0

    def __call__(self) -> float:
        return self.now


def entries(count: int) -> list[str]:
    """The board's words and distinct made-up entries (not on the board), ``count`` in all,
    shuffled: every one is stored, none is a repeat."""
    words = [
        found.word for found in solve(BOARD, DictionaryShelf().get("standard"), Rules.preset("big"))
    ]
    made_up = (
        "".join(letters)
        for letters in itertools.product("zxqjvk", string.ascii_lowercase, "kwy", "fghm")
    )
    chosen = list(itertools.islice(itertools.chain(words, made_up), count))
    random.Random(0).shuffle(chosen)  # the same mix of kinds at the start and at the end
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--words", type=int, default=MAX_LIST_LENGTH)
    parser.add_argument("--db", help="database URL (default: a new SQLite file)")
    args = parser.parse_args()
    url = args.db or f"sqlite:///{Path(tempfile.mkdtemp(prefix='bench-solo-')) / 'solo.sqlite3'}"
    games = SoloGames(Store(url), DictionaryShelf(), Clock())
    warm_up = games.start("big", board=BOARD)  # the dictionary, the database file, the caches
    for entry in entries(50):
        games.submit(warm_up.game.id, entry, warm_up.key)
    started = games.start("big", board=BOARD)
    timings: list[float] = []
    for entry in entries(args.words):
        begin = time.perf_counter()
        games.submit(started.game.id, entry, started.key)
        timings.append(time.perf_counter() - begin)
    first, last = timings[:100], timings[-100:]
    print(f"{len(timings)} words into one game on {Store(url).shown_url}")
    print(f"median submit, words 1-100:       {statistics.median(first) * 1000:.2f} ms")
    print(
        f"median submit, words {len(timings) - 99}-{len(timings)}: "
        f"{statistics.median(last) * 1000:.2f} ms"
    )
    view = games.get(started.game.id, started.key)
    assert len(view.words) == len(timings), "every word was stored"


if __name__ == "__main__":
    main()

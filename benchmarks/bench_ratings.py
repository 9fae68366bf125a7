"""Benchmark of the ratings: the update alone (OpenSkill's own against the linear evaluation
``bigboggle.rating`` uses past ``RATING_FULL_FIELD``), and a whole daily board rated in the
database (claim, read, update, history rows, one transaction). Run from the checkout::

    python benchmarks/bench_ratings.py                       # SQLite in a temporary folder
    python benchmarks/bench_ratings.py --db postgresql://…   # a PostgreSQL database of its own
    python benchmarks/bench_ratings.py --field 10000 --openskill-up-to 2000

The database benchmark writes accounts, ratings and rating events: give it a database made for
it, never one that matters.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import select

from bigboggle import rating
from bigboggle.rating import Entrant, ranks_of
from bigboggle.services.ratings import Ratings
from bigboggle.services.store import AccountRow, Store


def time_update(field: int, openskill: bool, runs: int) -> float:
    """The median seconds of one update of ``field`` single-member sides (random ratings)."""
    rng = random.Random(field)
    teams = [[(rng.uniform(10, 40), rng.uniform(1, 8))] for _ in range(field)]
    ranks = ranks_of([Entrant((i,), rng.randint(0, 300)) for i in range(field)])
    update = rating._rate_with_openskill if openskill else rating._rate_by_prefix_sums
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        update(teams, ranks)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def time_board(url: str, field: int, boards: int) -> list[float]:
    """Seconds to rate each of ``boards`` daily boards of ``field`` members in the database at
    ``url`` (the first board makes everyone's rating row; the next ones update them)."""
    store = Store(url)
    with store.session() as session:
        session.add_all(
            AccountRow(username=f"b{i}", name_key=f"bench{i}", password_hash=None, created_at=0.0)
            for i in range(field)
        )
    with store.session() as session:
        ids = list(session.scalars(select(AccountRow.id).where(AccountRow.created_at == 0.0)))
    ratings, rng, times = Ratings(store), random.Random(1), []
    for board in range(boards):
        entrants = [Entrant((account,), rng.randint(0, 300)) for account in ids[:field]]
        started = time.perf_counter()
        ratings.rate_contest(f"bench:{board}:{time.time()}", "5x5", 0.0, entrants)
        times.append(time.perf_counter() - started)
    store.engine.dispose()
    return times


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--field", type=int, default=10_000, help="members of the daily board")
    parser.add_argument("--boards", type=int, default=3, help="boards rated in the database")
    parser.add_argument(
        "--openskill-up-to",
        type=int,
        default=1_000,
        help="largest field timed with OpenSkill's own update",
    )
    parser.add_argument("--db", help="database URL (default: a new SQLite file)")
    args = parser.parse_args()

    print("update alone (median seconds):")
    for field in (12, 64, 300, 1_000, 3_000, 10_000):
        fast = time_update(field, openskill=False, runs=5)
        full = time_update(field, True, 1) if field <= args.openskill_up_to else float("nan")
        print(f"  {field:>6} sides: linear {fast:.4f}  OpenSkill {full:.4f}")
    with tempfile.TemporaryDirectory() as folder:
        url = args.db or f"sqlite:///{Path(folder) / 'bench.sqlite3'}"
        times = time_board(url, args.field, args.boards)
    print(
        f"daily board of {args.field:,} members in the database: "
        + ", ".join(f"{t:.2f} s" for t in times)
    )


if __name__ == "__main__":
    main()

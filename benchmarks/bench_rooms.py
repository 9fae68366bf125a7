"""Load test of multiplayer rooms on loopback: many rooms, several players each, one round.

Starts ``bigboggle serve`` (a throw-away SQLite database unless ``--db``; ``--redis`` and
``--workers`` for several processes), opens a WebSocket per player, plays one round in every
room with each player submitting a word every ``--pace`` seconds on average (a mix of the
board's words and junk), then waits for everyone's results and counts the stored words in the
database against the words the server acknowledged. Run from the checkout::

    python benchmarks/bench_rooms.py
    python benchmarks/bench_rooms.py --rooms 100 --players 4 --seconds 20 --pace 0.3
    python benchmarks/bench_rooms.py --db postgresql+psycopg://u:p@localhost/db \\
        --redis redis://localhost:6379/0 --workers 2
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bigboggle import Dictionary
from live_server import LiveServer
from room_load import LOAD_LIMITS, run_load


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--rooms", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=15, help="the round's timer")
    parser.add_argument("--pace", type=float, default=0.25, help="seconds between a player's words")
    parser.add_argument("--db", help="database URL (default: a new SQLite file)")
    parser.add_argument("--redis", help="Redis URL, to share rooms between --workers")
    parser.add_argument("--workers", type=int, default=1)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bigboggle-bench-rooms-"))
    db_url = args.db or f"sqlite:///{folder / 'rooms.sqlite3'}"
    extra = ["--workers", str(args.workers)]
    if args.redis:
        extra += ["--redis", args.redis]
    os.environ.update(LOAD_LIMITS)  # every player comes from loopback: one address
    server = LiveServer(db_url, folder / "server.log", *extra).start()
    try:
        report = asyncio.run(
            run_load(
                server.port,
                db_url,
                rooms=args.rooms,
                players=args.players,
                seconds=args.seconds,
                pace=args.pace,
                words=Dictionary.builtin("standard"),
            )
        )
    finally:
        server.stop()
    print(report.describe())
    if report.errors or report.stored != report.acknowledged:
        sys.exit(1)


if __name__ == "__main__":
    main()

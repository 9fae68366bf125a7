"""The server under attack: an honest player's latency beside each attack, and what it costs.

Starts ``bigboggle serve`` on loopback with a throw-away SQLite database, seats an honest
player in a room of its own (a word every 120 ms, within a socket's message rate, and a ``GET /api/rules`` after each verdict),
measures it idle, then under each attack of ``tests/hostile.py`` in turn (each bounded in count
and time). For each: the honest verdict and page p50/p99, the server's CPU (its process and the
worker pool's) and RSS, and what the attack was answered. Then two costs of their own: 1,000
idle rooms with a socket each (CPU over 10 s), and RSS before and after N played solo games.
Finally every word the honest player was acknowledged is looked for in the database.

The attack and the honest player share this machine's two cores with the server, so latencies
under CPU-heavy attacks are a ceiling. Run from the checkout::

    python benchmarks/bench_hostile.py                     # every attack, 10 s each
    python benchmarks/bench_hostile.py --seconds 5 --only "ping flood" "slow bodies"
    python benchmarks/bench_hostile.py --rounds 10000 --idle-rooms 1000
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from sqlalchemy import create_engine, func, select

from bigboggle import Dictionary
from bigboggle.store import RoomRoundRow, RoomWordRow
from hostile import (
    ATTACKS,
    HonestPlayer,
    Outcome,
    cpu_seconds,
    idle_rooms,
    post_json,
    rss_mb,
)
from live_server import LiveServer

#: Attacks come from one address; the per-address limits would stop the benchmark's own set-up
#: (1,000 rooms), so they are raised here. Their refusals are shown by the test suite.
GENEROUS = {
    "BIGBOGGLE_LIMIT_ROOMS_PER_ADDRESS_HOUR": "100000",
    "BIGBOGGLE_LIMIT_JOINS_PER_ADDRESS_MINUTE": "100000",
    "BIGBOGGLE_LIMIT_SOCKETS_PER_ADDRESS": "5000",
    "BIGBOGGLE_LIMIT_BODY_TIMEOUT": "5",
}


async def play_rounds(port: int, count: int) -> None:
    """``count`` solo games: start, one word, finish (each a scored round)."""

    async def one(n: int) -> None:
        made = (await post_json(port, "/api/games", {"player": f"p{n % 50}"})).json()
        key = {"X-Game-Key": made["key"]}
        await post_json(port, f"/api/games/{made['id']}/words", {"word": "lines"}, headers=key)
        await post_json(port, f"/api/games/{made['id']}/finish", {}, headers=key)

    for start in range(0, count, 8):
        await asyncio.gather(*(one(n) for n in range(start, min(count, start + 8))))


async def run(args: argparse.Namespace, server: LiveServer, db_url: str) -> None:
    assert server.process is not None
    pid = server.process.pid
    honest = HonestPlayer(server.port, Dictionary.builtin("standard"))
    await honest.start()
    await honest.measure(2)  # warm-up: dictionaries loaded, pool started
    honest.reset()
    await honest.measure(args.seconds)
    idle_verdicts, idle_pages = honest.verdicts, honest.pages
    print(
        "| attack | honest verdict p50/p99 ms | honest page p50/p99 ms | server CPU | RSS MB | answered |"
    )
    print("|---|---|---|---|---|---|")
    print(
        f"| (idle) | {idle_verdicts.percentile(50):.1f} / {idle_verdicts.percentile(99):.1f} | "
        f"{idle_pages.percentile(50):.1f} / {idle_pages.percentile(99):.1f} | | "
        f"{rss_mb(pid):.0f} | |"
    )
    worst = 0.0
    for name, attack in ATTACKS.items():
        if args.only and name not in args.only:
            continue
        honest.reset()
        outcome = Outcome(name)
        cpu_before, started = cpu_seconds(pid), time.perf_counter()
        await asyncio.gather(
            attack(server.port, args.seconds, outcome), honest.measure(args.seconds)
        )
        elapsed = time.perf_counter() - started
        cpu = (cpu_seconds(pid) - cpu_before) / elapsed
        worst = max(worst, honest.verdicts.percentile(99), honest.pages.percentile(99))
        failures = honest.verdicts.failures + honest.pages.failures
        print(
            f"| {name} | {honest.verdicts.percentile(50):.1f} / "
            f"{honest.verdicts.percentile(99):.1f} | {honest.pages.percentile(50):.1f} / "
            f"{honest.pages.percentile(99):.1f} | {100 * cpu:.0f}% | "
            f"{rss_mb(pid, tree=True):.0f} | {outcome.describe()}"
            + (f"; HONEST FAILURES {failures[:2]}" if failures else "")
            + " |",
            flush=True,
        )
    await honest.stop()
    print(
        f"\nworst honest p99 under attack: {worst:.1f} ms (idle p99 verdict "
        f"{idle_verdicts.percentile(99):.1f}, page {idle_pages.percentile(99):.1f})"
    )

    if args.idle_rooms:
        outcome = Outcome("idle rooms")
        task = asyncio.create_task(
            idle_rooms(server.port, args.seconds + 60, outcome, args.idle_rooms)
        )
        while "ready" not in outcome.notes and not task.done():
            await asyncio.sleep(0.2)
        await asyncio.sleep(2)  # let the joins' own work settle
        cpu_before, started = cpu_seconds(pid), time.perf_counter()
        await asyncio.sleep(10)
        cpu = (cpu_seconds(pid) - cpu_before) / (time.perf_counter() - started)
        print(
            f"{args.idle_rooms} idle rooms with a socket each: server CPU {100 * cpu:.1f}% "
            f"of a core over 10 s; RSS {rss_mb(pid):.0f} MB"
        )
        task.cancel()
        with __import__("contextlib").suppress(asyncio.CancelledError):
            await task

    if args.rounds:
        await play_rounds(server.port, min(500, args.rounds))  # warm-up
        before = rss_mb(pid)
        started = time.perf_counter()
        await play_rounds(server.port, args.rounds)
        after = rss_mb(pid)
        print(
            f"{args.rounds} solo rounds in {time.perf_counter() - started:.0f} s: RSS "
            f"{before:.0f} -> {after:.0f} MB ({100 * (after - before) / before:+.1f}%)"
        )

    engine = create_engine(db_url)
    with engine.connect() as connection:
        stored = connection.scalar(
            select(func.count())
            .select_from(RoomWordRow)
            .join(RoomRoundRow, RoomRoundRow.id == RoomWordRow.round_id)
            .where(RoomRoundRow.room == honest.room["room"])
        )
    engine.dispose()
    print(f"honest words acknowledged: {honest.acknowledged}; in the database: {stored}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=10.0, help="per attack (default 10)")
    parser.add_argument("--only", nargs="*", help="attack names (see tests/hostile.py)")
    parser.add_argument("--idle-rooms", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=10_000, help="solo rounds for the RSS check")
    args = parser.parse_args()
    os.environ.update(GENEROUS)
    with tempfile.TemporaryDirectory() as folder:
        db_url = f"sqlite:///{folder}/hostile.sqlite3"
        server = LiveServer(db_url, Path(folder) / "server.log").start()
        try:
            asyncio.run(run(args, server, db_url))
        finally:
            server.stop()
            log = (Path(folder) / "server.log").read_text()
            errors = [line for line in log.splitlines() if " 500 " in line or "Traceback" in line]
            print(
                f"server log: {len(log.splitlines())} lines, {len(errors)} with a 500 or a traceback"
            )


if __name__ == "__main__":
    main()

"""The server under attack: an honest player's latency beside each attack, and what it costs.

Starts ``bigboggle serve`` on loopback with a throw-away SQLite database, seats an honest
player in a room of its own (a word every 120 ms, within a socket's message rate, and a ``GET /api/rules`` after each verdict),
measures it idle, then under each attack of ``tests/hostile.py`` in turn (each bounded in count
and time). For each: the honest verdict and page p50/p99, the server's CPU (its process and the
worker pool's) and RSS, and what the attack was answered. Then two costs of their own: 1,000
idle rooms with a socket each (CPU over 10 s), and RSS before and after N played solo games.
Finally every word the honest player was acknowledged is looked for in the database. The honest
player runs in a process of its own, so that the attacks' client-side work does not delay it.

The attack and the honest player share this machine's two cores with the server, so latencies
under CPU-heavy attacks are a ceiling. Run from the checkout::

    python benchmarks/bench_hostile.py                     # every attack, 10 s each
    python benchmarks/bench_hostile.py --seconds 5 --only "ping flood" "slow bodies"
    python benchmarks/bench_hostile.py --rounds 10000 --idle-rooms 1000
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from sqlalchemy import create_engine, func, select

from bigboggle import Dictionary
from bigboggle.services.store import RoomRoundRow, RoomWordRow
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


class HonestProcess:
    """The honest player in a process of its own: an attack's CPU work on the client side (a
    16 MiB frame to mask, 1 MB bodies to build) must not delay the honest player's own loop, or
    the benchmark would measure the attacker instead of the server."""

    def __init__(self, port: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.pipe, theirs = context.Pipe()
        self.process = context.Process(target=_honest_main, args=(port, theirs), daemon=True)
        self.process.start()
        self.room: str = self.pipe.recv()

    def measure(self, seconds: float) -> dict[str, Any]:
        """Start measuring for ``seconds``; :meth:`result` waits for the figures."""
        self.pipe.send(seconds)
        return {}

    def result(self) -> dict[str, Any]:
        found: dict[str, Any] = self.pipe.recv()
        return found

    def stop(self) -> int:
        """End the honest player; how many of its words were acknowledged."""
        self.pipe.send(None)
        acknowledged: int = self.pipe.recv()
        self.process.join(10)
        return acknowledged


def _honest_main(port: int, pipe: Any) -> None:
    async def serve() -> None:
        honest = HonestPlayer(port, Dictionary.builtin("standard"))
        await honest.start()
        pipe.send(honest.room["room"])
        loop = asyncio.get_running_loop()
        while True:
            seconds = await loop.run_in_executor(None, pipe.recv)
            if seconds is None:
                break
            honest.reset()
            await honest.measure(seconds)
            pipe.send(
                {
                    "verdict p50": honest.verdicts.percentile(50),
                    "verdict p99": honest.verdicts.percentile(99),
                    "page p50": honest.pages.percentile(50),
                    "page p99": honest.pages.percentile(99),
                    "samples": len(honest.verdicts.values),
                    "failures": (honest.verdicts.failures + honest.pages.failures)[:2],
                }
            )
        await honest.stop()
        pipe.send(honest.acknowledged)

    asyncio.run(serve())


def _row(name: str, figures: dict[str, Any], cpu: str, rss: str, answered: str) -> str:
    failures = figures["failures"]
    return (
        f"| {name} | {figures['verdict p50']:.1f} / {figures['verdict p99']:.1f} | "
        f"{figures['page p50']:.1f} / {figures['page p99']:.1f} | {cpu} | {rss} | {answered}"
        + (f"; HONEST FAILURES {failures}" if failures else "")
        + " |"
    )


async def run(args: argparse.Namespace, server: LiveServer, db_url: str) -> None:
    assert server.process is not None
    pid = server.process.pid
    honest = await asyncio.to_thread(HonestProcess, server.port)
    honest.measure(2)  # warm-up: dictionaries loaded, pool started
    await asyncio.to_thread(honest.result)
    honest.measure(args.seconds)
    idle = await asyncio.to_thread(honest.result)
    print(
        "| attack | honest verdict p50/p99 ms | honest page p50/p99 ms | server CPU | RSS MB | answered |"
    )
    print("|---|---|---|---|---|---|")
    print(_row("(idle)", idle, "", f"{rss_mb(pid, tree=True):.0f}", ""), flush=True)
    worst = 0.0
    for name, attack in ATTACKS.items():
        if args.only and name not in args.only:
            continue
        outcome = Outcome(name)
        cpu_before, started = cpu_seconds(pid), time.perf_counter()
        honest.measure(args.seconds)
        await attack(server.port, args.seconds, outcome)
        figures = await asyncio.to_thread(honest.result)
        elapsed = time.perf_counter() - started
        cpu = (cpu_seconds(pid) - cpu_before) / elapsed
        worst = max(worst, figures["verdict p99"], figures["page p99"])
        rss = f"{rss_mb(pid, tree=True):.0f}"
        print(_row(name, figures, f"{100 * cpu:.0f}%", rss, outcome.describe()), flush=True)
    acknowledged = await asyncio.to_thread(honest.stop)
    print(
        f"\nworst honest p99 under attack: {worst:.1f} ms (idle p99: verdict "
        f"{idle['verdict p99']:.1f}, page {idle['page p99']:.1f})"
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
        with contextlib.suppress(asyncio.CancelledError):
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
            .where(RoomRoundRow.room == honest.room)
        )
    engine.dispose()
    print(f"honest words acknowledged: {acknowledged}; in the database: {stored}")


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

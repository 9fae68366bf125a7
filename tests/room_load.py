"""A load of multiplayer rooms on a real server: many rooms, several players each, everyone
submitting words for a round; then every acknowledged word is counted in the database.

Used by ``tests/test_web_load.py`` (small and bounded) and ``benchmarks/bench_rooms.py``.
"""

from __future__ import annotations

import asyncio
import json
import random
import statistics
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import create_engine, func, select
from websockets.asyncio.client import ClientConnection, connect

from bigboggle import Dictionary, Rules, solve
from bigboggle.services.store import RoomRoundRow, RoomWordRow

#: The whole load comes from one address (loopback), which the per-address limits are made to
#: stop: a server under this load runs with these in its environment (``BIGBOGGLE_LIMIT_*``).
LOAD_LIMITS = {
    "BIGBOGGLE_LIMIT_ROOMS_PER_ADDRESS_HOUR": "100000",
    "BIGBOGGLE_LIMIT_JOINS_PER_ADDRESS_MINUTE": "100000",
    "BIGBOGGLE_LIMIT_SOCKETS_PER_ADDRESS": "100000",
}


@dataclass
class LoadReport:
    rooms: int
    players: int
    seconds: float
    sent: int = 0
    received: int = 0
    latencies: list[float] = field(default_factory=list)
    acknowledged: int = 0
    #: Words refused because they arrived after the deadline (sent just before it, under load).
    late: int = 0
    stored: int = 0
    errors: list[str] = field(default_factory=list)
    results_seen: int = 0

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        return 1000 * ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def describe(self) -> str:
        return "\n".join(
            [
                f"{self.rooms} rooms x {self.players} players, a {self.seconds:.0f} s round",
                f"messages: {self.sent:,} sent, {self.received:,} received, "
                f"{(self.sent + self.received) / self.seconds:,.0f}/s during the round",
                f"verdicts: {len(self.latencies):,}, {len(self.latencies) / self.seconds:,.0f}/s; "
                f"latency ms p50 {self.percentile(50):.1f}  p99 {self.percentile(99):.1f}  "
                f"max {1000 * max(self.latencies):.1f}  mean "
                f"{1000 * statistics.fmean(self.latencies):.1f}",
                f"words acknowledged and stored: {self.acknowledged:,}; in the database: "
                f"{self.stored:,}; lost: {self.acknowledged - self.stored}; refused as late "
                f"(sent before the deadline, arrived after): {self.late}",
                f"results received: {self.results_seen} of {self.rooms * self.players}; "
                f"errors: {len(self.errors)}"
                + (f" (first: {self.errors[0]})" if self.errors else ""),
            ]
        )


class Client:
    """One player's connection: requests matched to their answers by id."""

    def __init__(self, socket: ClientConnection, report: LoadReport) -> None:
        self.socket = socket
        self.report = report
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 0
        self.results = asyncio.Event()
        self.reader = asyncio.create_task(self.read())

    async def read(self) -> None:
        async for raw in self.socket:
            self.report.received += 1
            message = json.loads(raw)
            if message["type"] == "results":
                self.results.set()
            future = self.waiting.pop(message.get("re") or -1, None)
            if future is not None and not future.done():
                future.set_result(message)

    async def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[self.next_id] = future
        await self.socket.send(json.dumps({**message, "id": self.next_id}))
        self.report.sent += 1
        return await asyncio.wait_for(future, 30)


def _post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as answer:
        data: dict[str, Any] = json.loads(answer.read())
        return data


async def _room(
    port: int, players: int, seconds: int, pace: float, words: Dictionary, report: LoadReport
) -> None:
    base = f"http://127.0.0.1:{port}"
    room = await asyncio.to_thread(
        _post, base, "/api/rooms", {"host": "p0", "settings": {"timer": seconds}}
    )
    url = f"ws://127.0.0.1:{port}/ws"
    sockets = [await connect(url, max_size=2**22) for _ in range(players)]
    clients = [Client(socket, report) for socket in sockets]
    try:
        await clients[0].ask({"type": "join", "token": room["token"]})
        for n, client in enumerate(clients[1:], start=1):
            await client.ask({"type": "join", "room": room["room"], "name": f"p{n}"})
        started = (await clients[0].ask({"type": "start"}))["state"]
        round_ = started["round"]
        offset = started["now"] - time.time()
        found = [f.word for f in solve(round_["board"], words, Rules.preset("big"))]

        async def play(client: Client, seed: int) -> None:
            rng = random.Random(seed)
            entries = found + [f"zz{n}q" for n in range(len(found) // 3 + 5)]
            rng.shuffle(entries)
            await asyncio.sleep(max(0.0, round_["starts_at"] - (time.time() + offset)) + 0.05)
            for entry in entries:
                if time.time() + offset > round_["deadline"] - 0.3:
                    break
                sent = time.perf_counter()
                reply = await client.ask({"type": "submit", "word": entry})
                report.latencies.append(time.perf_counter() - sent)
                if reply["type"] == "error" and "time is up" in reply["message"]:
                    report.late += 1
                elif reply["type"] != "verdict":
                    report.errors.append(json.dumps(reply)[:200])
                elif reply["result"]["verdict"] != "repeated":
                    report.acknowledged += 1
                await asyncio.sleep(pace * rng.uniform(0.5, 1.5))

        await asyncio.gather(*(play(c, n) for n, c in enumerate(clients)))
        for client in clients:
            await asyncio.wait_for(client.results.wait(), seconds + 30)
            report.results_seen += 1
    finally:
        for client in clients:
            await client.socket.close()
            client.reader.cancel()


async def run_load(
    port: int,
    db_url: str,
    *,
    rooms: int,
    players: int,
    seconds: int,
    pace: float,
    words: Dictionary,
) -> LoadReport:
    """Play one round in each of ``rooms`` rooms of ``players`` players on the server at
    ``port``, each player submitting a word every ``pace`` seconds (on average); then count the
    rooms' words in the database at ``db_url``."""
    report = LoadReport(rooms, players, float(seconds))
    await asyncio.gather(
        *(_room(port, players, seconds, pace, words, report) for _ in range(rooms))
    )
    engine = create_engine(db_url)
    with engine.connect() as connection:
        report.stored = (
            connection.scalar(
                select(func.count())
                .select_from(RoomWordRow)
                .join(RoomRoundRow, RoomRoundRow.id == RoomWordRow.round_id)
            )
            or 0
        )
    engine.dispose()
    return report

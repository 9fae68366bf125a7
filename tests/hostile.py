"""Attacks on a real ``bigboggle serve`` on loopback, and an honest player measured beside them.

Used by ``tests/test_hostile.py`` (small counts, asserting the refusals and the caps) and by
``benchmarks/bench_hostile.py`` (larger counts, measuring the honest player's latency and the
server's CPU and memory). Every attack is bounded in count and in time, sends traffic only to
127.0.0.1, and stops by itself.

The HTTP side speaks HTTP/1.1 over asyncio streams itself: attacks need to send what no
well-behaved client library would (a body shorter than its Content-Length, 8 MB of headers).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import statistics
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from bigboggle import Dictionary, Rules, solve

HOST = "127.0.0.1"


# -- HTTP over raw streams -----------------------------------------------------------------------


@dataclass
class Answer:
    """An HTTP answer: the status (0 when the server closed without one), headers, body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


async def _read_answer(reader: asyncio.StreamReader) -> Answer:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, ConnectionError):
        return Answer(0, {}, b"")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if ":" in line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if "content-length" in headers:
        body = await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding") == "chunked":
        body = b""
        while True:
            size = int((await reader.readline()).strip(), 16)
            if size == 0:
                await reader.readline()
                break
            body += await reader.readexactly(size)
            await reader.readline()
    else:
        body = await reader.read()
    return Answer(status, headers, body)


async def request(
    port: int,
    method: str,
    path: str,
    body: bytes | None = None,
    *,
    headers: dict[str, str] | None = None,
    timeout: float = 60.0,
) -> Answer:
    """One request on a fresh connection. The answer is read while the body is still being
    sent, as an HTTP client does: a server may answer early (413 for a body over its limit)
    and close without reading the rest, and an answer read only after the whole body was
    written could be lost to the connection's reset (a loaded CI machine saw that)."""
    reader, writer = await asyncio.open_connection(HOST, port)
    answer = asyncio.ensure_future(_read_answer(reader))
    try:
        sent = {"Host": "bench", "Connection": "close", **(headers or {})}
        if body is not None:
            sent.setdefault("Content-Type", "application/json")
            sent["Content-Length"] = str(len(body))
        head = f"{method} {path} HTTP/1.1\r\n" + "".join(f"{k}: {v}\r\n" for k, v in sent.items())
        writer.write(head.encode("latin-1") + b"\r\n" + (body or b""))
        with contextlib.suppress(ConnectionError):  # answered and closed before reading it all
            await writer.drain()
        return await asyncio.wait_for(answer, timeout)
    except ConnectionError:
        return Answer(0, {}, b"")
    finally:
        answer.cancel()
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def post_json(port: int, path: str, data: Any, **kwargs: Any) -> Answer:
    return await request(port, "POST", path, json.dumps(data).encode(), **kwargs)


# -- what a server process costs -----------------------------------------------------------------


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (the worker pool's processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def cpu_seconds(pid: int) -> float:
    """CPU time (user + system) used so far by ``pid`` and its descendants."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for one in _tree(pid):
        try:
            fields = Path(f"/proc/{one}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(fields[11]) + int(fields[12])) / ticks
    return total


def rss_mb(pid: int, *, tree: bool = False) -> float:
    """Resident memory of ``pid`` (and, with ``tree``, its descendants) in MB."""
    total = 0
    for one in _tree(pid) if tree else [pid]:
        try:
            for line in Path(f"/proc/{one}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


# -- the honest player ---------------------------------------------------------------------------


@dataclass
class Latencies:
    """Round-trip times in seconds."""

    values: list[float] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    def percentile(self, p: float) -> float:
        if not self.values:
            return float("nan")
        ordered = sorted(self.values)
        return 1000 * ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def summary(self) -> str:
        return f"p50 {self.percentile(50):.1f} / p99 {self.percentile(99):.1f} ms"


class Player:
    """A WebSocket client that matches answers to requests by id."""

    def __init__(self, socket: ClientConnection) -> None:
        self.socket = socket
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.next_id = 0
        self.events: list[dict[str, Any]] = []
        self.reader = asyncio.create_task(self._read())

    @classmethod
    async def connect(cls, port: int, *, flow_control: bool = True) -> Player:
        """A connection to the server's WebSocket. Without ``flow_control`` the client library
        keeps taking frames off the socket however many wait unread (``max_queue=None``)."""
        queue: int | None = 16 if flow_control else None
        return cls(
            await connect(
                f"ws://{HOST}:{port}/ws", max_size=2**22, open_timeout=30, max_queue=queue
            )
        )

    async def _read(self) -> None:
        with contextlib.suppress(ConnectionClosed):
            async for raw in self.socket:
                message = json.loads(raw)
                future = self.waiting.pop(message.get("re") or -1, None)
                if future is not None and not future.done():
                    future.set_result(message)
                else:
                    self.events.append(message)
                    del self.events[:-50]

    async def ask(self, message: dict[str, Any], timeout: float = 30) -> dict[str, Any]:
        self.next_id += 1
        number = self.next_id
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.waiting[number] = future
        await self.socket.send(json.dumps({**message, "id": number}))
        try:
            return await asyncio.wait_for(future, timeout)
        finally:
            self.waiting.pop(number, None)

    async def close(self) -> None:
        self.reader.cancel()
        with contextlib.suppress(Exception):
            await self.socket.close()


async def new_room(port: int, host: str, settings: dict[str, Any] | None = None) -> dict[str, Any]:
    answer = await post_json(port, "/api/rooms", {"host": host, "settings": settings or {}})
    if answer.status != 201:
        raise RuntimeError(f"room not created: {answer.status} {answer.body[:200]!r}")
    data: dict[str, Any] = answer.json()
    return data


class HonestPlayer:
    """Plays a room of its own (rounds of the longest timer, restarted as they end) and keeps
    timing its words' verdicts and a page load, while attacks run elsewhere."""

    def __init__(self, port: int, words: Dictionary) -> None:
        self.port = port
        self.words = words
        self.verdicts = Latencies()
        self.pages = Latencies()
        self.acknowledged = 0
        self.room: dict[str, Any] = {}
        self.player: Player | None = None
        self._found: list[str] = []
        self._next = 0

    async def start(self) -> None:
        self.room = await new_room(self.port, "honest", {"timer": 3600})
        self.player = await Player.connect(self.port)
        await self.player.ask({"type": "join", "token": self.room["token"]})
        await self._new_round()

    async def _new_round(self) -> None:
        assert self.player is not None
        state = (await self.player.ask({"type": "start"}))["state"]
        board = state["round"]["board"]
        self._found = [f.word for f in solve(board, self.words, Rules.preset("big"))]
        self._found += [f"zz{n}x" for n in range(4000)]  # junk once the real words run out
        self._next = 0
        await asyncio.sleep(max(0.0, state["round"]["starts_at"] - state["now"]) + 0.05)

    async def measure(self, seconds: float, pace: float = 0.12) -> None:
        """Submit a word every ``pace`` seconds and load ``/api/rules`` as often, for ``seconds``
        (the default pace stays within a connection's message rate)."""
        assert self.player is not None
        stop = time.perf_counter() + seconds
        while time.perf_counter() < stop:
            entry = self._found[self._next % len(self._found)]
            self._next += 1
            sent = time.perf_counter()
            try:
                reply = await self.player.ask({"type": "submit", "word": entry})
            except TimeoutError:
                self.verdicts.failures.append("no verdict within 30 s")
                continue
            self.verdicts.values.append(time.perf_counter() - sent)
            if reply["type"] == "verdict":
                if reply["result"]["verdict"] != "repeated":
                    self.acknowledged += 1
            elif "running" in reply.get("message", "") or "time is up" in reply.get("message", ""):
                await self._new_round()
            else:
                self.verdicts.failures.append(json.dumps(reply)[:200])
            sent = time.perf_counter()
            page = await request(self.port, "GET", "/api/rules")
            self.pages.values.append(time.perf_counter() - sent)
            if page.status != 200:
                self.pages.failures.append(f"/api/rules answered {page.status}")
            await asyncio.sleep(pace)

    def reset(self) -> None:
        self.verdicts = Latencies()
        self.pages = Latencies()

    async def stop(self) -> None:
        if self.player is not None:
            await self.player.close()


# -- the attacks ---------------------------------------------------------------------------------


@dataclass
class Outcome:
    """What one attack saw: answers by status (or close code), and notes."""

    name: str
    answers: Counter[str] = field(default_factory=Counter)
    notes: dict[str, Any] = field(default_factory=dict)

    def saw(self, what: str | int) -> None:
        self.answers[str(what)] += 1

    def describe(self) -> str:
        shown = ", ".join(f"{key}×{count}" for key, count in sorted(self.answers.items()))
        extra = "; ".join(f"{k} {v}" for k, v in self.notes.items())
        return shown + (f"; {extra}" if extra else "")


Attack = Callable[[int, float, Outcome], Awaitable[None]]


async def _repeat(
    seconds: float, count: int, concurrency: int, job: Callable[[], Awaitable[None]]
) -> None:
    """Run ``job`` up to ``count`` times, ``concurrency`` at once, for at most ``seconds``."""
    stop = time.perf_counter() + seconds
    remaining = [count]

    async def worker() -> None:
        while remaining[0] > 0 and time.perf_counter() < stop:
            remaining[0] -= 1
            await job()

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def big_board_score(port: int, seconds: float, out: Outcome, count: int = 200) -> None:
    """``POST /api/score`` with a 100,000-character board, and a 1 MB one."""

    async def job() -> None:
        for size in (100_000, 990_000):
            body = {"board": "A" * size, "players": {"ann": ["aaaa"]}}
            answer = await post_json(port, "/api/score", body)
            out.saw(answer.status)

    await _repeat(seconds, count, 4, job)


async def deep_json(port: int, seconds: float, out: Outcome, count: int = 200) -> None:
    """Bodies of 1 MB of nested brackets, and of a million tiny keys."""

    async def job() -> None:
        out.saw((await request(port, "POST", "/api/score", b"[" * 999_000)).status)
        wide = b"{" + b",".join(b'"k%d":0' % n for n in range(120_000)) + b"}"
        out.saw((await request(port, "POST", "/api/solve", wide)).status)

    await _repeat(seconds, count, 2, job)


async def stranger_tournament(port: int, seconds: float, out: Outcome, count: int = 300) -> None:
    """A stranger adds rounds to, renames and deletes someone's tournament, and reads it over
    and over (reading must cost nothing)."""
    made = await post_json(port, "/api/tournaments", {"name": "victim", "target": 50})
    tournament = made.json()
    board = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
    key = tournament.get("key")
    rounds = {"board": board, "players": {"ann": ["lines", "tines"], "bob": ["hemp"]}}
    for _ in range(5):
        await post_json(
            port,
            f"/api/tournaments/{tournament['id']}/rounds",
            rounds,
            headers={"X-Tournament-Key": key or ""},
        )
    win = {"board": board, "players": {"mallory": ["lines", "tines", "hemp"] * 1}}

    async def job() -> None:
        path = f"/api/tournaments/{tournament['id']}"
        out.saw("add:" + str((await post_json(port, path + "/rounds", win)).status))
        wrong = {"X-Tournament-Key": "not-the-key-at-all"}
        out.saw(
            "add-wrong-key:"
            + str((await post_json(port, path + "/rounds", win, headers=wrong)).status)
        )
        out.saw("rename:" + str((await request(port, "PATCH", path, b'{"name":"pwned"}')).status))
        out.saw("delete:" + str((await request(port, "DELETE", path)).status))
        out.saw("read:" + str((await request(port, "GET", path)).status))

    await _repeat(seconds, count, 4, job)
    final = (await request(port, "GET", f"/api/tournaments/{tournament['id']}")).json()
    out.notes["rounds after"] = len(final["played"])
    out.notes["name after"] = final["name"]
    out.notes["winner"] = final["winner"]


async def _joined(
    port: int, name: str, *, flow_control: bool = True
) -> tuple[Player, dict[str, Any]]:
    room = await new_room(port, name)
    player = await Player.connect(port, flow_control=flow_control)
    await player.ask({"type": "join", "token": room["token"]})
    return player, room


async def ping_flood(port: int, seconds: float, out: Outcome, count: int = 20_000) -> None:
    """One joined socket sends pings as fast as it can; it should be cut off (1008).

    The flooder reads none of its messages, but its client library takes every frame off the
    socket (no flow control), as a TCP stack would: with flow control, a client that reads
    nothing stops reading the socket at 16 queued frames, and whether the server's close frame
    had come in before that depended on how the frames were split (a loaded CI machine saw
    the socket "still open")."""
    player, _room = await _joined(port, "flooder", flow_control=False)
    player.reader.cancel()  # read nothing back: a flooder doesn't
    sent = 0
    stop = time.perf_counter() + seconds
    try:
        while sent < count and time.perf_counter() < stop:
            await player.socket.send('{"type":"ping"}')
            sent += 1
            if sent % 200 == 0:
                await asyncio.sleep(0)
        await asyncio.wait_for(player.socket.wait_closed(), 10)
    except (ConnectionClosed, TimeoutError):
        pass
    out.notes["pings sent"] = sent
    code = player.socket.close_code
    out.saw(f"close:{code}" if code is not None else "still open")


async def huge_frames(port: int, seconds: float, out: Outcome, count: int = 20) -> None:
    """Sockets each send one 16 MiB frame."""
    frame = "x" * (16 * 1024 * 1024)

    async def job() -> None:
        try:
            socket = await connect(f"ws://{HOST}:{port}/ws", max_size=2**22, open_timeout=30)
        except Exception as exc:  # refused at the door is fine
            out.saw(f"refused:{type(exc).__name__}")
            return
        try:
            await asyncio.wait_for(socket.send(frame), 30)
            await asyncio.wait_for(socket.recv(), 10)
            out.saw("answered")
        except ConnectionClosed:
            out.saw(f"close:{socket.close_code}")
        except TimeoutError:
            out.saw("timeout")
        finally:
            await socket.close()

    await _repeat(seconds, count, 5, job)


async def socket_swarm(port: int, seconds: float, out: Outcome, count: int = 300) -> None:
    """300 sockets all resuming the same seat with one token."""
    room = await new_room(port, "swarm")
    players: list[Player] = []
    stop = time.perf_counter() + seconds
    try:
        for _ in range(count):
            if time.perf_counter() > stop:
                break
            try:
                player = await Player.connect(port)
            except Exception as exc:
                out.saw(f"refused:{type(exc).__name__}")
                continue
            players.append(player)
            try:
                reply = await player.ask({"type": "join", "token": room["token"]}, timeout=10)
                out.saw(reply["type"] if reply["type"] != "error" else f"error:{reply['code']}")
            except (ConnectionClosed, TimeoutError):
                out.saw(f"close:{player.socket.close_code}")
        await asyncio.sleep(0.5)
        out.notes["still open"] = sum(1 for p in players if p.socket.close_code is None)
    finally:
        await asyncio.gather(*(p.close() for p in players))


async def huge_settings(port: int, seconds: float, out: Outcome, count: int = 20) -> None:
    """Room settings with handicaps for 60,000 players who don't exist, at creation and by
    the host's ``configure``."""
    handicaps = {f"ghost{n}": 3 for n in range(60_000)}
    player, _room = await _joined(port, "settler")
    try:

        async def job() -> None:
            answer = await post_json(
                port, "/api/rooms", {"host": "h", "settings": {"handicaps": handicaps}}
            )
            out.saw(f"create:{answer.status}")
            small = {"handicaps": {f"ghost{n}": 3 for n in range(50)}}
            reply = await player.ask({"type": "configure", "settings": small})
            out.saw(f"configure:{reply['type']}:{reply.get('code', '')}")

        await _repeat(seconds, count, 1, job)
        state = await player.ask({"type": "state"})
        out.notes["state bytes"] = len(json.dumps(state))
    finally:
        await player.close()


#: Rich 12×12 boards: every solve of one runs long (the most a request may ask for).
RICH_12 = "/".join(("SERSTLAERSTE" if n % 2 else "TAEIRNSLEATI") for n in range(12))


async def heavy_solves(port: int, seconds: float, out: Outcome, count: int = 400) -> None:
    """Eight clients solving rich 12×12 boards with the largest dictionary, back to back."""

    async def job() -> None:
        body = {"board": RICH_12, "dictionary": "huge", "min_length": 3}
        answer = await post_json(port, "/api/solve", body)
        out.saw(answer.status)
        if answer.status == 503 and "retry-after" in answer.headers:
            out.saw("503-with-retry-after")

    await _repeat(seconds, count, 8, job)


async def slow_bodies(port: int, seconds: float, out: Outcome, count: int = 40) -> None:
    """Connections that promise 1,000 bytes of body, send 10 and wait."""

    async def one() -> None:
        reader, writer = await asyncio.open_connection(HOST, port)
        started = time.perf_counter()
        try:
            writer.write(
                b"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                b'Content-Length: 1000\r\n\r\n{"board": '
            )
            await writer.drain()
            answer = await asyncio.wait_for(_read_answer(reader), seconds + 60)
            out.saw(answer.status or "closed")
            out.notes["longest wait s"] = round(
                max(out.notes.get("longest wait s", 0.0), time.perf_counter() - started), 1
            )
        except TimeoutError:
            out.saw("still waiting")
        finally:
            writer.close()

    await asyncio.gather(*(one() for _ in range(count)))


async def huge_headers(port: int, seconds: float, out: Outcome, count: int = 10) -> None:
    """An 8 MB header, and a request with 2,000 headers."""

    async def job() -> None:
        big = await request(port, "GET", "/api/rules", headers={"X-Big": "a" * 8_000_000})
        out.saw(f"8MB:{big.status or 'closed'}")
        many = {f"X-H{n}": "1" for n in range(2000)}
        answer = await request(port, "GET", "/api/rules", headers=many)
        out.saw(f"2000-headers:{answer.status or 'closed'}")

    await _repeat(seconds, count, 2, job)


async def cross_site(port: int, seconds: float, out: Outcome, count: int = 50) -> None:
    """JSON posted as a cross-site form could post it: text/plain, form-encoded, no type."""
    body = b'{"name": "csrf", "target": 50}'

    async def job() -> None:
        for kind in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data"):
            answer = await request(
                port, "POST", "/api/tournaments", body, headers={"Content-Type": kind}
            )
            out.saw(f"{kind}:{answer.status}")

    await _repeat(seconds, count, 1, job)


async def host_redirect(port: int, seconds: float, out: Outcome, count: int = 50) -> None:
    """Paths that redirect, asked with a hostile Host header."""

    async def job() -> None:
        for path in ("/api/rules/", "/solve/", "/rooms/"):
            answer = await request(port, "GET", path, headers={"Host": "evil.example"})
            location = answer.headers.get("location", "")
            out.saw("echoed host" if "evil" in location else f"{answer.status}")

    await _repeat(seconds, count, 1, job)


async def lookalike_names(port: int, seconds: float, out: Outcome, count: int = 1) -> None:
    """``alice`` joins; then ``ALICE``, ``аlice`` (Cyrillic а), ``alice`` + zero-width space,
    and names with NUL or a right-to-left override try the same room."""
    room = await new_room(port, "alice")
    for name in ("ALICE", "\u0430lice", "alice\u200b", "al\x00ice", "\u202ealice", "ａｌｉｃｅ"):
        player = await Player.connect(port)
        try:
            reply = await player.ask({"type": "join", "room": room["room"], "name": name})
            out.saw(reply["type"] if reply["type"] != "error" else f"error:{reply['code']}")
        finally:
            await player.close()
    for name in ("alice\u200b", "bob\x00"):
        answer = await post_json(port, "/api/games", {"player": name, "daily": True})
        out.saw(f"daily:{answer.status}")


async def join_and_vanish(port: int, seconds: float, out: Outcome, count: int = 11) -> None:
    """Sockets that join a room and close as soon as the welcome arrives (a phone losing its
    network just after joining): the server is still sending them the room's state."""
    room = await new_room(port, "host")
    for number in range(count):
        player = await Player.connect(port)
        try:
            reply = await player.ask(
                {"type": "join", "room": room["room"], "name": f"gone{number}"}
            )
            out.saw(reply["type"] if reply["type"] != "error" else f"error:{reply['code']}")
        finally:
            await player.close()


async def idle_rooms(port: int, seconds: float, out: Outcome, count: int = 1000) -> None:
    """``count`` rooms with one joined socket each, then nothing: idle must cost nothing."""
    players: list[Player] = []
    try:
        for n in range(count):
            room = await new_room(port, f"idle{n}")
            player = await Player.connect(port)
            await player.ask({"type": "join", "token": room["token"]})
            players.append(player)
        out.notes["sockets"] = len(players)
        out.notes["ready"] = time.perf_counter()
        await asyncio.sleep(seconds)
        out.notes["open after"] = sum(1 for p in players if p.socket.close_code is None)
    finally:
        await asyncio.gather(*(p.close() for p in players))


async def long_solo(port: int, seconds: float, out: Outcome, count: int = 2000) -> None:
    """One solo game of ``count`` words: the last words must cost what the first did."""
    made = (await post_json(port, "/api/games", {"options": {"timer": 3600}})).json()
    key = {"X-Game-Key": made["key"]}
    times: list[float] = []
    stop = time.perf_counter() + seconds
    for n in range(count):
        if time.perf_counter() > stop:
            break
        sent = time.perf_counter()
        answer = await post_json(
            port, f"/api/games/{made['id']}/words", {"word": f"w{n}x"}, headers=key
        )
        times.append(time.perf_counter() - sent)
        out.saw(answer.status)
    if len(times) >= 200:
        out.notes["first 100 median ms"] = round(1000 * statistics.median(times[:100]), 1)
        out.notes["last 100 median ms"] = round(1000 * statistics.median(times[-100:]), 1)


ATTACKS: dict[str, Attack] = {
    "big board /api/score": big_board_score,
    "deep and wide JSON": deep_json,
    "stranger writes a tournament": stranger_tournament,
    "ping flood": ping_flood,
    "16 MiB frames": huge_frames,
    "300 sockets, one token": socket_swarm,
    "60,000 handicaps": huge_settings,
    "heavy 12x12 solves": heavy_solves,
    "slow bodies": slow_bodies,
    "huge headers": huge_headers,
    "cross-site content types": cross_site,
    "Host-header redirects": host_redirect,
    "look-alike names": lookalike_names,
    "long solo game": long_solo,
}

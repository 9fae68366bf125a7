"""Load test of the web app on loopback: throughput and latency of ``POST /api/solve``.

Starts ``bigboggle serve`` on a free port with a throw-away SQLite database, then runs N
concurrent clients (default 50) for a bounded time (default 10 s), each posting 5×5 Big Boggle
boards (seeded shakes) over a kept-alive connection. Reports requests per second and the
p50/p90/p99/max latency, and checks every answer (status 200 and the right word count).
The clients speak HTTP/1.1 over asyncio streams themselves: a full HTTP client library costs
more per request than the server does, and would measure itself.
``--bad`` makes every fifth request malformed (and expects its 4xx), to load the error paths.

The clients and the server share this machine's cores, so the figures are a floor for the
server. Run from the checkout::

    python benchmarks/bench_web.py
    python benchmarks/bench_web.py --clients 50 --seconds 10 --bad
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from bigboggle import Dictionary, Rules, shake, solve
from live_server import LiveServer


def boards(count: int) -> list[tuple[str, int]]:
    """``count`` Big Boggle shakes and how many words each holds (the expected answers)."""
    words = Dictionary.builtin("standard")
    rules = Rules.preset("big")
    out = []
    for seed in range(count):
        board = shake("big", seed).board
        out.append((str(board), solve(board, words, rules).count))
    return out


async def post(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, path: str, body: bytes
) -> tuple[int, bytes]:
    """One request on a kept-alive connection: the status and the body of the answer."""
    writer.write(
        f"POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next(
        int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")
    )
    return status, await reader.readexactly(length)


async def client(
    port: int,
    work: list[tuple[str, int]],
    offset: int,
    stop_at: float,
    bad_every: int,
    latencies: list[float],
    failures: list[str],
) -> int:
    done = 0
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    i = offset
    while time.perf_counter() < stop_at:
        board, count = work[i % len(work)]
        bad = bool(bad_every) and i % bad_every == 0
        body = orjson.dumps({"board": board[:-3] if bad else board})
        started = time.perf_counter()
        status, answer = await post(reader, writer, "/api/solve", body)
        latencies.append(time.perf_counter() - started)
        if bad:
            if status != 400 or b'"error"' not in answer:
                failures.append(f"bad request got {status}")
        elif status != 200 or orjson.loads(answer)["count"] != count:
            failures.append(f"{board}: {status} {answer[:100]!r}")
        i += 1
        done += 1
    writer.close()
    return done


async def load(port: int, clients: int, seconds: float, bad_every: int) -> None:
    work = boards(500)
    latencies: list[float] = []
    failures: list[str] = []
    # Warm up: the server loads its dictionary on the first request.
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    await post(reader, writer, "/api/solve", orjson.dumps({"board": work[0][0]}))
    writer.close()
    started = time.perf_counter()
    stop_at = started + seconds
    counts = await asyncio.gather(
        *(
            client(port, work, n * 7, stop_at, bad_every, latencies, failures)
            for n in range(clients)
        )
    )
    elapsed = time.perf_counter() - started
    total = sum(counts)
    ordered = sorted(latencies)

    def pct(p: float) -> float:
        return 1000 * ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    print(f"{clients} clients, {elapsed:.1f} s: {total} requests, {total / elapsed:,.0f} req/s")
    print(
        f"latency ms: p50 {pct(50):.1f}  p90 {pct(90):.1f}  p99 {pct(99):.1f}  "
        f"max {1000 * ordered[-1]:.1f}  mean {1000 * statistics.fmean(ordered):.1f}"
    )
    print(f"wrong answers: {len(failures)}" + (f" (first: {failures[0]})" if failures else ""))
    if failures:
        sys.exit(1)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--bad", action="store_true", help="every fifth request malformed")
    parser.add_argument("--port", type=int, help="load a server already running on this port")
    args = parser.parse_args()
    if args.port:
        asyncio.run(load(args.port, args.clients, args.seconds, 5 if args.bad else 0))
        return
    folder = Path(tempfile.mkdtemp(prefix="bigboggle-bench-web-"))
    server = LiveServer(f"sqlite:///{folder / 'bench.sqlite3'}", folder / "server.log").start()
    try:
        asyncio.run(load(server.port, args.clients, args.seconds, 5 if args.bad else 0))
    finally:
        server.stop()


if __name__ == "__main__":
    main()

"""What a log-in costs: Argon2id time per hash with the parameters the server uses, and the
throughput of concurrent log-ins through a real server's path.

1. **Per hash.** argon2-cffi's ``PasswordHasher()`` defaults (RFC 9106 low-memory: t=3,
   m=64 MiB, p=4), as :mod:`bigboggle.services.passwords` uses them: the median of N hashes and
   of N verifications, wall time and the process's CPU time (Argon2 runs ``p`` lanes in
   threads, so its CPU time may exceed its wall time on more than one core).
2. **Through the server.** ``bigboggle serve`` on loopback with a throw-away SQLite database,
   one member, and C clients (threads, each its own connection) logging in with the right
   password for S seconds: log-ins per second, p50/p90/max latency, and how many were answered
   503 by the hash gate (:data:`~bigboggle.limits.HASHES_AT_ONCE` running,
   :data:`~bigboggle.limits.HASHES_WAITING` waiting). The clients share the machine's cores.

Run from the checkout (well under a minute with the defaults)::

    python benchmarks/bench_login.py
    python benchmarks/bench_login.py --hashes 15 --clients 8 --seconds 8
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import argon2

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from live_server import LiveServer

PASSWORD = "correct horse battery staple"


def per_hash(count: int) -> None:
    hasher = argon2.PasswordHasher()
    print(
        f"Argon2id: time_cost={hasher.time_cost}, memory_cost={hasher.memory_cost} KiB, "
        f"parallelism={hasher.parallelism}"
    )
    walls, cpus = [], []
    stored = hasher.hash(PASSWORD)
    for _ in range(count):
        wall, cpu = time.perf_counter(), time.process_time()
        hasher.hash(PASSWORD)
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    checks = []
    for _ in range(count):
        wall = time.perf_counter()
        hasher.verify(stored, PASSWORD)
        checks.append(time.perf_counter() - wall)
    print(
        f"hash:   median {statistics.median(walls) * 1000:.0f} ms wall, "
        f"{statistics.median(cpus) * 1000:.0f} ms CPU (of {count})"
    )
    print(f"verify: median {statistics.median(checks) * 1000:.0f} ms wall (of {count})")


def _post(url: str, body: dict[str, str]) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            answer.read()
            return int(answer.status)
    except urllib.error.HTTPError as error:
        error.read()
        return int(error.code)


def through_server(clients: int, seconds: float) -> None:
    with tempfile.TemporaryDirectory() as folder:
        server = LiveServer(f"sqlite:///{folder}/bench.sqlite3", Path(folder) / "server.log")
        server.start()
        try:
            base = server.url
            status = _post(
                base + "/api/account", {"username": "bench_member", "password": PASSWORD}
            )
            assert status == 201, status
            latencies: list[float] = []
            statuses: dict[int, int] = {}
            lock = threading.Lock()
            stop = time.monotonic() + seconds

            def client() -> None:
                while time.monotonic() < stop:
                    started = time.perf_counter()
                    code = _post(
                        base + "/api/session", {"username": "bench_member", "password": PASSWORD}
                    )
                    took = time.perf_counter() - started
                    with lock:
                        statuses[code] = statuses.get(code, 0) + 1
                        if code == 200:
                            latencies.append(took)

            began = time.monotonic()
            threads = [threading.Thread(target=client) for _ in range(clients)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            elapsed = time.monotonic() - began
        finally:
            server.stop()
    done = statuses.get(200, 0)
    print(f"server: {clients} clients for {elapsed:.1f} s: {done / elapsed:.1f} log-ins/s")
    if latencies:
        ordered = sorted(latencies)
        p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
        print(
            f"        latency p50 {statistics.median(ordered) * 1000:.0f} ms, "
            f"p90 {p90 * 1000:.0f} ms, max {ordered[-1] * 1000:.0f} ms"
        )
    print(f"        answers by status: {dict(sorted(statuses.items()))}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hashes", type=int, default=15, help="hashes to time (median)")
    parser.add_argument("--clients", type=int, default=8, help="concurrent log-in clients")
    parser.add_argument("--seconds", type=float, default=8.0, help="how long they log in")
    args = parser.parse_args()
    per_hash(args.hashes)
    through_server(args.clients, args.seconds)


if __name__ == "__main__":
    main()

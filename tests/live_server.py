"""A real ``bigboggle serve`` process on loopback, for tests that need one (restarts, browsers)."""

from __future__ import annotations

import json
import os
import random
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

#: Under pytest-xdist, worker N takes its servers' ports from a block of its own below the
#: kernel's ephemeral range (32768 and up on Linux), so that a port one worker has just found
#: free is not handed to the other worker's server (or to anyone's outgoing connection) in the
#: second before the server binds it.
WORKER_PORTS = range(10_000, 32_000)
PORTS_PER_WORKER = 1_000
_next_port: dict[str, int] = {}


def _is_free(port: int) -> bool:
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def free_port() -> int:
    """A loopback port nobody listens on: the kernel's pick in a run without workers, else the
    next free one of this worker's block (``PYTEST_XDIST_WORKER`` is ``gw0``, ``gw1``...)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")
    if not worker.startswith("gw") or not worker[2:].isdigit():
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            port: int = sock.getsockname()[1]
            return port
    blocks = len(WORKER_PORTS) // PORTS_PER_WORKER
    first = WORKER_PORTS.start + (int(worker[2:]) % blocks) * PORTS_PER_WORKER
    # A random start, so that two runs on one machine (two people's) seldom share ports.
    offset = _next_port.get(worker, random.SystemRandom().randrange(PORTS_PER_WORKER))
    for step in range(PORTS_PER_WORKER):
        port = first + (offset + step) % PORTS_PER_WORKER
        if _is_free(port):
            _next_port[worker] = (offset + step + 1) % PORTS_PER_WORKER
            return port
    raise RuntimeError(f"no free port in {first}-{first + PORTS_PER_WORKER - 1}")


class LiveServer:
    """``bigboggle serve`` on a free port with database ``db_url``; start, stop, and call it."""

    def __init__(
        self, db_url: str, log: Path, *extra: str, env: dict[str, str] | None = None
    ) -> None:
        self.db_url = db_url
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = log
        self.extra = extra
        #: Extra environment variables for the server (``BIGBOGGLE_LIMIT_*``, say).
        self.env = env or {}
        self.process: subprocess.Popen[bytes] | None = None
        #: Whether it has listened once (a restart keeps its port and URL).
        self.started = False

    def start(self) -> LiveServer:
        """Start the server and wait until it listens. A first start whose port was taken in
        the meantime (by another test run on this machine) tries another port; a restart keeps
        its port, since the test holds its URL."""
        for _ in range(3):
            if self._start_once():
                return self
            if self.started:
                break
            self.port = free_port()
            self.url = f"http://127.0.0.1:{self.port}"
        raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")

    def _start_once(self) -> bool:
        """One try: True once the server listens, False if it exited because its port is in
        use; any other failure raises."""
        command = [sys.executable, "-m", "bigboggle", "serve", "--port", str(self.port)]
        command += ["--db", self.db_url, "--log-level", "warning", *self.extra]
        logged = self.log.stat().st_size if self.log.exists() else 0
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env}
            )
        # A generous ceiling: a server starts in a few seconds, but two test processes and
        # their browsers on two loaded cores have taken more than 30.
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                said = self.log.read_bytes()[logged:].decode(errors="replace")
                if f"port {self.port} on 127.0.0.1 is in use" in said:
                    self.process = None
                    return False
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    self.started = True
                    return True
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the server did not start within 90 s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None

    def kill(self) -> None:
        """Stop the server the hard way (no shutdown), as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None

    def call(
        self, method: str, path: str, body: Any = None, headers: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json", **(headers or {})},
        )
        try:
            with urllib.request.urlopen(request, timeout=10) as answer:
                return answer.status, json.loads(answer.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def raw(self, data: bytes, timeout: float = 30) -> bytes:
        """Send ``data`` as it is on a fresh connection and return all the server answers
        until it closes the connection (or ``timeout`` passes: then what came so far). A
        server that closes while ``data`` is still being sent may reset the connection: then
        whatever had arrived."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
            answer = b""
            try:
                for start in range(0, len(data), 65536):
                    sock.sendall(data[start : start + 65536])
                while chunk := sock.recv(65536):
                    answer += chunk
            except (TimeoutError, ConnectionResetError, BrokenPipeError):
                pass
            return answer

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """GET ``path``: the status and the body, whatever its type."""
        request = urllib.request.Request(self.url + path, headers=headers or {})
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                return answer.status, answer.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

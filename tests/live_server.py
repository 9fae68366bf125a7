"""A real ``bigboggle serve`` process on loopback, for tests that need one (restarts, browsers)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


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

    def start(self) -> LiveServer:
        command = [sys.executable, "-m", "bigboggle", "serve", "--port", str(self.port)]
        command += ["--db", self.db_url, "--log-level", "warning", *self.extra]
        with self.log.open("ab") as log:
            self.process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **self.env}
            )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited: {self.log.read_text()[-2000:]}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return self
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the server did not start within 30 s")

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

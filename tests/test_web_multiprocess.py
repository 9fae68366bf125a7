"""Two server processes sharing rooms through Redis, with PostgreSQL as the database: players
connected to different processes play one room and see the same results.

Needs a Redis and a PostgreSQL server: ``BIGBOGGLE_TEST_REDIS`` (a redis:// URL) and
``BIGBOGGLE_TEST_POSTGRES`` (a SQLAlchemy URL of a database the tests may empty). ``.ci/run``
starts both; elsewhere the tests skip unless ``BIGBOGGLE_REQUIRE_SERVICES`` is set.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, func, select
from websockets.sync.client import ClientConnection, connect

from bigboggle import Dictionary, Rules, solve
from bigboggle.services.store import RoomPlayerRow, RoomWordRow
from conftest import postgres_schema
from live_server import LiveServer

pytestmark = pytest.mark.once

REDIS = os.environ.get("BIGBOGGLE_TEST_REDIS")
POSTGRES = os.environ.get("BIGBOGGLE_TEST_POSTGRES")


@pytest.fixture
def services() -> Iterator[tuple[str, str]]:
    """Redis, and a fresh PostgreSQL schema of this test's own, so that another test process
    using the same database at the same time is not in the way. The schema is already up to
    date (conftest replays the migrations' statements on it): each server opening it checks
    its revision and finds nothing to do. Migrating from nothing, and by processes at once,
    is test_migrations' business."""
    if not (REDIS and POSTGRES):
        if os.environ.get("BIGBOGGLE_REQUIRE_SERVICES"):
            pytest.fail("BIGBOGGLE_TEST_REDIS and BIGBOGGLE_TEST_POSTGRES must be set")
        pytest.skip("no Redis/PostgreSQL (set BIGBOGGLE_TEST_REDIS and BIGBOGGLE_TEST_POSTGRES)")
    with postgres_schema("test_web_multiprocess", migrated=True) as url:
        yield REDIS, url


@pytest.fixture
def two_servers(services: tuple[str, str], tmp_path: Path) -> Iterator[list[LiveServer]]:
    redis, postgres = services
    servers = []
    try:
        for name in ("a", "b"):
            servers.append(
                LiveServer(postgres, tmp_path / f"server-{name}.log", "--redis", redis).start()
            )
        yield servers
    finally:
        for server in servers:
            server.stop()


class Player:
    """A scripted client of the room protocol, with timeouts; closed with the ``stack``."""

    def __init__(self, server: LiveServer, stack: ExitStack) -> None:
        self.socket: ClientConnection = stack.enter_context(
            connect(f"ws://127.0.0.1:{server.port}/ws")
        )
        self.ids = 0

    def send(self, message: dict[str, Any]) -> int:
        self.ids += 1
        self.socket.send(json.dumps({**message, "id": self.ids}))
        return self.ids

    def until(self, test: Any, seconds: float = 20) -> dict[str, Any]:
        deadline = time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "timed out waiting for a message"
            message: dict[str, Any] = json.loads(self.socket.recv(timeout=left))
            if test(message):
                return message

    def ask(self, message: dict[str, Any]) -> dict[str, Any]:
        sent = self.send(message)
        return self.until(lambda m: m.get("re") == sent)


def test_players_on_two_processes_share_a_room(
    two_servers: list[LiveServer], standard: Dictionary
) -> None:
    first, second = two_servers
    status, room = first.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 6}})
    assert status == 201
    with ExitStack() as stack:
        ann, bob = Player(first, stack), Player(second, stack)
        ann.ask({"type": "join", "token": room["token"]})
        bob.ask({"type": "join", "room": room["room"], "name": "bob"})
        # ann's process hears of bob's join through Redis.
        ann.until(lambda m: m["type"] == "state" and m["state"]["players"] == ["ann", "bob"])
        started = ann.ask({"type": "start"})["state"]["round"]
        seen = bob.until(lambda m: m["type"] == "state" and m["state"]["round"] is not None)
        assert seen["state"]["round"]["board"] == started["board"]
        time.sleep(max(0.0, started["starts_at"] - seen["state"]["now"]) + 0.1)
        words = [found.word for found in solve(started["board"], standard, Rules.preset("big"))]
        acked = 0
        for player, entries in ((ann, words[:3]), (bob, [words[0], words[3]])):
            for word in entries:
                verdict = player.ask({"type": "submit", "word": word})
                assert verdict["type"] == "verdict", verdict
                acked += 1
        results = [p.until(lambda m: m["type"] == "results") for p in (ann, bob)]
        assert results[0]["round"] == results[1]["round"]
        scored = results[0]["round"]["players"]
        assert [w["verdict"] for w in scored["ann"]["words"]] == ["crossed_off", "scored", "scored"]
        assert [w["verdict"] for w in scored["bob"]["words"]] == ["crossed_off", "scored"]
        assert results[0]["totals"] == results[1]["totals"]
        # Every acknowledged word is in the database.
        engine = create_engine(first.db_url)
        with engine.connect() as connection:
            assert connection.scalar(select(func.count()).select_from(RoomWordRow)) == acked
        engine.dispose()


def test_a_server_restart_mid_round_loses_no_acknowledged_word(
    two_servers: list[LiveServer], standard: Dictionary
) -> None:
    first, second = two_servers
    _, room = first.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 600}})
    with ExitStack() as stack:
        ann = Player(first, stack)
        ann.ask({"type": "join", "token": room["token"]})
        started = ann.ask({"type": "start"})["state"]["round"]
        time.sleep(3.2)
        word = solve(started["board"], standard, Rules.preset("big")).words[0].word
        assert ann.ask({"type": "submit", "word": word})["result"]["verdict"] == "scored"
        first.kill()  # ann's process dies mid-round
        # Her page reconnects, and the load balancer sends her to the other process.
        again = Player(second, stack)
        again.ask({"type": "join", "token": room["token"]})
        state = again.ask({"type": "state"})["state"]
        assert [w["word"] for w in state["round"]["words"]] == [word]
        assert again.ask({"type": "submit", "word": word})["result"]["verdict"] == "repeated"


def test_the_host_on_one_process_removes_a_player_on_the_other(
    two_servers: list[LiveServer],
) -> None:
    from websockets.exceptions import ConnectionClosed

    first, second = two_servers
    _, room = first.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 30}})
    with ExitStack() as stack:
        ann, bob = Player(first, stack), Player(second, stack)
        ann.ask({"type": "join", "token": room["token"]})
        bob_token = bob.ask({"type": "join", "room": room["room"], "name": "bob"})["token"]
        ann.until(lambda m: m["type"] == "state" and m["state"]["players"] == ["ann", "bob"])
        assert ann.ask({"type": "kick", "player": "bob"})["state"]["players"] == ["ann"]
        assert bob.until(lambda m: m["type"] == "error")["code"] == "kicked"
        with pytest.raises(ConnectionClosed) as closed:
            bob.until(lambda m: False)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4001
        again = Player(first, stack)
        assert again.ask({"type": "join", "token": bob_token})["code"] == "kicked"
        ended = ann.ask({"type": "end"})
        assert ended["state"]["over"] is True


def test_presence_crosses_processes(two_servers: list[LiveServer]) -> None:
    """bob, on the other process, hides his tab, then closes it: ann sees him away, then
    offline (the seats' connections are counted in the database, the news comes by Redis)."""
    first, second = two_servers
    _, room = first.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 30}})
    with ExitStack() as stack:
        ann, bob = Player(first, stack), Player(second, stack)
        ann.ask({"type": "join", "token": room["token"]})
        bob.ask({"type": "join", "room": room["room"], "name": "bob"})
        ann.until(
            lambda m: (
                m["type"] == "state"
                and m["state"]["presence"] == {"ann": "online", "bob": "online"}
            )
        )
        assert bob.ask({"type": "presence", "state": "away"})["presence"]["bob"] == "away"
        ann.until(lambda m: m["type"] == "presence" and m["presence"]["bob"] == "away")
        bob.socket.close()
        ann.until(lambda m: m["type"] == "presence" and m["presence"]["bob"] == "offline")


def test_a_seats_tab_in_view_on_one_process_keeps_it_online(
    two_servers: list[LiveServer],
) -> None:
    """bob has a tab on each process; the one on the second hides and closes (a closing tab
    says hidden first): he stays online, since his tab on the first is in view (the hidden
    connections are counted in the database, so the processes agree); then that one hides."""
    first, second = two_servers
    _, room = first.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 30}})
    with ExitStack() as stack:
        ann, bob = Player(first, stack), Player(first, stack)
        ann.ask({"type": "join", "token": room["token"]})
        token = bob.ask({"type": "join", "room": room["room"], "name": "bob"})["token"]
        other = Player(second, stack)
        other.ask({"type": "join", "token": token})
        hidden = other.ask({"type": "presence", "state": "away"})
        assert hidden["presence"]["bob"] == "online", hidden
        other.socket.close()
        # The second process has counted the close.
        open_sockets(first.db_url, room["room"], "bob", 1)
        assert ann.ask({"type": "state"})["state"]["presence"]["bob"] == "online"
        assert bob.ask({"type": "presence", "state": "away"})["presence"]["bob"] == "away"
        ann.until(lambda m: m["type"] == "presence" and m["presence"]["bob"] == "away")


def open_sockets(db_url: str, room: str, name: str, wanted: int, seconds: float = 20) -> None:
    """Wait until the database at ``db_url`` counts ``wanted`` open sockets for ``name`` in
    ``room``."""
    engine = create_engine(db_url)
    deadline = time.monotonic() + seconds
    try:
        while True:
            with engine.connect() as connection:
                count = connection.scalar(
                    select(RoomPlayerRow.sockets).where(
                        RoomPlayerRow.room == room, RoomPlayerRow.name == name
                    )
                )
            if count == wanted:
                return
            assert time.monotonic() < deadline, f"{name} has {count} sockets, not {wanted}"
            time.sleep(0.05)
    finally:
        engine.dispose()

"""The web's one error table: each library error's HTTP status and WebSocket code, the same for
the JSON API and the room protocol, and the protocol's documented codes are the ones it sends."""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from bigboggle import errors
from bigboggle.errors import BoggleError
from bigboggle.web import protocol
from bigboggle.web.error_table import ERROR_TABLE, code_of, status_of
from bigboggle.web.protocol import ErrorCode
from conftest import FakeClock

#: Every error class of the library, by name.
ERROR_CLASSES = [
    value
    for value in vars(errors).values()
    if isinstance(value, type) and issubclass(value, BoggleError)
]


def test_no_entry_of_the_table_is_hidden_by_an_earlier_one() -> None:
    for place, (kind, _) in enumerate(ERROR_TABLE):
        earlier = [other for other, _ in ERROR_TABLE[:place] if issubclass(kind, other)]
        assert not earlier, f"{kind.__name__} comes after its base {earlier[0].__name__}"


def test_every_library_error_has_an_answer() -> None:
    assert len(ERROR_CLASSES) > 10
    for kind in ERROR_CLASSES:
        assert status_of(kind("x")) >= 400


@pytest.mark.parametrize(
    ("kind", "status", "code"),
    [
        (errors.NotFoundError, 404, "not_found"),
        (errors.NotOwnerError, 403, "not_yours"),
        (errors.GameStateError, 409, "not_now"),
        (errors.RoomFullError, 409, "room_full"),
        (errors.NotHostError, 409, "not_host"),
        (errors.KickedError, 409, "kicked"),
        (errors.RoomClosedError, 409, "closed"),
        (errors.BusyError, 503, "busy"),
        (errors.BudgetExceededError, 503, "busy"),
        (errors.StoreError, 503, "busy"),
        (errors.RulesError, 400, "bad_input"),
        (errors.RoundInputError, 400, "bad_input"),
        (errors.BoardError, 400, "bad_input"),
    ],
    ids=lambda value: value.__name__ if isinstance(value, type) else str(value),
)
def test_each_error_has_its_status_and_code(
    kind: type[BoggleError], status: int, code: str
) -> None:
    error = kind("x")
    assert (status_of(error), code_of(error)) == (status, code)


def test_the_documented_codes_are_the_codes_sent() -> None:
    documented = set(re.findall(r"``([a-z_]+)``", protocol.__doc__ or ""))
    codes = {code.value for code in ErrorCode}
    assert codes <= documented, codes - documented
    assert set(code_of(kind("x")) for kind, _ in ERROR_TABLE) <= codes


def test_the_close_codes_are_the_documented_ones() -> None:
    assert [int(code) for code in protocol.CloseCode] == [1008, 4001, 4002]
    for code in protocol.CloseCode:
        assert str(int(code)) in (protocol.__doc__ or "")


# -- a database that cannot answer, over both ----------------------------------------------------


@pytest.fixture
def unavailable(db_url: str, clock: FakeClock) -> Iterator[tuple[TestClient, str]]:
    """A client on a real SQLite file and the code of a room in it, whose ``room_players``
    table was dropped behind the server's back after the room was made: reading the room and
    joining it both need that table, so the database cannot answer either."""
    from bigboggle.web import create_app

    with TestClient(create_app(db_url, clock=clock)) as client:
        created = client.post("/api/rooms", json={"host": "ann"})
        assert created.status_code == 201, created.text
        with sqlite3.connect(db_url.removeprefix("sqlite:///")) as database:
            database.execute("PRAGMA foreign_keys=OFF")
            database.execute("DROP TABLE room_players")
        yield client, created.json()["room"]


@pytest.mark.once  # the database's trouble, not the core's
def test_a_store_error_is_a_503_over_http(unavailable: tuple[TestClient, str]) -> None:
    client, code = unavailable
    answer = client.get(f"/api/rooms/{code}")
    assert answer.status_code == 503
    assert "cannot answer: no such table: room_players" in answer.json()["error"]


@pytest.mark.once  # the database's trouble, not the core's
def test_a_store_error_is_busy_over_the_websocket(unavailable: tuple[TestClient, str]) -> None:
    client, code = unavailable
    with client.websocket_connect("/ws") as socket:
        socket.send_json({"type": "join", "room": code, "name": "bob", "id": 1})
        error = socket.receive_json()
        assert (error["type"], error["code"], error["re"]) == ("error", "busy", 1)
        assert "cannot answer: no such table: room_players" in error["message"]

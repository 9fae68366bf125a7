"""The web's one error table: each library error's HTTP status and WebSocket code, the same for
the JSON API and the room protocol, and the protocol's documented codes are the ones it sends."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from bigboggle import errors
from bigboggle.errors import BoggleError, StoreError
from bigboggle.web import protocol
from bigboggle.web.error_table import ERROR_TABLE, code_of, status_of
from bigboggle.web.plumbing import Services
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
def unavailable(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    """A client whose rooms service raises StoreError on every read of a room and every join
    (the store raises it opening a database; a stand-in here, since a real database cannot be
    made to raise it mid-request)."""
    from bigboggle.web import create_app

    with TestClient(create_app(db_url, clock=clock)) as client:
        found: Services = client.app.state.services  # type: ignore[attr-defined]

        def refused(*_args: object) -> object:
            raise StoreError("cannot reach the database 'sqlite:///rooms.db'")

        found.rooms.public = refused  # type: ignore[method-assign]
        found.rooms.join = refused  # type: ignore[method-assign]
        yield client


def test_a_store_error_is_a_503_over_http(unavailable: TestClient) -> None:
    answer = unavailable.get("/api/rooms/BCDFGHJKLM")
    assert answer.status_code == 503 and "cannot reach the database" in answer.json()["error"]


def test_a_store_error_is_busy_over_the_websocket(unavailable: TestClient) -> None:
    with unavailable.websocket_connect("/ws") as socket:
        socket.send_json({"type": "join", "room": "BCDFGHJKLM", "name": "ann", "id": 1})
        error = socket.receive_json()
        assert (error["type"], error["code"], error["re"]) == ("error", "busy", 1)
        assert "cannot reach the database" in error["message"]

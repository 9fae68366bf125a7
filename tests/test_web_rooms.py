"""Rooms over the WebSocket protocol, through the ASGI test client: several players in a room,
private verdicts, crossing off at the end, teams and handicaps, the deadline on a clock the test
holds, resuming with a token, and an error (never a dropped connection) for every bad message."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import WebSocketTestSession

from bigboggle import Dictionary, Rules, solve
from bigboggle.rooms import GRACE, START_DELAY
from bigboggle.web import create_app
from bigboggle.web.protocol import MAX_MESSAGE_BYTES
from conftest import FakeClock

pytestmark = pytest.mark.once


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, clock=clock)) as test_client:
        yield test_client


def until(socket: WebSocketTestSession, kind: str, limit: int = 30) -> dict[str, Any]:
    """The next message of ``kind`` (skipping others, such as room news)."""
    for _ in range(limit):
        message = socket.receive_json()
        if message["type"] == kind:
            return message
    raise AssertionError(f"no {kind!r} message in {limit}")


#: Message ids, unique across a test session (so that a reply can never be taken for another's).
MESSAGE_IDS = itertools.count(1)


def answer(socket: WebSocketTestSession, message: dict[str, Any]) -> dict[str, Any]:
    """Send ``message`` (with an id) and return the reply to it (verdict, error, pong, state)."""
    message_id = next(MESSAGE_IDS)
    socket.send_json({**message, "id": message_id})
    for _ in range(30):
        reply = socket.receive_json()
        if reply.get("re") == message_id:
            return reply
    raise AssertionError(f"no reply to {message}")


def join(client: TestClient, socket: WebSocketTestSession, **fields: Any) -> dict[str, Any]:
    socket.send_json({"type": "join", **fields})
    welcome = until(socket, "welcome")
    until(socket, "state")
    return welcome


def create(client: TestClient, host: str = "ann", **settings_: Any) -> dict[str, Any]:
    created = client.post("/api/rooms", json={"host": host, "settings": settings_})
    assert created.status_code == 201, created.text
    data: dict[str, Any] = created.json()
    return data


def test_a_round_with_three_players(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client, timer=60)
    code = room["room"]
    with (
        client.websocket_connect("/ws") as ann,
        client.websocket_connect("/ws") as bob,
        client.websocket_connect("/ws") as cy,
    ):
        welcome = join(client, ann, token=room["token"])
        assert welcome["player"] == "ann" and "token" not in welcome
        assert join(client, bob, room=code.lower(), name="bob")["token"]
        join(client, cy, room=code, name="cy")
        started = answer(ann, {"type": "state"})  # ann's view lists everyone
        assert started["state"]["players"] == ["ann", "bob", "cy"]
        assert started["state"]["host"] == "ann"

        assert answer(ann, {"type": "start"})["state"]["round"] is not None
        state = until(bob, "state")
        while state["state"]["round"] is None:
            state = until(bob, "state")
        round_ = state["state"]["round"]
        assert round_["deadline"] - round_["starts_at"] == 60
        assert round_["starts_at"] - state["state"]["now"] == START_DELAY
        words = [f.word for f in solve(round_["board"], standard, Rules.preset("big"))]

        early = answer(ann, {"type": "submit", "word": words[0]})
        assert early["type"] == "error" and early["code"] == "not_now"
        clock.advance(START_DELAY)
        assert answer(ann, {"type": "submit", "word": words[0]})["result"]["verdict"] == "scored"
        assert answer(bob, {"type": "submit", "word": words[0]})["result"]["verdict"] == "scored"
        assert answer(bob, {"type": "submit", "word": words[1]})["result"]["verdict"] == "scored"
        assert answer(cy, {"type": "submit", "word": "qqqq"})["result"]["verdict"] != "scored"
        mine = answer(cy, {"type": "state"})["state"]["round"]["words"]
        assert [w["word"] for w in mine] == ["qqqq"]  # nobody else's words

        clock.advance(60)
        late = answer(bob, {"type": "submit", "word": words[2]})
        assert late["code"] == "not_now" and "time is up" in late["message"]
        clock.advance(GRACE)
        answer(cy, {"type": "state"})  # any request past the deadline gets the round scored
        results = {name: until(sock, "results") for name, sock in [("ann", ann), ("bob", bob)]}
        assert results["ann"]["round"] == results["bob"]["round"]
        scored = results["ann"]["round"]["players"]
        assert [w["verdict"] for w in scored["ann"]["words"]] == ["crossed_off"]
        assert [w["verdict"] for w in scored["bob"]["words"]] == ["crossed_off", "scored"]
        assert results["ann"]["totals"]["bob"] == scored["bob"]["score"] > 0
        assert results["ann"]["round"]["missed"]


def test_the_timer_ends_the_round_without_anyone_asking(
    client: TestClient, clock: FakeClock
) -> None:
    room = create(client, timer=30)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        assert answer(ann, {"type": "start"})["state"]["round"]["number"] == 1
        clock.advance(START_DELAY + 30 + GRACE)
        client.portal.call(client.app.state.timers.recheck)  # type: ignore[union-attr]
        results = until(ann, "results", limit=50)  # the room's timer scores it
        assert results["round"]["number"] == 1


def test_teams_and_handicaps_over_the_protocol(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client)
    code = room["room"]
    with client.websocket_connect("/ws") as ann, client.websocket_connect("/ws") as kid:
        join(client, ann, token=room["token"])
        join(client, kid, room=code, name="kid")
        configured = answer(
            ann,
            {
                "type": "configure",
                "settings": {
                    "teams": {"grown": ["ann"], "young": ["kid"]},
                    "handicaps": {"kid": 3},
                },
            },
        )
        assert configured["type"] != "error", configured
        refused = answer(kid, {"type": "configure", "settings": {"timer": 10}})
        assert refused["code"] == "not_host"
        assert answer(ann, {"type": "start"})["type"] == "state"
        board = until(kid, "state")["state"]["round"]
        while board is None:
            board = until(kid, "state")["state"]["round"]
        clock.advance(START_DELAY)
        three = next(
            f.word
            for f in solve(board["board"], standard, Rules.preset("big", min_length=3))
            if len(f.word) == 3
        )
        assert answer(kid, {"type": "submit", "word": three})["result"]["score"] == 1
        assert answer(ann, {"type": "submit", "word": three})["result"]["verdict"] == "too_short"
        clock.advance(200)
        answer(ann, {"type": "state"})
        results = until(kid, "results")
        assert results["round"]["teams"]["young"]["score"] == 1
        assert results["standings"] == ["young", "grown"]


def test_a_reload_resumes_with_the_token_and_keeps_the_words(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        board = answer(ann, {"type": "start"})["state"]["round"]["board"]
        clock.advance(START_DELAY)
        word = solve(board, standard, Rules.preset("big")).words[0].word
        assert answer(ann, {"type": "submit", "word": word})["result"]["verdict"] == "scored"
    with client.websocket_connect("/ws") as again:  # the page reloaded
        join(client, again, token=room["token"])
        state = answer(again, {"type": "state"})["state"]
        assert state["you"] == "ann" and state["round"]["board"] == board
        assert [w["word"] for w in state["round"]["words"]] == [word]
        assert answer(again, {"type": "submit", "word": word})["result"]["verdict"] == "repeated"


BAD_MESSAGES = [
    ("not json", "bad_json"),
    ("[1, 2]", "bad_message"),
    ('{"type": "dance"}', "unknown_type"),
    ('{"type": "submit", "word": "x", "v": 2}', "bad_version"),
    ('{"type": "submit"}', "bad_message"),
    ('{"type": "submit", "word": ""}', "bad_message"),
    ('{"type": "submit", "word": 5}', "bad_message"),
    ('{"type": "submit", "word": "lines", "extra": 1}', "bad_message"),
    ('{"type": "submit", "word": "lines", "player": "bob"}', "not_yours"),
    ('{"type": "submit", "word": "lines", "room": "OTHER"}', "not_yours"),
    ('{"type": "join", "room": "BCDFG", "name": "ann"}', "already_joined"),
    ('{"type": "start", "id": -1}', "bad_message"),
    ('{"type": "configure", "settings": {"timer": "soon"}}', "bad_input"),
    ('{"type": "configure", "settings": {"rules": "giant"}}', "bad_input"),
    ("x" * (MAX_MESSAGE_BYTES + 1), "too_big"),
]


@pytest.mark.parametrize(("raw", "code"), BAD_MESSAGES, ids=[code for _, code in BAD_MESSAGES])
def test_bad_messages_get_an_error_and_the_connection_keeps_working(
    client: TestClient, raw: str, code: str
) -> None:
    room = create(client)
    with client.websocket_connect("/ws") as ann:
        join(client, ann, token=room["token"])
        ann.send_text(raw)
        error = until(ann, "error")
        assert error["code"] == code, error
        assert error["message"]
        assert answer(ann, {"type": "ping"})["type"] == "pong"  # still connected
        assert answer(ann, {"type": "state"})["state"]["you"] == "ann"  # the room still works


def test_joins_to_unknown_or_full_rooms_and_messages_before_joining(client: TestClient) -> None:
    room = create(client, max_players=1)
    with client.websocket_connect("/ws") as stranger:
        assert answer(stranger, {"type": "submit", "word": "lines"})["code"] == "not_joined"
        assert answer(stranger, {"type": "join", "room": "ZZZZZ", "name": "x"})["code"] == (
            "not_found"
        )
        full = answer(stranger, {"type": "join", "room": room["room"], "name": "bob"})
        assert full["code"] == "room_full"
        assert answer(stranger, {"type": "join", "token": "x" * 20})["code"] == "not_found"
        assert answer(stranger, {"type": "join"})["code"] == "bad_message"
        assert answer(stranger, {"type": "ping"})["type"] == "pong"


def test_room_api_and_pages(client: TestClient) -> None:
    evil = "<img src=x onerror=alert(1)>"
    room = create(client, host=evil)
    public = client.get(f"/api/rooms/{room['room']}").json()
    assert public["players"] == [evil] and "token" not in json.dumps(public)
    page = client.get(f"/rooms/{room['room']}")
    assert page.status_code == 200 and evil not in page.text
    assert client.get("/rooms/ZZZZZ").status_code == 404
    assert client.get("/api/rooms/ZZZZZ").json()["error"].startswith("no room")
    bad = client.post("/api/rooms", json={"host": "ann", "settings": {"timer": 1}})
    assert bad.status_code == 400 and "timer" in bad.json()["error"]
    assert client.get("/rooms").status_code == 200


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"type": st.sampled_from(["join", "configure", "start", "submit", "state", "ping", "x"])},
    optional={
        "word": json_values,
        "room": json_values,
        "name": json_values,
        "token": json_values,
        "settings": json_values,
        "id": json_values,
        "v": json_values,
        "player": json_values,
    },
)


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(batch=st.lists(messages | json_values, min_size=1, max_size=6))
def test_fuzzed_messages_never_break_the_connection_or_the_room(
    db_url: str, batch: list[Any]
) -> None:
    with TestClient(create_app(db_url)) as fuzz_client:
        room = create(fuzz_client)
        with fuzz_client.websocket_connect("/ws") as ann:
            join(fuzz_client, ann, token=room["token"])
            for message in batch:
                ann.send_text(json.dumps(message))
            assert answer(ann, {"type": "ping"})["type"] == "pong"
            state = answer(ann, {"type": "state"})
            assert state["type"] == "state" and state["state"]["you"] == "ann"

"""Names reserved for members: nobody but the member may play under a member's name (solo,
the daily board, room creation and joins; look-alike letters too), the member may, and a
member plays the daily board under their user name and sits once per room."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from bigboggle import Rules
from bigboggle.errors import GameStateError, NameTakenError
from bigboggle.names import name_key
from bigboggle.services.accounts import Accounts
from bigboggle.services.members import check_name_free, holder_of
from bigboggle.services.rooms import Rooms
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import AccountRow, Store
from bigboggle.web import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock, postgres_schema

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
#: "bob" with a Cyrillic о: the same name key as "bob".
CYRILLIC_BOB = "b\u043eb"
TAKEN = "the name 'bob' belongs to a member: log in as bob, or choose another"


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request: pytest.FixtureRequest, db_url: str) -> Iterator[Store]:
    """A fresh database: a SQLite file, or a PostgreSQL schema (skipped without one)."""
    if request.param == "sqlite":
        opened = Store(db_url)
        yield opened
        opened.close()
        return
    with postgres_schema("test_members") as url:
        opened = Store(url)
        yield opened
        opened.close()


def make_member(store: Store, name: str) -> int:
    """A member named ``name`` (no password: these tests log in by a session made for them)."""
    with store.session() as session:
        row = AccountRow(username=name, name_key=name_key(name), created_at=0.0)
        session.add(row)
        session.flush()
        return row.id


def test_a_name_is_held_by_its_member_only(store: Store) -> None:
    bob = make_member(store, "bob")
    ann = make_member(store, "ann")
    assert name_key(CYRILLIC_BOB) == name_key("bob")
    with store.session() as session:
        assert holder_of(session, "BOB") == bob
        assert holder_of(session, CYRILLIC_BOB) == bob
        assert holder_of(session, "cy") is None
        check_name_free(session, "bob", bob)  # the holder
        check_name_free(session, "cy", None)  # nobody's
        for who in (None, ann):
            with pytest.raises(NameTakenError) as refused:
                check_name_free(session, "bob", who)
            assert str(refused.value) == TAKEN


def test_solo_and_daily_starts_refuse_a_members_name(store: Store, clock: FakeClock) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    bob = make_member(store, "bob")
    ann = make_member(store, "ann")
    for name in ("bob", "Bob", CYRILLIC_BOB):
        for who in (None, ann):
            with pytest.raises(NameTakenError, match="belongs to a member"):
                games.start("big", board=BOARD, player=name, account_id=who)
    with pytest.raises(NameTakenError, match="belongs to a member"):
        games.start("big", daily=True, player="bob")  # a guest
    assert games.start("big", board=BOARD, player="BOB", account_id=bob).game.player == "BOB"
    assert games.start("big", board=BOARD, player="ann's cat", account_id=ann).game.player
    # A member plays the daily board under their own name, whatever the name field says.
    daily = games.start("big", daily=True, player="bob", account_id=ann)
    assert daily.game.player == "ann"
    with pytest.raises(GameStateError, match="already played"):
        games.start("big", daily=True, player="someone", account_id=ann)


def test_rooms_refuse_a_members_name_at_creation_and_join(store: Store, clock: FakeClock) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    bob = make_member(store, "bob")
    ann = make_member(store, "ann")
    for who in (None, ann):
        with pytest.raises(NameTakenError, match="belongs to a member"):
            rooms.create(CYRILLIC_BOB, account_id=who)
    code, _ = rooms.create("cy")
    for who in (None, ann):
        for name in ("bob", "BOB", CYRILLIC_BOB):
            with pytest.raises(NameTakenError, match="belongs to a member"):
                rooms.join(code, name, account_id=who)
    assert rooms.players(code) == ["cy"]
    rooms.join(code, "Bob", account_id=bob)
    rooms.join(code, "annie", account_id=ann)  # a member may sit under another free name
    assert rooms.public(code).to_json()["members"] == {"Bob": "bob", "annie": "ann"}
    with pytest.raises(GameStateError, match="already have a seat"):
        rooms.join(code, "ann", account_id=ann)  # one seat per member and room
    own, _ = rooms.create("bob", account_id=bob)
    assert rooms.players(own) == ["bob"]


# -- over the web ----------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    with TestClient(create_app(db_url, clock=clock)) as test_client:
        yield test_client


def log_in_as(client: TestClient, name: str) -> int:
    """Make member ``name`` and give ``client`` a session cookie of theirs; the member's id."""
    found = client.app.state.services  # type: ignore[attr-defined]
    account_id = make_member(found.store, name)
    session = Accounts(found.store, found.clock).start_session(account_id, "password")
    client.cookies.set(SESSION_COOKIE, session.token)
    return account_id


def test_the_web_refuses_a_members_name_to_guests_and_gives_members_theirs(
    client: TestClient,
) -> None:
    log_in_as(client, "bob")
    started = client.post("/api/games", json={"board": BOARD})
    assert started.status_code == 201 and started.json()["player"] == "bob"
    daily = client.post("/api/games", json={"daily": True, "player": "mallory"})
    assert daily.status_code == 201 and daily.json()["player"] == "bob"
    named = client.post("/api/games", json={"board": BOARD, "player": "Bobby"})
    assert named.json()["player"] == "Bobby"
    room = client.post("/api/rooms", json={"host": "the host"})
    assert room.status_code == 201
    code = room.json()["room"]
    client.cookies.clear()  # a guest now
    refused = client.post("/api/games", json={"board": BOARD, "player": CYRILLIC_BOB})
    assert refused.status_code == 409 and refused.json()["error"] == TAKEN.replace(
        "'bob'", repr(CYRILLIC_BOB)
    ).replace("as bob", f"as {CYRILLIC_BOB}")
    assert client.post("/api/rooms", json={"host": "BOB"}).status_code == 409
    assert client.post("/api/games", json={"board": BOARD}).json()["player"] == "you"
    with client.websocket_connect("/ws") as guest:
        guest.send_json({"type": "join", "room": code, "name": "bob", "id": 1})
        while (message := guest.receive_json())["type"] != "error":
            pass
        assert message["code"] == "name_taken" and "belongs to a member" in message["message"]


def test_the_daily_page_marks_members_and_names_the_member_playing(
    client: TestClient, clock: FakeClock
) -> None:
    client.post("/api/games", json={"daily": True, "player": "a guest"})
    log_in_as(client, "Zoë Q")
    played = client.post("/api/games", json={"daily": True}).json()
    assert played["player"] == "Zoë Q"
    clock.advance(Rules.preset("big").timer + 1)
    client.get(f"/api/games/{played['id']}", headers={"X-Game-Key": played["key"]})  # scored
    page = client.get("/daily").text
    assert "You play as <strong>Zoë Q</strong>" in page and 'id="player"' not in page
    assert (
        '<a class="member-badge" href="/players/Zo%C3%AB%20Q" '
        'aria-label="member: Zoë Q\'s profile"' in page.replace("&#39;", "'")
    )
    client.cookies.clear()
    guest_page = client.get("/daily").text
    assert 'id="player"' in guest_page and guest_page.count('class="member-badge"') == 1
    home = client.get("/").text  # the recent games mark the member's too
    assert home.count('class="member-badge" href="/players/Zo%C3%AB%20Q"') == 1

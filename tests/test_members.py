"""Names reserved for members: nobody but the member may play under a member's name (solo,
the daily board, room creation and joins; look-alike letters too), the member may, and a
member plays the daily board under their user name and sits once per room."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from bigboggle import Dictionary, Rules, solve
from bigboggle.errors import (
    GameStateError,
    KickedError,
    NameTakenError,
    NotFoundError,
    RoundInputError,
)
from bigboggle.names import name_key
from bigboggle.services.accounts import Accounts
from bigboggle.services.claims import ClaimCounts, Claims
from bigboggle.services.members import check_name_free, holder_of, marked_member
from bigboggle.services.passwords import cheap_hasher
from bigboggle.services.rooms import Rooms, Seat
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import Store
from bigboggle.web import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
#: "bob" with a Cyrillic о: the same name key as "bob".
CYRILLIC_BOB = "b\u043eb"
TAKEN = "the name 'bob' belongs to a member: log in as bob, or choose another"


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
    code, _host_token = rooms.create("cy")
    for who in (None, ann):
        for name in ("bob", "BOB", CYRILLIC_BOB):
            with pytest.raises(NameTakenError, match="belongs to a member"):
                rooms.join(code, name, account_id=who)
    assert rooms.players(code) == ["cy"]
    rooms.join(code, "Bob", account_id=bob)
    _, first_token = rooms.join(code, "annie", account_id=ann)  # under another free name
    # Marked as a member's only where the seat's name is the member's own user name.
    assert rooms.public(code).to_json()["members"] == {"Bob": "bob"}
    assert rooms.view(Seat(code, "annie")).to_json()["members"] == {"Bob": "bob"}
    # One seat per member and room: joining again (another device, any name typed) gives the
    # member's seat back, with a fresh token; the first device's token no longer works.
    assert rooms.resume(first_token) == Seat(code, "annie")
    again, token = rooms.join(code, "ann", account_id=ann)
    assert again == Seat(code, "annie") and rooms.players(code) == ["cy", "Bob", "annie"]
    assert rooms.resume(token) == again
    with pytest.raises(NotFoundError):
        rooms.resume(first_token)
    host = rooms.resume(_host_token)
    rooms.kick(host, "annie")
    with pytest.raises(KickedError):
        rooms.join(code, "ann", account_id=ann)  # removed by the host: not back this way
    own, _ = rooms.create("bob", account_id=bob)
    assert rooms.players(own) == ["bob"]


#: Names a reader takes for "alice" (review M3, acceptance #2): other scripts' letters, Latin
#: look-alikes, digits, capital I, combining dots, separators.
ALICE_LOOK_ALIKES = (
    "a\u04cfice",  # Cyrillic palochka
    "\u0251lice",  # Latin alpha
    "al\u0131ce",  # dotless i
    "a\u01c0ice",  # dental click
    "AIice",  # capital I
    "A1ice",  # digit one
    "ali\u0307ce",  # i with a combining dot above
    "AL\u0130CE",  # capital I with dot above
    "al ice",
    "alice.",
    "al_ice",
    "a-lice",
)


def test_look_alikes_of_a_members_name_are_refused_everywhere(
    store: Store, clock: FakeClock
) -> None:
    make_member(store, "alice")
    games = SoloGames(store, DictionaryShelf(), clock)
    rooms = Rooms(store, DictionaryShelf(), clock)
    accounts = Accounts(store, clock, hasher=cheap_hasher())
    code, _ = rooms.create("cy")
    for name in ALICE_LOOK_ALIKES:
        with pytest.raises(NameTakenError, match="belongs to a member"):
            games.start("big", daily=True, player=name)
        with pytest.raises(NameTakenError, match="belongs to a member"):
            games.start("big", board=BOARD, player=name)
        with pytest.raises(NameTakenError, match="belongs to a member"):
            rooms.create(name)
        with pytest.raises(NameTakenError, match="belongs to a member"):
            rooms.join(code, name)
        if name in {"AIice", "A1ice", "al ice", "al_ice", "a-lice"}:  # fit for a member's name
            with pytest.raises(NameTakenError):  # a look-alike may not sign up either
                accounts.sign_up(name, "correct horse battery staple 7")
    assert rooms.players(code) == ["cy"]


def test_a_room_refuses_look_alikes_of_a_seated_name(store: Store, clock: FakeClock) -> None:
    rooms = Rooms(store, DictionaryShelf(), clock)
    code, _ = rooms.create("Rater A")
    for name in ("Rater_A", "Rater-A", "Rater A.", "RATER A", "Rater \u0410"):
        with pytest.raises(RoundInputError, match="is taken in room"):
            rooms.join(code, name)
    assert rooms.players(code) == ["Rater A"]


def test_names_holding_the_member_mark_are_refused(store: Store, clock: FakeClock) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    rooms = Rooms(store, DictionaryShelf(), clock)
    for name in ("victim \u2713", "\u2714 victim", "victim\u2705", "vic\u2611tim"):
        with pytest.raises(RoundInputError, match="has a symbol"):
            games.start("big", daily=True, player=name)
        with pytest.raises(RoundInputError, match="has a symbol"):
            rooms.create(name)


def test_only_a_members_own_name_is_marked(store: Store, clock: FakeClock) -> None:
    assert marked_member("Alice", "alice") == "alice"
    assert marked_member("AIice", "Alice") == "Alice"  # the same name by its key
    assert marked_member("alice", None) is None
    assert marked_member("Alice ✓", "mallory") is None
    games = SoloGames(store, DictionaryShelf(), clock)
    claims = Claims(store, DictionaryShelf(), clock)
    # Mallory plays as "Alice" as a guest, signs up as mallory and claims the game.
    guest = games.start("big", daily=True, player="Alice")
    games.finish(guest.game.id, guest.key)
    mallory = make_member(store, "mallory")
    assert claims.adopt(mallory, games=[(guest.game.id, guest.key or "")]).games == 1
    own = games.start("big", account_id=make_member(store, "bob"), daily=True)
    games.finish(own.game.id, own.key)
    board = {entry.player: entry for entry in games.leaderboard("big", own.game.daily_date or "")}
    assert board["Alice"].member is None and "member" not in board["Alice"].to_json()
    assert board["bob"].member == "bob" and board["bob"].to_json()["username"] == "bob"
    recent = {game.player: game.member for game in games.recent()}
    assert recent == {"Alice": None, "bob": "bob"}


def test_a_member_plays_each_daily_board_once_even_after_a_claim(
    store: Store, clock: FakeClock
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    claims = Claims(store, DictionaryShelf(), clock)
    guest = games.start("big", daily=True, player="annie")
    games.finish(guest.game.id, guest.key)
    ann = make_member(store, "ann")
    assert claims.adopt(ann, games=[(guest.game.id, guest.key or "")]).games == 1
    # The slot "ann" is free, but ann has played today's board (as "annie"): refused.
    with pytest.raises(GameStateError, match=r"already played the Big Boggle .* daily board"):
        games.start("big", daily=True, account_id=ann)
    games.start("big", account_id=ann, board=BOARD)  # practice games are not limited
    other = games.start("classic", daily=True, account_id=ann)  # nor another preset's board
    assert other.game.player == "ann"
    # And the other way round: a member's start first, then a claim of a guest's game of the
    # same board is refused (counted), the guest's game left a guest's.
    bob = make_member(store, "bob")
    games.start("big", daily=True, account_id=bob)
    guest_bob = games.start("big", daily=True, player="bobby")
    counts = claims.adopt(bob, games=[(guest_bob.game.id, guest_bob.key or "")])
    assert counts == ClaimCounts(games=0, seats=0, refused=1)


def test_the_daily_board_ranks_ties_by_competition(
    store: Store, clock: FakeClock, standard: Dictionary
) -> None:
    games = SoloGames(store, DictionaryShelf(), clock)
    started = {name: games.start("big", daily=True, player=name) for name in "abcde"}
    board = started["a"].game.board
    words = [word.word for word in solve(board, standard, Rules.preset("big")).words[:3]]
    found = {"a": words, "b": words[:1], "c": words[:1], "d": [], "e": []}
    for name, view in started.items():
        for word in found[name]:
            games.submit(view.game.id, word, view.key)
        clock.advance(1)  # ties keep their finishing order
        games.finish(view.game.id, view.key)
    entries = games.leaderboard("big", started["a"].game.daily_date or "")
    assert [(entry.player, entry.place) for entry in entries] == [
        ("a", 1),
        ("b", 2),
        ("c", 2),
        ("d", 4),
        ("e", 4),
    ]
    assert [entry.to_json()["place"] for entry in entries] == [1, 2, 2, 4, 4]


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
        'title="Zoë Q\'s profile">member</a>' in page.replace("&#39;", "'")
    )
    client.cookies.clear()
    guest_page = client.get("/daily").text
    assert 'id="player"' in guest_page and guest_page.count('<a class="member-badge"') == 1
    home = client.get("/").text  # the recent games mark the member's too
    assert home.count('class="member-badge" href="/players/Zo%C3%AB%20Q"') == 1


def test_the_daily_page_and_api_share_places_and_refuse_the_member_mark(
    client: TestClient,
) -> None:
    for name in ("ann", "bob", "cy"):  # three games with no word: three tied at 0 points
        started = client.post("/api/games", json={"daily": True, "player": name}).json()
        ended = client.post(
            f"/api/games/{started['id']}/finish", headers={"X-Game-Key": started["key"]}
        )
        assert ended.status_code == 200
    board = client.get("/api/daily").json()["leaderboard"]
    assert [entry["place"] for entry in board] == [1, 1, 1]
    page = client.get("/daily").text
    assert page.count("<tr><td>1</td>") == 3 and "<tr><td>2</td>" not in page
    refused = client.post("/api/games", json={"daily": True, "player": "victim \u2713"})
    assert (
        refused.status_code == 400
        and "has a symbol (CHECK MARK, U+2713)" in refused.json()["error"]
    )

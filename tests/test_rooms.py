"""Multiplayer rooms in the library: seats, the host's controls, rounds on the server's clock,
crossing off across players and teams, handicaps, the challenge cube, totals, and the database
as the only memory (a second Rooms object on the same database carries on)."""

from __future__ import annotations

import pytest

from bigboggle import Board, Dictionary, Rules, shake, solve
from bigboggle.errors import GameStateError, RoundInputError, RulesError
from bigboggle.rooms import GRACE, START_DELAY, NotHostError, RoomFullError, Rooms, Seat
from bigboggle.shelf import DictionaryShelf
from bigboggle.solo_games import NotFoundError
from bigboggle.store import Store
from bigboggle.verdicts import Verdict
from conftest import FakeClock

pytestmark = pytest.mark.once


@pytest.fixture
def rooms(db_url: str, clock: FakeClock) -> Rooms:
    return Rooms(Store(db_url), DictionaryShelf(), clock)


def words_on(board: str, standard: Dictionary, rules: Rules | None = None) -> list[str]:
    return [found.word for found in solve(board, standard, rules or Rules.preset("big"))]


def play_round(rooms: Rooms, clock: FakeClock, code: str, seed: int = 7) -> str:
    """Start a round as the host (ann) and move to its start; returns the board."""
    board = rooms.start_round(Seat(code, "ann"), seed=seed).board
    clock.advance(START_DELAY)
    return board


def finish(rooms: Rooms, clock: FakeClock, code: str) -> None:
    deadline = rooms.next_deadline(code)
    assert deadline is not None
    clock.now = deadline
    assert rooms.end_round_if_due(code) is not None


def test_seats_tokens_and_limits(rooms: Rooms) -> None:
    code, ann_token = rooms.create("ann", {"max_players": 2})
    assert len(code) == 5 and code.isupper()
    bob_token = rooms.join(code.lower(), "bob")  # codes are not case-sensitive
    assert rooms.resume(ann_token) == Seat(code, "ann")
    assert rooms.resume(bob_token) == Seat(code, "bob")
    assert rooms.players(code) == ["ann", "bob"]
    with pytest.raises(RoomFullError, match="full"):
        rooms.join(code, "cy")
    with pytest.raises(NotFoundError):
        rooms.join("ZZZZZ", "cy")
    with pytest.raises(NotFoundError):
        rooms.resume("not-a-real-token")


def test_names_must_be_new_and_sane(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    with pytest.raises(RoundInputError, match="taken"):
        rooms.join(code, "ANN")
    with pytest.raises(RoundInputError, match="name"):
        rooms.join(code, "")
    with pytest.raises(RoundInputError, match="longer"):
        rooms.join(code, "x" * 41)


def test_only_the_host_starts_and_configures(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    with pytest.raises(NotHostError):
        rooms.start_round(Seat(code, "bob"))
    with pytest.raises(NotHostError):
        rooms.configure(Seat(code, "bob"), {"timer": 30})
    rooms.configure(Seat(code, "ann"), {"timer": 30})
    assert rooms.public(code)["settings"]["timer"] == 30


@pytest.mark.parametrize(
    ("settings", "error", "message"),
    [
        ({"rules": "giant"}, RulesError, "unknown rules"),
        ({"timer": 2}, RulesError, "timer"),
        ({"options": {"teams": True}}, RulesError, "not a room option"),
        ({"colour": "red"}, RoundInputError, "unknown key 'colour'"),
        ({"max_players": 500}, RoundInputError, "max_players"),
        ({"dictionary": "klingon"}, Exception, "unknown dictionary"),
        ({"teams": ["red"]}, RoundInputError, "teams"),
    ],
)
def test_bad_settings_are_refused_by_name(
    rooms: Rooms, settings: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        rooms.create("ann", settings)


def test_a_round_on_the_servers_clock(rooms: Rooms, clock: FakeClock, standard: Dictionary) -> None:
    code, _ = rooms.create("ann", {"timer": 60})
    rooms.join(code, "bob")
    ann, bob = Seat(code, "ann"), Seat(code, "bob")
    started = rooms.start_round(ann, seed=7)
    assert started.board == str(shake("big", 7).board)
    assert started.starts_at == clock.now + START_DELAY
    assert started.deadline == started.starts_at + 60
    with pytest.raises(GameStateError, match="already running"):
        rooms.start_round(ann)
    with pytest.raises(GameStateError, match="not started yet"):
        rooms.submit(ann, "fine")
    clock.advance(START_DELAY)
    words = words_on(started.board, standard)
    assert rooms.submit(ann, words[0]).verdict is Verdict.SCORED
    assert rooms.submit(ann, words[0]).verdict is Verdict.REPEATED
    assert rooms.submit(bob, words[0]).verdict is Verdict.SCORED  # private: not crossed off yet
    assert rooms.submit(bob, words[1]).verdict is Verdict.SCORED
    # Each player sees only their own words while the round runs.
    assert [w["word"] for w in rooms.view(ann)["round"]["words"]] == [words[0]]
    clock.now = started.deadline
    with pytest.raises(GameStateError, match="time is up"):
        rooms.submit(bob, words[2])
    assert rooms.end_round_if_due(code) is None  # the grace: words on their way still count
    clock.advance(GRACE)
    result = rooms.end_round_if_due(code)
    assert result is not None
    assert rooms.end_round_if_due(code) is None  # scored once
    assert [w.verdict for w in result.players["ann"].words] == [Verdict.CROSSED_OFF]
    assert [w.verdict for w in result.players["bob"].words] == [
        Verdict.CROSSED_OFF,
        Verdict.SCORED,
    ]
    view = rooms.view(bob)
    assert view["round"] is None and view["last"]["number"] == 1
    assert view["totals"] == {"bob": result.players["bob"].score, "ann": 0}
    assert view["last"]["missed"] and view["last"]["board"] == started.board


def test_teams_handicaps_and_the_challenge_cube(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"options": {"challenge": True}})
    for name in ("bob", "cy"):
        rooms.join(code, name)
    rooms.configure(
        Seat(code, "ann"),
        {
            "options": {"challenge": True},
            "teams": {"red": ["ann", "bob"], "blue": ["cy"]},
            "handicaps": {"cy": 3},
        },
    )
    board = play_round(rooms, clock, code, seed=11)
    assert Board(board).challenge is not None
    rules = Rules.preset("big", min_length=3)
    everything = solve(board, standard, rules)
    three = next(f.word for f in everything if len(f.word) == 3 and not f.bonus)
    through = next(f for f in everything if len(f.word) >= 4 and f.bonus)
    assert rooms.submit(Seat(code, "cy"), three).score == 1  # cy may play 3-letter words
    assert rooms.submit(Seat(code, "ann"), three).verdict is Verdict.TOO_SHORT
    assert rooms.submit(Seat(code, "ann"), through.word).bonus == 5
    rooms.submit(Seat(code, "bob"), through.word)  # same team: not crossed off
    finish(rooms, clock, code)
    view = rooms.view(Seat(code, "cy"))
    last = view["last"]
    assert last["teams"]["red"]["score"] == through.score
    assert last["teams"]["blue"]["score"] == 1
    assert view["standings"] == ["red", "blue"]


def test_teams_must_cover_every_player(rooms: Rooms) -> None:
    code, _ = rooms.create("ann")
    rooms.join(code, "bob")
    rooms.configure(Seat(code, "ann"), {"teams": {"red": ["ann"]}})
    with pytest.raises(RoundInputError, match="bob"):
        rooms.start_round(Seat(code, "ann"))


def test_totals_carry_over_until_the_target(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"target": 5})
    rooms.join(code, "bob")
    while not rooms.public(code)["over"]:
        board = play_round(rooms, clock, code, seed=int(clock.now) % 1000)
        for word in words_on(board, standard)[:3]:
            rooms.submit(Seat(code, "ann"), word)
        finish(rooms, clock, code)
    public = rooms.public(code)
    assert public["winner"] == "ann" and public["totals"]["ann"] >= 5
    with pytest.raises(GameStateError, match="over"):
        rooms.start_round(Seat(code, "ann"))
    with pytest.raises(GameStateError, match="over"):
        rooms.join(code, "late")


def test_a_late_joiner_waits_for_the_next_round(rooms: Rooms, clock: FakeClock) -> None:
    code, _ = rooms.create("ann")
    play_round(rooms, clock, code)
    rooms.join(code, "dan")
    with pytest.raises(GameStateError, match="next one"):
        rooms.submit(Seat(code, "dan"), "word")
    assert rooms.view(Seat(code, "dan"))["round"]["playing"] is False


def test_another_process_on_the_same_database_carries_on(
    db_url: str, clock: FakeClock, standard: Dictionary
) -> None:
    first = Rooms(Store(db_url), DictionaryShelf(), clock)
    code, token = first.create("ann")
    board = play_round(first, clock, code)
    word = words_on(board, standard)[0]
    first.submit(Seat(code, "ann"), word)
    second = Rooms(Store(db_url), DictionaryShelf(), clock)  # a restart, or another server
    seat = second.resume(token)
    assert [w["word"] for w in second.view(seat)["round"]["words"]] == [word]
    assert second.submit(seat, word).verdict is Verdict.REPEATED
    clock.now = second.next_deadline(code)  # type: ignore[assignment]
    assert second.end_round_if_due(code) is not None
    assert first.end_round_if_due(code) is None  # already scored by the other
    assert first.view(seat)["totals"]["ann"] > 0


def test_a_lowered_target_ends_the_game_at_once(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"timer": 30})
    board = play_round(rooms, clock, code)
    for word in words_on(board, standard)[:3]:
        rooms.submit(Seat(code, "ann"), word)
    finish(rooms, clock, code)
    rooms.configure(Seat(code, "ann"), {"timer": 30, "target": 1})  # already passed
    public = rooms.public(code)
    assert public["over"] and public["winner"] == "ann"
    with pytest.raises(GameStateError, match="over"):
        rooms.start_round(Seat(code, "ann"))
    with pytest.raises(GameStateError, match="over"):
        rooms.configure(Seat(code, "ann"), {"rounds": 5})
    view = rooms.view(Seat(code, "ann"))
    assert view["last"]["number"] == 1 and view["rounds_played"] == 1


def test_results_belong_to_their_own_round(
    rooms: Rooms, clock: FakeClock, standard: Dictionary
) -> None:
    code, _ = rooms.create("ann", {"timer": 30})
    for seed in (1, 2):
        board = play_round(rooms, clock, code, seed=seed)
        rooms.submit(Seat(code, "ann"), words_on(board, standard)[seed])
        finish(rooms, clock, code)
        last = rooms.view(Seat(code, "ann"))["last"]
        assert last["number"] == seed and last["board"] == board
        assert [w["word"] for w in last["players"]["ann"]["words"]] == [
            words_on(board, standard)[seed]
        ]


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"teams": {"": ["ann"]}}, "name"),
        ({"teams": {"red": ["ann", "ann"]}}, "two teams"),
        ({"teams": {"red": ["ann"], "blue": ["ann"]}}, "two teams"),
        ({"teams": {"red": []}}, "list of players"),
        ({"handicaps": {"ann": 99}}, "word length"),
        ({"handicaps": {"": 3}}, "name"),
    ],
)
def test_teams_and_handicaps_are_checked_when_set(
    rooms: Rooms, settings: dict[str, object], message: str
) -> None:
    code, _ = rooms.create("ann")
    with pytest.raises(RoundInputError, match=message):
        rooms.configure(Seat(code, "ann"), settings)


def test_two_starts_or_two_joins_at_once_give_one_winner(rooms: Rooms) -> None:
    import threading

    code, _ = rooms.create("ann")
    outcomes: list[str] = []
    barrier = threading.Barrier(4)

    def attempt(action: str) -> None:
        barrier.wait()
        try:
            if action == "start":
                rooms.start_round(Seat(code, "ann"))
            else:
                rooms.join(code, "bob")
            outcomes.append(f"{action}: ok")
        except (GameStateError, RoundInputError) as exc:
            outcomes.append(f"{action}: {type(exc).__name__}")

    threads = [
        threading.Thread(target=attempt, args=(a,)) for a in ("start", "start", "join", "join")
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == [
        "join: RoundInputError",
        "join: ok",
        "start: GameStateError",
        "start: ok",
    ]
    assert rooms.players(code) == ["ann", "bob"]

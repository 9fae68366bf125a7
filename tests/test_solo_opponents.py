"""Solo games against computer opponents: their lists made at the start and stored, counts (never
words) while the game runs, every seat scored together at the end with crossing off by the rules,
the limits, the daily board kept solo, and members' history; through the service (SQLite and
PostgreSQL) and the API."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from bigboggle import Dictionary, Rules, score_round
from bigboggle.errors import RulesError
from bigboggle.limits import MAX_SOLO_OPPONENTS
from bigboggle.opponents import Opponent
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.solo_views import OpponentChoice
from bigboggle.services.store import PlayRow, SoloOpponentRow, Store
from bigboggle.verdicts import Verdict
from bigboggle.web import create_app
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
#: Words on BOARD (each scores), and one that is not on it.
MINE = ["lines", "arsenite", "hemp", "bear"]


@pytest.fixture
def games(store: Store, clock: FakeClock) -> SoloGames:
    return SoloGames(store, DictionaryShelf(), clock)


def strings_in(data: Any) -> Iterator[str]:
    """Every string value anywhere in ``data`` (JSON-shaped)."""
    if isinstance(data, str):
        yield data
    elif isinstance(data, dict):
        for value in data.values():
            yield from strings_in(value)
    elif isinstance(data, list):
        for value in data:
            yield from strings_in(value)


def stored_lists(games: SoloGames, game_id: str) -> dict[str, list[tuple[float, str]]]:
    with games.store.session() as session:
        rows = session.scalars(
            select(SoloOpponentRow).where(SoloOpponentRow.game_id == game_id)
        ).all()
        return {row.name: [(float(at), str(entry)) for at, entry in row.entries] for row in rows}


def test_opponents_lists_are_the_seeded_opponents_and_stored_at_the_start(
    games: SoloGames, standard: Dictionary
) -> None:
    view = games.start(
        "big",
        board=BOARD,
        player="ann",
        opponents=[OpponentChoice("club", seed=5), OpponentChoice("club", seed=6), "beginner"],
    )
    lists = stored_lists(games, view.game.id)
    assert sorted(lists) == ["Beginner bot", "Club bot", "Club bot 2"]
    expected = Opponent("club", seed=5).play(BOARD, standard, Rules.preset("big"), 180)
    assert lists["Club bot"] == [(round(at, 3), entry) for at, entry in expected]
    assert lists["Club bot"] != lists["Club bot 2"]  # another seed, another list
    data = view.to_json()
    assert [seat["name"] for seat in data["opponents"]] == [
        "Club bot",
        "Club bot 2",
        "Beginner bot",
    ]
    assert [seat["written"] for seat in data["opponents"]] == [0, 0, 0]  # nothing yet at 0 s


def test_while_running_the_counts_grow_on_the_servers_clock_and_no_word_shows(
    games: SoloGames, clock: FakeClock
) -> None:
    view = games.start("big", board=BOARD, opponents=["solver", "expert"])
    game_id, key = view.game.id, view.key
    lists = stored_lists(games, game_id)
    games.submit(game_id, "lines", key)
    clock.advance(90)
    for reader in (key, None):  # the player's view and anyone's
        data = games.get(game_id, reader).to_json()
        assert data["phase"] == "running"
        for seat in data["opponents"]:
            timed = lists[seat["name"]]
            assert seat["written"] == sum(1 for at, _ in timed if at <= 90)
            assert seat["times"] == [at for at, _ in timed]
            assert "words" not in seat
        theirs = {entry for timed in lists.values() for (entry,) in [(e,) for _, e in timed]}
        shown = set(strings_in({k: v for k, v in data.items() if k != "words"}))
        assert not shown & theirs, shown & theirs
    assert games.get(game_id, key).to_json()["words"][0]["word"] == "lines"  # the player's own


def test_every_seat_is_scored_together_with_crossing_off_by_the_rules(
    games: SoloGames, clock: FakeClock, standard: Dictionary
) -> None:
    view = games.start("big", board=BOARD, player="ann", opponents=["solver", "club"])
    game_id, key = view.game.id, view.key
    for word in MINE:
        clock.advance(1)
        games.submit(game_id, word, key)
    clock.advance(200)
    data = games.get(game_id, key).to_json()
    assert data["phase"] == "ended"
    verdicts = {word["word"]: word["verdict"] for word in data["words"]}
    # The solver finds every word: each of the player's good words is crossed off.
    assert verdicts == {
        "lines": "crossed_off",
        "arsenite": "crossed_off",
        "hemp": "not_on_board",
        "bear": "crossed_off",
    }
    assert data["score"] == 0 and data["crossed_off"] == 3
    # The same lists scored by the library's one scoring function give the same verdicts.
    lists = {"ann": MINE} | {
        seat["name"]: [word.get("entry", word["word"]) for word in seat["words"]]
        for seat in data["opponents"]
    }
    expected = score_round(BOARD, lists, Rules.preset("big"), standard)
    for seat in data["opponents"]:
        assert seat["score"] == expected.players[seat["name"]].score
        assert [w["verdict"] for w in seat["words"]] == [
            w.verdict.value for w in expected.players[seat["name"]].words
        ]
    solver = data["opponents"][0]
    assert solver["strength"] == "solver" and solver["label"] == "Solver"
    # Its points: the board's words that no one else found (the player's and the club's cross off).
    others = {"lines", "arsenite", "bear"} | {
        word["word"] for word in data["opponents"][1]["words"] if word["verdict"] == "crossed_off"
    }
    assert solver["score"] == sum(w.score for w in expected.solution if w.word not in others)
    ranking = data["ranking"]
    assert ranking[0] == {
        "name": "Solver bot",
        "score": solver["score"],
        "place": 1,
        "you": False,
        "strength": "solver",
    }
    assert [entry["name"] for entry in ranking if entry["you"]] == ["ann"]
    # The player's missed words say which opponent found them.
    assert all("Solver bot" in word["found_by"] for word in data["missed"])


def test_entries_due_after_an_early_finish_do_not_count(games: SoloGames, clock: FakeClock) -> None:
    view = games.start("big", board=BOARD, opponents=["solver"])
    clock.advance(30)
    data = games.finish(view.game.id, view.key).to_json()
    timed = stored_lists(games, view.game.id)["Solver bot"]
    written = [word.get("entry", word["word"]) for word in data["opponents"][0]["words"]]
    assert written == [entry for at, entry in timed if at < 30]
    assert 0 < len(written) < len(timed)


def test_the_limits_and_unknown_strengths_are_refused_before_any_work(
    games: SoloGames,
) -> None:
    with pytest.raises(RulesError, match=f"at most {MAX_SOLO_OPPONENTS} in a solo game"):
        games.start("big", board=BOARD, opponents=["club"] * (MAX_SOLO_OPPONENTS + 1))
    games.start("big", board=BOARD, opponents=["beginner"] * MAX_SOLO_OPPONENTS)  # the limit
    with pytest.raises(
        RulesError, match=r"opponents\[1\]: unknown opponent strength 'grandmaster'"
    ):
        games.start("big", board=BOARD, opponents=["club", "grandmaster"])
    # Opponents play boards of the presets' sizes: on a given 12x12 board each would write
    # thousands of words into a game anyone may read.
    with pytest.raises(RulesError, match=r"up to 36 cells \(6x6\), not 7x7"):
        games.start("big", board="/".join(["LINESTQ"] * 7), opponents=["solver"])
    games.start("big", board="/".join(["LINEST"] * 6), opponents=["solver"])  # 6x6 is fine
    with pytest.raises(RulesError, match="beginner, casual, club, expert, solver"):
        games.start("big", board=BOARD, opponents=["grandmaster"])
    with pytest.raises(RulesError, match="daily board is played alone"):
        games.start("big", daily=True, opponents=["club"])


def test_a_members_history_records_the_score_after_crossing_off(
    games: SoloGames, clock: FakeClock
) -> None:
    member = make_member(games.store, "bea")
    view = games.start("big", board=BOARD, account_id=member, opponents=["solver"])
    games.submit(view.game.id, "lines", view.key)
    clock.advance(200)
    data = games.get(view.game.id, view.key).to_json()
    assert data["score"] == 0  # crossed off by the solver
    with games.store.session() as session:
        play = session.scalars(select(PlayRow).where(PlayRow.ref == view.game.id)).one()
        assert play.score == data["score"] == 0


# -- the API -------------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(db_url, clock=clock))


def test_a_game_against_opponents_over_the_api(client: TestClient, clock: FakeClock) -> None:
    started = client.post(
        "/api/games",
        json={"board": BOARD, "player": "cy", "opponents": [{"strength": "club", "seed": 3}]},
    )
    assert started.status_code == 201, started.text
    game = started.json()
    assert game["opponents"][0]["name"] == "Club bot"
    headers = {"X-Game-Key": game["key"]}
    assert (
        client.post(
            f"/api/games/{game['id']}/words", json={"word": "lines"}, headers=headers
        ).status_code
        == 200
    )
    clock.advance(100)
    running = client.get(f"/api/games/{game['id']}").json()
    assert running["opponents"][0]["written"] == sum(
        1 for at in running["opponents"][0]["times"] if at <= 100
    )
    clock.advance(100)
    over = client.get(f"/api/games/{game['id']}", headers=headers).json()
    assert over["phase"] == "ended"
    club = over["opponents"][0]
    assert club["name"] == "Club bot" and club["strength"] == "club"
    assert all(word["verdict"] in {v.value for v in Verdict} for word in club["words"])
    assert {entry["name"] for entry in over["ranking"]} == {"cy", "Club bot"}
    assert "opponent_strengths" in client.get("/api/rules").json()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"opponents": [{"strength": "grandmaster"}]}, "unknown opponent strength 'grandmaster'"),
        ({"opponents": [{"strength": "club"}] * (MAX_SOLO_OPPONENTS + 1)}, "opponents"),
        ({"opponents": [{"strength": "club", "nerf": 1}]}, "nerf"),
        ({"opponents": [{"strength": "club"}], "daily": True}, "daily board is played alone"),
    ],
)
def test_bad_opponents_are_400_naming_what(
    client: TestClient, body: dict[str, Any], message: str
) -> None:
    answer = client.post("/api/games", json=body)
    assert answer.status_code == 400, answer.text
    assert message in answer.json()["error"]

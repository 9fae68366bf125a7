"""Challenges over HTTP (the ASGI client): the contract's shapes, privacy of words, who may play
which seat, the pages, and every refusal a 4xx with a message (never a 500)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from bigboggle import Dictionary, Rules, solve
from bigboggle.web import create_app
from bigboggle.web.pool import WorkerPool
from conftest import FakeClock

pytestmark = pytest.mark.once

PASSWORD = "a long enough passphrase 42"


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    pool = WorkerPool(workers=1, queue=8, budget=60, kind="thread")
    with TestClient(create_app(db_url, clock=clock, pool=pool)) as client:
        yield client


def words_of(board: str, standard: Dictionary) -> list[str]:
    return [found.word for found in solve(board, standard, Rules.preset("big")).words]


def play(client: TestClient, code: str, body: dict[str, Any], key: str | None = None) -> Any:
    headers = {"X-Game-Key": key} if key else {}
    answer = client.post(f"/api/challenges/{code}/play", json=body, headers=headers)
    assert answer.status_code == 201, answer.text
    return answer.json()


def enter(client: TestClient, game: dict[str, Any], words: list[str]) -> None:
    key = {"X-Game-Key": game["key"]}
    for word in words:
        assert client.post(f"/api/games/{game['id']}/words", json={"word": word}, headers=key)
    assert client.post(f"/api/games/{game['id']}/finish", headers=key).status_code == 200


def test_the_contract_three_players_and_privacy(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    made = client.post("/api/challenges", json={"rules": "big", "rounds": 1, "timer": 60})
    assert made.status_code == 201
    data = made.json()
    assert {"code", "url", "closes"} <= set(data)
    code = data["code"]
    assert data["url"] == f"/challenges/{code}"
    assert data["closes"] == clock() + 7 * 86_400
    assert made.headers["Cache-Control"] == "private, no-store"

    ann = play(client, code, {"player": "Ann"})
    assert {"id", "key", "board", "deadline"} <= set(ann)
    assert ann["challenge"] == code and ann["round"] == 1
    assert ann["deadline"] == clock() + 60
    w = words_of(ann["board"], standard)
    enter(client, ann, [w[0], w[1]])

    clock.advance(3600)
    bob = play(client, code, {"player": "Bob"})
    assert bob["board"] == ann["board"]
    # Bob, mid-game, sees Ann's score and place but none of her words (nor the board).
    for path in (f"/api/challenges/{code}", f"/api/challenges/{code}/results"):
        text = client.get(path, headers={"X-Game-Key": bob["key"]}).text
        assert w[0] not in text and w[1] not in text and ann["board"] not in text
        assert ann["id"] not in text  # her game's page would show her words
    shown = client.get(f"/api/challenges/{code}").json()
    assert [(p["name"], p["finished"], p["playing"]) for p in shown["players"]] == [
        ("Ann", [1], None),
        ("Bob", [], 1),
    ]
    assert shown["rules"] == "big" and shown["timer"] == 60 and shown["rounds"] == 1
    enter(client, bob, [w[1], w[2]])

    clock.advance(86_400)
    cy = play(client, code, {"player": "Cy"})
    enter(client, cy, [w[2], w[3]])
    results = client.get(
        f"/api/challenges/{code}/results", headers={"X-Game-Key": cy["key"]}
    ).json()
    (round_one,) = results["round_results"]
    assert round_one["visible"] and round_one["board"] == ann["board"]
    found = {
        player["name"]: {word["word"]: word["verdict"] for word in player["words"]}
        for player in round_one["players"]
    }
    assert found == {
        "Ann": {w[0]: "scored", w[1]: "crossed_off"},
        "Bob": {w[1]: "crossed_off", w[2]: "crossed_off"},
        "Cy": {w[2]: "crossed_off", w[3]: "scored"},
    }
    assert round_one["ranking"] == [p["name"] for p in round_one["players"]]
    assert {word["word"] for word in round_one["missed"]}.isdisjoint({w[0], w[1], w[2], w[3]})
    # One round: the standings are the round's, in its order (a tie ordered by the longer
    # words) and with its places (equal scores share a place).
    assert [(row["name"], row["place"]) for row in results["standings"]] == [
        (player["name"], player["place"]) for player in round_one["players"]
    ]
    # A stranger: who played, scores, places; never a word.
    public = client.get(f"/api/challenges/{code}/results").json()
    assert not public["round_results"][0]["visible"]
    assert all("words" not in player for player in public["round_results"][0]["players"])
    assert w[3] not in json.dumps(public)


def test_the_next_round_needs_the_seats_key(client: TestClient) -> None:
    code = client.post("/api/challenges", json={"rules": "classic", "rounds": 2}).json()["code"]
    ann = play(client, code, {"player": "Ann"})
    running = client.post(
        f"/api/challenges/{code}/play", json={"player": "Ann"}, headers={"X-Game-Key": ann["key"]}
    )
    assert running.status_code == 409 and "still running" in running.json()["error"]
    enter(client, ann, [])
    stolen = client.post(f"/api/challenges/{code}/play", json={"player": "ann"})
    assert stolen.status_code == 403 and "X-Game-Key" in stolen.json()["error"]
    second = play(client, code, {"player": "Ann"}, key=ann["key"])
    assert second["round"] == 2
    mine = client.get(f"/api/challenges/{code}", headers={"X-Game-Key": second["key"]}).json()
    assert mine["you"] == {"name": "Ann", "finished": [1], "playing": 2, "next_round": None}
    enter(client, second, [])
    done = client.post(f"/api/challenges/{code}/play", json={}, headers={"X-Game-Key": ann["key"]})
    assert done.status_code == 409 and "every round" in done.json()["error"]


def test_a_challenge_from_a_finished_game_and_a_members_profile(
    client: TestClient, clock: FakeClock
) -> None:
    signed = client.post("/api/account", json={"username": "Mira", "password": PASSWORD})
    assert signed.status_code in (200, 201), signed.text
    game = client.post("/api/games", json={"rules": "classic", "options": {"timer": 30}}).json()
    assert game["player"] == "Mira"
    refused = client.post("/api/challenges", json={"from_game": game["id"]})
    assert refused.status_code == 409 and "not finished" in refused.json()["error"]
    client.post(f"/api/games/{game['id']}/finish", headers={"X-Game-Key": game["key"]})
    made = client.post("/api/challenges", json={"from_game": game["id"], "rounds": 2})
    assert made.status_code == 201, made.text
    data = made.json()
    assert data["rules"] == "classic" and data["timer"] == 30
    assert data["you"]["name"] == "Mira" and data["you"]["next_round"] == 2
    assert data["players"][0]["member"] is True
    page = client.get("/players/Mira")
    assert "Your challenges" in page.text and data["code"] in page.text
    profile = client.get("/api/players/Mira").json()
    assert profile["challenges"][0]["code"] == data["code"]
    # Anyone else may not make a challenge of her game.
    client.cookies.clear()
    other = client.post("/api/challenges", json={"from_game": game["id"]})
    assert other.status_code == 403
    assert "challenges" not in client.get("/api/players/Mira").json()
    guest = client.post(f"/api/challenges/{data['code']}/play", json={"player": "MIRA"})
    assert guest.status_code in (403, 409)


def test_closing_refuses_play_and_opens_the_words(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    code = client.post("/api/challenges", json={"hours": 1, "timer": 30}).json()["code"]
    ann = play(client, code, {"player": "Ann"})
    w = words_of(ann["board"], standard)
    enter(client, ann, [w[0]])
    clock.advance(3601)
    late = client.post(f"/api/challenges/{code}/play", json={"player": "Bob"})
    assert late.status_code == 409 and "closed" in late.json()["error"]
    public = client.get(f"/api/challenges/{code}/results").json()
    assert public["closed"] and public["final"]
    assert public["round_results"][0]["visible"]
    assert public["round_results"][0]["players"][0]["words"][0]["word"] == w[0]


BAD_BODIES: list[tuple[dict[str, Any], str]] = [
    ({"rounds": 0}, "rounds"),
    ({"rounds": 11}, "rounds"),
    ({"timer": 3}, "timer"),
    ({"hours": 721}, "hours"),
    ({"rules": "chess"}, "chess"),
    ({"options": {"teams": True}}, "teams"),
    ({"duplicates": "sometimes"}, "duplicates"),
    ({"surprise": 1}, "surprise"),
    ({"from_game": ""}, "from_game"),
    ({"rounds": "2"}, "rounds"),
]


TEAM_BODIES: list[tuple[dict[str, Any], str]] = [
    ({"teams": ["Red"]}, "teams: 1 given"),
    ({"teams": [f"t{n}" for n in range(9)]}, "teams: 9 given"),
    ({"teams": ["Red", "red"]}, "teams[1]: 'Red' and 'red' are the same name"),
    ({"teams": ["Red", 3]}, "teams[1]: Input should be a valid string"),
    ({"teams": ["Red", ""]}, "teams[1]"),
    ({"teams": "Red,Blue"}, "teams"),
    ({"teams": ["Red", "Blue"], "team": "Red"}, "team: only with from_game"),
]


def test_bad_teams_are_named(client: TestClient) -> None:
    for body, named in TEAM_BODIES:
        answer = client.post("/api/challenges", json=body)
        assert answer.status_code == 400, (body, answer.text)
        assert named in answer.json()["error"], (body, answer.json()["error"])


def test_a_team_challenge_over_http(client: TestClient, standard: Dictionary) -> None:
    made = client.post("/api/challenges", json={"timer": 30, "rounds": 2, "teams": ["Red", "Blue"]})
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    assert made.json()["teams"] == [
        {"name": "Red", "players": []},
        {"name": "Blue", "players": []},
    ]
    url = f"/api/challenges/{code}/play"
    missing = client.post(url, json={"player": "Ann"})
    assert missing.status_code == 400
    assert (
        missing.json()["error"]
        == "team: this challenge is played in teams; choose one of 'Red', 'Blue'"
    )
    unknown = client.post(url, json={"player": "Ann", "team": "Green"})
    assert unknown.status_code == 400 and "'Green' is not a team here" in unknown.json()["error"]
    too_long = client.post(url, json={"player": "Ann", "team": "x" * 41})
    assert too_long.status_code == 400 and "team" in too_long.json()["error"]
    ann = play(client, code, {"player": "Ann", "team": "Red"})
    w = words_of(ann["board"], standard)
    enter(client, ann, [w[0], w[1]])
    cy = play(client, code, {"player": "Cy", "team": "Red"})
    enter(client, cy, [w[0]])
    bob = play(client, code, {"player": "Bob", "team": "Blue"})
    enter(client, bob, [w[1], w[2]])
    changed = client.post(url, json={"team": "Blue"}, headers={"X-Game-Key": ann["key"]})
    assert changed.status_code == 400 and "fixed" in changed.json()["error"]
    shown = client.get(f"/api/challenges/{code}", headers={"X-Game-Key": ann["key"]}).json()
    assert shown["teams"] == [
        {"name": "Red", "players": ["Ann", "Cy"]},
        {"name": "Blue", "players": ["Bob"]},
    ]
    assert shown["you"]["team"] == "Red"
    assert [p["team"] for p in shown["players"]] == ["Red", "Red", "Blue"]
    results = client.get(f"/api/challenges/{code}/results", headers={"X-Game-Key": ann["key"]})
    round_one = results.json()["round_results"][0]
    found = {
        player["name"]: {word["word"]: word["verdict"] for word in player["words"]}
        for player in round_one["players"]
    }
    assert found == {
        "Ann": {w[0]: "scored", w[1]: "crossed_off"},
        "Cy": {w[0]: "scored"},
        "Bob": {w[1]: "crossed_off", w[2]: "scored"},
    }
    teams = {team["team"]: team for team in round_one["team_standings"]}
    assert teams["Red"]["members"] == ["Ann", "Cy"] and teams["Blue"]["members"] == ["Bob"]
    overall = {team["team"]: team["total"] for team in results.json()["team_standings"]}
    assert overall == {"Red": teams["Red"]["score"], "Blue": teams["Blue"]["score"]}
    # The page's standings: the teams' table, for anyone.
    page = client.get(f"/challenges/{code}").text
    assert 'id="team-standings"' in page and "Red" in page
    assert 'id="team"' in page  # the play form's team choice
    plain = client.post("/api/challenges", json={}).json()["code"]
    refused = client.post(f"/api/challenges/{plain}/play", json={"player": "Ann", "team": "Red"})
    assert refused.status_code == 400 and "has no teams" in refused.json()["error"]
    assert 'id="team"' not in client.get(f"/challenges/{plain}").text


def test_bad_bodies_are_named(client: TestClient) -> None:
    for body, named in BAD_BODIES:
        answer = client.post("/api/challenges", json=body)
        assert answer.status_code == 400, (body, answer.text)
        assert named in answer.json()["error"], body


def test_every_refusal_is_a_4xx(client: TestClient) -> None:
    code = client.post("/api/challenges", json={}).json()["code"]
    cases = [
        client.get("/api/challenges/NOPE"),
        client.get("/api/challenges/" + "B" * 21),
        client.get("/api/challenges/BBBBBBBB/results"),
        client.post("/api/challenges/BBBBBBBB/play", json={"player": "x"}),
        client.post(f"/api/challenges/{code}/play", json={"player": ""}),
        client.post(f"/api/challenges/{code}/play", json={"player": "x" * 41}),
        client.post(f"/api/challenges/{code}/play", json={"player": "\u200b"}),
        client.post(f"/api/challenges/{code}/play", json={}),
        client.post(f"/api/challenges/{code}/play", json=[1]),
        client.post(f"/api/challenges/{code}/play", content=b"{", headers=_json),
        client.post(f"/api/challenges/{code}/play", content=b"player=x"),
        client.post("/api/challenges", content=b"x" * 20_000, headers=_json),
        client.post("/api/challenges", json={"from_game": "nope"}),
        client.get(f"/api/challenges/{code}", headers={"X-Game-Key": "k" * 101}),
        client.get("/challenges/NOPE"),
    ]
    statuses = [answer.status_code for answer in cases]
    assert all(400 <= status < 500 for status in statuses), statuses
    assert statuses[:4] == [404, 400, 404, 404]  # (a path longer than any code: 400)
    assert statuses[9:12] == [400, 415, 413]
    for answer in cases[:-1]:
        assert answer.json()["error"]


_json = {"Content-Type": "application/json"}


def test_state_changes_from_another_site_are_refused(client: TestClient) -> None:
    evil = {"Origin": "https://evil.example"}
    assert client.post("/api/challenges", json={}, headers=evil).status_code == 403
    code = client.post("/api/challenges", json={}).json()["code"]
    answer = client.post(f"/api/challenges/{code}/play", json={"player": "x"}, headers=evil)
    assert answer.status_code == 403


def test_the_pages(client: TestClient, standard: Dictionary) -> None:
    assert "Make a challenge" in client.get("/challenges").text
    code = client.post("/api/challenges", json={"rounds": 2, "timer": 30}).json()["code"]
    page = client.get(f"/challenges/{code}")
    assert page.status_code == 200 and f"{code[:4]}-{code[4:]}" in page.text
    assert 'id="copy-button"' in page.text and 'id="share-link"' in page.text
    ann = play(client, code, {"player": "Ann"})
    w = words_of(ann["board"], standard)
    enter(client, ann, [w[0]])
    # The page drawn for a stranger has the score, not the words; the part asked with the
    # key has the words of the round Ann finished.
    assert w[0] not in client.get(f"/challenges/{code}").text
    part = client.get(f"/challenges/{code}/standings", headers={"X-Game-Key": ann["key"]})
    assert part.status_code == 200 and w[0] in part.text and "What nobody found" in part.text
    assert w[0] not in client.get(f"/challenges/{code}/standings").text
    # The home page's recent games leave challenge games out (their pages show the words).
    assert ann["id"] not in client.get("/").text
    assert client.get(f"/games/{ann['id']}").status_code == 200


def test_the_api_is_documented(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    for path in (
        "/api/challenges",
        "/api/challenges/{code}",
        "/api/challenges/{code}/play",
        "/api/challenges/{code}/results",
    ):
        assert path in paths


def test_a_running_or_abandoned_round_shows_its_board_to_its_player_only(
    client: TestClient, clock: FakeClock
) -> None:
    code = client.post("/api/challenges", json={"timer": 30}).json()["code"]
    ann = play(client, code, {"player": "Ann"})
    api, page, mine = f"/api/games/{ann['id']}", f"/games/{ann['id']}", {"X-Game-Key": ann["key"]}

    def stranger_sees_nothing(phase: str) -> None:
        for headers in ({}, {"X-Game-Key": "x" * 20}):
            data = client.get(api, headers=headers).json()
            assert data["phase"] == phase and data["sealed"] is True
            assert data["board"] is None and data["seed"] is None and data["replay"] is None
            text = client.get(page, headers=headers).text
            assert "sealed-game" in text and 'id="game-data"' not in text
            assert 'class="board' not in text and str(ann["seed"]) not in text

    stranger_sees_nothing("running")
    assert client.get(api, headers=mine).json()["board"] == ann["board"]
    assert 'id="game-data"' in client.get(page, headers=mine).text
    clock.advance(60)  # Ann closed the tab: past its deadline, not scored yet
    stranger_sees_nothing("scoring")


def test_a_rounds_page_is_whole_for_its_player_only(
    client: TestClient, clock: FakeClock, standard: Dictionary
) -> None:
    code = client.post("/api/challenges", json={"timer": 30}).json()["code"]
    ann = play(client, code, {"player": "Ann"})
    word = words_of(ann["board"], standard)[0]
    enter(client, ann, [word])
    bob = play(client, code, {"player": "Bob"})
    enter(client, bob, [])
    signed = client.post("/api/account", json={"username": "Mira", "password": PASSWORD})
    assert signed.status_code in (200, 201), signed.text
    mira = play(client, code, {"player": "Mira"})
    enter(client, mira, [word])
    page = f"/games/{ann['id']}"

    def sealed(headers: dict[str, str]) -> bool:
        answer = client.get(page, headers=headers)
        assert answer.status_code == 200 and answer.headers["Cache-Control"] == "private, no-store"
        assert "Cookie" in answer.headers["Vary"] and "X-Game-Key" in answer.headers["Vary"]
        text = answer.text
        if "sealed-results" in text:
            assert word not in text.lower() and "Ann found" in text
            return True
        assert "You found 1 of" in text and f">{word}<" in text.lower()
        return False

    # Ann, by her key: her own game, whole. Everyone else, before the close: sealed (another
    # member logged in, another player with their own game's key, a wrong key, a stranger).
    assert not sealed({"X-Game-Key": ann["key"]})
    assert sealed({})  # Mira's session: not her game
    assert sealed({"X-Game-Key": bob["key"]})
    client.cookies.clear()
    assert sealed({}) and sealed({"X-Game-Key": "x" * 20})
    # A member's own round is whole for her by her session, in any browser (no key).
    client.post("/api/session", json={"username": "Mira", "password": PASSWORD})
    mine = client.get(f"/games/{mira['id']}").text
    assert "sealed-results" not in mine and "You found 1 of" in mine
    # Once the challenge closes, anyone sees the round whole.
    client.cookies.clear()
    clock.advance(8 * 86_400)
    assert not sealed({})

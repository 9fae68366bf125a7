"""The JSON API through the ASGI test client: the documented contracts (README), games, the daily board,
tournaments, and a clear 4xx for every kind of bad input."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from bigboggle.cli import cli
from bigboggle.services.compute import run_here
from bigboggle.services.paper_games import PaperTournaments
from bigboggle.web import create_app
from bigboggle.web.inputs import MAX_BODY_BYTES, SMALL_BODY_BYTES
from conftest import FakeClock

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(db_url, clock=clock))


def cli_json(*args: str, stdin: str | None = None) -> Any:
    result = CliRunner().invoke(cli, [*args, "--json"], input=stdin)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_solve_answers_the_json_of_solve(client: TestClient) -> None:
    answer = client.post("/api/solve", json={"board": BOARD})
    assert answer.status_code == 200
    data = answer.json()
    expected = cli_json("solve", BOARD)
    assert data.pop("standing")["text"].startswith("better than")
    expected.pop("standing")
    assert data == expected
    assert data["count"] == len(data["words"]) and data["total_score"] == 469


def test_solve_takes_rules_dictionary_and_minimum(client: TestClient) -> None:
    data = client.post(
        "/api/solve",
        json={
            "board": "PERS/LATG/SINE/TERS",
            "rules": "classic",
            "dictionary": "huge",
            "min_length": 5,
        },
    ).json()
    expected = cli_json(
        "solve",
        "PERS/LATG/SINE/TERS",
        "--rules",
        "classic",
        "--dictionary",
        "huge",
        "--min-length",
        "5",
    )
    assert data["words"] == expected["words"]
    assert (data["rules"], data["dictionary"], data["min_length"]) == ("classic", "huge", 5)


def test_shake_answers_the_json_of_shake(client: TestClient) -> None:
    for rules in ("big", "superbig"):
        data = client.get("/api/shake", params={"rules": rules, "seed": 42}).json()
        assert data == cli_json("shake", "--rules", rules, "--seed", "42")
    fresh = client.get("/api/shake").json()
    assert fresh["rules"] == "big" and isinstance(fresh["seed"], int)
    challenge = client.get("/api/shake", params={"seed": 1, "challenge": True}).json()
    assert "*" in challenge["board"]


def test_shake_in_a_band(client: TestClient) -> None:
    data = client.get("/api/shake", params={"seed": 5, "band": "rich"}).json()
    solved = client.post("/api/solve", json={"board": data["board"]}).json()
    assert solved["standing"]["points_rank"] >= 0.74
    assert client.get("/api/shake", params={"band": "lots"}).status_code == 400


def test_score_answers_the_json_of_score(client: TestClient) -> None:
    round_data = {
        "board": BOARD,
        "players": {
            "ann": ["lines", "arsenite", "bogus"],
            "bob": ["LINES", "dear"],
            "kid": ["sea"],
        },
        "min_length": {"kid": 3},
    }
    answer = client.post("/api/score", json=round_data)
    assert answer.status_code == 200
    assert answer.json() == cli_json("score", "-", stdin=json.dumps(round_data))
    assert answer.json()["ranking"] == ["ann", "bob", "kid"]


def test_score_with_teams_rules_and_options(client: TestClient) -> None:
    round_data = {
        "board": BOARD,
        "players": {"ann": ["lines"], "bob": ["lines"], "cy": ["lines"]},
        "teams": {"red": ["ann", "bob"], "blue": ["cy"]},
        "rules": "big",
        "options": {"duplicates": "keep"},
    }
    data = client.post("/api/score", json=round_data).json()
    assert data["teams"]["red"]["score"] == data["teams"]["blue"]["score"] == 2


BAD_REQUESTS = [
    # (method, url, body, status, words the message must contain)
    ("post", "/api/solve", {"board": "LINES/TQ"}, 400, "rectangular"),
    ("post", "/api/solve", {"board": "LI1ES/TQARD/HEMOP/ABCKI/PSTEW"}, 400, "'1'"),
    ("post", "/api/solve", {"board": BOARD, "rules": "giant"}, 400, "unknown rules 'giant'"),
    (
        "post",
        "/api/solve",
        {"board": BOARD, "dictionary": "/etc/passwd"},
        400,
        "unknown dictionary",
    ),
    ("post", "/api/solve", {"board": BOARD, "min_length": 99}, 400, "min_length"),
    ("post", "/api/solve", {"board": BOARD, "color": "red"}, 400, "color: is not a known key"),
    ("post", "/api/solve", {"board": 5}, 400, "board"),
    ("post", "/api/solve", {}, 400, "board: is missing"),
    ("post", "/api/solve", [BOARD], 400, "JSON object"),
    ("post", "/api/score", {"board": BOARD, "players": {"ann": [1]}}, 400, "players.ann[0]"),
    ("post", "/api/score", {"players": {"ann": []}}, 400, "board"),
    ("post", "/api/score", {"board": BOARD, "players": {"a" * 50: []}}, 400, "longer than"),
    (
        "post",
        "/api/score",
        {"board": BOARD, "players": {"ann": []}, "teams": {"red": ["bob"]}},
        400,
        "bob",
    ),
    ("post", "/api/score", {"board": BOARD, "players": {"ann": ["x"] * 2001}}, 400, "limit"),
    ("get", "/api/shake?seed=-1", None, 400, "seed"),
    ("get", "/api/shake?seed=abc", None, 400, "seed"),
    ("get", "/api/shake?rules=nope", None, 400, "unknown rules"),
    ("get", "/api/games/nope", None, 404, "no game 'nope'"),
    ("get", "/api/tournaments/nope", None, 404, "no tournament"),
    ("post", "/api/games", {"options": {"timer": 1}}, 400, "options.timer"),
    ("post", "/api/games", {"options": {"teams": True}}, 400, "options.teams"),
    ("post", "/api/games", {"seed": 2**64}, 400, "seed"),
    ("post", "/api/games", {"band": "plenty"}, 400, "plenty"),
    ("post", "/api/games", {"player": ""}, 400, "player"),
    ("post", "/api/games", {"daily": True, "seed": 3}, 400, "daily"),
    ("post", "/api/tournaments", {"name": "x"}, 400, "target"),
    ("post", "/api/tournaments", {"name": "x", "rounds": 0}, 400, "rounds"),
    ("get", "/api/daily?date=2026-13-01", None, 400, "YYYY-MM-DD"),
    ("get", "/api/daily?rules=nope", None, 400, "unknown rules"),
    ("get", "/api/nothing-here", None, 404, "nothing at"),
    ("delete", "/api/solve", None, 405, "not allowed"),
]


@pytest.mark.parametrize(("method", "url", "body", "status", "message"), BAD_REQUESTS)
def test_bad_input_gets_a_4xx_that_says_what_is_wrong(
    client: TestClient, method: str, url: str, body: Any, status: int, message: str
) -> None:
    answer = (
        client.request(method, url, json=body) if body is not None else client.request(method, url)
    )
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"] == "application/json"
    assert message in answer.json()["error"]


@pytest.mark.parametrize(
    ("content", "headers", "status", "message"),
    [
        (b'{"board": "', {}, 400, "not valid JSON"),
        (b"", {}, 400, "empty"),
        (b'{"board": "A", "board": "B"}', {}, 400, "duplicate key 'board'"),
        (b"\xff\xfe{}", {}, 400, "not UTF-8"),
        (b"[" * 5000 + b"]" * 5000, {}, 400, "nested too deeply"),
        (b"board=LINES", {"content-type": "application/x-www-form-urlencoded"}, 415, "JSON"),
        (b"1e999999", {}, 400, "JSON object"),
    ],
    ids=["cut-short", "empty", "duplicate-key", "not-utf8", "deep", "form", "number"],
)
def test_malformed_bodies_are_refused(
    client: TestClient, content: bytes, headers: dict[str, str], status: int, message: str
) -> None:
    answer = client.post(
        "/api/solve", content=content, headers={"content-type": "application/json", **headers}
    )
    assert answer.status_code == status, answer.text
    assert message in answer.json()["error"]


def test_an_oversized_body_is_refused_without_reading_it_all(client: TestClient) -> None:
    huge = b'{"board": "' + b"A" * (MAX_BODY_BYTES + 10) + b'"}'
    answer = client.post("/api/score", content=huge, headers={"content-type": "application/json"})
    assert answer.status_code == 413
    assert str(MAX_BODY_BYTES) in answer.json()["error"]


def test_a_solo_game_by_the_servers_clock(client: TestClient, clock: FakeClock) -> None:
    started = client.post("/api/games", json={"board": BOARD, "options": {"timer": 60}})
    assert started.status_code == 201
    game = started.json()
    assert game["phase"] == "running" and game["time_left"] == 60
    assert game["deadline"] - game["now"] == 60
    assert "missed" not in game  # no answers while the game runs
    assert game["max_score"] == 469  # but the board's points, for the player's meter
    url = f"/api/games/{game['id']}"
    key = {"X-Game-Key": game["key"]}
    refused = client.post(f"{url}/words", json={"word": "Lines"})  # no key: not your game
    assert refused.status_code == 403 and "key" in refused.json()["error"]
    clock.advance(10)
    answer = client.post(f"{url}/words", json={"word": "Lines"}, headers=key).json()
    assert answer["result"] == {
        "word": "lines",
        "entry": "Lines",
        "verdict": "scored",
        "score": 2,
        "bonus": 0,
        "path": [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]],
    }
    assert answer["time_left"] == 50 and answer["score_so_far"] == 2
    again = client.post(f"{url}/words", json={"word": "lines"}, headers=key).json()
    assert again["result"]["verdict"] == "repeated"
    assert client.get(url).json()["words"] == []  # a running game's words are private
    assert [w["word"] for w in client.get(url, headers=key).json()["words"]] == ["lines"]
    clock.advance(50)
    late = client.post(f"{url}/words", json={"word": "arsenite"}, headers=key)
    assert late.status_code == 409 and "time is up" in late.json()["error"]
    over = client.get(url).json()
    assert over["phase"] == "ended" and over["score"] == 2
    assert [word["word"] for word in over["words"]] == ["lines"]
    assert over["max_score"] == 469 and "arsenite" in {word["word"] for word in over["missed"]}
    assert client.post(f"{url}/words", json={"word": "dear"}, headers=key).status_code == 409


def test_finishing_early_and_replaying(client: TestClient) -> None:
    game = client.post("/api/games", json={"seed": 99, "options": {"advanced": True}}).json()
    assert client.post(f"/api/games/{game['id']}/finish").status_code == 403
    finished = client.post(
        f"/api/games/{game['id']}/finish", headers={"X-Game-Key": game["key"]}
    ).json()
    assert finished["phase"] == "ended" and finished["score"] == 0
    assert finished["replay"] == {
        "rules": "big",
        "dictionary": "standard",
        "seed": 99,
        "advanced": True,
    }
    again = client.post(
        "/api/games", json={"seed": 99, "options": {"advanced": True}, "player": "ann"}
    ).json()
    assert again["board"] == game["board"] and again["min_length"] == 5
    family = client.post("/api/games", json={"seed": 99, "options": {"family": True}})
    assert family.status_code == 201 and family.json()["options"] == {"family": True}
    assert family.json()["replay"]["family"] is True


def test_the_daily_board_and_its_leaderboard(client: TestClient, clock: FakeClock) -> None:
    ann = client.post("/api/games", json={"daily": True, "player": "ann"}).json()
    bob = client.post("/api/games", json={"daily": True, "player": "bob"}).json()
    assert ann["board"] == bob["board"] and ann["daily"] == bob["daily"]
    again = client.post("/api/games", json={"daily": True, "player": "ANN"})
    assert again.status_code == 409 and "already played" in again.json()["error"]
    assert "the Big Boggle (5x5, Deluxe dice) daily board" in again.json()["error"]
    word = client.post("/api/solve", json={"board": ann["board"]}).json()["words"][0]["word"]
    client.post(
        f"/api/games/{bob['id']}/words", json={"word": word}, headers={"X-Game-Key": bob["key"]}
    )
    clock.advance(181)
    daily = client.get("/api/daily").json()  # reads stored scores only: nobody is scored yet
    assert daily["date"] == daily["today"] == ann["daily"]
    assert daily["leaderboard"] == []
    for player in (ann, bob):  # each browser asks at its deadline, with its key: scored once
        ended = client.get(f"/api/games/{player['id']}", headers={"X-Game-Key": player["key"]})
        assert ended.json()["phase"] == "ended"
    daily = client.get("/api/daily").json()
    assert [entry["player"] for entry in daily["leaderboard"]] == ["bob", "ann"]
    assert daily["leaderboard"][0]["score"] > 0


def test_a_start_solves_its_board_in_the_worker_pool(db_url: str, clock: FakeClock) -> None:
    """A start's board work (the board's points) is a job in the bounded worker pool: with
    the pool full it is refused with 503 and Retry-After, while a daily start for a name that
    has played is refused (409) by a lookup, with no job at all."""
    import threading
    import time

    from bigboggle.web.pool import WorkerPool

    pool = WorkerPool(workers=1, queue=0, budget=30, kind="thread")
    client = TestClient(create_app(db_url, clock=clock, pool=pool))
    ann = client.post("/api/games", json={"daily": True, "player": "ann"})
    assert ann.status_code == 201 and ann.json()["max_score"] > 0
    gate = threading.Event()
    holder = threading.Thread(target=pool.call, args=(gate.wait, 30))
    holder.start()
    try:
        deadline = time.monotonic() + 30
        while pool.in_flight == 0:  # the one worker is taken
            assert time.monotonic() < deadline
            time.sleep(0.01)
        busy = client.post("/api/games", json={"board": BOARD})
        assert busy.status_code == 503 and int(busy.headers["Retry-After"]) >= 1
        again = client.post("/api/games", json={"daily": True, "player": "Ann"})
        assert again.status_code == 409 and "already played" in again.json()["error"]
    finally:
        gate.set()
        holder.join()
    assert client.post("/api/games", json={"board": BOARD}).json()["max_score"] == 469
    pool.shutdown()


def test_a_tournament_over_the_api(client: TestClient) -> None:
    created = client.post("/api/tournaments", json={"name": "Friday", "rounds": 2})
    assert created.status_code == 201
    tid = created.json()["id"]
    key = {"X-Tournament-Key": created.json()["key"]}
    round_data = {"board": BOARD, "players": {"ann": ["arsenite"], "bob": ["lines"]}}
    for _ in (1, 2):
        answer = client.post(f"/api/tournaments/{tid}/rounds", json=round_data, headers=key)
        assert answer.status_code == 201, answer.text
        assert answer.json()["round"]["players"]["ann"]["score"] == 11
    data = client.get(f"/api/tournaments/{tid}").json()
    assert data["totals"] == {"ann": 22, "bob": 4} and data["winner"] == "ann"
    assert "key" not in data
    refused = client.post(f"/api/tournaments/{tid}/rounds", json=round_data, headers=key)
    assert refused.status_code == 400 and "over" in refused.json()["error"]


class CountingRunner:
    """A real runner (each job runs here, as ``run_here`` runs it) that counts what it ran."""

    def __init__(self) -> None:
        self.jobs: list[str] = []

    def __call__(self, fn: Any, /, *args: Any) -> Any:
        self.jobs.append(fn.__name__)
        return run_here(fn, *args)


@pytest.fixture
def counted(db_url: str, clock: FakeClock) -> tuple[TestClient, CountingRunner]:
    """A client of an app whose tournaments score through a counting runner."""
    app = create_app(db_url, clock=clock)
    found = app.state.services
    runner = CountingRunner()
    found.tournaments = PaperTournaments(found.store, found.shelf, clock, runner=runner)
    return TestClient(app), runner


def test_a_stranger_cannot_write_to_a_tournament(
    counted: tuple[TestClient, CountingRunner],
) -> None:
    client, runner = counted
    created = client.post("/api/tournaments", json={"name": "Victim", "target": 50}).json()
    tid = created["id"]
    url = f"/api/tournaments/{tid}"
    before = client.get(url).json()
    win = {"board": BOARD, "players": {"mallory": ["arsenite", "lines"]}}
    for headers in ({}, {"X-Tournament-Key": ""}, {"X-Tournament-Key": "guess" * 5}):
        attempts = [
            client.post(f"{url}/rounds", json=win, headers=headers),
            client.patch(url, json={"name": "Pwned"}, headers=headers),
            client.delete(url, headers=headers),
        ]
        for answer in attempts:
            assert answer.status_code == 403, answer.text
            assert "X-Tournament-Key" in answer.json()["error"]
    assert client.get(url).json() == before  # nothing changed
    assert runner.jobs == []  # and nothing was scored for the stranger
    too_long = client.delete(url, headers={"X-Tournament-Key": "k" * 101})
    assert too_long.status_code == 400
    someone = {"X-Tournament-Key": created["key"]}
    for missing in (
        client.post("/api/tournaments/nope/rounds", json=win, headers=someone),
        client.patch("/api/tournaments/nope", json={"name": "x"}, headers=someone),
        client.delete("/api/tournaments/nope", headers=someone),
    ):
        assert missing.status_code == 404, missing.text


def test_the_owner_adds_renames_and_deletes(counted: tuple[TestClient, CountingRunner]) -> None:
    client, runner = counted
    created = client.post("/api/tournaments", json={"name": "Friday", "rounds": 3}).json()
    url = f"/api/tournaments/{created['id']}"
    key = {"X-Tournament-Key": created["key"]}
    round_data = {"board": BOARD, "players": {"ann": ["arsenite"], "bob": ["lines"]}}
    added = client.post(f"{url}/rounds", json=round_data, headers=key)
    assert added.status_code == 201 and added.json()["round"]["number"] == 1
    renamed = client.patch(url, json={"name": " Friday\u3000night "}, headers=key)
    assert renamed.status_code == 200 and renamed.json()["name"] == "Friday night"
    bad = client.patch(url, json={"name": "a\u200bb"}, headers=key)
    assert bad.status_code == 400 and "invisible" in bad.json()["error"]
    assert client.patch(url, json={"title": "x"}, headers=key).status_code == 400
    for _ in range(4):  # reading scores nothing: the results were stored when scored
        data = client.get(url).json()
        page = client.get(f"/tournaments/{created['id']}")
        assert page.status_code == 200 and "Friday night" in page.text
    assert runner.jobs == ["score_tournament_round"]
    assert data["totals"] == {"ann": 11, "bob": 2} and len(data["played"]) == 1
    assert client.delete(url, headers=key).status_code == 204
    assert client.get(url).status_code == 404
    assert client.get(f"/tournaments/{created['id']}").status_code == 404


def test_the_openapi_document_describes_every_endpoint(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    paths = schema["paths"]
    for path in (
        "/api/solve",
        "/api/shake",
        "/api/score",
        "/api/games",
        "/api/games/{game_id}",
        "/api/games/{game_id}/words",
        "/api/daily",
        "/api/tournaments",
        "/api/tournaments/{tournament_id}/rounds",
        "/api/tournaments/{tournament_id}",
    ):
        assert path in paths
    body = paths["/api/solve"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert body == {"$ref": "#/components/schemas/SolveRequest"}
    assert "board" in schema["components"]["schemas"]["SolveRequest"]["required"]
    assert "/solve" not in paths  # pages are not part of the API
    assert client.get("/api/docs").status_code == 200


def test_the_openapi_document_describes_a_tournament_rounds_body(client: TestClient) -> None:
    """A tournament round's body is /api/score's without rules, dictionary or options."""
    schema = client.get("/openapi.json").json()
    components = schema["components"]["schemas"]

    def body_of(path: str) -> dict[str, Any]:
        content = schema["paths"][path]["post"]["requestBody"]["content"]
        reference: str = content["application/json"]["schema"]["$ref"]
        found: dict[str, Any] = components[reference.rpartition("/")[2]]
        return found

    round_body = body_of("/api/tournaments/{tournament_id}/rounds")
    score_body = body_of("/api/score")
    assert set(round_body["properties"]) == {"board", "players", "teams", "min_length"}
    assert set(score_body["properties"]) - set(round_body["properties"]) == {
        "rules",
        "dictionary",
        "options",
    }
    assert round_body["required"] == ["board", "players"]
    assert round_body["additionalProperties"] is False


def test_rules_lists_presets_and_dictionaries(client: TestClient) -> None:
    data = client.get("/api/rules").json()
    assert data["presets"]["big"]["rows"] == 5
    assert data["dictionaries"] == ["common", "standard", "huge"]


def test_extra_word_lists_are_offered_by_name(db_url: str, tmp_path: Any, clock: FakeClock) -> None:
    words = tmp_path / "mine.txt"
    words.write_text("lines\nline\nzzzz\n")
    client = TestClient(create_app(db_url, dictionaries={"mine": words}, clock=clock))
    data = client.post("/api/solve", json={"board": BOARD, "dictionary": "mine"}).json()
    assert data["dictionary"] == "mine"
    assert [word["word"] for word in data["words"]] == ["lines", "line"]
    assert "mine" in client.get("/api/rules").json()["dictionaries"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/api/solve", {"board": "LINES/TQARD/HEMOP/ABCKI/PSTEW", "pad": "x" * 20_000}),
        ("/api/games", {"rules": "big", "pad": "x" * 20_000}),
        ("/api/tournaments", {"name": "t", "pad": "x" * 20_000}),
        ("/api/rooms", {"host": "h", "settings": {"pad": "x" * 20_000}}),
    ],
)
def test_small_requests_refuse_big_bodies_before_parsing(
    client: TestClient, path: str, body: dict[str, Any]
) -> None:
    answer = client.post(path, json=body)
    assert answer.status_code == 413
    assert str(SMALL_BODY_BYTES) in answer.json()["error"]


def test_a_stranger_s_big_round_is_refused_for_its_key_not_read(client: TestClient) -> None:
    created = client.post("/api/tournaments", json={"name": "mine", "rounds": 3}).json()
    big = {"board": "LINES/TQARD/HEMOP/ABCKI/PSTEW", "players": {"m": ["x" * 50] * 2000}}
    answer = client.post(f"/api/tournaments/{created['id']}/rounds", json=big)
    assert answer.status_code == 403
    broken = client.post(
        f"/api/tournaments/{created['id']}/rounds",
        content=b'{"board": ',
        headers={"Content-Type": "application/json", "X-Tournament-Key": created["key"]},
    )
    assert broken.status_code == 400 and "the body" in broken.json()["error"]


def test_score_parses_in_the_worker_and_names_what_is_wrong(client: TestClient) -> None:
    broken = client.post(
        "/api/score",
        content=b'{"board": "LINES", "players": {"a": [1}}',
        headers={"Content-Type": "application/json"},
    )
    assert broken.status_code == 400
    assert broken.json()["error"].startswith("the body")
    twice = client.post(
        "/api/score",
        content=b'{"board": "AB/CD", "board": "AB/CD", "players": {"a": []}}',
        headers={"Content-Type": "application/json"},
    )
    assert twice.status_code == 400 and "board" in twice.json()["error"]


def test_tournament_rounds_are_bounded_and_old_ones_read(
    counted: tuple[TestClient, CountingRunner],
) -> None:
    """A round past MAX_TOURNAMENT_ROUND_ENTRIES is a 400 naming the limit, before scoring; a
    tournament an older bigboggle stored with 'Ann' beside 'ann' reads (it was 400 forever)."""
    from sqlalchemy import update

    from bigboggle.limits import MAX_TOURNAMENT_ROUND_ENTRIES
    from bigboggle.services.store import TournamentRoundRow, TournamentRow

    client, runner = counted
    created = client.post("/api/tournaments", json={"name": "Big", "rounds": 2}).json()
    key = {"X-Tournament-Key": created["key"]}
    lists = {f"p{i}": ["lines"] * 50 for i in range(MAX_TOURNAMENT_ROUND_ENTRIES // 50 + 1)}
    url = f"/api/tournaments/{created['id']}"
    answer = client.post(f"{url}/rounds", json={"board": BOARD, "players": lists}, headers=key)
    assert answer.status_code == 400 and "MAX_TOURNAMENT_ROUND_ENTRIES" in answer.json()["error"]
    assert runner.jobs == []
    round_data = {"board": BOARD, "players": {"Ann": ["arsenite"], "ann": ["lines"]}}
    assert client.post(f"{url}/rounds", json=round_data, headers=key).status_code == 400
    store = client.app.state.services.store  # type: ignore[attr-defined]
    with store.session() as session:  # what the old schema accepted and stored
        session.execute(update(TournamentRow).values(owner_hash=None, standings=None))
        session.add(
            TournamentRoundRow(
                tournament_id=created["id"], number=1, request=round_data, created_at=0.0
            )
        )
    for _ in range(2):
        read = client.get(url)
        assert read.status_code == 200, read.text
        assert read.json()["totals"] == {"Ann": 11, "ann": 2}
    assert client.get(f"/tournaments/{created['id']}").status_code == 200
    assert runner.jobs == ["score_stored_round"]


def test_only_games_others_read_are_timed_and_an_ended_game_drops_its_timer(
    db_url: str, clock: FakeClock
) -> None:
    """A practice game gets its timer with its first word (before, only its player reads it);
    a daily game at once; finishing a game drops its timer."""
    app = create_app(db_url, clock=clock)
    with TestClient(app) as client:
        timers = app.state.services.solo_timers
        client.portal.call(timers.started.wait)
        game = client.post("/api/games", json={"board": BOARD}).json()
        assert game["id"] not in timers.scheduled
        key = {"X-Game-Key": game["key"]}
        client.post(f"/api/games/{game['id']}/words", json={"word": "lines"}, headers=key)
        assert timers.scheduled[game["id"]] == game["deadline"]
        daily = client.post("/api/games", json={"daily": True, "player": "ann"}).json()
        assert daily["id"] in timers.scheduled
        for shown in (game, daily):
            key = {"X-Game-Key": shown["key"]}
            finished = client.post(f"/api/games/{shown['id']}/finish", headers=key)
            assert finished.json()["phase"] == "ended"
        assert timers.scheduled == {}


def test_old_tournaments_are_scored_in_the_background_at_start_up(
    db_url: str, clock: FakeClock
) -> None:
    """A tournament from before standings were stored is scored at start-up, not by the first
    public read."""
    from sqlalchemy import null, update

    from bigboggle.services.shelf import DictionaryShelf
    from bigboggle.services.store import Store, TournamentRoundRow, TournamentRow

    offline = PaperTournaments(Store(db_url), DictionaryShelf(), clock)
    created = offline.create("Old", rounds=3)
    tid = created.tournament.id
    offline.add_round(tid, {"board": BOARD, "players": {"ann": ["lines"]}}, created.key)
    with offline.store.session() as session:  # as an older bigboggle and its migration left it
        session.execute(update(TournamentRoundRow).values(result=null(), tally=null()))
        session.execute(update(TournamentRow).values(owner_hash=None, standings=null()))
    assert offline.unscored() == [tid]
    app = create_app(db_url, clock=clock)
    with TestClient(app) as client:
        client.portal.call(app.state.services.solo_timers.started.wait)
        assert offline.unscored() == []  # scored before anyone read it
        assert client.get(f"/api/tournaments/{tid}").json()["totals"] == {"ann": 2}


def test_the_server_ends_solo_games_at_their_deadlines(db_url: str, clock: FakeClock) -> None:
    """A game its player walked away from is ended and scored by the server's timer at its
    deadline (reaching the daily board); at start-up, games that ran out while no server ran
    are scored in the background and running ones get their timers."""
    from bigboggle.services.shelf import DictionaryShelf
    from bigboggle.services.solo_games import SoloGames
    from bigboggle.services.store import Store

    offline = SoloGames(Store(db_url), DictionaryShelf(), clock)
    missed = offline.start("big", daily=True, player="cy")  # its deadline passes offline
    clock.advance(200)
    waiting = offline.start("big", board=BOARD, player="dee")  # still running at start-up
    offline.submit(waiting.game.id, "lines", waiting.key)  # timed: it has a word
    app = create_app(db_url, clock=clock)
    with TestClient(app) as client:
        timers = app.state.services.solo_timers
        client.portal.call(timers.started.wait)
        assert client.get(f"/api/games/{missed.game.id}").json()["phase"] == "ended"
        assert waiting.game.id in timers.scheduled
        game = client.post("/api/games", json={"daily": True, "player": "ann"}).json()
        assert timers.scheduled[game["id"]] == game["deadline"]
        assert client.get(f"/api/games/{game['id']}").json()["phase"] == "running"
        clock.advance(181)
        client.portal.call(timers.recheck)
        client.portal.call(timers.idle)
        assert timers.scheduled == {}
        for shown in (game, {"id": waiting.game.id}):  # a stranger's read: scored already
            assert client.get(f"/api/games/{shown['id']}").json()["phase"] == "ended"
        board = client.get("/api/daily").json()["leaderboard"]
        assert sorted(entry["player"] for entry in board) == ["ann", "cy"]

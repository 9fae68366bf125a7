"""The pages through the ASGI test client: what they show, links that reproduce a board, errors
shown in the page, names escaped."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from bigboggle import Board, Dictionary, Rules, solve
from bigboggle.web import create_app
from conftest import FakeClock

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(db_url, clock=clock))


@pytest.mark.parametrize("path", ["/", "/solve", "/score", "/play", "/daily", "/rules", "/atlas"])
def test_every_page_renders_with_labels_and_a_main_landmark(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    assert '<main id="main"' in html and 'lang="en"' in html and 'name="viewport"' in html
    # Every visible form control has a label: by for=id, or by being inside its <label>.
    ids = set(re.findall(r'<(?:input|select|textarea)[^>]*\bid="([^"]+)"', html))
    labelled = set(re.findall(r'<label[^>]*\bfor="([^"]+)"', html))
    hidden = set(re.findall(r'<input[^>]*type="hidden"[^>]*id="([^"]+)"', html))
    assert ids - hidden <= labelled | _inside_labels(html)


def _inside_labels(html: str) -> set[str]:
    found: set[str] = set()
    for label in re.findall(r"<label>(.*?)</label>", html, flags=re.S):
        found.update(re.findall(r'\bid="([^"]+)"', label))
    return found


def test_the_solver_page_shows_every_word_with_its_path(
    client: TestClient, standard: Dictionary
) -> None:
    page = client.get("/solve", params={"board": BOARD})
    assert page.status_code == 200
    solution = solve(BOARD, standard, Rules.preset("big"))
    html = page.text
    assert f"{solution.count} words, {solution.total_score} points" in html
    paths = dict(re.findall(r'data-word="(\w+)">\s*<button[^>]*data-path="([\d,;]+)"', html))
    assert len(paths) == solution.count
    board = Board(BOARD)
    for word, path in paths.items():
        steps = [tuple(int(n) for n in step.split(",")) for step in path.split(";")]
        assert board.is_valid_path(steps) and board.spell(steps) == word  # type: ignore[arg-type]
    assert "better than" in html
    assert 'value="LINES/TQARD/HEMOP/ABCKI/PSTEW"' in html  # the link reproduces the board


def test_the_solver_page_takes_rules_and_shows_errors_in_place(client: TestClient) -> None:
    page = client.get("/solve", params={"board": "PERS/LATG/SINE/TERS", "rules": "classic"})
    assert "Boggle (4x4, new dice)" in page.text
    bad = client.get("/solve", params={"board": "LIN/ES"})
    assert bad.status_code == 400
    assert 'role="alert"' in bad.text and "rectangular" in bad.text
    assert client.get("/solve", params={"board": BOARD, "rules": "nope"}).status_code == 400
    # An empty choice is "the default", as a plain form sends it.
    page = client.get("/solve", params={"board": BOARD, "dictionary": "", "min_length": ""})
    assert page.status_code == 200
    page = client.get("/solve", params={"board": BOARD, "min_length": "5"})
    assert "words of\n    5+ letters" in page.text
    assert "must be a whole number" in client.get("/solve?board=AB/CD&min_length=x").text


def test_the_solver_page_counts_one_word_and_one_point_in_the_singular(client: TestClient) -> None:
    page = client.get("/solve", params={"board": "ZAX/QQQ/QQQ", "rules": "classic"}).text
    assert "1 word, 1 point</h2>" in page and "1 words" not in page
    assert "1 word shown." in page
    many = client.get("/solve", params={"board": BOARD}).text
    assert re.search(r"\d+ words, \d+ points</h2>", many)


def test_a_tournament_page_shares_a_place_on_a_tie_and_says_when_longer_words_decide(
    client: TestClient,
) -> None:
    pages = []
    # 2 points each: ann's 5-letter word beats bob's two of 4; then two of 4 each (and a
    # crossed-off word), which no tie-break parts.
    for players in (
        {"ann": ["lines"], "bob": ["dear", "mare"]},
        {"ann": ["line", "mare", "lines"], "bob": ["dear", "ream", "lines"]},
    ):
        made = client.post("/api/tournaments", json={"name": "Tie", "rounds": 1}).json()
        key = {"X-Tournament-Key": made["key"]}
        url = f"/api/tournaments/{made['id']}"
        added = client.post(f"{url}/rounds", json={"board": BOARD, "players": players}, headers=key)
        assert added.status_code == 201, added.text
        pages.append((client.get(url).json(), client.get(f"/tournaments/{made['id']}").text))
    (decided, decided_page), (tied, tied_page) = pages
    assert decided["places"] == {"ann": 1, "bob": 2}
    assert "ann ranks higher on longer words" in " ".join(decided_page.split())
    assert tied["places"] == {"ann": 1, "bob": 1} and tied["tie_breaks"] == []
    assert re.findall(r"<tr><td>(\d+)</td>", tied_page) == ["1", "1"]
    assert "ranks higher" not in tied_page
    assert "a tie between ann and bob." in tied_page and "1 round." in " ".join(tied_page.split())
    # Standings stored before places were kept: the page places by points alone.
    from bigboggle.services.store import TournamentRow

    found = client.app.state.services.tournaments  # type: ignore[attr-defined]
    with found.store.write_session() as session:
        row = session.get(TournamentRow, decided["id"])
        row.standings = {
            k: v for k, v in row.standings.items() if k not in ("places", "tie_breaks")
        }
    old = client.get(f"/tournaments/{decided['id']}")
    assert old.status_code == 200
    assert re.findall(r"<tr><td>(\d+)</td>", old.text) == ["1", "1"]


def test_a_game_page_while_running_and_when_over(client: TestClient, clock: FakeClock) -> None:
    game = client.post("/api/games", json={"board": BOARD, "player": "ann"}).json()
    key = {"X-Game-Key": game["key"]}
    client.post(f"/api/games/{game['id']}/words", json={"word": "lines"}, headers=key)
    running = client.get(f"/games/{game['id']}").text
    assert 'role="timer"' in running and 'aria-live="assertive"' in running
    assert 'role="gridcell"' in running and "3:00" in running
    assert "arsenite" not in running  # no answers before the end
    clock.advance(200)
    client.get(f"/api/games/{game['id']}", headers=key)  # its browser asks at the deadline
    over = client.get(f"/games/{game['id']}").text
    assert "2 points" in over and "arsenite" in over
    assert 'id="show-rare"' in over and 'class="rare" hidden' in over
    assert "/play?" in over and "board=LINES" in over


def test_unknown_pages_and_games_are_404_pages(client: TestClient) -> None:
    for path in ("/games/nope", "/tournaments/nope", "/no-such-page"):
        page = client.get(path)
        assert page.status_code == 404
        assert page.headers["content-type"].startswith("text/html")
        assert 'role="alert"' in page.text


def test_names_are_escaped(client: TestClient) -> None:
    evil = "<script>alert(1)</script>"
    game = client.post("/api/games", json={"seed": 1, "player": evil}).json()
    client.post(f"/api/games/{game['id']}/finish", headers={"X-Game-Key": game["key"]})
    for path in (f"/games/{game['id']}", "/"):
        html = client.get(path).text
        assert evil not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    tournament = client.post("/api/tournaments", json={"name": evil, "rounds": 1}).json()
    client.post(
        f"/api/tournaments/{tournament['id']}/rounds",
        json={"board": BOARD, "players": {evil: ["lines"]}},
        headers={"X-Tournament-Key": tournament["key"]},
    )
    html = client.get(f"/tournaments/{tournament['id']}").text
    assert "<script>alert" not in html


def test_the_tournament_page_shows_standings(client: TestClient) -> None:
    created = client.post("/api/tournaments", json={"name": "Friday", "target": 10}).json()
    tid = created["id"]
    client.post(
        f"/api/tournaments/{tid}/rounds",
        json={"board": BOARD, "players": {"ann": ["arsenite"], "bob": ["lines"]}},
        headers={"X-Tournament-Key": created["key"]},
    )
    html = client.get(f"/tournaments/{tid}").text
    assert "<strong>ann</strong> wins the tournament" in html
    assert re.search(r"<th scope=\"row\">ann</th><td class=\"num\">11</td>", html)


def test_the_daily_page_lists_the_leaderboard(client: TestClient, clock: FakeClock) -> None:
    game = client.post("/api/games", json={"daily": True, "player": "zoe"}).json()
    client.post(f"/api/games/{game['id']}/finish", headers={"X-Game-Key": game["key"]})
    html = client.get("/daily").text
    assert f'href="/games/{game["id"]}">zoe</a>' in html
    assert "Play today" in html
    past = client.get("/daily", params={"date": "2020-01-01"}).text
    assert "No finished games yet" in past and "Play today" not in past
    assert client.get("/daily", params={"date": "someday"}).status_code == 400


def test_the_rules_page_covers_every_preset_and_team_play(client: TestClient) -> None:
    html = client.get("/rules").text
    for preset in ("classic", "big", "superbig"):
        assert f'id="preset-{preset}"' in html
    assert 'id="teams"' in html and "Challenge cube" in html


def test_static_files_are_served(client: TestClient) -> None:
    for name in ("style.css", "board.js", "game.js", "solve.js", "favicon.svg"):
        assert client.get(f"/static/{name}").status_code == 200


def test_a_board_code_fills_in_the_play_page(client: TestClient) -> None:
    html = client.get("/play", params={"code": "superbig:42"}).text
    assert 'value="42"' in html
    assert re.search(r'<option value="superbig"[^>]* selected>', html)
    bad = client.get("/play", params={"code": "giant:x"})
    assert bad.status_code == 400 and "RULES:SEED" in bad.text


def test_odd_digits_in_the_url_are_refused_not_crashed_on(client: TestClient) -> None:
    page = client.get("/solve", params={"board": BOARD, "min_length": "²"})
    assert page.status_code == 400 and "whole number" in page.text
    assert client.get("/play", params={"code": "big:²"}).status_code == 400


def test_a_players_own_view_of_a_game_is_never_cached(client: TestClient) -> None:
    # The page and GET /api/games/ID answer the player's words to their key (or session):
    # no cache may keep that answer, and every cache must tell the answers apart.
    game = client.post("/api/games", json={"board": BOARD, "player": "ann"}).json()
    mine = {"X-Game-Key": game["key"]}
    for path in (f"/games/{game['id']}", f"/api/games/{game['id']}"):
        own = client.get(path, headers=mine)
        assert own.headers["Cache-Control"] == "private, no-store"
        stranger = client.get(path)
        assert "no-store" not in stranger.headers.get("Cache-Control", "")
        for answer in (own, stranger):
            assert {"Cookie", "X-Game-Key"} <= set(answer.headers["Vary"].split(", "))

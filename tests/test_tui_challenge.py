"""A challenge played in the terminal, against a real ``bigboggle serve`` on loopback.

The terminal's client (``bigboggle.tui.remote``) speaks the challenges' and the solo games' JSON
API; the screens (``bigboggle.tui.challenge``) are driven through Textual's pilot, as
tests/test_tui.py drives the others. The server judges and crosses off; these tests check what
the terminal shows of it, and that every failure is a message, never a traceback.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.pilot import Pilot
from textual.widgets import DataTable, Input, Static

from bigboggle import Board, Dictionary, Rules, solve
from bigboggle.cli import cli
from bigboggle.limits import (
    CLIENT_KEY_FILE_BYTES,
    CLIENT_MAX_ANSWER_BYTES,
    CLIENT_MAX_KEPT_CHALLENGES,
    CLIENT_TIMEOUT_SECONDS,
)
from bigboggle.tui import ChallengeApp
from bigboggle.tui.challenge import (
    ChallengeIntroScreen,
    ChallengePlayScreen,
    ChallengeResultsScreen,
)
from bigboggle.tui.remote import ChallengeClient, KeyFile, RemoteError, check_code, check_server
from live_server import LiveServer, free_port
from test_tui import FakeClock
from test_tui import run as run_app
from test_tui import until as until_app

# Above the solver: the server solves; the terminal only shows its answers.
pytestmark = pytest.mark.once


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("challenge")
    live = LiveServer(f"sqlite:///{folder / 'web.sqlite3'}", folder / "server.log").start()
    yield live
    live.stop()


def run(app: ChallengeApp, script: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    """Run ``script`` against ``app`` as test_tui does, in a terminal of 100x30."""
    run_app(app, script, size=(100, 30))  # type: ignore[arg-type]


async def until(pilot: Pilot[None], condition: Callable[[], bool], seconds: float = 20) -> None:
    """test_tui's until, waiting longer: the app waits on a server here."""
    await until_app(pilot, condition, seconds)


def text_of(app: ChallengeApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def rows(app: ChallengeApp) -> list[list[str]]:
    table = app.screen.query_one("#verdicts", DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def make_challenge(server: LiveServer, rounds: int = 2) -> str:
    status, made = server.call(
        "POST", "/api/challenges", {"rules": "big", "rounds": rounds, "timer": 60}
    )
    assert status == 201, made
    code: str = made["code"]
    return code


def play_over_api(
    server: LiveServer, code: str, name: str, words: list[str], team: str | None = None
) -> dict[str, Any]:
    """Someone else's round (for ``team``), played through the API as a browser would."""
    body = {"player": name} if team is None else {"player": name, "team": team}
    status, game = server.call("POST", f"/api/challenges/{code}/play", body)
    assert status == 201, game
    headers = {"X-Game-Key": game["key"]}
    for word in words:
        status, answer = server.call(
            "POST", f"/api/games/{game['id']}/words", {"word": word}, headers
        )
        assert status == 200, answer
    status, _ = server.call("POST", f"/api/games/{game['id']}/finish", None, headers)
    assert status == 200
    return game


def test_a_challenge_played_in_the_terminal(
    server: LiveServer, standard: Dictionary, tmp_path: Path
) -> None:
    code = make_challenge(server)
    bob = play_over_api(server, code, "bob", [])
    board = Board.parse(bob["board"])
    best = [found.word for found in solve(board, standard, Rules.preset("big")).words]
    shared, mine = best[0], best[1]
    # Bob played with no words (his game shows the board); cy wrote the board's best word.
    play_over_api(server, code, "cy", [shared])
    client = ChallengeClient(server.url)
    keys = KeyFile(tmp_path / "keys.json")
    clock = FakeClock()
    app = ChallengeApp(client, code, client.challenge(code), keys=keys, clock=clock, key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, ChallengeIntroScreen)
        intro = text_of(app, "#summary")
        assert f"Challenge {code[:4]}-{code[4:]}: Big Boggle" in intro
        assert "2 rounds of 1:00" in intro and "cy" in intro
        await pilot.press("enter")
        await pilot.pause()
        assert "Type your name first" in text_of(app, "#status")
        await pilot.press(*"ann", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChallengePlayScreen))
        assert isinstance(app.screen, ChallengePlayScreen)
        assert app.screen.played.board == board  # the challenge's round 1: the same board
        assert "Time left 1:00" in text_of(app, "#countdown") or "0:5" in text_of(app, "#countdown")
        for word in (shared, mine, "xyzzy"):
            await pilot.press(*word, "enter")
            await until(pilot, lambda w=word: w.upper() in text_of(app, "#verdict"))
        assert text_of(app, "#verdict") == "XYZZY: not on the board"
        assert "Found: 2 words" in text_of(app, "#score")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ChallengeResultsScreen))
        assert isinstance(app.screen, ChallengeResultsScreen)
        shown = rows(app)
        # Crossed off among all who played the round, by the server's scoring.
        assert ["ann", shared, "crossed off", ""] in shown
        assert ["cy", shared, "crossed off", ""] in shown
        assert any(row[:3] == ["ann", mine, "scored"] for row in shown)
        assert ["ann", "xyzzy", "not on the board", ""] in shown
        assert any(row[0] == "(nobody)" for row in shown)
        summary = text_of(app, "#summary")
        assert "Round 1, 3 players so far: 1. ann" in summary
        assert "n: play round 2" in summary
        assert keys.seat(server.url, code) == {"player": "ann", "key": app.key}
        assert keys.seat(server.url, code, "ANN") == {"player": "ann", "key": app.key}
        assert keys.seat(server.url, code, "bob") is None  # bob's seat is bob's to prove
        assert keys.seat("http://127.0.0.1:1", code) is None  # never sent to another server
        await pilot.press("n")
        await until(pilot, lambda: isinstance(app.screen, ChallengePlayScreen))
        assert isinstance(app.screen, ChallengePlayScreen) and app.screen.played.number == 2
        clock.now += 61  # time is up on the countdown: the round is finished on the server
        await until(pilot, lambda: isinstance(app.screen, ChallengeResultsScreen))
        assert isinstance(app.screen, ChallengeResultsScreen)
        assert app.screen.round.get("number") == 2
        assert "Overall: 1. ann" in text_of(app, "#summary")
        assert "n: play" not in text_of(app, "#summary")

    run(app, script)
    # A later session: the kept seat names you, and the server says every round is played.
    kept = keys.seat(server.url, code)
    assert kept is not None
    again = ChallengeApp(client, code, client.challenge(code, kept["key"]), keys=keys)

    async def later(pilot: Pilot[None]) -> None:
        assert again.player == "ann"
        assert "You play as ann: you have played every round." in text_of(again, "#summary")
        await pilot.press("enter")
        await until(pilot, lambda: "refused" in text_of(again, "#status"))
        assert "the server refused it (409)" in text_of(again, "#status")
        assert isinstance(again.screen, ChallengeIntroScreen)

    run(again, later)


def test_a_team_challenge_in_the_terminal(server: LiveServer, standard: Dictionary) -> None:
    status, made = server.call(
        "POST", "/api/challenges", {"rules": "big", "timer": 60, "teams": ["Red", "Blue"]}
    )
    assert status == 201, made
    code = made["code"]
    cy = play_over_api(server, code, "cy", [], team="Red")
    best = [found.word for found in solve(cy["board"], standard, Rules.preset("big")).words]
    mates, rivals = best[0], best[1]
    play_over_api(server, code, "cy2", [mates], team="Red")
    play_over_api(server, code, "bob", [rivals], team="Blue")
    runner = CliRunner()
    plain = make_challenge(server, rounds=1)
    for args, message in [
        (["--team", "Green"], "--team: 'Green' is not a team of challenge"),
        (["--team", "\u200b"], "--team"),
    ]:
        answer = runner.invoke(cli, ["play", "--challenge", code, "--server", server.url, *args])
        assert answer.exit_code == 2, (args, answer.output)
        assert message in answer.output and "Traceback" not in answer.output
    answer = runner.invoke(
        cli, ["play", "--challenge", code, "--server", server.url, "--team", "x"]
    )
    assert "choose one of Red, Blue" in answer.output
    answer = runner.invoke(
        cli, ["play", "--challenge", plain, "--server", server.url, "--team", "Red"]
    )
    assert answer.exit_code == 2 and "has no teams; drop --team" in answer.output
    answer = runner.invoke(cli, ["play", "--team", "Red"])
    assert answer.exit_code == 2 and "add --challenge CODE" in answer.output

    client = ChallengeClient(server.url)
    app = ChallengeApp(client, code, client.challenge(code), clock=FakeClock(), key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        intro = text_of(app, "#summary")
        assert "Teams: Red (cy, cy2); Blue (bob)." in intro
        await pilot.press(*"ann", "enter")
        await pilot.pause()
        # No --team: the terminal asks for one, naming the choices.
        assert "Choose your team first: one of Red, Blue." in text_of(app, "#status")
        await pilot.press(*"green", "enter")
        await until(pilot, lambda: "not a team" in text_of(app, "#status"))
        assert "'green' is not a team here; choose one of 'Red', 'Blue'" in text_of(app, "#status")
        app.screen.query_one("#team", Input).value = ""
        await pilot.press(*"red", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChallengePlayScreen))
        assert isinstance(app.screen, ChallengePlayScreen)
        for word in (mates, rivals):
            await pilot.press(*word, "enter")
            await until(pilot, lambda w=word: w.upper() in text_of(app, "#verdict"))
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ChallengeResultsScreen))
        assert isinstance(app.screen, ChallengeResultsScreen)
        shown = rows(app)
        # A team-mate's common word stays scored; a word the other team found is crossed off.
        assert any(row[:3] == ["ann", mates, "scored"] for row in shown)
        assert any(row[:3] == ["cy2", mates, "scored"] for row in shown)
        assert ["ann", rivals, "crossed off", ""] in shown
        assert ["bob", rivals, "crossed off", ""] in shown
        summary = text_of(app, "#summary")
        assert "Teams, round 1: 1. Red" in summary and "Blue 0" in summary
        assert app.team == "Red"

    run(app, script)


def test_a_server_gone_mid_round_is_a_message(server: LiveServer) -> None:
    code = make_challenge(server, rounds=1)
    client = ChallengeClient(server.url)
    app = ChallengeApp(client, code, client.challenge(code), player="ann", clock=FakeClock())
    gone = f"http://127.0.0.1:{free_port()}"  # nothing listens there

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ChallengePlayScreen))
        app.client = ChallengeClient(gone)  # the server went away mid-round
        await pilot.press(*"lines", "enter")
        await until(pilot, lambda: "cannot reach" in text_of(app, "#verdict"))
        assert f"cannot reach the server at {gone}" in text_of(app, "#verdict")
        await pilot.press("ctrl+e")
        await until(pilot, lambda: "try again" in text_of(app, "#verdict"))
        assert isinstance(app.screen, ChallengePlayScreen) and app.is_running
        app.client = client  # back again: the round finishes
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ChallengeResultsScreen))
        assert isinstance(app.screen, ChallengeResultsScreen)

    run(app, script)


class _Answers(http.server.BaseHTTPRequestHandler):
    """A server that is not bigboggle's: each path answers something a client must survive."""

    def do_GET(self) -> None:
        if "huge" in self.path:
            body = b"[" + b"0," * (CLIENT_MAX_ANSWER_BYTES // 2) + b"0]"
        elif "slow" in self.path:
            threading.Event().wait(3)
            body = b"{}"
        else:
            body = b"<html>a page, not JSON</html>"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client stopped reading: as it should
            self.wfile.write(body)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def other_server() -> Iterator[str]:
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answers)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()
    httpd.server_close()


def test_bad_answers_and_no_server_are_messages(other_server: str, server: LiveServer) -> None:
    assert ChallengeClient(other_server).timeout == CLIENT_TIMEOUT_SECONDS
    with pytest.raises(RemoteError, match=r"is not JSON.*is this a bigboggle server"):
        ChallengeClient(other_server).challenge("BCDF-2345")
    with pytest.raises(RemoteError, match=f"over {CLIENT_MAX_ANSWER_BYTES:,} bytes"):
        ChallengeClient(other_server + "/huge").challenge("BCDF-2345")
    with pytest.raises(RemoteError, match=r"did not answer within 0\.5 s"):
        ChallengeClient(other_server + "/slow", timeout=0.5).challenge("BCDF-2345")
    with pytest.raises(RemoteError, match="not an http:// or https:// address"):
        check_server("ftp://example.org")
    with pytest.raises(RemoteError, match="is not a challenge code"):
        check_code("../../api/games")
    assert check_server("http://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    runner = CliRunner()
    nobody = f"http://127.0.0.1:{free_port()}"
    for args, message in [
        (["--challenge", "BCDF-2345", "--server", nobody], f"cannot reach the server at {nobody}"),
        (["--challenge", "BCDF-2345", "--server", server.url], "no such challenge on this server"),
        (["--challenge", "BCDF-2345", "--server", other_server], "is not JSON"),
        (["--challenge", "BCDF-2345", "--seed", "4"], "drop --seed"),
        (["--name", "ann"], "add --challenge CODE"),
    ]:
        answer = runner.invoke(cli, ["play", *args])
        assert answer.exit_code == 2, (args, answer.output)
        assert message in answer.output and "Traceback" not in answer.output


def test_the_seats_file_is_bounded_and_keeps_a_seat_per_server_and_player(
    tmp_path: Path,
) -> None:
    here, there = "http://127.0.0.1:8000", "https://boggle.example/"
    keys = KeyFile(tmp_path / "keys.json")
    assert keys.seat(here, "BCDF-2345") is None
    for number in range(CLIENT_MAX_KEPT_CHALLENGES + 5):
        keys.keep(here, f"C{number:07d}", "ann", f"key{number}")
    kept = keys.load()
    assert len(kept) == CLIENT_MAX_KEPT_CHALLENGES
    assert not any("C0000000" in slot for slot in kept)
    assert keys.seat(here, "c000-0010") == {"player": "ann", "key": "key10"}  # as typed, any case
    keys.path.write_text(json.dumps({"X": {"player": "a", "key": "k" * CLIENT_KEY_FILE_BYTES}}))
    assert keys.load() == {}  # a file past the bound is not read
    keys.path.write_text("not json")
    assert keys.load() == {}
    keys.path.write_text(json.dumps({"BCDF2345": {"player": "ann", "key": "old"}}))
    assert keys.seat(here, "BCDF2345") is None  # a file from before: no server, not sent
    # Two people at one terminal keep their own seats; a key stays with its server.
    keys.keep(here, "BCDF2345", "ann", "k1")
    keys.keep(here, "BCDF2345", "Bob", "k2")
    keys.keep(there, "BCDF2345", "ann", "k3")
    assert keys.seat(here, "bcdf-2345", "ann") == {"player": "ann", "key": "k1"}
    assert keys.seat(here, "bcdf-2345", "BOB") == {"player": "Bob", "key": "k2"}
    assert keys.seat(here, "bcdf-2345") == {"player": "Bob", "key": "k2"}  # the latest here
    assert keys.seat("https://boggle.example", "BCDF2345") == {"player": "ann", "key": "k3"}
    assert keys.seat(here, "bcdf-2345", "cy") is None


def test_the_results_after_a_round_wait_for_the_standings_to_count_it() -> None:
    from bigboggle import Board
    from bigboggle.tui.challenge import counts_round
    from bigboggle.tui.remote import RemoteRound

    played = RemoteRound(
        "ABCD2345", 2, "g1", "k1", Board("LINES/TQARD/HEMOP/ABCKI/PSTEW"), 60.0, "big", 4
    )
    counted = {
        "you": {"name": "ann"},
        "round_results": [{"number": 2, "players": [{"name": "ann"}]}],
    }
    not_yet = {
        "you": {"name": "ann"},
        "round_results": [{"number": 2, "players": [{"name": "bob"}]}],
    }
    assert counts_round(counted, played) and not counts_round(not_yet, played)
    assert not counts_round({"you": {"name": "ann"}, "round_results": []}, played)
    assert counts_round(not_yet, None)  # asked for from the start: nothing to wait for

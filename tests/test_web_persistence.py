"""Nothing acknowledged is lost: a real server stopped (or killed) and started again on the same
database still has every game, word and tournament round."""

from __future__ import annotations

from pathlib import Path

import pytest

from live_server import LiveServer

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


def test_a_finished_game_survives_a_restart(db_url: str, tmp_path: Path) -> None:
    server = LiveServer(db_url, tmp_path / "server.log").start()
    try:
        status, game = server.call("POST", "/api/games", {"board": BOARD, "player": "ann"})
        assert status == 201
        key = {"X-Game-Key": game["key"]}
        for word in ("lines", "arsenite", "qwerty"):
            path = f"/api/games/{game['id']}/words"
            assert server.call("POST", path, {"word": word}, key)[0] == 200
        status, finished = server.call("POST", f"/api/games/{game['id']}/finish", None, key)
        assert finished["score"] == 13
        status, tournament = server.call("POST", "/api/tournaments", {"name": "T", "rounds": 3})
        status, _ = server.call(
            "POST",
            f"/api/tournaments/{tournament['id']}/rounds",
            {"board": BOARD, "players": {"ann": ["lines"], "bob": ["arsenite"]}},
            {"X-Tournament-Key": tournament["key"]},
        )
        assert status == 201
    finally:
        server.stop()

    again = LiveServer(db_url, tmp_path / "server.log").start()
    try:
        status, game_after = again.call("GET", f"/api/games/{game['id']}")
        assert status == 200
        assert game_after["phase"] == "ended" and game_after["score"] == 13
        assert [
            word["entry"] if "entry" in word else word["word"] for word in game_after["words"]
        ] == [
            "lines",
            "arsenite",
            "qwerty",
        ]
        assert game_after["missed"] == finished["missed"]
        status, tournament_after = again.call("GET", f"/api/tournaments/{tournament['id']}")
        assert tournament_after["totals"] == {"bob": 11, "ann": 2}
    finally:
        again.stop()


def test_a_running_game_carries_on_after_a_crash(db_url: str, tmp_path: Path) -> None:
    server = LiveServer(db_url, tmp_path / "server.log").start()
    try:
        _, game = server.call("POST", "/api/games", {"board": BOARD, "options": {"timer": 600}})
        key = {"X-Game-Key": game["key"]}
        words = f"/api/games/{game['id']}/words"
        _, answer = server.call("POST", words, {"word": "lines"}, key)
        assert answer["result"]["verdict"] == "scored"
    finally:
        server.kill()  # no clean shutdown: what was acknowledged must already be stored

    again = LiveServer(db_url, tmp_path / "server.log").start()
    try:
        _, state = again.call("GET", f"/api/games/{game['id']}", None, key)
        assert state["phase"] == "running"
        assert state["deadline"] == game["deadline"]  # the clock did not restart
        assert [word["word"] for word in state["words"]] == ["lines"]
        _, answer = again.call("POST", words, {"word": "lines"}, key)
        assert answer["result"]["verdict"] == "repeated"
        _, answer = again.call("POST", words, {"word": "arsenite"}, key)
        assert answer["score_so_far"] == 13
    finally:
        again.stop()

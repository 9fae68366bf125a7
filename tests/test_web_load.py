"""A bounded load on a real server: rooms of players all submitting words at once; every word
the server acknowledged is in the database, and everyone gets the results."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bigboggle import Dictionary
from live_server import LiveServer
from room_load import run_load

pytestmark = pytest.mark.once


def test_many_rooms_at_once_lose_no_acknowledged_word(tmp_path: Path, standard: Dictionary) -> None:
    db_url = f"sqlite:///{tmp_path / 'load.sqlite3'}"
    server = LiveServer(db_url, tmp_path / "server.log").start()
    try:
        report = asyncio.run(
            run_load(server.port, db_url, rooms=6, players=3, seconds=6, pace=0.15, words=standard)
        )
    finally:
        server.stop()
    print(report.describe())
    assert report.errors == []
    assert report.acknowledged > 100
    assert report.stored == report.acknowledged
    assert report.results_seen == 6 * 3

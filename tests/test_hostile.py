"""The hostile suite: each attack of ``tests/hostile.py`` against a real ``bigboggle serve`` on
loopback, with an honest player beside it. Each test asserts what the attack was answered (the
refusal, the cap) and that the honest player got every answer and lost no acknowledged word.
Nothing here times anything: the latencies are the benchmark's business
(``benchmarks/bench_hostile.py``). Counts and durations are small and bounded.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, func, select

from bigboggle import Dictionary
from bigboggle.services.store import RoomRoundRow, RoomWordRow
from hostile import (
    HonestPlayer,
    Outcome,
    big_board_score,
    cross_site,
    deep_json,
    heavy_solves,
    host_redirect,
    huge_frames,
    huge_headers,
    huge_settings,
    join_and_vanish,
    long_solo,
    lookalike_names,
    ping_flood,
    slow_bodies,
    socket_swarm,
    stranger_tournament,
)
from live_server import LiveServer

pytestmark = [pytest.mark.once]

#: Attacks last this long; the honest player plays alongside for as long.
SECONDS = 3.0
#: Limits the suite sets on its server (small, so that the attacks reach them quickly).
LIMITS = {
    "BIGBOGGLE_LIMIT_BODY_TIMEOUT": "2",
    "BIGBOGGLE_LIMIT_SOCKETS_PER_SEAT": "3",
    "BIGBOGGLE_LIMIT_ROOMS_PER_ADDRESS_HOUR": "1000",
    "BIGBOGGLE_LIMIT_JOINS_PER_ADDRESS_MINUTE": "1000",
    "BIGBOGGLE_LIMIT_POOL_QUEUE": "4",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("hostile")
    saved = dict(os.environ)
    os.environ.update(LIMITS)
    try:
        live = LiveServer(f"sqlite:///{folder}/hostile.sqlite3", folder / "server.log").start()
    finally:
        os.environ.clear()
        os.environ.update(saved)
    yield live
    live.stop()
    log = (folder / "server.log").read_text()
    assert "Traceback" not in log, log[-3000:]


def _attack(server: LiveServer, attack: object, **kwargs: object) -> tuple[Outcome, HonestPlayer]:
    """Run ``attack`` with an honest player beside it; the honest player must not notice."""

    async def both() -> tuple[Outcome, HonestPlayer]:
        honest = HonestPlayer(server.port, Dictionary.builtin("standard"))
        await honest.start()
        outcome = Outcome(getattr(attack, "__name__", "attack"))
        try:
            await asyncio.gather(
                attack(server.port, SECONDS, outcome, **kwargs),  # type: ignore[operator]
                honest.measure(SECONDS),
            )
        finally:
            await honest.stop()
        return outcome, honest

    outcome, honest = asyncio.run(both())
    assert honest.verdicts.failures == [], honest.verdicts.failures[:3]
    assert honest.pages.failures == [], honest.pages.failures[:3]
    assert honest.verdicts.values, "the honest player got no verdict at all"
    assert _stored(server, honest.room["room"]) == honest.acknowledged
    return outcome, honest


def _stored(server: LiveServer, room: str) -> int:
    engine = create_engine(server.db_url)
    try:
        with engine.connect() as connection:
            return (
                connection.scalar(
                    select(func.count())
                    .select_from(RoomWordRow)
                    .join(RoomRoundRow, RoomRoundRow.id == RoomWordRow.round_id)
                    .where(RoomRoundRow.room == room)
                )
                or 0
            )
    finally:
        engine.dispose()


def _statuses(outcome: Outcome) -> set[str]:
    return set(outcome.answers)


def test_long_boards_and_bodies_are_refused(server: LiveServer) -> None:
    outcome, _ = _attack(server, big_board_score, count=6)
    assert _statuses(outcome) <= {"400", "413"}, outcome.answers


def test_deep_and_wide_json_is_refused(server: LiveServer) -> None:
    outcome, _ = _attack(server, deep_json, count=4)
    assert _statuses(outcome) <= {"400", "413"}, outcome.answers


def test_a_stranger_cannot_write_to_a_tournament(server: LiveServer) -> None:
    outcome, _ = _attack(server, stranger_tournament, count=5)
    tries = outcome.answers["read:200"]  # as many as fitted in the attack's time
    assert tries >= 1, outcome.answers
    for action in ("add", "add-wrong-key", "rename", "delete"):
        assert outcome.answers[f"{action}:403"] == tries, outcome.answers
    assert sum(outcome.answers.values()) == 5 * tries, outcome.answers
    assert outcome.notes["rounds after"] == 5
    assert outcome.notes["name after"] == "victim"
    assert outcome.notes["winner"] is None


def test_a_ping_flood_is_cut_off(server: LiveServer) -> None:
    outcome, _ = _attack(server, ping_flood, count=5000)
    assert outcome.answers == {"close:1008": 1}, outcome.answers


def test_huge_frames_are_refused_before_they_are_buffered(server: LiveServer) -> None:
    outcome, _ = _attack(server, huge_frames, count=4)
    assert "answered" not in outcome.answers
    assert all(key.startswith(("close:1009", "refused")) for key in outcome.answers), (
        outcome.answers
    )


def test_one_token_opens_only_a_few_sockets(server: LiveServer) -> None:
    outcome, _ = _attack(server, socket_swarm, count=12)
    assert outcome.notes["still open"] <= int(LIMITS["BIGBOGGLE_LIMIT_SOCKETS_PER_SEAT"])


def test_settings_for_players_who_do_not_exist_are_refused(server: LiveServer) -> None:
    outcome, _ = _attack(server, huge_settings, count=2)
    tries = outcome.answers["configure:error:bad_input"]
    assert tries >= 1, outcome.answers
    assert outcome.answers["create:413"] + outcome.answers["create:400"] == tries, outcome.answers
    assert sum(outcome.answers.values()) == 2 * tries, outcome.answers
    assert outcome.notes["state bytes"] < 20_000


def test_heavy_solves_are_queued_or_refused_and_the_rest_keep_answering(server: LiveServer) -> None:
    outcome, _ = _attack(server, heavy_solves, count=24)
    assert _statuses(outcome) <= {"200", "503", "503-with-retry-after"}, outcome.answers
    assert outcome.answers["503"] == outcome.answers["503-with-retry-after"]


def test_slow_and_short_bodies_are_given_up(server: LiveServer) -> None:
    outcome, _ = _attack(server, slow_bodies, count=10)
    assert "still waiting" not in outcome.answers, outcome.answers
    assert _statuses(outcome) <= {"408", "closed"}, outcome.answers


def test_huge_and_many_headers_are_refused(server: LiveServer) -> None:
    outcome, _ = _attack(server, huge_headers, count=2)
    assert not any(key.endswith(":200") for key in outcome.answers), outcome.answers


def test_cross_site_content_types_are_refused(server: LiveServer) -> None:
    outcome, _ = _attack(server, cross_site, count=2)
    assert all(key.endswith(":415") for key in outcome.answers), outcome.answers


def test_redirects_never_echo_the_host_header(server: LiveServer) -> None:
    outcome, _ = _attack(server, host_redirect, count=2)
    assert "echoed host" not in outcome.answers


def test_look_alike_names_cannot_share_a_room_or_the_daily_board(server: LiveServer) -> None:
    outcome, _ = _attack(server, lookalike_names)
    assert "welcome" not in outcome.answers, outcome.answers
    assert outcome.answers["daily:400"] == 2, outcome.answers


def test_sockets_gone_right_after_their_join_leave_no_traceback(server: LiveServer) -> None:
    outcome, _ = _attack(server, join_and_vanish, count=11)  # the host's room seats 12
    assert outcome.answers == {"welcome": 11}, outcome.answers
    log = Path(server.log).read_text()
    assert "Exception in ASGI application" not in log, log[-3000:]


def test_a_long_solo_game_keeps_answering(server: LiveServer) -> None:
    outcome, _ = _attack(server, long_solo, count=300)
    assert set(outcome.answers) == {"200"}, outcome.answers  # as many as fit in the time


def test_the_server_log_has_no_traceback_so_far(server: LiveServer) -> None:
    assert "Traceback" not in Path(server.log).read_text()

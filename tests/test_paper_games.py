"""Tournaments of paper games: rounds kept in the database, standings recomputed from them."""

from __future__ import annotations

import pytest

from bigboggle.errors import RoundInputError, RulesError
from bigboggle.paper_games import PaperTournaments
from bigboggle.shelf import DictionaryShelf
from bigboggle.solo_games import NotFoundError
from bigboggle.store import Store
from conftest import FakeClock

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def tournaments(db_url: str, clock: FakeClock) -> PaperTournaments:
    return PaperTournaments(Store(db_url), DictionaryShelf(), clock)


def test_rounds_add_up_until_the_target(tournaments: PaperTournaments, db_url: str) -> None:
    created = tournaments.create("Friday", target=15)
    tid = created.row.id
    first, view = tournaments.add_round(
        tid, {"board": BOARD, "players": {"ann": ["arsenite", "lines"], "bob": ["lines", "dear"]}}
    )
    assert first.scores == {"ann": 11, "bob": 1}
    assert view.to_json()["totals"] == {"ann": 11, "bob": 1}
    assert not view.tournament.is_over
    _, view = tournaments.add_round(
        tid, {"board": BOARD, "players": {"ann": ["romaine"], "bob": ["moraines"]}}
    )
    data = view.to_json()
    assert data["totals"] == {"ann": 16, "bob": 12}
    assert data["over"] and data["winner"] == "ann"
    assert [played["number"] for played in data["played"]] == [1, 2]
    with pytest.raises(RoundInputError, match="over"):
        tournaments.add_round(tid, {"board": BOARD, "players": {"ann": ["lines"]}})
    # A second process on the same database sees the same tournament.
    again = PaperTournaments(Store(db_url), DictionaryShelf()).get(tid).to_json()
    assert again == data


def test_team_play_and_handicaps_follow_the_tournaments_rules(
    tournaments: PaperTournaments,
) -> None:
    tid = tournaments.create("Teams", options={"teams": True}, rounds=1).row.id
    result, view = tournaments.add_round(
        tid,
        {
            "board": BOARD,
            "players": {"ann": ["lines", "sea"], "bob": ["lines"], "cy": ["lines"]},
            "teams": {"red": ["ann", "bob"], "blue": ["cy"]},
            "min_length": {"ann": 3},
        },
    )
    assert result.teams is not None
    assert result.teams["red"].score == 0 + 1  # lines crossed off by blue; ann's "sea" scores 1
    assert view.to_json()["standings"] == ["red", "blue"]
    assert view.to_json()["over"]


@pytest.mark.parametrize(
    ("round_data", "message"),
    [
        ({"players": {"ann": ["x"]}}, "board"),
        ({"board": BOARD, "players": {"ann": ["x"]}, "rules": "classic"}, "set by the tournament"),
        ({"board": BOARD, "players": {"ann": "lines"}}, "expected a list"),
        ({"board": BOARD, "players": {}}, "at least one player"),
        ({"board": "AB/C", "players": {"ann": []}}, "board"),
        ([1, 2], "JSON object"),
    ],
)
def test_bad_rounds_are_refused_and_not_kept(
    tournaments: PaperTournaments, round_data: object, message: str
) -> None:
    tid = tournaments.create("T", rounds=3).row.id
    with pytest.raises(RoundInputError, match=message):
        tournaments.add_round(tid, round_data)
    assert tournaments.get(tid).row.played == []


def test_bad_settings_and_unknown_tournaments(tournaments: PaperTournaments) -> None:
    with pytest.raises(RoundInputError, match="target"):
        tournaments.create("T")
    with pytest.raises(RoundInputError, match="name"):
        tournaments.create("  ", target=5)
    with pytest.raises(RoundInputError, match="not a tournament option"):
        tournaments.create("T", target=5, options={"timer": 60})
    with pytest.raises(RulesError, match="duplicates"):
        tournaments.create("T", target=5, options={"duplicates": "sometimes"})
    with pytest.raises(RoundInputError, match="limit"):
        tournaments.create("T", rounds=10_000)
    with pytest.raises(NotFoundError):
        tournaments.get("missing")


def test_two_rounds_sent_at_once_to_a_one_round_tournament(
    tournaments: PaperTournaments,
) -> None:
    import threading

    from bigboggle.errors import GameStateError

    tid = tournaments.create("T", rounds=1).row.id
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def send() -> None:
        barrier.wait()
        try:
            tournaments.add_round(tid, {"board": BOARD, "players": {"ann": ["lines"]}})
            outcomes.append("ok")
        except (GameStateError, RoundInputError) as exc:
            outcomes.append(type(exc).__name__)

    threads = [threading.Thread(target=send) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes)[1] == "ok" and sorted(outcomes)[0] in (
        "GameStateError",
        "RoundInputError",
    )
    data = tournaments.get(tid).to_json()  # still readable, one round
    assert len(data["played"]) == 1 and data["over"]

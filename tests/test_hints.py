"""Hints: each kind's content against the board's solution (core), their costs in the score,
practice games' free hints kept out of history, refusals (not allowed, over, the limit), and every
hint stored and shown in the results; through the service (SQLite and PostgreSQL) and the API."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from bigboggle import Board, Dictionary, Rules, solve
from bigboggle.errors import GameStateError, NotOwnerError, RulesError
from bigboggle.family import is_offensive
from bigboggle.hints import HINT_COSTS, check_kind, hint, hinted_word, net_score, words_left
from bigboggle.limits import MAX_HINTS_PER_GAME
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import PlayRow, SoloHintRow, Store
from bigboggle.solver import Solution
from bigboggle.web import create_app
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture(scope="module")
def solution(standard: Dictionary) -> Solution:
    return solve(BOARD, standard, Rules.preset("big"))


# -- the core ------------------------------------------------------------------------------------


def test_words_left_by_length_are_the_solutions_less_those_found(solution: Solution) -> None:
    assert words_left(solution, []) == solution.counts_by_length()
    found = ["lines", "arsenite"]
    left = words_left(solution, found)
    expected = solution.counts_by_length()
    expected[5] -= 1
    expected[8] -= 1
    assert left == {length: n for length, n in expected.items() if n}
    given = hint("words_left", solution, found)
    assert given.revealed == {
        "left": {str(k): v for k, v in left.items()},
        "total": sum(left.values()),
    }
    assert given.cost == HINT_COSTS["words_left"] and given.word is None


def test_the_word_hints_are_about_the_easiest_word_not_found(
    solution: Solution, standard: Dictionary
) -> None:
    target = hinted_word(solution, [], standard.level)
    assert target is not None and target.word in solution
    easiest = min(
        (standard.level(w.word) or 1000, len(w.word), w.word)
        for w in solution
        if not is_offensive(w.word)
    )
    assert (standard.level(target.word), len(target.word), target.word) == easiest
    letters = hint("letters", solution, [], level=standard.level)
    assert letters.revealed == {"length": len(target.word), "first": target.word[:2]}
    start = hint("start", solution, [], level=standard.level)
    row, col = target.path[0]
    assert start.revealed == {"cell": [row, col], "face": Board.parse(BOARD)[(row, col)]}
    path = hint("path", solution, [], level=standard.level)
    cells = [tuple(step) for step in path.revealed["path"]]
    board = Board.parse(BOARD)
    assert board.is_valid_path(cells) and board.spell(cells).lower() == target.word
    assert {letters.word, start.word, path.word} == {target.word}
    # The same word until it is found; then the next one.
    assert hint("letters", solution, ["zzz"], level=standard.level).word == target.word
    after = hint("letters", solution, [target.word], level=standard.level)
    assert after.word != target.word


def test_costs_kinds_and_the_floor_at_zero(solution: Solution) -> None:
    assert list(HINT_COSTS) == ["words_left", "letters", "start", "path"]
    assert all(hint(kind, solution, []).cost == cost for kind, cost in HINT_COSTS.items())
    assert all(hint(kind, solution, [], free=True).cost == 0 for kind in HINT_COSTS)
    with pytest.raises(RulesError, match="unknown hint kind 'answer'; choose one of words_left"):
        check_kind("answer")
    with pytest.raises(GameStateError, match="no word is left"):
        hint("path", solution, [word.word for word in solution])
    assert net_score(10, 3) == 7 and net_score(2, 5) == 0


# -- the service ---------------------------------------------------------------------------------


@pytest.fixture
def games(store: Store, clock: FakeClock) -> SoloGames:
    return SoloGames(store, DictionaryShelf(), clock)


def test_hints_at_their_cost_are_stored_and_taken_from_the_score(
    games: SoloGames, clock: FakeClock
) -> None:
    member = make_member(games.store, "dee")
    view = games.start("big", board=BOARD, hints=True, account_id=member)
    game_id, key = view.game.id, view.key
    arsenite = games.submit(game_id, "arsenite", key).result.score
    first = games.use_hint(game_id, "letters", key).to_json()
    assert first["hint"]["cost"] == HINT_COSTS["letters"] and "word" not in first["hint"]
    with games.store.session() as session:  # stored before it was answered
        assert session.scalars(select(SoloHintRow.kind)).all() == ["letters"]
    again = games.use_hint(game_id, "letters", key).to_json()
    assert again["again"] and again["hint_cost"] == HINT_COSTS["letters"]  # not charged twice
    games.use_hint(game_id, "path", key)
    running = games.get(game_id, key).to_json()["hints"]
    assert [used["kind"] for used in running["used"]] == ["letters", "path"]
    assert running["cost"] == HINT_COSTS["letters"] + HINT_COSTS["path"]
    clock.advance(200)
    data = games.get(game_id, key).to_json()
    cost = HINT_COSTS["letters"] + HINT_COSTS["path"]
    assert data["points"] == arsenite and data["score"] == arsenite - cost
    assert data["hints"]["cost"] == cost
    used = data["hints"]["used"]
    assert [u["kind"] for u in used] == ["letters", "path"]
    assert used[0]["word"] == used[1]["word"] and used[0]["text"].startswith("a word of")
    with games.store.session() as session:
        assert session.scalars(select(PlayRow.score)).one() == arsenite - cost


def test_practice_hints_are_free_and_the_game_counts_in_no_history(
    games: SoloGames, clock: FakeClock
) -> None:
    member = make_member(games.store, "eve")
    view = games.start("big", board=BOARD, practice=True, account_id=member)
    points = games.submit(view.game.id, "lines", view.key).result.score
    for kind in HINT_COSTS:
        assert games.use_hint(view.game.id, kind, view.key).hint["cost"] == 0
    clock.advance(200)
    data = games.get(view.game.id, view.key).to_json()
    assert data["score"] == points and data["hints"]["practice"]
    assert len(data["hints"]["used"]) == len(HINT_COSTS)
    with games.store.session() as session:
        assert session.scalars(select(PlayRow)).all() == []


def test_hints_are_refused_where_not_allowed_after_the_end_and_past_the_limit(
    games: SoloGames, clock: FakeClock
) -> None:
    plain = games.start("big", board=BOARD)
    with pytest.raises(GameStateError, match="hints are not allowed in this game"):
        games.use_hint(plain.game.id, "letters", plain.key)
    view = games.start("big", board=BOARD, hints=True)
    with pytest.raises(NotOwnerError):
        games.use_hint(view.game.id, "letters", "wrong key")
    with pytest.raises(RulesError, match="unknown hint kind"):
        games.use_hint(view.game.id, "everything", view.key)
    with games.store.write_session() as session:
        session.add_all(
            SoloHintRow(
                game_id=view.game.id,
                seq=n,
                kind="words_left",
                at=0.0,
                word=None,
                revealed={"n": n},
                cost=1,
            )
            for n in range(MAX_HINTS_PER_GAME)
        )
    with pytest.raises(GameStateError, match=f"at most {MAX_HINTS_PER_GAME} hints a game"):
        games.use_hint(view.game.id, "letters", view.key)
    other = games.start("big", board=BOARD, practice=True)
    clock.advance(200)
    with pytest.raises(GameStateError, match="the game has ended"):
        games.use_hint(other.game.id, "letters", other.key)
    with pytest.raises(RulesError, match="daily board is played alone"):
        games.start("big", daily=True, practice=True)


# -- the API -------------------------------------------------------------------------------------


def test_hints_over_the_api(db_url: str, clock: FakeClock) -> None:
    client = TestClient(create_app(db_url, clock=clock))
    game = client.post("/api/games", json={"board": BOARD, "hints": True}).json()
    assert game["hints"]["allowed"] and game["hints"]["costs"] == dict(HINT_COSTS)
    url, headers = f"/api/games/{game['id']}/hints", {"X-Game-Key": game["key"]}
    answer = client.post(url, json={"kind": "start"}, headers=headers)
    assert answer.status_code == 200 and answer.json()["hint"]["kind"] == "start"
    assert client.post(url, json={"kind": "start"}).status_code == 403
    bad = client.post(url, json={"kind": "everything"}, headers=headers)
    assert bad.status_code == 400 and "unknown hint kind 'everything'" in bad.json()["error"]
    assert client.post(url, json={"kind": "x" * 21}, headers=headers).status_code == 400
    plain = client.post("/api/games", json={"board": BOARD}).json()
    refused = client.post(
        f"/api/games/{plain['id']}/hints",
        json={"kind": "path"},
        headers={"X-Game-Key": plain["key"]},
    )
    assert refused.status_code == 409 and "not allowed" in refused.json()["error"]
    clock.advance(200)
    over = client.get(f"/api/games/{game['id']}", headers=headers).json()
    assert over["hints"]["used"][0]["kind"] == "start" and "word" in over["hints"]["used"][0]
    late = client.post(url, json={"kind": "path"}, headers=headers)
    assert late.status_code == 409 and "ended" in late.json()["error"]

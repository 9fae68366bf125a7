"""Tournaments of paper games: rounds scored once when added (through a runner) and kept with
their results and the standings; only the owner's key writes; reading scores nothing."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from sqlalchemy import select, update

from bigboggle.errors import NotFoundError, NotOwnerError, RoundInputError, RulesError
from bigboggle.limits import (
    MAX_TOURNAMENT_ENTRIES,
    MAX_TOURNAMENT_ROUND_ENTRIES,
    MAX_TOURNAMENT_ROUNDS,
)
from bigboggle.rules import Rules
from bigboggle.services.compute import run_here
from bigboggle.services.paper_games import PaperTournaments, score_stored_round
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import Store, TournamentRoundRow, TournamentRow
from conftest import FakeClock

T = TypeVar("T")

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


class CountingRunner:
    """A real runner (the job runs here, as with ``run_here``) that counts the jobs it ran."""

    def __init__(self) -> None:
        self.jobs: list[str] = []

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> T:
        self.jobs.append(fn.__name__)
        return run_here(fn, *args)


@pytest.fixture
def runner() -> CountingRunner:
    return CountingRunner()


@pytest.fixture
def tournaments(db_url: str, clock: FakeClock, runner: CountingRunner) -> PaperTournaments:
    return PaperTournaments(Store(db_url), DictionaryShelf(), clock, runner=runner)


def test_rounds_add_up_until_the_target(tournaments: PaperTournaments, db_url: str) -> None:
    created = tournaments.create("Friday", target=15)
    tid, key = created.tournament.id, created.key
    first, view = tournaments.add_round(
        tid,
        {"board": BOARD, "players": {"ann": ["arsenite", "lines"], "bob": ["lines", "dear"]}},
        key,
    )
    assert first.scores == {"ann": 11, "bob": 1}
    assert view.to_json()["totals"] == {"ann": 11, "bob": 1}
    assert not view.over
    _, view = tournaments.add_round(
        tid, {"board": BOARD, "players": {"ann": ["romaine"], "bob": ["moraines"]}}, key
    )
    data = view.to_json()
    assert data["totals"] == {"ann": 16, "bob": 12}
    assert data["over"] and data["winner"] == "ann"
    assert [played["number"] for played in data["played"]] == [1, 2]
    with pytest.raises(RoundInputError, match="over"):
        tournaments.add_round(tid, {"board": BOARD, "players": {"ann": ["lines"]}}, key)
    # A second process on the same database sees the same tournament.
    again = PaperTournaments(Store(db_url), DictionaryShelf()).get(tid).to_json()
    assert again == data


def test_team_play_and_handicaps_follow_the_tournaments_rules(
    tournaments: PaperTournaments,
) -> None:
    created = tournaments.create("Teams", options={"teams": True}, rounds=1)
    scored, view = tournaments.add_round(
        created.tournament.id,
        {
            "board": BOARD,
            "players": {"ann": ["lines", "sea"], "bob": ["lines"], "cy": ["lines"]},
            "teams": {"red": ["ann", "bob"], "blue": ["cy"]},
            "min_length": {"ann": 3},
        },
        created.key,
    )
    teams = scored.result["teams"]
    assert teams["red"]["score"] == 0 + 1  # lines crossed off by blue; ann's "sea" scores 1
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
    created = tournaments.create("T", rounds=3)
    with pytest.raises(RoundInputError, match=message):
        tournaments.add_round(created.tournament.id, round_data, created.key)
    assert tournaments.get(created.tournament.id).played == ()


def test_bad_settings_and_unknown_tournaments(tournaments: PaperTournaments) -> None:
    with pytest.raises(RoundInputError, match="target"):
        tournaments.create("T")
    with pytest.raises(RoundInputError, match="name"):
        tournaments.create("  ", target=5)
    with pytest.raises(RulesError) as caught:
        tournaments.create("T", target=5, options={"timer": 60})
    assert str(caught.value).startswith(
        "options: unknown tournament option 'timer'; tournament options are: advanced, "
    )
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

    created = tournaments.create("T", rounds=1)
    tid = created.tournament.id
    outcomes: list[str] = []
    barrier = threading.Barrier(2)

    def send() -> None:
        barrier.wait()
        try:
            tournaments.add_round(tid, {"board": BOARD, "players": {"ann": ["lines"]}}, created.key)
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


ROUND = {"board": BOARD, "players": {"ann": ["arsenite"], "bob": ["lines"]}}


@pytest.mark.parametrize("wrong", [None, "", "x" * 24])
def test_only_the_key_holder_writes(tournaments: PaperTournaments, wrong: str | None) -> None:
    created = tournaments.create("Mine", target=50)
    assert created.key and created.to_json()["key"] == created.key
    assert "key" not in tournaments.get(created.tournament.id).to_json()  # shown once, at creation
    tid = created.tournament.id
    with pytest.raises(NotOwnerError, match="X-Tournament-Key"):
        tournaments.add_round(tid, ROUND, wrong)
    with pytest.raises(NotOwnerError):
        tournaments.rename(tid, "Stolen", wrong)
    with pytest.raises(NotOwnerError):
        tournaments.delete(tid, wrong)
    after = tournaments.get(tid)
    assert after.tournament.name == "Mine"
    assert after.played == () and after.standings["totals"] == {}
    for write in (
        lambda: tournaments.add_round("missing", ROUND, created.key),
        lambda: tournaments.rename("missing", "x", created.key),
        lambda: tournaments.delete("missing", created.key),
    ):
        with pytest.raises(NotFoundError):
            write()


def test_the_owner_renames_and_deletes(tournaments: PaperTournaments, db_url: str) -> None:
    created = tournaments.create("Friday", rounds=3)
    tid, key = created.tournament.id, created.key
    tournaments.add_round(tid, ROUND, key)
    assert tournaments.rename(tid, "  Ｆｒｉｄａｙ   night ", key).tournament.name == "Friday night"
    for bad, message in [
        ("", "non-empty"),
        ("x" * 81, "longer than 80"),
        ("evil\u202egnp", "invisible or control"),
        ("a\x00b", "invisible or control"),
    ]:
        with pytest.raises(RoundInputError, match=message):
            tournaments.rename(tid, bad, key)
        with pytest.raises(RoundInputError, match=message):
            tournaments.create(bad, target=5)
    tournaments.delete(tid, key)
    with pytest.raises(NotFoundError):
        tournaments.get(tid)
    with tournaments.store.session() as session:
        assert session.query(TournamentRoundRow).filter_by(tournament_id=tid).count() == 0


def test_reading_scores_nothing(tournaments: PaperTournaments, runner: CountingRunner) -> None:
    created = tournaments.create("T", rounds=3)
    for _ in range(2):
        tournaments.add_round(created.tournament.id, ROUND, created.key)
    assert runner.jobs == ["score_tournament_round"] * 2  # once per round, when added
    for _ in range(5):
        data = tournaments.get(created.tournament.id).to_json()
    assert runner.jobs == ["score_tournament_round"] * 2
    assert data["totals"] == {"ann": 22, "bob": 4} and data["standings"] == ["ann", "bob"]
    assert [played["players"]["ann"]["score"] for played in data["played"]] == [11, 11]


def test_tournaments_from_before_stored_results(
    tournaments: PaperTournaments, runner: CountingRunner
) -> None:
    """An old tournament (no owner, no stored results) is scored once on first read, stored,
    and then read like any other; nobody may write to it."""
    created = tournaments.create("Old", target=20)
    tid = created.tournament.id
    tournaments.add_round(tid, ROUND, created.key)
    tournaments.add_round(tid, ROUND, created.key)  # ann reaches 22: over
    expected = tournaments.get(tid).to_json()
    with tournaments.store.session() as session:
        session.execute(update(TournamentRoundRow).values(result=None, tally=None))
        session.execute(update(TournamentRow).values(owner_hash=None, standings=None))
    runner.jobs.clear()
    first = tournaments.get(tid).to_json()
    assert runner.jobs == ["score_stored_round"] * 2
    assert tournaments.get(tid).to_json() == first
    assert runner.jobs == ["score_stored_round"] * 2  # stored: not scored again
    assert first == {**expected, "has_owner": False}
    assert first["winner"] == "ann"
    with pytest.raises(NotOwnerError, match="read-only"):
        tournaments.rename(tid, "Mine now", created.key)


def score_in(executor: Any) -> Callable[..., Any]:
    def run(fn: Callable[..., T], /, *args: Any) -> T:
        result: T = executor.submit(fn, *args).result()
        return result

    return run


def test_rounds_are_scored_in_another_process(db_url: str, clock: FakeClock) -> None:
    """The scoring job takes and returns plain data: a process pool runs it as well."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(1, mp_context=context) as executor:
        pooled = PaperTournaments(Store(db_url), DictionaryShelf(), clock, score_in(executor))
        created = pooled.create("Far", rounds=1)
        scored, view = pooled.add_round(created.tournament.id, ROUND, created.key)
    assert scored.scores == {"ann": 11, "bob": 2}
    assert view.to_json()["winner"] == "ann"


def test_a_round_keeps_at_most_its_limit_of_entries(
    tournaments: PaperTournaments, runner: CountingRunner
) -> None:
    """A tournament round is a game of the boxed set: its lists are bounded far below what
    /api/score takes, refused by name before anything is scored."""
    created = tournaments.create("Big lists", rounds=3)
    half = MAX_TOURNAMENT_ROUND_ENTRIES // 2
    full = {"board": BOARD, "players": {"ann": ["lines"] * half, "bob": ["dear"] * half}}
    scored, view = tournaments.add_round(created.tournament.id, full, created.key)  # just fits
    assert scored.number == 1
    assert view.standings["entries"] == MAX_TOURNAMENT_ROUND_ENTRIES
    over = {"board": BOARD, "players": {**full["players"], "cy": ["lines"]}}
    runner.jobs.clear()
    with pytest.raises(RoundInputError, match="MAX_TOURNAMENT_ROUND_ENTRIES") as caught:
        tournaments.add_round(created.tournament.id, over, created.key)
    assert f"{MAX_TOURNAMENT_ROUND_ENTRIES + 1:,} entries" in str(caught.value)
    assert runner.jobs == []  # refused before scoring
    assert len(tournaments.get(created.tournament.id).played) == 1


def test_a_tournament_keeps_at_most_its_limit_of_entries(
    tournaments: PaperTournaments, runner: CountingRunner
) -> None:
    """The running count of entries is kept in the stored standings; a round that would take
    the tournament past the limit is refused, so a read sends a bounded amount."""
    created = tournaments.create("Long", rounds=MAX_TOURNAMENT_ROUNDS)
    tid = created.tournament.id
    _, view = tournaments.add_round(tid, ROUND, created.key)
    assert view.standings["entries"] == 2
    with tournaments.store.session() as session:  # as if many rounds had filled it up
        standings = {**view.standings, "entries": MAX_TOURNAMENT_ENTRIES - 2}
        session.execute(update(TournamentRow).values(standings=standings))
    _, view = tournaments.add_round(tid, ROUND, created.key)  # exactly reaches the limit
    assert view.standings["entries"] == MAX_TOURNAMENT_ENTRIES
    runner.jobs.clear()
    with pytest.raises(RoundInputError, match="MAX_TOURNAMENT_ENTRIES"):
        tournaments.add_round(tid, {"board": BOARD, "players": {"ann": ["lines"]}}, created.key)
    assert runner.jobs == []
    assert len(tournaments.get(tid).played) == 2


def test_entries_are_counted_for_standings_stored_without_the_count(
    tournaments: PaperTournaments,
) -> None:
    created = tournaments.create("Older", rounds=5)
    tid = created.tournament.id
    tournaments.add_round(tid, ROUND, created.key)
    with tournaments.store.session() as session:  # standings as stored before the count
        row = session.get(TournamentRow, tid)
        assert row is not None and row.standings is not None
        old = {key: value for key, value in row.standings.items() if key != "entries"}
        session.execute(update(TournamentRow).values(standings=old))
    _, view = tournaments.add_round(tid, ROUND, created.key)
    assert view.standings["entries"] == 4


def _make_legacy(tournaments: PaperTournaments, requests: list[dict[str, Any]]) -> str:
    """A tournament as an older bigboggle left it: no owner, no stored results or standings,
    rounds stored as its schema accepted them (checked less than today)."""
    created = tournaments.create("Old", rounds=5)
    with tournaments.store.session() as session:
        session.execute(update(TournamentRow).values(owner_hash=None, standings=None))
        for number, request in enumerate(requests, start=1):
            session.add(
                TournamentRoundRow(
                    tournament_id=created.tournament.id,
                    number=number,
                    request=request,
                    created_at=0.0,
                    result=None,
                    tally=None,
                )
            )
    return created.tournament.id


def test_old_rounds_that_todays_checks_refuse_are_scored_as_stored(
    tournaments: PaperTournaments, runner: CountingRunner
) -> None:
    """'Ann' beside 'ann', and a name with a zero-width character, were accepted once: such a
    round is scored with its names as stored (it gave 400 on every read)."""
    tid = _make_legacy(
        tournaments,
        [
            {"board": BOARD, "players": {"Ann": ["arsenite"], "ann": ["lines"]}},
            {"board": BOARD, "players": {"bob\u200b": ["lines"], "Ann": ["lines", "dear"]}},
        ],
    )
    data = tournaments.get(tid).to_json()
    assert data["totals"] == {"Ann": 12, "bob\u200b": 0, "ann": 2}
    assert [played["players"]["Ann"]["score"] for played in data["played"]] == [11, 1]
    assert runner.jobs == ["score_stored_round"] * 2
    assert tournaments.get(tid).to_json() == data  # stored: read back, not scored again
    assert runner.jobs == ["score_stored_round"] * 2


def test_an_old_round_that_cannot_be_scored_is_marked_not_retried(
    tournaments: PaperTournaments, runner: CountingRunner
) -> None:
    tid = _make_legacy(
        tournaments,
        [
            {"board": "AB/C", "players": {"ann": ["lines"]}},  # not a board
            {"board": BOARD, "players": {"ann": ["lines"]}},
        ],
    )
    data = tournaments.get(tid).to_json()
    first, second = data["played"]
    assert first["unscored"].startswith("could not be scored: ") and "board" in first["unscored"]
    assert first["players"] == {} and first["ranking"] == []
    assert second["players"]["ann"]["score"] == 2 and data["totals"] == {"ann": 2}
    tournaments.get(tid)
    assert runner.jobs == ["score_stored_round"] * 2  # once each, the marker included


@pytest.mark.parametrize(
    ("teams", "reason"),
    [
        (None, "teams: these rules are for team play, but no teams were given"),
        ({"red": ["ann", "ann"], "blue": ["bob"]}, "teams.red[1]: 'ann' is already on team 'red'"),
        ({"red": ["ann", "cy"], "blue": ["bob"]}, "teams.red[1]: 'cy' is not one of the players"),
        ({"red": ["ann"]}, "players.bob: 'bob' is on no team; in team play everyone is"),
    ],
    ids=["no teams", "twice", "a stranger", "on no team"],
)
def test_an_old_team_round_is_held_to_round_setups_team_rules(
    teams: dict[str, list[str]] | None, reason: str
) -> None:
    # Names are taken as stored, but the teams are round_setup's to judge, in its words.
    rules = Rules.preset("big")
    result, tally = score_stored_round(
        (), rules.dictionary, "big", {"teams": True}, BOARD, {"ann": [], "bob": []}, teams, None
    )
    assert result["unscored"].startswith(f"could not be scored: {reason}"), result
    assert tally == {"scores": {}, "lengths": {}}


class RefusingRunner(CountingRunner):
    """Refuses (raises) the job for the boards in ``refuse``, runs the others here."""

    def __init__(self, refuse: dict[str, Exception]) -> None:
        super().__init__()
        self.refuse = refuse

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> T:
        self.jobs.append(fn.__name__)
        refused = self.refuse.get(args[4])  # the board
        if refused is not None:
            raise refused
        return run_here(fn, *args)


def test_old_rounds_are_kept_as_scored_and_a_refused_one_is_marked(
    db_url: str, clock: FakeClock
) -> None:
    """Each old round is stored as soon as it is scored: a busy pool part-way keeps the rounds
    before it (the next read scores only the rest); a round over its budget gets the "could
    not be scored" marker instead of a 503 on every read."""
    from bigboggle.errors import BudgetExceededError, BusyError

    other = "SENIL/TQARD/HEMOP/ABCKI/PSTEW"
    heavy = "LINES/TQARD/HEMOP/ABCKI/PSTEX"
    runner = RefusingRunner({other: BusyError("the worker pool is full")})
    tournaments = PaperTournaments(Store(db_url), DictionaryShelf(), clock, runner=runner)
    tid = _make_legacy(
        tournaments,
        [
            {"board": BOARD, "players": {"ann": ["lines"]}},
            {"board": other, "players": {"ann": ["lines"]}},
            {"board": heavy, "players": {"ann": ["lines"]}},
        ],
    )
    with pytest.raises(BusyError):
        tournaments.get(tid)
    with tournaments.store.session() as session:
        kept = session.scalars(
            select(TournamentRoundRow.result).order_by(TournamentRoundRow.number)
        ).all()
    assert kept[0] is not None and kept[1:] == [None, None]
    runner.jobs.clear()
    runner.refuse = {heavy: BudgetExceededError("the job ran over its budget")}
    data = tournaments.get(tid).to_json()
    assert runner.jobs == ["score_stored_round"] * 2  # the first round was kept
    assert data["played"][2]["unscored"] == "could not be scored: the job ran over its budget"
    assert data["totals"] == {"ann": 4}
    assert tournaments.get(tid).to_json() == data
    assert runner.jobs == ["score_stored_round"] * 2

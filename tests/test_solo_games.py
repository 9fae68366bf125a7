"""Solo games on the server's clock: the deadline, every word stored, results, the daily board."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from sqlalchemy import null, select, update

from bigboggle import Board, Dictionary, Round, Rules, solve
from bigboggle.analysis import Band
from bigboggle.dice import shake
from bigboggle.errors import (
    BoardError,
    GameStateError,
    NotFoundError,
    NotOwnerError,
    RoundInputError,
    RulesError,
)
from bigboggle.services.compute import run_here
from bigboggle.services.daily import check_date, utc_date
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.solo_games import SoloGames
from bigboggle.services.store import MissedWordsRow, PlayRow, SoloGameRow, SoloWordRow, Store
from bigboggle.verdicts import Verdict
from conftest import FakeClock, make_member

pytestmark = pytest.mark.once
T = TypeVar("T")

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


@pytest.fixture
def games(db_url: str, clock: FakeClock) -> SoloGames:
    return SoloGames(Store(db_url), DictionaryShelf(), clock)


def test_a_game_is_a_seeded_shake_of_the_presets_dice(games: SoloGames) -> None:
    view = games.start("big", seed=7)
    assert view.game.board == str(shake("big", 7).board)
    assert view.game.deadline - view.game.started_at == Rules.preset("big").timer
    assert games.start("superbig", seed=1).game.deadline - games.clock() == 240


def test_words_get_verdicts_at_once_and_are_stored_in_order(
    games: SoloGames, clock: FakeClock, standard: Dictionary
) -> None:
    started = games.start("big", board=BOARD)
    game_id, key = started.game.id, started.key
    expected = solve(BOARD, standard, Rules.preset("big"))
    answers = {}
    for entry in ["LINES", "lines", "hemp", "xyzzy", "tqa", "arsenite"]:
        clock.advance(1)
        answers[entry] = games.submit(game_id, entry, key).result
    assert answers["LINES"].verdict is Verdict.SCORED
    assert answers["LINES"].score == expected.get("lines").score  # type: ignore[union-attr]
    assert answers["lines"].verdict is Verdict.REPEATED
    assert answers["hemp"].verdict is Verdict.NOT_ON_BOARD
    assert answers["tqa"].verdict is Verdict.TOO_SHORT
    assert answers["arsenite"].score == 11
    stored = games.get(game_id, key)
    assert [word.entry for word in stored.words] == [
        "LINES",
        "hemp",
        "xyzzy",
        "tqa",
        "arsenite",
    ]


def test_the_deadline_is_the_servers(games: SoloGames, clock: FakeClock) -> None:
    started = games.start("big", board=BOARD, options={"timer": 30})
    game_id, key = started.game.id, started.key
    clock.advance(29.9)
    games.submit(game_id, "lines", key)
    clock.advance(0.1)  # exactly at the deadline: too late
    with pytest.raises(GameStateError, match="time is up"):
        games.submit(game_id, "rates", key)
    view = games.get(game_id, key)  # its player's read ends and scores it
    assert view.over
    assert view.game.ended_at == view.game.deadline
    assert view.game.score == view.to_json()["score"] == 2
    with pytest.raises(GameStateError, match="ended"):
        games.submit(game_id, "rates", key)


def test_a_word_too_late_ends_and_scores_the_game(games: SoloGames, clock: FakeClock) -> None:
    """The round engine refuses a word from the deadline on; its player being here, the game
    is ended and scored then, so a stranger's read (which does no work) finds it over."""
    started = games.start("big", board=BOARD, options={"timer": 30})
    game_id, key = started.game.id, started.key
    games.submit(game_id, "lines", key)
    clock.advance(31)
    assert games.get(game_id).to_json()["phase"] == "scoring"
    with pytest.raises(GameStateError, match="time is up"):
        games.submit(game_id, "rates", key)
    shown = games.get(game_id).to_json()
    assert shown["phase"] == "ended" and shown["score"] == 2
    assert shown["ended_at"] == shown["deadline"]


class EnginesCounted(SoloGames):
    """Solo games that note each round engine they restore (which solves the board)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.restored: list[str] = []

    def _fresh_game(self, row: SoloGameRow) -> Round:
        self.restored.append(row.id)
        return super()._fresh_game(row)


def test_a_word_too_late_solves_no_board_to_be_refused(db_url: str, clock: FakeClock) -> None:
    """A late word cannot count: it is refused as the engine would refuse it (and the game
    ended and scored) without restoring an engine for it, here a server that has none cached."""
    store = Store(db_url)
    started = SoloGames(store, DictionaryShelf(), clock).start("big", board=BOARD)
    clock.advance(Rules.preset("big").timer)
    later = EnginesCounted(store, DictionaryShelf(), clock)
    with pytest.raises(GameStateError, match=r"^time is up: the round's deadline has passed$"):
        later.submit(started.game.id, "lines", started.key)
    assert later.restored == [] and not later._engines
    assert later.get(started.game.id).to_json()["phase"] == "ended"
    # A word in time still restores one (the count is of real restores), on a server that
    # did not start the game:
    again = SoloGames(store, DictionaryShelf(), clock).start("big", board=BOARD)
    later.submit(again.game.id, "lines", again.key)
    assert later.restored == [again.game.id]
    # A start makes no engine (its board's points come from the runner): the game's first
    # word makes one, on the server that started it too.
    mine = later.start("big", board=BOARD)
    assert mine.game.id not in later._engines
    later.submit(mine.game.id, "lines", mine.key)
    assert later.restored == [again.game.id, mine.game.id]


def test_results_add_up_found_missed_and_share(
    games: SoloGames, clock: FakeClock, standard: Dictionary
) -> None:
    started = games.start("big", board=BOARD)
    game_id, key = started.game.id, started.key
    for entry in ["lines", "arsenite", "nonsense"]:
        games.submit(game_id, entry, key)
    solution = solve(BOARD, standard, Rules.preset("big"))
    # The board's points are known while it is played (not its words): the meter's measure.
    running = games.get(game_id, key).to_json()
    assert running["phase"] == "running" and running["max_score"] == solution.total_score
    assert "missed" not in running and "total_words" not in running
    data = games.finish(game_id, key).to_json()
    assert data["phase"] == "ended"
    assert data["score"] == 13
    assert data["max_score"] == solution.total_score
    assert data["score"] + sum(word["score"] for word in data["missed"]) == data["max_score"]
    assert data["found"] == 2 and data["total_words"] == solution.count
    assert {word["word"] for word in data["missed"]} == {w.word for w in solution} - {
        "lines",
        "arsenite",
    }
    rare = [word for word in data["missed"] if word["rare"]]
    assert rare and all(standard.level(word["word"]) > 50 for word in rare)  # type: ignore[operator]
    assert data["share"] == round(13 / solution.total_score, 4)
    assert data["replay"] == {"rules": "big", "dictionary": "standard", "board": str(Board(BOARD))}


def test_ending_early_keeps_the_time_it_ended(games: SoloGames, clock: FakeClock) -> None:
    started = games.start("big", seed=3)
    clock.advance(20)
    view = games.finish(started.game.id, started.key)
    game_id = started.game.id
    assert view.game.ended_at == games.clock()
    clock.advance(1000)
    assert games.get(game_id).game.ended_at == view.game.ended_at


def test_options_and_bands_apply(games: SoloGames) -> None:
    view = games.start("big", seed=5, options={"advanced": True, "challenge": True})
    assert view.rules.min_length == 5
    assert Board.parse(view.game.board).challenge is not None
    assert view.to_json()["replay"]["challenge"] is True
    rich = games.start("big", seed=0, band=Band(min_points=300))
    words = games.shelf.get(rich.game.dictionary)
    assert solve(rich.game.board, words, rich.rules).total_score >= 300


def test_a_family_game_refuses_offensive_words_and_leaves_them_out_of_its_points(
    games: SoloGames, standard: Dictionary
) -> None:
    """The family filter is a solo option: an offensive word gets its own verdict and no
    points, and the board's points the player's meter measures against leave such words out."""
    board = "QuINES/TARDH/EMOPA/[Th]BCKI/PST.W"  # "porn" is on it
    plain = games.start("big", board=board)
    family = games.start("big", board=board, options={"family": True})
    assert family.to_json()["options"] == {"family": True}
    refused = games.submit(family.game.id, "porn", family.key).result
    assert refused.verdict is Verdict.REFUSED and refused.score == 0
    assert games.submit(plain.game.id, "porn", plain.key).result.verdict is Verdict.SCORED
    total = solve(board, standard, Rules.preset("big")).total_score
    assert plain.game.max_score == total
    assert family.game.max_score == total - 1  # porn: one point, not counted


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"options": {"teams": True}}, RulesError, "options: unknown solo game option .teams."),
        ({"options": {"timer": 0}}, RulesError, "timer"),
        ({"rules": "giant"}, RulesError, "unknown rules"),
        ({"dictionary": "klingon"}, Exception, "unknown dictionary"),
        ({"board": "ABC/DE"}, BoardError, "rectangular"),
        ({"board": BOARD, "seed": 3}, RulesError, "not both"),
        ({"player": ""}, RoundInputError, "name"),
        ({"daily": True, "seed": 4}, RulesError, "daily board"),
    ],
)
def test_bad_settings_are_refused_by_name(
    games: SoloGames, kwargs: dict[str, object], error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        games.start(**kwargs)  # type: ignore[arg-type]


def test_bad_words_and_unknown_games(games: SoloGames) -> None:
    started = games.start("big", seed=1)
    game_id, key = started.game.id, started.key
    with pytest.raises(RoundInputError, match="expected a word"):
        games.submit(game_id, "   ", key)
    with pytest.raises(RoundInputError, match="expected a word, not 7"):
        games.submit(game_id, 7, key)  # type: ignore[arg-type]
    with pytest.raises(RoundInputError, match="limit"):
        games.submit(game_id, "a" * 61, key)
    with pytest.raises(NotFoundError):
        games.submit("nope", "word", key)
    with pytest.raises(NotFoundError):
        games.get("x" * 40)


def test_the_daily_board_is_the_same_for_everyone_on_a_date(
    games: SoloGames, clock: FakeClock
) -> None:
    ann = games.start("big", daily=True, player="Ann")
    bob = games.start("big", daily=True, player="Bob")
    other_preset = games.start("superbig", daily=True, player="Ann")
    assert ann.game.board == bob.game.board
    assert ann.game.daily_date == utc_date(clock.now)
    assert other_preset.game.board != ann.game.board
    clock.advance(86_400)
    tomorrow = games.start("big", daily=True, player="Ann")
    assert tomorrow.game.board != ann.game.board
    assert games.daily_seed("big", ann.game.daily_date) == ann.game.seed  # type: ignore[arg-type]


def test_each_name_plays_the_daily_board_once(games: SoloGames) -> None:
    games.start("big", daily=True, player="Ann")
    # The game is named as the player knows it (the preset's title), not by its internal name.
    title = re.escape(Rules.preset("big").title)
    with pytest.raises(GameStateError, match=rf"already played the {title} daily board of "):
        games.start("big", daily=True, player="ann")


def test_the_leaderboard_ranks_finished_daily_games(
    games: SoloGames, clock: FakeClock, standard: Dictionary
) -> None:
    date = utc_date(clock.now)
    started = {name: games.start("big", daily=True, player=name) for name in ("ann", "bob")}
    ids = {name: view.game.id for name, view in started.items()}
    keys = {name: view.key for name, view in started.items()}
    board = games.get(ids["ann"]).game.board
    words = [found.word for found in solve(board, standard, Rules.preset("big"))]
    for word in words[:3]:
        games.submit(ids["bob"], word, keys["bob"])
    games.submit(ids["ann"], words[0], keys["ann"])
    games.finish(ids["ann"], keys["ann"])
    assert [entry.player for entry in games.leaderboard("big", date)] == ["ann"]
    clock.advance(500)  # bob's deadline passes unattended: reading the board scores nothing
    assert [entry.player for entry in games.leaderboard("big", date)] == ["ann"]
    assert games.get(ids["bob"]).to_json()["phase"] == "scoring"  # a stranger's read: no work
    games.settle(ids["bob"])  # what the server's timer does at his deadline
    board_now = games.leaderboard("big", date)
    assert [entry.player for entry in board_now] == ["bob", "ann"]
    assert board_now[0].score > board_now[1].score > 0
    assert games.leaderboard("big", "2001-01-01") == []


def test_dates_are_checked() -> None:
    assert check_date("2026-02-28") == "2026-02-28"
    for bad in ["2026-02-30", "yesterday", "2026-2-3", ""]:
        with pytest.raises(RoundInputError, match="YYYY-MM-DD"):
            check_date(bad)


def test_only_the_key_holder_plays_or_sees_a_running_game(games: SoloGames) -> None:
    started = games.start("big", board=BOARD, player="alice")
    assert started.key and started.to_json()["key"] == started.key
    game_id = started.game.id
    games.submit(game_id, "lines", started.key)
    for wrong in (None, "", "x" * 30):
        with pytest.raises(NotOwnerError):
            games.submit(game_id, "rates", wrong)
        with pytest.raises(NotOwnerError):
            games.finish(game_id, wrong)
    stranger = games.get(game_id).to_json()
    assert stranger["words"] == [] and "key" not in stranger  # nothing to copy
    assert [w["word"] for w in games.get(game_id, started.key).to_json()["words"]] == ["lines"]
    games.finish(game_id, started.key)
    assert [w["word"] for w in games.get(game_id).to_json()["words"]] == ["lines"]  # over: public


def test_a_private_games_words_are_its_players_alone_until_its_time(
    db_url: str, clock: FakeClock
) -> None:
    """A challenge's round (private until the challenge closes): anyone but its player sees its
    score, never its words, on the API and in the member's public history, until then."""
    store = Store(db_url)
    games = SoloGames(store, DictionaryShelf(), clock)
    ann = make_member(store, "ann")
    closes = clock.now + 3600
    started = games.start("big", board=BOARD, account_id=ann, private_until=closes)
    games.submit(started.game.id, "lines", started.key)
    games.finish(started.game.id, started.key)
    stranger = games.get(started.game.id).to_json()
    assert stranger["sealed"] is True and stranger["private_until"] == closes
    assert stranger["score"] == 2 and stranger["found"] == 1
    assert stranger["board"] is None and stranger["seed"] is None  # the solver would tell all
    assert not {"words", "missed", "opponents", "ranking", "hints"} & stranger.keys()
    assert "lines" not in str(stranger)
    own = games.get(started.game.id, started.key).to_json()
    assert "sealed" not in own and [w["word"] for w in own["words"]] == ["lines"]
    with store.session() as session:
        play = session.scalars(select(PlayRow).where(PlayRow.account_id == ann)).one()
    assert play.score == 2 and play.best_word is None and play.longest_word is None
    with store.session() as session:  # its missed words are not counted either (a profile
        summaries = session.scalars(select(MissedWordsRow.summary)).all()  # shows them)
    assert all(not summary.get("counts") for summary in summaries)
    clock.advance(3600)
    public = games.get(started.game.id).to_json()
    assert "sealed" not in public and [w["word"] for w in public["words"]] == ["lines"]
    with pytest.raises(ValueError, match="finite"):
        games.start("big", board=BOARD, private_until=float("nan"))


def test_words_sent_at_once_are_all_stored(games: SoloGames, standard: Dictionary) -> None:
    import threading

    started = games.start("big", board=BOARD)
    words = [found.word for found in solve(BOARD, standard, Rules.preset("big"))][:24]
    barrier = threading.Barrier(8)
    failures: list[BaseException] = []

    def send(batch: list[str]) -> None:
        barrier.wait()
        for word in batch:
            try:
                games.submit(started.game.id, word, started.key)
            except BaseException as exc:  # collected and asserted below
                failures.append(exc)

    threads = [threading.Thread(target=send, args=(words[n::8],)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    stored = games.get(started.game.id, started.key).words
    assert sorted(word.word for word in stored) == sorted(words)


ENTRIES = ["Lines", "lines", " LINES ", "line", "d0g", "D0G", "tqa", "hemp", "café", "arsenite"]


def test_stored_verdicts_are_the_round_engines(games: SoloGames, clock: FakeClock) -> None:
    """Each word is judged alone against the stored list; the verdicts are exactly those of the
    round engine fed the whole list, and the final results agree with them."""
    from bigboggle.round import Round

    started = games.start("big", board=BOARD, options={"min_length": 4})
    answers = []
    for entry in ENTRIES:
        clock.advance(1)
        answers.append(games.submit(started.game.id, entry, started.key))
    replay = Round(BOARD, started.rules, games.shelf.get(started.game.dictionary), ["you"])
    replay.start(0.0, 180)
    expected = [replay.submit("you", entry.strip(), 1.0) for entry in ENTRIES]
    assert [answer.result for answer in answers] == expected
    assert [answer.words for answer in answers] == [1, 1, 1, 2, 3, 4, 5, 6, 7, 8]
    assert answers[-1].score_so_far == sum(s.result.score for s in replay.submissions) == 14
    running = games.get(started.game.id, started.key)
    assert running.words == tuple(s.result for s in replay.submissions)
    ended = games.finish(started.game.id, started.key).to_json()
    assert ended["words"] == [word.to_json() for word in running.words]  # nobody to cross off
    assert ended["score"] == 14


def test_a_game_from_before_verdicts_were_kept_carries_on(
    games: SoloGames, clock: FakeClock, db_url: str
) -> None:
    started = games.start("big", board=BOARD)
    for entry in ("lines", "zzzz"):
        games.submit(started.game.id, entry, started.key)
    with games.store.session() as session:  # what an older bigboggle stored: entries only
        session.execute(
            update(SoloWordRow).values(word=None, verdict=None, score=None, bonus=None, path=None)
        )
        session.execute(update(SoloGameRow).values(word_count=None, score_so_far=None))
    again = games.submit(started.game.id, "LINES", started.key)
    assert again.result.verdict is Verdict.REPEATED  # the old words still count
    answer = games.submit(started.game.id, "arsenite", started.key)
    assert (answer.words, answer.score_so_far) == (3, 13)
    shown = games.get(started.game.id, started.key).words
    assert [(w.word, w.verdict) for w in shown] == [
        ("lines", Verdict.SCORED),
        ("zzzz", Verdict.NOT_ON_BOARD),
        ("arsenite", Verdict.SCORED),
    ]


def test_a_full_list_takes_no_more_words(games: SoloGames) -> None:
    from bigboggle.limits import MAX_LIST_LENGTH

    started = games.start("big", board=BOARD)
    games.submit(started.game.id, "lines", started.key)
    with games.store.session() as session:
        session.execute(update(SoloGameRow).values(word_count=MAX_LIST_LENGTH))
    with pytest.raises(RoundInputError, match=f"{MAX_LIST_LENGTH} words; no more fit"):
        games.submit(started.game.id, "arsenite", started.key)
    # A repeat is still answered (nothing is stored for it).
    assert games.submit(started.game.id, "lines", started.key).result.verdict is Verdict.REPEATED


@pytest.mark.parametrize(
    ("second", "error", "message"),
    [
        ("alice", GameStateError, "already played"),
        ("\u0410lice", GameStateError, "already played"),  # Cyrillic А
        ("ＡＬＩＣＥ", GameStateError, "already played"),  # full-width
        ("alice\u200b", RoundInputError, "invisible or control character"),
        ("ali\x00ce", RoundInputError, "invisible or control character"),
    ],
)
def test_look_alike_and_invisible_names_take_no_second_daily_slot(
    games: SoloGames, second: str, error: type[Exception], message: str
) -> None:
    games.start("big", daily=True, player="Alice")
    with pytest.raises(error, match=message):
        games.start("big", daily=True, player=second)


def test_player_names_are_kept_in_their_normal_form(games: SoloGames) -> None:
    view = games.start("big", seed=1, player="  ａｎｎ   smith ")
    assert view.game.player == "ann smith"
    with pytest.raises(RoundInputError, match="invisible"):
        games.start("big", seed=1, player="bob\u202e")


def test_a_finished_game_is_scored_once_and_read_back(db_url: str, clock: FakeClock) -> None:
    """The end scores the game through the runner and stores the results; reading it after
    that scores nothing. A game that ended before results were kept is scored on first read."""
    from bigboggle.services.compute import run_here

    jobs: list[str] = []

    def counting(fn: Callable[..., T], /, *args: Any) -> T:
        jobs.append(fn.__name__)
        return run_here(fn, *args)

    games = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=counting)
    started = games.start("big", board=BOARD)
    for entry in ("lines", "arsenite", "zzzz"):
        games.submit(started.game.id, entry, started.key)
    assert jobs == ["board_points"]  # the start's; submits are judged one at a time
    jobs.clear()
    ended = games.finish(started.game.id, started.key).to_json()
    assert jobs == ["score_solo_game"] and ended["score"] == 13
    for _ in range(3):
        assert games.get(started.game.id).to_json() == ended
    assert jobs == ["score_solo_game"]
    with games.store.session() as session:  # as an older bigboggle left it
        session.execute(update(SoloGameRow).values(result=None))
    assert games.get(started.game.id).to_json()["phase"] == "scoring"  # a stranger: no work
    assert jobs == ["score_solo_game"]
    assert games.get(started.game.id, started.key).to_json() == ended  # its player's: scored
    assert games.get(started.game.id).to_json() == ended
    assert jobs == ["score_solo_game"] * 2


class Runner:
    """A real runner (the job runs here) that counts its jobs and can do something first."""

    def __init__(self, before: Callable[[], None] | None = None) -> None:
        self.jobs: list[str] = []
        self.before = before

    def __call__(self, fn: Callable[..., T], /, *args: Any) -> T:
        self.jobs.append(fn.__name__)
        if self.before is not None:
            before, self.before = self.before, None
            before()
        return run_here(fn, *args)


def test_a_start_solves_its_board_through_the_runner_and_caches_no_engine(
    db_url: str, clock: FakeClock
) -> None:
    """The board's points (the running game's max_score) are the runner's job (the web
    server's bounded worker pool), equal to the board's solution; a start takes no place in
    the engines' cache, so starts never push out the engines of games being played."""
    runner = Runner()
    games = EnginesCounted(Store(db_url), DictionaryShelf(), clock, runner=runner)
    started = games.start("big", board=BOARD)
    assert runner.jobs == ["board_points"] and games.restored == [] and not games._engines
    best = solve(BOARD, games.shelf.get("standard"), Rules.preset("big")).total_score
    assert started.to_json()["max_score"] == best == games.get(started.game.id).game.max_score
    family = games.start("big", board=BOARD, options={"family": True})
    assert family.game.max_score is not None and family.game.max_score <= best
    assert runner.jobs == ["board_points"] * 2 and not games._engines
    assert games.finish(family.game.id, family.key).to_json()["max_score"] == family.game.max_score
    runner.jobs.clear()  # a band's search of shakes is the runner's too
    rich = games.start("big", seed=0, band=Band(min_points=300))
    assert runner.jobs == ["seed_in_band", "board_points"]
    assert rich.game.max_score is not None and rich.game.max_score >= 300


def test_a_daily_start_is_refused_before_any_work_on_the_board(
    db_url: str, clock: FakeClock
) -> None:
    """A name that has played today's board is refused by a lookup of its slot, before the
    board is shaken or solved; two starts racing for one slot: the second's insert refuses."""
    runner = Runner()
    games = EnginesCounted(Store(db_url), DictionaryShelf(), clock, runner=runner)
    games.start("big", daily=True, player="ann")
    assert runner.jobs == ["board_points"]
    with pytest.raises(GameStateError, match="already played"):
        games.start("big", daily=True, player="Ann")
    assert runner.jobs == ["board_points"] and games.restored == [] and not games._engines
    # The race: another start for bob takes the slot while this one solves its board.
    other = SoloGames(Store(db_url), DictionaryShelf(), clock)
    runner.before = lambda: other.start("big", daily=True, player="bob")
    with pytest.raises(GameStateError, match=r"^'bob' \(or a name that looks the same\) has"):
        games.start("big", daily=True, player="bob")


def test_an_expired_game_is_scored_once_whoever_asks(db_url: str, clock: FakeClock) -> None:
    """Two servers on one database: while one scores the game, the other's request (even its
    player's) reads "scoring" and scores nothing."""
    seen: list[str] = []
    other_runner = Runner()
    other = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=other_runner)
    runner = Runner()
    games = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=runner)
    started = games.start("big", board=BOARD)
    games.submit(started.game.id, "lines", started.key)
    clock.advance(500)
    runner.before = lambda: seen.append(other.get(started.game.id, started.key).to_json()["phase"])
    ended = games.get(started.game.id, started.key).to_json()
    assert ended["phase"] == "ended" and ended["score"] == 2
    assert seen == ["scoring"] and other_runner.jobs == []
    assert runner.jobs == ["board_points", "score_solo_game"]  # the start's, then the end's
    assert other.get(started.game.id, started.key).to_json() == {**ended, "now": clock.now}
    assert other_runner.jobs == []


def test_a_failed_or_abandoned_scoring_is_tried_again(db_url: str, clock: FakeClock) -> None:
    from bigboggle.errors import BusyError
    from bigboggle.services.solo_games import SCORING_CLAIM_SECONDS
    from bigboggle.services.store import Setting

    def busy() -> None:
        raise BusyError("the worker pool is full")

    runner = Runner()
    games = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=runner)
    started = games.start("big", board=BOARD)
    clock.advance(500)
    runner.before = busy  # the scoring's job
    with pytest.raises(BusyError):
        games.get(started.game.id, started.key)
    assert games.get(started.game.id, started.key).over  # the claim was let go: scored now
    second = games.start("big", board=BOARD)
    games.finish(second.game.id, second.key)
    with games.store.session() as session:  # a process died while scoring it
        session.execute(
            update(SoloGameRow).where(SoloGameRow.id == second.game.id).values(result=None)
        )
        session.add(Setting(key=f"scoring/{second.game.id}", value=repr(clock.now)))
    assert games.get(second.game.id, second.key).to_json()["phase"] == "scoring"
    clock.advance(SCORING_CLAIM_SECONDS + 1)
    assert games.get(second.game.id, second.key).over


def test_a_stored_name_that_todays_checks_refuse_still_plays_and_scores(
    games: SoloGames, clock: FakeClock
) -> None:
    """An old daily game whose player's name has a zero-width character (accepted before
    names were checked) is judged and scored like any other, and the leaderboard stands."""
    date = utc_date(clock.now)
    old = games.start("big", daily=True, player="zed")
    other = games.start("big", daily=True, player="amy")
    with games.store.session() as session:
        session.execute(
            update(SoloGameRow).where(SoloGameRow.id == old.game.id).values(player="zed\u200b")
        )
    assert games.submit(old.game.id, "zzzz", old.key).result.verdict is Verdict.NOT_ON_BOARD
    clock.advance(500)
    assert games.leaderboard("big", date) == []  # nobody scored yet; nothing fails
    assert games.get(old.game.id, old.key).over
    games.settle(other.game.id)
    assert sorted(entry.player for entry in games.leaderboard("big", date)) == ["amy", "zed\u200b"]


def test_a_games_round_engine_is_made_once_and_the_cache_is_bounded(games: SoloGames) -> None:
    from bigboggle.limits import MAX_ENTRY_LENGTH, SOLO_ENGINE_CACHE
    from bigboggle.services.solo_games import MAX_ENTRY_LENGTH as OLD_NAME  # still importable

    assert OLD_NAME == MAX_ENTRY_LENGTH
    started = games.start("big", board=BOARD)
    games.submit(started.game.id, "lines", started.key)
    engine = games._engines[started.game.id]
    assert games.submit(started.game.id, "arsenite", started.key).result.score == 11
    assert games._engines[started.game.id] is engine  # not made again for the second word
    for seed in range(SOLO_ENGINE_CACHE + 2):
        view = games.start("big", seed=seed, options={"min_length": 4})
        games.submit(view.game.id, "lines", view.key)
    assert len(games._engines) == SOLO_ENGINE_CACHE
    assert started.game.id not in games._engines  # the least recently used went first
    assert games.submit(started.game.id, "lines", started.key).result.verdict is Verdict.REPEATED


def test_overdue_lists_every_ended_or_expired_game_without_results(
    db_url: str, clock: FakeClock
) -> None:
    """A game scored before results were kept (score set, result empty) and a game ended early
    whose scoring the pool refused are both overdue: a server's start-up scores them. Only
    games others read are timed or caught up: daily games and games with a word."""
    from bigboggle.errors import BusyError

    def busy() -> None:
        raise BusyError("the worker pool is full")

    runner = Runner()
    games = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=runner)
    old = games.start("big", board=BOARD)
    games.submit(old.game.id, "lines", old.key)
    games.finish(old.game.id, old.key)
    with games.store.session() as session:  # as migration 0005 left it: SQL NULL
        session.execute(
            update(SoloGameRow).where(SoloGameRow.id == old.game.id).values(result=null())
        )
    refused = games.start("big", board=BOARD)
    games.submit(refused.game.id, "lines", refused.key)
    runner.before = busy
    with pytest.raises(BusyError):
        games.finish(refused.game.id, refused.key)
    running = games.start("big", board=BOARD)
    games.submit(running.game.id, "lines", running.key)
    wordless = games.start("big", board=BOARD)
    daily = games.start("big", daily=True, player="ann")
    assert {game_id for game_id, _ in games.running()} == {running.game.id, daily.game.id}
    clock.advance(500)  # a wordless practice game is its player's to score, on their next read
    overdue = {game_id for game_id, _ in games.overdue()}
    assert overdue == {old.game.id, refused.game.id, running.game.id, daily.game.id}
    assert wordless.game.id not in overdue
    games.settle(running.game.id)
    games.settle(daily.game.id)
    games.settle(old.game.id)
    games.settle(refused.game.id)
    assert games.overdue() == []


def test_a_timer_retries_a_refused_scoring_and_says_once_when_it_gives_up(
    db_url: str, clock: FakeClock, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Over its budget is refused like busy: tried again with one warning a try; after the
    last try, one error line and the game is left to its player's next read."""
    import asyncio
    import logging

    from bigboggle.errors import BudgetExceededError
    from bigboggle.web import solo_timers
    from bigboggle.web.solo_timers import SoloTimers

    refusals = [0]  # the starts' jobs run

    def refusing(fn: Callable[..., T], /, *args: Any) -> T:
        if refusals[0] > 0:
            refusals[0] -= 1
            raise BudgetExceededError("the job ran over its budget")
        return run_here(fn, *args)

    monkeypatch.setattr(solo_timers, "FIRST_RETRY", 0.0)
    monkeypatch.setattr(solo_timers, "TRIES", 3)
    games = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=refusing)
    first = games.start("big", board=BOARD)
    games.submit(first.game.id, "lines", first.key)
    second = games.start("big", board=BOARD)
    games.submit(second.game.id, "lines", second.key)
    clock.advance(500)
    refusals[0] = 1  # the first scoring's job is refused
    timers = SoloTimers(lambda: games)
    caplog.set_level(logging.WARNING, logger=solo_timers.__name__)
    asyncio.run(timers._settle(first.game.id))
    assert games.get(first.game.id).over
    assert [record.levelname for record in caplog.records] == ["WARNING"]
    caplog.clear()
    refusals[0] = 10
    asyncio.run(timers._settle(second.game.id))
    assert [record.levelname for record in caplog.records] == ["WARNING", "WARNING", "ERROR"]
    assert all(record.exc_info is None for record in caplog.records)
    assert games.get(second.game.id).to_json()["phase"] == "scoring"


def test_timers_score_at_most_two_games_at_once(db_url: str, clock: FakeClock) -> None:
    """Four games due at once: two are scored while the other two wait their turn (in the
    timers' own threads, not the requests')."""
    import asyncio
    import threading

    from bigboggle.limits import SOLO_TIMERS_AT_ONCE
    from bigboggle.web.solo_timers import SoloTimers

    release = threading.Event()
    guard = threading.Lock()
    active = [0, 0]  # now, at most

    def holding(fn: Callable[..., T], /, *args: Any) -> T:
        with guard:
            active[0] += 1
            active[1] = max(active)
        release.wait(10)
        with guard:
            active[0] -= 1
        return run_here(fn, *args)

    games = SoloGames(Store(db_url), DictionaryShelf(), clock, runner=holding)
    starter = SoloGames(games.store, games.shelf, clock)  # the starts' jobs are not held
    started = [starter.start("big", board=BOARD) for _ in range(4)]
    for game in started:
        games.submit(game.game.id, "lines", game.key)
    clock.advance(500)
    timers = SoloTimers(lambda: games)

    async def burst() -> tuple[int, int]:
        work = [asyncio.ensure_future(timers._settle(game.game.id)) for game in started]
        for _ in range(1000):  # until two are scoring and two wait (not a timing assertion)
            await asyncio.sleep(0.005)
            stats = timers._limiter.statistics() if timers._limiter else None
            queued = stats.borrowed_tokens + stats.tasks_waiting if stats else 0
            if queued == 4 and active[0] == 2:
                break
        waiting = timers._limiter.statistics().tasks_waiting if timers._limiter else 0
        release.set()
        await asyncio.gather(*work)
        return active[1], waiting

    assert asyncio.run(burst()) == (SOLO_TIMERS_AT_ONCE, 4 - SOLO_TIMERS_AT_ONCE)
    assert all(games.get(game.game.id).over for game in started)

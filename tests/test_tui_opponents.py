"""Computer opponents in the terminal game: solo against them, and one at a real table.

Driven headless through Textual's pilot with a clock the test holds (as tests/test_tui.py does);
the opponents' lists are the core's (``Opponent.play``), their seeds derived from the round's,
and every round is checked against :func:`bigboggle.score_round` of the same lists: the
terminal decides no rule of its own.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from click.testing import CliRunner
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from bigboggle import Board, Dictionary, Rules, score_round, shake
from bigboggle.cli import cli
from bigboggle.limits import MAX_TERMINAL_OPPONENTS
from bigboggle.opponents import Opponent
from bigboggle.tui import BoggleApp, PlaySettings
from bigboggle.tui.opponents import opponent_seed
from bigboggle.tui.solo import PLAYER, PlayScreen, ResultsScreen
from bigboggle.tui.table import EntryScreen, TableResultsScreen, TrayScreen
from test_tui import FakeClock, until
from test_tui import run as run_app

# The solver and the opponents' model run the default core: their cores are compared elsewhere.
pytestmark = pytest.mark.once

BOARD = Board("LINES/TQARD/HEMOP/ABCKI/PSTEW")
BIG = Rules.preset("big")


def run(app: BoggleApp, script: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    """Run ``script`` against ``app`` as test_tui does, in a terminal wide enough for the seats."""
    run_app(app, script, size=(100, 30))


def text_of(app: BoggleApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def rows(app: BoggleApp, selector: str) -> list[list[str]]:
    table = app.screen.query_one(selector, DataTable)
    return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]


def expected(strength: str, seed: int, index: int, words: Dictionary, seconds: float = 180):
    """The list the ``index``-th opponent of a round of seed ``seed`` writes on BOARD."""
    return Opponent(strength, seed=opponent_seed(seed, index)).play(BOARD, words, BIG, seconds)


def test_solo_against_opponents_counts_on_the_clock_and_crosses_off(standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(BIG, standard, board=BOARD, seed=7, opponents=("club", "solver"))
    assert [seat.name for seat in settings.seats] == ["Club bot", "Solver bot"]
    app = BoggleApp(settings, clock=clock, key_guard=0)
    club, solver = expected("club", 7, 0, standard), expected("solver", 7, 1, standard)
    assert club and solver and club != solver

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, PlayScreen)
        assert text_of(app, "#rivals") == "Opponents: Club bot 0 words, Solver bot 0 words"
        await pilot.press(*"lines", "enter", *"xyzzy", "enter")
        await pilot.pause()
        assert text_of(app, "#verdict") == "XYZZY: not on the board"
        clock.now += 90
        by_then = (sum(t <= 90 for t, _ in club), sum(t <= 90 for t, _ in solver))
        line = f"Opponents: Club bot {by_then[0]} words, Solver bot {by_then[1]} words"
        await until(pilot, lambda: text_of(app, "#rivals") == line)
        assert text_of(app, "#rivals") == line  # counts, never words
        assert not any(word in text_of(app, "#rivals") for _, word in solver)
        # Your running score counts your words alone, not the opponents' written so far.
        other = next(w for _, w in solver if len(w) == 4 and w != "lines")
        await pilot.press(*other, "enter")
        await pilot.pause()
        assert text_of(app, "#score") == "Found: 2 words, 3 points"
        clock.now += 90
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        assert isinstance(app.screen, ResultsScreen)
        result = app.screen.result
        lists = {
            PLAYER: ["lines", "xyzzy", other],
            "Club bot": [word for _, word in club],
            "Solver bot": [word for _, word in solver],
        }
        assert result.to_json() == score_round(BOARD, lists, BIG, standard).to_json()
        # The solver finds every word: yours are crossed off, and nothing is left unfound.
        assert [w.verdict.value for w in result.players[PLAYER].words] == [
            "crossed_off",
            "not_on_board",
            "crossed_off",
        ]
        assert result.players[PLAYER].score == 0 and result.missed == ()
        summary = text_of(app, "#summary")
        assert "2 words of yours crossed off: an opponent wrote them too." in summary
        places = result.places
        ranking = ", ".join(f"{places[n]}. {n} {result.scores[n]}" for n in result.ranking)
        assert f"Ranking: {ranking}" in summary and ranking.startswith("1. Solver bot")
        shown = rows(app, "#words")
        assert shown[0] == ["lines", "", "yours: crossed off"]
        first_club = result.players["Club bot"].words[0]
        assert [
            first_club.word,
            str(first_club.score or ""),
            f"Club bot: {first_club.verdict.label}",
        ] in shown
        assert sum(row[2].startswith("Solver bot: ") for row in shown) == len(solver)
        assert app.screen.replay_command() == (
            f"bigboggle play --rules big --board {BOARD} --seed 7 --opponent club --opponent solver"
        )

    run(app, script)


def test_ending_early_ends_it_for_you_not_for_the_opponents(standard: Dictionary) -> None:
    settings = PlaySettings(BIG, standard, board=BOARD, seed=3, opponents=("expert",))
    app = BoggleApp(settings, clock=FakeClock(), key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        assert isinstance(app.screen, ResultsScreen)
        written = [w.entry for w in app.screen.result.players["Expert bot"].words]
        assert written == [word for _, word in expected("expert", 3, 0, standard)]

    run(app, script)


def test_a_seed_replays_the_board_and_the_opponents(standard: Dictionary) -> None:
    """Round n's opponents derive their seeds from its board's seed, so the replay command of
    any round (``--seed``) deals the same board and the same opponents' lists again."""
    lists: list[list[str]] = []
    commands: list[str] = []
    for seed in (40, 41, 41):
        settings = PlaySettings(BIG, standard, seed=seed, opponents=("casual",))
        app = BoggleApp(settings, clock=FakeClock(), key_guard=0)

        async def script(pilot: Pilot[None], app: BoggleApp = app, seed: int = seed) -> None:
            if seed == 40:  # play round 1, then round 2 (seed 41) in the same game
                await pilot.press("ctrl+e")
                await until(pilot, lambda: isinstance(app.screen, ResultsScreen))
                await pilot.press("n")
                await until(pilot, lambda: isinstance(app.screen, PlayScreen))
            await pilot.press("ctrl+e")
            await until(pilot, lambda: isinstance(app.screen, ResultsScreen))
            assert isinstance(app.screen, ResultsScreen)
            result = app.screen.result
            assert result.board == shake("big", 41).board
            lists.append([w.entry for w in result.players["Casual bot"].words])
            commands.append(app.screen.replay_command())

        run(app, script)
    board = shake("big", 41).board
    mine = Opponent("casual", seed=opponent_seed(41, 0)).play(board, standard, BIG, 180)
    assert lists[0] == lists[1] == lists[2] == [word for _, word in mine]
    assert commands[0] == "bigboggle play --rules big --seed 41 --opponent casual"


def test_practice_opponents_play_a_standard_round(standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(BIG, standard, board=BOARD, seed=9, practice=True, opponents=("club",))
    assert settings.opponent_seconds == BIG.timer
    app = BoggleApp(settings, clock=clock, key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        clock.now += 10
        await pilot.pause(0.3)
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ResultsScreen))
        assert isinstance(app.screen, ResultsScreen)
        written = [w.entry for w in app.screen.result.players["Club bot"].words]
        assert written == [word for _, word in expected("club", 9, 0, standard)]
        assert "--practice --opponent club" in app.screen.replay_command()

    run(app, script)


def test_an_opponent_at_the_table_writes_until_pens_down(standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(
        BIG, standard, board=BOARD, seed=5, players=("ann", "bob"), opponents=("solver",), rounds=2
    )
    app = BoggleApp(settings, clock=clock, key_guard=0)
    solver = expected("solver", 5, 0, standard)
    by_pens_down = [word for at, word in solver if at <= 60]
    assert 0 < len(by_pens_down) < len(solver)

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, TrayScreen)
        assert "Round 1: ann, bob and Solver bot." in text_of(app, "Plain")
        clock.now += 60
        line = f"Opponents: Solver bot {len(by_pens_down)} words"
        await until(pilot, lambda: text_of(app, "#rivals") == line)
        assert text_of(app, "#rivals") == line
        await pilot.press("ctrl+e")  # time's up now: pens down for everyone
        await until(pilot, lambda: isinstance(app.screen, EntryScreen))
        assert isinstance(app.screen, EntryScreen) and app.screen.player == "ann"
        await pilot.press(*"lines quilt", "ctrl+s")
        await until(pilot, lambda: getattr(app.screen, "player", None) == "bob")
        await pilot.press(*"dream", "ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, TableResultsScreen))
        assert isinstance(app.screen, TableResultsScreen)
        result = app.screen.result
        lists = {"ann": ["lines", "quilt"], "bob": ["dream"], "Solver bot": by_pens_down}
        assert result.to_json() == score_round(BOARD, lists, BIG, standard).to_json()
        shown = rows(app, "#verdicts")
        assert sum(row[0] == "Solver bot" for row in shown) == len(by_pens_down)
        assert "Solver bot" in text_of(app, "#summary")
        assert app.tournament is not None and "Solver bot" in app.tournament.totals

    run(app, script)


def test_opponents_on_the_command_line_are_checked() -> None:
    runner = CliRunner()
    answer = runner.invoke(cli, ["play", "--opponent", "wizard"])
    assert answer.exit_code == 2
    assert (
        "--opponent" in answer.output and "beginner, casual, club, expert, solver" in answer.output
    )
    assert "Traceback" not in answer.output
    many = ["--opponent", "club"] * (MAX_TERMINAL_OPPONENTS + 1)
    answer = runner.invoke(cli, ["play", *many])
    assert answer.exit_code == 2
    assert f"the limit is {MAX_TERMINAL_OPPONENTS}" in answer.output
    words = Dictionary.from_words(["lines"])
    most = PlaySettings(BIG, words, seed=1, opponents=("club",) * MAX_TERMINAL_OPPONENTS)
    assert len({seat.name for seat in most.seats}) == MAX_TERMINAL_OPPONENTS
    with pytest.raises(ValueError, match="at most"):
        PlaySettings(BIG, words, seed=1, opponents=("club",) * (MAX_TERMINAL_OPPONENTS + 1))
    with pytest.raises(ValueError, match="opponents play for themselves"):
        PlaySettings(
            BIG, words, players=("ann", "bob"), teams={"a": ["ann", "bob"]}, opponents=("club",)
        )
    # An opponent's seat is named apart from the people at the table.
    table = PlaySettings(BIG, words, players=("Club bot", "ann"), opponents=("club",))
    assert [seat.name for seat in table.seats] == ["Club bot 2"]

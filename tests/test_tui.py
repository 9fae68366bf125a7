"""The terminal game, driven headless through Textual's pilot with a clock the test holds."""

from __future__ import annotations

import ast
import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from bigboggle import Board, Dictionary, Rules, shake, solve, tui
from bigboggle.tui import BoggleApp, PlaySettings
from bigboggle.tui.board_view import BoardView
from bigboggle.tui.help import HelpScreen, rules_text
from bigboggle.tui.host import GameHost
from bigboggle.tui.solo import PlayScreen, ResultsScreen
from bigboggle.tui.table import EntryScreen, TableResultsScreen, TrayScreen

BOARD = Board("LINES/TQARD/HEMOP/ABCKI/PSTEW")

#: The terminal game's modules that may import the app: the app itself and the package.
LEAF_EXEMPT = {"app.py", "__init__.py"}


class FakeClock:
    """A clock that moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def run(
    app: BoggleApp,
    script: Callable[[Pilot[None]], Awaitable[None]],
    size: tuple[int, int] = (80, 24),
) -> None:
    """Run ``script`` against ``app`` in a terminal of ``size`` (columns, rows)."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await script(pilot)

    asyncio.run(main())


async def until(pilot: Pilot[None], condition: Callable[[], bool], seconds: float = 10) -> None:
    """Let the app run until ``condition()`` holds (the clock's tick fires on its own timer, which
    a loaded machine may delay), or ``seconds`` pass; the caller then asserts it."""
    deadline = asyncio.get_running_loop().time() + seconds
    await pilot.pause()
    while not condition() and asyncio.get_running_loop().time() < deadline:
        await pilot.pause(0.05)
    await pilot.pause()  # a screen just pushed still composes its widgets


def on_screen(pilot: Pilot[None], screen: type, selector: str) -> Callable[[], bool]:
    """Whether ``screen`` is on top and has composed ``selector``."""
    return lambda: isinstance(pilot.app.screen, screen) and bool(pilot.app.screen.query(selector))


def text_of(app: BoggleApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def solo_app(standard: Dictionary, clock: FakeClock, **options: Any) -> BoggleApp:
    settings = PlaySettings(Rules.preset("big"), standard, board=BOARD, **options)
    return BoggleApp(settings, clock=clock, key_guard=0)


def test_solo_round_verdicts_end_and_missed_words(standard: Dictionary) -> None:
    clock = FakeClock()
    app = solo_app(standard, clock)
    best = solve(BOARD, standard, Rules.preset("big"))

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, PlayScreen)
        assert "3:00" in text_of(app, "#countdown")
        await pilot.press(*"lines", "enter")
        await pilot.pause()
        assert text_of(app, "#verdict") == "LINES: 2 points"
        assert app.screen.query_one("#board", BoardView)._path == best.get("lines").path  # type: ignore[union-attr]
        for word, verdict in [
            ("xyzzy", "not on the board"),
            ("lines", "repeated"),  # the label every front end uses (Verdict.label)
            ("lin", "too short"),
            ("dockets", "DOCKETS: 5 points"),
        ]:
            await pilot.press(*word, "enter")
            await pilot.pause()
            assert verdict in text_of(app, "#verdict")
        assert "2 words, 7 points" in text_of(app, "#score")
        clock.now += 120
        await until(pilot, lambda: "1:00" in text_of(app, "#countdown"))
        assert "1:00" in text_of(app, "#countdown")
        clock.now += 60
        await until(pilot, on_screen(pilot, ResultsScreen, "#summary"))
        assert isinstance(app.screen, ResultsScreen)
        summary = text_of(app, "#summary")
        assert "You scored 7 points with 2 words" in summary
        assert f"worth {best.total_score} points" in summary
        table = app.screen.query_one("#words", DataTable)
        shown = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert shown[:4] == ["lines", "xyzzy", "lin", "dockets"]  # yours, as typed (no repeats)
        missed = [found.word for found in best.words if found.word not in ("lines", "dockets")]
        common = [word for word in missed if (standard.level(word) or 99) <= 50]
        rare = [word for word in missed if (standard.level(word) or 99) > 50]
        assert common[0] in shown and rare[0] not in shown  # rarer words wait behind a key
        # Selecting a missed word lights up its path on the board.
        table.move_cursor(row=shown.index(common[0]))
        await pilot.pause()
        assert app.screen.query_one("#board", BoardView)._path == best.get(common[0]).path  # type: ignore[union-attr]
        await pilot.press("r")
        await pilot.pause()
        shown = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        assert rare[0] in shown
        assert len(shown) == 4 + len(missed)
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)

    run(app, script)


def test_practice_mode_has_no_timer(standard: Dictionary) -> None:
    clock = FakeClock()
    app = solo_app(standard, clock, practice=True)

    async def script(pilot: Pilot[None]) -> None:
        assert "no timer" in text_of(app, "#countdown")
        clock.now += 10_000
        await pilot.pause(0.3)
        assert isinstance(app.screen, PlayScreen)
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)

    run(app, script)


def test_help_opens_with_a_question_mark_even_while_typing(standard: Dictionary) -> None:
    app = solo_app(standard, FakeClock())

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("l", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen)
        assert app.screen.query_one("#word").value == "l"  # type: ignore[attr-defined]

    run(app, script)


def test_table_mode_round_with_a_crossed_off_word(standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(
        Rules.preset("big"), standard, board=BOARD, players=("ann", "bob"), target=50
    )
    app = BoggleApp(settings, clock=clock, key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, TrayScreen)
        clock.now += 181
        await until(pilot, on_screen(pilot, EntryScreen, "#list"))
        assert isinstance(app.screen, EntryScreen) and app.screen.player == "ann"
        await pilot.press(*"lines", "enter", *"quilt", "enter", *"zzzz", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, EntryScreen) and app.screen.player == "bob"
        await pilot.press(*"lines dream", "ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableResultsScreen)
        players = app.screen.result.players
        assert [w.verdict.value for w in players["ann"].words] == [
            "crossed_off",
            "scored",
            "not_on_board",
        ]
        assert [w.verdict.value for w in players["bob"].words] == ["crossed_off", "scored"]
        assert "This round: ann 2, bob 2" in text_of(app, "#summary")
        assert app.tournament is not None and app.tournament.totals == {"ann": 2, "bob": 2}
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, TrayScreen)
        assert app.round_number == 2

    run(app, script)


def test_settings_are_checked_before_the_game() -> None:
    words = Dictionary.from_words(["lines"])
    big = Rules.preset("big")
    with pytest.raises(ValueError, match="teams"):
        PlaySettings(big, words, teams={"red": ["ann"]})
    with pytest.raises(ValueError, match="not one of the players"):
        PlaySettings(big, words, players=("ann",), min_length={"zed": 3})
    with pytest.raises(ValueError, match="'ann' and 'ann' are the same name"):
        PlaySettings(big, words, players=("ann", "ann"))
    with pytest.raises(ValueError, match="--min-length"):
        PlaySettings(big, words, min_length={"ann": 3})
    with pytest.raises(ValueError, match=r"teams\.red\[1\]: 'zed' is not one of the players"):
        PlaySettings(big, words, players=("ann", "bob"), teams={"red": ["ann", "zed"]})
    with pytest.raises(ValueError, match="no timer"):
        PlaySettings(big, words, practice=True, timer=5)


def test_teams_and_handicaps_are_the_round_engines_setup() -> None:
    """The terminal game checks a table's setup with round_setup, as rooms and the score JSON
    do: one team is a valid setup, and names are seated as the players spell them."""
    words = Dictionary.from_words(["lines"])
    big = Rules.preset("big")
    alone = PlaySettings(big, words, players=("ann", "bob"), teams={"us": ["ann", "bob"]})
    assert alone.teams == {"us": ["ann", "bob"]}
    seated = PlaySettings(
        big,
        words,
        players=("Ann", "bob"),
        teams={"red": ["ANN"], "blue": ["Bob"]},
        min_length={"BOB": 3},
    )
    assert seated.teams == {"red": ["Ann"], "blue": ["bob"]}
    assert seated.min_length == {"bob": 3}
    with pytest.raises(ValueError, match=r"players\.bob: 'bob' is on no team"):
        PlaySettings(big, words, players=("ann", "bob"), teams={"red": ["ann"]})


def test_typed_brackets_are_words_not_markup(standard: Dictionary) -> None:
    app = solo_app(standard, FakeClock())

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press(*"[/x]", "enter")
        await pilot.pause()
        assert text_of(app, "#verdict") == "[/X]: not a word"
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)

    run(app, script)


def test_replay_command_names_rules_board_and_challenge(standard: Dictionary) -> None:
    clock = FakeClock()
    given = PlaySettings(Rules.preset("classic"), standard, board=Board("AB[He]D/EFGH/IJ.L/MN*OP"))
    seeded = PlaySettings(Rules.preset("superbig", challenge=True), standard, seed=5)
    commands = []
    for settings in (given, seeded):
        app = BoggleApp(settings, clock=clock, key_guard=0)

        async def script(pilot: Pilot[None], app: BoggleApp = app) -> None:
            await pilot.press("ctrl+e")
            await pilot.pause()
            assert isinstance(app.screen, ResultsScreen)
            commands.append(app.screen.replay_command())

        run(app, script)
    assert commands == [
        "bigboggle play --rules classic --board 'AB[He]D/EFGH/IJ.L/MN*OP'",
        "bigboggle play --rules superbig --seed 5 --challenge",
    ]


def test_results_ignore_letters_typed_as_time_runs_out(standard: Dictionary) -> None:
    clock = FakeClock()
    app = BoggleApp(
        PlaySettings(Rules.preset("big"), standard, board=BOARD), clock=clock, key_guard=60
    )

    async def script(pilot: Pilot[None]) -> None:
        clock.now += 200
        await until(pilot, on_screen(pilot, ResultsScreen, "#board"))
        assert isinstance(app.screen, ResultsScreen)
        await pilot.press("q", "n")  # still typing "sequin..." when the time ran out
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen) and app.is_running

    run(app, script)


def test_time_running_out_closes_the_help(standard: Dictionary) -> None:
    clock = FakeClock()
    app = solo_app(standard, clock)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        clock.now += 200
        await until(pilot, on_screen(pilot, ResultsScreen, "#board"))
        assert isinstance(app.screen, ResultsScreen)
        assert not any(isinstance(screen, PlayScreen) for screen in app.screen_stack)

    run(app, script)


def test_a_tournament_tied_exactly_has_no_winner(standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(
        Rules.preset("big"), standard, board=BOARD, players=("bob", "ann"), rounds=1
    )
    app = BoggleApp(settings, clock=clock, key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+e")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, TableResultsScreen)
        assert "a tie between ann and bob" in text_of(app, "#summary")

    run(app, script)


# -- snapshots of the main screens (tests/__snapshots__; update with --snapshot-update) ---------
# Taken once, on the default core: a screen shows what the round engine returns, and the cores
# are compared with each other by tests/test_cores.py.


@pytest.mark.once
def test_snapshot_solo_play(snap_compare: Any, standard: Dictionary) -> None:
    async def type_words(pilot: Pilot[None]) -> None:
        await pilot.press(*"lines", "enter", *"quilt", "enter", *"xyzzy", "enter")
        await pilot.pause()

    assert snap_compare(solo_app(standard, FakeClock()), run_before=type_words)


@pytest.mark.once
def test_snapshot_solo_results(snap_compare: Any, standard: Dictionary) -> None:
    clock = FakeClock()

    async def play_and_end(pilot: Pilot[None]) -> None:
        await pilot.press(*"lines", "enter", *"dockets", "enter")
        clock.now += 200
        await until(pilot, on_screen(pilot, ResultsScreen, "#board"))

    assert snap_compare(solo_app(standard, clock), run_before=play_and_end)


@pytest.mark.once
def test_snapshot_help(snap_compare: Any, standard: Dictionary) -> None:
    assert snap_compare(solo_app(standard, FakeClock()), press=["f1"])


@pytest.mark.once
def test_snapshot_table_tray(snap_compare: Any, standard: Dictionary) -> None:
    settings = PlaySettings(
        Rules.preset("big", challenge=True),
        standard,
        board=Board("LINES/TQARD/HEMOP/ABCKI*/PSTEW"),
        players=("ann", "bob", "kid"),
        min_length={"kid": 3},
    )
    assert snap_compare(BoggleApp(settings, clock=FakeClock(), key_guard=0))


@pytest.mark.once
def test_snapshot_table_results(snap_compare: Any, standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(Rules.preset("big"), standard, board=BOARD, players=("ann", "bob"))

    async def play_round(pilot: Pilot[None]) -> None:
        clock.now += 200
        await until(pilot, on_screen(pilot, EntryScreen, "#list"))
        await pilot.press(*"lines quilt", "ctrl+s")
        await pilot.press(*"lines dream", "ctrl+s")
        await pilot.pause()

    assert snap_compare(BoggleApp(settings, clock=clock, key_guard=0), run_before=play_round)


@pytest.mark.once  # the band search's cores are cross-checked elsewhere; the reference took 32 s
def test_boards_to_order_in_the_terminal_game(standard: Dictionary) -> None:
    from bigboggle.analysis import Band

    rules = Rules.preset("big")
    settings = PlaySettings(rules, standard, seed=11, band=Band(min_points=500, max_points=700))
    app = BoggleApp(settings, clock=FakeClock(), key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, PlayScreen)
        assert 500 <= solve(app.screen.board, standard, rules).total_score <= 700
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert isinstance(app.screen, ResultsScreen)
        command = app.screen.replay_command()
        seed = int(command.split("--seed ")[1].split()[0])
        assert shake("big", seed).board == app.screen.result.board
        first = app.screen.result.board
        await pilot.press("n")
        await pilot.pause()
        assert isinstance(app.screen, PlayScreen) and app.screen.board != first
        assert app.round_seeds[1] > app.round_seeds[0]

    run(app, script)
    # A band no board meets is refused before any screen opens, after every try (10,000
    # shakes): with a one-word list, each shake is solved in no time.
    with pytest.raises(ValueError, match="widen"):
        PlaySettings(rules, Dictionary.from_words(["lines"]), seed=1, band=Band(min_points=10**6))


def test_a_repeat_says_what_the_word_was(standard: Dictionary) -> None:
    """A word typed again is told its own verdict; only a good word reads "already found"."""
    app = solo_app(standard, FakeClock())

    async def script(pilot: Pilot[None]) -> None:
        for word, line in [
            ("xyzzy", "XYZZY: not on the board"),
            ("xyzzy", "XYZZY: not on the board (again)"),
            ("lines", "LINES: 2 points"),
            ("lines", "LINES: repeated (already found)"),
            ("lin", "LIN: too short"),
            ("lin", "LIN: too short (again)"),
        ]:
            await pilot.press(*word, "enter")
            await pilot.pause()
            assert text_of(app, "#verdict") == line

    run(app, script)


def test_after_the_game_is_over_n_starts_a_new_game(standard: Dictionary) -> None:
    """ "The game is over: ann wins!" offers what works: n starts a new game, from round 1."""
    clock = FakeClock()
    settings = PlaySettings(
        Rules.preset("big"), standard, board=BOARD, players=("ann", "bob"), rounds=1
    )
    app = BoggleApp(settings, clock=clock, key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+e")
        await until(pilot, on_screen(pilot, EntryScreen, "#list"))
        await pilot.press(*"lines", "ctrl+s")
        await pilot.pause()
        await pilot.press("ctrl+s")
        await until(pilot, on_screen(pilot, TableResultsScreen, "#summary"))
        summary = text_of(app, "#summary")
        assert "The game is over: ann wins!" in summary
        assert "n: new game," in summary and "next round" not in summary
        offered = app.screen.active_bindings
        assert offered["n"].binding.action == "new_game"
        assert offered["n"].binding.description == "New game"
        first_board = app.screen.result.board  # type: ignore[attr-defined]
        await pilot.press("n")
        await until(pilot, on_screen(pilot, TrayScreen, "#clock"))
        assert isinstance(app.screen, TrayScreen)
        assert app.round_number == 1 and app.screen.board != first_board
        assert app.tournament is not None and app.tournament.results == []
        assert "Round 1:" in str(app.screen.query(Static).first().render())

    run(app, script)


def test_team_totals_and_repeats_are_explained_at_the_table(standard: Dictionary) -> None:
    clock = FakeClock()
    settings = PlaySettings(
        Rules.preset("big"),
        standard,
        board=BOARD,
        players=("ann", "amy", "bob"),
        teams={"red": ["ann", "amy"], "blue": ["bob"]},
    )
    app = BoggleApp(settings, clock=clock, key_guard=0)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+e")
        await until(pilot, on_screen(pilot, EntryScreen, "#list"))
        await pilot.press(*"lines quilt", "ctrl+s")
        await pilot.pause()
        await pilot.press(*"lines dream", "ctrl+s")
        await pilot.pause()
        await pilot.press(*"zzzz zzzz", "ctrl+s")
        await until(pilot, on_screen(pilot, TableResultsScreen, "#summary"))
        summary = text_of(app, "#summary")
        result = app.screen.result  # type: ignore[attr-defined]
        ann, amy = result.players["ann"].score, result.players["amy"].score
        red = result.teams["red"].score
        assert red == ann + amy - 2
        assert f"red {red} = ann {ann} + amy {amy} - 2 shared (lines: once for the team)" in (
            summary
        )
        table = app.screen.query_one("#verdicts", DataTable)
        rows = [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]
        assert ["ann", "lines", "scored (shared: once for red)", "2"] in rows
        assert ["amy", "dream", "scored", "2"] in rows
        assert ["bob", "zzzz", "not on the board", ""] in rows
        assert ["bob", "zzzz", "not on the board (again)", ""] in rows

    run(app, script)


def test_offensive_missed_words_wait_behind_a_key() -> None:
    words = Dictionary.from_words(["shit", "this"])  # S H / I T holds both; "shit" is offensive
    settings = PlaySettings(Rules.preset("classic"), words, board=Board("SH/IT"))
    app = BoggleApp(settings, clock=FakeClock(), key_guard=0)

    def shown() -> list[list[str]]:
        table = app.screen.query_one("#words", DataTable)
        return [[str(cell) for cell in table.get_row_at(i)] for i in range(table.row_count)]

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+e")
        await until(pilot, on_screen(pilot, ResultsScreen, "#words"))
        assert shown() == [
            ["this", "1", "missed"],
            ["…", "", "1 offensive word hidden: press o to show"],
        ]
        assert app.screen.active_bindings["o"].binding.action == "toggle_offensive"
        await pilot.press("o")
        await pilot.pause()
        assert shown() == [["shit", "1", "missed"], ["this", "1", "missed"]]

    run(app, script)
    family = PlaySettings(Rules.preset("classic", family=True), words, board=Board("SH/IT"))
    assert "Family filter: offensive words are refused" in rules_text(family)
    app = BoggleApp(family, clock=FakeClock(), key_guard=0)

    async def refused(pilot: Pilot[None]) -> None:
        await pilot.press(*"shit", "enter")
        await pilot.pause()
        assert text_of(app, "#verdict") == "SHIT: not allowed here (family filter)"

    run(app, refused)


@pytest.mark.once
def test_the_screens_are_leaves_that_reach_the_app_as_a_host() -> None:
    """Only the app imports the screens; a screen never imports the app (not even for its type)
    but reaches it as the GameHost protocol, which the app implements."""
    package = Path(tui.__file__).parent
    screens = sorted(path for path in package.glob("*.py") if path.name not in LEAF_EXEMPT)
    assert {"solo.py", "table.py", "help.py", "host.py"} <= {path.name for path in screens}
    for path in screens:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                names = {node.module or ""} | {
                    f"{node.module or ''}.{alias.name}".lstrip(".") for alias in node.names
                }
                assert not names & {"app", "bigboggle.tui.app"}, f"{path.name} imports the app"
    app = BoggleApp(PlaySettings(Rules.preset("big"), Dictionary.from_words(["lines"])))
    assert isinstance(app, GameHost)


@pytest.mark.once  # input handling above the solver: one core is enough
def test_a_list_typed_in_one_burst_then_ctrl_s_is_all_kept(standard: Dictionary) -> None:
    """Keys that arrive together (a fast typist, or a paste without bracketed paste) reach the
    list before ctrl+s hands the keyboard on: the list is read after the keys typed before it."""
    from textual import events

    clock = FakeClock()
    settings = PlaySettings(Rules.preset("big"), standard, board=BOARD, players=("ann", "bob"))
    app = BoggleApp(settings, clock=clock, key_guard=0)

    async def burst(keys: list[tuple[str, str | None]]) -> None:
        driver = app._driver
        assert driver is not None
        for key, char in keys:
            event = events.Key(key, char)
            event.set_sender(app)
            driver.send_message(event)  # all at once: no waiting between keys

    def typed(text: str) -> list[tuple[str, str | None]]:
        return [("enter", "\r") if c == "\n" else (c, c) for c in text]

    async def script(pilot: Pilot[None]) -> None:
        clock.now += 181
        await until(pilot, on_screen(pilot, EntryScreen, "#list"))
        await burst([*typed("lines\nquilt"), ("ctrl+s", None)])
        await until(pilot, lambda: getattr(app.screen, "player", None) == "bob")
        await pilot.press(*"lines", "ctrl+s")
        await until(pilot, on_screen(pilot, TableResultsScreen, "#words"))
        assert isinstance(app.screen, TableResultsScreen)
        ann = app.screen.result.players["ann"]
        assert [(w.word, w.verdict.value) for w in ann.words] == [
            ("lines", "crossed_off"),
            ("quilt", "scored"),
        ]

    run(app, script)


@pytest.mark.once  # input handling above the solver: one core is enough
def test_a_solo_word_is_cleaned_and_bounded_as_on_the_web(standard: Dictionary) -> None:
    """A pasted word with a zero-width space is judged as the word it shows; one with a control
    character is refused with the reason, as the web and the CLI refuse it."""
    clock = FakeClock()
    app = solo_app(standard, clock)

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, PlayScreen)
        field = app.screen.query_one("#word")
        field.value = "lines\u200b"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert text_of(app, "#verdict") == "LINES: 2 points"
        field.value = "qui\x07lt"  # type: ignore[attr-defined]
        await pilot.press("enter")
        await pilot.pause()
        assert "control character" in text_of(app, "#verdict")

    run(app, script)


@pytest.mark.once  # hints come from the core's hints module, tested there on both cores
def test_practice_rounds_give_free_hints_listed_at_the_end(standard: Dictionary) -> None:
    from bigboggle.hints import hinted_word

    rules = Rules.preset("big")
    solution = solve(BOARD, standard, rules)
    first = hinted_word(solution, set(), standard.level)
    assert first is not None
    app = solo_app(standard, FakeClock(), practice=True)

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, PlayScreen)
        assert app.screen.active_bindings["f2"].binding.action == "hint('words_left')"
        await pilot.press("f3")
        await pilot.pause()
        letters = f"a word of {len(first.word)} letters starting with {first.word[:2].upper()}"
        assert text_of(app, "#verdict") == f"Hint: {letters}"
        await pilot.press("f5")
        await pilot.pause()
        assert app.screen.query_one("#board", BoardView)._path == first.path
        await pilot.press(*first.word, "enter")
        await pilot.pause()
        second = hinted_word(solution, {first.word}, standard.level)
        assert second is not None
        await pilot.press("f4")
        await pilot.pause()
        assert app.screen.query_one("#board", BoardView)._path == second.path[:1]
        await pilot.press("f2")
        await pilot.pause()
        assert f"{solution.count - 1} words left" in text_of(app, "#verdict")
        await pilot.press("ctrl+e")
        await until(pilot, on_screen(pilot, ResultsScreen, "#summary"))
        summary = text_of(app, "#summary")
        assert (
            "Hints used (free in practice): a word's length and first letters "
            f"({first.word}); a word's whole path ({first.word}); a word's starting cube "
            f"({second.word}); how many words are left, by length." in summary
        )
        assert f"You scored {first.score} point" in summary  # free: nothing taken off

    run(app, script)
    timed = solo_app(standard, FakeClock())

    async def no_hints(pilot: Pilot[None]) -> None:
        assert "f2" not in timed.screen.active_bindings
        await pilot.press("f3")
        await pilot.pause()
        assert text_of(timed, "#verdict") == ""

    run(timed, no_hints)


@pytest.mark.once  # the deck is the trainer's, tested in tests/test_trainer.py
def test_a_solo_rounds_missed_words_join_the_trainers_deck(
    standard: Dictionary, tmp_path: Path
) -> None:
    from bigboggle.trainer import DeckFile

    deck = tmp_path / "deck.json"
    app = solo_app(standard, FakeClock(), deck=deck)

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press(*"lines", "enter", "ctrl+e")
        await until(pilot, on_screen(pilot, ResultsScreen, "#summary"))
        cards = DeckFile(deck).load().cards
        assert cards and "lines" not in cards  # found, so not a card
        assert f"Trainer: {len(cards)} new cards from the words you missed" in text_of(
            app, "#summary"
        )

    run(app, script)
    deck.write_text("not a deck")
    broken = solo_app(standard, FakeClock(), deck=deck)

    async def left_alone(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+e")
        await until(pilot, on_screen(pilot, ResultsScreen, "#summary"))
        assert "Your trainer deck was left as it was:" in text_of(broken, "#summary")

    run(broken, left_alone)
    assert deck.read_text() == "not a deck"

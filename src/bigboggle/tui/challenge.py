"""A challenge played in the terminal: its next round on a bigboggle server, then the standings.

``bigboggle play --challenge CODE`` plays over the server's JSON API (:mod:`.remote`): the
challenge's page in words (its rules, who has played so far, your next round), your name (and
in a team challenge your team: ``--team``, your seat's, or typed at the first round), then the
round on the server's clock - every word judged by the server as on the web, the verdict at
once - and, once you finish (or time is up), the round's results with crossing off among all
who have played it, the teams' standings in a team challenge, the overall standings and what
nobody found. The server decides every rule;
these screens only draw its answers. Calls run in a thread (never on the event loop) and a
failed one is shown with what went wrong, never a traceback.

Like the other screens, these never import the app: they reach it as a :class:`ChallengeHost`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol, runtime_checkable

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from ..board import Board, Path
from ..errors import BoggleError
from ..family import is_offensive
from ..round import check_entry
from ..verdicts import Verdict, WordResult
from .board_view import BoardView, Plain, cells
from .clock import Clock, clock_text
from .remote import ChallengeClient, KeyFile, RemoteError, RemoteRound
from .solo import first_entries, offensive_note, plural, verdict_line

#: Most words nobody found that the results list (the best first).
MISSED_SHOWN = 50


@runtime_checkable
class ChallengeHost(Protocol):
    """The challenge's app as its screens see it."""

    client: ChallengeClient
    #: The challenge's code as typed.
    code: str
    #: The challenge as the server last described it (``GET /api/challenges/CODE``).
    info: dict[str, Any]
    #: "Now" in seconds: the countdown's clock (the server's clock decides; it is resynced).
    clock: Clock
    #: Seconds during which a results screen ignores its letter keys.
    key_guard: float
    #: Your name in the challenge, once known (``--name``, a kept seat, or typed).
    player: str | None
    #: Your team in a team challenge, once known (``--team``, your seat's, or typed).
    team: str | None
    #: The key of one of your games in this challenge: the proof of your seat.
    key: str | None
    #: Where seats are kept between sessions (None: nowhere).
    keys: KeyFile | None

    def switch_or_push(self, screen: Screen[None]) -> None:
        """Show ``screen`` in place of the current one."""


class ChallengeScreen(Screen[None]):
    """A screen of a challenge: :attr:`host` is the app that shows it."""

    @property
    def host(self) -> ChallengeHost:
        app = self.app
        assert isinstance(app, ChallengeHost), "a challenge screen runs in the challenge's app"
        return app


def shown_code(host: ChallengeHost) -> str:
    """The challenge's code as people read it (``BCDF-2345``)."""
    return str(host.info.get("shown_code") or host.code)


def closes_text(info: Mapping[str, Any]) -> str:
    """When the challenge closes (or that it has), in UTC."""
    closes = info.get("closes")
    if not isinstance(closes, int | float) or isinstance(closes, bool):
        return ""
    when = datetime.fromtimestamp(closes, UTC).strftime("%Y-%m-%d %H:%M UTC")
    return f"closed {when}" if info.get("closed") else f"open until {when}"


def team_names(info: Mapping[str, Any]) -> list[str]:
    """A team challenge's team names (none without teams)."""
    teams = info.get("teams")
    if not isinstance(teams, Sequence) or isinstance(teams, str):
        return []
    return [str(team["name"]) for team in teams if isinstance(team, Mapping) and "name" in team]


def seat_team(info: Mapping[str, Any]) -> str | None:
    """The team your seat plays for, as the server says (``you.team``), if any."""
    you = info.get("you")
    team = you.get("team") if isinstance(you, Mapping) else None
    return team if isinstance(team, str) else None


def teams_line(info: Mapping[str, Any]) -> str | None:
    """Each team and who plays for it, in a line (None without teams)."""
    teams = [team for team in info.get("teams") or [] if isinstance(team, Mapping)]
    if not teams:
        return None
    return "Teams: " + "; ".join(
        f"{team.get('name')} ({', '.join(map(str, team.get('players') or [])) or 'nobody yet'})"
        for team in teams
    )


def team_standings_line(label: str, rows: object, key: str) -> str | None:
    """Teams in their places (``key``: each row's points) in a line, or None for no rows."""
    teams = [row for row in rows if isinstance(row, Mapping)] if isinstance(rows, list) else []
    if not teams:
        return None
    return f"{label}: " + ", ".join(
        f"{row.get('place')}. {row.get('team')} {row.get(key)}" for row in teams
    )


def intro_text(info: Mapping[str, Any]) -> str:
    """The challenge in words: its rules and rounds, who has played, what you may do now."""
    code = info.get("shown_code") or info.get("code") or "?"
    rounds = info.get("rounds", 1)
    timer = info.get("timer")
    clock = f" of {clock_text(float(timer))}" if isinstance(timer, int | float) else ""
    lines = [
        f"Challenge {code}: {info.get('title') or info.get('rules', '')}, "
        f"{plural(rounds if isinstance(rounds, int) else 1, 'round')}{clock}, "
        f"{closes_text(info)}.",
    ]
    if info.get("maker"):
        lines.append(f"Made by {info['maker']}.")
    teams = teams_line(info)
    if teams is not None:
        lines.append(f"{teams}. Team-mates' common words are not crossed off.")
        overall = team_standings_line("Team standings", info.get("team_standings"), "total")
        if overall is not None:
            lines.append(overall)
    standings = [row for row in info.get("standings", []) if isinstance(row, Mapping)]
    if standings:
        lines.append(
            "Standings: "
            + ", ".join(
                f"{row.get('place')}. {row.get('name')} {row.get('total')}"
                + (f" ({plural(row['rounds_played'], 'round')})" if rounds != 1 else "")
                for row in standings
                if "rounds_played" in row or rounds == 1
            )
        )
    else:
        lines.append("Nobody has finished a round yet.")
    you = info.get("you")
    if isinstance(you, Mapping) and you.get("name"):
        step = you.get("next_round")
        team = f" for {you['team']}" if you.get("team") else ""
        lines.append(
            f"You play as {you['name']}{team}: "
            + (f"round {step} is next." if step else "you have played every round.")
        )
    if not info.get("can_play", True) and info.get("why_not"):
        lines.append(f"You cannot play now: {info['why_not']}.")
    return "\n".join(lines)


class ChallengeIntroScreen(ChallengeScreen):
    """The challenge in words, and your name: Enter starts your next round on the server."""

    BINDINGS = [Binding("ctrl+r", "results", "Results")]

    def __init__(self) -> None:
        super().__init__()
        #: Whether a round is being started (a second Enter meanwhile starts nothing).
        self.starting = False

    def compose(self) -> ComposeResult:
        info = self.host.info
        yield Plain(intro_text(info), id="summary")
        yield Plain("\nYour name in the challenge (Enter plays your next round):")
        yield Input(
            value=self.host.player or "",
            placeholder="Your name, then Enter to play your next round",
            id="name",
            max_length=40,
        )
        teams = team_names(info)
        if teams and seat_team(info) is None:  # a team is chosen at one's first round
            yield Plain(f"Your team, one of {', '.join(teams)}:")
            yield Input(
                value=self.host.team or "",
                placeholder=f"Your team ({', '.join(teams)}), then Enter",
                id="team",
                max_length=40,
            )
        yield Plain("", id="status")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#name", Input).focus()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        name = self.query_one("#name", Input).value.strip()
        status = self.query_one("#status", Static)
        if not name:
            status.update("Type your name first (it is how the others will see you).")
            self.query_one("#name", Input).focus()
            return
        host = self.host
        team = seat_team(host.info) or host.team
        if self.query("#team"):
            team = self.query_one("#team", Input).value.strip() or None
            if team is None:
                status.update(f"Choose your team first: one of {', '.join(team_names(host.info))}.")
                self.query_one("#team", Input).focus()
                return
        if self.starting:
            return
        self.starting = True
        status.update("Starting your round…")
        try:
            played = await asyncio.to_thread(host.client.play, host.code, name, host.key, team)
        except RemoteError as exc:
            status.update(str(exc))
            self.starting = False
            return
        # As the challenge spells it (the server matched it as names are matched).
        host.team = next(
            (one for one in team_names(host.info) if team and one.casefold() == team.casefold()),
            team,
        )
        keep_seat(host, name, played)
        host.switch_or_push(ChallengePlayScreen(played))

    async def action_results(self) -> None:
        await show_results(self, None)


def keep_seat(host: ChallengeHost, name: str, played: RemoteRound) -> None:
    """Remember the name and the new game's key: the proof of the seat for the next round."""
    host.player, host.key = name, played.key
    if host.keys is not None:
        host.keys.keep(host.client.server, host.code, name, played.key)


#: After a round, how many more times (a second apart) the standings are asked for while they
#: do not count the round just finished yet (a busy server counts it a moment after the finish).
COUNTED_TRIES = 5


async def show_results(screen: ChallengeScreen, played: RemoteRound | None) -> None:
    """Fetch the standings (with your key: the words of rounds you finished) and show them;
    after a round, once they count it (asked again a few times, :data:`COUNTED_TRIES`)."""
    host = screen.host
    try:
        results = await asyncio.to_thread(host.client.results, host.code, host.key)
        for _ in range(COUNTED_TRIES if played is not None else 0):
            if counts_round(results, played):
                break
            await asyncio.sleep(1.0)
            results = await asyncio.to_thread(host.client.results, host.code, host.key)
    except RemoteError as exc:
        screen.notify(str(exc), severity="error", timeout=8, markup=False)
        return
    host.switch_or_push(ChallengeResultsScreen(results, played))


def counts_round(results: Mapping[str, Any], played: RemoteRound | None) -> bool:
    """Whether the standings ``results`` list you among the players of the round ``played``."""
    you = results.get("you")
    name = you.get("name") if isinstance(you, Mapping) else None
    if played is None or not isinstance(name, str):
        return True
    for shown in results.get("round_results", []):
        if isinstance(shown, Mapping) and shown.get("number") == played.number:
            players = shown.get("players")
            return isinstance(players, list) and any(
                isinstance(row, Mapping) and row.get("name") == name for row in players
            )
    return False


class ChallengePlayScreen(ChallengeScreen):
    """Your round: the board, the countdown, the word line; each word judged by the server."""

    BINDINGS = [Binding("ctrl+e", "end_round", "Finish the round", priority=True)]

    def __init__(self, played: RemoteRound) -> None:
        super().__init__()
        self.played = played
        self.deadline = 0.0
        self.results: list[WordResult] = []
        #: Whether the round is being (or has been) finished on the server.
        self.finishing = False

    def compose(self) -> ComposeResult:
        played = self.played
        with Horizontal(id="top"):
            with Vertical(id="left", classes="auto"):
                yield BoardView(played.board, id="board")
                yield Plain("", id="countdown")
            with Vertical(id="side"):
                yield Plain(
                    f"Challenge {shown_code(self.host)}, round {played.number}: "
                    f"words of {played.min_length}+ letters"
                )
                yield Plain("Found: 0 words, 0 points", id="score")
                table: DataTable[str] = DataTable(id="found", cursor_type="row", zebra_stripes=True)
                yield table
        yield Input(placeholder="Type a word and press Enter  (ctrl+e: finish)", id="word")
        yield Plain("", id="verdict")
        yield Footer()

    def on_mount(self) -> None:
        self.deadline = self.host.clock() + self.played.time_left
        found = self.query_one("#found", DataTable)
        found.add_columns("word", "pts")
        found.can_focus = False
        self.query_one("#word", Input).focus()
        self.tick()
        self.set_interval(0.25, self.tick)

    def tick(self) -> None:
        """Show the time left; finish the round when it runs out."""
        if self.finishing:
            return
        left = self.deadline - self.host.clock()
        self.query_one("#countdown", Static).update(f"Time left {clock_text(left)}")
        if left <= 0:
            self.start_finish()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.value = ""
        entry = event.value.strip()
        verdict = self.query_one("#verdict", Static)
        if not entry or self.finishing:
            return
        try:  # bounded and cleaned here too, so a control character is refused with its name
            entry = check_entry(entry)
        except BoggleError as exc:
            verdict.update(str(exc))
            return
        earlier = first_entries(self.results)
        try:
            result, left = await asyncio.to_thread(self.host.client.submit, self.played, entry)
        except RemoteError as exc:
            verdict.update(str(exc))
            return
        self.deadline = self.host.clock() + left  # the server's clock decides
        verdict.update(verdict_line(result, earlier.get(result.word)))
        if result.verdict is Verdict.REPEATED:
            return
        self.results.append(result)
        if result.verdict is Verdict.SCORED:
            found = self.query_one("#found", DataTable)
            found.add_row(*cells(result.word, result.score))
            found.move_cursor(row=found.row_count - 1)
            self.query_one("#board", BoardView).highlight(result.path)
            scored = [one for one in self.results if one.verdict is Verdict.SCORED]
            self.query_one("#score", Static).update(
                f"Found: {plural(len(scored), 'word')}, "
                f"{plural(sum(one.score for one in scored), 'point')}"
            )

    def action_end_round(self) -> None:
        self.start_finish()

    def start_finish(self) -> None:
        """Finish the round on the server (once), then show the results."""
        if self.finishing:
            return
        self.finishing = True
        self.query_one("#verdict", Static).update("Finishing your round…")
        self.run_worker(self.finish(), exclusive=True, group="finish")

    async def finish(self) -> None:
        try:
            await asyncio.to_thread(self.host.client.finish, self.played)
        except RemoteError as exc:
            self.finishing = False
            self.query_one("#verdict", Static).update(f"{exc} - ctrl+e to try again")
            return
        await show_results(self, self.played)


def verdict_of(data: Mapping[str, Any]) -> str:
    """A word's verdict from the results' JSON, in words (the labels every front end uses)."""
    value = str(data.get("verdict", ""))
    try:
        return Verdict(value).label
    except ValueError:
        return value


def path_of(data: Mapping[str, Any]) -> Path | None:
    """A word's path from the results' JSON, if it has one."""
    path = data.get("path")
    if not isinstance(path, Sequence):
        return None
    try:
        return tuple((int(row), int(col)) for row, col in path)
    except (TypeError, ValueError):
        return None


class ChallengeResultsScreen(ChallengeScreen):
    """A round's results among all who have played it, the standings, and what nobody found.

    ``played`` is the round just played here (None: the results asked for from the start)."""

    BINDINGS = [
        Binding("n", "next_round", "Next round"),
        Binding("o", "toggle_offensive", "Offensive words"),
        Binding("q", "app.quit", "Quit"),
    ]

    def __init__(self, results: Mapping[str, Any], played: RemoteRound | None) -> None:
        super().__init__()
        self.results = results
        self.played = played
        self.paths: dict[str, Path | None] = {}
        self.show_offensive = False
        self.opened = time.monotonic()
        #: Whether the next round is being started (a second n meanwhile starts nothing).
        self.starting = False
        rounds = [r for r in results.get("round_results", []) if isinstance(r, Mapping)]
        number = played.number if played is not None else None
        shown = [
            r for r in rounds if r.get("visible") and (number is None or r.get("number") == number)
        ]
        #: The round whose words are listed: the one just played, else the last one visible.
        self.round: Mapping[str, Any] = shown[-1] if shown else {}

    def settled(self) -> bool:
        """Whether the letter keys work yet (not while the last word is still being typed)."""
        return time.monotonic() - self.opened >= self.host.key_guard

    def board(self) -> Board | None:
        if self.played is not None:
            return self.played.board
        try:
            return Board.parse(str(self.round.get("board", "")))
        except BoggleError:
            return None

    def compose(self) -> ComposeResult:
        board = self.board()
        with Horizontal(id="top"):
            if board is not None:
                yield BoardView(board, id="board")
            yield Plain(self.summary(), id="summary")
        table: DataTable[str] = DataTable(id="verdicts", cursor_type="row", zebra_stripes=True)
        yield table
        yield Footer()

    def next_round(self) -> int | None:
        you = self.results.get("you")
        step = you.get("next_round") if isinstance(you, Mapping) else None
        return step if isinstance(step, int) and not self.results.get("closed") else None

    def summary(self) -> str:
        """The round's ranking, the overall standings, what nobody found, and what next."""
        results, shown = self.results, self.round
        lines = []
        if shown:
            players = [p for p in shown.get("players", []) if isinstance(p, Mapping)]
            lines.append(
                f"Round {shown.get('number')}, {plural(len(players), 'player')} so far: "
                + ", ".join(f"{p.get('place')}. {p.get('name')} {p.get('score')}" for p in players)
            )
            if results.get("duplicates", "cancel") == "cancel":
                lines.append(
                    "Crossed off among all who have played it: a word two found scores for neither."
                )
            else:
                lines.append("House rule: a word several found scores for each of them.")
            missed = [m for m in shown.get("missed", []) if isinstance(m, Mapping)]
            worth = sum(m.get("score", 0) for m in missed if isinstance(m.get("score"), int))
            lines.append(
                f"Nobody found {plural(len(missed), 'word')} worth {plural(worth, 'point')}."
            )
        else:
            lines.append("No round of yours to show yet: the words appear once you finish one.")
        if shown:
            round_teams = team_standings_line(
                f"Teams, round {shown.get('number')}", shown.get("team_standings"), "score"
            )
            if round_teams is not None:
                lines.append(
                    f"{round_teams} (team-mates' common words count once, not crossed off)"
                )
        rounds = results.get("rounds", 1)
        if rounds != 1:
            overall_teams = team_standings_line(
                "Teams overall", results.get("team_standings"), "total"
            )
            if overall_teams is not None:
                lines.append(overall_teams)
        standings = [row for row in results.get("standings", []) if isinstance(row, Mapping)]
        if rounds != 1 and standings:
            lines.append(
                "Overall: "
                + ", ".join(
                    f"{row.get('place')}. {row.get('name')} {row.get('total')}" for row in standings
                )
            )
        if results.get("final"):
            lines.append("The challenge is closed: these standings are final.")
        step = self.next_round()
        lines.append(
            (f"n: play round {step}, " if step else "") + "q: quit. Select a row for its path."
        )
        return "\n".join(lines)

    def on_mount(self) -> None:
        table = self.query_one("#verdicts", DataTable)
        table.add_columns("player", "word", "verdict", "pts")
        self.fill()
        table.focus()

    def fill(self) -> None:
        """Everyone's entries with their verdicts, then the words nobody found."""
        table = self.query_one("#verdicts", DataTable)
        table.clear()
        self.paths.clear()
        for player in self.round.get("players", []):
            if not isinstance(player, Mapping):
                continue
            name = str(player.get("name", ""))
            for index, entry in enumerate(player.get("words", [])):
                if not isinstance(entry, Mapping):
                    continue
                key = f"{name}:{index}"
                score = entry.get("score") or ""
                table.add_row(
                    *cells(name, str(entry.get("word", "")), verdict_of(entry), score), key=key
                )
                self.paths[key] = path_of(entry)
        missed = [m for m in self.round.get("missed", []) if isinstance(m, Mapping)]
        hidden = 0
        for item in missed[:MISSED_SHOWN]:
            word = str(item.get("word", ""))
            if not self.show_offensive and is_offensive(word):
                hidden += 1
                continue
            key = f"missed:{word}"
            rare = " (rare)" if item.get("rare") else ""
            table.add_row(*cells("(nobody)", word, f"missed{rare}", item.get("score", "")), key=key)
            self.paths[key] = path_of(item)
        if hidden:
            table.add_row(*cells("…", "", offensive_note(hidden, "o"), ""), key="offensive")

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        key = event.row_key.value if event.row_key is not None else None
        if self.query("#board"):
            self.query_one("#board", BoardView).highlight(self.paths.get(key or ""))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Offer ``n`` only when a round is left to play."""
        if action == "next_round":
            return self.next_round() is not None
        if action == "toggle_offensive":
            missed = self.round.get("missed", [])
            return any(
                isinstance(m, Mapping) and is_offensive(str(m.get("word", ""))) for m in missed
            )
        return True

    def action_toggle_offensive(self) -> None:
        if self.settled():
            self.show_offensive = not self.show_offensive
            self.fill()

    async def action_next_round(self) -> None:
        host = self.host
        if not self.settled() or self.next_round() is None or host.player is None:
            return
        if self.starting:
            return
        self.starting = True
        try:
            played = await asyncio.to_thread(
                host.client.play, host.code, host.player, host.key, host.team
            )
        except RemoteError as exc:
            self.notify(str(exc), severity="error", timeout=8, markup=False)
            self.starting = False
            return
        keep_seat(host, host.player, played)
        host.switch_or_push(ChallengePlayScreen(played))

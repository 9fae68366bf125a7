"""The ``bigboggle`` command line: solve, shake, score, rules and dice.

A front end only: it turns arguments into library calls and results into text or JSON. Every
library error becomes ``Error: …`` on stderr with exit status 2, never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from . import __version__, cache, implementation
from .board import Board, Position
from .dice import CHALLENGE_CUBE, DICE_SETS, MAX_SEED, UNDERLINED_FACES, dice_set, new_seed, shake
from .dictionary import BUILTIN_LEVELS, Dictionary
from .errors import BoggleError, WordListError, quoted
from .family import is_offensive
from .limits import (
    MAX_OPPONENT_BOARDS,
    MAX_PLAYERS,
    MAX_ROUND_JSON,
    MAX_TERMINAL_OPPONENTS,
    ServerLimits,
)
from .rules import PRESETS, SCORING_TABLES, Rules
from .solver import Solution, solve

if TYPE_CHECKING:
    from .atlas import Atlas
    from .scoring import RoundResult
    from .study import DictionarySource

#: The server ``play --challenge CODE`` plays on unless told (kept here, beside the option's
#: help, so that the command line loads no client before it is asked for one).
DEFAULT_SERVER = "http://127.0.0.1:8000"

F = TypeVar("F", bound=Callable[..., Any])


def _show_version(ctx: click.Context) -> None:
    click.echo(f"bigboggle {__version__} (solver: {implementation.name()})")
    ctx.exit()


class BadInput(click.ClickException):
    """A library error shown as ``Error: …`` with exit status 2 (bad input)."""

    exit_code = 2


def _fail(message: str) -> NoReturn:
    raise BadInput(message)


def _rules_option(function: F) -> F:
    return click.option(
        "--rules",
        "rules_name",
        default="big",
        show_default=True,
        metavar="NAME",
        help=f"Rules preset: {', '.join(PRESETS)}.",
    )(function)


def _dictionary_option(function: F) -> F:
    return click.option(
        "--dictionary",
        "dictionary_spec",
        default=None,
        metavar="NAME|PATH",
        help="Built-in dictionary (common, standard, huge) or a word list file, one word per "
        "line. Default: the rules' dictionary (standard).",
    )(function)


def _json_option(function: F) -> F:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(
        function
    )


def _show_offensive_option(function: F) -> F:
    return click.option(
        "--show-offensive",
        is_flag=True,
        help="List offensive words too (hidden from the text by default, and counted; "
        '--json always has them, marked "offensive": true).',
    )(function)


def _family_option(function: F) -> F:
    return click.option(
        "--family",
        is_flag=True,
        default=None,
        help="Family filter: offensive words are refused (no points, nothing crossed off).",
    )(function)


def _hidden_note(hidden: int) -> str:
    """The line that says how many offensive words the text leaves out, and how to see them."""
    return f"{_plural(hidden, 'offensive word')} hidden (--show-offensive)"


def _band_option(function: F) -> F:
    return click.option(
        "--band",
        default=None,
        metavar="NAME|RANGE",
        help="Only a board in this band: easy, normal or rich (percentiles of points among "
        "shakes), or points like 300-500, or words like words:100-200.",
    )(function)


def _parse_band(text: str, rules: Rules, words: Dictionary) -> Any:
    from .analysis import parse_band

    try:
        return parse_band(text, rules, words)
    except BoggleError as exc:
        _fail(f"--band: {exc}")


def _load_rules(name: str, **options: Any) -> Rules:
    try:
        return Rules.preset(name, **options)
    except BoggleError as exc:
        _fail(str(exc))


def _load_dictionary(spec: str | None, rules: Rules) -> Dictionary:
    try:
        return Dictionary.load(spec if spec is not None else rules.dictionary)
    except WordListError as exc:
        _fail(str(exc))


def _load_study_dictionary(spec: str | None, rules: Rules) -> tuple[DictionarySource, Dictionary]:
    """A study run's dictionary and its source: a word list file read once (a pipe too), so
    the workers get the bytes the words came from."""
    from .study import DictionarySource

    try:
        return DictionarySource.read(spec if spec is not None else rules.dictionary)
    except WordListError as exc:
        _fail(str(exc))


def _report_skipped(words: Dictionary) -> None:
    report = words.report
    if report.skipped or report.q_without_u:
        click.echo(f"Word list {words.name}: {report.describe()}", err=True)


def _plural(count: int, noun: str, plural: str | None = None) -> str:
    """``1 word``, ``2 words``, ``1 entry``/``3 entries`` (``plural`` when not noun + s)."""
    return f"{count:,} {noun if count == 1 else plural or noun + 's'}"


def _print_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


def cell_name(position: Position) -> str:
    """A cell as people name it: column letter, row number from the top (``a1`` is top left)."""
    row, col = position
    return f"{chr(ord('a') + col)}{row + 1}"


def _path_text(path: Sequence[Position]) -> str:
    return "-".join(cell_name(step) for step in path)


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], right: set[int]) -> str:
    cells = [[str(value) for value in row] for row in rows]
    widths = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]

    def line(values: Sequence[str]) -> str:
        parts = [
            value.rjust(widths[i]) if i in right else value.ljust(widths[i])
            for i, value in enumerate(values)
        ]
        return "  ".join(parts).rstrip()

    return "\n".join([line(headers), line(["-" * w for w in widths]), *map(line, cells)])


class _Cli(click.Group):
    """The command group, with every error shown the same way: ``Error: …`` first, exit 2.

    Click's own usage errors (a missing file, a value out of range) would start with a usage
    line; users and scripts get the same one-line ``Error:`` form for every bad input instead.
    ``bigboggle`` with no command prints the help on stdout and exits 0.
    """

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, False, **extra)
        except click.exceptions.NoArgsIsHelpError as exc:
            # ``bigboggle`` alone asks what the program does: the help, not an error.
            click.echo(exc.ctx.get_help())
            sys.exit(0)
        except click.UsageError as exc:
            click.echo(f"Error: {exc.format_message()}", err=True)
            if exc.ctx is not None:
                click.echo(f"See '{exc.ctx.command_path} --help'.", err=True)
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            click.echo(f"Error: {exc.format_message()}", err=True)
            sys.exit(exc.exit_code)
        except click.Abort:
            click.echo("Aborted!", err=True)
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


@click.group(cls=_Cli, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=lambda ctx, _param, value: _show_version(ctx) if value else None,
    help="Show the version and the solver core in use, then exit.",
)
def cli() -> None:
    """Big Boggle, classic Boggle and Super Big Boggle: play, solve, shake and score boards.

    \b
    Examples:
      bigboggle play
      bigboggle serve
      bigboggle shake --seed 7
      bigboggle solve LINES/TQARD/HEMOP/ABCKI/PSTEW
      bigboggle score round.json --board LINES/TQARD/HEMOP/ABCKI/PSTEW
      bigboggle rules big
    """


# -- solve ---------------------------------------------------------------------------------------


@cli.command("solve")
@click.argument("board_text", metavar="[BOARD]", required=False)
@click.option(
    "--shake", "shake_board", is_flag=True, help="Shake a board of the rules' dice to solve."
)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=None,
    help="With --shake: the seed (as for 'bigboggle shake'); implies --shake.",
)
@click.option(
    "--challenge", is_flag=True, help="With --shake: swap the challenge cube in for one die."
)
@click.option(
    "--photo",
    "photo_path",
    type=click.Path(dir_okay=False),
    default=None,
    help="Read the board from a photo of the tray (as 'bigboggle read' does).",
)
@_rules_option
@_dictionary_option
@click.option(
    "--min-length", type=int, default=None, help="Shortest word to list (default: the rules')."
)
@click.option(
    "--limit", type=click.IntRange(min=0), default=None, help="Show at most N words (text only)."
)
@_show_offensive_option
@_json_option
def solve_command(
    board_text: str | None,
    shake_board: bool,
    seed: int | None,
    challenge: bool,
    photo_path: str | None,
    rules_name: str,
    dictionary_spec: str | None,
    min_length: int | None,
    limit: int | None,
    show_offensive: bool,
    as_json: bool,
) -> None:
    """Find every word on BOARD, with its score and a path.

    BOARD is rows separated by '/': a letter per cell, Qu (or Q) for the Qu face, [Th] for a
    two-letter face, '.' for a blank and '*' after the challenge cube's cell. With --shake
    (or --seed) instead of a BOARD, a board is shaken from the rules' dice. Offensive words
    are left out of the list (and counted) unless --show-offensive.

    \b
    Examples:
      bigboggle solve LINES/TQARD/HEMOP/ABCKI/PSTEW
      bigboggle solve --shake --seed 7 --limit 20
      bigboggle solve --shake --challenge --rules big-1979
      bigboggle solve PERS/LATG/SINE/TERS --rules classic --json
      bigboggle solve SEPAL/NIALT/ERDSO/TOMEN/ASTIR --dictionary my-words.txt --min-length 5
      bigboggle solve --photo tray.jpg
    """
    rules = _load_rules(rules_name, challenge=challenge or None)
    if board_text is not None and (shake_board or seed is not None or challenge):
        _fail("give either a BOARD or --shake/--seed/--challenge, not both")
    reading = None
    if photo_path is not None:
        if board_text is not None or shake_board or seed is not None:
            _fail("give either a BOARD, --shake or --photo, not two of them")
        reading = _read_photo(photo_path, rules, use_dice=True)
        board = reading.board
        if not as_json:
            click.echo(_reading_text(reading, photo_path))
    elif board_text is None:
        if not (shake_board or seed is not None or challenge):
            _fail("give a BOARD to solve (like LINES/TQARD/HEMOP/ABCKI/PSTEW) or --shake")
        if seed is None:
            seed = new_seed()
        board = shake(rules.dice, seed, challenge=rules.challenge).board
        if not as_json:
            click.echo(f"Shaken from the {rules.dice} dice with seed {seed}")
    else:
        try:
            board = Board.parse(board_text)
        except BoggleError as exc:
            _fail(str(exc))
    words = _load_dictionary(dictionary_spec, rules)
    _report_skipped(words)
    try:
        solution = solve(board, words, rules, min_length=min_length)
    except BoggleError as exc:
        _fail(str(exc))
    place = _standing(solution, words)
    if as_json:
        extra: dict[str, Any] = {} if seed is None else {"seed": seed}
        if reading is not None:
            extra["reading"] = reading.to_json()
        if place is not None:
            extra["standing"] = place.to_json()
        click.echo(solution.json_bytes(extra, indent=True).decode())  # as _print_json prints
        return
    _print_solution(solution, limit, place, show_offensive=show_offensive)


def _standing(solution: Solution, words: Dictionary) -> Any:
    """Where the solved board stands among shakes (:func:`bigboggle.analysis.standing_of`).

    The statistics shipped are of the built-in dictionaries only (tests/test_startup.py checks
    the data), so for a word list of the user's there is none, and the analysis module and
    its tables (about 5 ms) are not loaded to say so.
    """
    if words.name not in BUILTIN_LEVELS:
        return None
    from .analysis import standing_of

    return standing_of(solution, words)


def _print_solution(
    solution: Solution, limit: int | None, place: Any = None, *, show_offensive: bool = False
) -> None:
    rules = solution.rules
    click.echo(solution.board.render())
    click.echo()
    click.echo(f"Board {solution.board}")
    click.echo(
        f"Rules {rules.name} ({rules.table.describe()}), dictionary {solution.dictionary}, "
        f"words of {solution.min_length}+ letters"
    )
    by_length = ", ".join(f"{k}: {v}" for k, v in solution.counts_by_length().items())
    click.echo(
        f"{_plural(solution.count, 'word')}, {_plural(solution.total_score, 'point')} "
        f"({by_length or 'none'})"
    )
    if place is not None:
        click.echo(f"This board is {place.describe()}.")
    listed = [found for found in solution.words if show_offensive or not is_offensive(found.word)]
    hidden = solution.count - len(listed)
    if not listed:
        if hidden:
            click.echo(_hidden_note(hidden))
        return
    shown = listed if limit is None else listed[:limit]
    rows = [
        (found.score, found.word + (" *" if found.bonus else ""), _path_text(found.path))
        for found in shown
    ]
    click.echo()
    click.echo(_table(["points", "word", "path (column letter, row number)"], rows, {0}))
    if len(shown) < len(listed):
        click.echo(f"... and {len(listed) - len(shown)} more (drop --limit to see them)")
    if hidden:
        click.echo(_hidden_note(hidden))


# -- shake ---------------------------------------------------------------------------------------


# -- read ----------------------------------------------------------------------------------------


@cli.command("read")
@click.argument("photo_path", metavar="PHOTO", type=click.Path(dir_okay=False))
@_rules_option
@click.option(
    "--no-dice",
    "no_dice",
    is_flag=True,
    help="Read each cube on its own, not as the rules' dice can show the board (home-made dice).",
)
@click.option(
    "--challenge",
    is_flag=True,
    help="The tray holds the challenge cube (I K L M Qu U) in place of one die: it is found and marked.",
)
@_json_option
def read_command(
    photo_path: str, rules_name: str, no_dice: bool, challenge: bool, as_json: bool
) -> None:
    """Read a board from PHOTO, a photo of the tray (JPEG, PNG or WebP).

    The grid of the rules' size is found in the photo, each cube read in any rotation, and
    the readings made consistent with the rules' dice (each die lies in the tray once);
    cells the reader is unsure of are marked with '?' and listed with their runner-up
    readings. Needs pip install 'bigboggle[camera]'.

    \b
    Examples:
      bigboggle read tray.jpg
      bigboggle read tray.jpg --rules classic --json
      bigboggle read tray.jpg --challenge
      bigboggle solve --photo tray.jpg
    """
    rules = _load_rules(rules_name, challenge=challenge or None)
    reading = _read_photo(photo_path, rules, use_dice=not no_dice)
    if as_json:
        _print_json({"rules": rules.name, **reading.to_json()})
        return
    click.echo(_reading_text(reading, photo_path))


def _read_photo(path: str, rules: Rules, *, use_dice: bool) -> Any:
    """The :class:`~bigboggle.photo.reader.Reading` of the photo file at ``path``."""
    try:
        from .photo.reader import read_board
    except ImportError as exc:
        _fail(f"reading photos needs pip install 'bigboggle[camera]' ({exc.name} is missing)")
    from .limits import MAX_PHOTO_BYTES

    try:
        with open(path, "rb") as file:
            data = file.read(MAX_PHOTO_BYTES + 1)
    except OSError as exc:
        _fail(f"photo {path!r} cannot be read: {exc.strerror}")
    try:
        return read_board(data, rules, use_dice=use_dice)
    except BoggleError as exc:
        _fail(f"photo {path!r}: {exc}")


def _reading_text(reading: Any, path: str) -> str:
    """A reading as text: the grid (doubtful cells marked ``?``), the doubtful cells' runner-up
    readings, and the board's notation."""
    cols = reading.board.cols
    lines = [f"Read from {path}:"]
    for start in range(0, len(reading.cells), cols):
        row = reading.cells[start : start + cols]
        lines.append(
            "  "
            + " ".join(f"{(cell.face or '.') + ('?' if cell.doubtful else ''):<4}" for cell in row)
        )
    for index, cell in enumerate(reading.cells):
        if cell.doubtful:
            others = ", ".join(
                f"{face or 'blank'} {chance:.0%}" for face, chance in cell.alternatives
            )
            lines.append(
                f"  check {cell_name(divmod(index, cols))}: {cell.face or 'blank'} "
                f"({cell.confidence:.0%}); or {others}"
            )
    lines.append(f"Board: {reading.board}")
    return "\n".join(lines)


@cli.command("shake")
@_rules_option
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=None,
    help=(
        "Seed for a reproducible shake, any whole number up to 2**63-1 "
        "(default: a fresh one below 2**32, printed)."
    ),
)
@click.option("--challenge", is_flag=True, help="Swap the challenge cube in for one ordinary die.")
@_band_option
@_dictionary_option
@_json_option
def shake_command(
    rules_name: str,
    seed: int | None,
    challenge: bool,
    band: str | None,
    dictionary_spec: str | None,
    as_json: bool,
) -> None:
    """Shake the dice of a rules preset into a board.

    The same seed and rules give the same board on any machine.

    \b
    Examples:
      bigboggle shake
      bigboggle shake --rules superbig --seed 42 --json
      bigboggle shake --band rich
      bigboggle shake --band 300-400 --dictionary huge
      bigboggle solve "$(bigboggle shake --seed 7 --json | jq -r .board)"
    """
    rules = _load_rules(rules_name, challenge=challenge or None)
    if seed is None:
        seed = new_seed()
    if band is not None:
        from .analysis import shake_in_band

        words = _load_dictionary(dictionary_spec, rules)
        try:
            dealt, seed = shake_in_band(rules, words, _parse_band(band, rules, words), seed=seed)
        except BoggleError as exc:
            _fail(str(exc))
    else:
        dealt = shake(rules.dice, seed, challenge=rules.challenge)
    if as_json:
        _print_json(dealt.to_json(rules.name, seed))
        return
    click.echo(_tray(dealt.board))
    click.echo()
    click.echo(f"Board {dealt.board}")
    click.echo(
        f"Rules {rules.name}, seed {seed}" + (", challenge cube (*)" if rules.challenge else "")
    )


def _tray(board: Board) -> str:
    """The board with M, W and Z underlined, as on the dice, where the terminal shows styles."""
    lines = []
    for row in range(board.rows):
        cells = []
        for col in range(board.cols):
            face = board[row, col] or "."
            mark = "*" if board.challenge == (row, col) else ""
            padding = " " * (3 - len(face + mark))
            shown = click.style(face, underline=True) if face in UNDERLINED_FACES else face
            cells.append(shown + mark + padding)
        lines.append(" ".join(cells).rstrip())
    return "\n".join(lines)


# -- score ---------------------------------------------------------------------------------------


@cli.command("score")
@click.argument("source", metavar="FILE|-")
@click.option(
    "--board",
    "board_text",
    default=None,
    metavar="BOARD",
    help='The board (else the file\'s "board").',
)
@click.option(
    "--rules",
    "rules_name",
    default=None,
    metavar="NAME",
    help='Rules preset (else the file\'s "rules", else big).',
)
@_dictionary_option
@click.option("--advanced", is_flag=True, default=None, help="Advanced play: words of 5+ letters.")
@click.option(
    "--duplicates",
    type=click.Choice(["cancel", "keep"]),
    default=None,
    help="Cross off words two players found (cancel, the rule) or keep them (a house rule).",
)
@_family_option
@_show_offensive_option
@_json_option
def score_command(
    source: str,
    board_text: str | None,
    rules_name: str | None,
    dictionary_spec: str | None,
    advanced: bool | None,
    duplicates: str | None,
    family: bool | None,
    show_offensive: bool,
    as_json: bool,
) -> None:
    """Score a round from players' lists in a JSON FILE (or - for standard input).

    \b
    The file: {"board": "LINES/...", "players": {"ann": ["line", ...], "bob": [...]},
               "teams": {"red": ["ann"], "blue": ["bob"]},   (optional: team play)
               "min_length": {"kid": 3}}                     (optional: handicaps)
    \b
    Examples:
      bigboggle score round.json
      bigboggle score round.json --board LINES/TQARD/HEMOP/ABCKI/PSTEW --json
      echo '{"players": {"ann": ["lines"]}}' | bigboggle score - --board LINES/TQARD/HEMOP/ABCKI/PSTEW
    """
    from .round_input import load_json, parse_round_request  # here: only this command reads rounds
    from .scoring import score_round

    text, label = _read_input(source)
    try:
        data = load_json(text, label)
    except BoggleError as exc:
        _fail(str(exc))
    try:
        request = parse_round_request(data)
        board = Board.parse(board_text) if board_text is not None else request.board
        if board is None:
            _fail(f'no board: give --board or a "board" key in {label}')
        options = dict(request.options or {})
        if advanced:
            options["advanced"] = True
        if duplicates is not None:
            options["duplicates"] = duplicates
        if family:
            options["family"] = True
        rules = Rules.preset(rules_name or request.rules or "big", **options)
        words = _load_dictionary(dictionary_spec or request.dictionary, rules)
        _report_skipped(words)
        result = score_round(
            board, request.players, rules, words, teams=request.teams, min_length=request.min_length
        )
    except BoggleError as exc:
        _fail(str(exc))
    if as_json:
        _print_json(result.to_json())
        return
    _print_round(result, show_offensive=show_offensive)


def _points(value: int) -> str:
    return _plural(value, "point")


def _read_input(source: str) -> tuple[str, str]:
    """The text of FILE or of standard input (``-``), and how to name it in errors. At most
    :data:`~bigboggle.limits.MAX_ROUND_JSON` bytes are read: a larger input is refused, not
    read whole."""
    limit = MAX_ROUND_JSON
    if source == "-":
        raw = sys.stdin.buffer.read(limit + 1)
        label = "standard input"
    else:
        label = repr(source)
        try:
            with open(source, "rb") as file:
                raw = file.read(limit + 1)
        except FileNotFoundError:
            _fail(f"file {label} does not exist")
        except IsADirectoryError:
            _fail(f"{label} is a directory, not a file")
        except OSError as exc:
            _fail(f"file {label} cannot be read: {exc.strerror}")
    if len(raw) > limit:
        _fail(f"{label} is over {limit} bytes, the limit for a round's JSON")
    try:
        return raw.decode("utf-8-sig"), label
    except UnicodeDecodeError as exc:
        _fail(f"{label} is not UTF-8 text (byte {exc.start + 1})")


def _team_of(result: RoundResult) -> dict[str, str]:
    """Player -> team (empty without team play)."""
    teams = result.teams or {}
    return {member: name for name, team in teams.items() for member in team.members}


def _entry_note(
    entry: Any, player: str, shared: dict[str, tuple[str, ...]], team: str | None
) -> str:
    """What the points column does not say: the challenge bonus, a word shared in the team."""
    from .verdicts import Verdict

    notes = []
    if entry.bonus:
        notes.append(f"+{entry.bonus} challenge")
    if team is not None and entry.verdict is Verdict.SCORED and entry.word in shared:
        others = ", ".join(name for name in shared[entry.word] if name != player)
        notes.append(f"shared with {others}: counts once for {team}")
    return "; ".join(notes)


def _team_line(result: RoundResult, name: str) -> str:
    """A team's points and how they come from its members': each shared word counts once."""
    team = result.teams[name] if result.teams is not None else None
    assert team is not None
    line = f"team {name} ({', '.join(team.members)}): {_points(team.score)}"
    sharing = result.team_sharing(name)
    if sharing is None:
        return line
    words = ", ".join(sharing.first_shared) + (", ..." if sharing.more_shared else "")
    return (
        f"{line} = "
        + " + ".join(f"{member} {score}" for member, score in sharing.members)
        + f" - {sharing.counted_twice} shared ({words}: counted once for the team)"
    )


def _print_round(result: RoundResult, *, show_offensive: bool = False) -> None:
    from .verdicts import Verdict

    click.echo(result.board.render())
    click.echo()
    click.echo(f"Board {result.board}, rules {result.rules.name} ({result.rules.table.describe()})")
    team_of = _team_of(result)
    shared = {name: result.shared_words(name) for name in result.teams or {}}
    for name, player in result.players.items():
        click.echo()
        handicap = (
            f", words of {player.min_length}+"
            if player.min_length != result.rules.min_length
            else ""
        )
        team = team_of.get(name)
        side = f" (team {team})" if team is not None else ""
        click.echo(f"{name}{side}: {_points(player.score)}{handicap}")
        rows = [
            (
                entry.word,
                entry.verdict.label,
                entry.score if entry.verdict is Verdict.SCORED else "",
                _entry_note(entry, name, shared.get(team or "", {}), team),
            )
            for entry in player.words
        ]
        if rows:
            click.echo(_table(["word", "verdict", "points", ""], rows, {2}))
    if result.teams is not None:
        click.echo()
        for name in result.teams:
            click.echo(_team_line(result, name))
    click.echo()
    scores = result.scores
    places = result.places  # the same points share a place: "1. ann (2), 1. bob (2)"
    ranking = ", ".join(f"{places[name]}. {name} ({scores[name]})" for name in result.ranking)
    click.echo(f"Ranking: {ranking}")
    missed = result.missed
    listed = [found for found in missed if show_offensive or not is_offensive(found.word)]
    hidden = len(missed) - len(listed)
    click.echo(
        f"The board holds {_plural(result.solution.count, 'word')} worth "
        f"{_points(result.solution.total_score)}; "
        + (
            f"nobody found {len(missed)} of them"
            + (": " if listed else "")
            + ", ".join(found.word for found in listed[:10])
            + (", ..." if len(listed) > 10 else "")
            + (f" ({_hidden_note(hidden)})" if hidden else "")
            if missed
            else "every one was found."
        )
    )


# -- rules and dice ------------------------------------------------------------------------------

_TEAM_PLAY = (
    "Team play (our reading of the rules): each member writes a list; a word written by "
    "several members of one team counts once for the team; a word found by two teams is "
    "crossed off for both."
)


def _engine_options(function: F) -> F:
    """``--cluster``, ``--scheduler`` and ``--workers``: where a study run's chunks run."""
    options = [
        click.option(
            "--cluster",
            "use_cluster",
            is_flag=True,
            help="Run on a Dask cluster: a local one of --workers processes, or --scheduler's "
            "(needs pip install 'bigboggle[cluster]').",
        ),
        click.option(
            "--scheduler",
            metavar="ADDRESS",
            default=None,
            help="An existing Dask cluster's scheduler (tcp://host:8786); implies --cluster.",
        ),
        click.option(
            "--workers",
            type=click.IntRange(1, 1024),
            default=None,
            help="Worker processes of the local cluster [default: one per core].",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


def _cluster_options(function: F) -> F:
    """:func:`_engine_options` and ``--checkpoint``, the file that keeps finished chunks."""
    function = click.option(
        "--checkpoint",
        "checkpoint_path",
        type=click.Path(dir_okay=False),
        default=None,
        help="Keep finished chunks in this file; run again with it to resume.",
    )(function)
    return _engine_options(function)


def _engine(use_cluster: bool, scheduler: str | None, workers: int | None, threads: int) -> Any:
    """The engine a study run asked for, as a context manager: Dask (a local cluster, or an
    existing one), or this process."""
    import contextlib

    from .cluster import DaskEngine, LocalEngine

    if scheduler is not None or use_cluster:
        if scheduler is not None and not 0 < len(scheduler.strip()) <= 300:
            _fail(
                "--scheduler: give the scheduler's address (tcp://host:8786), at most 300 characters"
            )
        if scheduler is not None and workers is not None:
            _fail(
                "--workers is the size of a local cluster; a cluster given by --scheduler "
                "has the workers started for it"
            )
        return DaskEngine(scheduler, workers)
    if workers is not None:
        _fail("--workers is the size of a local cluster: add --cluster")
    return contextlib.nullcontext(LocalEngine(threads))


class _LateProgressBar:
    """A progress bar on stderr, drawn from the first report on (a study run's first comes
    once its checkpoint is read and its chunks start), so that an error before then is not
    printed under a bar's label. Called as ``bar(done, total, rate)``."""

    def __init__(self, **options: Any) -> None:
        self.options = options
        self.bar: Any = None
        self.shown = 0

    def __enter__(self) -> _LateProgressBar:
        return self

    def __call__(self, done: int, total: int, rate: float | None) -> None:
        if self.bar is None:
            self.bar = click.progressbar(file=sys.stderr, **self.options)
            self.bar.__enter__()
        done = min(done, total)
        self.bar.update(done - self.shown, rate)
        self.shown = done

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.__exit__(*exc)


def _show_rate(rate: float | None) -> str:
    return "" if rate is None else f"{rate:,.0f}/s"


@cli.command("stats")
@_rules_option
@_dictionary_option
@click.option(
    "--boards",
    type=click.IntRange(1, 10_000_000_000),
    default=100_000,
    show_default=True,
    help="Boards to shake and solve (memory stays flat for any number).",
)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=0,
    show_default=True,
    help="First seed (boards use seed, seed+1, ...).",
)
@click.option(
    "--threads", type=click.IntRange(1, 64), default=2, show_default=True, help="Solver threads."
)
@click.option(
    "--histogram",
    "histogram_path",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Also draw the distributions as a PNG (needs matplotlib).",
)
@_cluster_options
@_json_option
def stats_command(
    rules_name: str,
    dictionary_spec: str | None,
    boards: int,
    seed: int,
    threads: int,
    histogram_path: str | None,
    use_cluster: bool,
    scheduler: str | None,
    workers: int | None,
    checkpoint_path: str | None,
    as_json: bool,
) -> None:
    """Shake and solve many boards of a preset's dice: how rich are its boards?

    \b
    Examples:
      bigboggle stats
      bigboggle stats --rules classic --boards 20000 --histogram classic.png
      bigboggle stats --rules superbig --dictionary huge --json
      bigboggle stats --boards 10000000 --cluster --checkpoint big.ckpt
      bigboggle stats --boards 1000000000 --scheduler tcp://head:8786 --checkpoint big.ckpt

    With --cluster (or --scheduler) the boards are shaken and solved in chunks on a Dask
    cluster; the statistics are exactly those of one process, whatever the number of workers.
    Ctrl-C keeps what is done; with --checkpoint the same command resumes it.
    """
    from .analysis import PERCENTILES
    from .cluster import run_stats
    from .study import StatsRun

    rules = _load_rules(rules_name)
    source, words = _load_study_dictionary(dictionary_spec, rules)
    if histogram_path is not None:
        _require_matplotlib()
        if not histogram_path.lower().endswith(".png"):
            _fail(f"--histogram {histogram_path!r}: the file name must end in .png")
        folder = os.path.dirname(os.path.abspath(histogram_path))
        if not os.path.isdir(folder) or not os.access(folder, os.W_OK):
            _fail(f"--histogram {histogram_path!r}: cannot write in {folder!r}")
    try:
        run = StatsRun(rules, source, boards, seed)
        with (
            _engine(use_cluster, scheduler, workers, threads) as engine,
            _LateProgressBar(
                length=boards, label="Shaking and solving", item_show_func=_show_rate
            ) as bar,
        ):
            outcome = run_stats(run, engine, checkpoint=checkpoint_path, progress=bar)
    except BoggleError as exc:
        _fail(str(exc))
    stats = outcome.stats
    if stats is None:
        _fail("interrupted before any chunk of boards was done")
    if outcome.interrupted:
        click.echo(
            f"Interrupted: {outcome.boards:,} of {boards:,} boards done"
            + (
                f"; run the same command again to resume from {checkpoint_path}"
                if checkpoint_path
                else " (add --checkpoint FILE to keep them for a resumption)"
            ),
            err=True,
        )
    elif outcome.resumed:
        click.echo(
            f"Resumed from {checkpoint_path}: {outcome.resumed:,} of {outcome.chunks:,} chunks "
            "were done before",
            err=True,
        )
    if histogram_path is not None:
        _histogram(stats, histogram_path)
    if as_json:
        _print_json({**stats.to_json(), "complete": not outcome.interrupted})
        if outcome.interrupted:
            sys.exit(130)
        return
    seeds = (
        f"seed{'s' if boards > 1 else ''} {seed}{f'..{seed + boards - 1}' if boards > 1 else ''}"
    )
    done = (
        f"{stats.boards:,} of the {_plural(boards, 'board')}"
        if outcome.interrupted
        else _plural(boards, "board")
    )
    click.echo(
        f"{done} of the {rules.dice} dice ({seeds}), "
        f"{words.name} dictionary, words of {rules.min_length}+ letters"
    )
    # One decimal in every column: the percentiles are interpolated, so some have a fraction
    # and some do not; mixed in one row ("312.5  340") they read as different kinds of number.
    rows = [
        (
            label,
            f"{dist.mean:.1f}",
            f"{dist.stdev:.1f}",
            *(f"{dist.percentile(p):.1f}" for p in PERCENTILES),
            f"{dist.quantiles[-1]:.1f}",
        )
        for label, dist in (("points", stats.points), ("words", stats.words))
    ]
    headers = ["", "mean", "stdev", *(f"p{p}" for p in PERCENTILES), "max"]
    click.echo(_table(headers, rows, set(range(1, len(headers)))))
    click.echo()
    for title, group in (("Best", stats.best), ("Worst", stats.worst)):
        click.echo(f"{title} boards seen:")
        for board in group:
            click.echo(
                f"  {board.board:40} {_points(board.points):>10} {_plural(board.words, 'word'):>11}"
                f"  (seed {board.seed})"
            )
    if histogram_path is not None:
        click.echo(f"Histogram written to {histogram_path}")
    if outcome.interrupted:
        sys.exit(130)


def _require_matplotlib(what: str = "--histogram") -> None:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        _fail(f"{what} needs matplotlib: pip install 'bigboggle[plot]'")


def _histogram(stats: Any, path: str) -> None:
    """Draw the distributions of points and words as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    panels = (
        (axes[0], "points per board", stats.point_counts, stats.points),
        (axes[1], "words per board", stats.word_counts, stats.words),
    )
    for axis, label, counts, dist in panels:
        axis.hist(list(counts), weights=list(counts.values()), bins=60, color="tab:blue", alpha=0.8)
        axis.set_xlabel(label)
        axis.set_ylabel("boards")
        axis.axvline(dist.mean, color="tab:orange", linestyle="--", label=f"mean {dist.mean:.0f}")
        axis.axvline(
            dist.percentile(50),
            color="tab:green",
            linestyle=":",
            label=f"median {dist.percentile(50):.0f}",
        )
        axis.legend(loc="upper right")
        axis.grid(alpha=0.3)
    figure.suptitle(f"{stats.boards:,} shakes of {stats.rules} dice, {stats.dictionary} dictionary")
    figure.tight_layout()
    try:
        figure.savefig(path, dpi=100)
    except OSError as exc:
        _fail(f"cannot write {path!r}: {exc.strerror}")
    finally:
        plt.close(figure)


def _atlas_charts(atlas: Atlas, folder: str | os.PathLike[str]) -> list[str]:
    """Draw the atlas's distributions as PNGs in ``folder``, one per preset
    (``atlas-PRESET.png``): a panel per dictionary, the histogram of points per shaken board
    from the exact counts, its median, and the points of the best board found marked. Returns
    the paths written, in the atlas's order of presets."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(folder, exist_ok=True)
    written = []
    for name in atlas.presets():
        entries = atlas.entries_of(name)
        figure, axes = plt.subplots(1, len(entries), figsize=(5.5 * len(entries), 4), squeeze=False)
        for axis, entry in zip(axes[0], entries, strict=True):
            counts = entry.shakes.points
            axis.hist(
                list(counts), weights=list(counts.values()), bins=60, color="tab:blue", alpha=0.8
            )
            median = entry.points.percentile(50)
            axis.axvline(median, color="tab:green", linestyle=":", label=f"median {median:,.0f}")
            top = entry.top()
            if top is not None:
                axis.axvline(
                    top.points, color="tab:red", linestyle="--", label=f"best found {top.points:,}"
                )
            axis.set_title(f"{entry.dictionary} dictionary, {entry.shakes.boards:,} shakes")
            axis.set_xlabel("points per board")
            axis.set_ylabel("boards")
            axis.legend(loc="upper right")
            axis.grid(alpha=0.3)
        figure.suptitle(f"{PRESETS[name].title}: points per shaken board")
        figure.tight_layout()
        path = os.path.join(folder, f"atlas-{name}.png")
        try:
            figure.savefig(path, dpi=100)
        except OSError as exc:
            _fail(f"cannot write {path!r}: {exc.strerror}")
        finally:
            plt.close(figure)
        written.append(path)
    return written


@cli.command("opponents")
@_rules_option
@_dictionary_option
@click.option(
    "--boards",
    type=click.IntRange(1, MAX_OPPONENT_BOARDS),
    default=1000,
    show_default=True,
    help=f"Boards to shake (at most {MAX_OPPONENT_BOARDS:,}).",
)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=0,
    show_default=True,
    help="First seed (boards use seed, seed+1, ...; opponents play with their board's).",
)
@_json_option
def opponents_command(
    rules_name: str, dictionary_spec: str | None, boards: int, seed: int, as_json: bool
) -> None:
    """How strong is each computer opponent? Its mean share of the board's points and of its
    words over seeded shakes, beside the target it was calibrated to (on Big Boggle boards
    with the standard dictionary).

    \b
    Examples:
      bigboggle opponents
      bigboggle opponents --boards 200
      bigboggle opponents --rules classic --json
    """
    from .opponents import measure_strengths

    rules = _load_rules(rules_name)
    words = _load_dictionary(dictionary_spec, rules)
    with click.progressbar(length=boards, label="Playing", file=sys.stderr) as bar:
        shares = measure_strengths(rules, words, boards, first_seed=seed, progress=bar.update)
    if as_json:
        _print_json(
            {
                "rules": rules.name,
                "dictionary": words.name,
                "boards": boards,
                "seed": seed,
                "strengths": [share.to_json() for share in shares],
            }
        )
        return
    last = seed + boards - 1
    click.echo(
        f"Computer opponents on {_plural(boards, 'board')} of the {rules.name} rules "
        f"(seed{'s' if boards > 1 else ''} {seed}{f'..{last}' if boards > 1 else ''}), "
        f"{words.name} dictionary; each list scored alone by the rules"
    )
    rows = [
        (
            share.strength,
            f"{share.target:.1%}",
            f"{share.points:.1%}",
            f"{share.words:.1%}",
            f"{share.invalid:.1f}",
        )
        for share in shares
    ]
    headers = ["strength", "target", "points", "words", "invalid a board"]
    click.echo(_table(headers, rows, {1, 2, 3, 4}))
    click.echo("(targets: Big Boggle boards, the standard dictionary)")


@cli.command("best")
@click.option(
    "--jobs",
    type=click.IntRange(1, 64),
    default=None,
    help="Searches run at once, one per core (seeds seed, seed+1, ...); the best board wins "
    "[default: 2; with --restarts, use --cluster --workers instead].",
)
@_rules_option
@_dictionary_option
@click.option(
    "--objective",
    type=click.Choice(["points", "words", "long"]),
    default="points",
    show_default=True,
    help="Most points, most words, or most words of --long-length+ letters.",
)
@click.option(
    "--long-length", type=int, default=None, help="With --objective long: the shortest long word."
)
@click.option(
    "--dice", "use_dice", is_flag=True, help="Only boards the preset's real dice can make."
)
@click.option("--min-length", type=int, default=None, help="Shortest word (default: the rules').")
@click.option(
    "--seconds",
    type=click.FloatRange(0.1, 24 * 3600),
    default=None,
    help="Time limit [default: 60; none with --evaluations or --restarts]. With "
    "--evaluations too, whichever comes first; with --restarts, the whole run's.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=0,
    show_default=True,
    help="Seed of the search (of the first restart: restarts use seed, seed+1, ...).",
)
@click.option(
    "--restarts",
    type=click.IntRange(1, 100_000),
    default=None,
    help="Run this many seeded searches of --evaluations boards each, as chunks (on "
    "--cluster's workers, or here): the same best board whatever runs them [default with "
    "--cluster or --checkpoint: 8].",
)
@click.option(
    "--evaluations",
    type=click.IntRange(1, 100_000_000),
    default=None,
    help="Boards each search values: a budget that gives the same board every time, unless "
    "--seconds runs out first [default with --restarts: 20,000].",
)
@_cluster_options
@_json_option
def best_command(
    jobs: int | None,
    rules_name: str,
    dictionary_spec: str | None,
    objective: str,
    long_length: int | None,
    use_dice: bool,
    min_length: int | None,
    seconds: float | None,
    seed: int,
    restarts: int | None,
    evaluations: int | None,
    use_cluster: bool,
    scheduler: str | None,
    workers: int | None,
    checkpoint_path: str | None,
    as_json: bool,
) -> None:
    """Search for the best board of a preset's size (simulated annealing with restarts).

    The best board so far is printed whenever it improves.

    \b
    Examples:
      bigboggle best --rules classic --dictionary ./enable2k.txt --min-length 3 --seconds 300
      bigboggle best --dice --seconds 120 --jobs 1
      bigboggle best --objective long --long-length 12 --seconds 60
      bigboggle best --restarts 64 --evaluations 50000 --cluster --checkpoint best.ckpt
      bigboggle best --restarts 1000 --scheduler tcp://head:8786

    With --restarts (or --cluster, --scheduler, --checkpoint) the search is that many seeded
    searches of --evaluations boards each, run as chunks on a Dask cluster or here: the best
    board, and each restart's, is the same whatever the number of workers; the best of each
    worker is reported too. Ctrl-C keeps what is done; with --checkpoint the same command
    resumes it.
    """
    from .search import Improvement, search_best, search_parallel

    rules = _load_rules(rules_name, min_length=min_length)
    chunked = (
        restarts is not None or use_cluster or scheduler is not None or checkpoint_path is not None
    )
    if chunked:
        source, words = _load_study_dictionary(dictionary_spec, rules)
    else:
        words = _load_dictionary(dictionary_spec, rules)
    if chunked:
        if jobs is not None:
            _fail(
                "--jobs runs searches against the clock; with --restarts use --cluster --workers N"
            )
        _best_in_chunks(
            rules,
            words,
            source,
            objective=objective,
            long_length=long_length,
            use_dice=use_dice,
            seconds=seconds,
            seed=seed,
            restarts=restarts or 8,
            evaluations=evaluations or 20_000,
            engine=_engine(use_cluster, scheduler, workers, 1),
            checkpoint_path=checkpoint_path,
            as_json=as_json,
        )
        return
    if workers is not None:
        _fail("--workers is the size of a local cluster: add --cluster")
    jobs = 2 if jobs is None else jobs
    limit = "" if seconds is None and evaluations is not None else f" of {seconds or 60:.0f}"

    def report(found: Improvement) -> None:
        if not as_json:
            click.echo(f"{found.seconds:8.1f} s  {found.value:>7}  {found.board}")

    def progress(elapsed: float, evaluations: int, best: int) -> None:
        click.echo(
            f"  ... {elapsed:.0f} s{limit}: {_plural(evaluations, 'board')} tried, best {best}",
            err=True,
        )

    options: dict[str, Any] = {
        "objective": objective,
        "long_length": long_length,
        "use_dice": use_dice,
        "seconds": seconds,
        "max_evaluations": evaluations,
    }
    try:
        if jobs > 1:
            spec = dictionary_spec or rules.dictionary
            result = search_parallel(
                rules, spec, jobs=jobs, seed=seed, on_improve=report, **options
            )
        else:
            result = search_best(
                rules,
                words,
                seed=seed,
                on_improve=report,
                on_progress=progress,
                progress_every=10.0,
                **options,
            )
    except BoggleError as exc:
        _fail(str(exc))
    data = {
        "board": str(result.board),
        "value": result.value,
        "objective": objective,
        "rules": rules.name,
        "dictionary": words.name,
        "min_length": rules.min_length,
        "dice": use_dice,
        "seed": seed,
        "evaluations": result.evaluations,
        "seconds": round(result.seconds, 2),
        "improvements": [vars(found) for found in result.improvements],
        "interrupted": result.interrupted,
        "timed_out": result.timed_out,
        "complete": not (result.interrupted or result.timed_out),
    }
    if as_json:
        _print_json(data)
        return
    click.echo()
    click.echo(result.board.render())
    if result.interrupted:
        click.echo("Interrupted: the best board found so far:")
    elif result.timed_out:
        click.echo(
            f"Time limit ({seconds:g} s) reached before {_plural(evaluations or 0, 'board')}: "
            "the best board found so far:"
        )
    click.echo(
        f"Best: {result.board}  {result.value} ({objective}), "
        f"{_plural(result.evaluations, 'board')} tried in {result.seconds:.0f} s, "
        f"{_plural(result.restarts, 'restart')}"
    )


def _best_in_chunks(
    rules: Rules,
    words: Dictionary,
    source: DictionarySource,
    *,
    objective: str,
    long_length: int | None,
    use_dice: bool,
    seconds: float | None,
    seed: int,
    restarts: int,
    evaluations: int,
    engine: Any,
    checkpoint_path: str | None,
    as_json: bool,
) -> None:
    """``best`` as seeded restarts in chunks (:func:`bigboggle.cluster.run_best`)."""
    import time

    from .cluster import run_best
    from .search import objective_points
    from .study import BestRun, Restart, best_command

    def report(found: Restart) -> None:
        if not as_json:
            click.echo(
                f"restart {found.index:>5} (seed {found.seed})  {found.value:>7}  {found.board}"
            )

    try:
        objective_points(objective, rules, words, long_length)  # type: ignore[arg-type]  # refused here, before a cluster
        run = BestRun(
            rules,
            source,
            restarts,
            evaluations,
            seed,
            objective,  # type: ignore[arg-type]
            long_length,
            use_dice,
        )
        with (
            engine as running,
            _LateProgressBar(
                length=restarts * evaluations,
                label="Searching",
                item_show_func=lambda rate: _show_rate(rate) and f"{_show_rate(rate)} boards",
            ) as bar,
        ):
            deadline = None if seconds is None else time.monotonic() + seconds
            outcome = run_best(
                run,
                running,
                checkpoint=checkpoint_path,
                progress=bar,
                on_improve=report,
                deadline=deadline,
            )
    except BoggleError as exc:
        _fail(str(exc))
    best = outcome.best
    if best is None and outcome.timed_out:
        _fail(
            f"the time limit (--seconds {seconds:g}) passed before any restart was done; "
            "give it more time, or fewer --evaluations a restart"
        )
    if best is None:
        _fail("interrupted before any restart was done")
    again = best_command(run, restarts=1, seed=best.seed)
    data = {
        "board": best.board,
        "value": best.value,
        "points": best.points,
        "words": best.words,
        "objective": objective,
        "long_length": long_length,
        "rules": rules.name,
        "dictionary": words.name,
        "min_length": rules.min_length,
        "dice": use_dice,
        "seed": seed,
        "restarts": restarts,
        "evaluations": evaluations,
        "best_restart": best.to_json(),
        "command": again,
        "per_worker": [
            {**restart.to_json(), "worker": worker}
            for worker, restart in sorted(outcome.per_worker.items())
        ],
        "restarts_done": len(outcome.restarts),
        "resumed": outcome.resumed,
        "boards_valued": outcome.evaluations,
        "seconds": round(outcome.seconds, 2),
        "interrupted": outcome.interrupted,
        "timed_out": outcome.timed_out,
        "complete": not (outcome.interrupted or outcome.timed_out),
    }
    if as_json:
        _print_json(data)
    else:
        click.echo()
        click.echo(Board(best.board).render())
        if outcome.timed_out:
            click.echo(
                f"Time limit ({seconds:g} s) reached after {len(outcome.restarts):,} of "
                f"{restarts:,} restarts"
                + (f"; run again to do the rest from {checkpoint_path}" if checkpoint_path else "")
            )
        if outcome.interrupted:
            click.echo(
                f"Interrupted after {len(outcome.restarts):,} of {restarts:,} restarts"
                + (
                    f"; run the same command again to resume from {checkpoint_path}"
                    if checkpoint_path
                    else ""
                )
            )
        click.echo(
            f"Best: {best.board}  {best.value} ({objective}), {_points(best.points)}, "
            f"{_plural(best.words, 'word')}; restart {best.index} (seed {best.seed}) of "
            f"{_plural(len(outcome.restarts), 'restart')} done"
            + (f", {outcome.resumed:,} of them before" if outcome.resumed else "")
        )
        if len(outcome.per_worker) > 1:
            click.echo("Best of each worker:")
            for worker, restart in sorted(outcome.per_worker.items()):
                click.echo(
                    f"  {worker:28} {restart.value:>7}  {restart.board}  (seed {restart.seed})"
                )
        click.echo(f"That board again, alone: {again}")
    if outcome.interrupted:
        sys.exit(130)


def _names(option: str, text: str | None, known: Sequence[str]) -> tuple[str, ...]:
    """A comma-separated list of names from ``known`` (``None``: all of them)."""
    if text is None:
        return tuple(known)
    names = tuple(name.strip() for name in text.split(",") if name.strip())
    for name in names:
        if name not in known:
            _fail(f"{option}: unknown name {quoted(name)}; choose from {', '.join(known)}")
    if not names or len(set(names)) != len(names):
        _fail(f"{option}: give each name once, comma-separated, from {', '.join(known)}")
    return names


@cli.command("atlas")
@click.option(
    "--out",
    "folder",
    type=click.Path(file_okay=False),
    default="atlas",
    show_default=True,
    help="Folder for atlas.json and the charts (atlas-PRESET.png).",
)
@click.option(
    "--from",
    "source_path",
    type=click.Path(dir_okay=False, exists=True),
    default=None,
    help="Draw the charts of this atlas file instead of computing one.",
)
@click.option("--rules", "presets", default=None, help="Presets, comma-separated [default: all].")
@click.option(
    "--dictionaries", default=None, help="Built-in dictionaries, comma-separated [default: all]."
)
@click.option(
    "--objectives", default=None, help="points, words, long; comma-separated [default: all]."
)
@click.option(
    "--boards",
    type=click.IntRange(1, 10_000_000),
    default=100_000,
    show_default=True,
    help="Shakes per preset and dictionary.",
)
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED - 10_000_000),
    default=0,
    show_default=True,
    help="First seed of the shakes and of the searches.",
)
@click.option(
    "--restarts",
    type=click.IntRange(1, 100_000),
    default=4,
    show_default=True,
    help="Searches per objective.",
)
@click.option(
    "--evaluations",
    type=click.IntRange(1, 100_000_000),
    default=100_000,
    show_default=True,
    help="Boards each search values.",
)
@click.option(
    "--long-length",
    type=click.IntRange(3, 25),
    default=8,
    show_default=True,
    help="The shortest word the long objective counts.",
)
@click.option(
    "--checkpoints",
    "checkpoint_folder",
    type=click.Path(file_okay=False),
    default=None,
    help="Keep every part's finished chunks in this folder; run again to resume.",
)
@_engine_options
@_json_option
def atlas_command(
    folder: str,
    source_path: str | None,
    presets: str | None,
    dictionaries: str | None,
    objectives: str | None,
    boards: int,
    seed: int,
    restarts: int,
    evaluations: int,
    long_length: int,
    checkpoint_folder: str | None,
    use_cluster: bool,
    scheduler: str | None,
    workers: int | None,
    as_json: bool,
) -> None:
    """Compute an atlas: the distribution of every preset's shaken boards, and the best boards
    by points, by words and by long words, each with the command that finds it again.

    Writes atlas.json (which `bigboggle serve` shows at /atlas with BIGBOGGLE_ATLAS=PATH) and
    a chart per preset (needs matplotlib). The parts run one after another, each on every
    worker; the same options give the same atlas whatever the number of workers.

    \b
    Examples:
      bigboggle atlas --rules classic --boards 20000 --restarts 2
      bigboggle atlas --cluster --checkpoints atlas-work
      bigboggle atlas --from src/bigboggle/data/atlas.json --out charts
    """
    from .atlas import Atlas
    from .atlas_build import OBJECTIVES, AtlasPlan, build_atlas

    _require_matplotlib("bigboggle atlas (its charts)")
    plan = None
    if source_path is None:  # checked before any folder is made
        try:
            plan = AtlasPlan(
                presets=_names("--rules", presets, list(PRESETS)),
                dictionaries=_names("--dictionaries", dictionaries, list(BUILTIN_LEVELS)),
                objectives=_names("--objectives", objectives, list(OBJECTIVES)),  # type: ignore[arg-type]
                boards=boards,
                seed=seed,
                restarts=restarts,
                evaluations=evaluations,
                long_length=long_length,
            )
        except BoggleError as exc:
            _fail(str(exc))
    for option, wanted in (("--out", folder), ("--checkpoints", checkpoint_folder)):
        if wanted is None:
            continue
        try:
            os.makedirs(wanted, exist_ok=True)
        except OSError as exc:
            _fail(f"{option} {wanted!r}: cannot make the folder: {exc.strerror}")
        if not os.access(wanted, os.W_OK):
            _fail(f"{option} {wanted!r}: cannot write in it")
    complete = True
    try:
        if source_path is not None:
            atlas = Atlas.load(source_path)
        else:
            assert plan is not None
            current = [""]

            def progress(part: str, done: int, total: int, rate: float | None) -> None:
                if part != current[0]:
                    current[0] = part
                    click.echo(f"{part} ...", err=True)

            with _engine(use_cluster, scheduler, workers, 2) as engine:
                data, complete = build_atlas(
                    plan, engine, checkpoints=checkpoint_folder, progress=progress
                )
            atlas = Atlas.from_json(data)
        # An atlas cut short never takes the place of a whole one.
        path = os.path.join(folder, "atlas.json" if complete else "atlas-partial.json")
        if source_path is None or os.path.abspath(source_path) != os.path.abspath(path):
            atlas.save(path)
        charts = _atlas_charts(atlas, folder) if complete else []
    except BoggleError as exc:
        _fail(str(exc))
    except OSError as exc:
        _fail(f"cannot write in {folder!r}: {exc.strerror}")
    if as_json:
        _print_json({"atlas": path, "charts": charts, "complete": complete})
    else:
        for entry in atlas.entries:
            click.echo(f"{entry.rules}/{entry.dictionary}: {entry.shakes.boards:,} shakes")
            for best in entry.best:
                click.echo(f"  {best.label:28} {best.value:>7}  {best.board}")
        click.echo(f"Wrote {path} and {_plural(len(charts), 'chart')} in {folder}")
        if not complete:
            click.echo(
                "Interrupted: the atlas holds the parts done"
                + (f"; run again to resume from {checkpoint_folder}" if checkpoint_folder else ""),
                err=True,
            )
    if not complete:
        sys.exit(130)


@cli.command("rules")
@click.argument("name", required=False)
@_json_option
def rules_command(name: str | None, as_json: bool) -> None:
    """List the rules presets, or show one in full.

    \b
    Examples:
      bigboggle rules
      bigboggle rules superbig --json
    """
    if name is None:
        if as_json:
            _print_json({preset: rules.to_json() for preset, rules in PRESETS.items()})
            return
        rows = [
            (
                r.name,
                f"{r.rows}x{r.cols}",
                r.dice,
                r.min_length,
                f"{r.timer // 60} min",
                r.table.describe(),
            )
            for r in PRESETS.values()
        ]
        click.echo(_table(["preset", "board", "dice", "min", "timer", "scoring"], rows, set()))
        click.echo()
        click.echo(
            "Scoring tables: "
            + "; ".join(f"{t.name}: {t.describe()}" for t in SCORING_TABLES.values())
        )
        return
    rules = _load_rules(name)
    if as_json:
        _print_json(rules.to_json())
        return
    click.echo(f"{rules.name}: {rules.title}")
    click.echo(
        f"  board       {rules.rows}x{rules.cols}, dice set {rules.dice!r} (see: bigboggle dice {rules.dice})"
    )
    click.echo(
        f"  words       {rules.min_length}+ letters through adjoining cells (sides or corners), no cell twice"
    )
    click.echo(f"  timer       {rules.timer // 60} min {rules.timer % 60:02d} s")
    click.echo(f"  scoring     {rules.table.describe()} (Qu counts as two letters)")
    click.echo(f"  dictionary  {rules.dictionary}")
    click.echo("Options:")
    click.echo("  advanced    words of 5+ letters only")
    click.echo("  handicap    a player may be allowed 3-letter words, which score 1 point")
    click.echo(
        f"  challenge   the challenge cube replaces a die; a word through it scores +{rules.challenge_bonus}"
    )
    click.echo("  duplicates  cancel (the rule: words two players found are crossed off) or keep")
    click.echo(f"  teams       {_TEAM_PLAY}")


@cli.command("dice")
@click.argument("name", required=False)
@_json_option
def dice_command(name: str | None, as_json: bool) -> None:
    """List the dice sets, or show the dice of one.

    \b
    Examples:
      bigboggle dice
      bigboggle dice big-1979
    """
    if name is None:
        if as_json:
            _print_json({key: _dice_json(key) for key in DICE_SETS})
            return
        rows = [(d.name, f"{d.rows}x{d.cols}", len(d.dice), d.title) for d in DICE_SETS.values()]
        click.echo(_table(["set", "board", "dice", "edition"], rows, {2}))
        return
    try:
        chosen = dice_set(name)
    except BoggleError as exc:
        _fail(str(exc))
    if as_json:
        _print_json(_dice_json(name))
        return
    click.echo(f"{chosen.name}: {chosen.title}")
    click.echo(f"source: {chosen.source}")
    if chosen.notes:
        click.echo(f"notes: {chosen.notes}")
    for number, die in enumerate(chosen.dice, start=1):
        click.echo(f"{number:3}  " + " ".join(face or "(blank)" for face in die))
    if chosen.challenge_replaces is not None:
        replaced = " ".join(chosen.challenge_replaces)
        click.echo(f"With the challenge cube ({' '.join(CHALLENGE_CUBE)}), it replaces {replaced}.")


def _dice_json(name: str) -> dict[str, Any]:
    chosen = dice_set(name)
    return {
        "name": chosen.name,
        "title": chosen.title,
        "rows": chosen.rows,
        "cols": chosen.cols,
        "dice": [list(die) for die in chosen.dice],
        "source": chosen.source,
        "notes": chosen.notes,
        "challenge_replaces": list(chosen.challenge_replaces)
        if chosen.challenge_replaces
        else None,
    }


def _parse_teams(text: str | None) -> dict[str, list[str]] | None:
    """``red=ann+bob,blue=cat+dan`` -> {"red": ["ann", "bob"], "blue": ["cat", "dan"]}."""
    if not text:
        return None
    teams: dict[str, list[str]] = {}
    for part in text.split(","):
        name, sep, members = part.partition("=")
        if not sep or not name.strip() or not members.strip():
            _fail(f"--teams: {quoted(part)} must look like red=ann+bob")
        teams[name.strip()] = [m.strip() for m in members.split("+") if m.strip()]
    return teams


def _parse_handicaps(items: Sequence[str]) -> dict[str, int]:
    """``kid=3`` items -> {"kid": 3}."""
    handicaps: dict[str, int] = {}
    for item in items:
        name, sep, value = item.partition("=")
        digits = value.strip()
        if not sep or not name.strip() or not (digits.isascii() and digits.isdigit()):
            _fail(f"--handicap: {quoted(item)} must look like kid=3")
        if len(digits) > 3:  # the rules check the range; this keeps int() cheap
            _fail(f"--handicap: {quoted(item)}: a shortest word length is a small number")
        handicaps[name.strip()] = int(digits)
    return handicaps


#: The options of ``play`` that a challenge's own settings replace: parameter -> option.
_NOT_WITH_A_CHALLENGE = {
    "rules_name": "--rules",
    "seed": "--seed",
    "board_text": "--board",
    "timer": "--timer",
    "practice": "--practice",
    "dictionary_spec": "--dictionary",
    "advanced": "--advanced",
    "duplicates": "--duplicates",
    "min_length": "--min-length",
    "players": "--players",
    "teams_text": "--teams",
    "handicaps": "--handicap",
    "band": "--band",
    "target": "--target",
    "rounds": "--rounds",
    "opponents": "--opponent",
    "no_deck": "--no-deck",
    "family": "--family",
}


def _play_challenge(
    code: str, server: str | None, name: str | None, team: str | None = None
) -> None:
    """``play --challenge CODE``: the challenge read from the server (an error here is exit 2),
    then its next round in the terminal (for ``team`` in a team challenge: one of its teams;
    without it the terminal asks at one's first round)."""
    from .tui import ChallengeApp
    from .tui.remote import ChallengeClient, KeyFile, RemoteError, check_code

    context = click.get_current_context()
    given = [
        option
        for name, option in _NOT_WITH_A_CHALLENGE.items()
        if context.get_parameter_source(name) is click.core.ParameterSource.COMMANDLINE
    ]
    if given:
        _fail(f"--challenge CODE plays by the challenge's own settings: drop {', '.join(given)}")
    try:
        client = ChallengeClient(server or os.environ.get("BIGBOGGLE_SERVER") or DEFAULT_SERVER)
        code = check_code(code)
        keys = KeyFile(KeyFile.default_path())
        kept = keys.seat(client.server, code, name)
        info = client.challenge(code, kept["key"] if kept is not None else None)
    except RemoteError as exc:
        _fail(str(exc))
    if team is not None:
        team = _challenge_team(info, team)
    app = ChallengeApp(client, code, info, player=name, keys=keys, team=team)
    app.run()
    if app.return_code:
        sys.exit(app.return_code)


def _challenge_team(info: dict[str, Any], team: str) -> str:
    """``--team``'s team as the challenge spells it; exit 2 naming the choices when it is
    none of them, or when the challenge has no teams."""
    from .names import clean_name, name_key

    shown = info.get("shown_code") or info.get("code")
    teams = [str(t.get("name")) for t in info.get("teams") or [] if isinstance(t, dict)]
    if not teams:
        _fail(f"--team: challenge {shown} has no teams; drop --team")
    try:
        wanted = name_key(clean_name(team, "--team"))
    except BoggleError as exc:
        _fail(str(exc))
    for name in teams:
        if name_key(name) == wanted:
            return name
    _fail(
        f"--team: {quoted(team, 40)} is not a team of challenge {shown}; "
        f"choose one of {', '.join(teams)}"
    )


def _check_opponents(strengths: Sequence[str]) -> None:
    """Refuse too many ``--opponent`` or a strength that is not one, naming the choices."""
    from .opponents import Opponent

    if len(strengths) > MAX_TERMINAL_OPPONENTS:
        _fail(f"--opponent: {len(strengths)} opponents; the limit is {MAX_TERMINAL_OPPONENTS}")
    for strength in strengths:
        try:
            Opponent.label(strength)
        except BoggleError as exc:
            _fail(f"--opponent: {exc}")


@cli.command("play")
@_rules_option
@click.option(
    "--seed",
    type=click.IntRange(0, MAX_SEED),
    default=None,
    help="Replay the boards of a seed, up to 2**63-1 (default: a fresh one below 2**32).",
)
@click.option(
    "--board", "board_text", default=None, metavar="BOARD", help="Play this board (first round)."
)
@click.option(
    "--timer",
    type=click.FloatRange(min=1, max=3600),
    default=None,
    help="Seconds per round (default: the rules').",
)
@click.option("--practice", is_flag=True, help="No timer: end a round with ctrl+e.")
@_dictionary_option
@click.option(
    "--challenge",
    "challenge_code",
    is_flag=False,
    flag_value="",
    default=None,
    metavar="[CODE]",
    help="Alone: play with the challenge cube. With a CODE (BCDF-2345): play that challenge's "
    "next round on a bigboggle server (--server), judged there, then see its standings.",
)
@click.option(
    "--server",
    default=None,
    metavar="URL",
    help=f"With --challenge CODE: the server (default: $BIGBOGGLE_SERVER, else {DEFAULT_SERVER}).",
)
@click.option(
    "--name", "player_name", default=None, metavar="NAME", help="With --challenge CODE: your name."
)
@click.option(
    "--team",
    "team_name",
    default=None,
    metavar="NAME",
    help="With --challenge CODE, in a team challenge: your team (asked for if not given; "
    "fixed after your first round).",
)
@click.option("--advanced", is_flag=True, help="Advanced play: words of 5+ letters.")
@click.option(
    "--duplicates",
    type=click.Choice(["cancel", "keep"]),
    default=None,
    help="Table mode: cross off words two players found (cancel, the rule) or keep them.",
)
@click.option("--min-length", type=int, default=None, help="Shortest word for everyone.")
@click.option(
    "--players", default=None, metavar="ANN,BOB", help="Table mode: the players at the table."
)
@click.option(
    "--teams", "teams_text", default=None, metavar="RED=ANN+BOB,…", help="Team play (table mode)."
)
@click.option(
    "--handicap",
    "handicaps",
    multiple=True,
    metavar="NAME=N",
    help="A player's own minimum length, e.g. kid=3.",
)
@_band_option
@click.option(
    "--target",
    type=click.IntRange(min=1),
    default=None,
    help="Table mode: play until someone has this many points.",
)
@click.option(
    "--rounds", type=click.IntRange(min=1), default=None, help="Table mode: play this many rounds."
)
@click.option(
    "--opponent",
    "opponents",
    multiple=True,
    metavar="STRENGTH",
    help="A computer opponent (repeatable): beginner, casual, club, expert or solver. Solo: "
    "its words arrive on the clock and are crossed off against yours; at a table (--players) "
    "it writes its list like a player.",
)
@click.option(
    "--no-deck",
    is_flag=True,
    help="Solo: leave the trainer's deck alone (by default a round's missed words join it, "
    "for bigboggle train).",
)
@_family_option
@_show_offensive_option
def play_command(
    rules_name: str,
    seed: int | None,
    board_text: str | None,
    timer: float | None,
    practice: bool,
    dictionary_spec: str | None,
    challenge_code: str | None,
    server: str | None,
    player_name: str | None,
    team_name: str | None,
    advanced: bool,
    duplicates: str | None,
    min_length: int | None,
    players: str | None,
    teams_text: str | None,
    handicaps: Sequence[str],
    band: str | None,
    target: int | None,
    rounds: int | None,
    opponents: Sequence[str],
    no_deck: bool,
    family: bool | None,
    show_offensive: bool,
) -> None:
    """Play Big Boggle in the terminal: solo, or as the tray for a real table (--players).

    With --opponent, computer opponents play too (their lists are drawn from the round's
    seed: --seed replays them); in a practice round they play a round of the rules' timer.

    \b
    Examples:
      bigboggle play
      bigboggle play --rules classic --seed 42 --timer 120
      bigboggle play --practice --board LINES/TQARD/HEMOP/ABCKI/PSTEW
      bigboggle play --band rich
      bigboggle play --opponent club --opponent expert --seed 7
      bigboggle play --challenge BCDF-2345 --server https://boggle.example --name ann
      bigboggle play --challenge BCDF-2345 --name ann --team red
      bigboggle play --players ann,bob,kid --handicap kid=3 --target 50
      bigboggle play --players ann,bob,cat,dan --teams red=ann+bob,blue=cat+dan
    """
    if challenge_code:
        _play_challenge(challenge_code, server, player_name, team_name)
        return
    if server is not None or player_name is not None or team_name is not None:
        _fail("--server, --name and --team are for a challenge: add --challenge CODE")
    rules = _load_rules(
        rules_name,
        challenge=challenge_code is not None or None,
        advanced=advanced or None,
        duplicates=duplicates,
        min_length=min_length,
        family=family,
    )
    try:
        board = Board.parse(board_text) if board_text is not None else None
        names = tuple(name.strip() for name in players.split(",")) if players else ()
        if len(names) > MAX_PLAYERS:
            _fail(f"--players: {len(names)} players; the limit is {MAX_PLAYERS}")
        if (target or rounds) and not names:
            _fail("--target and --rounds are for table mode: add --players")
        _check_opponents(opponents)
        from .trainer import default_deck_path
        from .tui import BoggleApp, PlaySettings

        words = _load_dictionary(dictionary_spec, rules)
        if band is not None and board is not None:
            _fail("--band shakes boards to order; it does not go with --board")
        settings = PlaySettings(
            rules=rules,
            words=words,
            band=_parse_band(band, rules, words) if band is not None else None,
            seed=seed,
            board=board,
            timer=timer,
            practice=practice,
            players=names,
            teams=_parse_teams(teams_text),
            min_length=_parse_handicaps(handicaps),
            target=target,
            rounds=rounds,
            show_offensive=show_offensive,
            opponents=tuple(opponents),
            deck=None if names or no_deck else default_deck_path(),
        )
    except BoggleError as exc:
        _fail(str(exc))
    app = BoggleApp(settings)
    app.run()
    if app.return_code:
        sys.exit(app.return_code)


def _check_port(host: str, port: int) -> None:
    """Refuse a port the server could not listen on (taken, or a host not of this machine),
    before anything starts or any "Open http://..." is printed: the socket is bound as uvicorn
    binds it (``SO_REUSEADDR``), then closed for uvicorn to take."""
    import errno
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family, socket.SOCK_STREAM) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except (UnicodeError, ValueError, TypeError) as exc:  # no resolver takes it (a NUL, ...)
        _fail(f"cannot listen on --host {quoted(host)}: {exc}")
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            other = port + 1 if 0 < port < 65535 else 8080
            _fail(
                f"port {port} on {host} is in use: another program is listening there "
                f"(try --port {other})"
            )
        reason = exc.strerror or str(exc)
        _fail(f"cannot listen on --host {quoted(host)} --port {port}: {reason}")


@cli.command(
    "serve",
    short_help="Run the web app: solver, scorekeeper, solo and daily play, multiplayer rooms.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on (0.0.0.0: every network of this machine).",
)
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8000,
    show_default=True,
    help="Port to listen on; refused at once if another program has it.",
)
@click.option(
    "--db",
    "db_url",
    default=None,
    metavar="URL",
    help="SQLAlchemy database URL (default: a SQLite file in your data directory).",
)
@click.option(
    "--word-list",
    "word_lists",
    multiple=True,
    metavar="NAME=PATH",
    help="Offer a word list file as dictionary NAME (repeatable).",
)
@click.option(
    "--redis",
    "redis_url",
    default=None,
    metavar="URL",
    help="Share multiplayer rooms with other server processes through Redis (redis://host:6379/0).",
)
@click.option(
    "--workers",
    type=click.IntRange(1, 64),
    default=1,
    show_default=True,
    help="Server processes sharing the port (and the database).",
)
@click.option("--log-level", default="info", show_default=True, help="uvicorn's log level.")
@click.option(
    "--trust-proxy",
    "trust_proxy",
    is_flag=False,
    flag_value="127.0.0.1",
    default=None,
    metavar="IPS",
    help="Behind a reverse proxy: trust X-Forwarded-For/-Proto from these addresses "
    "(comma-separated; '--trust-proxy' alone: 127.0.0.1). Off by default: a client's address "
    "(for per-address limits) is its socket's.",
)
def serve_command(
    host: str,
    port: int,
    db_url: str | None,
    word_lists: Sequence[str],
    redis_url: str | None,
    workers: int,
    log_level: str,
    trust_proxy: str | None,
) -> None:
    """Run the web app in your browser: play Big Boggle alone or together.

    \b
    It offers:
      - multiplayer rooms: create one, share its link, play rounds on one
        board in real time with crossing off, teams and running totals
      - solo play with a timer, and the daily board with its leaderboard
      - the solver: every word of a board, with its path
      - the scorekeeper: score the lists of a game played with the real box,
        round after round, as a tournament
      - the JSON API (/api/solve, /api/score, /api/shake) and its docs at /api/docs

    Open the address it prints in a browser. Games, tournaments and rooms are kept in the
    database (--db: SQLite in your data directory by default, or PostgreSQL), so nothing is
    lost when the server stops; --redis shares rooms between server processes (--workers).

    \b
    Examples:
      bigboggle serve
      bigboggle serve --port 8080 --db sqlite:///boggle.sqlite3
      bigboggle serve --host 0.0.0.0 --db postgresql+psycopg://boggle@localhost/boggle \\
                      --redis redis://localhost:6379/0 --workers 4
      bigboggle serve --word-list enable=~/lists/enable2k.txt
      bigboggle serve --trust-proxy 10.0.0.2    # behind a reverse proxy at 10.0.0.2

    Limits (body and header sizes, timeouts, worker processes, WebSocket message sizes…)
    come from BIGBOGGLE_LIMIT_* variables: see the README's "Limits and protections".
    Behind a reverse proxy that changes the host or the scheme, set
    BIGBOGGLE_PUBLIC_ORIGIN=https://your.site for passkeys (the address browsers see).
    """
    try:
        import uvicorn

        from .web import create_app
        from .web.app import uvicorn_settings
        from .web.middleware import configure_access_log
    except ImportError as exc:  # pragma: no cover - the web extras are core dependencies
        _fail(f"the web app needs {exc.name}: pip install bigboggle")
    try:
        limits = ServerLimits.from_environment()
    except ValueError as exc:
        _fail(str(exc))
    if trust_proxy is not None and not trust_proxy.strip():
        _fail("--trust-proxy: give the proxies' addresses, like 127.0.0.1 or 10.0.0.2,10.0.0.3")
    _check_port(host, port)
    settings = uvicorn_settings(limits, trust_proxy)
    extra: dict[str, str] = {}
    for item in word_lists:
        name, sep, path = item.partition("=")
        if not sep or not name or not path:
            _fail(f"--word-list {item!r}: give NAME=PATH, like enable=enable2k.txt")
        extra[name] = os.path.expanduser(path)
    try:
        app = create_app(db_url, dictionaries=extra, redis=redis_url, limits=limits)
    except BoggleError as exc:
        _fail(str(exc))
    except ValueError as exc:  # redis' own check of its URL
        _fail(f"--redis {redis_url!r}: {exc}")
    if workers > 1 and redis_url is None:
        _fail("--workers above 1 needs --redis: rooms' players may land on different workers")
    store = app.state.services.store
    click.echo(f"bigboggle {__version__}: database {store.shown_url}")
    click.echo(f"Open http://{'localhost' if host in ('127.0.0.1', '0.0.0.0') else host}:{port}/")
    configure_access_log()
    if workers == 1:
        uvicorn.run(app, host=host, port=port, log_level=log_level, **settings)
        return
    # Each worker builds its own app from the environment; the schema is already up to date.
    os.environ["BIGBOGGLE_DB"] = store.url
    os.environ["BIGBOGGLE_WORD_LISTS"] = json.dumps(extra)
    os.environ["BIGBOGGLE_REDIS"] = redis_url or ""
    store.close()
    uvicorn.run(
        "bigboggle.web.app:app_from_environment",
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level=log_level,
        **settings,
    )


@cli.command("train")
@click.argument("words", nargs=-1, metavar="[WORD]...")
@click.option(
    "--add",
    is_flag=True,
    help="Add the WORDs to the deck as missed words (each must be in the dictionary), "
    "instead of opening the trainer.",
)
@click.option(
    "--deck",
    "deck_path",
    default=None,
    metavar="FILE",
    help="The deck file. Default: trainer-deck.json in your data directory "
    "(BIGBOGGLE_TRAINER_DECK overrides it).",
)
@_dictionary_option
def train_command(
    words: tuple[str, ...], add: bool, deck_path: str | None, dictionary_spec: str | None
) -> None:
    """Drill the words you missed: on a piece of a board, or as an anagram.

    The words your solo rounds in the terminal missed (the common ones, the highest-scoring
    first) go into a deck; each comes back on a spaced-repetition schedule: soon if you miss it
    again, later and later as you find it quickly. At most 20 new words start a day.

    \b
    Examples:
      bigboggle train
      bigboggle train --add stone quiet
      bigboggle train --deck my-deck.json
    """
    from .trainer import DeckFile, default_deck_path, is_trainable

    deck_file = DeckFile(deck_path if deck_path is not None else default_deck_path())
    dictionary = _load_dictionary(dictionary_spec, Rules.preset("big"))
    if not add:
        if words:
            _fail("WORDs are added with --add; without it, bigboggle train opens the trainer")
        try:
            deck_file.load()
        except BoggleError as exc:
            _fail(str(exc))
        from .tui.trainer import TrainerApp

        TrainerApp(deck_file, dictionary).run()
        return
    if not words:
        _fail("--add needs the words to add: bigboggle train --add WORD...")
    wanted = [word.strip().lower() for word in words]
    unknown = [word for word in wanted if not is_trainable(word) or word not in dictionary]
    if unknown:
        _fail(f"not a word of the {dictionary.name} dictionary: {', '.join(map(quoted, unknown))}")
    try:
        added = deck_file.add_missed(*wanted)
        total = len(deck_file.load())
    except BoggleError as exc:
        _fail(str(exc))
    except OSError as exc:  # a folder that cannot be made, a file that cannot be written
        _fail(f"cannot save the deck {str(deck_file.path)!r}: {exc.strerror or exc}")
    click.echo(
        f"Added {_plural(added, 'new word')} to {deck_file.path} "
        f"({_plural(total, 'word')} in the deck)."
    )


@cli.command("info")
@_json_option
def info_command(as_json: bool) -> None:
    """Show the version, the solver core in use and where dictionaries are cached.

    \b
    Examples:
      bigboggle info
      BIGBOGGLE_PURE_PYTHON=1 bigboggle info --json
    """
    data = {
        "version": __version__,
        "solver": implementation.name(),
        "compiled_core_available": implementation.compiled_available(),
        "cache_dir": str(cache.cache_dir()),
        "dictionaries": {
            name: f"SCOWL levels <= {level}" for name, level in BUILTIN_LEVELS.items()
        },
    }
    if as_json:
        _print_json(data)
        return
    click.echo(f"bigboggle {__version__}")
    solver = "compiled (C)" if implementation.name() == "c" else "pure Python (reference)"
    click.echo(f"solver core       {solver}")
    if not implementation.compiled_available():
        click.echo("                  the compiled core is not built: reinstall with a C compiler")
    elif implementation.name() == "python":
        click.echo("                  BIGBOGGLE_PURE_PYTHON is set, so the reference runs")
    click.echo(f"dictionary cache  {data['cache_dir']}")
    names = ", ".join(f"{name} (levels <= {level})" for name, level in BUILTIN_LEVELS.items())
    click.echo(f"dictionaries      {names}")


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``bigboggle`` script."""
    try:
        cli.main(args=list(argv) if argv is not None else None, prog_name="bigboggle")
    except BrokenPipeError:  # e.g. `bigboggle solve … | head`
        sys.stderr.close()
        sys.exit(0)

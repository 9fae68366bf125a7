"""CPU work as plain functions of plain data, so that it can run in a worker process.

A job names its dictionary by the shelf's :attr:`~bigboggle.services.shelf.DictionaryShelf.spec` and a
name instead of carrying the word list itself: :func:`words` loads each dictionary once per
process (from the packed cache) and keeps it. Run through :func:`bigboggle.services.compute.run_here`
the jobs work in the calling process just the same.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ..analysis import Band, Standing, parse_band, shake_in_band, standing_of
from ..board import Board
from ..dice import shake
from ..dictionary import Dictionary
from ..errors import RoundInputError
from ..opponents import Opponent
from ..round_input import load_json, parse_round_request
from ..rules import Rules
from ..scoring import score_round
from ..solver import Solution, solve, tally_many
from .shelf import DictionaryShelf

ShelfSpec = tuple[tuple[str, str], ...]

_shelves: dict[ShelfSpec, DictionaryShelf] = {}
_lock = threading.Lock()


def exit_with_parent() -> None:
    """A worker process's initializer: end this process when the process that started it
    ends, even by ``kill -9`` (a pool's workers otherwise wait for work forever, and keep
    their fork server alive too)."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(0)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


#: How much lower than the server a worker process runs (``nice``): when solving fills every
#: core, the server's event loop (pages, pings, verdicts) still gets the CPU first.
WORKER_NICENESS = 10


def start_worker() -> None:
    """A worker process's initializer: lower its priority below the server's, and end it with
    the server (see :func:`exit_with_parent`)."""
    with contextlib.suppress(OSError):  # a platform without nice: run at the same priority
        os.nice(WORKER_NICENESS)
    exit_with_parent()


def words(spec: ShelfSpec, name: str) -> Dictionary:
    """Dictionary ``name`` of the shelf that ``spec`` describes, loaded once per process."""
    with _lock:
        shelf = _shelves.get(spec)
        if shelf is None:
            if len(_shelves) >= 8:  # a process serves one shelf; tests make a few
                _shelves.clear()
            shelf = _shelves[spec] = DictionaryShelf.from_spec(spec)
    return shelf.get(name)


# -- the jobs --------------------------------------------------------------------------------------


def rules_with(name: Any, options: Mapping[str, Any] | None = None) -> Rules:
    """Preset ``name`` with round ``options``: :meth:`Rules.preset` refuses an unknown option
    with the one options error (:func:`bigboggle.rules.check_options`), and takes ``name``
    positionally, so an option called ``name`` is unknown rather than a clash."""
    return Rules.preset(name, **dict(options or {}))


def solve_board(
    spec: ShelfSpec,
    board: str,
    rules: str,
    dictionary: str | None,
    min_length: int | None,
    family: bool = False,
) -> dict[str, Any]:
    """The JSON of ``bigboggle solve --json``, with where the board stands among shakes;
    ``family`` leaves offensive words out (and says how many in ``offensive_omitted``)."""
    shown, extra = _solved(spec, board, rules, dictionary, min_length, family)
    return {**shown.to_json(), **extra}


def read_board_json(photo: bytes, rules: str, use_dice: bool, challenge: bool = False) -> bytes:
    """A photo of the tray read as a board (:func:`bigboggle.photo.reader.read_board`): the
    JSON of ``bigboggle read --json``, made in the worker (decoding, finding the grid and
    reading 16-36 cubes is CPU work of some tenths of a second)."""
    from ..photo.reader import read_board  # the camera extra: loaded by the first photo

    ruleset = Rules.preset(rules, challenge=challenge or None)
    return orjson.dumps(
        {"rules": ruleset.name, **read_board(photo, ruleset, use_dice=use_dice).to_json()}
    )


def solve_board_json(
    spec: ShelfSpec,
    board: str,
    rules: str,
    dictionary: str | None,
    min_length: int | None,
    family: bool = False,
) -> bytes:
    """:func:`solve_board`'s JSON, encoded here in the worker straight from the found words
    (:meth:`Solution.json_bytes`): the answer crosses to the server as one bytes object
    rather than hundreds of dicts to pickle, and the event loop has nothing left to encode."""
    shown, extra = _solved(spec, board, rules, dictionary, min_length, family)
    return shown.json_bytes(extra)


def _solved(
    spec: ShelfSpec,
    board: str,
    rules: str,
    dictionary: str | None,
    min_length: int | None,
    family: bool,
) -> tuple[Solution, dict[str, Any]]:
    """The solution to show and the keys that follow its own in the answer."""
    ruleset = Rules.preset(rules)
    found = words(spec, dictionary or ruleset.dictionary)
    solution = solve(board, found, ruleset, min_length=min_length)
    shown = solution.without_offensive() if family else solution
    extra: dict[str, Any] = {}
    if family:
        extra["offensive_omitted"] = solution.count - shown.count
    place = standing_of(solution, found)
    if place is not None:
        extra["standing"] = {**place.to_json(), "text": place.describe()}
    return shown, extra


def board_points(
    spec: ShelfSpec, board: str, rules: str, options: Mapping[str, Any] | None, dictionary: str
) -> int:
    """The board's points under ``rules`` with ``options`` (what a solo game's meter measures
    against): its solution's total, as the game's judge and its scoring count it (under the
    family filter, without the offensive words no one can score)."""
    ruleset = rules_with(rules, options)
    solution = solve(board, words(spec, dictionary), ruleset)
    return (solution.without_offensive() if ruleset.family else solution).total_score


def score_paper_round(spec: ShelfSpec, request: Any) -> dict[str, Any]:
    """The JSON of ``bigboggle score --json`` for the JSON of ``bigboggle score`` (with
    optional ``rules``, ``dictionary`` and ``options``)."""
    asked = parse_round_request(request)
    if asked.board is None:
        raise RoundInputError("board: missing; give the round's board")
    ruleset = rules_with(asked.rules or "big", asked.options)
    found = words(spec, asked.dictionary or ruleset.dictionary)
    result = score_round(
        asked.board, asked.players, ruleset, found, teams=asked.teams, min_length=asked.min_length
    )
    return result.to_json()


def score_paper_round_text(spec: ShelfSpec, text: str) -> bytes:
    """:func:`score_paper_round` from the request's JSON text, answered as JSON bytes: parsing a
    megabyte of lists and writing its verdicts back are the heavy parts of a round, so both
    happen here, in the worker, and the server only passes text in and bytes out."""
    return orjson.dumps(score_paper_round(spec, load_json(text, "the body")))


def band_seed(
    spec: ShelfSpec,
    rules: str,
    options: Mapping[str, Any] | None,
    dictionary: str | None,
    band: str,
    seed: int,
) -> int:
    """The first seed from ``seed`` on whose shake falls in ``band`` (easy, normal, rich,
    300-500, words:100-200); :class:`RulesError` when none does within 2,000 shakes."""
    ruleset = Rules.preset(rules, **dict(options or {}))
    found = words(spec, dictionary or ruleset.dictionary)
    wanted = parse_band(band, ruleset, found)
    _dealt, used = shake_in_band(ruleset, found, wanted, seed=seed, tries=2000)
    return used


def seed_in_band(
    spec: ShelfSpec,
    rules: str,
    options: Mapping[str, Any] | None,
    dictionary: str,
    band: Band,
    seed: int,
) -> int:
    """The first seed from ``seed`` on whose shake falls in ``band`` (a :class:`Band` already
    made); :class:`RulesError` when none does within 2,000 shakes."""
    ruleset = rules_with(rules, options)
    _dealt, used = shake_in_band(ruleset, words(spec, dictionary), band, seed=seed, tries=2000)
    return used


def band_shake(
    spec: ShelfSpec, rules: str, challenge: bool, dictionary: str | None, band: str, seed: int
) -> dict[str, Any]:
    """The JSON of ``bigboggle shake --json`` for the first shake in ``band`` from ``seed`` on."""
    ruleset = Rules.preset(rules, challenge=challenge or None)
    used = band_seed(spec, rules, {"challenge": challenge or None}, dictionary, band, seed)
    dealt = shake(ruleset.dice, used, challenge=ruleset.challenge)
    return dealt.to_json(ruleset.name, used)


def solve_with_standing(
    spec: ShelfSpec, board: str, rules: str, dictionary: str | None, min_length: int | None
) -> tuple[Solution, Standing | None]:
    """The solution itself (for the solver page) and where the board stands among shakes."""
    ruleset = Rules.preset(rules)
    found = words(spec, dictionary or ruleset.dictionary)
    solution = solve(board, found, ruleset, min_length=min_length)
    return solution, standing_of(solution, found)


def board_tally(
    spec: ShelfSpec, board: str, rules: str, dictionary: str, min_length: int
) -> tuple[str, int, int]:
    """The board's canonical text, its points and its words under preset ``rules`` with
    ``dictionary`` and words of ``min_length``+ letters (where it stands in the atlas): the
    solver's tally, with no paths built."""
    parsed = Board.parse(board)
    ruleset = Rules.preset(rules)
    [(points, count)] = tally_many(
        [parsed], words(spec, dictionary), ruleset, min_length=min_length
    )
    return str(parsed), points, count


def opponent_entries(
    spec: ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    board: str,
    strength: str,
    seed: int,
    seconds: float,
) -> list[tuple[float, str]]:
    """The timed entries a computer opponent of ``strength`` writes on ``board`` in a round of
    ``seconds`` (:meth:`bigboggle.opponents.Opponent.play`): solving the board is CPU work."""
    ruleset = rules_with(rules, options)
    return Opponent(strength, seed).play(board, words(spec, dictionary), ruleset, seconds)


def opponents_entries(
    spec: ShelfSpec,
    dictionary: str,
    rules: str,
    options: Mapping[str, Any] | None,
    board: str,
    seats: Sequence[tuple[str, int]],
    seconds: float,
) -> list[list[tuple[float, str]]]:
    """:func:`opponent_entries` for several opponents (``(strength, seed)`` each) on one board,
    which is solved once for all of them: one job, not one solve per opponent."""
    ruleset = rules_with(rules, options)
    found = words(spec, dictionary)
    solution = solve(Board.parse(board), found, ruleset)
    return [
        Opponent(strength, seed).play_solution(solution, found, ruleset, seconds)
        for strength, seed in seats
    ]

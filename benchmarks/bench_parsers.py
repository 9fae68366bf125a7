"""How much CPU a hostile input costs the library's parsers before it is refused (or read).

Each case is a document a stranger could send (to ``POST /api/score``, a tournament round or
``bigboggle score``): the CPU time of the whole path the server takes before deep work
(``load_json`` then ``parse_round_request``, or ``Board.parse``), median and worst of N runs,
and what came of it. The issue's target: a 1 MB hostile body is refused (or answered) in at most
50 ms of CPU. Not a test: nothing here asserts a time.

    python benchmarks/bench_parsers.py            # 15 runs of each case
    python benchmarks/bench_parsers.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

from bigboggle import Board, Dictionary, Rules
from bigboggle.analysis import parse_band
from bigboggle.errors import BoggleError
from bigboggle.round_input import load_json, parse_round_request

MB = 1_000_000


def _round(text: str) -> Callable[[], Any]:
    return lambda: parse_round_request(load_json(text, "the body"))


def _pad_to(prefix: str, unit: str, suffix: str, size: int = MB) -> str:
    """``prefix`` + as many ``unit`` as fit + ``suffix``: about ``size`` characters."""
    return prefix + unit * ((size - len(prefix) - len(suffix)) // len(unit)) + suffix


def _players(count: int, entries: int, entry: str) -> str:
    return json.dumps({"players": {f"p{i}": [entry] * entries for i in range(count)}})


def cases() -> list[tuple[str, str, Callable[[], Any]]]:
    """(name, the input, the call) for every hostile input measured."""
    words = Dictionary.from_words(["lines", "mare"])
    rules = Rules.preset("big")
    board_1mb = "A" * MB
    board_100k = "LINES/" * (100_000 // 6)
    board_800 = ("ABCDEFGHIJKL/" * 62)[:799] + "1"
    deep_lists = "[" * MB
    deep_objects = _pad_to("", '{"a":', "")
    board_in_json = json.dumps({"board": "A" * (MB - 40), "players": {"ann": []}})
    junk_100x2000 = _players(100, 2000, "#junk!")
    junk_1mb = _players(100, 1000, "#j!")
    long_entries = json.dumps({"players": {"ann": ["a" * 100_000] * 10}})
    many_members = _pad_to('{"players": {"ann": []}, "teams": {"red": [', '"ann",', '"ann"]}}')
    many_keys = json.dumps(
        {"players": {"ann": []}, "min_length": {f"k{i}": 3 for i in range(90_000)}}
    )
    number_list = _pad_to('{"players": {"ann": []}, "teams": {"red": [[', "1,", "1]]}}")
    huge_numbers = _pad_to(
        '{"players": {"ann": []}, "options": {"timer": [', "9" * 4000 + ",", "1]}}"
    )
    many_players = json.dumps({"players": {f"player number {i}": [] for i in range(40_000)}})
    cyrillic = json.dumps({"players": {"ann": [], "\u0430nn": []}})
    crowded_teams = json.dumps(
        {
            "players": {f"p{i}": [] for i in range(100)},
            "teams": {f"t{j}": [f"P{i}" for i in range(100)] for j in range(100)},
        }
    )
    return [
        ("Board.parse, 100,000 characters", board_100k, lambda: Board.parse(board_100k)),
        ("Board.parse, 1 MB", board_1mb, lambda: Board.parse(board_1mb)),
        ("Board.parse, 800 characters, bad last", board_800, lambda: Board.parse(board_800)),
        ("round: 1 MB board text", board_in_json, _round(board_in_json)),
        ("round: 1 MB of nested [", deep_lists, _round(deep_lists)),
        ('round: 1 MB of nested {"a":', deep_objects, _round(deep_objects)),
        ("round: 100 players x 2000 junk", junk_100x2000, _round(junk_100x2000)),
        ("round: 100 players x 1000 junk (1 MB)", junk_1mb, _round(junk_1mb)),
        ("round: 10 entries of 100k chars", long_entries, _round(long_entries)),
        ("round: 40,000 players", many_players, _round(many_players)),
        ("round: 1 MB of team members", many_members, _round(many_members)),
        ("round: 90,000 handicap keys", many_keys, _round(many_keys)),
        ("round: 1 MB list of numbers as a name", number_list, _round(number_list)),
        ("round: 4000-digit numbers (1 MB)", huge_numbers, _round(huge_numbers)),
        ("round: Cyrillic look-alike name", cyrillic, _round(cyrillic)),
        ("round: 100 teams x 100 members", crowded_teams, _round(crowded_teams)),
        ("parse_band, 1 MB", board_1mb, lambda: parse_band("1" * MB, rules, words)),
        ("Dictionary.load, 1 MB name", board_1mb, lambda: Dictionary.load("x" * MB)),
    ]


def measure(call: Callable[[], Any], runs: int) -> tuple[list[float], str]:
    """CPU seconds of each run, and what came of the call (refused with which message)."""
    times = []
    outcome = ""
    for _ in range(runs):
        start = time.process_time()
        try:
            call()
            outcome = "read"
        except BoggleError as exc:
            outcome = f"refused ({len(str(exc))} chars): {str(exc)[:70]}"
        times.append(time.process_time() - start)
    return times, outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each case (median taken)")
    runs = parser.parse_args().runs
    print(f"{'case':<40} {'input':>10} {'median ms':>10} {'max ms':>8}  outcome")
    for name, text, call in cases():
        times, outcome = measure(call, runs)
        median = statistics.median(times) * 1000
        worst = max(times) * 1000
        print(f"{name:<40} {len(text):>10,} {median:>10.2f} {worst:>8.2f}  {outcome}")


if __name__ == "__main__":
    main()

"""bigboggle side by side with danvk/hybrid-boggle's C++ ``Boggler``, the fastest published solver.

The peer is danvk's pybind11 module ``cpp_boggle``, built by hand from danvk/hybrid-boggle's
source as its README says; nothing of it is in this repository. ``--peer DIR`` names the
directory that holds the built module; without it the benchmark prints bigboggle's own figures.
Run from the checkout::

    python benchmarks/bench_peer.py                          # bigboggle alone
    python benchmarks/bench_peer.py --peer /tmp/peer         # the ratio table (a couple of minutes)
    python benchmarks/bench_peer.py --peer /tmp/peer --anchor  # also danvk's 1,000,000-board 4x4 run

Both solvers get identical boards, ENABLE2K and 3+ letters with classic scoring (3-4 letters 1,
5: 2, 6: 3, 7: 5, 8+: 11; the Qu cube counts two letters), the scores danvk's ``kWordScores``
give. Before anything is timed, both must give the same score on every board (and the same
number of words on every solved board): the first board that differs stops the run, named.

Board sets: 5x5 Big Boggle dice shaken with seeds 0, 1, 2, ...; 4x4 boards of uniform random
letters a-z drawn as danvk's ``boggle.perf`` draws them (``q`` is the Qu face in both solvers);
6x6 Super Big Boggle dice (with their two-letter faces and blanks: bigboggle alone).

Timing: every figure is taken ``--repeat`` times in interleaved rounds (each round runs every
measurement once, bigboggle and the peer back to back), as per-thread CPU time
(``time.thread_time``) so the other work on a shared machine costs as little as it can; the
table shows medians. ``threads=2 vs 1`` is the one wall-clock figure (CPU time of one thread
cannot see the second). Ratios are bigboggle's speed over the peer's: above 1 is faster.

ENABLE2K is looked for at ../shared/wordlists/enable2k.txt (or $BIGBOGGLE_ENABLE2K).
"""

from __future__ import annotations

import argparse
import importlib
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from bigboggle import Board, Dictionary, Rules, implementation, score, score_many, shake, solve

ROOT = Path(__file__).resolve().parents[1]
ANCHOR_SEED = 808813  # danvk's `python -m boggle.perf --size 44 1000000 --random_seed 808813`
ANCHOR_BOARDS = 1_000_000
ANCHOR_TOTAL = 41_134_010


def enable2k() -> Path:
    """The ENABLE2K word list beside the checkout (or where $BIGBOGGLE_ENABLE2K says)."""
    return Path(os.environ.get("BIGBOGGLE_ENABLE2K", ROOT.parent / "shared/wordlists/enable2k.txt"))


def load_peer(directory: str) -> ModuleType:
    """danvk's ``cpp_boggle`` from ``directory``, or exit saying what is missing."""
    folder = Path(directory)
    if not folder.is_dir():
        sys.exit(f"--peer {directory!r} is not a directory")
    if not any(folder.glob("cpp_boggle*.so")) and not any(folder.glob("cpp_boggle*.pyd")):
        sys.exit(
            f"--peer {directory!r} holds no cpp_boggle module (cpp_boggle*.so); build it from "
            "danvk/hybrid-boggle's source as its README says and pass the folder that holds it"
        )
    sys.path.insert(0, str(folder))
    try:
        return importlib.import_module("cpp_boggle")
    except ImportError as error:
        sys.exit(f"cpp_boggle in {directory!r} does not import: {error}")


# -- boards --------------------------------------------------------------------------------


@dataclass(frozen=True)
class BoardSet:
    """The same boards three ways: parsed, as bigboggle text, as danvk's one-letter-a-cell text."""

    label: str
    boards: list[Board]
    texts: list[str]
    peer_texts: list[str]


def peer_text(board: Board) -> str:
    """danvk's spelling of a board: one letter a cell, row by row, ``q`` for the Qu face."""
    letters = ["q" if face == "qu" else face for face in board.cell_letters]
    if any(len(face) != 1 for face in letters):
        raise ValueError(f"board {str(board)!r} has a face danvk's solver cannot hold")
    return "".join(letters)


def dice_boards(dice: str, count: int) -> BoardSet:
    """``count`` boards shaken from a preset's dice with seeds 0, 1, 2, ..."""
    boards = [shake(dice, seed).board for seed in range(count)]
    texts = [str(board) for board in boards]
    peers = [peer_text(board) for board in boards] if dice != "superbig" else []
    return BoardSet(f"{boards[0].rows}x{boards[0].cols} {dice} dice", boards, texts, peers)


def uniform_texts(count: int, side: int, rng: random.Random) -> list[str]:
    """danvk's random boards: each cell a uniform letter a-z (``boggle.perf.random_board``)."""
    return [
        "".join(chr(ord("a") + rng.randint(0, 25)) for _ in range(side * side))
        for _ in range(count)
    ]


def uniform_board(flat: str, side: int) -> Board:
    """A one-letter-a-cell text (``q`` the Qu face) as a bigboggle board.

    Built from its faces, not parsed from the text: in bigboggle's notation ``qu`` reads as one
    Qu face, while danvk's ``qu`` is a Qu face beside a U.
    """
    faces = ["Qu" if letter == "q" else letter for letter in flat]
    return Board.from_faces([faces[i : i + side] for i in range(0, len(faces), side)])


def uniform_boards(count: int, seed: int) -> BoardSet:
    peers = uniform_texts(count, 4, random.Random(seed))
    boards = [uniform_board(flat, 4) for flat in peers]
    return BoardSet("4x4 uniform letters", boards, [str(b) for b in boards], peers)


def head(boards: BoardSet, count: int) -> BoardSet:
    """The first ``count`` boards of a set."""
    return BoardSet(
        boards.label, boards.boards[:count], boards.texts[:count], boards.peer_texts[:count]
    )


# -- measuring -----------------------------------------------------------------------------


def cpu(action: Callable[[], object]) -> float:
    """Seconds of this thread's CPU time that ``action`` takes."""
    started = time.thread_time()
    action()
    return time.thread_time() - started


def wall(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


@dataclass
class Row:
    """One line of the table: per-round figures of bigboggle and of the peer.

    ``unit`` is what a figure counts: ``"/s"`` (items per second: higher is faster) or ``"ms"``
    (a duration: lower is faster). The ratio is always bigboggle's speed over the peer's.
    """

    label: str
    unit: str
    ours: list[float] = field(default_factory=list)
    theirs: list[float] = field(default_factory=list)
    note: str = ""

    def ratio(self) -> float | None:
        if not self.ours or not self.theirs:
            return None
        mine, peer = statistics.median(self.ours), statistics.median(self.theirs)
        return mine / peer if self.unit == "/s" else peer / mine


@dataclass
class Setup:
    """What every measurement shares."""

    words: Dictionary
    rules: dict[int, Rules]
    peer: ModuleType | None
    peer_trie: Any  # held here: danvk's Bogglers keep a raw pointer to it
    bogglers: dict[int, Any]


def rules_for(side: int) -> Rules:
    preset = {4: "classic", 5: "big", 6: "superbig"}[side]
    return Rules.preset(preset, min_length=3, scoring="classic")


def check_scores(setup: Setup, boards: BoardSet) -> None:
    """Stop at the first board on which bigboggle and the peer disagree."""
    side = boards.boards[0].rows
    ours = score_many(boards.boards, setup.words, setup.rules[side])
    from_texts = score_many(boards.texts, setup.words, setup.rules[side])
    if ours != from_texts:
        first = next(i for i, (a, b) in enumerate(zip(ours, from_texts, strict=True)) if a != b)
        sys.exit(
            f"{boards.label}: bigboggle scores board {first} ({boards.texts[first]!r}) "
            f"{ours[first]} parsed but {from_texts[first]} from its text"
        )
    if setup.peer is None or not boards.peer_texts:
        return
    boggler = setup.bogglers[side]
    for i, (mine, text) in enumerate(zip(ours, boards.peer_texts, strict=True)):
        theirs = boggler.score(text)
        if mine != theirs:
            sys.exit(
                f"{boards.label}: board {i} ({boards.texts[i]!r}) scores {mine} in bigboggle "
                f"and {theirs} in danvk's Boggler: the solvers disagree, nothing is timed"
            )


def check_words(setup: Setup, boards: BoardSet) -> None:
    """Stop at the first solved board on which the two find a different number of words."""
    if setup.peer is None:
        return
    side = boards.boards[0].rows
    boggler = setup.bogglers[side]
    for i, (board, text) in enumerate(zip(boards.boards, boards.peer_texts, strict=True)):
        mine = len(solve(board, setup.words, setup.rules[side]).words)
        theirs = len(boggler.find_words(text, False))
        if mine != theirs:
            sys.exit(
                f"{boards.label}: board {i} ({boards.texts[i]!r}) has {mine} words in "
                f"bigboggle and {theirs} in danvk's find_words"
            )


def solve_each(boards: Sequence[Board | str], words: Dictionary, rules: Rules) -> None:
    for board in boards:
        solve(board, words, rules)


def score_each(board: Board, times: int, words: Dictionary, rules: Rules) -> None:
    for _ in range(times):
        score(board, words, rules)


def peer_score_each(boggler: Any, texts: Sequence[str]) -> None:
    for text in texts:
        boggler.score(text)


def peer_find_each(boggler: Any, texts: Sequence[str]) -> None:
    for text in texts:
        boggler.find_words(text, False)


def first_build_ms(path: Path) -> float:
    """A dictionary from the word list with nothing cached: read, normalise, pack (and cache)."""
    with tempfile.TemporaryDirectory() as empty:
        previous = os.environ.get("BIGBOGGLE_CACHE_DIR")
        os.environ["BIGBOGGLE_CACHE_DIR"] = empty
        try:
            return 1000 * cpu(lambda: Dictionary.from_file(path).packed_trie)
        finally:
            if previous is None:
                del os.environ["BIGBOGGLE_CACHE_DIR"]
            else:
                os.environ["BIGBOGGLE_CACHE_DIR"] = previous


@dataclass
class Plan:
    """The boards and counts of one run."""

    dice5: BoardSet
    uniform4: BoardSet
    dice6: BoardSet
    solve_count: int
    same_board_times: int


def measure_scoring(setup: Setup, boards: BoardSet, parsed: Row, texts: Row) -> None:
    """score_many on parsed Boards and on texts, and the peer's score() on each text."""
    side = boards.boards[0].rows
    words, rules, n = setup.words, setup.rules[side], len(boards.boards)
    parsed.ours.append(n / cpu(lambda: score_many(boards.boards, words, rules)))
    texts.ours.append(n / cpu(lambda: score_many(boards.texts, words, rules)))
    if setup.peer is not None:
        boggler = setup.bogglers[side]
        rate = n / cpu(lambda: peer_score_each(boggler, boards.peer_texts))
        parsed.theirs.append(rate)
        texts.theirs.append(rate)


def measure_round(setup: Setup, plan: Plan, rows: dict[str, Row]) -> None:
    """One interleaved round: every figure once, bigboggle then the peer."""
    words, peer, path = setup.words, setup.peer, enable2k()
    measure_scoring(setup, plan.dice5, rows["parsed5"], rows["texts5"])
    measure_scoring(setup, plan.uniform4, rows["parsed4"], rows["texts4"])

    few = plan.dice5.boards[: plan.solve_count]
    few_texts = plan.dice5.texts[: plan.solve_count]
    rules5 = setup.rules[5]
    rows["solve"].ours.append(len(few) / cpu(lambda: solve_each(few, words, rules5)))
    rows["solve_texts"].ours.append(len(few) / cpu(lambda: solve_each(few_texts, words, rules5)))
    if peer is not None:
        boggler = setup.bogglers[5]
        peer_few = plan.dice5.peer_texts[: plan.solve_count]
        rate = len(few) / cpu(lambda: peer_find_each(boggler, peer_few))
        rows["solve"].theirs.append(rate)
        rows["solve_texts"].theirs.append(rate)

    rows["build"].ours.append(first_build_ms(path))
    rows["load"].ours.append(1000 * cpu(lambda: Dictionary.from_file(path).packed_trie))
    if peer is not None:
        build = 1000 * cpu(lambda: peer.Trie.create_from_file(str(path)))
        rows["build"].theirs.append(build)
        rows["load"].theirs.append(build)

    one, times = plan.dice5.boards[0], plan.same_board_times
    rows["same"].ours.append(times / cpu(lambda: score_each(one, times, words, rules5)))
    if peer is not None:
        same = [plan.dice5.peer_texts[0]] * times
        rows["same"].theirs.append(times / cpu(lambda: peer_score_each(setup.bogglers[5], same)))

    boards5 = plan.dice5.boards
    one_thread = wall(lambda: score_many(boards5, words, rules5))
    two_threads = wall(lambda: score_many(boards5, words, rules5, threads=2))
    rows["threads"].ours.append(one_thread / two_threads)

    rules6 = setup.rules[6]
    six = plan.dice6
    rows["parsed6"].ours.append(
        len(six.boards) / cpu(lambda: score_many(six.boards, words, rules6))
    )
    rows["texts6"].ours.append(len(six.texts) / cpu(lambda: score_many(six.texts, words, rules6)))
    few6 = six.boards[: plan.solve_count]
    rows["solve6"].ours.append(len(few6) / cpu(lambda: solve_each(few6, words, rules6)))


def make_rows() -> dict[str, Row]:
    return {
        "parsed5": Row("score_many on parsed Boards, 5x5 Big Boggle dice", "/s"),
        "parsed4": Row("score_many on parsed Boards, 4x4 uniform letters", "/s"),
        "texts5": Row("score_many on board texts, 5x5 Big Boggle dice", "/s"),
        "texts4": Row("score_many on board texts, 4x4 uniform letters", "/s"),
        "solve": Row("solve (words + paths), parsed 5x5 Boards, vs find_words", "/s"),
        "solve_texts": Row("solve (words + paths), 5x5 board texts, vs find_words", "/s"),
        "build": Row("first dictionary build (ENABLE2K) vs Trie.create_from_file", "ms"),
        "load": Row("cached dictionary load vs Trie.create_from_file", "ms"),
        "same": Row("score() of the same 5x5 board over and over", "/s"),
        "threads": Row("score_many threads=2 vs 1, parsed 5x5 Boards (wall clock)", "x"),
        "parsed6": Row("score_many on parsed Boards, 6x6 Super Big Boggle dice", "/s"),
        "texts6": Row("score_many on board texts, 6x6 Super Big Boggle dice", "/s"),
        "solve6": Row("solve (words + paths), parsed 6x6 Boards", "/s"),
    }


def figure(values: list[float], unit: str) -> str:
    if not values:
        return "-"
    value = statistics.median(values)
    if unit == "/s":
        return f"{value:,.0f}/s"
    if unit == "ms":
        return f"{value:.1f} ms"
    return f"{value:.2f}x"


def print_table(rows: dict[str, Row], with_peer: bool) -> None:
    width = max(len(row.label) for row in rows.values())
    if with_peer:
        print(f"{'':{width}}  {'bigboggle':>12}  {'danvk':>12}  bigboggle/danvk")
    else:
        print(f"{'':{width}}  {'bigboggle':>12}")
    for row in rows.values():
        line = f"{row.label:{width}}  {figure(row.ours, row.unit):>12}"
        if with_peer:
            ratio = row.ratio()
            line += f"  {figure(row.theirs, row.unit):>12}  " + (
                f"{ratio:.2f}x" if ratio is not None else "(no peer)"
            )
        print(line)


def run_anchor(setup: Setup) -> None:
    """danvk's 1,000,000 uniform 4x4 boards (seed 808813): both totals must be 41,134,010."""
    rng = random.Random(ANCHOR_SEED)
    peers = uniform_texts(ANCHOR_BOARDS, 4, rng)
    texts = [str(uniform_board(flat, 4)) for flat in peers]
    rules, chunk = setup.rules[4], 50_000  # chunks: flat memory on cores that parse every text
    started = time.thread_time()
    total = sum(
        sum(score_many(texts[i : i + chunk], setup.words, rules))
        for i in range(0, len(texts), chunk)
    )
    ours = time.thread_time() - started
    line = f"anchor: {ANCHOR_BOARDS:,} uniform 4x4 texts: bigboggle total {total:,} in {ours:.2f} s"
    if setup.peer is not None:
        boggler = setup.bogglers[4]
        started = time.thread_time()
        theirs_total = sum(boggler.score(text) for text in peers)
        theirs = time.thread_time() - started
        line += f"; danvk total {theirs_total:,} in {theirs:.2f} s ({theirs / ours:.2f}x)"
        if theirs_total != total:
            sys.exit(line + ": the totals differ")
    print(line)
    if total != ANCHOR_TOTAL:
        sys.exit(f"bigboggle's anchor total {total:,} is not danvk's {ANCHOR_TOTAL:,}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--peer", metavar="DIR", help="the folder holding danvk's cpp_boggle")
    parser.add_argument("--boards", type=int, default=6_000, help="5x5 boards (default 6000)")
    parser.add_argument(
        "--uniform-boards", type=int, default=20_000, help="4x4 uniform boards (default 20000)"
    )
    parser.add_argument("--six-boards", type=int, default=1_500, help="6x6 boards (default 1500)")
    parser.add_argument(
        "--solve-boards", type=int, default=1_500, help="boards solved per round (default 1500)"
    )
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the 4x4 uniform boards")
    parser.add_argument(
        "--anchor", action="store_true", help="also score danvk's 1,000,000-board 4x4 anchor"
    )
    args = parser.parse_args()
    if min(args.boards, args.uniform_boards, args.six_boards, args.solve_boards, args.repeat) < 1:
        parser.error("every count must be at least 1")

    if not implementation.compiled_available():
        sys.exit("the compiled core is not built; reinstall with a C compiler (pip install -e .)")
    implementation.use("c")
    if not enable2k().is_file():
        sys.exit(f"ENABLE2K not found at {enable2k()}; set BIGBOGGLE_ENABLE2K")
    peer = load_peer(args.peer) if args.peer else None

    with tempfile.TemporaryDirectory() as cache_dir:
        os.environ["BIGBOGGLE_CACHE_DIR"] = cache_dir
        words = Dictionary.from_file(enable2k())
        _ = words.packed_trie  # builds and caches: later loads in this run are cached loads
        peer_trie = peer.Trie.create_from_file(str(enable2k())) if peer else None
        bogglers = {4: peer.Boggler44(peer_trie), 5: peer.Boggler55(peer_trie)} if peer else {}
        setup = Setup(words, {s: rules_for(s) for s in (4, 5, 6)}, peer, peer_trie, bogglers)
        plan = Plan(
            dice_boards("big", args.boards),
            uniform_boards(args.uniform_boards, args.seed),
            dice_boards("superbig", args.six_boards),
            min(args.solve_boards, args.boards),
            args.solve_boards,
        )
        for boards in (plan.dice5, plan.uniform4, plan.dice6):
            check_scores(setup, boards)
        check_words(setup, head(plan.dice5, plan.solve_count))
        print(
            f"{len(plan.dice5.boards):,} 5x5 dice boards, {len(plan.uniform4.boards):,} 4x4 "
            f"uniform, {len(plan.dice6.boards):,} 6x6; {plan.solve_count:,} solved a round; "
            f"scores {'equal board for board' if peer else 'checked'}; "
            f"median of {args.repeat} interleaved rounds, per-thread CPU time; "
            f"core: {implementation.name()}"
        )
        rows = make_rows()
        for _ in range(args.repeat):
            measure_round(setup, plan, rows)
        print_table(rows, peer is not None)
        if args.anchor:
            run_anchor(setup)


if __name__ == "__main__":
    main()

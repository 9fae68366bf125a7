"""Pure-Python twin benchmark: its walk against a textbook trie DFS, in one run, same boards.

The issue-16 target is that the pure-Python core (``_solve_py``) scores boards at least twice as
fast as the trie DFS tutorials write (a dict-of-dicts trie, recursion, a set of used cells),
with the same words. Both run over the same shaken boards in alternation (interleaved, so the
machine's noise hits both alike), each timed in per-thread CPU time; the figure is the median
ratio of ``--repeat`` rounds. Run from the checkout::

    python benchmarks/bench_twin.py                  # 5x5 Big Boggle dice, ENABLE2K, 3+ letters
    python benchmarks/bench_twin.py --dice classic --boards 400

ENABLE2K is looked for at ../shared/wordlists/enable2k.txt (or $BIGBOGGLE_ENABLE2K).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from bench_solver import enable2k, textbook_words  # the one yardstick, beside this script
from bigboggle import Board, Dictionary, Rules, _solve_py, shake


def cpu(action: Callable[[], object]) -> float:
    """Per-thread CPU seconds ``action`` takes."""
    start = time.thread_time()
    action()
    return time.thread_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--dice", default="big", help="dice preset to shake (default: big)")
    parser.add_argument("--boards", type=int, default=200, help="boards per round (default 200)")
    parser.add_argument("--repeat", type=int, default=5, help="rounds (default 5)")
    args = parser.parse_args()
    if not enable2k().is_file():
        sys.exit(f"ENABLE2K not found at {enable2k()} (set BIGBOGGLE_ENABLE2K)")
    words = Dictionary.from_file(enable2k())
    rules = Rules.preset(args.dice, min_length=3)
    boards: list[Board] = [shake(args.dice, seed).board for seed in range(args.boards)]
    trie = words.trie
    points = [rules.word_points(n) for n in range(trie.longest + 1)]
    cells = [(b.cell_letters, b.rows, b.cols) for b in boards]
    for letters, _, _ in cells:
        trie.for_faces(letters)  # both walks see the same shortcut keys
    root = trie.root

    def twin() -> None:
        for letters, rows, cols in cells:
            _solve_py.score_cells(trie, letters, rows, cols, -1, points, 0)

    def textbook() -> None:
        for board in boards:
            found = textbook_words(root, board.cell_letters, board.adjacency)
            sum(rules.word_points(len(word)) for word in found)

    for board in boards[:20]:  # same words, or the ratio means nothing
        twin_words, _ = _solve_py.find_word_set(root, board.cell_letters, board.adjacency)
        assert twin_words == textbook_words(root, board.cell_letters, board.adjacency), board
    ratios, twin_rates, textbook_rates = [], [], []
    for _ in range(args.repeat):
        a = cpu(twin)
        b = cpu(textbook)
        ratios.append(b / a)
        twin_rates.append(len(boards) / a)
        textbook_rates.append(len(boards) / b)
    print(f"== {args.dice} dice, ENABLE2K, 3+ letters: {len(boards)} boards, {args.repeat} rounds")
    print(f"   twin (_solve_py.score_cells): {statistics.median(twin_rates):>8,.0f} boards/s")
    print(f"   textbook trie DFS:            {statistics.median(textbook_rates):>8,.0f} boards/s")
    print(f"   twin / textbook, median ratio: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    main()

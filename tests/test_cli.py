"""The ``bigboggle`` command line, checked against its documented contracts (README).

Every command runs through click's ``CliRunner`` in-process; stdout and stderr are checked apart.
Word lists are small files written to ``tmp_path`` so that the answers can be worked out by hand;
the built-in "standard" dictionary is used only by the few tests that need it.
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Sequence
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from bigboggle.cli import cli
from bigboggle.dice import CHALLENGE_CUBE, DICE_SETS

EXAMPLE = "lines/tqard/hemop/abcki/pstew"
EXAMPLE_CANONICAL = "LINES/TQuARD/HEMOP/ABCKI/PSTEW"

# A 3x3 board whose nine letters are all different, so every word has exactly one path:
#   C A T
#   S E R
#   D O G
GRID_BOARD = "cat/ser/dog"
GRID_WORDS = [
    # on the board
    "cat", "seat", "rate", "tear", "dog", "god", "ode", "doe", "dose", "does", "goes", "ogre",
    "gore", "dogear",
    # not on the board: C-T, S-T and R-S do not adjoin; there is one E
    "act", "cats", "cast", "east", "tee", "caters",
]  # fmt: skip
GRID_PATHS = {
    "cat": [[0, 0], [0, 1], [0, 2]],
    "seat": [[1, 0], [1, 1], [0, 1], [0, 2]],
    "rate": [[1, 2], [0, 1], [0, 2], [1, 1]],
    "tear": [[0, 2], [1, 1], [0, 1], [1, 2]],
    "dog": [[2, 0], [2, 1], [2, 2]],
    "god": [[2, 2], [2, 1], [2, 0]],
    "ode": [[2, 1], [2, 0], [1, 1]],
    "doe": [[2, 0], [2, 1], [1, 1]],
    "dose": [[2, 0], [2, 1], [1, 0], [1, 1]],
    "does": [[2, 0], [2, 1], [1, 1], [1, 0]],
    "goes": [[2, 2], [2, 1], [1, 1], [1, 0]],
    "ogre": [[2, 1], [2, 2], [1, 2], [1, 1]],
    "gore": [[2, 2], [2, 1], [1, 2], [1, 1]],
    "dogear": [[2, 0], [2, 1], [2, 2], [1, 1], [0, 1], [1, 2]],
}

# Points by letter count, written out independently of bigboggle.rules.
CLASSIC_POINTS = {3: 1, 4: 1, 5: 2, 6: 3, 7: 5}
BIG_POINTS = {4: 1, 5: 2, 6: 3, 7: 5}

SOLVE_KEYS = {"board", "rules", "dictionary", "min_length", "count", "total_score", "words"}


# -- helpers -------------------------------------------------------------------------------------


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(cli, list(args), input=stdin, prog_name="bigboggle")


def no_traceback(result: Result) -> None:
    assert "Traceback" not in result.stdout
    assert "Traceback" not in result.stderr
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(
        result.exception
    )


def succeeds(*args: str, stdin: str | bytes | None = None, quiet: bool = True) -> Result:
    """Run a command that must succeed (exit 0; with ``quiet``, nothing on stderr)."""
    result = run(*args, stdin=stdin)
    assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
    no_traceback(result)
    if quiet:
        assert result.stderr == ""
    return result


def json_of(*args: str, stdin: str | bytes | None = None, quiet: bool = True) -> Any:
    return json.loads(succeeds(*args, "--json", stdin=stdin, quiet=quiet).stdout)


def fails(result: Result, *fragments: str) -> str:
    """Bad input: exit 2, ``Error: …`` first on stderr, nothing on stdout, no traceback."""
    no_traceback(result)
    assert result.exit_code == 2, (result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    assert result.stderr.startswith("Error:"), result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)
    return result.stderr


def word_file(directory: Path, words: Sequence[str], name: str = "words.txt") -> str:
    path = directory / name
    path.write_text("".join(f"{word}\n" for word in words), encoding="utf-8")
    return str(path)


def plain_grid(text: str) -> list[list[str]]:
    """A board of plain letters (``q`` is the Qu face) as rows of lowercase faces."""
    return [["qu" if ch == "q" else ch for ch in row] for row in text.lower().split("/")]


_FACE = re.compile(r"(\[[A-Za-z]+\]|Qu|[A-Z]|\.)(\*?)")


def canonical_grid(text: str) -> tuple[list[list[str]], list[tuple[int, int]]]:
    """Canonical board text as rows of faces (``""`` for a blank) and the starred cells."""
    grid: list[list[str]] = []
    stars: list[tuple[int, int]] = []
    for r, row in enumerate(text.split("/")):
        cells = []
        tokens = _FACE.findall(row)
        assert "".join(face + star for face, star in tokens) == row, (text, row)
        for face, star in tokens:
            if star:
                stars.append((r, len(cells)))
            cells.append("" if face == "." else face.strip("[]"))
        grid.append(cells)
    return grid, stars


def adjoin(a: Sequence[int], b: Sequence[int]) -> bool:
    return a != b and abs(a[0] - b[0]) <= 1 and abs(a[1] - b[1]) <= 1


def check_path(grid: list[list[str]], word: str, path: list[list[int]]) -> None:
    """``path`` is on the board, adjoining step by step, no cell twice, and spells ``word``."""
    assert path, word
    cells = [tuple(step) for step in path]
    assert len(set(cells)) == len(cells), (word, path)
    for r, c in cells:
        assert 0 <= r < len(grid) and 0 <= c < len(grid[0]), (word, path)
    assert all(adjoin(a, b) for a, b in itertools.pairwise(cells)), (word, path)
    assert "".join(grid[r][c].lower() for r, c in cells) == word, (word, path)


def spellable(grid: list[list[str]], word: str) -> bool:
    """Whether ``word`` can be traced on ``grid`` (an independent depth-first search)."""
    rows, cols = len(grid), len(grid[0])

    def extend(r: int, c: int, offset: int, used: set[tuple[int, int]]) -> bool:
        face = grid[r][c].lower()
        if not face or not word.startswith(face, offset):
            return False
        end = offset + len(face)
        if end == len(word):
            return True
        used.add((r, c))
        found = any(
            extend(rr, cc, end, used)
            for rr in range(max(0, r - 1), min(rows, r + 2))
            for cc in range(max(0, c - 1), min(cols, c + 2))
            if (rr, cc) not in used
        )
        used.discard((r, c))
        return found

    return any(extend(r, c, 0, set()) for r in range(rows) for c in range(cols))


def check_solution(data: dict[str, Any], grid: list[list[str]]) -> None:
    """The invariants of ``solve --json`` that hold for every board."""
    assert data.keys() >= SOLVE_KEYS
    words = data["words"]
    assert data["count"] == len(words)
    assert data["total_score"] == sum(entry["score"] for entry in words)
    assert len({entry["word"] for entry in words}) == len(words)
    order = [(-entry["score"], entry["word"]) for entry in words]
    assert order == sorted(order)
    for entry in words:
        assert {"word", "score", "path"} <= entry.keys()
        assert len(entry["word"]) >= data["min_length"]
        check_path(grid, entry["word"], entry["path"])


def matches_dice(faces: Sequence[str], dice: Sequence[Sequence[str]]) -> bool:
    """Whether each face can be given its own die showing that face (bipartite matching)."""
    owner: dict[int, int] = {}  # die -> cell

    def place(cell: int, seen: set[int]) -> bool:
        for d, die in enumerate(dice):
            if faces[cell] in die and d not in seen:
                seen.add(d)
                if d not in owner or place(owner[d], seen):
                    owner[d] = cell
                    return True
        return False

    return all(place(cell, set()) for cell in range(len(faces)))


# -- solve ---------------------------------------------------------------------------------------


def test_solve_json_on_the_contract_example() -> None:
    data = json_of("solve", EXAMPLE)
    assert data["board"] == EXAMPLE_CANONICAL
    assert data["rules"] == "big"
    assert data["dictionary"] == "standard"
    assert data["min_length"] == 4
    assert data["count"] > 100
    check_solution(data, plain_grid(EXAMPLE))
    by_word = {entry["word"]: entry for entry in data["words"]}
    assert by_word["lines"]["score"] == 2
    assert by_word["lines"]["path"] == [[0, 0], [0, 1], [0, 2], [0, 3], [0, 4]]
    for entry in data["words"]:
        letters = len(entry["word"])
        assert entry["score"] == BIG_POINTS.get(letters, 11 if letters >= 8 else 0)
    assert not any(re.search("q(?!u)", word) for word in by_word)


def test_solve_text_shows_the_grid_and_the_total() -> None:
    data = json_of("solve", EXAMPLE)
    lines = succeeds("solve", EXAMPLE).stdout.splitlines()
    assert [line.split() for line in lines[:5]] == [
        ["L", "I", "N", "E", "S"],
        ["T", "Qu", "A", "R", "D"],
        ["H", "E", "M", "O", "P"],
        ["A", "B", "C", "K", "I"],
        ["P", "S", "T", "E", "W"],
    ]
    text = "\n".join(lines)
    assert f"Board {EXAMPLE_CANONICAL}" in text
    assert f"{data['count']} words, {data['total_score']} points" in text
    assert re.search(r"^\s+2\s+lines\s+a1-b1-c1-d1-e1$", text, re.MULTILINE)


def test_solve_custom_dictionary_worked_by_hand(tmp_path: Path) -> None:
    words = word_file(tmp_path, GRID_WORDS)
    data = json_of("solve", GRID_BOARD, "--rules", "classic", "--dictionary", words)
    assert data["board"] == "CAT/SER/DOG"
    assert data["rules"] == "classic"
    assert data["dictionary"] == words
    assert data["min_length"] == 3
    assert [(e["word"], e["score"]) for e in data["words"]] == [
        ("dogear", 3),
        *[(w, 1) for w in sorted(GRID_PATHS) if w != "dogear"],
    ]
    assert {e["word"]: e["path"] for e in data["words"]} == GRID_PATHS
    assert data["count"] == 14
    assert data["total_score"] == 16
    check_solution(data, plain_grid(GRID_BOARD))


def test_solve_finds_exactly_the_spellable_words(tmp_path: Path) -> None:
    words = word_file(tmp_path, GRID_WORDS)
    data = json_of("solve", GRID_BOARD, "--rules", "classic", "--dictionary", words)
    grid = plain_grid(GRID_BOARD)
    assert {e["word"] for e in data["words"]} == {w for w in GRID_WORDS if spellable(grid, w)}


def test_solve_default_rules_are_big_with_four_letters(tmp_path: Path) -> None:
    data = json_of("solve", GRID_BOARD, "--dictionary", word_file(tmp_path, GRID_WORDS))
    assert data["rules"] == "big"
    assert data["min_length"] == 4
    assert [(e["word"], e["score"]) for e in data["words"]] == [
        ("dogear", 3),
        *[(w, 1) for w in sorted(GRID_PATHS) if w != "dogear" and len(w) >= 4],
    ]
    assert (data["count"], data["total_score"]) == (9, 11)


@pytest.mark.parametrize(
    ("rules", "min_length", "expected"),
    [
        ("classic", "5", {"dogear": 3}),
        ("classic", "4", {"dogear": 3, **dict.fromkeys(["does", "dose", "goes", "gore"], 1)}),
        # below the big table's shortest word, a word scores 1 (the handicap rule)
        ("big", "3", {"dogear": 3, "cat": 1, "dog": 1, "god": 1, "ode": 1, "doe": 1}),
    ],
)
def test_solve_min_length(
    tmp_path: Path, rules: str, min_length: str, expected: dict[str, int]
) -> None:
    words = word_file(tmp_path, GRID_WORDS)
    data = json_of(
        "solve", GRID_BOARD, "--rules", rules, "--dictionary", words, "--min-length", min_length
    )
    assert data["min_length"] == int(min_length)
    found = {e["word"]: e["score"] for e in data["words"]}
    assert all(len(word) >= int(min_length) for word in found)
    for word, points in expected.items():
        assert found[word] == points
    if min_length == "5":
        assert found == expected
    check_solution(data, plain_grid(GRID_BOARD))


def test_solve_qu_is_one_cell_and_two_letters(tmp_path: Path) -> None:
    # Qu I
    # T  S
    words = word_file(tmp_path, ["quit", "quits", "its", "suit", "qis"])
    result = succeeds("solve", "qi/ts", "--dictionary", words, "--json", quiet=False)
    assert "q not followed by u" in result.stderr  # "qis" can never be played
    data = json.loads(result.stdout)
    assert data["board"] == "QuI/TS"
    assert [(e["word"], e["score"], e["path"]) for e in data["words"]] == [
        ("quits", 2, [[0, 0], [0, 1], [1, 0], [1, 1]]),
        ("quit", 1, [[0, 0], [0, 1], [1, 0]]),
    ]
    check_solution(data, plain_grid("qi/ts"))


def test_solve_word_list_notes_go_to_stderr_not_stdout(tmp_path: Path) -> None:
    words = word_file(tmp_path, ["cat", "a", "x-ray", "CAT", "dog"])
    result = succeeds(
        "solve", GRID_BOARD, "--rules", "classic", "--dictionary", words, "--json", quiet=False
    )
    assert result.stderr.startswith("Word list ")
    assert "skipped" in result.stderr
    data = json.loads(result.stdout)
    assert [e["word"] for e in data["words"]] == ["cat", "dog"]


def test_solve_challenge_cell_earns_the_bonus(tmp_path: Path) -> None:
    # C A* T
    # X Y  Z
    words = word_file(tmp_path, ["cat", "tac", "tax", "xyz", "act"])
    data = json_of("solve", "ca*t/xyz", "--rules", "classic", "--dictionary", words)
    assert data["board"] == "CA*T/XYZ"
    assert [(e["word"], e["score"], e.get("bonus")) for e in data["words"]] == [
        ("cat", 6, 5),
        ("tac", 6, 5),
        ("tax", 6, 5),
        ("xyz", 1, None),
    ]
    assert data["total_score"] == 19
    grid, stars = canonical_grid(data["board"])
    assert stars == [(0, 1)]
    check_solution(data, grid)
    text = succeeds("solve", "ca*t/xyz", "--rules", "classic", "--dictionary", words).stdout
    assert text.splitlines()[0].split() == ["C", "A*", "T"]
    assert re.search(r"^\s+6\s+cat \*\s+a1-b1-c1$", text, re.MULTILINE)
    assert re.search(r"^\s+1\s+xyz\s+a2-b2-c2$", text, re.MULTILINE)
    assert "4 words, 19 points" in text


def test_solve_text_with_no_words(tmp_path: Path) -> None:
    text = succeeds("solve", "xy/zx", "--dictionary", word_file(tmp_path, ["cat"])).stdout
    assert text.splitlines()[:2] == ["X  Y", "Z  X"]
    assert "0 words, 0 points" in text


# -- shake ---------------------------------------------------------------------------------------


def test_shake_json_keys_and_same_seed_same_board() -> None:
    first = json_of("shake", "--seed", "7")
    assert {"board", "rules", "seed"} <= first.keys()
    assert first["rules"] == "big"
    assert first["seed"] == 7
    assert json_of("shake", "--seed", "7")["board"] == first["board"]
    grid, stars = canonical_grid(first["board"])
    assert (len(grid), {len(row) for row in grid}) == (5, {5})
    assert stars == []


def test_shake_is_pinned_across_machines() -> None:
    # The contract: the same seed and rules give the same board on any machine.
    assert json_of("shake", "--seed", "5")["board"] == "PAEWD/SFOUR/AAAEO/EOZRH/OFMIT"
    assert json_of("shake", "--seed", "5", "--rules", "classic")["board"] == "OFXA/HCYE/WNSY/TIEE"


def test_shake_different_seeds_give_different_boards() -> None:
    boards = {json_of("shake", "--seed", str(seed))["board"] for seed in range(10)}
    assert len(boards) >= 9


def test_shake_without_a_seed_reports_one_that_reproduces_the_board() -> None:
    data = json_of("shake")
    assert isinstance(data["seed"], int)
    assert json_of("shake", "--seed", str(data["seed"]))["board"] == data["board"]


@pytest.mark.parametrize(
    ("rules", "side"),
    [("classic", 4), ("classic-old", 4), ("big", 5), ("big-1979", 5), ("superbig", 6)],
)
def test_shake_board_comes_from_the_dice(rules: str, side: int) -> None:
    dice = DICE_SETS[rules].dice
    for seed in (0, 1, 99):
        data = json_of("shake", "--rules", rules, "--seed", str(seed))
        assert data["rules"] == rules
        grid, stars = canonical_grid(data["board"])
        assert len(grid) == side
        assert all(len(row) == side for row in grid)
        assert stars == []
        faces = [face for row in grid for face in row]
        assert matches_dice(faces, dice), data["board"]


@pytest.mark.parametrize("rules", ["classic", "big", "big-1979", "superbig"])
def test_shake_challenge_has_one_challenge_cube(rules: str) -> None:
    chosen = DICE_SETS[rules]
    others = list(chosen.dice)
    if chosen.challenge_replaces is not None:
        others.remove(chosen.challenge_replaces)
    for seed in (3, 4):
        data = json_of("shake", "--rules", rules, "--seed", str(seed), "--challenge")
        assert data["board"].count("*") == 1
        grid, stars = canonical_grid(data["board"])
        assert len(grid) == chosen.rows
        (star,) = stars
        assert grid[star[0]][star[1]] in CHALLENGE_CUBE
        faces = [face for r, row in enumerate(grid) for c, face in enumerate(row) if (r, c) != star]
        assert matches_dice(faces, others), data["board"]


def test_shake_text_shows_board_and_seed() -> None:
    board = json_of("shake", "--seed", "11", "--rules", "classic")["board"]
    text = succeeds("shake", "--seed", "11", "--rules", "classic").stdout
    lines = text.splitlines()
    grid, _ = canonical_grid(board)
    assert [line.split() for line in lines[:4]] == grid
    assert f"Board {board}" in text
    assert "seed 11" in text


# -- score ---------------------------------------------------------------------------------------

SCORE_WORDS = ["cats", "scat", "cast", "cat", "sat", "acts", "tax", "taxa"]
# C A T
# X S Z


def round_file(directory: Path, data: Any, name: str = "round.json") -> str:
    path = directory / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def verdicts(player: dict[str, Any]) -> list[tuple[str, str, int]]:
    return [(entry["word"], entry["verdict"], entry["score"]) for entry in player["words"]]


def test_score_file_with_board_key_and_crossing_off(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(
        tmp_path,
        {
            "board": "cat/xsz",
            "players": {
                "ann": ["Cats", "scat", "cats", "ca7", "cat", "acts", "zats", "sat"],
                "bob": ["scat", "cast", "tax"],
            },
        },
    )
    data = json_of("score", source, "--dictionary", words)
    assert {"board", "rules", "players", "ranking"} <= data.keys()
    assert "teams" not in data
    assert data["board"] == "CAT/XSZ"
    assert data["rules"] == "big"
    ann, bob = data["players"]["ann"], data["players"]["bob"]
    assert verdicts(ann) == [
        ("cats", "scored", 1),
        ("scat", "crossed_off", 0),
        ("cats", "repeated", 0),
        ("ca7", "not_a_word", 0),
        ("cat", "too_short", 0),
        ("acts", "not_on_board", 0),
        ("zats", "not_in_dictionary", 0),
        ("sat", "too_short", 0),
    ]
    assert verdicts(bob) == [
        ("scat", "crossed_off", 0),
        ("cast", "scored", 1),
        ("tax", "too_short", 0),
    ]
    for player in (ann, bob):
        assert {"score", "words"} <= player.keys()
        assert player["score"] == sum(entry["score"] for entry in player["words"])
        assert all({"word", "verdict", "score", "bonus"} <= e.keys() for e in player["words"])
        assert all(e["bonus"] == 0 for e in player["words"])
    assert (ann["score"], bob["score"]) == (1, 1)
    assert sorted(data["ranking"]) == ["ann", "bob"]


def test_score_duplicates_keep_is_a_house_rule(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(
        tmp_path, {"board": "CAT/XSZ", "players": {"ann": ["scat"], "bob": ["scat", "cast"]}}
    )
    data = json_of("score", source, "--dictionary", words, "--duplicates", "keep")
    assert verdicts(data["players"]["ann"]) == [("scat", "scored", 1)]
    assert data["players"]["bob"]["score"] == 2
    assert data["ranking"] == ["bob", "ann"]


def test_score_from_stdin_with_board_option(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    stdin = json.dumps({"players": {"ann": ["cats", "cast"], "bob": ["cast"]}})
    data = json_of("score", "-", "--board", "CAT/XSZ", "--dictionary", words, stdin=stdin)
    assert data["board"] == "CAT/XSZ"
    assert verdicts(data["players"]["ann"]) == [("cats", "scored", 1), ("cast", "crossed_off", 0)]
    assert verdicts(data["players"]["bob"]) == [("cast", "crossed_off", 0)]
    assert data["ranking"] == ["ann", "bob"]


def test_score_board_option_overrides_the_board_key(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(tmp_path, {"board": "XXX/XXX", "players": {"ann": ["cats"]}})
    assert verdicts(json_of("score", source, "--dictionary", words)["players"]["ann"]) == [
        ("cats", "not_on_board", 0)
    ]
    data = json_of("score", source, "--board", "cat/xsz", "--dictionary", words)
    assert data["board"] == "CAT/XSZ"
    assert verdicts(data["players"]["ann"]) == [("cats", "scored", 1)]


def test_score_rules_classic_counts_three_letter_words(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(tmp_path, {"board": "CAT/XSZ", "players": {"ann": ["cat", "sat"]}})
    data = json_of("score", source, "--rules", "classic", "--dictionary", words)
    assert data["rules"] == "classic"
    assert data["players"]["ann"]["score"] == 2


def test_score_team_play(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(
        tmp_path,
        {
            "board": "CAT/XSZ",
            "players": {
                "ann": ["cats", "scat"],
                "amy": ["cats", "cast"],
                "bob": ["scat"],
                "cal": ["acts"],
            },
            "teams": {"red": ["ann", "amy"], "blue": ["bob", "cal"]},
        },
    )
    data = json_of("score", source, "--dictionary", words)
    players = data["players"]
    # "cats", written by two members of red, counts once for red; "scat" is on both teams' lists
    assert verdicts(players["ann"]) == [("cats", "scored", 1), ("scat", "crossed_off", 0)]
    assert verdicts(players["amy"]) == [("cats", "scored", 1), ("cast", "scored", 1)]
    assert verdicts(players["bob"]) == [("scat", "crossed_off", 0)]
    assert verdicts(players["cal"]) == [("acts", "not_on_board", 0)]
    teams = data["teams"]
    assert teams["red"]["score"] == 2
    assert teams["red"]["members"] == ["ann", "amy"]
    assert teams["blue"]["score"] == 0
    assert teams["blue"]["members"] == ["bob", "cal"]
    assert data["ranking"] == ["red", "blue"]
    text = succeeds("score", source, "--dictionary", words).stdout
    assert "team red (ann, amy): 2 points" in text
    assert "Ranking: 1. red (2), 2. blue (0)" in text


def test_score_min_length_handicap(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(
        tmp_path,
        {
            "board": "CAT/XSZ",
            "players": {"kid": ["cat", "sat", "cats"], "ann": ["cat", "cast"]},
            "min_length": {"kid": 3},
        },
    )
    data = json_of("score", source, "--dictionary", words)
    # Big rules: words of 4+; the kid may play 3-letter words, which score 1. Ann's "cat" is too
    # short for her, so it is not valid and does not cross off the kid's.
    assert verdicts(data["players"]["kid"]) == [
        ("cat", "scored", 1),
        ("sat", "scored", 1),
        ("cats", "scored", 1),
    ]
    assert verdicts(data["players"]["ann"]) == [("cat", "too_short", 0), ("cast", "scored", 1)]
    assert data["ranking"] == ["kid", "ann"]


def test_score_challenge_bonus(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(tmp_path, {"board": "CA*T/XSZ", "players": {"ann": ["cats", "cast"]}})
    data = json_of("score", source, "--dictionary", words)
    entries = data["players"]["ann"]["words"]
    assert [(e["word"], e["score"], e["bonus"]) for e in entries] == [
        ("cats", 6, 5),
        ("cast", 6, 5),
    ]
    assert data["players"]["ann"]["score"] == 12


def test_score_text_output(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    source = round_file(
        tmp_path, {"board": "CAT/XSZ", "players": {"ann": ["cats", "scat"], "bob": ["scat"]}}
    )
    text = succeeds("score", source, "--dictionary", words).stdout
    assert text.splitlines()[:2] == ["C  A  T", "X  S  Z"]
    assert re.search(r"^scat\s+crossed off$", text, re.MULTILINE)
    assert re.search(r"^cats\s+scored\s+1$", text, re.MULTILINE)
    assert "Ranking: 1. ann (1), 2. bob (0)" in text


# -- rules, dice, version, help ------------------------------------------------------------------


def test_rules_list_and_json() -> None:
    text = succeeds("rules").stdout
    for name in ("classic", "classic-old", "big", "big-1979", "superbig"):
        assert re.search(rf"^{name}\s", text, re.MULTILINE)
    data = json_of("rules")
    assert set(data) == {"classic", "classic-old", "big", "big-1979", "superbig"}
    assert (data["classic"]["rows"], data["classic"]["min_length"]) == (4, 3)
    assert (data["superbig"]["rows"], data["superbig"]["min_length"]) == (6, 4)


def test_rules_one_preset() -> None:
    text = succeeds("rules", "big").stdout
    assert text.startswith("big: ")
    assert "5x5" in text
    assert "4:1 5:2 6:3 7:5 8+:11" in text
    assert "crossed off for both" in text  # the team play reading, said in the rules help
    data = json_of("rules", "superbig")
    assert (data["name"], data["rows"], data["cols"], data["min_length"], data["timer"]) == (
        "superbig",
        6,
        6,
        4,
        240,
    )


def test_dice_list_one_set_and_json() -> None:
    text = succeeds("dice").stdout
    for name, chosen in DICE_SETS.items():
        assert re.search(rf"^{name}\s+{chosen.rows}x{chosen.cols}\s", text, re.MULTILINE)
    one = succeeds("dice", "classic").stdout
    assert "H I M N Qu U" in one
    assert len(re.findall(r"^\s*\d+  ", one, re.MULTILINE)) == 16
    data = json_of("dice", "superbig")
    assert (data["rows"], data["cols"]) == (6, 6)
    assert [tuple(die) for die in data["dice"]] == list(DICE_SETS["superbig"].dice)
    everything = json_of("dice")
    assert set(everything) == set(DICE_SETS)
    assert [tuple(die) for die in everything["big"]["dice"]] == list(DICE_SETS["big"].dice)


def test_version() -> None:
    text = succeeds("--version").stdout
    assert text.startswith(f"bigboggle {version('bigboggle')}")


@pytest.mark.parametrize("command", [[], ["solve"], ["shake"], ["score"], ["rules"], ["dice"]])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_has_an_example(command: list[str], flag: str) -> None:
    text = succeeds(*command, flag).stdout
    assert text.startswith("Usage: bigboggle")
    assert "Example" in text
    assert "bigboggle " + (command[0] if command else "") in text.split("Example", 1)[1]


# -- bad input -----------------------------------------------------------------------------------

THIRTEEN = "/".join(["ABCDEFGHIJKLM"] * 13)


@pytest.mark.parametrize(
    ("board", "fragments"),
    [
        ("AB1/CDE", ["'1'", "row 1"]),
        ("AB/C#", ["'#'", "row 2"]),
        ("ABC/DE", ["row 2", "rectangular"]),
        ("A", ["1 row", "2-12"]),
        (THIRTEEN, ["13 rows", "2-12"]),
        ("AB/CD/EF/GH/IJ/KL/MN/OP/QR/ST/UV/WX/YZ", ["13 rows"]),
        ("ABCDEFGHIJKLM/ABCDEFGHIJKLM", ["13 columns"]),
        ("", ["empty"]),
    ],
)
def test_bad_board(tmp_path: Path, board: str, fragments: list[str]) -> None:
    words = word_file(tmp_path, ["cat"])
    fails(run("solve", board, "--dictionary", words), *fragments)


@pytest.mark.parametrize(
    "args",
    [
        ["solve", "CAT/DOG", "--rules", "nope"],
        ["shake", "--rules", "nope"],
        ["rules", "nope"],
    ],
)
def test_unknown_rules(args: list[str]) -> None:
    fails(run(*args), "'nope'", "classic", "superbig")


def test_unknown_dice_set() -> None:
    fails(run("dice", "nope"), "'nope'", "classic")


def test_unknown_dictionary_name() -> None:
    fails(run("solve", "CAT/DOG", "--dictionary", "nope"), "unknown dictionary 'nope'")


def test_missing_dictionary_file(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.txt")
    fails(run("solve", "CAT/DOG", "--dictionary", missing), missing, "does not exist")


@pytest.mark.parametrize(
    ("content", "fragments"),
    [
        (b"", ["empty"]),
        (b"  \n\n", ["empty"]),
        (b"# only a comment\nab\n", ["no playable words"]),
        (b"cat\x00dog\n", ["binary", "NUL"]),
        (b"cat\ndog\n\xff\xfebad\nfish\n", ["line 3", "UTF-8"]),
    ],
)
def test_bad_word_file(tmp_path: Path, content: bytes, fragments: list[str]) -> None:
    path = tmp_path / "words.txt"
    path.write_bytes(content)
    fails(run("solve", "CAT/DOG", "--dictionary", str(path)), str(path), *fragments)


@pytest.mark.parametrize("value", ["0", "99", "2", "26"])
def test_bad_min_length(tmp_path: Path, value: str) -> None:
    words = word_file(tmp_path, ["cat"])
    fails(
        run("solve", "CAT/DOG", "--dictionary", words, "--min-length", value),
        f"min_length={value}",
        "between 3 and 25",
    )


def test_score_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text('{"board": "CAT/XSZ",\n "players": {"ann": ["cat"] "bob": []}}\n')
    message = fails(run("score", str(path)), "not valid JSON", "line 2, column")
    assert str(path) in message


def test_score_invalid_json_on_stdin() -> None:
    fails(run("score", "-", "--board", "CAT/XSZ", stdin="{nope"), "standard input", "line 1")


def test_score_file_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_bytes(b'{"players": {"ann": ["caf\xe9"]}}')
    fails(run("score", str(path), "--board", "CAT/XSZ"), "not UTF-8")


@pytest.mark.parametrize(
    ("data", "fragments"),
    [
        ([1, 2], ["JSON object", "a list"]),
        ("CAT/XSZ", ["JSON object", "text"]),
        ({"board": "CAT/XSZ"}, ["players", "missing"]),
        ({"board": "CAT/XSZ", "players": {"ann": "cat"}}, ["players.ann", "list"]),
        ({"board": "CAT/XSZ", "players": {"ann": ["cat", 7]}}, ["players.ann[1]"]),
        ({"board": "CAT/XSZ", "players": {}}, ["players", "at least one player"]),
        (
            {"board": "CAT/XSZ", "players": {"ann": []}, "teams": {"red": ["ann", "zed"]}},
            ["teams.red[1]", "'zed'", "not one of the players"],
        ),
        (
            {"board": "CAT/XSZ", "players": {"ann": [], "bob": []}, "teams": {"red": ["ann"]}},
            ["'bob'", "no team"],
        ),
        (
            {"board": "CAT/XSZ", "players": {"ann": []}, "min_length": {"zed": 3}},
            ["min_length.zed", "not one of the players"],
        ),
        (
            {"board": "CAT/XSZ", "players": {"ann": []}, "min_length": {"ann": 2}},
            ["min_length.ann", "between 3 and 25"],
        ),
        ({"board": "AB1/CDE", "players": {"ann": []}}, ["board:", "'1'"]),
        ({"board": 7, "players": {"ann": []}}, ["board:"]),
        ({"board": "CAT/XSZ", "players": {"ann": []}, "rules": "nope"}, ["'nope'"]),
        ({"board": "CAT/XSZ", "players": {"ann": []}, "colour": "red"}, ["'colour'"]),
    ],
)
def test_score_bad_round(tmp_path: Path, data: Any, fragments: list[str]) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    fails(run("score", round_file(tmp_path, data), "--dictionary", words), *fragments)


def test_score_without_a_board(tmp_path: Path) -> None:
    source = round_file(tmp_path, {"players": {"ann": ["cats"]}})
    fails(run("score", source, "--dictionary", word_file(tmp_path, ["cats"])), "no board")
    fails(run("score", "-", stdin='{"players": {"ann": []}}'), "no board", "standard input")


def test_score_bad_board_option(tmp_path: Path) -> None:
    source = round_file(tmp_path, {"players": {"ann": ["cats"]}})
    fails(run("score", source, "--board", "ABC/DE"), "rectangular")


def test_score_file_that_does_not_exist(tmp_path: Path) -> None:
    missing = str(tmp_path / "nothere.json")
    result = run("score", missing, "--board", "CAT/XSZ")
    no_traceback(result)
    assert result.exit_code == 2
    assert result.stdout == ""
    assert re.search(r"^Error: .*nothere\.json", result.stderr, re.MULTILINE)


_CLICK_CHECKED = (
    "BUG: bad input that click itself checks (a FILE that does not exist, a value outside an "
    "IntRange or a Choice, a value that is not a number) prints 'Usage: …' and 'Try …' before "
    "'Error: …' on stderr; the contract asks for stderr to be 'Error: …' like every other bad input"
)


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        pytest.param(
            ["score", "nothere.json", "--board", "CAT/XSZ"],
            "nothere.json",
            id="score-missing-file",
        ),
        pytest.param(
            ["shake", "--seed", "-1"],
            "-1",
            id="shake-negative-seed",
        ),
        pytest.param(
            ["solve", "CAT/DOG", "--min-length", "three"],
            "three",
            id="solve-min-length-not-a-number",
        ),
        pytest.param(
            ["score", "-", "--board", "CAT/XSZ", "--duplicates", "twice"],
            "twice",
            id="score-duplicates-not-a-choice",
        ),
    ],
)
def test_click_checked_bad_input_starts_with_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], fragment: str
) -> None:
    monkeypatch.chdir(tmp_path)
    fails(run(*args, stdin='{"players": {"ann": []}}'), fragment)


def test_score_deeply_nested_json(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text("[" * 100_000)
    fails(run("score", str(path), "--board", "CAT/XSZ"))


def test_score_huge_integer_in_json(tmp_path: Path) -> None:
    path = tmp_path / "round.json"
    path.write_text('{"players": {"ann": []}, "min_length": {"ann": ' + "9" * 5000 + "}}")
    fails(run("score", str(path), "--board", "CAT/XSZ"), "not valid JSON")


def test_solve_a_shaken_board_from_a_seed() -> None:
    shaken = json_of("shake", "--seed", "11")
    solved = json_of("solve", "--seed", "11", quiet=False)
    assert solved["board"] == shaken["board"]
    assert solved["seed"] == 11
    assert solved == {**json_of("solve", shaken["board"], quiet=False), "seed": 11}


def test_solve_shake_without_seed_reports_one() -> None:
    result = succeeds("solve", "--shake", "--limit", "0", quiet=False)
    assert "Shaken from the big dice with seed" in result.stdout


def test_solve_needs_a_board_or_shake() -> None:
    fails(run("solve"), "BOARD", "--shake")
    fails(run("solve", "AB/CD", "--shake"), "not both")


def test_version_and_info_name_the_solver_core(solver_core: str) -> None:
    assert f"(solver: {solver_core})" in succeeds("--version").stdout
    info = json_of("info")
    assert info["solver"] == solver_core
    assert info["compiled_core_available"] in (True, False)
    assert "standard" in info["dictionaries"]
    assert "solver core" in succeeds("info").stdout


def test_solve_json_names_the_solver_core(solver_core: str, tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("cat\nsat\nact\n", encoding="utf-8")
    data = json_of("solve", "CAT/XSZ", "--dictionary", str(words), "--min-length", "3")
    assert data["implementation"] == solver_core
    assert [w["word"] for w in data["words"]] == ["cat", "sat"]


def test_score_refuses_a_player_named_twice() -> None:
    doc = '{"players": {"ann": ["lines", "line"], "ann": ["dart"]}}'
    fails(run("score", "-", "--board", "CAT/XSZ", stdin=doc), "duplicate key 'ann'")


def test_score_reports_skipped_word_list_entries(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("cat\ndon't\nNew York\nsat\n", encoding="utf-8")
    doc = '{"players": {"ann": ["cat"]}, "min_length": {"ann": 3}}'
    result = succeeds(
        "score", "-", "--board", "CAT/XSZ", "--dictionary", str(words), stdin=doc, quiet=False
    )
    assert "2 entries skipped" in result.stderr


@pytest.mark.parametrize("options", ['{"scoring": ["x"]}', '{"scoring": {}}', '{"timer": "x"}'])
def test_score_with_bad_option_types(options: str) -> None:
    doc = '{"players": {"a": ["cat"]}, "options": ' + options + "}"
    fails(run("score", "-", "--board", "CAT/XSZ", stdin=doc))


def test_solve_a_shaken_board_with_the_challenge_cube() -> None:
    data = json_of("solve", "--seed", "3", "--challenge", quiet=False)
    assert data["board"] == json_of("shake", "--seed", "3", "--challenge")["board"]
    assert data["board"].count("*") == 1
    assert any(word.get("bonus") == 5 for word in data["words"])


def test_play_help_has_examples() -> None:
    out = succeeds("play", "--help").stdout
    assert "--players" in out and "bigboggle play --players" in out


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--teams", "red"], "red=ann+bob"),
        (["--players", "ann,bob", "--teams", "red=ann,blue=zed"], "teams.blue[0]"),
        (["--handicap", "kid"], "kid=3"),
        (["--players", "ann", "--handicap", "zed=3"], "min_length.zed"),
        (["--target", "50"], "add --players"),
        (["--board", "AB/C"], "row 2"),
        (["--rules", "giant"], "unknown rules"),
        (["--teams", "red=ann+bob"], "needs --players"),
    ],
)
def test_play_bad_options(args: list[str], fragment: str) -> None:
    fails(run("play", *args), fragment)


def test_stats_json() -> None:
    data = json_of("stats", "--rules", "classic", "--boards", "400", "--seed", "7", quiet=False)
    assert data["boards"] == 400 and data["seed"] == 7 and data["rules"] == "classic"
    assert data["points"]["min"] <= data["points"]["percentiles"]["50"] <= data["points"]["max"]
    assert data["best"][0]["points"] == data["points"]["max"]


def test_best_json_reports_a_board_and_its_value(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("cat\ncats\nact\nacts\nscat\ntacs\n", encoding="utf-8")
    data = json_of(
        "best",
        "--rules",
        "classic",
        "--dictionary",
        str(words),
        "--seconds",
        "0.5",
        "--seed",
        "1",
        "--jobs",
        "1",
    )
    solved = json_of("solve", data["board"], "--rules", "classic", "--dictionary", str(words))
    assert data["value"] == solved["total_score"] > 0
    values = [step["value"] for step in data["improvements"]]
    assert values == sorted(values)


def test_shake_in_a_band() -> None:
    data = json_of("shake", "--band", "400-600", "--seed", "9", quiet=False)
    assert 400 <= json_of("solve", data["board"])["total_score"] <= 600
    assert json_of("shake", "--seed", str(data["seed"]))["board"] == data["board"]
    fails(run("shake", "--band", "lots"), "easy, normal or rich")
    fails(run("shake", "--band", "9-1"), "low end")


def test_solve_says_where_the_board_stands() -> None:
    out = succeeds("solve", "LINES/TQARD/HEMOP/ABCKI/PSTEW").stdout
    assert "better than" in out and "big shakes" in out
    data = json_of("solve", "LINES/TQARD/HEMOP/ABCKI/PSTEW")
    assert 0.5 < data["standing"]["points_rank"] <= 1


def test_play_band_errors() -> None:
    fails(run("play", "--band", "lots"), "easy, normal or rich")
    fails(run("play", "--band", "rich", "--board", "AB/CD"), "--board")


@pytest.mark.once
def test_best_on_two_cores(tmp_path: Path) -> None:
    words = tmp_path / "words.txt"
    words.write_text("cat\ncats\nact\nacts\nscat\ntacs\n", encoding="utf-8")
    data = json_of(
        "best", "--rules", "classic", "--dictionary", str(words), "--seconds", "1", "--jobs", "2"
    )
    solved = json_of("solve", data["board"], "--rules", "classic", "--dictionary", str(words))
    assert data["value"] == solved["total_score"] > 0


def test_stats_histogram_needs_a_png_name(tmp_path: Path) -> None:
    fails(run("stats", "--boards", "10", "--histogram", str(tmp_path / "h.txt")), ".png")
    fails(
        run("stats", "--boards", "10", "--histogram", str(tmp_path / "no" / "h.png")),
        "cannot write",
    )


@pytest.mark.once
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--redis", "notaurl"], "--redis 'notaurl'"),
        (["--workers", "2"], "--workers above 1 needs --redis"),
        (["--word-list", "nopath"], "NAME=PATH"),
        (["--word-list", "mine=/no/such/file.txt"], "no word list file"),
    ],
)
def test_serve_refuses_bad_settings_before_starting(
    tmp_path: Path, arguments: list[str], message: str
) -> None:
    db = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
    result = CliRunner().invoke(cli, ["serve", "--db", db, *arguments])
    assert result.exit_code == 2
    assert "Error:" in result.stderr and message in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.once
def test_serve_does_not_print_the_database_password(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--db", "postgresql+psycopg://user:secret@127.0.0.1:1/nothing"]
    )
    assert result.exit_code == 2
    assert "secret" not in result.output and "***" in result.stderr


# -- bounded input: sizes are checked before anything is parsed ----------------------------------

#: No refusal of oversized input prints more than this on stderr, however large the input.
LONGEST_ERROR = 400


@pytest.mark.once
@pytest.mark.parametrize("command", [["solve"], ["play", "--board"]], ids=["solve", "play"])
def test_board_argument_over_the_limit_is_refused(command: list[str]) -> None:
    from bigboggle.limits import MAX_BOARD_TEXT

    message = fails(
        run(*command, "A" * 1_000_000), "1000000 characters", f"the limit is {MAX_BOARD_TEXT}"
    )
    assert len(message) <= LONGEST_ERROR


@pytest.mark.once
def test_score_board_over_the_limit_is_refused_from_the_option_and_the_file(
    tmp_path: Path,
) -> None:
    source = round_file(tmp_path, {"players": {"ann": ["cats"]}})
    message = fails(run("score", source, "--board", "AB/" * 300_000), "900000 characters")
    assert len(message) <= LONGEST_ERROR
    source = round_file(tmp_path, {"board": "A" * 1_000_000, "players": {"ann": []}})
    message = fails(run("score", source), "board:", "1000000 characters", "limit is 800")
    assert len(message) <= LONGEST_ERROR


@pytest.mark.once
def test_score_reads_at_most_the_round_json_limit(tmp_path: Path) -> None:
    from bigboggle.limits import MAX_ROUND_JSON

    too_long = '{"players": {"ann": []}, "pad": "' + "x" * MAX_ROUND_JSON + '"}'
    path = tmp_path / "round.json"
    path.write_text(too_long, encoding="utf-8")
    message = fails(run("score", str(path), "--board", "CAT/XSZ"), f"over {MAX_ROUND_JSON} bytes")
    assert str(path) in message
    assert len(message) <= LONGEST_ERROR + len(str(path))
    message = fails(
        run("score", "-", "--board", "CAT/XSZ", stdin=too_long),
        "standard input",
        f"over {MAX_ROUND_JSON} bytes",
    )
    assert len(message) <= LONGEST_ERROR


@pytest.mark.once
@pytest.mark.parametrize(
    ("doc", "fragments"),
    [
        ('{"players": {"ann": [], "ANN": []}}', ["players", "'ann' and 'ANN'", "same name"]),
        ('{"players": {"ann": [], "\\u0430nn": []}}', ["same name"]),
        ('{"players": {"ann\\u200b": []}}', ["invisible", "U+200B"]),
        ('{"players": {"ann": ["' + "a" * 100_000 + '"]}}', ["players.ann[0]", "100000 char"]),
        ('{"players": {"ann": []}, "options": {"name": "x"}}', ["options", "'name'"]),
        ("[" * 100_000, ["nested too deeply"]),
    ],
    ids=["case", "cyrillic", "zero-width", "long-entry", "option-name", "deep"],
)
def test_score_refuses_hostile_rounds_clearly(doc: str, fragments: list[str]) -> None:
    message = fails(run("score", "-", "--board", "CAT/XSZ", stdin=doc), *fragments)
    assert len(message) <= LONGEST_ERROR


@pytest.mark.once
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--handicap", "kid=²"], ["--handicap", "kid=3"]),
        (["--handicap", "kid=" + "9" * 5000], ["--handicap", "small number"]),
        (["--teams", "x" * 100_000], ["--teams", "red=ann+bob"]),
        (["--players", ",".join(f"p{i}" for i in range(101))], ["101 players", "limit is 100"]),
    ],
    ids=["superscript-digit", "huge-number", "long-teams", "too-many-players"],
)
def test_play_options_are_bounded(args: list[str], fragments: list[str]) -> None:
    message = fails(run("play", *args), *fragments)
    assert len(message) <= LONGEST_ERROR


def test_seeds_any_up_to_max_seed_and_fresh_ones_below_the_fresh_bound() -> None:
    from bigboggle.dice import FRESH_SEED_BOUND, MAX_SEED

    for command in ("shake", "play"):  # the help says the ranges the code enforces
        help_text = " ".join(run(command, "--help").output.split())
        assert "up to 2**63-1" in help_text and "below 2**32" in help_text
    assert MAX_SEED == 2**63 - 1 and FRESH_SEED_BOUND == 2**32
    largest = run("shake", "--seed", str(MAX_SEED), "--json")
    assert largest.exit_code == 0 and json.loads(largest.stdout)["seed"] == MAX_SEED
    too_large = run("shake", "--seed", str(MAX_SEED + 1))
    assert too_large.exit_code == 2 and "--seed" in too_large.stderr
    for _ in range(5):
        fresh = json.loads(run("shake", "--json").stdout)["seed"]
        assert 0 <= fresh < FRESH_SEED_BOUND


# -- what a new player meets first -------------------------------------------------------------


def test_bigboggle_alone_prints_the_help_not_an_error() -> None:
    result = succeeds()
    assert result.stdout.startswith("Usage: bigboggle [OPTIONS] COMMAND")
    assert "Error" not in result.stdout
    for command in ("play", "serve", "solve", "score"):
        assert f"bigboggle {command}" in result.stdout


def test_one_word_one_point_one_board_are_singular(tmp_path: Path) -> None:
    words = word_file(tmp_path, ["cat"])
    text = succeeds("solve", GRID_BOARD, "--rules", "classic", "--dictionary", words).stdout
    assert "1 word, 1 point (3: 1)" in text
    source = round_file(tmp_path, {"board": "CAT/XSZ", "players": {"ann": ["cats"]}})
    text = succeeds("score", source, "--dictionary", word_file(tmp_path, ["cats"])).stdout
    assert "ann: 1 point" in text
    assert "The board holds 1 word worth 1 point; every one was found." in text
    text = succeeds(
        "stats", "--rules", "classic", "--boards", "1", "--seed", "3", quiet=False
    ).stdout
    assert text.startswith("1 board of the classic dice (seed 3), ")
    assert not re.search(r"\b1 (words|points|boards)\b", text)


def test_stats_numbers_have_one_form_in_every_column() -> None:
    from bigboggle.analysis import PERCENTILES

    text = succeeds(
        "stats", "--rules", "classic", "--boards", "300", "--seed", "7", quiet=False
    ).stdout
    rows = [line.split() for line in text.splitlines() if line.startswith(("points", "words"))]
    assert [row[0] for row in rows] == ["points", "words"]
    for row in rows:
        assert len(row) == 4 + len(PERCENTILES)  # label, mean, stdev, percentiles, max
        assert all(re.fullmatch(r"\d+\.\d", cell) for cell in row[1:]), row


def test_a_word_list_that_mixes_cases_reports_its_names(tmp_path: Path) -> None:
    # (mostly lowercase, as such a list is: the capitals are the minority that marks names)
    words = word_file(tmp_path, ["cat", "Cat", "NASA", "dog", "Paris", "zebu", "jinx"])
    result = succeeds(
        "solve", GRID_BOARD, "--rules", "classic", "--dictionary", words, "--json", quiet=False
    )
    assert "3 capitalised as names or abbreviations in a list that mixes cases" in result.stderr
    assert [entry["word"] for entry in json.loads(result.stdout)["words"]] == ["cat", "dog"]


def test_team_totals_are_explained_where_members_share_a_word(tmp_path: Path) -> None:
    words = word_file(tmp_path, SCORE_WORDS)
    data = {
        "board": "CAT/XSZ",
        "players": {"ann": ["cats", "scat"], "amy": ["cats", "cast"], "bob": ["taxa"]},
        "teams": {"red": ["ann", "amy"], "blue": ["bob"]},
    }
    source = round_file(tmp_path, data)
    text = succeeds("score", source, "--dictionary", words).stdout
    assert "ann (team red): 2 points" in text and "amy (team red): 2 points" in text
    assert re.search(r"^cats\s+scored\s+1\s+shared with amy: counts once for red$", text, re.M)
    assert re.search(r"^cats\s+scored\s+1\s+shared with ann: counts once for red$", text, re.M)
    assert re.search(r"^scat\s+scored\s+1$", text, re.M)  # not shared: no note
    assert (
        "team red (ann, amy): 3 points = ann 2 + amy 2 - 1 shared (cats: counted once for the team)"
        in text
    )
    assert "team blue (bob): 0 points\n" in text  # nothing shared, nothing to explain
    assert json_of("score", source, "--dictionary", words)["teams"]["red"] == {
        "score": 3,
        "members": ["ann", "amy"],
        "words": {"cast": 1, "cats": 1, "scat": 1},
    }  # the JSON is unchanged


@pytest.mark.once
def test_serve_on_a_busy_port_says_so_before_anything_starts(tmp_path: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = f"sqlite:///{tmp_path / 'serve.sqlite3'}"
        result = run("serve", "--port", str(port), "--db", db)
    message = fails(result, f"Error: port {port} on 127.0.0.1 is in use", "(try --port ")
    assert "Open" not in result.output and len(message.splitlines()) == 1
    assert not (tmp_path / "serve.sqlite3").exists()  # refused before the database was made
    fails(run("serve", "--host", "192.0.2.1", "--port", str(port)), "cannot listen on")
    message = fails(run("serve", "--host", "bad\x00" + "h" * 100_000), "cannot listen on")
    assert len(message) <= LONGEST_ERROR


def test_serve_help_says_what_the_web_app_offers() -> None:
    text = " ".join(succeeds("serve", "--help").stdout.split())
    for offer in ("multiplayer rooms", "solo play", "daily board", "solver", "scorekeeper"):
        assert offer in text
    assert "--db" in text and "--redis" in text and "PostgreSQL" in text
    assert "rooms" in succeeds("--help").stdout


# -- the family filter ---------------------------------------------------------------------------

#   S H
#   I T      "shit" is on the family filter's list; "this" is not.
FAMILY_BOARD = "SH/IT"


def test_solve_hides_offensive_words_from_the_text_unless_asked(tmp_path: Path) -> None:
    from bigboggle.family import is_offensive

    assert is_offensive("shit") and not is_offensive("this")
    words = word_file(tmp_path, ["shit", "this"])
    args = ("solve", FAMILY_BOARD, "--rules", "classic", "--dictionary", words)
    text = succeeds(*args).stdout
    assert "2 words, 2 points" in text  # the board's own count: scoring is unfiltered
    assert re.search(r"^\s+1\s+this\s", text, re.M) and "shit" not in text
    assert text.rstrip().endswith("1 offensive word hidden (--show-offensive)")
    shown = succeeds(*args, "--show-offensive").stdout
    assert re.search(r"^\s+1\s+shit\s", shown, re.M) and "hidden" not in shown
    data = json_of(*args)
    assert [(e["word"], e.get("offensive")) for e in data["words"]] == [
        ("shit", True),
        ("this", None),
    ]


def test_score_family_refuses_offensive_words_and_hides_them_from_missed(tmp_path: Path) -> None:
    words = word_file(tmp_path, ["shit", "this"])
    source = round_file(tmp_path, {"board": FAMILY_BOARD, "players": {"ann": ["shit"]}})
    data = json_of("score", source, "--rules", "classic", "--dictionary", words, "--family")
    assert verdicts(data["players"]["ann"]) == [("shit", "refused", 0)]
    plain = json_of("score", source, "--rules", "classic", "--dictionary", words)
    assert verdicts(plain["players"]["ann"]) == [("shit", "scored", 1)]
    source = round_file(tmp_path, {"board": FAMILY_BOARD, "players": {"ann": []}})
    text = succeeds("score", source, "--rules", "classic", "--dictionary", words).stdout
    assert "nobody found 2 of them: this (1 offensive word hidden (--show-offensive))" in text
    text = succeeds(
        "score", source, "--rules", "classic", "--dictionary", words, "--show-offensive"
    ).stdout
    assert "nobody found 2 of them: shit, this\n" in text


def test_play_offers_the_family_filter() -> None:
    text = " ".join(succeeds("play", "--help").stdout.split())
    assert "--family" in text and "offensive words are refused" in text
    assert "--show-offensive" in text


def test_score_refuses_a_word_that_would_send_a_terminal_escape_sequence() -> None:
    # A word list from an untrusted file must not reach the terminal with its escapes.
    stdin = (
        '{"board":"LINES/TQARD/HEMOP/ABCKI/PSTEW",'
        '"players":{"ann":["\\u001b]0;pwned\\u0007quilt"]}}'
    )
    result = CliRunner().invoke(cli, ["score", "-"], input=stdin)
    assert result.exit_code == 2, result.output
    assert "players.ann[0]" in result.stderr and "control character" in result.stderr
    assert "\x1b" not in result.output and "\x07" not in result.output


def test_score_gives_the_same_points_the_same_place_in_the_ranking() -> None:
    stdin = json.dumps(
        {
            "board": "LINES/TQARD/HEMOP/ABCKI/PSTEW",
            "players": {"ann": ["lines"], "bob": ["dear", "mare"]},
        }
    )
    result = CliRunner().invoke(cli, ["score", "-", "--rules", "classic"], input=stdin)
    assert result.exit_code == 0, result.output
    assert (
        "Ranking: 1. ann (2), 1. bob (2)" in result.stdout
        or "1. bob (2), 1. ann (2)" in result.stdout
    )


def test_train_add_names_a_deck_it_cannot_save() -> None:
    """A deck path whose folder cannot be made is one clear line naming the deck."""
    from click.testing import CliRunner

    deck = "/proc/1/nonexistent/deck.json"  # no folder can be made under /proc/1
    answer = CliRunner().invoke(cli, ["train", "--deck", deck, "--add", "stone"])
    assert answer.exit_code == 2, answer.output
    assert f"cannot save the deck '{deck}'" in answer.output and "Errno" not in answer.output


def test_solving_loads_no_round_or_opponent_modules_and_the_package_still_names_them() -> None:
    """``bigboggle solve`` starts without the modules of rounds, scoring and opponents (the
    package and the CLI import them on first use); their names still come from the package."""
    import subprocess
    import sys

    probe = (
        "import sys, bigboggle, bigboggle.cli; "
        "print(sorted(m for m in sys.modules if m.startswith('bigboggle.')))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    for module in ("opponents", "round", "round_input", "scoring", "verdicts"):
        assert f"'bigboggle.{module}'" not in loaded, loaded
    import bigboggle
    from bigboggle import round as round_module
    from bigboggle import scoring

    assert bigboggle.Round is round_module.Round and bigboggle.score_round is scoring.score_round
    assert set(bigboggle.__all__) <= set(dir(bigboggle))
    for name in bigboggle._LAZY:
        assert getattr(bigboggle, name) is not None, name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = bigboggle.nothing  # type: ignore[attr-defined]

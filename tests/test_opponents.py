"""Computer opponents (bigboggle.opponents): the model of a person finding words, its seeds,
its times, its slips, its strengths' calibration, the job the services run and the command."""

from __future__ import annotations

import dataclasses
import json
import math
import os
import statistics
import subprocess
import sys
from collections import defaultdict

import pytest
from click.testing import CliRunner

from bigboggle import (
    Board,
    Dictionary,
    Opponent,
    Rules,
    RulesError,
    opponent_name,
    score_round,
    solve,
)
from bigboggle.cli import cli
from bigboggle.dice import shake
from bigboggle.family import is_offensive
from bigboggle.limits import MAX_LIST_LENGTH, MAX_OPPONENT_BOARDS
from bigboggle.opponents import (
    SKILL,
    SLIP_RATE,
    TARGETS,
    chance,
    count_paths,
    inflections,
    measure_strengths,
    slip_candidates,
    word_difficulty,
)
from bigboggle.services import jobs
from bigboggle.verdicts import Verdict

# Everything here is logic above the solver (whose cores are compared elsewhere): run once.
pytestmark = pytest.mark.once

BIG = Rules.preset("big")
STANDARD = Dictionary.builtin("standard")
STRENGTHS = list(Opponent.STRENGTHS)


def board(seed: int) -> Board:
    return shake(BIG.dice, seed).board


# -- the strengths ---------------------------------------------------------------------------------


def test_strengths_are_named_weakest_first_with_their_targets() -> None:
    assert STRENGTHS == ["beginner", "casual", "club", "expert", "solver"]
    targets = list(Opponent.STRENGTHS.values())
    assert targets == sorted(targets) and targets[-1] == 1.0
    assert [SKILL[name] for name in STRENGTHS] == sorted(SKILL.values())
    assert SLIP_RATE["solver"] == 0 and all(SLIP_RATE[name] > 0 for name in STRENGTHS[:-1])
    with pytest.raises(TypeError):
        Opponent.STRENGTHS["club"] = 0.5  # type: ignore[index]


@pytest.mark.parametrize("strength", ["grandmaster", "Club", "", 3, None])
def test_an_unknown_strength_is_refused_naming_the_choices(strength: object) -> None:
    with pytest.raises(RulesError) as caught:
        Opponent(strength, seed=1)  # type: ignore[arg-type]
    assert "beginner, casual, club, expert, solver" in str(caught.value)
    with pytest.raises(RulesError, match="choose one of"):
        Opponent.label(strength)  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [-1, 2**63, 1.5, True, "7"])
def test_a_bad_seed_is_refused(seed: object) -> None:
    with pytest.raises(RulesError, match="seed"):
        Opponent("club", seed)  # type: ignore[arg-type]


def test_a_fresh_seed_is_kept() -> None:
    opponent = Opponent("casual")
    assert isinstance(opponent.seed, int) and opponent.seed >= 0
    again = Opponent("casual", opponent.seed)
    assert opponent.play(board(3), STANDARD, BIG) == again.play(board(3), STANDARD, BIG)


@pytest.mark.parametrize("seconds", [0, -1, 0.0, math.nan, math.inf, 3601, True, "180"])
def test_a_bad_round_length_is_refused(seconds: object) -> None:
    with pytest.raises(RulesError, match="seconds"):
        Opponent("club", 1).play(board(1), STANDARD, BIG, seconds)  # type: ignore[arg-type]


def test_labels_and_seat_names() -> None:
    assert [Opponent.label(name) for name in STRENGTHS] == [
        "Beginner",
        "Casual",
        "Club",
        "Expert",
        "Solver",
    ]
    assert opponent_name("club", []) == "Club bot"
    assert opponent_name("club", ["Ann", "Expert bot"]) == "Club bot"
    # Taken under the names' clash key: case, look-alikes (I for l) and separators fold.
    assert opponent_name("club", ["club bot"]) == "Club bot 2"
    assert opponent_name("club", ["CIub-bot", "Club bot 2"]) == "Club bot 3"
    with pytest.raises(RulesError):
        opponent_name("wizard", [])


# -- determinism -------------------------------------------------------------------------------------


def test_the_same_seed_board_and_strength_give_the_same_list() -> None:
    for strength in STRENGTHS:
        first = Opponent(strength, 42).play(board(7), STANDARD, BIG)
        assert first == Opponent(strength, 42).play(str(board(7)), STANDARD, BIG)
        solution = solve(board(7), STANDARD, BIG)
        assert first == Opponent(strength, 42).play_solution(solution, STANDARD, BIG)
        assert first == Opponent(strength, 42).play(board(7), STANDARD, BIG, BIG.timer)


def test_other_seeds_boards_and_strengths_give_other_lists() -> None:
    lists = {
        (strength, seed, shaken): tuple(Opponent(strength, seed).play(board(shaken), STANDARD, BIG))
        for strength in ("casual", "expert")
        for seed in (1, 2)
        for shaken in (5, 6)
    }
    assert len(set(lists.values())) == len(lists)
    # The solver finds the same words whatever its seed, but not at the same times.
    one = Opponent("solver", 1).play(board(5), STANDARD, BIG)
    two = Opponent("solver", 2).play(board(5), STANDARD, BIG)
    assert {w for _, w in one} == {w for _, w in two} and one != two


def test_a_list_is_the_same_in_another_process() -> None:
    """No ``hash()``: a process with another hash seed draws the same list."""
    code = (
        "import json, sys; from bigboggle import Opponent, Dictionary, Rules; "
        "from bigboggle.dice import shake; r = Rules.preset('big'); "
        "print(json.dumps(Opponent('club', 99).play(shake(r.dice, 11).board, "
        "Dictionary.builtin('standard'), r, 90)))"
    )
    mine = Opponent("club", 99).play(board(11), STANDARD, BIG, 90)
    for hash_seed in ("1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        ).stdout
        assert [tuple(item) for item in json.loads(out)] == mine


# -- times -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seconds", [None, 180, 60.5, 5, 0.2])
def test_every_time_is_inside_the_round_and_the_list_is_sorted(seconds: float | None) -> None:
    limit = BIG.timer if seconds is None else seconds
    for strength in STRENGTHS:
        for seed in range(5):
            entries = Opponent(strength, seed).play(board(seed), STANDARD, BIG, seconds)
            assert entries == sorted(entries)
            assert all(0 < at < limit for at, _ in entries)
            words = [entry for _, entry in entries]
            assert len(set(words)) == len(words)
            assert all(entry == entry.lower() and entry.isalpha() for entry in words)


@pytest.mark.parametrize("seconds", [20, 60, 179.5])
def test_a_short_round_is_the_first_part_of_a_usual_one(seconds: float) -> None:
    # A person does not find words faster because the timer is short: an opponent's list in a
    # short round is what it writes in those first seconds of the usual round, so it holds
    # fewer words. Only the solver fits everything into any round.
    margin = min(2.0, seconds / 20)
    for seed in range(6):
        solution = solve(board(seed), STANDARD, BIG)
        for strength in ("beginner", "club", "expert"):
            usual = Opponent(strength, seed).play_solution(solution, STANDARD, BIG)
            short = Opponent(strength, seed).play_solution(solution, STANDARD, BIG, seconds)
            assert short == [(at, entry) for at, entry in usual if at <= seconds - margin]
            # The same when the game's rules carry the short timer (a solo game's options).
            timed = (
                dataclasses.replace(BIG, timer=int(seconds)) if seconds == int(seconds) else None
            )
            if timed is not None:
                assert Opponent(strength, seed).play_solution(solution, STANDARD, timed) == short
        everything = Opponent("solver", seed).play_solution(solution, STANDARD, BIG, seconds)
        assert {entry for _, entry in everything} == {found.word for found in solution}
    expert = [
        len(Opponent("expert", seed).play(board(seed), STANDARD, BIG, length))
        for seed in range(6)
        for length in (15, 180)
    ]
    assert sum(expert[0::2]) < sum(expert[1::2]) / 2


def test_a_round_longer_than_the_usual_one_spreads_the_same_list() -> None:
    for seed in range(4):
        usual = Opponent("club", seed).play(board(seed), STANDARD, BIG)
        longer = Opponent("club", seed).play(board(seed), STANDARD, BIG, 360)
        assert [entry for _, entry in longer] != [] and len(longer) == len(usual)
        assert max(at for at, _ in longer) > max(at for at, _ in usual)


def test_easy_and_short_words_come_early_long_and_hard_ones_late() -> None:
    by_length: dict[str, list[float]] = defaultdict(list)
    by_level: dict[str, list[float]] = defaultdict(list)
    for seed in range(60):
        solution = solve(board(seed), STANDARD, BIG)
        for strength in ("club", "expert", "solver"):
            for at, entry in Opponent(strength, seed).play_solution(solution, STANDARD, BIG):
                if entry not in solution:
                    continue
                if len(entry) == 4:
                    by_length["short"].append(at)
                elif len(entry) >= 7:
                    by_length["long"].append(at)
                level = STANDARD.level(entry) or 0
                if level <= 20:
                    by_level["common"].append(at)
                elif level >= 55:
                    by_level["rare"].append(at)
    assert statistics.mean(by_length["short"]) + 15 < statistics.mean(by_length["long"])
    assert statistics.mean(by_level["common"]) + 10 < statistics.mean(by_level["rare"])
    # A strong player starts at once; nobody writes before reading the board.
    firsts = [Opponent("expert", s).play(board(s), STANDARD, BIG)[0][0] for s in range(30)]
    assert min(firsts) >= 2.0 and statistics.mean(firsts) < 15


def test_an_opponent_finds_commoner_shorter_words_more_often() -> None:
    solution = solve(board(2), STANDARD, BIG)
    common = solution.get("tote") or next(f for f in solution if STANDARD.level(f.word) == 10)
    rare = max(solution, key=lambda f: (STANDARD.level(f.word) or 0, len(f.word)))
    easy = word_difficulty(common, solution.board, STANDARD)
    hard = word_difficulty(rare, solution.board, STANDARD)
    assert easy.rarity < hard.rarity
    for strength in STRENGTHS[:-1]:
        assert chance(SKILL[strength], easy) > chance(SKILL[strength], hard)
        assert chance(SKILL[strength], easy, stem=True) > chance(SKILL[strength], easy)
    assert [chance(SKILL[s], easy) for s in STRENGTHS] == sorted(
        chance(SKILL[s], easy) for s in STRENGTHS
    )
    assert chance(SKILL["solver"], hard) == 1.0


def test_paths_are_counted_up_to_the_cap() -> None:
    grid = Board("TEST/EAAA/SAAA/TAAA")
    assert count_paths(grid, "test", 10) == 2  # along the top row, and down the left column
    assert count_paths(grid, "test", 1) == 1
    assert count_paths(grid, "aaaa", 3) == 3
    assert count_paths(Board("QITA/AAAA/AAAA/AAAA"), "quit", 5) == 1  # one cube: Qu


# -- slips -------------------------------------------------------------------------------------------


def test_weak_opponents_write_invalid_words_that_the_rules_refuse() -> None:
    invalid: dict[str, int] = dict.fromkeys(STRENGTHS, 0)
    valid: dict[str, int] = dict.fromkeys(STRENGTHS, 0)
    verdicts: set[Verdict] = set()
    for seed in range(30):
        solution = solve(board(seed), STANDARD, BIG)
        for strength in STRENGTHS:
            entries = Opponent(strength, seed).play_solution(solution, STANDARD, BIG)
            result = score_round(board(seed), {"bot": [e for _, e in entries]}, BIG, STANDARD)
            for word in result.players["bot"].words:
                assert word.verdict is not Verdict.REPEATED
                if word.verdict is Verdict.SCORED:
                    valid[strength] += 1
                    assert word.word in solution
                else:
                    invalid[strength] += 1
                    verdicts.add(word.verdict)
                    assert word.word not in solution
                    assert word.verdict in (Verdict.NOT_ON_BOARD, Verdict.NOT_IN_DICTIONARY)
    assert invalid["solver"] == 0
    rates = [invalid[s] / valid[s] for s in STRENGTHS[:-1]]
    assert all(rate > 0.02 for rate in rates)
    assert rates[0] > rates[-1]  # the beginner slips more often than the expert
    # Both kinds happen: real words not on the board, and no words at all.
    assert verdicts == {Verdict.NOT_ON_BOARD, Verdict.NOT_IN_DICTIONARY}


def test_slips_are_plausible_neighbours_of_a_word_found() -> None:
    solution = solve(board(12), STANDARD, BIG)
    for found in solution:
        for slip in slip_candidates(found, solution, STANDARD):
            assert slip not in solution and len(slip) >= BIG.min_length
            # A misread real word is one letter from the word; anything else is an inflection.
            misread = (
                len(slip) == len(found.word)
                and sum(a != b for a, b in zip(slip, found.word, strict=True)) == 1
            )
            assert misread or slip in inflections(found.word)
    assert inflections("step") == ["steps", "steped", "steper", "steping"]
    assert inflections("cape") == ["caped", "capes", "caper"]
    assert inflections("pony") == ["ponies", "ponied", "ponier"]
    assert inflections("noted") == inflections("steps") == []


def test_the_solver_finds_every_word_and_nothing_else() -> None:
    for seed in range(5):
        solution = solve(board(seed), STANDARD, BIG)
        entries = Opponent("solver", seed).play_solution(solution, STANDARD, BIG)
        assert sorted(e for _, e in entries) == sorted(f.word for f in solution)
        result = score_round(board(seed), {"bot": [e for _, e in entries]}, BIG, STANDARD)
        assert result.players["bot"].score == solution.total_score


def test_under_the_family_filter_no_opponent_writes_an_offensive_word() -> None:
    family = Rules.preset("big", family=True)
    seen_offensive = False
    for seed in range(40):
        solution = solve(board(seed), STANDARD, family)
        seen_offensive |= any(found.offensive for found in solution)
        for strength in ("beginner", "solver"):
            entries = Opponent(strength, seed).play(board(seed), STANDARD, family)
            assert not any(is_offensive(entry) for _, entry in entries)
    assert seen_offensive  # the boards did hold such words


def test_a_dictionary_without_levels_plays_too() -> None:
    mine = Dictionary.from_words(f.word for f in solve(board(4), STANDARD, BIG))
    assert not mine.has_levels
    entries = Opponent("expert", 3).play(board(4), mine, BIG)
    assert entries and all(0 < at < BIG.timer for at, _ in entries)
    # A word no list grades counts as rare as the huge dictionary's rarest.
    odd = Dictionary.from_words(["xzzx", "tote"])
    grid = Board("XZZX/TOTE/AAAA/AAAA")
    solution = solve(grid, odd, BIG)
    rare = word_difficulty(solution.get("xzzx"), grid, odd)  # type: ignore[arg-type]
    common = word_difficulty(solution.get("tote"), grid, odd)  # type: ignore[arg-type]
    assert rare.rarity > common.rarity


def test_a_list_is_never_longer_than_a_player_may_hand_in() -> None:
    letters = "ab"
    words = {
        "".join(letters[(n >> i) & 1] for i in range(length))
        for length in range(4, 12)
        for n in range(2**length)
    }
    dictionary = Dictionary.from_words(words)
    grid = Board("ABABA/BABAB/ABABA/BABAB/ABABA")
    solution = solve(grid, dictionary, BIG)
    assert solution.count > MAX_LIST_LENGTH
    entries = Opponent("solver", 1).play_solution(solution, dictionary, BIG)
    assert len(entries) == MAX_LIST_LENGTH
    assert entries == sorted(entries)


# -- calibration -------------------------------------------------------------------------------------


def test_each_strength_scores_its_target_share_of_the_points() -> None:
    """The statistics test: over 1,000 seeded Big Boggle boards (which the fit never saw),
    each strength's mean share of the board's points, its list scored alone by the rules, is
    within 2 percentage points of its target. Each board is solved once for all strengths."""
    shares = measure_strengths(BIG, STANDARD, 1000)
    assert [share.strength for share in shares] == STRENGTHS
    for share in shares:
        assert abs(share.points - TARGETS[share.strength]) <= 0.02, share
    words = [share.words for share in shares]
    assert words == sorted(words) and words[-1] == 1.0
    assert shares[-1].invalid == 0 and all(share.invalid > 0 for share in shares[:-1])


# -- the job and the command -------------------------------------------------------------------------


def test_the_job_is_the_opponents_play() -> None:
    text = str(board(8))
    entries = jobs.opponent_entries((), "standard", "big", None, text, "club", 5, 120.0)
    assert entries == Opponent("club", 5).play(text, STANDARD, BIG, 120.0)
    timed = jobs.opponent_entries((), "standard", "big", {"timer": 60}, text, "club", 5, 60)
    assert all(0 < at < 60 for at, _ in timed)
    with pytest.raises(RulesError):
        jobs.opponent_entries((), "standard", "big", None, text, "nobody", 5, 60)
    # Several opponents in one job (the board solved once): each list the same as alone.
    seats = [("club", 5), ("solver", 6), ("beginner", 7)]
    together = jobs.opponents_entries((), "standard", "big", {"timer": 60}, text, seats, 60)
    assert together == [
        jobs.opponent_entries((), "standard", "big", {"timer": 60}, text, strength, seed, 60)
        for strength, seed in seats
    ]


def test_the_command_measures_each_strength_beside_its_target() -> None:
    runner = CliRunner()
    shown = runner.invoke(cli, ["opponents", "--boards", "12"])
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert "12 boards of the big rules" in lines[0]
    rows = {line.split()[0]: line.split()[1:] for line in lines[3:8]}
    assert list(rows) == STRENGTHS
    assert rows["club"][0] == "25.0%" and rows["solver"][1:3] == ["100.0%", "100.0%"]

    as_json = runner.invoke(cli, ["opponents", "--boards", "12", "--json", "--seed", "4"])
    assert as_json.exit_code == 0, as_json.output
    data = json.loads(as_json.stdout)
    assert data["boards"] == 12 and data["rules"] == "big" and data["seed"] == 4
    measured = measure_strengths(BIG, STANDARD, 12, first_seed=4)
    assert data["strengths"] == [share.to_json() for share in measured]

    classic = runner.invoke(cli, ["opponents", "--rules", "classic", "--boards", "3"])
    assert classic.exit_code == 0 and "classic rules" in classic.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["--boards", "0"],
        ["--boards", str(MAX_OPPONENT_BOARDS + 1)],
        ["--boards", "many"],
        ["--rules", "nope"],
        ["--dictionary", "/no/such/file.txt", "--boards", "1"],
    ],
)
def test_the_command_refuses_bad_input_with_exit_2(args: list[str]) -> None:
    result = CliRunner().invoke(cli, ["opponents", *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("Error: ")


def test_the_command_help_has_an_example() -> None:
    result = CliRunner().invoke(cli, ["opponents", "--help"])
    assert result.exit_code == 0 and "bigboggle opponents --boards" in result.stdout

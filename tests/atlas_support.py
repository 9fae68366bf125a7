"""A small real atlas for the atlas's tests: shakes and best-board searches actually run (on
the 4x4 presets, a few hundred boards and a few hundred evaluations each: a second or two)."""

from __future__ import annotations

from bigboggle import Dictionary, Rules
from bigboggle.analysis import shake_tally
from bigboggle.atlas import Atlas, AtlasEntry, BestBoard, Shakes
from bigboggle.search import search_best
from bigboggle.solver import tally_many

#: The searches' budget: enough to find boards far past any shake's, in a blink on 4x4.
EVALUATIONS = 300
#: The long-words objective's shortest long word.
LONG = 6


def real_entry(rules_name: str, words: Dictionary, boards: int, seed: int = 0) -> AtlasEntry:
    """One entry: ``boards`` shakes of the preset's dice from seed ``seed`` tallied, and a
    search for each objective, each the one chunk of ``bigboggle best --restarts 1`` (its
    command finds the same board)."""
    rules = Rules.preset(rules_name)
    tally = shake_tally(rules, words, seed, boards)
    best = []
    for objective, long_length in (("points", None), ("words", None), ("long", LONG)):
        found = search_best(
            rules,
            words,
            objective=objective,  # type: ignore[arg-type]
            long_length=long_length,
            seed=seed,
            max_evaluations=EVALUATIONS,
            seconds=600,
        )
        [(points, count)] = tally_many([found.board], words, rules)
        length = f" --long-length {long_length}" if long_length else ""
        best.append(
            BestBoard(
                objective=objective,  # type: ignore[arg-type]
                long_length=long_length,
                board=str(found.board),
                value=found.value,
                points=points,
                words=count,
                seed=seed,
                restarts=1,  # one seeded search, as `best --restarts 1` runs it
                evaluations=found.evaluations,
                cpu_seconds=round(found.seconds, 3),
                command=(
                    f"bigboggle best --rules {rules_name} --dictionary {words.name} "
                    f"--objective {objective}{length} --seed {seed} "
                    f"--restarts 1 --evaluations {EVALUATIONS}"
                ),
            )
        )
    return AtlasEntry(
        rules_name,
        words.name,
        rules.min_length,
        Shakes(tally.boards, tally.first_seed, tally.point_counts, tally.word_counts),
        tuple(best),
    )


def real_atlas(dictionaries: list[Dictionary], boards: int = 400) -> Atlas:
    """An atlas of the two 4x4 presets under each of ``dictionaries``."""
    entries = tuple(
        real_entry(rules, words, boards)
        for rules in ("classic", "classic-old")
        for words in dictionaries
    )
    return Atlas(
        made="2026-12-02",
        command=f"bigboggle atlas --boards {boards} --rules classic,classic-old",
        cpu_seconds=12.5,
        wall_seconds=7.25,
        workers=1,
        entries=entries,
    )

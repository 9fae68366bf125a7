"""The atlas's data (``bigboggle.atlas``): a real atlas (shakes and searches actually run) round
trips through its JSON, its numbers are those of real runs, the strict reader refuses every kind
of malformed or hostile file naming what is wrong and where, and the CLI's PNG writer
(``cli._atlas_charts``) draws one real PNG per preset."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from atlas_support import LONG, real_atlas
from bigboggle import Dictionary, Rules, solve
from bigboggle.analysis import Distribution, shake_tally
from bigboggle.atlas import Atlas, shipped_atlas
from bigboggle.errors import AtlasError, BoggleError
from bigboggle.limits import (
    MAX_ATLAS_BEST,
    MAX_ATLAS_BYTES,
    MAX_ATLAS_COMMAND,
    MAX_ATLAS_ENTRIES,
    MAX_ATLAS_VALUES,
    MAX_BOARD_TEXT,
)
from bigboggle.solver import tally_many

pytestmark = pytest.mark.once


@pytest.fixture(scope="module")
def common() -> Dictionary:
    return Dictionary.builtin("common")


@pytest.fixture(scope="module")
def atlas(standard: Dictionary, common: Dictionary) -> Atlas:
    return real_atlas([standard, common], boards=300)


@pytest.fixture
def data(atlas: Atlas) -> dict[str, Any]:
    """The atlas's JSON form, a fresh copy for a test to damage."""
    return copy.deepcopy(atlas.to_json())


def refused(data: object) -> str:
    """The message the reader refuses ``data`` with."""
    with pytest.raises(AtlasError) as caught:
        Atlas.from_json(data)
    assert isinstance(caught.value, BoggleError) and isinstance(caught.value, ValueError)
    return str(caught.value)


# -- a real atlas ---------------------------------------------------------------------------------


def test_a_real_atlas_round_trips_through_json_and_a_file(atlas: Atlas, tmp_path: Path) -> None:
    assert Atlas.from_json(json.loads(json.dumps(atlas.to_json()))) == atlas
    path = tmp_path / "atlas.json"
    atlas.save(path)
    loaded = Atlas.load(path)
    assert loaded == atlas
    assert loaded.to_json() == atlas.to_json()
    assert json.loads(path.read_text())["version"] == 1


def test_its_distributions_are_those_of_the_shakes(atlas: Atlas, standard: Dictionary) -> None:
    entry = atlas.entry("classic", "standard")
    assert entry is not None and atlas.entry("big", "standard") is None
    tally = shake_tally(Rules.preset("classic"), standard, 0, 300)
    assert entry.shakes.points == tally.point_counts and entry.shakes.words == tally.word_counts
    assert entry.points == Distribution.of_counts(tally.point_counts)
    assert entry.words.count == 300
    # Where a board stands: Distribution.rank of its points and words.
    board = tally.best[0]
    standing = entry.rank(board.points, board.words)
    assert standing.points_rank == entry.points.rank(board.points) > 0.9
    assert standing.words_rank == entry.words.rank(board.words)
    assert (standing.rules, standing.dictionary, standing.boards) == ("classic", "standard", 300)
    assert entry.rank(0, 0).points_rank == 0.0


def test_its_best_boards_are_real_and_beat_every_shake(atlas: Atlas) -> None:
    for entry in atlas.entries:
        words = Dictionary.builtin(entry.dictionary)
        rules = Rules.preset(entry.rules)
        assert [b.objective for b in entry.best] == ["points", "words", "long"]
        for best in entry.best:
            solution = solve(best.board, words, rules)
            assert (solution.total_score, solution.count) == (best.points, best.words)
            assert best.command.startswith("bigboggle best ")
        points, most_words, long = (entry.best_by(o)[0] for o in ("points", "words", "long"))
        assert points.value == points.points > entry.points.quantiles[-1]
        assert most_words.value == most_words.words
        assert long.long_length == LONG and long.label == f"most words of {LONG}+ letters"
        long_found = solve(long.board, words, rules).words
        assert long.value == sum(1 for w in long_found if len(w.word) >= LONG)
        assert entry.top() is not None and entry.top().points >= points.points  # type: ignore[union-attr]


def test_a_best_boards_command_finds_it_again(atlas: Atlas) -> None:
    from click.testing import CliRunner

    from bigboggle.cli import cli

    entry = atlas.entry("classic", "standard")
    assert entry is not None
    for best in (entry.best_by("points")[0], entry.best_by("long")[0]):
        arguments = best.command.split()[1:]  # after "bigboggle"
        result = CliRunner().invoke(cli, [*arguments, "--json"])
        assert result.exit_code == 0, result.output
        found = json.loads(result.stdout)
        assert (found["board"], found["value"]) == (best.board, best.value)


def test_entries_are_listed_in_the_presets_and_dictionaries_order(atlas: Atlas) -> None:
    assert atlas.presets() == ["classic", "classic-old"]
    assert [e.dictionary for e in atlas.entries_of("classic")] == ["common", "standard"]
    assert atlas.entries_of("superbig") == []


def test_the_shipped_atlas_if_any_reads_and_its_boards_score_as_it_says() -> None:
    shipped = shipped_atlas()
    if shipped is None:
        pytest.skip("no data/atlas.json shipped yet")
    assert shipped_atlas() is shipped  # read once
    for entry in shipped.entries:
        words = Dictionary.builtin(entry.dictionary)
        rules = Rules.preset(entry.rules)
        tallies = tally_many([b.board for b in entry.best], words, rules)
        assert tallies == [(b.points, b.words) for b in entry.best], entry.rules


# -- the strict reader ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("damage", "where"),
    [
        (lambda d: d.update(version=2), "version: this bigboggle reads atlas version 1"),
        (lambda d: d.update(version=True), "version:"),
        (lambda d: d.pop("made"), "made: missing"),
        (lambda d: d.update(made="yesterday"), "made: expected an ISO date"),
        (lambda d: d.update(made="2026-13-40"), "made: expected an ISO date"),
        (lambda d: d.update(extra=1), "unknown key 'extra'"),
        (lambda d: d.update(cpu_seconds=-1), "cpu_seconds: must be between 0"),
        (lambda d: d.update(wall_seconds="10"), "wall_seconds: must be a number of seconds"),
        (lambda d: d.update(wall_seconds=float("nan")), "wall_seconds: must be between"),
        (lambda d: d.update(workers=0), "workers: must be between 1"),
        (lambda d: d.update(workers=2.5), "workers: must be a whole number"),
        (lambda d: d.update(command="a\nb"), "command: must be one line of printable text"),
        (lambda d: d.update(command="x" * (MAX_ATLAS_COMMAND + 1)), "command: at most 1,000"),
        (lambda d: d.update(entries={}), "entries: expected a list, got an object"),
        (lambda d: d["entries"][1].update(rules="mega"), "entries[1].rules: unknown preset 'mega'"),
        (lambda d: d["entries"][0].update(rules=["big"]), "entries[0].rules: unknown preset"),
        (
            lambda d: d["entries"][0].update(dictionary="/etc/passwd"),
            "entries[0].dictionary: unknown dictionary '/etc/passwd'",
        ),
        (lambda d: d["entries"][0].update(min_length=99), "entries[0].min_length: must be between"),
        (
            lambda d: d["entries"].append(copy.deepcopy(d["entries"][0])),
            "entries[4]: a second entry for classic with the standard dictionary",
        ),
        (
            lambda d: d["entries"][0]["distribution"].update(boards=0),
            "entries[0].distribution.boards: must be between 1",
        ),
        (
            lambda d: d["entries"][0]["distribution"].update(boards=301),
            "entries[0].distribution.points: the counts add up to 300 boards, not 301",
        ),
        (
            lambda d: d["entries"][0]["distribution"].update(seed=-3),
            "entries[0].distribution.seed: must be between 0",
        ),
        (
            lambda d: d["entries"][0]["distribution"]["points"].__setitem__(0, [5, -1]),
            "entries[0].distribution.points[0][1]: must be between 1",
        ),
        (
            lambda d: d["entries"][0]["distribution"]["points"].__setitem__(0, [-5, 1]),
            "entries[0].distribution.points[0][0]: must be between 0",
        ),
        (
            lambda d: d["entries"][0]["distribution"]["words"].__setitem__(2, [1, 2, 3]),
            "entries[0].distribution.words[2]: expected [value, count]",
        ),
        (
            lambda d: d["entries"][0]["distribution"]["words"].__setitem__(1, {"v": 1}),
            "entries[0].distribution.words[1]: expected [value, count], got an object",
        ),
        (
            lambda d: d["entries"][0]["distribution"]["points"].append(
                list(d["entries"][0]["distribution"]["points"][0])
            ),
            "is counted twice",
        ),
        (
            lambda d: d["entries"][3]["best"][1].update(value="12"),
            "entries[3].best[1].value: must be a whole number",
        ),
        (
            lambda d: d["entries"][3]["best"][1].update(value=1.5),
            "entries[3].best[1].value: must be a whole number",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(
                value=d["entries"][0]["best"][0]["value"] + 1
            ),
            "entries[0].best[0].value:",
        ),
        (
            lambda d: d["entries"][0]["best"][2].update(value=10**6),
            "entries[0].best[2].value: 1,000,000 long words, but the board has",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(objective="fame"),
            "entries[0].best[0].objective: unknown objective 'fame'",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(long_length=7),
            "entries[0].best[0].long_length: must be null",
        ),
        (
            lambda d: d["entries"][0]["best"][2].update(long_length=None),
            "entries[0].best[2].long_length: must be a whole number",
        ),
        (
            lambda d: d["entries"][0]["best"][2].update(long_length=2),
            "entries[0].best[2].long_length: must be between 3",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(board="LINES/TQARD/HEMOP/ABCKI/PSTEW"),
            "entries[0].best[0].board: a classic board is 4x4, this one is 5x5",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(board="<script>alert(1)</script>"),
            "entries[0].best[0].board: unexpected character '<'",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(board="AB*CD/EFGH/IJKL/MNOP"),
            "entries[0].best[0].board:",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(board="ABCD/EFGH/IJKL/MNO*P"),
            "no challenge cube",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(board="A" * (MAX_BOARD_TEXT + 1)),
            "entries[0].best[0].board: at most 800 characters",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(board=None),
            "entries[0].best[0].board: must be text, got null",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(seed=2**64),
            "entries[0].best[0].seed: must be between 0",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(cpu_seconds=float("inf")),
            "entries[0].best[0].cpu_seconds:",
        ),
        (
            lambda d: d["entries"][0]["best"][0].pop("command"),
            "entries[0].best[0].command: missing",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(command=""),
            "entries[0].best[0].command: must be one line",
        ),
        (
            lambda d: d["entries"][0]["best"][0].update(hack=1),
            "entries[0].best[0]: unknown key 'hack'",
        ),
        (
            lambda d: d["entries"][0].update(best=[1]),
            "entries[0].best[0]: expected an object, got the number 1",
        ),
    ],
)
def test_a_damaged_atlas_is_refused_naming_what_and_where(
    data: dict[str, Any], damage: Any, where: str
) -> None:
    damage(data)
    assert where in refused(data)


def test_anything_but_an_object_is_refused() -> None:
    assert refused([1, 2]) == "atlas: expected an object, got a list"
    assert refused(None) == "atlas: expected an object, got null"
    assert "expected an object" in refused("x" * 10_000)


def test_sizes_are_bounded(data: dict[str, Any]) -> None:
    entry = data["entries"][0]
    many = dict(data, entries=[entry] * (MAX_ATLAS_ENTRIES + 1))
    assert f"entries: at most {MAX_ATLAS_ENTRIES} entries, got 201" in refused(many)
    best = dict(entry, best=[entry["best"][0]] * (MAX_ATLAS_BEST + 1))
    assert f"entries[0].best: at most {MAX_ATLAS_BEST} best boards" in refused(
        dict(data, entries=[best])
    )
    values = [[value, 1] for value in range(MAX_ATLAS_VALUES + 1)]
    huge = dict(entry, distribution=dict(entry["distribution"], points=values))
    assert "entries[0].distribution.points: at most 100,000 values, got 100,001" in refused(
        dict(data, entries=[huge])
    )


def test_text_is_bounded_before_it_is_parsed(tmp_path: Path) -> None:
    with pytest.raises(AtlasError, match="the limit is 16000000"):
        Atlas.from_text(" " * (MAX_ATLAS_BYTES + 1))
    with pytest.raises(AtlasError, match="':' characters"):
        Atlas.from_text("{" + '"a":1,' * 200_000 + "}")
    with pytest.raises(AtlasError, match="not valid JSON"):
        Atlas.from_text("{not json")
    with pytest.raises(AtlasError, match="nested too deeply"):
        Atlas.from_text("[" * 100_000)
    with pytest.raises(AtlasError, match="more than 4300 digits"):
        Atlas.from_text('{"version": 1' + "0" * 5000 + "}")
    with pytest.raises(AtlasError, match=r"duplicate key 'version': each key may appear once$"):
        Atlas.from_text('{"version": 1, "version": 1}')
    big = tmp_path / "big.json"
    with big.open("wb") as file:
        file.truncate(MAX_ATLAS_BYTES + 10)
    with pytest.raises(AtlasError, match="larger than 16,000,000 bytes"):
        Atlas.load(big)
    binary = tmp_path / "binary.json"
    binary.write_bytes(b'{"version": 1, "made": "\xff"}')
    with pytest.raises(AtlasError, match="not UTF-8"):
        Atlas.load(binary)
    with pytest.raises(AtlasError, match="cannot read the atlas"):
        Atlas.load(tmp_path / "nowhere.json")
    with pytest.raises(AtlasError, match="cannot read the atlas"):
        Atlas.load(tmp_path)  # a folder


def test_a_file_error_names_the_file_and_the_place(atlas: Atlas, tmp_path: Path) -> None:
    data = atlas.to_json()
    data["entries"][2]["best"][1]["words"] = -4
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(AtlasError) as caught:
        Atlas.load(path)
    message = str(caught.value)
    assert str(path) in message and "entries[2].best[1].words: must be between 0" in message


def test_an_atlas_that_would_not_read_is_not_written(atlas: Atlas, tmp_path: Path) -> None:
    entry = atlas.entries[0]
    wrong = dataclasses.replace(entry.best[0], value=entry.best[0].points + 1)
    broken = dataclasses.replace(
        atlas, entries=(dataclasses.replace(entry, best=(wrong,)), *atlas.entries[1:])
    )
    with pytest.raises(AtlasError, match=r"entries\[0\]\.best\[0\]\.value"):
        broken.save(tmp_path / "broken.json")
    assert not (tmp_path / "broken.json").exists()


def test_an_empty_atlas_is_an_atlas(data: dict[str, Any]) -> None:
    data["entries"] = []
    empty = Atlas.from_json(data)
    assert empty.entries == () and empty.presets() == []
    assert Atlas.from_text(empty.dumps()) == empty


# -- the CLI's PNGs -------------------------------------------------------------------------------


def test_atlas_charts_writes_one_png_per_preset(atlas: Atlas, tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    import matplotlib.image

    from bigboggle.cli import _atlas_charts

    folder = tmp_path / "charts"
    written = _atlas_charts(atlas, folder)
    assert written == [str(folder / "atlas-classic.png"), str(folder / "atlas-classic-old.png")]
    for path in written:
        raw = Path(path).read_bytes()
        assert raw.startswith(b"\x89PNG\r\n\x1a\n")
        image = matplotlib.image.imread(path)
        height, width = image.shape[:2]
        assert (width, height) == (1100, 400)  # two dictionaries' panels, 5.5 x 4 in at 100 dpi
        assert image.std() > 0.05  # drawn, not blank

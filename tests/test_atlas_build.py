"""Computing an atlas (atlas_build.py and ``bigboggle atlas``): real shakes and searches, the
same atlas on one process and on a 2-worker Dask cluster, a stopped build resumed from its
checkpoints, and the command line's files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, tally_many
from bigboggle.atlas import Atlas
from bigboggle.atlas_build import AtlasPlan, build_atlas
from bigboggle.cluster import DaskEngine, LocalEngine
from bigboggle.errors import RulesError

pytestmark = pytest.mark.once

PLAN = AtlasPlan(
    presets=("classic", "classic-old"),
    dictionaries=("common", "standard"),
    boards=1200,
    seed=5,
    restarts=2,
    evaluations=1200,
)


def _without_timing(data: dict[str, Any]) -> dict[str, Any]:
    """The atlas less what depends on the machine (its times, its workers)."""
    kept = {k: v for k, v in data.items() if k not in ("cpu_seconds", "wall_seconds", "workers")}
    kept["entries"] = [
        {**entry, "best": [{**b, "cpu_seconds": 0} for b in entry["best"]]}
        for entry in data["entries"]
    ]
    return kept


def test_an_atlas_holds_real_shakes_and_searches() -> None:
    data, complete = build_atlas(PLAN, LocalEngine())
    assert complete
    atlas = Atlas.from_json(data)  # the reader's every check passes
    assert [(e.rules, e.dictionary) for e in atlas.entries] == [
        ("classic", "common"),
        ("classic", "standard"),
        ("classic-old", "common"),
        ("classic-old", "standard"),
    ]
    for entry in atlas.entries:
        assert entry.shakes.boards == 1200 and sum(entry.shakes.points.values()) == 1200
        assert {b.objective for b in entry.best} == {"points", "words", "long"}
        words = Dictionary.builtin(entry.dictionary)
        rules = Rules.preset(entry.rules)
        for best in entry.best:
            ((points, count),) = tally_many([best.board], words, rules)
            assert (best.points, best.words) == (points, count)
            assert f"--seed {best.seed}" in best.command and "--restarts 1" in best.command
        # The best board by points beats every shaken board.
        assert max(b.points for b in entry.best_by("points")) >= max(entry.shakes.points)
    assert data["command"].startswith("bigboggle atlas --rules=classic,classic-old")


def test_the_same_atlas_on_a_cluster_and_resumed(tmp_path: Path) -> None:
    here, _ = build_atlas(PLAN, LocalEngine())
    folder = str(tmp_path / "work")
    parts: list[str] = []

    def stop_in_the_third_part(part: str, done: int, total: int, rate: float | None) -> None:
        if part not in parts:
            parts.append(part)
        if len(parts) == 3:
            raise KeyboardInterrupt

    partial, complete = build_atlas(
        PLAN, LocalEngine(), checkpoints=folder, progress=stop_in_the_third_part
    )
    assert not complete and partial["entries"] == []
    assert len(list(Path(folder).glob("*.ckpt"))) == 3
    with DaskEngine(workers=2) as engine:
        resumed, complete = build_atlas(PLAN, engine, checkpoints=folder)
    assert complete and resumed["workers"] == 2
    assert _without_timing(resumed) == _without_timing(here)


def test_an_atlas_plan_refuses_what_it_cannot_build() -> None:
    with pytest.raises(RulesError, match="unknown preset 'mega'"):
        AtlasPlan(presets=("mega",))
    with pytest.raises(RulesError, match="built-ins"):
        AtlasPlan(dictionaries=("./words.txt",))
    with pytest.raises(RulesError, match="unknown objective"):
        AtlasPlan(objectives=("fun",))  # type: ignore[arg-type]


def _atlas_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bigboggle", "atlas", *args],
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_the_atlas_command_writes_the_atlas_and_its_charts(tmp_path: Path) -> None:
    out = tmp_path / "atlas"
    done = _atlas_cli(
        "--rules=classic",
        "--dictionaries=common",
        "--objectives=points,long",
        "--boards",
        "800",
        "--restarts",
        "2",
        "--evaluations",
        "1000",
        "--out",
        str(out),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["complete"] is True
    atlas = Atlas.load(out / "atlas.json")
    (entry,) = atlas.entries
    assert {b.objective for b in entry.best} == {"points", "long"}
    chart = Path(report["charts"][0])
    assert chart.name == "atlas-classic.png" and chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The command the atlas gives computes it again: the same boards.
    again = atlas.command.split()[2:]
    redone = _atlas_cli(*again, "--out", str(tmp_path / "again"))
    assert redone.returncode == 0, redone.stderr
    second = Atlas.load(tmp_path / "again" / "atlas.json")
    assert [b.board for b in second.entries[0].best] == [b.board for b in entry.best]
    # --from draws an existing atlas's charts without computing.
    drawn = _atlas_cli("--from", str(out / "atlas.json"), "--out", str(tmp_path / "charts"))
    assert drawn.returncode == 0, drawn.stderr
    assert (tmp_path / "charts" / "atlas-classic.png").exists()


def test_the_atlas_command_names_what_is_wrong(tmp_path: Path) -> None:
    for args, message in (
        (["--rules=classic,mega"], "unknown name 'mega'"),
        (["--rules=classic,classic"], "give each name once"),
        (["--dictionaries=./mine.txt"], "unknown name './mine.txt'"),
        (["--workers", "2"], "add --cluster"),
    ):
        done = _atlas_cli(*args, "--boards", "10", "--out", str(tmp_path / "x"))
        assert done.returncode != 0 and message in done.stderr, (args, done.stderr)
        assert "Traceback" not in done.stderr
    # A plan refused leaves no folder behind (the options are checked before any is made).
    done = _atlas_cli(
        "--rules=mega", "--out", str(tmp_path / "o"), "--checkpoints", str(tmp_path / "c")
    )
    assert done.returncode == 2 and not (tmp_path / "o").exists()
    assert not (tmp_path / "c").exists()
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2}')
    done = _atlas_cli("--from", str(bad), "--out", str(tmp_path / "y"))
    assert (
        done.returncode != 0 and "Traceback" not in done.stderr and "made: missing" in done.stderr
    )

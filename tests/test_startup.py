"""What a fresh ``bigboggle solve BOARD --json`` process loads, and the shortcuts that keep it lean.

Start-up is most of that command's time (its whole process has a budget of 120 ms), so the
modules it needs not stay unloaded: the pure-Python core while the compiled one runs, the
statistics for a word list they cannot describe, the thread pool, the random seeds, sockets,
platformdirs. Each check runs the command in a fresh interpreter and reads its
``sys.modules``; none is timed. The shortcuts taken for it (the cache directory answered
without platformdirs, the standing skipped for users' word lists, a first solve that spells
its words rather than splitting the dictionary's) are checked against what they stand in for.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bigboggle import Dictionary, Rules, implementation, shake, solve
from bigboggle.analysis import shipped
from bigboggle.dice import DICE_SETS
from bigboggle.dictionary import BUILTIN_LEVELS

#: Each test starts interpreters of its own, which choose their core themselves: run once.
pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"

#: Modules no ``solve --json`` loads: the reference core, the rest of the library (rounds,
#: scoring, opponents, the search, services and front ends), and standard modules it has no
#: use for (each costs milliseconds: concurrent.futures brings logging, secrets brings hmac;
#: importlib.resources brings zipfile and tempfile, where the package's data is plain files).
NEVER = (
    "bigboggle._solve_py",
    "bigboggle.round",
    "bigboggle.round_input",
    "bigboggle.scoring",
    "bigboggle.judge",
    "bigboggle.verdicts",
    "bigboggle.opponents",
    "bigboggle.search",
    "bigboggle.services",
    "bigboggle.tui",
    "bigboggle.web",
    "concurrent.futures",
    "asyncio",
    "multiprocessing",
    "logging",
    "socket",
    "secrets",
    "importlib.metadata",
    "runpy",
    "importlib.resources",
    "zipfile",
)

#: Runs ``bigboggle`` with the arguments in ``sys.argv[1:]`` as the script does, then prints
#: the modules loaded by then as JSON on stderr's last line (stdout is the command's).
_PROBE = """
import json, sys
from bigboggle.cli import main
try:
    main(sys.argv[1:])
except SystemExit as done:
    if done.code:
        raise
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""

needs_compiled = pytest.mark.skipif(
    not implementation.compiled_available(), reason="the compiled core is not built here"
)


def _loaded(args: list[str], environ: dict[str, str]) -> tuple[dict[str, Any], set[str]]:
    """The JSON ``bigboggle solve`` printed, and every module the process had loaded."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *args],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), set(json.loads(done.stderr.splitlines()[-1]))


def _environment(cache: Path) -> dict[str, str]:
    """This environment with a cache of its own (so nothing of the user's is read or written)
    found through ``$XDG_CACHE_HOME``, as most users' is, and the compiled core chosen."""
    environ = {k: v for k, v in os.environ.items() if k != "BIGBOGGLE_CACHE_DIR"}
    environ.pop("BIGBOGGLE_PURE_PYTHON", None)
    environ["XDG_CACHE_HOME"] = str(cache)
    return environ


def _unwanted(modules: set[str], names: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


@needs_compiled
def test_solving_with_a_word_list_loads_neither_the_reference_core_nor_the_statistics(
    tmp_path: Path,
) -> None:
    words = tmp_path / "words.txt"
    words.write_text("lines\nline\nlinea\nzzzz\n")
    args = ["solve", BOARD, "--json", "--dictionary", str(words)]
    environ = _environment(tmp_path / "cache")
    for _ in range(2):  # the first run prepares the list and caches it, the second loads it
        data, modules = _loaded(args, environ)
        assert data["implementation"] == "c"
        assert "line" in {entry["word"] for entry in data["words"]}
        assert "standing" not in data
        assert _unwanted(modules, (*NEVER, "bigboggle.analysis")) == []
    if sys.platform == "linux":  # the cache directory came without platformdirs
        assert "platformdirs" not in modules
    if importlib.util.find_spec("_blake2") is not None:  # the cache key without OpenSSL
        assert _unwanted(modules, ("hashlib", "_hashlib")) == []
    assert list((tmp_path / "cache" / "bigboggle").glob("*.trie"))


@needs_compiled
def test_solving_with_a_built_in_dictionary_loads_only_the_statistics_besides(
    tmp_path: Path,
) -> None:
    args = ["solve", BOARD, "--json"]
    data, modules = _loaded(args, _environment(tmp_path / "cache"))
    assert data["dictionary"] == "standard"
    assert "standing" in data  # the statistics were needed, and loaded
    assert "bigboggle.analysis" in modules
    assert _unwanted(modules, NEVER) == []


def test_shipped_statistics_are_of_built_in_dictionaries_only() -> None:
    """``bigboggle solve`` skips the standing of a board solved with any other dictionary,
    without loading the statistics: a distribution of another dictionary would be missed."""
    assert {stats.dictionary for stats in shipped().values()} <= set(BUILTIN_LEVELS)


# -- the cache directory without platformdirs ---------------------------------------------------

_COMPARE = """
import json, platformdirs
from bigboggle import cache
print(json.dumps([cache._user_cache_dir(), platformdirs.user_cache_dir("bigboggle", appauthor=False)]))
"""


@pytest.mark.skipif(sys.platform != "linux", reason="the shortcut is for Linux only")
@pytest.mark.parametrize(
    "variables",
    [
        {"HOME": "/home/ann"},
        {"HOME": "/home/ann/"},
        {"HOME": "/"},
        {"HOME": "//home/ann"},
        {"HOME": "/home/ann", "XDG_CACHE_HOME": "/var/tmp/ann-cache"},
        {"HOME": "/home/ann", "XDG_CACHE_HOME": "/var/tmp/ann-cache/"},
        {"HOME": "/home/ann", "XDG_CACHE_HOME": ""},
        {"HOME": "/home/ann", "XDG_CACHE_HOME": "   "},
        {"HOME": "/home/ann", "XDG_CACHE_HOME": "relative/cache"},
        {"HOME": "relative"},
        {"HOME": ""},
        {},
        {"HOME": "/home/ann", "ANDROID_DATA": "/data", "ANDROID_ROOT": "/system"},
    ],
)
def test_the_cache_directory_is_platformdirs_own_answer(variables: dict[str, str]) -> None:
    environ = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    environ.update(variables)
    done = subprocess.run(
        [sys.executable, "-c", _COMPARE],
        capture_output=True,
        text=True,
        env=environ,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    ours, theirs = json.loads(done.stdout)
    assert ours == theirs


# -- the first solve of a dictionary spells its words rather than splitting the list -----------


@needs_compiled
def test_a_first_solve_without_the_word_list_finds_what_a_solve_with_it_finds(
    tmp_path: Path, solver_core: str
) -> None:
    """A cached dictionary keeps its words as one blob; its first solve gives the compiled core
    blanks for the list and spells each word from its path. Every board here (every dice set,
    the challenge cube, blanks, two-letter faces) gets exactly the solution of a solve with
    the list, and the list is made only at a dictionary's second solve."""
    source = tmp_path / "words.txt"
    source.write_text("\n".join(Dictionary.builtin("standard").word_list) + "\n")
    listed = Dictionary.from_file(source)
    assert listed.word_list  # made now: later solves of it all use the list
    boards = [
        shake(name, seed, challenge=seed % 3 == 0).board for name in DICE_SETS for seed in range(8)
    ]
    assert any(board.challenge is not None for board in boards)
    for board in boards:
        for rules in (Rules.preset("big"), Rules.preset("superbig", min_length=3)):
            fresh = Dictionary.from_file(source)
            assert solve(board, fresh, rules) == solve(board, listed, rules)
    once = Dictionary.from_file(source)
    solve(boards[0], once)
    assert once._word_list is None  # the first solve split nothing
    assert solve(boards[1], once) == solve(boards[1], listed)
    assert once._word_list is not None  # the second made the list

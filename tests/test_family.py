"""The family filter: the shipped list of offensive words, the ``"offensive"`` key of every word
JSON the core makes, the rules option ``family`` (verdict ``refused``), the solver's omission
flag, and the maintainer script that builds the list."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import sys
import tarfile
import tomllib
from importlib import resources
from pathlib import Path
from types import ModuleType

import pytest
from fastapi.testclient import TestClient

from bigboggle import Board, Dictionary, Round, Rules, score_round, solve
from bigboggle.errors import RulesError
from bigboggle.family import OFFENSIVE, is_offensive
from bigboggle.judge import Judge
from bigboggle.rules import RULES_OPTIONS, check_options
from bigboggle.services.paper_games import PaperTournaments
from bigboggle.services.rooms import RoomSettings
from bigboggle.services.shelf import DictionaryShelf
from bigboggle.services.store import Store
from bigboggle.verdicts import VERDICT_LABELS, Verdict
from bigboggle.web import create_app
from conftest import FakeClock

# Nothing here depends on the solver core (both cores are compared elsewhere).
pytestmark = pytest.mark.once

ROOT = Path(__file__).resolve().parents[1]

# S H I T      shit: row 0; hit, she; tick: t i c k down the right
# A E L C      luck, fuck: the third row
# F U C K      dog, dogs: the last row
# D O G S
BOARD = "SHIT/AELC/FUCK/DOGS"
WORDS = Dictionary.from_words(["shit", "fuck", "hit", "she", "tick", "luck", "dog", "dogs"])
CLASSIC = Rules.preset("classic")
FAMILY = Rules.preset("classic", family=True)


# -- the list ------------------------------------------------------------------------------------


def test_the_list_loads_and_holds_only_playable_lowercase_words() -> None:
    assert len(OFFENSIVE) > 150
    assert all(re.fullmatch(r"[a-z]{3,}", word) for word in OFFENSIVE)
    for word in ("fuck", "shit", "cunt", "whore", "nigger", "fucked", "sluts", "cunts", "porn"):
        assert is_offensive(word), word


@pytest.mark.parametrize(
    "word",
    [
        # Substrings of offensive words ("Scunthorpe"): the match is by whole word.
        "class",
        "scunthorpe",
        "assess",
        "assassin",
        "cocktail",
        "therapist",
        "grape",
        "shiitake",
        "title",
        "penistone",
        "dickens",
        "analysis",
        "circumstance",
        "spices",  # not a plural of "spic": plurals come from the dictionary with care
        # Everyday words one source flags and the other does not (or rates as clean text).
        "butt",
        "escort",
        "skeet",
        "pegging",
        "shrimping",
        "domination",
        "hardcore",
        "niggle",
        "tinker",
        "spit",
        "cocky",
        "booby",
        "spunky",
        # Everyday and clinical words (SCOWL's common list) that cuss rates only "maybe"
        # profane, or with a common innocent sense: a word game lets a child play them.
        "tit",  # a bird
        "tits",
        "cock",  # a rooster
        "cocks",
        "ass",  # a donkey
        "asses",
        "rape",  # a plant (oilseed rape)
        "rapes",
        "snatch",
        "snatches",
        "sucker",
        "scat",
        "sex",
        "sexes",
        "sexual",
        "intercourse",
        "nipple",
        "rectum",
        "penis",
        "vagina",
        "incest",
        "nude",
    ],
)
def test_innocent_words_are_not_offensive(word: str) -> None:
    assert not is_offensive(word)


@pytest.mark.parametrize("word", ["bitch", "dick", "pussy", "shit", "porn"])
def test_everyday_words_whose_everyday_sense_is_vulgar_stay_offensive(word: str) -> None:
    """The build's corrections (ALWAYS_OFFENSIVE): cuss rates these "maybe", but the sense a
    child meets first is the vulgar one, so a family filter hides them."""
    assert is_offensive(word)


def test_the_data_and_its_licence_are_package_data() -> None:
    data = resources.files("bigboggle").joinpath("data")
    words = data.joinpath("offensive.txt").read_text(encoding="utf-8")
    assert words.startswith("# Offensive words for bigboggle's family filter")
    notice = data.joinpath("OFFENSIVE-LICENSE.txt").read_text(encoding="utf-8")
    assert "naughty-words" in notice and "Attribution 4.0 International" in notice
    assert "cuss" in notice and "Titus Wormer" in notice and "MIT" in notice
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "data/*.txt" in pyproject["tool"]["setuptools"]["package-data"]["bigboggle"]
    assert "include src/bigboggle/data/*" in (ROOT / "MANIFEST.in").read_text(encoding="utf-8")


# -- the JSON key --------------------------------------------------------------------------------


def test_solver_words_say_offensive_and_only_then() -> None:
    words = {item["word"]: item for item in solve(BOARD, WORDS, CLASSIC).to_json()["words"]}
    assert words["shit"]["offensive"] is True and words["fuck"]["offensive"] is True
    assert "offensive" not in words["tick"] and "offensive" not in words["dogs"]


def test_judged_and_missed_words_say_offensive_and_only_then() -> None:
    result = score_round(BOARD, {"ann": ["shit", "tick", "nope"]}, CLASSIC, WORDS).to_json()
    judged = {item["word"]: item for item in result["players"]["ann"]["words"]}
    assert judged["shit"]["offensive"] is True and judged["shit"]["verdict"] == "scored"
    assert "offensive" not in judged["tick"] and "offensive" not in judged["nope"]
    missed = {item["word"]: item for item in result["missed"]}
    assert missed["fuck"]["offensive"] is True and "offensive" not in missed["luck"]


# -- the rules option ----------------------------------------------------------------------------


def test_the_family_option_is_a_rules_option_off_by_default() -> None:
    assert "family" in RULES_OPTIONS
    check_options({"family": True}, RULES_OPTIONS, "options")
    assert Rules.preset("big").family is False
    assert FAMILY.family is True and FAMILY.to_json()["family"] is True
    assert "family filter" in FAMILY.describe() and "family" not in CLASSIC.describe()


@pytest.mark.parametrize("value", ["yes", "true", 1, [True]])
def test_a_family_option_that_is_not_a_boolean_is_refused_by_name(value: object) -> None:
    with pytest.raises(RulesError, match=r"option family=.* must be true or false"):
        Rules.preset("big", family=value)


def test_an_unknown_option_lists_family_among_the_options() -> None:
    with pytest.raises(RulesError, match=r"unknown rules option 'famly'; .*family"):
        Rules.preset("big", famly=True)


def test_refused_has_its_own_label_and_is_not_valid() -> None:
    assert VERDICT_LABELS[Verdict.REFUSED] == "not allowed here (family filter)"
    assert not Verdict.REFUSED.is_valid


def test_the_family_filter_refuses_an_offensive_word_and_crosses_nothing_off() -> None:
    lists = {"ann": ["shit", "tick", "hit"], "bob": ["shit", "tick"]}
    plain = score_round(BOARD, lists, CLASSIC, WORDS)
    assert plain.players["ann"].words[0].verdict is Verdict.CROSSED_OFF
    family = score_round(BOARD, lists, FAMILY, WORDS)
    for name in ("ann", "bob"):
        shit = family.players[name].words[0]
        assert (shit.verdict, shit.score, shit.bonus) == (Verdict.REFUSED, 0, 0)
        assert shit.path == ((0, 0), (0, 1), (0, 2), (0, 3))  # it lies on the board
        assert family.players[name].words[1].verdict is Verdict.CROSSED_OFF  # tick: both
    assert family.players["ann"].score == 1  # hit
    alone = score_round(BOARD, {"ann": ["shit"], "bob": ["luck"]}, FAMILY, WORDS)
    assert alone.players["ann"].words[0].verdict is Verdict.REFUSED
    assert alone.players["bob"].words[0].verdict is Verdict.SCORED


def test_refused_comes_after_the_other_refusals_in_designs_order() -> None:
    no_fuck = Dictionary.from_words(["shit", "hit", "tick"])
    judge = Judge(Board.parse(BOARD), FAMILY, no_fuck)
    assert judge.judge("sh1t", 3, set()).verdict is Verdict.NOT_A_WORD
    assert judge.judge("shit", 3, {"shit"}).verdict is Verdict.REPEATED
    assert judge.judge("shit", 5, set()).verdict is Verdict.TOO_SHORT
    assert judge.judge("cunt", 3, set()).verdict is Verdict.NOT_ON_BOARD
    assert judge.judge("fuck", 3, set()).verdict is Verdict.NOT_IN_DICTIONARY
    assert judge.judge("SHIT", 3, set()).verdict is Verdict.REFUSED


def test_under_the_family_filter_the_board_maximum_and_missed_words_leave_offensive_words_out() -> (
    None
):
    plain = score_round(BOARD, {"ann": []}, CLASSIC, WORDS)
    family = score_round(BOARD, {"ann": []}, FAMILY, WORDS)
    assert {"shit", "fuck"} <= {found.word for found in plain.missed}
    assert not {"shit", "fuck"} & {found.word for found in family.missed}
    assert family.solution.total_score == plain.solution.total_score - 2


def test_the_round_engine_answers_refused_at_once() -> None:
    game = Round(BOARD, FAMILY, WORDS, ["ann"])
    game.start(0.0)
    assert game.submit("ann", "shit", 1.0).verdict is Verdict.REFUSED
    assert game.submit("ann", "shit", 2.0).verdict is Verdict.REPEATED
    assert game.submit("ann", "tick", 3.0).verdict is Verdict.SCORED


# -- the web API ---------------------------------------------------------------------------------


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(db_url, clock=clock))


SOLVER_BOARD = "SHIT/AELC/FUCK/DOGS"


def test_api_solve_marks_offensive_words_and_omits_them_when_asked(client: TestClient) -> None:
    asked = {"board": SOLVER_BOARD, "rules": "classic"}
    full = client.post("/api/solve", json=asked).json()
    marked = {item["word"] for item in full["words"] if item.get("offensive")}
    assert {"shit", "fuck"} <= marked and "offensive_omitted" not in full
    assert all(item.get("offensive", True) is True for item in full["words"])
    omitted = client.post("/api/solve", json={**asked, "family": True}).json()
    assert omitted["offensive_omitted"] == len(marked)
    assert omitted["count"] == full["count"] - len(marked) == len(omitted["words"])
    assert not any("offensive" in item for item in omitted["words"])
    assert omitted["total_score"] == sum(item["score"] for item in omitted["words"])


def test_api_solve_refuses_a_family_flag_that_is_not_a_boolean(client: TestClient) -> None:
    answer = client.post("/api/solve", json={"board": SOLVER_BOARD, "family": "yes"})
    assert answer.status_code == 400 and "family" in answer.json()["error"]


def test_api_score_takes_the_family_option(client: TestClient) -> None:
    asked = {"board": BOARD, "rules": "classic", "players": {"ann": ["shit", "tick"]}}
    plain = client.post("/api/score", json=asked).json()
    assert plain["players"]["ann"]["words"][0]["verdict"] == "scored"
    family = client.post("/api/score", json={**asked, "options": {"family": True}}).json()
    shit = family["players"]["ann"]["words"][0]
    assert (shit["verdict"], shit["score"], shit["offensive"]) == ("refused", 0, True)
    bad = client.post("/api/score", json={**asked, "options": {"family": "on"}})
    assert bad.status_code == 400 and "family" in bad.json()["error"]


def test_the_solver_page_marks_offensive_words_for_the_filter(client: TestClient) -> None:
    page = client.get("/solve", params={"board": SOLVER_BOARD, "rules": "classic"})
    assert page.status_code == 200
    items = {
        word: attributes
        for attributes, word in re.findall(
            r'<li([^>]*) data-length="\d+" data-word="([a-z]+)">', page.text
        )
    }
    assert items["shit"] == items["fuck"] == ' class="offensive"'
    assert items["tick"] == items["luck"] == ""
    assert "solve.css" in page.text


# -- the maintainer script -----------------------------------------------------------------------


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "build_family_list", ROOT / "tools" / "build_family_list.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


def _package(path: Path, name: str, files: dict[str, str]) -> Path:
    """An npm package tarball, as ``npm pack`` writes one (files under ``package/``)."""
    with tarfile.open(path, "w:gz") as archive:
        for member, text in {
            "package.json": json.dumps({"name": name, "version": "9.9.9"}),
            **files,
        }.items():
            data = text.encode("utf-8")
            info = tarfile.TarInfo(f"package/{member}")
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


CUSS_INDEX = """/**
 * Map of English profane words to a rating of sureness.
 */
export const cuss = {
  butt: 0,
  fuck: 2,
  fucked: 2,
  'fuck off': 2,
  rape: 1,
  spic: 2,
  shit: 1,
  shits: 1,
  tinker: 2,
  ass: 2,
  nipple: 1,
}
"""


def test_the_script_keeps_what_both_lists_flag_and_their_inflections(tmp_path: Path) -> None:
    tool = _tool()
    naughty = _package(
        tmp_path / "n.tgz",
        "naughty-words",
        {
            "en.json": json.dumps(
                [
                    "Fuck",
                    "date rape",
                    "butt",
                    "rape",
                    "raping",
                    "spic",
                    "shit",
                    "skeet",
                    "xx",
                    "clusterfuck",
                    "shitblimp",
                    "café",
                ]
            ),
            "LICENSE": "Attribution 4.0 International",
        },
    )
    cuss = _package(tmp_path / "c.tgz", "cuss", {"index.js": CUSS_INDEX, "license": "MIT"})
    # No everyday words here: steps 1 to 3 alone (step 4 has its own test below).
    plurals = {"spics", "spices", "rapes", "fucks"}
    count = tool.build(naughty, cuss, tmp_path, dictionary=plurals, everyday=set())
    lines = (tmp_path / "offensive.txt").read_text(encoding="utf-8").splitlines()
    words = [line for line in lines if not line.startswith("#")]
    # fuck, rape, spic, shit: both flag; clusterfuck, shitblimp: built on them; raping: rape
    # less its e; fucked, shits: cuss's inflections; fucks, rapes, spics: plurals the
    # dictionary holds (never "spices"). butt (cuss: clean), skeet (cuss: unknown), tinker
    # (cuss only), phrases and two-letter entries are left out.
    assert words == sorted(
        [
            "clusterfuck",
            "fuck",
            "fucked",
            "fucks",
            "rape",
            "rapes",
            "raping",
            "shit",
            "shitblimp",
            "shits",
            "spic",
            "spics",
        ]
    )
    assert count == len(words) and f"{count} words" in lines[0]
    notice = (tmp_path / "OFFENSIVE-LICENSE.txt").read_text(encoding="utf-8")
    assert "Attribution 4.0 International" in notice and "MIT" in notice
    again = tmp_path / "again"
    tool.build(naughty, cuss, again, dictionary=plurals, everyday=set())
    assert (again / "offensive.txt").read_bytes() == (tmp_path / "offensive.txt").read_bytes()


def test_the_script_keeps_an_everyday_word_only_when_cuss_rates_it_a_profanity(
    tmp_path: Path,
) -> None:
    tool = _tool()
    entries = ["fuck", "rape", "raping", "shit", "ass", "spic", "nipple", "nipples"]
    naughty = _package(
        tmp_path / "n.tgz", "naughty-words", {"en.json": json.dumps(entries), "LICENSE": "x"}
    )
    cuss = _package(tmp_path / "c.tgz", "cuss", {"index.js": CUSS_INDEX, "license": "MIT"})
    everyday = {"fuck", "fucks", "rape", "rapes", "raping", "shit", "ass", "nipple", "nipples"}
    tool.build(naughty, cuss, tmp_path, dictionary={"fucks", "rapes"}, everyday=everyday)
    lines = (tmp_path / "offensive.txt").read_text(encoding="utf-8").splitlines()
    words = [line for line in lines if not line.startswith("#")]
    # fuck (rated 2) and its plural stay; rape (rated 1: maybe), rapes and raping (built on it)
    # and nipple, nipples go; shit (rated 1) stays by ALWAYS_OFFENSIVE, ass (rated 2) goes by
    # NOT_OFFENSIVE; fucked, shits and spic are not everyday words, so stay.
    assert words == ["fuck", "fucked", "fucks", "shit", "shits", "spic"]
    assert set(tool.NOT_OFFENSIVE).isdisjoint(tool.ALWAYS_OFFENSIVE)
    assert all(
        reason.strip() for reason in (*tool.NOT_OFFENSIVE.values(), *tool.ALWAYS_OFFENSIVE.values())
    )


def test_the_script_names_a_line_of_cuss_it_cannot_read(tmp_path: Path) -> None:
    tool = _tool()
    broken = CUSS_INDEX.replace("  shit: 1,", "  shit: maybe,")
    naughty = _package(tmp_path / "n.tgz", "naughty-words", {"en.json": "[]", "LICENSE": "x"})
    cuss = _package(tmp_path / "c.tgz", "cuss", {"index.js": broken, "license": "MIT"})
    with pytest.raises(tool.BuildError, match=r"line 11: unexpected '  shit: maybe,'"):
        tool.build(naughty, cuss, tmp_path, dictionary=set())


# -- the games that take the option --------------------------------------------------------------


def test_a_tournament_with_the_family_option_refuses_offensive_words(
    db_url: str, clock: FakeClock
) -> None:
    tournaments = PaperTournaments(Store(db_url), DictionaryShelf(), clock)
    created = tournaments.create("Sunday", "classic", options={"family": True}, target=50)
    lists = {"ann": ["shit", "tick"], "bob": ["shit"]}
    scored, view = tournaments.add_round(
        created.tournament.id, {"board": BOARD, "players": lists}, created.key
    )
    ann, bob = (scored.result["players"][name]["words"] for name in ("ann", "bob"))
    assert [word["verdict"] for word in ann] == ["refused", "scored"]
    assert bob[0]["verdict"] == "refused" and bob[0]["offensive"] is True
    assert view.to_json()["totals"] == {"ann": 1, "bob": 0}
    with pytest.raises(RulesError, match=r"option family='no' must be true or false"):
        tournaments.create("Monday", options={"family": "no"})


def test_a_rooms_settings_take_the_family_option() -> None:
    settings = RoomSettings.from_json({"rules": "classic", "options": {"family": True}})
    assert settings.ruleset().family is True
    assert RoomSettings.from_json({"rules": "classic"}).ruleset().family is False
    with pytest.raises(RulesError, match=r"option family=1 must be true or false"):
        RoomSettings.from_json({"options": {"family": 1}})


@pytest.mark.parametrize("query", ["family=true", "family=True"])
def test_the_play_page_fills_in_the_family_filter_from_its_query(
    client: TestClient, query: str
) -> None:
    """A replay or "Change settings" link's family filter is checked by the server (scripts or
    not), as the other options are; without it the box is clear."""
    checked = re.compile(r'<input type="checkbox" id="family" checked>')
    assert checked.search(client.get("/play?" + query).text)
    assert not checked.search(client.get("/play").text)

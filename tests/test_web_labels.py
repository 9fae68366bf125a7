"""The web pages' words come from one place per language: the templates take verdict labels and
the underlined faces from the core (``VERDICT_LABELS``, ``UNDERLINED_FACES``); the scripts keep
one copy each (``static/api.js``, ``static/board.js``), checked here against the core's so the
two cannot drift apart."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from bigboggle.dice import UNDERLINED_FACES
from bigboggle.verdicts import VERDICT_LABELS, Verdict
from bigboggle.web import create_app
from conftest import FakeClock

pytestmark = pytest.mark.once

STATIC = Path(__file__).resolve().parents[1] / "src" / "bigboggle" / "web" / "static"
TEMPLATES = STATIC.parent / "templates"
BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"


def js_object(script: str, name: str) -> dict[str, str]:
    """The object literal ``export const NAME = { key: "text", … };`` of ``script``, every line
    of it ``key: "text",`` (anything else is a failure naming the line, not a silent skip)."""
    found = re.search(rf"^export const {name} = \{{\n(.*?)^\}};$", script, re.M | re.S)
    assert found, f"no 'export const {name} = {{ … }};' in the script"
    entries: dict[str, str] = {}
    for line in found.group(1).splitlines():
        entry = re.fullmatch(r'\s*([a-z_]+): "([^"\\]*)",', line)
        assert entry, f"{name}: cannot read the line {line[:80]!r}"
        entries[entry.group(1)] = entry.group(2)
    return entries


def js_string_list(script: str, name: str) -> list[str]:
    """The list literal ``export const NAME = ["A", "B"];`` of ``script``."""
    found = re.search(rf"^export const {name} = \[([^\]\n]*)\];$", script, re.M)
    assert found, f"no 'export const {name} = [ … ];' in the script"
    items = [item.strip() for item in found.group(1).split(",")]
    assert all(re.fullmatch(r'"[A-Z]"', item) for item in items), f"{name}: {found.group(1)!r}"
    return [item.strip('"') for item in items]


def test_the_scripts_verdict_labels_are_pythons() -> None:
    labels = js_object((STATIC / "api.js").read_text(encoding="utf-8"), "VERDICTS")
    assert labels == {verdict.value: verdict.label for verdict in Verdict}
    assert set(VERDICT_LABELS) == set(Verdict)


def test_the_scripts_underlined_faces_are_the_dices() -> None:
    faces = js_string_list((STATIC / "board.js").read_text(encoding="utf-8"), "UNDERLINED_FACES")
    assert sorted(faces) == sorted(UNDERLINED_FACES) and len(faces) == len(set(faces))


def test_no_script_or_template_keeps_a_copy_of_its_own() -> None:
    """Only api.js spells the labels out, only board.js the faces; templates spell neither."""
    for path in [*STATIC.glob("*.js"), *TEMPLATES.glob("*.html")]:
        text = path.read_text(encoding="utf-8")
        if path.name != "api.js":
            assert "not in the dictionary" not in text, path.name
        if path.name != "board.js":
            assert not re.search(r"""["']M["'],\s*["']W["']""", text), path.name


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> TestClient:
    return TestClient(create_app(db_url, clock=clock))


def test_a_finished_games_page_labels_each_verdict_as_python_does(client: TestClient) -> None:
    game = client.post("/api/games", json={"board": BOARD, "player": "ann"}).json()
    key = {"X-Game-Key": game["key"]}
    entries = {
        "lines": Verdict.SCORED,
        "zebra": Verdict.NOT_ON_BOARD,
        "x1y2": Verdict.NOT_A_WORD,
        "sea": Verdict.TOO_SHORT,
        "pomr": Verdict.NOT_IN_DICTIONARY,
    }
    for entry, verdict in entries.items():
        answer = client.post(f"/api/games/{game['id']}/words", json={"word": entry}, headers=key)
        assert answer.status_code == 200, answer.text
        assert answer.json()["result"]["verdict"] == verdict.value, entry
    assert client.post(f"/api/games/{game['id']}/finish", headers=key).status_code == 200
    html = client.get(f"/games/{game['id']}").text  # a repeated entry is not kept in the list
    for verdict in entries.values():
        shown = re.findall(rf'<span class="verdict v-{verdict.value}">([^<]*)</span>', html)
        assert shown and set(shown) == {verdict.label}, verdict


def test_the_servers_board_underlines_the_dices_faces(client: TestClient) -> None:
    html = client.get("/solve", params={"board": BOARD}).text
    underlined = re.findall(r'<div class="cell[^"]*\bunderlined\b[^"]*"[^>]*>([^<]*)</div>', html)
    expected = [face for face in BOARD.replace("/", "") if face in UNDERLINED_FACES]
    assert underlined == expected and expected  # M in HEMOP, W in PSTEW


def test_a_family_games_page_labels_a_refused_word_as_python_does(client: TestClient) -> None:
    """The family filter's verdict (an offensive word under the option ``family``) reads as
    Python's label, and the refused word's item is marked for the pages' filter."""
    game = client.post(
        "/api/games", json={"board": BOARD, "player": "ann", "options": {"family": True}}
    ).json()
    key = {"X-Game-Key": game["key"]}
    answer = client.post(f"/api/games/{game['id']}/words", json={"word": "porn"}, headers=key)
    assert answer.status_code == 200, answer.text
    result = answer.json()["result"]
    assert (result["verdict"], result["score"], result["offensive"]) == ("refused", 0, True)
    assert client.post(f"/api/games/{game['id']}/finish", headers=key).status_code == 200
    html = client.get(f"/games/{game['id']}").text
    item = re.search(r'<li class="offensive">(?:(?!</li>).)*v-refused">([^<]*)</span>', html, re.S)
    assert item and item.group(1) == Verdict.REFUSED.label == "not allowed here (family filter)"

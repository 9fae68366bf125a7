"""The atlas page over HTTP (the ASGI test client, the real worker pool): a real small atlas
served by the operator's setting (``BIGBOGGLE_ATLAS``, or ``create_app(atlas=...)``), its charts
and tables, where a board stands, bad input shown in the page with a 4xx (never a 500), hostile
text escaped, and the page without any atlas."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient

from atlas_support import real_atlas
from bigboggle import Dictionary, Rules
from bigboggle.analysis import shake_tally
from bigboggle.atlas import Atlas
from bigboggle.cli import cli
from bigboggle.dice import shake
from bigboggle.errors import AtlasError
from bigboggle.solver import tally_many
from bigboggle.web import create_app
from bigboggle.web.charts import Mark, histogram, histogram_bins
from conftest import FakeClock

pytestmark = pytest.mark.once


@pytest.fixture(scope="module")
def atlas(standard: Dictionary) -> Atlas:
    return real_atlas([standard, Dictionary.builtin("common")], boards=300)


@pytest.fixture(scope="module")
def atlas_file(atlas: Atlas, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("atlas") / "atlas.json"
    atlas.save(path)
    return path


@pytest.fixture
def client(
    db_url: str, clock: FakeClock, atlas_file: Path, monkeypatch: pytest.MonkeyPatch
) -> TestClient:
    """The app with the operator's atlas, set as an operator sets it: the variable."""
    monkeypatch.setenv("BIGBOGGLE_ATLAS", str(atlas_file))
    return TestClient(create_app(db_url, clock=clock))


def command_html(command: str) -> str:
    """A command as the page writes it: each word unbreakable, breaks between them."""
    words = " ".join(f'<span class="cw">{word}</span>' for word in command.split(" "))
    return f'<code class="command">{words}</code>'


def error_of(html: str) -> str:
    found = re.search(r'<p class="error" role="alert" id="atlas-error">(.*?)</p>', html, re.S)
    assert found is not None, html[-2000:]
    return found.group(1)


def test_the_atlas_page_shows_every_entry_with_its_chart_tables_and_best_boards(
    client: TestClient, atlas: Atlas
) -> None:
    # A game at a time: each game's page holds its entries, and no other's.
    pages = {}
    for preset in atlas.presets():
        page = client.get("/atlas", params={"rules": preset})
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        pages[preset] = page.text
        assert page.text.count('<section class="atlas-preset"') == 1
        for other in atlas.presets():
            linked = f'href="/atlas?rules={other}#preset-{other}"'
            assert linked + (' aria-current="page"' if other == preset else ">") in page.text
    html = "".join(pages.values())
    first = client.get("/atlas").text  # the first game, when the atlas has no big
    assert 'id="entry-classic-common"' in first and 'id="entry-classic-old-common"' not in first
    assert '<a href="/atlas" aria-current="page">Atlas</a>' in html  # in the site's navigation
    assert 'Made 2026-12-02 by <code class="command"><span class="cw">bigboggle</span>' in html
    for entry in atlas.entries:
        ident = f"chart-{entry.rules}-{entry.dictionary}"
        chart = re.search(
            rf'<svg class="chart histogram-chart"[^>]*{ident}-title.*?</svg>', html, re.S
        )
        assert chart is not None, ident
        svg = chart.group(0)
        assert 'role="img"' in svg and f'<title id="{ident}-title">' in svg
        assert f'<desc id="{ident}-desc">300 shakes of the' in svg
        bars = re.findall(r'<rect class="hist-bar"[^>]*><title>([^<]*)</title>', svg)
        assert len(bars) >= 10
        # The bars' boards add up to the shakes, and the table below says the same.
        counted = sum(int(t.rsplit(": ", 1)[1].split()[0].replace(",", "")) for t in bars)
        assert counted == entry.shakes.boards
        assert svg.count('class="hist-mark hist-mark-percentile"') == 3
        assert f"p50 {entry.points.percentile(50):,.0f}" in svg
        words = re.search(
            rf'<svg class="chart histogram-chart"[^>]*{ident}-words-title.*?</svg>', html, re.S
        )
        assert words is not None and f"p50 {entry.words.percentile(50):,.0f}" in words.group(0)
        counted = re.findall(r"<title>[^<]* words: ([0-9,]+) boards</title>", words.group(0))
        assert sum(int(n.replace(",", "")) for n in counted) == entry.shakes.boards
        for best in entry.best:
            assert command_html(best.command) in html
            assert ">" + best.board.replace("/", "/<wbr>") + "</a>" in html
    assert html.count('<section class="atlas-preset"') == 2
    assert html.count("<h4>Best boards found</h4>") == 4
    assert "most words of 6+ letters" in html


def test_a_board_is_placed_on_its_presets_chart(client: TestClient, atlas: Atlas) -> None:
    entry = atlas.entry("classic", "standard")
    assert entry is not None
    board = str(shake(Rules.preset("classic").dice, 1000).board)  # a shake past the atlas's
    [(points, words)] = tally_many([board], Dictionary.builtin("standard"), Rules.preset("classic"))
    page = client.get("/atlas", params={"board": board.lower(), "rules": "classic"})
    assert page.status_code == 200
    html = page.text
    standing = entry.rank(points, words)
    said = (
        f"{board} is better than <strong>{round(100 * standing.points_rank)}%</strong>\n"
        f"    of classic shakes by points and <strong>{round(100 * standing.words_rank)}%</strong>"
        " by words"
    )
    assert said in html
    assert f"Your board: {points:,} points, {words:,} words" in html
    assert 0 < standing.points_rank < 1
    # Marked on classic/standard's charts only: its points, and its words.
    assert html.count('class="hist-mark hist-mark-board"') == 2
    marked = re.search(r'id="chart-classic-standard-title".*?</svg>', html, re.S)
    assert marked is not None and f"your board {points:,}" in marked.group(0)
    marked = re.search(r'id="chart-classic-standard-words-title".*?</svg>', html, re.S)
    assert marked is not None and f"your board {words:,}" in marked.group(0)
    assert f"your board has {words:,} words, more than" in marked.group(0)
    # The same board under the common dictionary: placed on that entry's chart instead.
    common = client.get(
        "/atlas", params={"board": board, "rules": "classic", "dictionary": "common"}
    ).text
    marked = re.search(r'id="chart-classic-common-title".*?</svg>', common, re.S)
    assert marked is not None and "hist-mark-board" in marked.group(0)


def test_a_board_beyond_every_shake_is_marked_at_the_charts_end(
    client: TestClient, atlas: Atlas
) -> None:
    entry = atlas.entry("classic-old", "standard")
    assert entry is not None
    best = entry.best_by("points")[0]
    html = client.get("/atlas", params={"board": best.board, "rules": "classic-old"}).text
    assert "is better than <strong>100%</strong>" in html
    assert f"your board {best.points:,} →" in html


@pytest.mark.parametrize(
    ("query", "said"),
    [
        (
            {"board": "LINES/TQARD/HEMOP/ABCKI/PSTEW", "rules": "classic"},
            "a classic board is 4x4, this one is 5x5",
        ),
        ({"board": "ABCD/EFGH/IJKL/MNO*P", "rules": "classic"}, "no challenge cube"),
        ({"board": "AB/CDE", "rules": "classic"}, "rectangular"),
        (
            {"board": "ABCD/EFGH/IJKL/MNOP", "rules": "big"},
            "the atlas has no big shakes; its games: classic, classic-old",
        ),
        ({"board": "ABCD/EFGH/IJKL/MNOP", "rules": "nope"}, "unknown preset &#39;nope&#39;"),
        (
            {"board": "ABCD/EFGH/IJKL/MNOP", "rules": "classic", "dictionary": "huge"},
            "no classic shakes with the &#39;huge&#39; dictionary; its classic dictionaries: common, standard",
        ),
        (
            {"board": "ABCD/EFGH/IJKL/MNOP", "rules": "classic", "dictionary": "../../etc"},
            "dictionary: the atlas has no classic shakes",
        ),
    ],
)
def test_bad_input_is_shown_in_the_page_with_a_400(
    client: TestClient, query: dict[str, str], said: str
) -> None:
    page = client.get("/atlas", params=query)
    assert page.status_code == 400
    assert said in error_of(page.text)
    assert 'id="chart-classic-standard-title"' in page.text  # the atlas is still shown
    assert 'class="hist-mark hist-mark-board"' not in page.text


def test_hostile_text_is_escaped_everywhere(client: TestClient) -> None:
    evil = '<script>alert("x")</script>'
    page = client.get("/atlas", params={"board": evil, "rules": evil, "dictionary": evil})
    assert page.status_code == 400
    assert "<script>alert" not in page.text
    assert "&lt;script&gt;" in page.text
    board = client.get("/atlas", params={"board": evil, "rules": "classic"})
    assert board.status_code == 400 and "<script>alert" not in board.text
    assert 'value="&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"' in board.text


def test_an_operators_hostile_commands_are_text(
    db_url: str, clock: FakeClock, atlas: Atlas, tmp_path: Path
) -> None:
    data = atlas.to_json()
    evil = '<script>alert(1)</script> "quoted" &amp; ' + "x" * 900
    data["command"] = evil
    data["entries"][0]["best"][0]["command"] = evil
    path = tmp_path / "evil.json"
    path.write_text(json.dumps(data))
    html = TestClient(create_app(db_url, clock=clock, atlas=path)).get("/atlas").text
    assert "<script>alert" not in html
    assert html.count('<span class="cw">&lt;script&gt;alert(1)&lt;/script&gt;</span>') == 2
    assert 'data-copy="&lt;script&gt;alert(1)&lt;/script&gt; &#34;quoted&#34; &amp;amp; x' in html


def test_oversized_and_odd_queries_are_4xx_never_5xx(client: TestClient) -> None:
    for query in (
        {"board": "A" * 801},
        {"rules": "r" * 41, "board": "ABCD/EFGH/IJKL/MNOP"},
        {"dictionary": "d" * 41, "board": "ABCD/EFGH/IJKL/MNOP"},
        {"board": "\x00\x01", "rules": "classic"},
        {"board": "Ａ" * 16, "rules": "classic"},
        {"board": "/" * 700, "rules": "classic"},
    ):
        page = client.get("/atlas", params=query)
        assert 400 <= page.status_code < 500, query
    # An empty board is no question: the atlas, 200.
    assert client.get("/atlas", params={"board": "", "rules": "classic"}).status_code == 200


def test_an_empty_dictionary_choice_is_the_rules_own(client: TestClient) -> None:
    page = client.get(
        "/atlas", params={"board": "SERS/PATG/LINE/SERS", "rules": "classic", "dictionary": ""}
    )
    assert page.status_code == 200 and "standard dictionary)." in page.text


def test_by_default_the_page_shows_the_shipped_atlas(db_url: str, clock: FakeClock) -> None:
    """No operator's atlas: the one the package ships, a game at a time (Big Boggle first),
    every entry with its two charts, and links to the other games."""
    from bigboggle.atlas import shipped_atlas

    shipped = shipped_atlas()
    assert shipped is not None
    client = TestClient(create_app(db_url, clock=clock))
    for preset in shipped.presets():
        page = client.get("/atlas", params={} if preset == "big" else {"rules": preset})
        assert page.status_code == 200 and 'id="no-atlas"' not in page.text
        mine = shipped.entries_of(preset)
        assert page.text.count('<svg class="chart') == 2 * len(mine) == 6
        for entry in shipped.entries:
            shown = f'id="entry-{entry.rules}-{entry.dictionary}"' in page.text
            assert shown == (entry.rules == preset)
        for entry in mine:
            top = entry.top()
            assert top is not None and top.board in page.text
        assert f'href="/atlas?rules={preset}#preset-{preset}" aria-current="page"' in page.text
    placed = client.get("/atlas", params={"board": "LINES/TQARD/HEMOP/ABCKI/PSTEW"})
    assert placed.status_code == 200 and "better than" in placed.text
    assert 'id="entry-big-standard"' in placed.text


def test_an_atlas_of_no_entries_is_said_as_no_atlas(
    db_url: str, clock: FakeClock, atlas: Atlas, tmp_path: Path
) -> None:
    data = dict(atlas.to_json(), entries=[])
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(data))
    client = TestClient(create_app(db_url, clock=clock, atlas=path))
    for query in ({}, {"board": "ABCD/EFGH/IJKL/MNOP", "rules": "classic"}):
        page = client.get("/atlas", params=query)
        assert page.status_code == 200 and 'id="no-atlas"' in page.text


def test_a_bad_operator_atlas_stops_the_start_naming_the_variable(
    db_url: str, tmp_path: Path, atlas: Atlas, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = atlas.to_json()
    data["entries"][1]["distribution"]["points"][0][1] = "many"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data))
    with pytest.raises(
        AtlasError,
        match=r"BIGBOGGLE_ATLAS: .*entries\[1\]\.distribution\.points\[0\]\[1\]: must be a whole number",
    ):
        create_app(db_url, atlas=bad)
    monkeypatch.setenv("BIGBOGGLE_ATLAS", str(tmp_path / "missing.json"))
    result = CliRunner().invoke(cli, ["serve", "--db", db_url, "--port", "1"])
    assert result.exit_code != 0
    assert "Error: BIGBOGGLE_ATLAS: cannot read the atlas" in result.output


def test_the_atlas_argument_serves_a_file_without_the_variable(
    db_url: str, clock: FakeClock, atlas_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("BIGBOGGLE_ATLAS", raising=False)
    client = TestClient(create_app(db_url, clock=clock, atlas=atlas_file))
    page = client.get("/atlas", params={"rules": "classic-old"}).text
    assert 'id="chart-classic-old-common-title"' in page


# -- the histogram drawing itself -----------------------------------------------------------------


class _Svg(HTMLParser):
    """Parses an SVG, refusing nothing: it collects the tags' names and the text."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def test_the_histogram_escapes_its_text_and_bins_exact_counts(standard: Dictionary) -> None:
    tally = shake_tally(Rules.preset("classic"), standard, 0, 200)
    evil = "<script>&'\""
    svg = histogram(
        "h-1", tally.point_counts, title=evil, desc=evil, marks=[Mark(50, evil, "<x>")], unit=evil
    )
    assert "<script>" not in svg and "&lt;script&gt;&amp;" in svg
    parsed = _Svg()
    parsed.feed(str(svg))
    assert "script" not in parsed.tags and "x" not in parsed.tags
    assert 'class="hist-mark hist-mark-percentile"' in svg  # an odd kind falls back
    bins = histogram_bins(tally.point_counts)
    assert sum(b.count for b in bins) == 200
    widths = {b.high - b.low + 1 for b in bins}
    assert len(widths) == 1 and widths.pop() in (1, 2, 5, 10, 20, 50, 100)
    assert bins[0].low <= min(tally.point_counts) and bins[-1].high >= max(tally.point_counts)
    assert histogram_bins({}) == [] and "No boards counted" in histogram(
        "h-2", {}, title="t", desc="d"
    )
    assert histogram_bins({7: 3}) == [type(bins[0])(7, 7, 3)]
    with pytest.raises(ValueError, match="chart id"):
        histogram('"><script>', {1: 1}, title="t", desc="d")

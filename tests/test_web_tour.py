"""Every page and state of the web app in a real browser, at desktop and phone width, in the
light and the dark theme: axe-core (from npm, ``npm ci``) finds no serious or critical
accessibility violation in any of them, and each leaves a screenshot
(``test-artifacts/screenshots/tour-STATE-WIDTH-THEME.png``). Then the keyboard alone: Tab
reaches every control of the main pages with a visible focus ring, and a game is played from
the home page without a mouse. Also: the theme toggle (remembered, applied before the first
paint), the installable app's manifest, and the API docs rendered with every request off this
machine refused.

One server, one browser; each state is reached once and then looked at in all four ways
(the viewport resized, the colour scheme emulated), so the tour stays short."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from browser_support import DESKTOP, PHONE, ROOT, shot
from live_server import LiveServer

pytestmark = pytest.mark.once

STYLE = ROOT / "src" / "bigboggle" / "web" / "static" / "style.css"
SIZES = {"desktop": DESKTOP, "phone": PHONE}
THEMES = ("light", "dark")
BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
#: A board with a handful of words (the solver's list is Tabbed through word by word).
FEW_WORDS = "LINES/ZZZZZ/ZZZZZ/ZZZZZ/ZZZZZ"
#: A 12×12 board (the largest): its letters must fit their cubes too.
BIG_BOARD = "/".join(["ABCDEFGHIJKL", "MNOPQRSTUVWX"] * 6)

#: axe's serious and critical violations, a few nodes each, as plain data. The first run skips
#: building selectors (most of axe's time on a long page); only a failing page is run again
#: with them, to say where.
RUN_AXE = """async () => {
  const serious = (v) => v.impact === "serious" || v.impact === "critical";
  const quick = await window.axe.run(document, { resultTypes: ["violations"], selectors: false });
  if (!quick.violations.some(serious)) return [];
  const result = await window.axe.run(document, { resultTypes: ["violations"] });
  return result.violations
    .filter(serious)
    .map((v) => ({
      id: v.id, impact: v.impact, help: v.help,
      nodes: v.nodes.slice(0, 4).map((n) => ({ target: n.target.join(" "), why: n.failureSummary })),
    }));
}"""


class Tour:
    """Looks at the current state of a tab in every size and theme: a screenshot each, and
    axe's serious or critical violations collected (reported together at the end). The
    screenshots are named ``PREFIX-STATE-SIZE-THEME``."""

    def __init__(self, page: Any, axe: Path, prefix: str = "tour") -> None:
        self.page = page
        self.prefix = prefix
        self.source = axe.read_text()
        self.problems: list[str] = []
        self.looked: list[str] = []

    def look(self, state: str) -> None:
        page = self.page
        if not page.evaluate("Boolean(window.axe)"):
            # Evaluated by the test rather than added as a <script>: the page's CSP, which
            # stays on, refuses inline scripts (add_script_tag's), as it should.
            assert page.evaluate(self.source + "\n;Boolean(window.axe)")
        for size_name, size in SIZES.items():
            page.set_viewport_size(size)
            wide = page.evaluate("document.documentElement.scrollWidth")
            if wide > size["width"]:
                self.problems.append(f"- {state}-{size_name}: the page is {wide} px wide")
            folded = page.evaluate(
                """() => [...document.querySelectorAll(".board")].filter((board) =>
                     board.checkVisibility() && board.getBoundingClientRect().width < 100).length"""
            )
            if folded:
                self.problems.append(f"- {state}-{size_name}: {folded} board(s) under 100 px wide")
            for theme in THEMES:
                page.emulate_media(color_scheme=theme, reduced_motion="reduce")
                label = f"{self.prefix}-{state}-{size_name}-{theme}"
                shot(page, label)
                self.looked.append(label)
                for found in page.evaluate(RUN_AXE):
                    self.problems.append(describe(label, found))
        page.set_viewport_size(SIZES["desktop"])
        page.emulate_media(color_scheme="light")

    def check(self) -> None:
        assert not self.problems, "axe-core found serious or critical violations:\n" + "\n".join(
            self.problems
        )


def describe(label: str, violation: dict[str, Any]) -> str:
    """One violation in a few readable lines: where, what rule, which elements and why."""
    lines = [f"- {label}: {violation['impact']} {violation['id']}: {violation['help']}"]
    for node in violation["nodes"]:
        why = " ".join(node["why"].split())
        lines.append(f"    {node['target']}: {why[:300]}")
    return "\n".join(lines)


@pytest.fixture
def tour(open_page: Callable[..., Any], axe_source: Path) -> Iterator[Tour]:
    """A desktop tab that lets dialogs (the 'end the game?' confirm) through."""
    page = open_page(DESKTOP["width"], DESKTOP["height"], name="tab")
    page.on("dialog", lambda dialog: dialog.accept())
    guide = Tour(page, axe_source)
    yield guide


def test_every_page_in_both_themes_and_widths_has_no_serious_axe_violation(
    tour: Tour, server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = tour.page
    for state, path in (
        ("home", "/"),
        ("solver-results", f"/solve?board={BOARD}"),
        ("play", "/play"),
        ("daily", "/daily"),
        ("rooms", "/rooms"),
        ("rules", "/rules"),
        ("atlas", "/atlas"),
        ("error", "/no/such/page"),
    ):
        page.goto(server.url + path)
        expect(page.locator("main h1")).to_be_visible()
        tour.look(state)
    page.goto(server.url + "/api/docs")
    expect(page.locator(".opblock").first).to_be_visible()
    tour.look("api-docs")

    # The scorekeeper with a scored round, then a tournament started from it.
    page.goto(server.url + "/score")
    page.fill("#board", BOARD)
    for index, (name, words) in enumerate((("ann", "lines tines zzzz"), ("bob", "lines stem"))):
        page.locator(".player-name").nth(index).fill(name)
        page.locator(".player-words").nth(index).fill(words)
    page.locator("#score-button").click()
    expect(page.locator("#round-result h3").first).to_be_visible()
    tour.look("scorekeeper-scored")
    page.locator("#tournament-form button[type=submit]").click()
    page.wait_for_url("**/tournaments/*")
    expect(page.locator("main h1")).to_be_visible()
    tour.look("tournament")

    # A solo game: playing, then its results.
    page.goto(server.url + "/play")
    page.locator("#start-button").click()
    page.wait_for_url("**/games/*")
    page.fill("#word", "lines")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_contain_text("lines")
    tour.look("game-playing")
    page.locator("#end-button").click()
    expect(page.locator("#score-heading")).to_be_visible(timeout=20_000)
    tour.look("game-results")

    # A room: its lobby, a round being played, the round's results (an 8-second round).
    status, room = server.call("POST", "/api/rooms", {"host": "ann", "settings": {"timer": 8}})
    assert status == 201, room
    page.evaluate(
        "([code, token]) => { localStorage.setItem(`bigboggle:room:${code}`, token);"
        " localStorage.setItem('bigboggle:name', 'ann'); }",
        [room["room"], room["token"]],
    )
    page.goto(server.url + room["url"])
    expect(page.locator("#players")).to_contain_text("ann")
    tour.look("room-lobby")
    page.locator("#start-round").click()
    expect(page.locator("#play")).to_be_visible()
    expect(page.locator("#clock")).to_contain_text("0:", timeout=10_000)  # past the countdown
    expect(page.locator("#play .cell").first).to_be_visible()
    tour.look("room-playing")
    expect(page.locator("#results")).to_be_visible(timeout=30_000)
    tour.look("room-results")
    tour.check()


def test_the_cubes_hold_their_letters_on_a_12x12_board(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    """Issue defect 12: every face (Qu included) fits inside its cube, at both widths."""
    from playwright.sync_api import expect

    page = open_page(PHONE["width"], PHONE["height"], name="12x12")
    page.goto(server.url + f"/solve?board={BIG_BOARD}")
    expect(page.locator(".board-wrap .cell").first).to_be_visible()
    for size_name, size in SIZES.items():
        page.set_viewport_size(size)
        shot(page, f"tour-solver-12x12-{size_name}")
        spills = page.evaluate(
            """() => [...document.querySelectorAll(".board-wrap .cell")]
                 .filter((cell) => cell.scrollWidth > cell.clientWidth + 1
                   || cell.scrollHeight > cell.clientHeight + 1)
                 .map((cell) => cell.textContent)"""
        )
        assert spills == [], f"letters spill out of their cubes at {size}: {spills[:10]}"
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


def test_hidden_hides_whatever_the_class_says(page: Any, server: LiveServer) -> None:
    """Issue defect 6: the scorekeeper's Team field (a .field, display: flex) stays hidden
    while team play is off, and shows when it is on."""
    from playwright.sync_api import expect

    page.goto(server.url + "/score")
    team = page.locator(".team-field").first
    expect(team).to_be_hidden()
    page.get_by_label("Team play").check()
    expect(team).to_be_visible()
    page.get_by_label("Team play").uncheck()
    expect(team).to_be_hidden()


def test_the_timer_menu_and_the_checkboxes_sit_in_their_boxes(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    """Issue defect 12's cosmetics on /play: the Timer menu stays within its form at phone
    width and shows its whole text at desktop width, and each checkbox is centred on its
    label's line."""
    page = open_page(PHONE["width"], PHONE["height"], name="play-phone")
    page.goto(server.url + "/play")
    form = page.locator("#play-form").bounding_box()
    timer = page.locator("#timer").bounding_box()
    assert form is not None and timer is not None
    assert timer["x"] >= form["x"] and timer["x"] + timer["width"] <= form["x"] + form["width"]
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for box in ("#advanced", "#challenge"):
        check = page.locator(box).bounding_box()
        label = page.locator(f"label:has({box})").bounding_box()
        assert check is not None and label is not None
        middle = check["y"] + check["height"] / 2
        # Centred on the first line of the label (a line is at most ~1.6rem high).
        assert label["y"] <= middle <= label["y"] + 26, (box, check, label)
        assert check["height"] < 24
    # At desktop width the menu is wide enough for its chosen text (it was cut short).
    page.set_viewport_size(DESKTOP)
    room = page.evaluate(
        """() => {
          const menu = document.getElementById("timer");
          const style = getComputedStyle(menu);
          const pen = document.createElement("canvas").getContext("2d");
          pen.font = style.font;
          const text = pen.measureText(menu.selectedOptions[0].text).width;
          return menu.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - text;
        }"""
    )
    assert room >= 16, f"the Timer menu's text needs {-room:.0f} px more (an arrow takes ~16)"


def test_the_theme_toggle_is_remembered_and_applied_before_the_first_paint(
    page: Any, server: LiveServer
) -> None:
    from playwright.sync_api import expect

    # What <html> says when <body> first appears, before anything is painted.
    page.add_init_script(
        """new MutationObserver((_, observer) => {
             if (document.body) {
               window.themeAtBody = document.documentElement.dataset.theme || "auto";
               observer.disconnect();
             }
           }).observe(document, { childList: true, subtree: true });"""
    )
    page.emulate_media(color_scheme="light")
    page.goto(server.url + "/")
    toggle = page.locator("#theme-toggle")
    expect(toggle).to_be_visible()
    expect(toggle).to_contain_text("auto")
    light = page.evaluate("getComputedStyle(document.body).backgroundColor")
    toggle.click()  # from auto on a light system: dark first
    expect(page.locator("html")).to_have_attribute("data-theme", "dark")
    dark = page.evaluate("getComputedStyle(document.body).backgroundColor")
    assert dark != light and luminance(dark) < luminance(light)
    assert page.evaluate("localStorage.getItem('bigboggle:theme')") == "dark"
    page.goto(server.url + "/rules")
    assert page.evaluate("window.themeAtBody") == "dark"
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == dark
    toggle.click()
    expect(page.locator("html")).to_have_attribute("data-theme", "light")
    toggle.click()
    expect(toggle).to_contain_text("auto")
    assert page.evaluate("document.documentElement.dataset.theme") is None
    page.emulate_media(color_scheme="dark")  # auto follows the system
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == dark


def luminance(css_colour: str) -> float:
    """The relative luminance of ``rgb(r, g, b)``."""
    red, green, blue = (int(part) / 255 for part in re.findall(r"\d+", css_colour)[:3])

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.03928 else ((channel + 0.055) / 1.055) ** 2.4

    return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)


def test_the_two_dark_theme_blocks_of_the_style_sheet_agree() -> None:
    """style.css writes the dark theme twice (the system's preference, the toggle's choice):
    the same properties with the same values."""
    css = STYLE.read_text()
    blocks = re.findall(
        r':root(?::not\(\[data-theme="light"\]\)|\[data-theme="dark"\]) \{([^}]*)\}', css
    )
    assert len(blocks) == 2
    first, second = ({d.strip() for d in block.split(";") if d.strip()} for block in blocks)
    assert first == second
    light = re.search(r"^:root \{([^}]*)\}", css, re.M)
    assert light is not None
    names = set(re.findall(r"(--[a-z-]+):", light.group(1)))
    assert names == set(re.findall(r"(--[a-z-]+):", blocks[0]))  # every colour has a dark twin


def test_the_app_is_installable(page: Any, server: LiveServer) -> None:
    """The manifest is linked from every page, served as a manifest, names the app and its
    start, and its 192 and 512 pixel icons exist at those sizes."""
    page.goto(server.url + "/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    assert href is not None
    answer = page.request.get(server.url + href)
    assert answer.status == 200
    assert answer.headers["content-type"].startswith("application/manifest+json")
    manifest = answer.json()
    assert manifest["display"] == "standalone" and manifest["start_url"] == "/"
    assert manifest["name"] and manifest["theme_color"]
    sizes = {icon["sizes"] for icon in manifest["icons"]}
    assert {"192x192", "512x512"} <= sizes
    assert any(icon.get("purpose") == "maskable" for icon in manifest["icons"])
    for icon in manifest["icons"]:
        if icon["type"] != "image/png":
            continue
        png = page.request.get(server.url + icon["src"])
        assert png.status == 200 and png.headers["content-type"] == "image/png"
        body = png.body()
        width, height = int.from_bytes(body[16:20], "big"), int.from_bytes(body[20:24], "big")
        assert f"{width}x{height}" == icon["sizes"]


def test_the_api_docs_render_with_no_network_but_this_machine(
    page: Any, server: LiveServer
) -> None:
    """Issue defect 7: Swagger UI comes from the package; with every request to anywhere but
    loopback refused, /api/docs still lists the operations, and asked for nothing outside."""
    from playwright.sync_api import expect

    outside: list[str] = []

    def only_loopback(route: Any) -> None:
        host = re.match(r"^[a-z]+://([^/:]+)", route.request.url)
        if host is not None and host.group(1) in ("127.0.0.1", "localhost"):
            route.continue_()
        else:
            outside.append(route.request.url)
            route.abort()

    page.route("**/*", only_loopback)
    page.goto(server.url + "/api/docs")
    expect(page.locator(".opblock").first).to_be_visible()
    expect(page.locator(".opblock-summary-path", has_text="/api/solve").first).to_be_visible()
    assert outside == []


#: Every control a keyboard should reach: visible, enabled, not taken out of the Tab order.
FOCUSABLE = """() => [...document.querySelectorAll(
    "a[href], button, input:not([type=hidden]), select, textarea, summary, [tabindex]")]
  .filter((node) => !node.disabled && node.tabIndex >= 0 && !node.closest("[inert]")
    && node.checkVisibility({ visibilityProperty: true, contentVisibilityAuto: true }))
  .map((node, index) => {
    node.dataset.tourId = String(index);  // its name while focus moves (classes may change)
    return node.outerHTML.slice(0, 80);
  })"""

#: The focused element and whether its focus shows (an outline or a ring of box-shadow).
FOCUSED = """() => {
  const node = document.activeElement;
  if (!node || node === document.body || !node.matches(":focus")) return null;
  const style = getComputedStyle(node);
  const ring = style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0;
  return { id: node.dataset.tourId, html: node.outerHTML.slice(0, 80),
           visible: ring || style.boxShadow !== "none" };
}"""


def test_tab_reaches_every_control_with_visible_focus(page: Any, server: LiveServer) -> None:
    from playwright.sync_api import expect

    for path in ("/", "/play", f"/solve?board={FEW_WORDS}", "/score", "/rooms", "/daily"):
        # Until the network is idle: a page's script may wait for a fetch before it builds its
        # controls (the scorekeeper's, for the rules, then its grid and photo control), and the
        # controls counted before then were fewer than Tab then met.
        page.goto(server.url + path, wait_until="networkidle")
        expect(page.locator("main h1")).to_be_visible()
        wanted = page.evaluate(FOCUSABLE)
        reached: list[str] = []
        unseen: list[str] = []
        for _ in range(len(wanted) + 3):
            page.keyboard.press("Tab")
            focused = page.evaluate(FOCUSED)
            if focused is None:
                continue
            reached.append(focused["id"])
            if not focused["visible"]:
                unseen.append(focused["html"])
        missing = [html for index, html in enumerate(wanted) if str(index) not in reached]
        assert missing == [], f"{path}: Tab never reaches {missing[:5]}"
        assert unseen == [], f"{path}: focus is not visible on {unseen[:5]}"


def test_a_game_from_the_home_page_by_keyboard_alone(page: Any, server: LiveServer) -> None:
    """Home page, Tab to "Play now", Enter: a game starts; a word typed and entered; Tab to
    the end button, Enter: the results, their heading focused."""
    from playwright.sync_api import expect

    page.on("dialog", lambda dialog: dialog.accept())
    page.goto(server.url + "/")
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.classList.contains('quick-play')"):
            break
    else:
        pytest.fail("Tab never reached the Play now button")
    page.keyboard.press("Enter")
    page.wait_for_url("**/games/*")
    expect(page.locator("#word")).to_be_focused()
    page.keyboard.type("lines")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_contain_text("lines")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.id") == "end-button":
            break
    else:
        pytest.fail("Tab never reached the end button")
    page.keyboard.press("Enter")
    expect(page.locator("#score-heading")).to_be_visible(timeout=20_000)


def fetch(server: LiveServer, path: str, headers: dict[str, str] | None = None) -> Any:
    """GET ``path`` as a browser would, answer unread: its status, headers and raw body."""
    import urllib.request

    request = urllib.request.Request(server.url + path, headers=headers or {})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return answer.status, answer.headers, answer.read()


def test_static_files_are_versioned_cached_and_pages_compressed(server: LiveServer) -> None:
    """The pages link their style sheet and scripts under URLs versioned by content, which
    browsers may keep for a year; an unversioned file is revalidated; pages come gzipped."""
    import gzip

    status, headers, body = fetch(server, "/", {"Accept-Encoding": "gzip"})
    assert status == 200 and headers["Content-Encoding"] == "gzip"
    page = gzip.decompress(body).decode()
    linked = re.search(r'href="(/static/style\.css\?v=([0-9a-f]{12}))"', page)
    assert linked is not None, "style.css is not linked with a version"
    _, headers, css = fetch(server, linked.group(1))
    assert headers["Cache-Control"] == "public, max-age=31536000, immutable"
    assert css == STYLE.read_bytes()
    for wrong in ("bogus", "0" * 12, linked.group(2) + "&v=bogus"):  # not the file's own hash
        _, headers, _ = fetch(server, f"/static/style.css?v={wrong}")
        assert headers["Cache-Control"] == "no-cache", wrong
    _, headers, _ = fetch(server, "/static/api.js")  # imported by modules, unversioned
    assert headers["Cache-Control"] == "no-cache" and headers["ETag"]
    assert re.search(r'src="/static/theme\.js\?v=[0-9a-f]{12}"', page)


def test_the_home_page_tells_how_todays_daily_board_went(server: LiveServer) -> None:
    """Today's daily board on the home page: nobody yet, then a finished game's player, score
    and the board's points (stored numbers: the page solves nothing)."""
    _, _, before = fetch(server, "/")
    if b"No one has finished it yet" not in before:  # another test of this server played it
        assert re.search(rb"\d+ players? so far", before)
    status, game = server.call("POST", "/api/games", {"player": "dora", "daily": True})
    assert status == 201, game
    status, done = server.call(
        "POST", f"/api/games/{game['id']}/finish", {}, {"X-Game-Key": game["key"]}
    )
    assert status == 200, done
    _, _, after = fetch(server, "/")
    text = " ".join(after.decode().split())
    assert re.search(r"\d+ players? so far; best \d+ of \d+ points, by \w+", text), text[:2000]
    assert f"of {done['max_score']} points" in text

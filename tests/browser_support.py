"""Fixtures for the browser tests (Playwright driving Debian's Chromium against a real
``bigboggle serve`` on loopback), shared by every ``test_web_*browser*`` module.

- ``server``: one live server per test module, on its own SQLite file (already migrated).
- ``browser``: Chromium, launched once per module (fails without it under
  ``BIGBOGGLE_REQUIRE_BROWSER``, else skips).
- ``axe_source``: axe-core's script from npm (``npm ci``), for the accessibility checks
  (fails without it under ``BIGBOGGLE_REQUIRE_BROWSER``, else skips, like ``browser``).
- ``page``: a fresh desktop tab (1200×900); ``open_page(width, height, ...)`` any other size
  (``PHONE`` is 390×844 with touch). Every tab these give fails its test on a JavaScript error
  or a console error, and saves a full-page screenshot under ``test-artifacts/screenshots/``
  named after the test when it closes (``shot(page, name)`` saves one more mid-test).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from live_server import LiveServer

ROOT = Path(__file__).resolve().parents[1]
SHOTS = ROOT / "test-artifacts" / "screenshots"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
#: axe-core, installed by ``npm ci`` at the repository's root (package-lock.json pins it).
AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str | None:
    """Debian's Chromium (or ``$BIGBOGGLE_CHROMIUM``), if this machine has it."""
    return os.environ.get("BIGBOGGLE_CHROMIUM") or shutil.which("chromium")


def shot(page: Any, name: str) -> Path:
    """Save a full-page screenshot of ``page`` as ``test-artifacts/screenshots/NAME.png``."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, migrated_sqlite: Path) -> Iterator[LiveServer]:
    """The module's server, on a copy of conftest's migrated SQLite file: it starts with
    nothing to migrate (about 0.3 s of CPU less a start; migrating is test_migrations')."""
    folder = tmp_path_factory.mktemp("browser")
    database = folder / "web.sqlite3"
    shutil.copyfile(migrated_sqlite, database)
    live = LiveServer(f"sqlite:///{database}", folder / "server.log").start()
    yield live
    live.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        if os.environ.get("BIGBOGGLE_REQUIRE_BROWSER"):
            pytest.fail("Chromium is required (apt-get install chromium) but was not found")
        pytest.skip("no Chromium here (apt-get install chromium, or set BIGBOGGLE_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def require_axe() -> Path:
    """axe-core's script; without it, the test fails under ``BIGBOGGLE_REQUIRE_BROWSER`` (CI,
    where ``npm ci`` must have installed it) and is skipped elsewhere. For a test that checks
    other things first, this can be called where its accessibility check begins."""
    if not AXE.is_file():
        if os.environ.get("BIGBOGGLE_REQUIRE_BROWSER"):
            pytest.fail(f"axe-core is required but {AXE} is missing: run `npm ci` in {ROOT}")
        pytest.skip("axe-core is not installed (run `npm ci` at the repository's root)")
    return AXE


@pytest.fixture(scope="session")
def axe_source() -> Path:
    """axe-core's script (:func:`require_axe`: fails under ``BIGBOGGLE_REQUIRE_BROWSER``
    without it, else skips)."""
    return require_axe()


def axe_clean(tab: Any, where: str) -> None:
    """No serious or critical axe-core violation in the page's main part (``<main>``: the
    header and footer are every page's, checked by the tour) as it stands; ``where`` names
    the state in the failure. axe-core is evaluated as the test's own script, so the page's
    CSP (scripts from its origin only) stays on."""
    # A word arriving fades in (feedback.js): axe measuring colours half way through that
    # fade reports contrast no reader ever sees once it ends. Let every finite animation end.
    tab.evaluate(
        """async () => { await Promise.all(document.getAnimations()
            .filter((a) => Number.isFinite(a.effect?.getComputedTiming().endTime))
            .map((a) => a.finished.catch(() => null))); }"""
    )
    tab.evaluate(require_axe().read_text())
    found = tab.evaluate("async () => (await axe.run({ include: [['main']] })).violations")
    bad = [(v["id"], v["impact"], [n["target"] for n in v["nodes"]][:3]) for v in found]
    assert [v for v in bad if v[1] in ("serious", "critical")] == [], f"{where}: {bad}"


def watch_errors(tab: Any, errors: list[str]) -> None:
    """Collect the tab's JavaScript errors and console errors into ``errors``. A refused
    request (a 4xx the page shows as a message) is logged by the browser; not a bug."""
    tab.on("pageerror", lambda error: errors.append(str(error)))
    tab.on(
        "console",
        lambda m: (
            errors.append(m.text)
            if m.type == "error" and "Failed to load resource" not in m.text
            else None
        ),
    )


@pytest.fixture
def open_page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Callable[..., Any]]:
    """``open_page(width=1280, height=800, name=None, **context_options)``: a fresh tab in its
    own browser context (its own storage: another player). Each fails the test on a JavaScript
    error and leaves a screenshot named after the test (and ``name``) at the end."""
    opened: list[tuple[Any, Any, str]] = []
    errors: list[str] = []

    def open_one(
        width: int = DESKTOP["width"],
        height: int = DESKTOP["height"],
        name: str | None = None,
        **options: Any,
    ) -> Any:
        context = browser.new_context(viewport={"width": width, "height": height}, **options)
        tab = context.new_page()
        watch_errors(tab, errors)
        label = request.node.name + (
            f"-{name}" if name else "" if not opened else f"-{len(opened)}"
        )
        opened.append((context, tab, label))
        return tab

    yield open_one
    for context, tab, label in opened:
        try:
            shot(tab, label)
        finally:
            context.close()
    assert errors == []


@pytest.fixture
def page(open_page: Callable[..., Any]) -> Any:
    """A fresh desktop tab (1200×900) that fails the test on a JavaScript error."""
    return open_page(1200, 900)

"""The account pages in Chromium against a real ``bigboggle serve``: signing up from the header,
the name in the header, logging out and in, the messages a wrong password, a weak one and a
throttled log-in bring, the same flows with JavaScript off (plain form posts with a CSRF
token), no open redirect through ``?next=``, the account page (password change, export,
delete with its confirm step), axe-core on every account page in both themes at desktop and
phone width, and a guest's game found on the profile after signing up."""

from __future__ import annotations

import json
import re
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bigboggle.limits import FORM_BODY_BYTES, MAX_NEXT_PATH
from bigboggle.web.account_pages import safe_next
from browser_support import DESKTOP, PHONE, ROOT, require_axe, shot
from live_server import LiveServer
from test_web_tour import Tour

pytestmark = pytest.mark.once

WEB = ROOT / "src" / "bigboggle" / "web"
#: Passwords zxcvbn rates strong enough, and one it refuses.
GOOD = "violet tractor harbour 92"
OTHER = "quiet lantern meadow 17"
WEAK = "password12"
WRONG = re.compile("wrong user name or password", re.IGNORECASE)


def _header(page: Any) -> Any:
    return page.locator("header.site nav[aria-label='Account']")


def _sign_up(page: Any, name: str, password: str = GOOD) -> None:
    page.fill("#username", name)
    page.fill("#password", password)
    page.locator("#submit-button").click()


def _log_in(page: Any, name: str, password: str = GOOD) -> None:
    page.fill("#username", name)
    page.fill("#password", password)
    page.locator("#submit-button").click()


def _tour(page: Any) -> Tour:
    """An axe-core tour of ``page`` (every size and theme). Without axe-core the test fails
    under ``BIGBOGGLE_REQUIRE_BROWSER`` and is skipped elsewhere (``require_axe``)."""
    return Tour(page, require_axe())


def _look(tour: Tour, state: str) -> None:
    tour.look(state)


@pytest.mark.skipif(
    not (WEB / "static" / "claim.js").exists() or not (WEB / "player_routes.py").exists(),
    reason="waits for claim.js (helper history) and the /players pages (helper profiles)",
)
def test_a_guest_signs_up_from_the_header_finds_the_game_then_logs_out_and_back_in(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    """One tab for the whole JavaScript flow (a browser's tabs are slow to open): a guest's
    game, the sign-up from the header with its refusals, the game found on the profile, the
    account page, log-out and log-in, axe-core on each account page in both themes and widths,
    and a throttled log-in at phone width."""
    from playwright.sync_api import expect

    page = open_page(DESKTOP["width"], DESKTOP["height"], name="desktop")
    tour = _tour(page)
    page.on("dialog", lambda dialog: dialog.accept())  # "end the game now?"
    # A guest's solo game first.
    page.goto(server.url + "/play")
    page.locator("#start-button").click()
    page.wait_for_url("**/games/*")
    game_path = page.url.removeprefix(server.url)
    page.fill("#word", "lines")
    page.keyboard.press("Enter")
    expect(page.locator("#verdict")).to_be_visible()
    page.locator("#end-button").click()
    expect(page.locator("#score-heading")).to_be_visible(timeout=20_000)

    page.goto(server.url + "/daily")
    header = _header(page)
    expect(header.get_by_role("link", name="Log in")).to_be_visible()
    expect(page.locator("header.site").get_by_role("link", name="Leaderboard")).to_be_visible()
    header.get_by_role("link", name="Sign up").click()
    page.wait_for_url("**/signup?next=/daily")
    # The rules are there before anything is typed, and guests are told accounts are optional.
    expect(page.locator("#password-rules")).to_contain_text("At least 10 characters")
    expect(page.locator("main")).to_contain_text("You can play without an account")
    expect(page.locator("#username")).to_have_attribute("autocomplete", "username")
    expect(page.locator("#password")).to_have_attribute("autocomplete", "new-password")

    # The show-password toggle.
    page.fill("#password", WEAK)
    toggle = page.locator("button.show-password")
    toggle.click()
    expect(page.locator("#password")).to_have_attribute("type", "text")
    expect(toggle).to_contain_text("Hide")
    toggle.click()
    expect(page.locator("#password")).to_have_attribute("type", "password")

    # A weak password: the server's rule beside the field, which is marked invalid.
    _sign_up(page, "Wanda Word", WEAK)
    expect(page.locator("#password-error")).to_contain_text("easy to guess")
    expect(page.locator("#password")).to_have_attribute("aria-invalid", "true")
    expect(page.locator("#submit-button")).to_be_enabled()
    _look(tour, "account-signup-refused")  # the sign-up form with its messages showing
    # A taken name (made through the API): beside the name.
    status, _ = server.call("POST", "/api/account", {"username": "taken", "password": GOOD})
    assert status == 201
    _sign_up(page, "Taken")
    expect(page.locator("#username-error")).to_contain_text("taken")

    # Signed up: the guest's game is the member's, then on to where the person came from.
    _sign_up(page, "Wanda Word")
    expect(page.locator("#account-done")).to_contain_text(
        "1 game you played as a guest is now on your profile"
    )
    expect(header.get_by_role("link", name="Wanda Word")).to_have_attribute(
        "href", "/players/Wanda%20Word"
    )
    expect(header.get_by_role("link", name="Log in")).to_have_count(0)
    shot(page, "account-claimed")
    page.locator("#continue-link").click()
    page.wait_for_url("**/daily")
    page.goto(server.url + "/players/Wanda%20Word")
    expect(page.locator("main h1")).to_contain_text("Wanda Word")
    # The member's own profile links the game played as a guest; the header shows the member.
    expect(page.locator(f"main a[href='{game_path}']")).to_be_visible()
    expect(header.get_by_role("link", name="Wanda Word")).to_have_attribute("aria-current", "page")
    status, me = _api_me(page)
    assert status == 200 and me["games"] == 1, me

    # An error page renders for a member too (its header offers the account page).
    page.goto(server.url + "/no/such/page")
    expect(page.locator("main h1")).to_have_text("Not found")
    expect(header.get_by_role("link", name="Account")).to_be_visible()
    page.go_back()
    # The account page: since when, then log out of this browser.
    header.get_by_role("link", name="Account").click()
    page.wait_for_url("**/account")
    expect(page.locator("main")).to_contain_text("Wanda Word")
    expect(page.locator("main time")).to_be_visible()
    expect(page.locator("#export-link")).to_have_attribute("href", "/api/me/export")
    expect(page.locator("#password-help")).to_contain_text("Your passkeys stay")
    _look(tour, "account-member-account")
    page.locator("#logout-button").click()
    page.wait_for_url(server.url + "/")
    expect(header.get_by_role("link", name="Log in")).to_be_visible()

    # A wrong password says so in the live region; the right one logs in (to the profile).
    header.get_by_role("link", name="Log in").click()
    expect(page.locator("main h1")).to_be_visible()
    _look(tour, "account-login")
    expect(page.locator("#password")).to_have_attribute("autocomplete", "current-password")
    _log_in(page, "wanda word", "not the password 1")
    expect(page.locator("#form-status")).to_contain_text(WRONG)
    expect(page.locator("#submit-button")).to_be_enabled()
    expect(page.locator("main").get_by_role("link", name="Sign up")).to_have_attribute(
        "href", "/signup?next=/"
    )  # the link between the two pages keeps where to go next
    _log_in(page, "wanda word")
    page.wait_for_url(server.url + "/")
    expect(header.get_by_role("link", name="Wanda Word")).to_be_visible()

    # A page a member cannot reach without logging in sends a guest to the log-in and back;
    # there, at phone width, too many wrong passwords say when to try again.
    status, _ = server.call("POST", "/api/account", {"username": "throttled", "password": GOOD})
    assert status == 201
    for _ in range(5):  # wrong guesses (through the API: the same throttle)
        status, body = server.call(
            "POST", "/api/session", {"username": "throttled", "password": "a wrong guess 123"}
        )
        assert status == 401, body
    guest = open_page(PHONE["width"], PHONE["height"], name="phone", has_touch=True)
    guest.goto(server.url + "/account")
    guest.wait_for_url("**/login?next=/account")
    _log_in(guest, "throttled")
    expect(guest.locator("#form-status")).to_contain_text(re.compile(r"try again in \d+ minutes"))
    expect(guest.locator("#submit-button")).to_be_enabled()
    guest.wait_for_url("**/login?next=/account")  # still here
    tour.check()


def test_without_javascript_the_forms_sign_up_log_out_and_log_in(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    page = open_page(DESKTOP["width"], DESKTOP["height"], name="nojs", java_script_enabled=False)
    page.goto(server.url + "/signup?next=/rules")
    expect(page.locator("button.show-password")).to_be_hidden()
    _sign_up(page, "Norbert", WEAK)
    # The form again, the rule beside the field, the name kept.
    expect(page.locator("#password-error")).to_contain_text("easy to guess")
    expect(page.locator("#username")).to_have_value("Norbert")
    _sign_up(page, "Norbert")
    page.wait_for_url("**/rules")
    header = _header(page)
    expect(header.get_by_role("link", name="Norbert")).to_be_visible()

    # Change the password (a wrong current one first), then log out.
    page.goto(server.url + "/account")
    page.fill("#old-password", "not it at all 5")
    page.fill("#new-password", OTHER)
    page.get_by_role("button", name="Change the password").click()
    expect(page.locator("#old-error")).to_contain_text("not your current password")
    page.fill("#old-password", GOOD)
    page.fill("#new-password", OTHER)
    page.get_by_role("button", name="Change the password").click()
    expect(page.locator("main")).to_contain_text("Your password is changed")
    page.locator("#logout-button").click()
    page.wait_for_url(server.url + "/")
    expect(header.get_by_role("link", name="Log in")).to_be_visible()

    # Log in through the form, with the new password: a next= elsewhere lands on the profile.
    page.goto(server.url + "/login?next=//evil.example/")
    _log_in(page, "norbert", OTHER)
    page.wait_for_url("**/players/Norbert")
    assert page.url.startswith(server.url + "/players/"), page.url
    # A form post without the page's CSRF token is refused.
    status, body = _post_form(page, "/logout", "csrf=forged")
    assert status == 403, body


def _post_form(page: Any, path: str, body: str) -> tuple[int, str]:
    """POST a form body from ``page``'s browser context (its cookies), redirects not followed."""
    origin = "/".join(page.url.split("/", 3)[:3])
    answer = page.request.post(
        origin + path,
        data=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
        max_redirects=0,
    )
    return answer.status, answer.text()


@pytest.mark.parametrize(
    ("value", "kept"),
    [
        ("/daily?rules=big", "/daily?rules=big"),
        ("/players/Ann%20B", "/players/Ann%20B"),
        ("/", "/"),
        ("https://evil.example/", None),
        ("//evil.example", None),
        ("/\\evil.example", None),
        ("/ok\\..", None),
        ("javascript:alert(1)", None),
        ("evil.example", None),
        ("/a\tb", None),
        ("/a b", None),
        ("", None),
        (None, None),
        ("/" + "a" * (MAX_NEXT_PATH - 1), "/" + "a" * (MAX_NEXT_PATH - 1)),
        ("/" + "a" * MAX_NEXT_PATH, None),
    ],
)
def test_next_is_a_path_on_this_site_or_nothing(value: str | None, kept: str | None) -> None:
    assert safe_next(value) == kept


def test_a_form_post_past_its_limit_is_refused_before_it_is_read(server: LiveServer) -> None:
    body = b"csrf=x&username=ann&password=" + b"a" * FORM_BODY_BYTES
    status, answer = _urlencoded(server, "/login", body)
    assert status == 413 and str(FORM_BODY_BYTES) in answer
    status, answer = _urlencoded(server, "/login", b"csrf=x&csrf=y&username=a&password=b")
    assert status == 400 and "twice" in answer
    status, answer = _urlencoded(server, "/login", b"username=ann&password=b")
    assert status == 403 and "CSRF" in answer


def test_a_next_past_its_limit_is_dropped_not_refused(server: LiveServer) -> None:
    status, page = server.get("/login?next=/" + "a" * MAX_NEXT_PATH)
    assert status == 200 and b'name="next"' not in page
    status, page = server.get("/login?next=/rules")
    assert status == 200 and b'name="next" value="/rules"' in page


def _urlencoded(server: LiveServer, path: str, body: bytes) -> tuple[int, str]:
    request = urllib.request.Request(
        server.url + path,
        data=body,
        method="POST",
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_deleting_an_account_names_what_goes_and_needs_the_password(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    status, _ = server.call("POST", "/api/account", {"username": "Doomed", "password": GOOD})
    assert status == 201
    page = open_page(DESKTOP["width"], DESKTOP["height"])
    tour = _tour(page)
    # Logged in with JavaScript, a next= elsewhere lands on the member's profile here.
    page.goto(server.url + "/login?next=https://evil.example/")
    _log_in(page, "Doomed")
    page.wait_for_url(re.compile(r"/players/"))
    assert page.url.startswith(server.url + "/players/Doomed"), page.url
    page.goto(server.url + "/account")
    # The export downloads everything held, as JSON.
    with page.expect_download() as download:
        page.locator("#export-link").click()
    data = json.loads(Path(download.value.path()).read_text())
    assert data["account"]["username"] == "Doomed"
    page.locator("#delete-link").click()
    page.wait_for_url("**/account/delete")
    expect(page.locator("main h1")).to_be_visible()
    _look(tour, "account-member-delete")
    tour.check()
    expect(page.locator(".deleted-list")).to_contain_text("every session")
    expect(page.locator(".deleted-list")).to_contain_text("solo games")
    page.fill("#delete-password", "not my password 9")
    page.locator("#delete-button").click()
    expect(page.locator("#password-error")).to_contain_text("nothing was deleted")
    page.fill("#delete-password", GOOD)
    page.locator("#delete-button").click()
    expect(page.locator("h1")).to_have_text("Your account is deleted")
    expect(_header(page).get_by_role("link", name="Log in")).to_be_visible()
    status, _ = server.call("POST", "/api/session", {"username": "Doomed", "password": GOOD})
    assert status == 401


def _api_me(page: Any) -> tuple[int, Any]:
    answer = page.request.get(page.url.split("/players/")[0] + "/api/me")
    return answer.status, answer.json()

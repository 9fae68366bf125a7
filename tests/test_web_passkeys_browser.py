"""Passkeys in Chromium against a real ``bigboggle serve``, with Chromium's virtual authenticator
(the DevTools protocol's WebAuthn domain: a platform authenticator holding discoverable
credentials, user verification and presence answered at once).

The site is opened at ``http://localhost:PORT``, not ``127.0.0.1``: WebAuthn's RP ID is a host
name (Chromium refuses an IP address), and localhost is a secure context over plain HTTP.

A member signs up, adds a passkey on /account, logs out, and logs in again on /login with "Log
in with a passkey" alone (no name, no password): ``/api/me`` answers the member, logged in by
passkey. At phone width (and without the browser's JSON helpers, so with passkeys.js's own
base64url), a removed passkey no longer logs in (the authenticator still holds it; the server
refuses it, and the page says why). axe-core finds nothing serious on the list nor on the
refusal, at both widths in both themes."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from browser_support import DESKTOP, PHONE, require_axe, shot
from live_server import LiveServer
from test_web_tour import Tour

pytestmark = pytest.mark.once

PASSWORD = "violet tractor harbour 92"


#: Takes away Chromium's PublicKeyCredential.parse*OptionsFromJSON and toJSON().
WITHOUT_JSON_HELPERS = """
delete PublicKeyCredential.parseCreationOptionsFromJSON;
delete PublicKeyCredential.parseRequestOptionsFromJSON;
delete PublicKeyCredential.prototype.toJSON;
"""


def site(server: LiveServer) -> str:
    return f"http://localhost:{server.port}"


def with_authenticator(page: Any) -> tuple[Any, str]:
    """Give ``page``'s tab a virtual passkey authenticator; its CDP session and id."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable")
    made = cdp.send(
        "WebAuthn.addVirtualAuthenticator",
        {
            "options": {
                "protocol": "ctap2",
                "transport": "internal",
                "hasResidentKey": True,
                "hasUserVerification": True,
                "isUserVerified": True,
                "automaticPresenceSimulation": True,
            }
        },
    )
    return cdp, made["authenticatorId"]


def sign_up(page: Any, base: str, name: str) -> None:
    page.goto(base + "/signup")
    page.fill("#username", name)
    page.fill("#password", PASSWORD)
    page.locator("#submit-button").click()
    page.wait_for_url("**/players/**")


def add_passkey(page: Any, base: str, label: str) -> None:
    from playwright.sync_api import expect

    page.goto(base + "/account")
    section = page.locator("section#passkeys")
    expect(section.locator("#passkey-none")).to_have_text("You have no passkeys yet.")
    section.get_by_label("A name for the new passkey (optional)").fill(label)
    section.get_by_role("button", name="Add a passkey").click()
    expect(section.locator(".passkey-status")).to_contain_text(f"Added the passkey “{label}”")
    expect(section.locator("li.passkey-item")).to_have_count(1)
    expect(section.locator(".passkey-name")).to_have_text(label)
    expect(section.locator("li.passkey-item")).to_contain_text("never used yet")
    expect(section.locator("#passkey-none")).to_be_hidden()


def log_out(page: Any, base: str) -> None:
    page.goto(base + "/account")
    page.locator("#logout-button").click()
    page.wait_for_load_state()
    assert page.request.get(base + "/api/me").status == 401


def look(page: Any, state: str) -> None:
    """axe-core on the page as it stands, at both widths in both themes (without axe-core the
    test fails under ``BIGBOGGLE_REQUIRE_BROWSER`` and is skipped elsewhere)."""
    tour = Tour(page, require_axe())
    tour.look(state)
    tour.check()


def me(page: Any, base: str) -> dict[str, Any]:
    answer = page.request.get(base + "/api/me")
    assert answer.status == 200, answer.text()
    found: dict[str, Any] = answer.json()
    return found


def test_a_member_adds_a_passkey_and_logs_in_with_it_alone(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    base = site(server)
    page = open_page(DESKTOP["width"], DESKTOP["height"], name="desktop")
    cdp, authenticator = with_authenticator(page)
    sign_up(page, base, "Pia Passkey")
    add_passkey(page, base, "Test laptop")
    held = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})["credentials"]
    assert len(held) == 1 and held[0]["isResidentCredential"] and held[0]["rpId"] == "localhost"
    assert me(page, base)["passkeys"] == 1
    shot(page, "passkeys-account-desktop")
    look(page, "passkeys-account")

    log_out(page, base)
    page.goto(base + "/login")
    button = page.get_by_role("button", name="Log in with a passkey")
    expect(button).to_be_visible()
    shot(page, "passkeys-login-desktop")
    button.click()
    page.wait_for_url("**/players/Pia%20Passkey")
    found = me(page, base)
    assert (found["username"], found["method"]) == ("Pia Passkey", "passkey")

    # The account page now shows when it was last used.
    page.goto(base + "/account")
    expect(page.locator("li.passkey-item")).to_contain_text("last used")


def test_a_removed_passkey_no_longer_logs_in_at_phone_width(
    open_page: Callable[..., Any], server: LiveServer
) -> None:
    from playwright.sync_api import expect

    base = site(server)
    page = open_page(PHONE["width"], PHONE["height"], name="phone", has_touch=True)
    # Without the browser's JSON helpers, as in older browsers: passkeys.js's own base64url.
    page.add_init_script(WITHOUT_JSON_HELPERS)
    with_authenticator(page)
    sign_up(page, base, "Rex Removed")
    add_passkey(page, base, "My phone with a rather long name, to see it wrap on a phone")
    shot(page, "passkeys-account-phone")
    assert page.evaluate("typeof PublicKeyCredential.parseCreationOptionsFromJSON") == "undefined"
    section = page.locator("section#passkeys")
    section.get_by_role("button", name="Remove the passkey My phone").click()
    expect(section.locator(".passkey-status")).to_contain_text("it no longer logs you in")
    expect(section.locator("li.passkey-item")).to_have_count(0)
    expect(section.locator("#passkey-none")).to_be_visible()
    expect(page.get_by_label("A name for the new passkey (optional)")).to_be_focused()

    log_out(page, base)
    page.goto(base + "/login")
    page.get_by_role("button", name="Log in with a passkey").click()
    status = page.locator("#passkey-login .passkey-status")
    expect(status).to_contain_text("not registered here")
    expect(status).to_have_class("passkey-status error")
    shot(page, "passkeys-login-refused-phone")
    look(page, "passkeys-login-refused")
    assert page.request.get(base + "/api/me").status == 401

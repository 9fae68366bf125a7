"""Profiles and leaderboards over HTTP as caches see them: every answer says it depends on the
cookie (``Vary: Cookie``), and a member's answer (their own profile with its private part,
their own row on a leaderboard) is never kept by a shared cache (``private, no-store``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import argon2
import pytest
from starlette.testclient import TestClient

from bigboggle.services.accounts import Accounts
from bigboggle.web.app import create_app
from bigboggle.web.auth import SESSION_COOKIE
from conftest import FakeClock

pytestmark = pytest.mark.once

PAGES = ["/players/ann_reads", "/api/players/ann_reads", "/leaderboard", "/api/leaderboard"]


def _vary(headers: Mapping[str, str]) -> set[str]:
    """The header names a response varies by (GZip adds Accept-Encoding to larger ones)."""
    return {part.strip() for part in headers.get("vary", "").split(",")}


@pytest.fixture
def client(db_url: str, clock: FakeClock) -> Iterator[TestClient]:
    app = create_app(db_url, clock=clock)
    found = app.state.services
    cheap = argon2.PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)
    found.accounts = Accounts(found.store, clock, hasher=cheap)
    with TestClient(app) as test_client:
        yield test_client


@pytest.mark.parametrize("path", PAGES)
def test_a_members_answer_is_private_and_a_guests_varies_by_cookie(
    client: TestClient, path: str
) -> None:
    answer = client.post(
        "/api/account", json={"username": "ann_reads", "password": "correct horse battery"}
    )
    assert answer.status_code == 201, answer.text
    token = answer.cookies[SESSION_COOKIE]
    client.cookies.clear()
    as_guest = client.get(path)
    assert as_guest.status_code == 200, as_guest.text
    assert "Cookie" in _vary(as_guest.headers)
    assert "no-store" not in as_guest.headers.get("cache-control", "")
    as_member = client.get(path, headers={"Cookie": f"{SESSION_COOKIE}={token}"})
    assert as_member.status_code == 200, as_member.text
    assert "Cookie" in _vary(as_member.headers)
    assert as_member.headers["cache-control"] == "private, no-store"

"""The accounts over HTTP, as a player and as an attacker would meet them: sign up, log in and
out, /api/me, export, a new password, deletion; the session cookie's attributes and its
rotation; cross-site requests refused (Origin, Referer, content type, the room socket); forms'
CSRF tokens; the throttle's 429; the hash gate's 503; and a real server on loopback."""

from __future__ import annotations

import asyncio
import http.cookiejar
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import argon2
import pytest
from fastapi import Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy import inspect, select, text
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect as websocket_connect
from websockets.typing import Origin

from bigboggle import limits
from bigboggle.errors import BusyError, ThrottledError
from bigboggle.services.accounts import Accounts
from bigboggle.services.keys import key_hash
from bigboggle.services.store import AccountRow, AccountSessionRow, Store
from bigboggle.web import auth
from bigboggle.web.app import create_app
from bigboggle.web.auth import CSRF_COOKIE, SESSION_COOKIE, HashGate
from conftest import FakeClock
from live_server import LiveServer

pytestmark = pytest.mark.once

PASSWORD = "correct horse battery staple"
OTHER = "purple monkey dishwasher"
EVIL = "https://evil.example"


class CountingHasher(argon2.PasswordHasher):
    """A cheap hasher that counts its verifications."""

    def __init__(self) -> None:
        super().__init__(time_cost=1, memory_cost=1024, parallelism=1)
        self.verifies = 0

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verifies += 1
        return super().verify(hash, password)


@pytest.fixture
def hasher() -> CountingHasher:
    return CountingHasher()


@pytest.fixture
def client(db_url: str, clock: FakeClock, hasher: CountingHasher) -> Iterator[TestClient]:
    app = create_app(db_url, clock=clock)
    found = app.state.services
    found.accounts = Accounts(found.store, clock, hasher=hasher)
    _add_form_routes(app)
    with TestClient(app) as test_client:
        yield test_client


def _store(client: TestClient) -> Store:
    store: Store = client.app.state.services.store  # type: ignore[attr-defined]
    return store


def _sign_up(client: TestClient, name: str = "ann_reads", password: str = PASSWORD) -> str:
    answer = client.post("/api/account", json={"username": name, "password": password})
    assert answer.status_code == 201, answer.text
    return answer.cookies[SESSION_COOKIE]


def _me(client: TestClient, token: str) -> int:
    """The status of GET /api/me sent with only the cookie ``token`` (a fresh jar)."""
    answer = client.get("/api/me", headers={"Cookie": f"{SESSION_COOKIE}={token}"})
    return answer.status_code


def _session_rows(client: TestClient) -> list[str]:
    with _store(client).session() as session:
        return list(session.scalars(select(AccountSessionRow.token_hash)))


# -- the flows -------------------------------------------------------------------------------------


def test_sign_up_sets_a_strict_session_cookie(client: TestClient) -> None:
    answer = client.post("/api/account", json={"username": "Ann_Reads", "password": PASSWORD})
    assert answer.status_code == 201
    body = answer.json()
    assert body["username"] == "Ann_Reads"
    assert body["games"] == 0 and body["ratings"] == {}
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    parts = {part.strip().split("=")[0].lower() for part in cookie.split(";")}
    assert {"httponly", "path", "max-age", "samesite"} <= parts
    assert "samesite=lax" in cookie.lower()
    assert f"Max-Age={limits.SESSION_IDLE_DAYS * 86400}" in cookie
    assert "secure" not in parts  # plain HTTP here
    assert answer.headers["cache-control"] == "no-store"
    me = client.get("/api/me")
    assert me.status_code == 200
    assert set(me.json()) >= {"username", "ratings", "games", "created_at", "passkeys"}


def test_over_https_the_cookie_is_secure(db_url: str, clock: FakeClock) -> None:
    app = create_app(db_url, clock=clock)
    found = app.state.services
    found.accounts = Accounts(found.store, clock, hasher=CountingHasher())
    with TestClient(app, base_url="https://testserver") as secure:
        answer = secure.post("/api/account", json={"username": "ann", "password": PASSWORD})
        assert "; secure" in answer.headers["set-cookie"].lower()


def test_me_without_a_session_is_401(client: TestClient) -> None:
    for headers in ({}, {"Cookie": f"{SESSION_COOKIE}=made-up"}):
        answer = client.get("/api/me", headers=headers)
        assert answer.status_code == 401
        assert "log in" in answer.json()["error"]
    assert client.get("/api/me/export").status_code == 401
    assert client.post("/api/me/password", json={"old": "x", "new": "y"}).status_code == 401
    assert client.request("DELETE", "/api/me", json={"password": "x"}).status_code == 401


def test_log_in_rotates_the_session(client: TestClient) -> None:
    signed_up = _sign_up(client)
    answer = client.post("/api/session", json={"username": "ANN_READS", "password": PASSWORD})
    assert answer.status_code == 200
    logged_in = answer.cookies[SESSION_COOKIE]
    assert logged_in != signed_up
    assert _me(client, logged_in) == 200
    assert _me(client, signed_up) == 401  # the browser's earlier session ended with the log-in
    another = client.post("/api/account", json={"username": "bob_reads", "password": OTHER})
    assert another.status_code == 201
    assert _me(client, logged_in) == 401  # a sign-up ends the browser's earlier session too


def test_a_planted_cookie_never_becomes_the_session(client: TestClient) -> None:
    _sign_up(client)
    client.cookies.clear()
    planted = "attacker-chosen-token-value-planted-before-login"
    client.cookies.set(SESSION_COOKIE, planted)
    answer = client.post("/api/session", json={"username": "ann_reads", "password": PASSWORD})
    assert answer.cookies[SESSION_COOKIE] != planted
    assert _me(client, planted) == 401
    assert key_hash(planted) not in _session_rows(client)


def test_wrong_password_and_unknown_name_answer_alike(client: TestClient) -> None:
    _sign_up(client)
    wrong = client.post("/api/session", json={"username": "ann_reads", "password": OTHER})
    unknown = client.post("/api/session", json={"username": "nobody_here", "password": OTHER})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": "wrong user name or password"}
    assert SESSION_COOKIE not in wrong.cookies


def test_log_out_clears_the_cookie_and_ends_the_session(client: TestClient) -> None:
    token = _sign_up(client)
    answer = client.delete("/api/session")
    assert answer.status_code == 204
    assert "max-age=0" in answer.headers["set-cookie"].lower()
    assert _session_rows(client) == []
    assert _me(client, token) == 401
    assert client.delete("/api/session").status_code == 204  # again: nothing to end


def test_a_new_password_ends_the_old_cookie(client: TestClient) -> None:
    first = _sign_up(client)
    other_browser = client.post(
        "/api/session", json={"username": "ann_reads", "password": PASSWORD}
    ).cookies[SESSION_COOKIE]
    client.cookies.set(SESSION_COOKIE, first)
    wrong = client.post("/api/me/password", json={"old": OTHER, "new": OTHER})
    assert wrong.status_code == 401
    weak = client.post("/api/me/password", json={"old": PASSWORD, "new": "password1234"})
    assert weak.status_code == 400 and "too common" in weak.json()["error"]
    answer = client.post("/api/me/password", json={"old": PASSWORD, "new": OTHER})
    assert answer.status_code == 200
    fresh = answer.cookies[SESSION_COOKIE]
    assert fresh not in (first, other_browser)
    assert _me(client, first) == 401 and _me(client, other_browser) == 401
    assert _me(client, fresh) == 200
    assert (
        client.post("/api/session", json={"username": "ann_reads", "password": OTHER}).status_code
        == 200
    )


def test_export_is_an_attachment_of_everything(client: TestClient) -> None:
    _sign_up(client)
    answer = client.get("/api/me/export")
    assert answer.status_code == 200
    assert answer.headers["content-disposition"] == (
        'attachment; filename="bigboggle-ann_reads.json"'
    )
    data = answer.json()
    assert data["account"]["username"] == "ann_reads"
    assert set(data) >= {"sessions", "passkeys", "plays", "ratings", "solo_games", "room_seats"}


def test_deleting_the_account_leaves_no_session(client: TestClient) -> None:
    token = _sign_up(client)
    refused = client.request("DELETE", "/api/me", json={"password": OTHER})
    assert refused.status_code == 401
    assert _me(client, token) == 200
    answer = client.request("DELETE", "/api/me", json={"password": PASSWORD})
    assert answer.status_code == 200 and answer.json() == {"deleted": "ann_reads"}
    assert "max-age=0" in answer.headers["set-cookie"].lower()
    assert _session_rows(client) == []
    with _store(client).session() as session:
        assert session.scalars(select(AccountRow)).all() == []
    assert _me(client, token) == 401


def test_an_idle_session_is_refused(client: TestClient, clock: FakeClock) -> None:
    token = _sign_up(client)
    clock.advance(limits.SESSION_IDLE_DAYS * 86400 + 1)
    assert _me(client, token) == 401
    assert _session_rows(client) == []


# -- names, passwords and bodies -------------------------------------------------------------------


SIGN_UP_REFUSALS = [
    ("ANN_reads", OTHER, 409, "is taken"),
    ("ａｎｎ_reads", OTHER, 409, "is taken"),
    ("ann/reads", PASSWORD, 400, "may have only letters"),
    ("a" * 25, PASSWORD, 400, "longer than 24 characters"),
    ("admin", PASSWORD, 400, "is reserved"),
    ("bob_reads", "tiny 9chr", 400, "shorter than 10 characters"),
    ("bob_reads", "password1234", 400, "too common"),
    ("bob_reads", "bob_reads is me", 400, "must not contain the user name"),
    ("bob_reads", "x" * (limits.MAX_PASSWORD_BYTES + 1), 400, "longer than 1024 bytes"),
    ("bob_reads", "x" * (limits.MAX_PASSWORD_BYTES * 3), 400, "longer than 1024 bytes"),
]


def test_sign_up_refusals_name_the_rule(client: TestClient) -> None:
    _sign_up(client)
    for name, password, status, rule in SIGN_UP_REFUSALS:
        answer = client.post("/api/account", json={"username": name, "password": password})
        assert answer.status_code == status, (name, rule)
        assert rule in answer.json()["error"]
        assert password not in answer.text


def test_a_bad_body_is_named_without_echoing_a_password(client: TestClient) -> None:
    bodies: list[dict[str, Any]] = [
        {"username": "ann_reads"},
        {"username": "ann_reads", "password": 12345678901},
        {"username": "ann_reads", "password": ["hunter2hunter2"]},
        {"username": "ann_reads", "password": PASSWORD, "extra": 1},
    ]
    for body in bodies:
        answer = client.post("/api/session", json=body)
        assert answer.status_code == 400
        message = answer.json()["error"]
        assert "12345678901" not in message and "hunter2" not in message
        assert PASSWORD not in message
    broken = b'{"username": "ann_reads", "password": "hunter2hunter2"'
    answer = client.post(
        "/api/session", content=broken, headers={"Content-Type": "application/json"}
    )
    assert answer.status_code == 400 and "hunter2" not in answer.text


def test_the_json_api_refuses_other_content_types(client: TestClient) -> None:
    _sign_up(client)
    body = f"username=ann_reads&password={PASSWORD}".encode()
    routes = [
        ("POST", "/api/account"),
        ("POST", "/api/session"),
        ("POST", "/api/me/password"),
        ("DELETE", "/api/me"),
        ("POST", "/api/games"),
        ("POST", "/api/rooms"),
    ]
    for kind in ["application/x-www-form-urlencoded", "text/plain", "multipart/form-data", None]:
        headers = {"Content-Type": kind} if kind else {}
        for method, path in routes:
            answer = client.request(method, path, content=body, headers=headers)
            assert answer.status_code == 415, (method, path, kind)
            assert "application/json" in answer.json()["error"]


# -- cross-site requests ---------------------------------------------------------------------------


CROSS_SITE = [
    {"Origin": EVIL},
    {"Origin": "null"},
    {"Origin": "http://testserver.evil.example"},
    {"Origin": "http://testserver:8080"},
    {"Referer": f"{EVIL}/page"},
    {"Sec-Fetch-Site": "cross-site"},
]


def test_a_cross_site_state_change_with_the_cookie_is_refused(client: TestClient) -> None:
    token = _sign_up(client)
    attempts = [
        ("DELETE", "/api/session", None),
        ("POST", "/api/me/password", {"old": PASSWORD, "new": OTHER}),
        ("DELETE", "/api/me", {"password": PASSWORD}),
        ("POST", "/api/session", {"username": "ann_reads", "password": PASSWORD}),
        ("POST", "/api/games", {"rules": "big"}),
    ]
    for headers in CROSS_SITE:
        for method, path, body in attempts:
            answer = client.request(method, path, json=body, headers=headers)
            assert answer.status_code == 403, (method, path, headers)
            error = answer.json()["error"]
            assert "another site" in error or "opaque" in error
    assert _me(client, token) == 200  # nothing happened
    assert (
        client.post(
            "/api/session", json={"username": "ann_reads", "password": PASSWORD}
        ).status_code
        == 200
    )  # the password did not change


def test_a_same_site_state_change_passes(client: TestClient) -> None:
    _sign_up(client)
    for headers in [{"Origin": "http://testserver"}, {"Referer": "http://testserver/login"}, {}]:
        answer = client.post(
            "/api/session", json={"username": "ann_reads", "password": PASSWORD}, headers=headers
        )
        assert answer.status_code == 200, headers


def test_behind_a_proxy_the_public_origin_is_this_site(db_url: str, clock: FakeClock) -> None:
    app = create_app(db_url, clock=clock, public_origin="https://boggle.example")
    found = app.state.services
    found.accounts = Accounts(found.store, clock, hasher=CountingHasher())
    with TestClient(app, base_url="http://127.0.0.1:8000") as proxied:  # the proxy's Host
        body = {"username": "ann_reads", "password": PASSWORD}
        public = proxied.post(
            "/api/account", json=body, headers={"Origin": "https://boggle.example"}
        )
        assert public.status_code == 201
        own = proxied.post("/api/session", json=body, headers={"Origin": "http://127.0.0.1:8000"})
        assert own.status_code == 200
        evil = proxied.post("/api/session", json=body, headers={"Origin": EVIL})
        assert evil.status_code == 403


def test_reading_is_not_refused_from_anywhere(client: TestClient) -> None:
    _sign_up(client)
    assert client.get("/api/me", headers={"Origin": EVIL}).status_code == 200
    assert client.get("/api/rules", headers={"Origin": EVIL}).status_code == 200


def test_the_room_socket_refuses_a_cross_site_handshake(client: TestClient) -> None:
    _sign_up(client)
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect("/ws", headers={"Origin": EVIL}),
    ):
        pass
    assert refused.value.code == 1008
    with client.websocket_connect("/ws", headers={"Origin": "http://testserver"}) as socket:
        socket.send_json({"type": "ping", "id": 1})
        assert socket.receive_json()["type"] == "pong"


# -- forms' CSRF tokens ----------------------------------------------------------------------------


def _add_form_routes(app: Any) -> None:
    """A form page and its post, as the account pages use :mod:`bigboggle.web.auth`."""

    async def form_page(request: Request) -> Response:
        return JSONResponse({"csrf": await auth.form_csrf(request)})

    async def form_post(request: Request) -> Response:
        form = urllib.parse.parse_qs((await request.body()).decode())
        await auth.check_form_csrf(request, form.get("csrf", [None])[0])
        return JSONResponse({"ok": True})

    app.add_api_route("/test-form", form_page, methods=["GET"])
    app.add_api_route("/test-form", form_post, methods=["POST"])


def test_a_pre_session_form_gets_a_signed_double_submit_token(client: TestClient) -> None:
    page = client.get("/test-form")
    token = page.json()["csrf"]
    cookie = page.headers["set-cookie"]
    assert cookie.startswith(f"{CSRF_COOKIE}={token};")
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
    assert client.get("/test-form").json()["csrf"] == token  # the cookie's token, kept
    assert client.post("/test-form", data={"csrf": token}).status_code == 200
    assert client.post("/test-form", data={"csrf": token + "x"}).status_code == 403
    assert client.post("/test-form", data={}).status_code == 403
    # Another site cannot forge a pair: an unsigned token in both places is refused.
    client.cookies.set(CSRF_COOKIE, "forged.0123456789abcdef")
    refused = client.post("/test-form", data={"csrf": "forged.0123456789abcdef"})
    assert refused.status_code == 403
    assert "CSRF" in refused.text


def test_a_members_form_uses_the_sessions_token(client: TestClient) -> None:
    _sign_up(client)
    client.cookies.delete(CSRF_COOKIE)
    page = client.get("/test-form")
    token = page.json()["csrf"]
    assert "set-cookie" not in page.headers  # no pre-session cookie for a member
    assert client.post("/test-form", data={"csrf": token}).status_code == 200
    with _store(client).session() as session:
        assert session.scalars(select(AccountSessionRow.csrf)).one() == token


def test_a_cross_site_form_post_is_refused_before_its_token(client: TestClient) -> None:
    token = client.get("/test-form").json()["csrf"]
    answer = client.post("/test-form", data={"csrf": token}, headers={"Origin": EVIL})
    assert answer.status_code == 403 and "another site" in answer.json()["error"]


# -- throttling and the hash gate ------------------------------------------------------------------


def test_log_ins_are_throttled_with_retry_after_and_no_hash(
    client: TestClient, hasher: CountingHasher, clock: FakeClock
) -> None:
    _sign_up(client)
    client.cookies.delete(auth.DEVICE_COOKIE)  # a browser the member never used
    for _ in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        wrong = client.post("/api/session", json={"username": "ann_reads", "password": OTHER})
        assert wrong.status_code == 401
    before = hasher.verifies
    answer = client.post("/api/session", json={"username": "ann_reads", "password": PASSWORD})
    assert answer.status_code == 429
    assert answer.headers["retry-after"] == str(limits.LOGIN_BLOCK_SECONDS)
    assert "try again" in answer.json()["error"]
    assert hasher.verifies == before
    clock.advance(limits.LOGIN_BLOCK_SECONDS)
    ok = client.post("/api/session", json={"username": "ann_reads", "password": PASSWORD})
    assert ok.status_code == 200


def test_an_address_is_throttled_across_names(client: TestClient) -> None:
    for number in range(limits.LOGIN_FAILURES_PER_ADDRESS):
        client.post("/api/session", json={"username": f"name{number}", "password": OTHER})
    answer = client.post("/api/session", json={"username": "someone", "password": OTHER})
    assert answer.status_code == 429 and "your address" in answer.json()["error"]


def test_a_full_hash_gate_answers_503(client: TestClient) -> None:
    _sign_up(client)
    client.app.state.hash_gate = HashGate(at_once=0, waiting=0)  # type: ignore[attr-defined]
    answer = client.post("/api/session", json={"username": "ann_reads", "password": PASSWORD})
    assert answer.status_code == 503
    assert answer.headers["retry-after"] == "1"
    assert "passwords" in answer.json()["error"]


def test_the_hash_gate_bounds_running_and_waiting_calls() -> None:
    release = threading.Event()
    running: list[int] = []

    def slow(number: int) -> int:
        running.append(number)
        release.wait(10)
        return number

    async def scenario() -> tuple[list[int], BusyError | None]:
        gate = HashGate(at_once=limits.HASHES_AT_ONCE, waiting=1)
        calls = [
            asyncio.create_task(gate.run(slow, number))
            for number in range(limits.HASHES_AT_ONCE + 1)
        ]
        while len(running) < limits.HASHES_AT_ONCE or gate.waiting < 1:
            await asyncio.sleep(0.01)
        refused = None
        try:
            await gate.run(slow, 99)
        except BusyError as exc:
            refused = exc
        assert len(running) == limits.HASHES_AT_ONCE  # the third waits, not running
        release.set()
        return list(await asyncio.gather(*calls)), refused

    default = HashGate()
    assert (default.at_once, default.waiting_limit) == (
        limits.HASHES_AT_ONCE,
        limits.HASHES_WAITING,
    )
    done, refused = asyncio.run(scenario())
    assert done == list(range(limits.HASHES_AT_ONCE + 1))
    assert refused is not None and refused.retry_after == 1


# -- secrets stay secret ---------------------------------------------------------------------------


def test_the_password_is_in_no_response_log_or_table(
    client: TestClient, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("DEBUG")
    answers = [
        client.post("/api/account", json={"username": "ann_reads", "password": PASSWORD}),
        client.post("/api/session", json={"username": "ann_reads", "password": OTHER}),
        client.post("/api/session", json={"username": "ann_reads", "password": PASSWORD}),
        client.get("/api/me"),
        client.get("/api/me/export"),
        client.post("/api/me/password", json={"old": PASSWORD, "new": OTHER}),
        client.post("/api/me/password", json={"old": PASSWORD, "new": "ann_reads123456"}),
        client.request("DELETE", "/api/me", json={"password": PASSWORD}),
    ]
    for answer in answers:
        shown = answer.text + json.dumps(dict(answer.headers))
        assert PASSWORD not in shown and OTHER not in shown
    assert '"route": "/api/session"' in caplog.text  # the access log was captured
    assert PASSWORD not in caplog.text and OTHER not in caplog.text
    with _store(client).engine.connect() as connection:
        for table in inspect(connection).get_table_names():
            for row in connection.execute(text(f'SELECT * FROM "{table}"')):
                assert PASSWORD not in repr(row) and OTHER not in repr(row)


def test_openapi_documents_every_account_route(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    expected = {
        ("/api/account", "post"): {"201", "400", "409", "429", "503"},
        ("/api/session", "post"): {"200", "401", "429", "503"},
        ("/api/session", "delete"): {"204"},
        ("/api/me", "get"): {"200", "401"},
        ("/api/me", "delete"): {"200", "401", "429"},
        ("/api/me/export", "get"): {"200", "401"},
        ("/api/me/password", "post"): {"200", "401", "429"},
    }
    for (path, method), statuses in expected.items():
        documented = paths[path][method]
        assert statuses | {"403", "415"} <= set(documented["responses"]), (path, method)
        assert documented["summary"]
    body = paths["/api/session"]["post"]["requestBody"]["content"]["application/json"]
    assert set(body["schema"]["properties"]) == {"username", "password"}


# -- a real server on loopback ---------------------------------------------------------------------


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = LiveServer(f"sqlite:///{tmp_path / 'accounts.sqlite3'}", tmp_path / "server.log")
    live.start()
    try:
        yield live
    finally:
        live.stop()


def _call(
    opener: urllib.request.OpenerDirector,
    url: str,
    method: str,
    body: Any = None,
    headers: dict[str, str] | None = None,
) -> tuple[int, Any, Any]:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with opener.open(request, timeout=30) as answer:
            raw = answer.read()
            return answer.status, json.loads(raw) if raw else None, answer.headers
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read()), error.headers


def test_accounts_on_a_real_server(server: LiveServer) -> None:
    jar = http.cookiejar.CookieJar()
    browser = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    base = server.url
    status, body, headers = _call(
        browser, base + "/api/account", "POST", {"username": "Live_Ann", "password": PASSWORD}
    )
    assert status == 201 and body["username"] == "Live_Ann"
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=lax" in headers["Set-Cookie"]
    first = next(cookie.value for cookie in jar if cookie.name == SESSION_COOKIE)
    assert _call(browser, base + "/api/me", "GET")[0] == 200
    status, body, _ = _call(
        browser, base + "/api/session", "POST", {"username": "live_ann", "password": PASSWORD}
    )
    assert status == 200
    second = next(cookie.value for cookie in jar if cookie.name == SESSION_COOKIE)
    assert second != first
    evil = _call(browser, base + "/api/session", "DELETE", headers={"Origin": EVIL})
    assert evil[0] == 403
    assert _call(browser, base + "/api/me", "GET")[0] == 200  # still logged in
    wrong = _call(
        browser, base + "/api/session", "POST", {"username": "live_ann", "password": OTHER}
    )
    assert wrong[0] == 401
    assert _call(browser, base + "/api/session", "DELETE", headers={"Origin": base})[0] == 204
    assert _call(browser, base + "/api/me", "GET")[0] == 401
    socket_url = base.replace("http://", "ws://") + "/ws"
    with pytest.raises(InvalidStatus) as refused:
        websocket_connect(socket_url, origin=Origin(EVIL), open_timeout=10)
    assert refused.value.response.status_code == 403
    with websocket_connect(socket_url, origin=Origin(base), open_timeout=10) as socket:
        socket.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(socket.recv(timeout=10))["type"] == "pong"
    server.stop()
    logged = server.log.read_text()
    assert PASSWORD not in logged and OTHER not in logged


# -- the hash gate per address, malformed headers, cookie refresh, known devices ---------------


def _client_at(client: TestClient, address: str) -> TestClient:
    """Another browser on the same app, coming from ``address``."""
    return TestClient(client.app, client=(address, 50000))


def test_successful_log_ins_from_one_address_are_counted_and_leave_others_room(
    client: TestClient, clock: FakeClock
) -> None:
    _sign_up(client, "mallory1")
    _sign_up(client, "victim_one")
    flood = _client_at(client, "192.0.2.66")
    good = {"username": "mallory1", "password": PASSWORD}
    for _ in range(limits.HASHES_PER_ADDRESS_MINUTE):
        assert flood.post("/api/session", json=good).status_code == 200  # every one a hash
    refused = flood.post("/api/session", json=good)
    assert refused.status_code == 429
    assert "passwords checked for your address" in refused.json()["error"]
    assert int(refused.headers["retry-after"]) <= 60
    # The same /64 is the same address; a sign-up is a hash too.
    other = _client_at(client, "192.0.2.66")
    assert (
        other.post("/api/account", json={"username": "x_y_z", "password": PASSWORD}).status_code
        == 429
    )
    victim = _client_at(client, "198.51.100.7")
    answer = victim.post("/api/session", json={"username": "victim_one", "password": PASSWORD})
    assert answer.status_code == 200  # another address still logs in
    clock.advance(60)
    assert flood.post("/api/session", json=good).status_code == 200  # the next minute's share


def test_an_ipv6_slash_64_shares_one_hash_budget(client: TestClient) -> None:
    _sign_up(client, "mallory1")
    good = {"username": "mallory1", "password": PASSWORD}
    for number in range(limits.HASHES_PER_ADDRESS_MINUTE):
        neighbour = _client_at(client, f"2001:db8:0:1::{number + 1:x}")
        assert neighbour.post("/api/session", json=good).status_code == 200
    last = _client_at(client, "2001:db8:0:1:ffff::1")
    assert last.post("/api/session", json=good).status_code == 429
    assert _client_at(client, "2001:db8:0:2::1").post("/api/session", json=good).status_code == 200


def test_the_hash_gate_gives_one_address_one_slot_and_others_theirs() -> None:
    release = threading.Event()
    started = threading.Event()

    def slow(number: int) -> int:
        started.set()
        release.wait(10)
        return number

    async def scenario() -> tuple[int, str, int, int]:
        gate = HashGate(at_once=2, waiting=4, clock=FakeClock())
        first = asyncio.create_task(gate.run_for("192.0.2.1", slow, 1))
        await asyncio.to_thread(started.wait, 10)  # the first call is running (an event)
        refused = ""
        try:
            await gate.run_for("192.0.2.1", slow, 99)  # the same address: its slot is taken
        except ThrottledError as exc:
            refused = str(exc)
        other = await gate.run_for("2001:db8::1", lambda: 2)  # another address runs
        neighbour = await gate.run_for("2001:db8::2", lambda: 3)  # its slot is free again
        release.set()
        return await first, refused, other, neighbour

    first, refused, other, neighbour = asyncio.run(scenario())
    assert (first, other, neighbour) == (1, 2, 3)
    assert "being checked already" in refused


def test_the_hash_gate_holds_an_address_to_its_minutes_share() -> None:
    clock = FakeClock()

    async def scenario() -> tuple[int, ThrottledError | None]:
        gate = HashGate(clock=clock)
        done = 0
        refused = None
        for _ in range(limits.HASHES_PER_ADDRESS_MINUTE + 1):
            try:
                done += await gate.run_for("2001:db8::7", lambda: 1)
            except ThrottledError as exc:
                refused = exc
        clock.advance(60)
        done += await gate.run_for("2001:db8::8", lambda: 1)  # same /64, the next minute
        return done, refused

    done, refused = asyncio.run(scenario())
    assert done == limits.HASHES_PER_ADDRESS_MINUTE + 1
    assert refused is not None and refused.retry_after == 60


MALFORMED_URLS = ["http://[", "http://[::1", "http://a]b", "http://x:99999", "http://", "[", "::"]
MALFORMED_HOSTS = ["[", "[::1", "a]b", "x:99999", "x:-1"]


def test_malformed_origin_referer_and_host_are_refused_clearly(client: TestClient) -> None:
    _sign_up(client)
    routes = [
        ("POST", "/api/session", {"username": "ann_reads", "password": PASSWORD}),
        ("POST", "/api/account", {"username": "someone", "password": PASSWORD}),
        ("DELETE", "/api/session", None),
        ("POST", "/api/passkeys/login/options", {}),
        ("POST", "/api/games", {"rules": "big"}),
    ]
    for value in MALFORMED_URLS:
        for header in ("Origin", "Referer"):
            for method, path, body in routes:
                answer = client.request(method, path, json=body, headers={header: value})
                assert answer.status_code == 403, (header, value, path, answer.text)
                assert "not a URL with a host" in answer.json()["error"]
    for host in MALFORMED_HOSTS:
        for method, path, body in routes:  # from this site's pages: the Host cannot be checked
            headers = {"Host": host, "Origin": "http://testserver"}
            answer = client.request(method, path, json=body, headers=headers)
            assert answer.status_code == 403, (host, path, answer.text)
            assert "Host header" in answer.json()["error"]
        # A program's request (no Origin): the passkeys cannot tell the site from the Host.
        answer = client.post("/api/passkeys/login/options", json={}, headers={"Host": host})
        assert answer.status_code == 400, (host, answer.text)
        assert "origin" in answer.json()["error"]


def test_the_session_cookie_is_refreshed_when_its_use_is_written(
    client: TestClient, clock: FakeClock
) -> None:
    token = _sign_up(client)
    quiet = client.get("/api/me")
    assert quiet.status_code == 200 and "set-cookie" not in quiet.headers  # just written
    clock.advance(limits.SESSION_TOUCH_SECONDS)
    touched = client.get("/api/me")
    cookie = touched.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}={token};")
    assert f"Max-Age={limits.SESSION_IDLE_DAYS * 86_400}" in cookie and "HttpOnly" in cookie
    assert "SameSite=lax" in cookie
    assert "set-cookie" not in client.get("/api/me").headers  # once a minute at most
    # A page load refreshes it too; a member active every few weeks stays logged in.
    for _ in range(3):
        clock.advance(limits.SESSION_IDLE_DAYS * 86_400 - 1)
        page = client.get("/account")
        assert page.status_code == 200 and SESSION_COOKIE in page.headers["set-cookie"]


def test_a_browser_that_logged_in_before_passes_a_strangers_lock_out(
    client: TestClient, clock: FakeClock
) -> None:
    _sign_up(client, "bob_the_owner")
    owner = _client_at(client, "198.51.100.20")
    good = {"username": "bob_the_owner", "password": PASSWORD}
    first = owner.post("/api/session", json=good)
    assert first.status_code == 200
    device = first.cookies.get(auth.DEVICE_COOKIE)
    assert device and "HttpOnly" in first.headers["set-cookie"].split(f"{auth.DEVICE_COOKIE}=")[1]
    for number in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        stranger = _client_at(client, f"203.0.113.{number}")
        bad = {"username": "bob_the_owner", "password": OTHER}
        assert stranger.post("/api/session", json=bad).status_code == 401
    # The owner on a new network, in a browser without the cookie: locked out, as before.
    fresh = _client_at(client, "192.0.2.200")
    assert fresh.post("/api/session", json=good).status_code == 429
    # The owner's own browser, on that new network: its known-device cookie lets it in.
    travelling = _client_at(client, "192.0.2.201")
    travelling.cookies.set(auth.DEVICE_COOKIE, device)
    assert travelling.post("/api/session", json=good).status_code == 200
    # ...which does not lift the strangers' block, nor let a forged or another's cookie in.
    assert _client_at(client, "192.0.2.202").post("/api/session", json=good).status_code == 429
    forged = _client_at(client, "192.0.2.203")
    forged.cookies.set(auth.DEVICE_COOKIE, device[:-1] + ("0" if device[-1] != "0" else "1"))
    assert forged.post("/api/session", json=good).status_code == 429

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
from bigboggle.errors import BusyError
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

"""HTTP hygiene: security headers on every answer, no inline script, JSON only as JSON, redirects
that never echo the Host header, HEAD on every GET route, the API docs from the package, a
500 that keeps the connection and names a request id, /healthz and /metrics; and, against a
real ``bigboggle serve`` on loopback where the transport matters, header size/count limits,
body and header timeouts, client addresses from proxy headers only when trusted, and a
saturated worker pool that refuses with 503 + Retry-After while pages, the rules, health
checks and WebSocket pings keep answering."""

from __future__ import annotations

import contextlib
import http.client
import json
import logging
import os
import re
import select
import shutil
import socket
import threading
import time
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastapi import FastAPI
from fastapi.testclient import TestClient
from websockets.sync.client import connect

from bigboggle.cli import cli
from bigboggle.services.store import Store
from bigboggle.web import create_app
from bigboggle.web.app import flat_routes
from bigboggle.web.middleware import CONTENT_SECURITY_POLICY
from bigboggle.web.pool import WorkerPool
from live_server import LiveServer

pytestmark = pytest.mark.once

BOARD = "LINES/TQARD/HEMOP/ABCKI/PSTEW"
SECURITY = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
}


def make_app(db_url: str, **kwargs: Any) -> FastAPI:
    """An app whose CPU work runs in threads (no processes for these tests)."""
    return create_app(db_url, pool=WorkerPool(workers=1, kind="thread"), **kwargs)


@pytest.fixture
def app(db_url: str) -> FastAPI:
    return make_app(db_url)


@pytest.fixture
def client(app: FastAPI) -> TestClient:
    return TestClient(app)


def assert_secure(answer: Any) -> None:
    for name, value in SECURITY.items():
        assert answer.headers.get(name) == value, (name, answer.request.url)
    assert "camera=()" in answer.headers["permissions-policy"]
    assert re.fullmatch(r"[0-9a-f]{16}", answer.headers["x-request-id"])


# -- the policy ------------------------------------------------------------------------------------


def test_the_policy_allows_no_inline_script_plugins_or_framing() -> None:
    policy = dict(part.strip().split(" ", 1) for part in CONTENT_SECURITY_POLICY.split(";"))
    assert policy["script-src"] == "'self'"
    assert policy["style-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["base-uri"] == "'none'"
    assert "unsafe" not in CONTENT_SECURITY_POLICY


def test_every_kind_of_answer_carries_the_security_headers(client: TestClient) -> None:
    answers = [
        client.get("/"),
        client.get("/solve", params={"board": BOARD}),
        client.get("/api/rules"),
        client.get("/static/style.css"),
        client.get("/static/docs/swagger-ui.css"),
        client.get("/nowhere"),
        client.get("/api/nowhere"),
        client.post("/api/solve", json={"board": "LINES/TQ"}),
        client.put("/api/rules"),
        client.get("/healthz"),
        client.get("/metrics"),
        client.get("/openapi.json"),
    ]
    assert [answer.status_code for answer in answers] == [
        *(200, 200, 200, 200, 200, 404, 404, 400, 405, 200, 200, 200)
    ]
    for answer in answers:
        assert_secure(answer)
    ids = {answer.headers["x-request-id"] for answer in answers}
    assert len(ids) == len(answers)


class InlineFinder(HTMLParser):
    """Collects what the policy would block: inline scripts, event handler attributes, inline
    style attributes and <style> elements, and the URLs of scripts, styles and images."""

    def __init__(self) -> None:
        super().__init__()
        self.inline: list[str] = []
        self.urls: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        for name, _ in attrs:
            if name.startswith("on"):
                self.inline.append(f"<{tag} {name}=…>")
        if "style" in found:
            self.inline.append(f"<{tag} style=…>")
        if tag == "style":
            self.inline.append("<style>")
        if tag == "script":
            if found.get("src"):
                self.urls.append(str(found["src"]))
            elif found.get("type") != "application/json":  # data, never run
                self._in_script = True
        if tag == "link" and found.get("href"):
            self.urls.append(str(found["href"]))
        if tag == "img" and found.get("src"):
            self.urls.append(str(found["src"]))
        if tag == "a" and str(found.get("href", "")).startswith("javascript:"):
            self.inline.append("<a href=javascript:…>")

    def handle_data(self, data: str) -> None:
        if self._in_script and data.strip():
            self.inline.append(f"<script>{data.strip()[:40]}")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False


def test_no_page_has_inline_script_or_style(client: TestClient) -> None:
    game = client.post("/api/games", json={"board": BOARD}).json()
    tournament = client.post("/api/tournaments", json={"name": "T", "rounds": 2}).json()
    room = client.post("/api/rooms", json={"host": "ann"}).json()
    pages = [
        "/",
        f"/solve?board={BOARD}",
        "/play",
        "/daily",
        "/rules",
        "/rooms",
        "/score",
        "/atlas",
        f"/games/{game['id']}",
        f"/tournaments/{tournament['id']}",
        f"/rooms/{room['room']}",
        "/nowhere",
        "/api/docs",
    ]
    for page in pages:
        answer = client.get(page)
        assert answer.status_code in (200, 404), page
        finder = InlineFinder()
        finder.feed(answer.text)
        assert finder.inline == [], page
        for url in finder.urls:  # same origin only, and each loads
            assert url.startswith("/") and not url.startswith("//"), (page, url)
            assert client.get(url).status_code == 200, (page, url)


def test_the_api_docs_load_offline_from_the_package(client: TestClient) -> None:
    page = client.get("/api/docs")
    assert page.status_code == 200
    finder = InlineFinder()
    finder.feed(page.text)
    assert "/static/docs/swagger-ui-bundle.js" in finder.urls
    assert "/static/docs.js" in finder.urls
    bundle = client.get("/static/docs/swagger-ui-bundle.js")
    assert bundle.status_code == 200 and b"SwaggerUIBundle" in bundle.content
    assert 'data-openapi="/openapi.json"' in page.text
    assert "http" not in page.text.replace("http-equiv", "")  # no CDN, no absolute URL


# -- what the API accepts --------------------------------------------------------------------------


def json_post_routes(client: TestClient) -> list[str]:
    """The paths of every operation whose body is JSON (from the OpenAPI document), with
    path parameters filled in."""
    paths = client.get("/openapi.json").json()["paths"]
    found = []
    for path, operations in paths.items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if method == "post" and "application/json" in content:
                found.append(re.sub(r"\{[^}]+\}", "x", path))
    return found


@pytest.mark.parametrize(
    "headers",
    [
        {"content-type": "application/x-www-form-urlencoded"},
        {"content-type": "text/plain"},
        {"content-type": "multipart/form-data; boundary=x"},
        {},
    ],
    ids=["form", "text", "multipart", "none"],
)
def test_json_endpoints_want_a_json_content_type(
    client: TestClient, headers: dict[str, str]
) -> None:
    body = json.dumps({"board": BOARD, "players": {"ann": ["lines"]}}).encode()
    routes = json_post_routes(client)
    assert {"/api/solve", "/api/score", "/api/games", "/api/rooms"} <= set(routes)
    for path in routes:
        answer = client.post(path, content=body, headers=headers)
        assert answer.status_code == 415, (path, answer.text)
        assert "application/json" in answer.json()["error"]
    metrics = client.get("/metrics").text
    assert f'bigboggle_refusals_total{{reason="415"}} {float(len(routes))}' in metrics


def test_round_options_are_checked_by_name(client: TestClient) -> None:
    for options in ({"name": "x"}, {"self": 1}, {"advanced": True, "nonsense": 1}):
        answer = client.post(
            "/api/score", json={"board": BOARD, "players": {"ann": ["lines"]}, "options": options}
        )
        assert answer.status_code == 400, options
        assert "option" in answer.json()["error"]
    good = client.post(
        "/api/score",
        json={"board": BOARD, "players": {"ann": ["lines"]}, "options": {"min_length": 5}},
    )
    assert good.status_code == 200


def test_a_declared_body_over_the_limit_is_refused_before_reading(db_url: str) -> None:
    from bigboggle.limits import ServerLimits

    client = TestClient(make_app(db_url, limits=ServerLimits(max_body_bytes=1000)))
    answer = client.post(
        "/api/solve",
        content=json.dumps({"board": BOARD, "pad": "x" * 2000}),
        headers={"content-type": "application/json"},
    )
    assert answer.status_code == 413
    assert "1000" in answer.json()["error"] and answer.headers["connection"] == "close"


def test_too_many_headers_are_refused(client: TestClient) -> None:
    headers = {f"x-extra-{i}": "1" for i in range(120)}
    answer = client.get("/api/rules", headers=headers)
    assert answer.status_code == 431
    assert "the limit is 100" in answer.json()["error"]
    assert_secure(answer)
    assert client.get("/api/rules", headers=dict(list(headers.items())[:80])).status_code == 200


# -- redirects and methods -------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/rules/", "/api/rules/", "/solve/", "/daily/?rules=classic"])
def test_slash_redirects_stay_on_this_origin(client: TestClient, path: str) -> None:
    answer = client.get(
        path,
        headers={"host": "evil.example", "x-forwarded-host": "evil.example"},
        follow_redirects=False,
    )
    assert answer.status_code == 307
    location = answer.headers["location"]
    assert location.startswith("/") and not location.startswith("//")
    assert "evil" not in location
    assert location == path.replace("/?", "?").rstrip("/")


def test_pages_link_on_this_origin_whatever_the_host(client: TestClient) -> None:
    for path in ("/", "/api/docs", f"/solve?board={BOARD}"):
        page = client.get(path, headers={"host": "evil.example"})
        assert page.status_code == 200 and "evil" not in page.text, path


def test_no_redirect_leaves_the_origin(client: TestClient) -> None:
    for path in ("//evil.example/", "/\\evil.example/", "/%2Fevil.example/"):
        answer = client.get(path, headers={"host": "evil.example"}, follow_redirects=False)
        location = answer.headers.get("location", "")
        assert "evil" not in location and not location.startswith("//"), (path, location)


def get_routes(app: FastAPI) -> list[str]:
    """A concrete path for every GET route and mount (path parameters filled in)."""
    paths = []
    for route in flat_routes(app.router.routes):
        path = getattr(route, "path", "")
        methods = getattr(route, "methods", None)
        if methods is None and path.startswith("/static"):  # a mount of files
            paths.append(path + ("/swagger-ui.css" if path.endswith("docs") else "/style.css"))
        elif methods and "GET" in methods:
            paths.append(re.sub(r"\{[^}]+\}", "x", path))
    return paths


def test_head_answers_on_every_get_route(app: FastAPI, client: TestClient) -> None:
    paths = get_routes(app)
    assert {"/", "/api/rules", "/healthz", "/metrics", "/api/docs", "/openapi.json"} <= set(paths)
    assert "/static/style.css" in paths
    varying = {"/metrics", "/api/shake"}  # new counts, a fresh shake: compare the status only
    for path in paths:
        if path in varying:
            assert client.head(path).status_code == 200
            assert client.head(path).content == b""
            continue
        got, head = client.get(path), client.head(path)
        assert head.status_code == got.status_code != 405, path
        assert head.content == b"", path
        assert head.headers.get("content-length") == got.headers.get("content-length"), path
        assert head.headers.get("content-type") == got.headers.get("content-type"), path


def test_method_not_allowed_names_every_method_of_the_path(client: TestClient) -> None:
    answer = client.put("/api/rules")
    assert answer.status_code == 405
    assert answer.headers["allow"] == "GET, HEAD"


# -- unexpected errors -----------------------------------------------------------------------------


def test_an_unexpected_error_is_a_logged_500_with_a_request_id(
    app: FastAPI, caplog: pytest.LogCaptureFixture
) -> None:
    @app.get("/api/test-only-broken")
    def broken() -> None:
        raise RuntimeError("a bug")

    @app.get("/test-only-broken-page")
    def broken_page() -> None:
        raise KeyError("a bug")

    client = TestClient(app)  # raises what escapes the app: nothing may
    with caplog.at_level(logging.ERROR):
        answer = client.get("/api/test-only-broken")
        page = client.get("/test-only-broken-page")
    assert answer.status_code == 500
    rid = answer.headers["x-request-id"]
    assert answer.json() == {
        "error": f"internal error (RuntimeError), request id {rid}; please report it",
        "request_id": rid,
    }
    assert_secure(answer)
    assert page.status_code == 500 and page.headers["x-request-id"] in page.text
    assert "<html" in page.text and "Traceback" not in page.text
    logged = [record for record in caplog.records if rid in record.getMessage()]
    assert len(logged) == 1 and logged[0].exc_info is not None  # once, with the traceback
    assert client.get("/api/rules").status_code == 200


# -- operators ---------------------------------------------------------------------------------


def test_healthz_says_what_answers(client: TestClient) -> None:
    answer = client.get("/healthz")
    assert answer.status_code == 200
    data = answer.json()
    assert data["status"] == "ok" and data["database"] == "ok" and data["redis"] == "not used"
    assert data["pool"]["started"] is False  # nothing has needed a worker yet


def test_healthz_names_a_database_that_is_down(tmp_path: Path) -> None:
    folder = tmp_path / "gone"
    folder.mkdir()
    store = Store(f"sqlite:///{folder / 'db.sqlite3'}")
    client = TestClient(make_app(store))
    store.close()
    shutil.rmtree(folder)
    answer = client.get("/healthz")
    assert answer.status_code == 503
    data = answer.json()
    assert data["status"] == "down" and data["down"] == ["database"]
    assert data["database"].startswith("down (")


def test_healthz_checks_redis(db_url: str) -> None:
    url = os.environ.get("BIGBOGGLE_TEST_REDIS")
    if not url:
        if os.environ.get("BIGBOGGLE_REQUIRE_SERVICES"):
            pytest.fail("BIGBOGGLE_TEST_REDIS is required")
        pytest.skip("no Redis (set BIGBOGGLE_TEST_REDIS)")
    with TestClient(make_app(db_url, redis=url)) as client:
        assert client.get("/healthz").json()["redis"] == "ok"
    down = TestClient(make_app(db_url, redis="redis://127.0.0.1:1/0"))  # lifespan not started
    answer = down.get("/healthz")
    assert answer.status_code == 503 and answer.json()["down"] == ["redis"]


def test_metrics_count_requests_by_route_template(client: TestClient) -> None:
    for game in ("abc", "def", "ghi"):
        assert client.get(f"/api/games/{game}").status_code == 404
    client.get("/static/style.css")
    client.get("/no/such/page/1")
    client.get("/no/such/page/2")
    client.post("/api/solve", json={"board": BOARD})
    answer = client.get("/metrics")
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/plain")
    text = answer.text
    assert (
        'bigboggle_http_requests_total{method="GET",route="/api/games/{game_id}",status="404"} 3.0'
        in text
    )
    assert 'route="/static"' in text
    assert (
        'bigboggle_http_requests_total{method="GET",route="<unmatched>",status="404"} 2.0' in text
    )
    assert "abc" not in text and "/no/such" not in text  # no raw paths: bounded labels
    assert (
        'bigboggle_http_request_duration_seconds_bucket{le="0.005",method="POST",route="/api/solve"}'
        in text
    )
    for name in (
        "bigboggle_websockets_open",
        "bigboggle_rooms_active",
        "bigboggle_rounds_scored_total",
        "bigboggle_words_submitted_total",
        "bigboggle_pool_jobs_waiting 0.0",
        "bigboggle_pool_jobs_in_flight 0.0",
    ):
        assert name in text


def test_metrics_count_rooms_with_a_connection(client: TestClient) -> None:
    room = client.post("/api/rooms", json={"host": "ann"}).json()
    assert "bigboggle_rooms_active 0.0" in client.get("/metrics").text
    with client.websocket_connect("/ws") as ws:
        ws.send_json({"type": "join", "token": room["token"], "id": 1})
        while ws.receive_json().get("re") != 1:
            pass
        assert "bigboggle_rooms_active 1.0" in client.get("/metrics").text


def test_a_bad_limit_in_the_environment_stops_serve() -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--port", "1"], env={"BIGBOGGLE_LIMIT_BODY_TIMEOUT": "soon"}
    )
    assert result.exit_code == 2
    assert "Error: BIGBOGGLE_LIMIT_BODY_TIMEOUT='soon' is not a float" in result.output
    result = CliRunner().invoke(cli, ["serve"], env={"BIGBOGGLE_LIMIT_POOL_QUEUE": "-3"})
    assert result.exit_code == 2 and "must be above 0" in result.output


# -- a real server ---------------------------------------------------------------------------------

LIMITS = {
    "BIGBOGGLE_LIMIT_BODY_TIMEOUT": "1",
    "BIGBOGGLE_LIMIT_HEADER_TIMEOUT": "1",
    "BIGBOGGLE_LIMIT_MAX_HEADERS": "40",
    "BIGBOGGLE_LIMIT_POOL_WORKERS": "1",
    "BIGBOGGLE_LIMIT_POOL_QUEUE": "2",
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("http")
    live = LiveServer(
        f"sqlite:///{folder / 'web.sqlite3'}", folder / "server.log", env=LIMITS
    ).start()
    yield live
    live.stop()


def status_of(answer: bytes) -> int:
    match = re.match(rb"HTTP/1\.1 (\d{3}) ", answer)
    assert match, answer[:200]
    return int(match.group(1))


def honest(server: LiveServer) -> None:
    """An honest client beside every attack: the rules answer."""
    status, rules = server.call("GET", "/api/rules")
    assert status == 200 and "big" in rules["presets"]


@pytest.mark.parametrize("size", [20_000, 1_000_000, 8_000_000])
def test_huge_headers_are_refused(server: LiveServer, size: int) -> None:
    request = b"GET /api/rules HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * size + b"\r\n\r\n"
    answer = server.raw(request)
    if size > 256_000 and answer == b"":
        pass  # the server closed (so reset) the connection while the header was still coming
    else:
        assert status_of(answer) == 431
        assert b"connection: close" in answer.lower()
    honest(server)


def test_many_headers_are_refused(server: LiveServer) -> None:
    lines = b"".join(b"X-%d: a\r\n" % i for i in range(60))
    answer = server.raw(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n" + lines + b"\r\n")
    assert status_of(answer) == 431
    assert b"BIGBOGGLE_LIMIT_MAX_HEADERS" in answer
    honest(server)


def test_a_short_body_gives_up_with_408_and_closes(server: LiveServer) -> None:
    head = (
        b"POST /api/solve HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        b"Content-Length: 100\r\n\r\n"
    )
    answer = server.raw(head + b'{"board": ', timeout=60)  # ends when the server closes
    assert status_of(answer) == 408
    assert b"BIGBOGGLE_LIMIT_BODY_TIMEOUT" in answer and b"connection: close" in answer.lower()
    honest(server)


def test_a_slow_body_gives_up_with_408(server: LiveServer) -> None:
    with socket.create_connection(("127.0.0.1", server.port), timeout=60) as sock:
        sock.sendall(
            b"POST /api/score HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: 10000\r\n\r\n"
        )
        # A byte every 20 ms (10,000 would take 200 s) until the server answers.
        for _ in range(3000):
            if select.select([sock], [], [], 0.02)[0]:
                break
            sock.sendall(b" ")
        answer = b""
        with contextlib.suppress(ConnectionResetError):
            while chunk := sock.recv(65536):
                answer += chunk
    assert status_of(answer) == 408
    honest(server)


def test_headers_that_never_end_are_cut_off(server: LiveServer) -> None:
    answer = server.raw(b"GET /api/rules HTTP/1.1\r\nHost: x\r\nX-Slow: a", timeout=60)
    assert answer == b""  # closed without an answer (raw returns at the close)
    honest(server)


def test_an_idle_keep_alive_connection_is_closed(server: LiveServer) -> None:
    answer = server.raw(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n\r\n", timeout=60)
    assert status_of(answer) == 200  # and then the connection closed by itself


def test_a_refused_request_keeps_the_connection(server: LiveServer) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    headers = {"Content-Type": "application/json"}
    body = json.dumps({"board": BOARD, "players": {"a": ["lines"]}, "options": {"name": "x"}})
    connection.request("POST", "/api/score", body, headers)
    first = connection.getresponse()
    assert first.status == 400 and b"'name'" in first.read()
    connection.request("GET", "/api/rules")
    second = connection.getresponse()
    assert second.status == 200 and second.read()
    connection.close()


def test_redirects_never_echo_the_host(server: LiveServer) -> None:
    answer = server.raw(b"GET /rules/ HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
    assert status_of(answer) == 307
    assert re.search(rb"\r\nlocation: /rules\r\n", answer)
    assert b"evil" not in answer


def test_security_headers_on_the_real_server(server: LiveServer) -> None:
    for path in ("/", "/static/style.css", "/nowhere", "/api/docs"):
        answer = server.raw(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode())
        lowered = answer.lower()
        assert b"content-security-policy: default-src 'self'; script-src 'self'" in lowered
        assert b"x-content-type-options: nosniff" in lowered
        assert b"server: uvicorn" not in lowered


def test_the_access_log_has_one_json_line_per_request(server: LiveServer) -> None:
    status, _ = server.get("/api/rules", headers={"X-Forwarded-For": "203.0.113.9"})
    assert status == 200
    deadline = time.monotonic() + 30
    while True:
        lines = [line for line in server.log.read_text().splitlines() if line.startswith("{")]
        entries = [json.loads(line) for line in lines]
        mine = [e for e in entries if e["route"] == "/api/rules" and e["method"] == "GET"]
        if mine or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    entry = mine[-1]
    assert set(entry) >= {"request_id", "method", "route", "status", "duration_ms", "client"}
    assert entry["status"] == 200
    # Proxy headers are not trusted by default: the client is the socket's address.
    assert entry["client"].startswith("127.0.0.1:")


def test_proxy_headers_are_trusted_only_when_told(tmp_path: Path) -> None:
    live = LiveServer(
        f"sqlite:///{tmp_path / 'proxy.sqlite3'}", tmp_path / "proxy.log", "--trust-proxy"
    ).start()
    try:
        status, _ = live.get("/api/rules", headers={"X-Forwarded-For": "203.0.113.9"})
        assert status == 200
        deadline = time.monotonic() + 30
        while '"client": "203.0.113.9' not in live.log.read_text():
            assert time.monotonic() < deadline, live.log.read_text()[-2000:]
            time.sleep(0.05)
    finally:
        live.stop()


def test_several_server_processes_get_the_same_limits(tmp_path: Path) -> None:
    url = os.environ.get("BIGBOGGLE_TEST_REDIS")
    if not url:
        if os.environ.get("BIGBOGGLE_REQUIRE_SERVICES"):
            pytest.fail("BIGBOGGLE_TEST_REDIS is required")
        pytest.skip("no Redis (set BIGBOGGLE_TEST_REDIS)")
    live = LiveServer(
        f"sqlite:///{tmp_path / 'workers.sqlite3'}",
        tmp_path / "workers.log",
        *("--workers", "2", "--redis", url),
        env={"BIGBOGGLE_LIMIT_MAX_HEADERS": "20", "BIGBOGGLE_LIMIT_MAX_BODY_BYTES": "5000"},
    ).start()
    try:
        deadline = time.monotonic() + 60
        while live.get("/healthz")[0] != 200:  # both workers up
            assert time.monotonic() < deadline
            time.sleep(0.1)
        for _ in range(6):  # whichever worker answers
            lines = b"".join(b"X-%d: a\r\n" % i for i in range(30))
            answer = live.raw(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n" + lines + b"\r\n")
            assert status_of(answer) == 431
            status, body = live.call("POST", "/api/solve", {"board": BOARD, "pad": "x" * 6000})
            assert status == 413 and "5000" in body["error"]
            assert live.call("POST", "/api/solve", {"board": BOARD})[0] == 200
        big = live.raw(b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
        assert status_of(big) == 431
    finally:
        live.stop()


#: A band no board reaches: each request searches 2,000 shakes (about half a second of CPU).
HEAVY = "/api/shake?rules=superbig&dictionary=huge&band=999999-"


def test_a_saturated_pool_refuses_and_the_rest_keeps_answering(server: LiveServer) -> None:
    statuses: list[int] = []
    retry: list[str] = []
    lock = threading.Lock()
    go = threading.Barrier(12)

    def heavy() -> None:
        go.wait()
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
        connection.request("GET", HEAVY)
        answer = connection.getresponse()
        answer.read()
        with lock:
            statuses.append(answer.status)
            if answer.status == 503:
                retry.append(answer.getheader("Retry-After") or "")
        connection.close()

    threads = [threading.Thread(target=heavy) for _ in range(12)]
    for thread in threads:
        thread.start()
    # While the searches run (1 worker, 2 waiting), everything else still answers.
    deadline = time.monotonic() + 30
    while server.call("GET", "/healthz")[1]["pool"]["in_flight"] == 0:
        assert time.monotonic() < deadline, "the heavy requests never reached the pool"
    assert server.call("GET", "/api/rules")[0] == 200
    assert server.get("/")[0] == 200
    assert server.get("/static/style.css")[0] == 200
    assert server.call("POST", "/api/rooms", {"host": "ann"})[0] == 201
    with connect(f"ws://127.0.0.1:{server.port}/ws", open_timeout=30) as ws:
        ws.send(json.dumps({"type": "ping", "id": 1}))
        assert json.loads(ws.recv(timeout=30))["type"] == "pong"
    for thread in threads:
        thread.join()
    # 1 running + 2 waiting were taken (each search ends "no board in the band": 400); the
    # rest were refused at once with 503 and Retry-After.
    assert len(statuses) == 12 and set(statuses) == {400, 503}
    assert len(retry) == statuses.count(503)
    assert all(value.isdigit() and int(value) >= 1 for value in retry)
    status, body = server.call("GET", HEAVY)
    assert status == 400 and "widen the band" in body["error"]
    metrics = server.get("/metrics")[1].decode()
    assert 'bigboggle_refusals_total{reason="503"}' in metrics


#: Texts pydantic's own parsing would take for a whole number, which no client means by one.
NOT_WHOLE_NUMBERS = ("0.0", "1.0", "1e3", " 1", "1 ", "+1", "1_0", "0x1", "")
#: Numbers in digits, but not written the one way: refused in a query (a path's ``:int`` reads
#: them as the router does).
NOT_CANONICAL = ("-0", "007", "-01")


def test_every_integer_path_parameter_takes_digits_only(client: TestClient) -> None:
    walked = []
    for path, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        for method, operation in operations.items():
            for parameter in operation.get("parameters", []):
                if parameter["in"] != "path" or parameter["schema"].get("type") != "integer":
                    continue
                name = parameter["name"]
                walked.append(name)
                for text in [text for text in NOT_WHOLE_NUMBERS if text.strip()]:
                    url = re.sub(r"\{[^}]+\}", "x", path.replace(f"{{{name}}}", text))
                    answer = client.request(method, url)
                    error = answer.json()["error"]
                    if answer.status_code == 404:  # a path of digits only (":int"): no route
                        assert error.startswith("nothing at"), (method, url, error)
                        continue
                    assert answer.status_code == 400, (method, url, answer.text)
                    assert error.startswith(f"{name}: "), answer.text
    assert {"number", "passkey_id"} <= set(walked)  # the walk found them


def test_every_integer_query_parameter_takes_digits_only(client: TestClient) -> None:
    walked = []
    for path, operations in client.app.openapi()["paths"].items():  # type: ignore[attr-defined]
        if not path.startswith("/api/"):
            continue
        for method, operation in operations.items():
            parameters = operation.get("parameters", [])
            for parameter in parameters:
                schema = parameter["schema"]
                kinds = [schema.get("type")] + [one.get("type") for one in schema.get("anyOf", [])]
                if parameter["in"] != "query" or "integer" not in kinds:
                    continue
                others = [p for p in parameters if p["required"] and p is not parameter]
                assert all(p["in"] == "path" for p in others), (path, others)  # the walk's fill
                url = re.sub(r"\{[^}]+\}", "x", path)
                name = parameter["name"]
                walked.append(name)
                for text in NOT_WHOLE_NUMBERS + NOT_CANONICAL:
                    answer = client.request(method, url, params={name: text})
                    assert answer.status_code == 400, (method, url, name, text, answer.text)
                    assert answer.json()["error"].startswith(f"{name}: "), answer.text
                    assert "whole number written in digits" in answer.json()["error"]
                    assert "Value error" not in answer.json()["error"]
    assert {"limit", "seed"} <= set(walked)  # the walk found them
    assert client.get("/api/shake", params={"seed": "12"}).json()["seed"] == 12
    assert client.get("/api/leaderboard", params={"limit": "7"}).status_code == 200
    below = client.get("/api/leaderboard", params={"limit": "0"}).json()["error"]
    assert below.startswith("limit: Input should be greater than or equal to 1")


def test_a_pages_integer_query_parameters_take_digits_only(client: TestClient) -> None:
    # The play page's seed and timer are checked as the API's are: a clear 400 page naming
    # the parameter, for anything but a number written the one way.
    for name in ("seed", "timer"):
        for text in NOT_WHOLE_NUMBERS + NOT_CANONICAL:
            answer = client.get("/play", params={name: text})
            assert answer.status_code == 400, (name, text)
            assert answer.headers["content-type"].startswith("text/html")
            assert f"{name}: expected a whole number written in digits" in answer.text
    assert client.get("/play", params={"seed": "0", "timer": "60"}).status_code == 200
    assert client.get("/play", params={"seed": "12"}).status_code == 200


def test_an_api_parameter_given_twice_or_an_unknown_dictionary_is_refused(
    client: TestClient,
) -> None:
    # No API parameter is a list: taking one of two values would answer another request.
    twice = client.get("/api/shake", params=[("dictionary", "standard"), ("dictionary", "huge")])
    assert twice.status_code == 400
    assert "'dictionary' is given more than once" in twice.json()["error"]
    assert client.get("/api/shake?seed=1&seed=1").status_code == 400
    assert client.get("/api/shake?seed=1&rules=big").status_code == 200
    # A dictionary /api/shake does not use (no band) is still checked.
    unknown = client.get("/api/shake", params={"dictionary": "nope"})
    assert unknown.status_code == 400 and "unknown dictionary 'nope'" in unknown.json()["error"]
    assert client.get("/api/shake", params={"dictionary": "huge"}).status_code == 200
    # Pages keep their own reading of a query (a form may send a name twice).
    assert client.get("/play?seed=1&seed=2").status_code == 200

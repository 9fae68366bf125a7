"""The terminal's client against a hostile server on loopback (review 16: M2, L2-L5).

``bigboggle play --challenge CODE --server URL`` talks to whatever server a player is pointed
at. These tests stand up such a server (``http.server`` in a thread, each challenge code a
different misbehaviour) and check what reaches the caller: no character a terminal would obey
(escape sequences, C1 controls, bidi overrides) in any string the client returns or any error
it raises, in the command line's error line or in the screens; one deadline for a whole call;
no redirect followed (so the game's key goes nowhere else); NaN, infinities and out-of-range
or mistyped fields refused as one clear error; the server's own error text cut to a bound.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import threading
import unicodedata
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from click.testing import CliRunner
from textual.pilot import Pilot
from textual.widgets import DataTable, Static

from bigboggle.cli import cli
from bigboggle.limits import CLIENT_MAX_ANSWER_DEPTH, CLIENT_MAX_SHOWN_TEXT
from bigboggle.tui import ChallengeApp
from bigboggle.tui.challenge import (
    ChallengeIntroScreen,
    ChallengePlayScreen,
    ChallengeResultsScreen,
    intro_text,
)
from bigboggle.tui.remote import ChallengeClient, RemoteError
from bigboggle.tui.untrusted import PLACEHOLDER, UNSAFE, cleaned, parse_json, safe_text, shown
from test_tui import FakeClock
from test_tui import run as run_app
from test_tui import until as until_app

OSC52 = "\x1b]52;c;UFdORUQtQ0xJUEJPQVJE\x07"  # writes "PWNED-CLIPBOARD" to the clipboard
TITLE = "\x1b]0;PWNED-TITLE\x07"
CSI = "\x1b[31;1;4;5;7mred\x1b[0m\x1b[2J\x1b[H\x1b[10;10H\x1b[?1049l"  # colours, clear, moves
C1 = "\x9b31m\x9d0;title\x9c"  # CSI and OSC as single C1 characters
BIDI = "\u202eevil\u202c\u2066x\u2069"
#: Everything a hostile server might hide in a string, bell and DEL included.
EVIL = OSC52 + TITLE + CSI + C1 + BIDI + "\x07\x7f\x08\r\n\t"
BOARD = "ABCDE/FGHIJ/KLMNO/PRSTU/VWXYZ"

# Above the solver: the client and the screens only, against a server in this process.
pytestmark = pytest.mark.once


def unsafe_in(value: object, lines: bool = False) -> list[str]:
    """Every string inside ``value`` (keys too) that holds a character a terminal obeys
    (``lines``: but for newlines, a screen's own text being in lines)."""
    found: list[str] = []

    def walk(item: object) -> None:
        if isinstance(item, str):
            if UNSAFE.search(item.replace("\n", "") if lines else item):
                found.append(item)
        elif isinstance(item, dict):
            for key, inner in item.items():
                walk(key)
                walk(inner)
        elif isinstance(item, list | tuple):
            for inner in item:
                walk(inner)

    walk(value)
    return found


def info(code: str, **extra: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "code": code,
        "shown_code": code,
        "rules": "big",
        "title": "Big Boggle",
        "rounds": 1,
        "timer": 180,
        "closes": 2_000_000_000,
        "closed": False,
        "standings": [],
        "can_play": True,
    }
    return base | extra


def a_round(**extra: Any) -> dict[str, Any]:
    base = {"id": "g1", "key": "k1", "board": BOARD, "round": 1, "time_left": 60.0}
    return base | extra


def results(**extra: Any) -> dict[str, Any]:
    word = {"word": "tea" + EVIL, "entry": "tea" + EVIL, "verdict": "scored", "score": 1}
    base = {
        "code": "X",
        "rounds": 1,
        "closed": False,
        "round_results": [
            {
                "number": 1,
                "visible": True,
                "board": BOARD,
                "players": [
                    {"name": "ann" + EVIL, "place": 1, "score": 1, "words": [word | {"bonus": 0}]}
                ],
                "missed": [{"word": "abc" + EVIL, "score": 1, "path": [[0, 0]]}],
            }
        ],
        "standings": [{"name": "ann" + EVIL, "place": 1, "total": 1}],
    }
    return base | extra


#: Raw bodies (JSON Python's ``json`` accepts but a real server never sends), by code.
RAW: dict[str, bytes] = {
    "NAN": b'{"code": "NAN", "timer": NaN, "standings": []}',
    "INF": b'{"code": "INF", "closes": Infinity}',
    "HUGEFLOAT": b'{"code": "T", "timer": 1e999}',
    "DEEP": b'{"a": '
    + b"[" * (CLIENT_MAX_ANSWER_DEPTH + 1)
    + b"]" * (CLIENT_MAX_ANSWER_DEPTH + 1)
    + b"}",
    "DEEPER": b"[" * 100_000 + b"]" * 100_000,
    "PLAYINF": b'{"id": "g1", "key": "k1", "board": "' + BOARD.encode() + b'", "time_left": 1e999}',
}

#: Intro answers of the right syntax but the wrong shape, by code: (answer, what is named).
SHAPES: dict[str, tuple[dict[str, Any], str]] = {
    "CLOSESFAR": (info("X", closes=1e20), "closes is 1e+20"),
    "CLOSESNEG": (info("X", closes=-1e15), "closes is -1000000000000000.0"),
    "TIMERBIG": (info("X", timer=1e308), "timer is 1e+308"),
    "STANDINGS5": (info("X", standings=5), "standings is 5, not a list"),
    "ROUNDSTEXT": (info("X", rounds="many"), "rounds is 'many'"),
    "YOULIST": (info("X", you=[1]), "you is [1], not an object"),
    "TEAMS": (info("X", teams=[{"name": 5}]), "teams[0].name is 5, not text"),
    "PLAYED": (
        info("X", standings=[{"name": "a", "rounds_played": "x"}]),
        "standings[0].rounds_played is 'x'",
    ),
    "TITLE": (info("X", title={"x": 1}), "title is {'x': 1}, not text"),
}


class Hostile(http.server.BaseHTTPRequestHandler):
    """A 'bigboggle server' that misbehaves as its challenge code says."""

    protocol_version = "HTTP/1.1"
    #: Set at teardown: every drip stops.
    stopping = threading.Event()
    #: The requests the server saw: (path, X-Game-Key).
    seen: list[tuple[str, str | None]]
    #: Where the redirects point (another server's address).
    elsewhere = ""

    def log_message(self, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        self.route()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.route()

    def send_json(self, data: object, status: int = 200, raw: bytes | None = None) -> None:
        body = raw if raw is not None else json.dumps(data).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        with contextlib.suppress(OSError):  # the client stopped reading: as it should
            self.wfile.write(body)

    def redirect(self, where: str, status: int = 302) -> None:
        self.send_response(status)
        self.send_header("Location", where)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def route(self) -> None:
        self.seen.append((self.path, self.headers.get("X-Game-Key")))
        parts = self.path.strip("/").split("/")
        if parts[:2] == ["api", "games"]:  # the round's solo game (g1)
            if parts[-1] == "words":
                verdict = {"word": "tea" + EVIL, "entry": "tea" + EVIL, "verdict": "scored"}
                return self.send_json({"result": verdict | {"score": 1}, "time_left": 50})
            return self.send_json({"phase": "ended"})
        code = parts[2] if len(parts) > 2 else ""
        action = parts[3] if len(parts) > 3 else "info"
        if code in RAW:
            return self.send_json(None, raw=RAW[code])
        if code in SHAPES:
            return self.send_json(SHAPES[code][0])
        handler = getattr(self, f"answer_{code}", None)
        if handler is None:
            return self.send_json({"error": "no such challenge"}, 404)
        handler(action)

    # -- the codes -----------------------------------------------------------------------

    def answer_ESCAPES(self, action: str) -> None:
        """Escapes in everything the screens show."""
        if action == "play":
            return self.send_json(a_round(rules="big" + EVIL))
        if action == "results":
            return self.send_json(results())
        standings = [{"place": 1, "name": "ann" + EVIL, "total": 3}]
        you = {"name": "me" + EVIL, "next_round": 1, "team": "Red" + EVIL}
        self.send_json(
            info(
                "ESC" + EVIL,
                title="Big" + EVIL,
                maker="mallory" + EVIL,
                shown_code="ESC" + EVIL,
                standings=standings,
                you=you,
                why_not="no" + EVIL,
                teams=[{"name": "Red" + EVIL, "players": ["cy" + EVIL]}],
            )
        )

    def answer_ESCERR(self, action: str) -> None:
        self.send_json({"error": "refused" + EVIL + "you have been pwned"}, 403)

    def answer_BIGERR(self, action: str) -> None:
        self.send_json({"error": "A" * 2_000_000}, 400)

    def answer_REASON(self, action: str) -> None:
        """An error without JSON: only the reason phrase, with escapes, speaks."""
        self.send_response(500, "Oops" + OSC52 + "\x9b2J")
        self.send_header("Content-Length", "0")
        self.end_headers()

    def answer_BADSTATUS(self, action: str) -> None:
        """Not HTTP at all: a status line of escapes."""
        self.wfile.write(b"PWNED" + OSC52.encode() + b"\r\n\r\n")
        self.close_connection = True

    def answer_BADJSON(self, action: str) -> None:
        self.send_json(None, raw=b"{not json" + EVIL.encode())

    def answer_DRIP(self, action: str) -> None:
        """The headers, then a byte of the body every 0.2 s (a second at most for each read)."""
        self.send_response(200)
        self.send_header("Content-Length", "200")
        self.end_headers()
        self.drip(b"{" + b" " * 198 + b"}")

    def answer_HEADDRIP(self, action: str) -> None:
        """The status line and headers themselves a byte every 0.2 s."""
        body = b"{}"
        head = f"HTTP/1.1 200 OK\r\n{'X-Pad: ' + 'x' * 100}\r\nContent-Length: 2\r\n\r\n"
        self.drip(head.encode() + body)
        self.close_connection = True

    def drip(self, data: bytes) -> None:
        try:
            for index in range(len(data)):
                self.wfile.write(data[index : index + 1])
                self.wfile.flush()
                if self.stopping.wait(0.2):
                    return
        except OSError:  # the client hung up: as it should at its deadline
            return

    def answer_REDIRHOST(self, action: str) -> None:
        """The results (asked with the game's key) sent to another origin."""
        if action == "results":
            return self.redirect(f"{self.elsewhere}/api/challenges/REDIRHOST/results")
        self.send_json(info("REDIRHOST"))

    def answer_REDIRSAME(self, action: str) -> None:
        """A redirect to this very server, keeping the method: not followed either."""
        self.redirect("/api/challenges/ESCAPES/results", 307)

    def answer_REDIRFTP(self, action: str) -> None:
        self.redirect("ftp://127.0.0.1:1/x" + OSC52 + "\x9b2J")

    def answer_SHAPELESS(self, action: str) -> None:
        """A sound intro, then results and rounds of wrong shapes."""
        if action == "results":
            return self.send_json(results(standings=5))
        if action == "play":
            return self.send_json(a_round(time_left=-1))
        self.send_json(info("SHAPELESS"))


def start(elsewhere: str = "") -> tuple[http.server.ThreadingHTTPServer, str, list[Any]]:
    seen: list[tuple[str, str | None]] = []
    handler = type("Handler", (Hostile,), {"seen": seen, "elsewhere": elsewhere})
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}", seen


@pytest.fixture(scope="module")
def servers() -> Iterator[tuple[str, str, list[Any]]]:
    """The hostile server, and a second one its redirects point to (with what it saw)."""
    Hostile.stopping.clear()
    other, other_url, other_seen = start()
    hostile, url, _ = start(elsewhere=other_url)
    yield url, other_url, other_seen
    Hostile.stopping.set()
    for httpd in (hostile, other):
        httpd.shutdown()
        httpd.server_close()


@pytest.fixture
def hostile(servers: tuple[str, str, list[Any]]) -> str:
    return servers[0]


def failure(call: Callable[[], object]) -> str:
    """The message of the :class:`RemoteError` ``call`` raises (it must raise one)."""
    with pytest.raises(RemoteError) as caught:
        call()
    message = str(caught.value)
    assert not UNSAFE.search(message), message
    return message


# -- M2: escapes ------------------------------------------------------------------------------


def test_safe_text_replaces_every_control_character_and_bidi_override() -> None:
    controls = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cc"]
    assert len(controls) == 65  # C0, DEL and C1
    bidi = [chr(c) for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]]
    hostile = "".join(controls + bidi + ["\u2028", "\u2029"])
    assert safe_text(hostile) == PLACEHOLDER * len(hostile)  # replaced one for one, visibly
    for kept in ["ann", "Zoë Ünïcode", "[Qu]ick/ABCD", "名前", "café 🎲", "a-b c.d"]:
        assert safe_text(kept) == kept
    assert cleaned({"a\x1b": ["b\x9b", {"c": "\u202e"}], "n": 1}) == {
        f"a{PLACEHOLDER}": [f"b{PLACEHOLDER}", {"c": PLACEHOLDER}],
        "n": 1,
    }


def test_escapes_in_answers_never_reach_the_caller(hostile: str) -> None:
    client = ChallengeClient(hostile)
    challenge = client.challenge("ESCAPES")
    assert unsafe_in(challenge) == []
    visible = safe_text(EVIL)  # each control character one U+FFFD, the rest as sent
    assert len(visible) == len(EVIL) and visible.count(PLACEHOLDER) == len(UNSAFE.findall(EVIL))
    assert challenge["title"] == "Big" + visible
    assert challenge["standings"][0]["name"].startswith("ann" + PLACEHOLDER)
    assert unsafe_in(intro_text(challenge), lines=True) == []
    assert unsafe_in(client.results("ESCAPES")) == []
    played = client.play("ESCAPES", "me")
    assert not UNSAFE.search(played.rules)
    result, left = client.submit(played, "tea")
    assert result.word == result.entry == "tea" + visible and left == 50


def test_escapes_in_an_error_are_not_printed(hostile: str) -> None:
    client = ChallengeClient(hostile)
    message = failure(lambda: client.challenge("ESCERR"))
    assert message.startswith("the server refused it (403): refused\ufffd")
    assert "you have been pwned" in message
    reason = failure(lambda: client.challenge("REASON"))
    assert reason.startswith("the server refused it (500): HTTP 500 Oops\ufffd")
    broken = failure(lambda: client.challenge("BADSTATUS"))
    assert broken.startswith(f"cannot talk to the server at {hostile}: ")
    assert "is not JSON" in failure(lambda: client.challenge("BADJSON"))
    # The command line's one error line: no escape in it.
    for code, message in [("ESCERR", "refused"), ("BADSTATUS", "cannot talk"), ("NAN", "NaN")]:
        answer = CliRunner().invoke(cli, ["play", "--challenge", code, "--server", hostile])
        assert answer.exit_code == 2, answer.output
        assert message in answer.output and "Traceback" not in answer.output
        assert not UNSAFE.search(answer.output.rstrip("\n")), answer.output


def run(app: ChallengeApp, script: Callable[[Pilot[None]], Awaitable[None]]) -> None:
    """Run ``script`` against ``app`` as test_tui does, in a terminal of 120x40."""
    run_app(app, script, size=(120, 40))  # type: ignore[arg-type]


async def until(pilot: Pilot[None], condition: Callable[[], bool], seconds: float = 20) -> None:
    """test_tui's until, waiting longer: the app waits on a server here."""
    await until_app(pilot, condition, seconds)


def shown_texts(app: ChallengeApp) -> list[str]:
    """Every text the current screen shows: its static lines and its table's cells."""
    texts = [str(widget.render()) for widget in app.screen.query(Static)]
    for table in app.screen.query(DataTable):
        for index in range(table.row_count):
            texts.extend(str(cell) for cell in table.get_row_at(index))
    return texts


def test_the_screens_show_no_escape_of_a_hostile_server(hostile: str) -> None:
    client = ChallengeClient(hostile)
    app = ChallengeApp(
        client, "ESCAPES", client.challenge("ESCAPES"), clock=FakeClock(), key_guard=0
    )

    async def script(pilot: Pilot[None]) -> None:
        assert isinstance(app.screen, ChallengeIntroScreen)
        assert "Made by mallory\ufffd" in "".join(shown_texts(app))
        assert unsafe_in(shown_texts(app), lines=True) == []
        await pilot.press(*"me", "enter")
        await until(pilot, lambda: isinstance(app.screen, ChallengePlayScreen))
        await pilot.press(*"tea", "enter")
        await until(pilot, lambda: "TEA" in str(app.screen.query_one("#verdict").render()))
        assert "TEA\ufffd" in "".join(shown_texts(app))
        assert unsafe_in(shown_texts(app), lines=True) == []
        await pilot.press("ctrl+e")
        await until(pilot, lambda: isinstance(app.screen, ChallengeResultsScreen))
        assert isinstance(app.screen, ChallengeResultsScreen)
        texts = shown_texts(app)
        assert any(text.startswith("ann\ufffd") for text in texts)
        assert unsafe_in(texts, lines=True) == []

    run(app, script)


# -- L2: one deadline a call ------------------------------------------------------------------


def test_a_server_dripping_bytes_is_cut_at_the_deadline(hostile: str) -> None:
    # Each byte comes well within the second, so only a deadline for the whole call ends it
    # (a per-read timeout would wait for all 200, or the headers' 150).
    client = ChallengeClient(hostile, timeout=1)
    no_answer = f"the server at {hostile} did not answer within 1 s"
    assert failure(lambda: client.challenge("DRIP")) == no_answer
    assert failure(lambda: client.challenge("HEADDRIP")) == no_answer
    assert ChallengeClient(hostile, timeout=5).challenge("ESCAPES")  # a prompt answer is read


# -- L3: redirects ----------------------------------------------------------------------------


def test_redirects_are_not_followed(servers: tuple[str, str, list[Any]]) -> None:
    hostile, elsewhere, seen_elsewhere = servers
    client = ChallengeClient(hostile)
    message = failure(lambda: client.results("REDIRHOST", key="k1"))
    assert message.startswith(f"the server at {hostile} answered 302 Found, a redirect to ")
    assert f"'{elsewhere}/api/challenges/REDIRHOST/results'" in message
    assert "not followed" in message
    assert seen_elsewhere == []  # the game's key went nowhere else
    same = failure(lambda: client.results("REDIRSAME", key="k1"))
    assert same.startswith(f"the server at {hostile} answered 307")
    ftp = failure(lambda: client.challenge("REDIRFTP"))
    assert ftp.startswith(f"the server at {hostile} answered 302") and "'ftp://127.0.0.1:1/x" in ftp


# -- L4: numbers and shapes -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "named"),
    [
        ("NAN", "NaN is not a number JSON allows"),
        ("INF", "Infinity is not a number JSON allows"),
        ("HUGEFLOAT", "1e999 is too large a number"),
        ("DEEP", f"nested deeper than {CLIENT_MAX_ANSWER_DEPTH} levels"),
        ("DEEPER", f"nested deeper than {CLIENT_MAX_ANSWER_DEPTH} levels"),
        *[(code, named) for code, (_, named) in SHAPES.items()],
    ],
)
def test_an_answer_out_of_shape_is_one_clear_error(hostile: str, code: str, named: str) -> None:
    message = failure(lambda: ChallengeClient(hostile).challenge(code))
    assert message == f"the server's answer is not a challenge: {named}" or (
        message.startswith(f"the server's answer is not a challenge: {named}")
    ), message


def test_rounds_results_and_verdicts_out_of_shape(hostile: str) -> None:
    client = ChallengeClient(hostile)
    assert failure(lambda: client.results("SHAPELESS")) == (
        "the server's answer is not a challenge's results: standings is 5, not a list"
    )
    assert "time_left is -1" in failure(lambda: client.play("SHAPELESS", "me"))
    assert "1e999 is too large a number" in failure(lambda: client.play("PLAYINF", "me"))
    # A nesting just within the bound is read.
    nested: object = 0
    for _ in range(CLIENT_MAX_ANSWER_DEPTH - 1):
        nested = [nested]
    assert parse_json(json.dumps({"a": nested}).encode()) == {"a": nested}


def test_the_app_shows_a_bad_answer_as_a_message(hostile: str) -> None:
    client = ChallengeClient(hostile)
    app = ChallengeApp(client, "SHAPELESS", client.challenge("SHAPELESS"), clock=FakeClock())

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("ctrl+r")  # the results: their standings are 5
        await until(pilot, lambda: bool(app._notifications))
        assert isinstance(app.screen, ChallengeIntroScreen) and app.is_running
        assert "standings is 5, not a list" in next(iter(app._notifications)).message
        await pilot.press(*"me", "enter")  # the round: its time left is -1
        await until(pilot, lambda: "time_left" in str(app.screen.query_one("#status").render()))
        assert isinstance(app.screen, ChallengeIntroScreen) and app.is_running

    run(app, script)


# -- L5: the server's text in an error is bounded ---------------------------------------------


def test_a_huge_error_message_is_cut(hostile: str) -> None:
    message = failure(lambda: ChallengeClient(hostile).challenge("BIGERR"))
    assert message == ("the server refused it (400): " + "A" * (CLIENT_MAX_SHOWN_TEXT - 1) + "…")
    limit = "x" * CLIENT_MAX_SHOWN_TEXT
    assert shown(limit) == limit and shown(limit + "y") == limit[:-1] + "…"
    assert shown("\x1b" * 500) == "\ufffd" * (CLIENT_MAX_SHOWN_TEXT - 1) + "…"

"""The terminal game's HTTP client: a challenge played over a bigboggle server's JSON API.

The standard library's ``http.client`` is enough for a handful of JSON calls a minute (no new
dependency). The server may be anyone's, so everything it sends is a stranger's input bound for
the player's terminal (:mod:`.untrusted`):

- each call has one deadline in all, ``CLIENT_TIMEOUT_SECONDS`` for connecting, the headers
  and the body together (at it the socket is shut, so a server dripping a byte at a time cannot
  hold the client), and every answer is bounded (``CLIENT_MAX_ANSWER_BYTES``) before it is
  parsed;
- redirects are **never followed**: the API answers every call itself, so a 3xx answer is an
  error naming its status and the server (following one could carry the game's key to another
  host, or to another scheme);
- an answer is parsed strictly (no ``NaN``/``Infinity``, no float overflowing to infinity),
  every string in it has its control characters and bidi overrides replaced by ``U+FFFD``
  (:func:`~.untrusted.safe_text`), and the fields the screens read are checked for type and
  range (:data:`CHALLENGE`, :data:`RESULTS`, :data:`ROUND`, :data:`VERDICT`);
- the server's own text quoted in an error (its ``error`` message, its reason phrase) is cut to
  ``CLIENT_MAX_SHOWN_TEXT`` characters.

So every failure - the server unreachable, out of time, an error answer, an answer that is not
the JSON expected - is one :class:`RemoteError` whose message says what happened and where, safe
to print, for the command line (exit 2) or a screen to show: never a traceback, and nothing a
caller returns carries a character a terminal would obey.

The calls are the challenges' contract (``GET /api/challenges/CODE``, ``POST
/api/challenges/CODE/play``, ``GET /api/challenges/CODE/results``) and the solo games' (``POST
/api/games/ID/words``, ``POST /api/games/ID/finish``), with the game's key in ``X-Game-Key``.
A guest proves their seat in a challenge by the key of one of their games in it: the keys of
the rounds played from this terminal are kept in a small JSON file (:class:`KeyFile`), so the
next round can be played later, by the same name.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import ssl
import tempfile
import threading
import time
import urllib.parse
from collections.abc import Mapping
from contextlib import suppress
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from .._version import __version__
from ..board import Board
from ..errors import BoggleError, quoted
from ..limits import (
    CHALLENGE_MAX_ROUNDS,
    CLIENT_KEY_FILE_BYTES,
    CLIENT_MAX_ANSWER_BYTES,
    CLIENT_MAX_KEPT_CHALLENGES,
    CLIENT_TIMEOUT_SECONDS,
    MAX_ENTRY_LENGTH,
)
from ..verdicts import Verdict, WordResult
from .untrusted import (
    Shape,
    Unexpected,
    flag,
    list_of,
    number,
    optional,
    pair,
    parse_json,
    record,
    safe_text,
    shown,
    table_of,
    text,
    whole,
)

#: The longest server address taken (a URL, not a document).
MAX_SERVER_URL = 2000
#: The longest challenge code taken as typed (``BCDF-2345``, spaces and dashes allowed).
MAX_CODE_LENGTH = 20
#: The longest game id or key taken from a server (they are short tokens).
MAX_TOKEN_LENGTH = 200


class RemoteError(Exception):
    """A call to the server failed; the message says what happened, for a person to read
    (made safe to print: :func:`~.untrusted.safe_text`)."""

    def __init__(self, message: str) -> None:
        super().__init__(safe_text(message))


def check_server(url: str) -> str:
    """``url`` as a server's base address (``http://host:port``, no trailing slash);
    :class:`RemoteError` for anything else."""
    if len(url) > MAX_SERVER_URL:
        raise RemoteError(f"--server: {quoted(url)} is too long for a server's address")
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RemoteError(f"--server: {quoted(url)} is not an http:// or https:// address")
    if parts.query or parts.fragment:
        raise RemoteError(f"--server: {quoted(url)}: give the server's address alone")
    try:
        parts.port  # noqa: B018 - read for its check: a port out of range raises
    except ValueError:
        raise RemoteError(f"--server: {quoted(url)} has no valid port") from None
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path.rstrip("/"), "", ""))


def check_code(code: str) -> str:
    """A challenge code as typed (``BCDF-2345``), trimmed; :class:`RemoteError` for text that
    cannot be one (the server decides whether it is)."""
    cleaned = code.strip()
    if (
        not cleaned
        or len(cleaned) > MAX_CODE_LENGTH
        or not all(char.isascii() and (char.isalnum() or char in "- ") for char in cleaned)
    ):
        raise RemoteError(f"--challenge: {quoted(code)} is not a challenge code (like BCDF-2345)")
    return cleaned


# -- what the callers read of each answer, checked -------------------------------------------

#: Points, places, counts: far beyond any real game, small enough for any screen.
_MOST = 10**9
_POINTS = whole(-_MOST, _MOST)
_COUNT = whole(0, _MOST)
#: A round's number (from 1): a challenge has at most ``CHALLENGE_MAX_ROUNDS``, with room.
_ROUND_NUMBER = whole(1, CHALLENGE_MAX_ROUNDS * 100)
#: A Unix time (seconds): from 1970 to the year 5138, which any date formatting takes.
_TIME = number(0, 1e11)
#: A timer or the time left, in seconds (up to about 115 days: any clock shows it).
_SECONDS = number(0, 1e7)
#: A cell of a board: (row, column), boards being at most a few dozen cells a side.
_PATH = list_of(pair(whole(0, 1000), whole(0, 1000)))


def _token(value: object, where: str) -> None:
    """A game's id or key: printable ASCII, short (it goes back in a URL or a header)."""
    if (
        not isinstance(value, str)
        or not 0 < len(value) <= MAX_TOKEN_LENGTH
        or not all("!" <= char <= "~" for char in value)
    ):
        raise Unexpected(f"{where} is {quoted(value, 60)}, not a token (printable ASCII)")


_WORD_FIELDS: dict[str, Shape] = {
    "word": text,
    "entry": text,
    "verdict": text,
    "score": _POINTS,
    "bonus": _POINTS,
    "path": optional(_PATH),
}
_WORD = record(_WORD_FIELDS)
_TEAM_STANDING = record(
    {"team": text, "place": _COUNT, "total": _POINTS, "score": _POINTS, "members": list_of(text)}
)
_SETTINGS = {
    "code": text,
    "shown_code": text,
    "title": text,
    "rules": text,
    "maker": optional(text),
    "closes": _TIME,
    "closed": flag,
    "final": flag,
    "now": _TIME,
    "timer": _SECONDS,
    "min_length": whole(1, MAX_ENTRY_LENGTH),
    "duplicates": text,
    "rounds": _ROUND_NUMBER,
    "teams": optional(list_of(record({"name": text, "players": list_of(text)}))),
    "standings": list_of(
        record(
            {
                "name": text,
                "place": _COUNT,
                "total": _POINTS,
                "rounds": table_of(_POINTS),
                "rounds_played": _COUNT,
                "team": optional(text),
            }
        )
    ),
    "team_standings": list_of(_TEAM_STANDING),
    "you": optional(
        record(
            {
                "name": text,
                "next_round": optional(_ROUND_NUMBER),
                "playing": optional(_ROUND_NUMBER),
                "finished": list_of(_ROUND_NUMBER),
                "team": optional(text),
            }
        )
    ),
}

#: ``GET /api/challenges/CODE``: what the intro screen and the command line read.
CHALLENGE: Shape = record({**_SETTINGS, "can_play": flag, "why_not": optional(text)})

#: ``GET /api/challenges/CODE/results``: what the results screen reads.
RESULTS: Shape = record(
    {
        **_SETTINGS,
        "round_results": list_of(
            record(
                {
                    "number": _ROUND_NUMBER,
                    "visible": flag,
                    "board": text,
                    "players": list_of(
                        record(
                            {
                                "name": text,
                                "place": _COUNT,
                                "score": _POINTS,
                                "found": _COUNT,
                                "words": list_of(_WORD),
                                "team": optional(text),
                            }
                        )
                    ),
                    "missed": list_of(
                        record(
                            {"word": text, "score": _POINTS, "rare": flag, "path": optional(_PATH)}
                        )
                    ),
                    "team_standings": list_of(_TEAM_STANDING),
                }
            )
        ),
    }
)

#: ``POST /api/challenges/CODE/play``: the round's solo game.
ROUND: Shape = record(
    {
        "id": _token,
        "key": _token,
        "board": text,
        "round": _ROUND_NUMBER,
        "time_left": _SECONDS,
        "rules": text,
        "min_length": whole(1, MAX_ENTRY_LENGTH),
    },
    required=("id", "key", "board", "time_left"),
)

#: A word's verdict (``{"word", "verdict", "score", "bonus", "entry"?, "path"?}``).
VERDICT: Shape = record(_WORD_FIELDS, required=("word", "verdict"))

#: ``POST /api/games/ID/words``: the verdict and the seconds left.
SUBMITTED: Shape = record({"result": VERDICT, "time_left": _SECONDS}, required=("result",))


@dataclass(frozen=True)
class RemoteRound:
    """A round of a challenge started on the server: a solo game played as any other."""

    code: str
    #: The round's number in the challenge (from 1).
    number: int
    game_id: str
    key: str
    board: Board
    #: Seconds left on the server's clock when it answered.
    time_left: float
    #: The rules preset's name, and the shortest word they take.
    rules: str
    min_length: int


def word_result(data: object) -> WordResult:
    """A verdict from the server's JSON (:data:`VERDICT`, its strings already made safe);
    :class:`RemoteError` for an answer of another shape."""
    try:
        VERDICT(data, "result")
    except Unexpected as exc:
        raise RemoteError(f"the server's answer is not a word's verdict: {exc}") from None
    assert isinstance(data, Mapping)  # as VERDICT checked
    try:
        verdict = Verdict(data["verdict"])
    except ValueError:
        raise RemoteError(
            f"the server's answer is not a word's verdict: result.verdict is"
            f" {quoted(data['verdict'], 60)}, none of {', '.join(v.value for v in Verdict)}"
        ) from None
    word = data["word"]
    path = data.get("path")
    steps = None if path is None else tuple((row, col) for row, col in path)
    return WordResult(
        data.get("entry", word),
        word,
        verdict,
        data.get("score", 0),
        data.get("bonus", 0),
        steps,
    )


class _Deadline:
    """The moment a call must be over by. A socket's timeout counts per read, so a server
    sending a byte at a time could hold the client for ever; at the deadline this shuts the
    call's socket down, which ends whatever read or write is blocked on it."""

    def __init__(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds
        #: Whether the deadline has come (then the call's outcome is "did not answer").
        self.passed = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._expire)
        self._timer.daemon = True
        self._timer.start()

    def left(self) -> float:
        """Seconds until the deadline (a little above 0 once it has passed)."""
        return max(self.at - time.monotonic(), 0.001)

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down at the deadline (at once if it has passed)."""
        with self._lock:
            self._socket = sock
            if self.passed:
                _shut(sock)

    def _expire(self) -> None:
        with self._lock:
            self.passed = True
            if self._socket is not None:
                _shut(self._socket)

    def close(self) -> None:
        """The call is over: no shutting down."""
        self._timer.cancel()


def _shut(sock: socket.socket) -> None:
    with suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _Connection(http.client.HTTPConnection):
    """A plain connection whose socket the call's deadline watches."""

    def __init__(self, host: str, port: int | None, deadline: _Deadline) -> None:
        super().__init__(host, port, timeout=deadline.left())
        self.deadline = deadline

    def connect(self) -> None:
        super().connect()
        self.deadline.watch(self.sock)


class _SecureConnection(http.client.HTTPSConnection):
    """A TLS connection whose socket the call's deadline watches, the handshake included."""

    def __init__(self, host: str, port: int | None, deadline: _Deadline) -> None:
        self.context = ssl.create_default_context()
        self.context.set_alpn_protocols(["http/1.1"])
        super().__init__(host, port, timeout=deadline.left(), context=self.context)
        self.deadline = deadline

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)  # the TCP connection alone, watched at once
        self.deadline.watch(self.sock)
        secure = self.context.wrap_socket(
            self.sock, server_hostname=self.host, do_handshake_on_connect=False
        )
        self.sock = secure
        self.deadline.watch(secure)
        secure.do_handshake()


@dataclass(frozen=True)
class _Answer:
    """An HTTP answer as read: its status, reason phrase, ``Location`` and body (bounded)."""

    status: int
    reason: str
    location: str
    body: bytes


class ChallengeClient:
    """The calls that play a challenge, on the server at ``server`` (checked)."""

    def __init__(self, server: str, timeout: float = CLIENT_TIMEOUT_SECONDS) -> None:
        self.server = check_server(server)
        self.timeout = timeout
        parts = urllib.parse.urlsplit(self.server)
        self._secure = parts.scheme == "https"
        self._host = parts.hostname or ""
        self._port = parts.port
        self._base = parts.path

    # -- the challenge -----------------------------------------------------------------------

    def challenge(self, code: str, key: str | None = None) -> dict[str, Any]:
        """``GET /api/challenges/CODE``: its settings, who has played, your seat (by ``key``);
        checked (:data:`CHALLENGE`)."""
        path = f"/api/challenges/{_segment(code)}"
        return self._call("GET", path, key=key, shape=CHALLENGE, what="a challenge", challenge=True)

    def play(
        self, code: str, player: str, key: str | None = None, team: str | None = None
    ) -> RemoteRound:
        """``POST /api/challenges/CODE/play``: your next round, started now on the server (for
        ``team`` in a team challenge)."""
        body = {"player": player} if team is None else {"player": player, "team": team}
        data = self._call(
            "POST",
            f"/api/challenges/{_segment(code)}/play",
            body,
            key=key,
            shape=ROUND,
            what="a challenge's round",
            challenge=True,
        )
        try:
            board = Board.parse(data["board"])
        except BoggleError as exc:
            raise RemoteError(f"the server's round is not one this game can play: {exc}") from None
        return RemoteRound(
            code=code,
            number=data.get("round", 1),
            game_id=data["id"],
            key=data["key"],
            board=board,
            time_left=float(data["time_left"]),
            rules=data.get("rules", ""),
            min_length=data.get("min_length", 3),
        )

    def results(self, code: str, key: str | None = None) -> dict[str, Any]:
        """``GET /api/challenges/CODE/results``: the standings (words where you may see them);
        checked (:data:`RESULTS`)."""
        path = f"/api/challenges/{_segment(code)}/results"
        return self._call(
            "GET", path, key=key, shape=RESULTS, what="a challenge's results", challenge=True
        )

    # -- the round's solo game ---------------------------------------------------------------

    def submit(self, game: RemoteRound, word: str) -> tuple[WordResult, float]:
        """``POST /api/games/ID/words``: the word's verdict and the seconds left."""
        if len(word) > MAX_ENTRY_LENGTH:
            raise RemoteError(f"{quoted(word)} is longer than any word ({MAX_ENTRY_LENGTH})")
        data = self._call(
            "POST",
            f"/api/games/{_segment(game.game_id)}/words",
            {"word": word},
            key=game.key,
            shape=SUBMITTED,
            what="a word's verdict",
        )
        return word_result(data["result"]), float(data.get("time_left", 0.0))

    def finish(self, game: RemoteRound) -> dict[str, Any]:
        """``POST /api/games/ID/finish``: the round ended now (its results stored)."""
        path = f"/api/games/{_segment(game.game_id)}/finish"
        return self._call("POST", path, key=game.key, shape=record({}), what="a finished game")

    # -- one call ----------------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        key: str | None,
        shape: Shape,
        what: str,
        challenge: bool = False,
    ) -> dict[str, Any]:
        """One JSON call; the answer's object (every string made safe, checked by ``shape``:
        ``what`` it should be), or :class:`RemoteError` saying what failed (a 404 of a
        ``challenge`` call: no such challenge)."""
        headers = {"Accept": "application/json", "User-Agent": f"bigboggle/{__version__}"}
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["X-Game-Key"] = key
        where = f"{self.server}{path}"
        answer = self._exchange(method, path, payload, headers)
        if 300 <= answer.status < 400:
            raise RemoteError(
                f"the server at {self.server} answered {answer.status} {shown(answer.reason, 60)},"
                f" a redirect to {quoted(shown(answer.location))}: not followed"
                " (a bigboggle server answers its API itself)"
            )
        if not 200 <= answer.status < 300:
            raise RemoteError(_refusal(answer, challenge))
        try:
            parsed = parse_json(answer.body)
        except Unexpected as exc:
            raise RemoteError(f"the server's answer is not {what}: {exc}") from None
        except ValueError:  # UnicodeDecodeError among them
            excerpt = shown(answer.body[:60].decode(errors="replace"), 60)
            raise RemoteError(
                f"the answer of {where} is not JSON: {quoted(excerpt)} (is this a bigboggle server?)"
            ) from None
        if not isinstance(parsed, dict):
            raise RemoteError(f"the answer of {where} is not a JSON object")
        try:
            shape(parsed, "")
        except Unexpected as exc:
            raise RemoteError(f"the server's answer is not {what}: {exc}") from None
        return parsed

    def _exchange(
        self, method: str, path: str, payload: bytes | None, headers: Mapping[str, str]
    ) -> _Answer:
        """One request and its answer, all within the deadline; :class:`RemoteError` for a
        failure on the way (unreachable, out of time, a broken answer)."""
        deadline = _Deadline(self.timeout)
        kind = _SecureConnection if self._secure else _Connection
        connection = kind(self._host, self._port, deadline)
        try:
            try:
                connection.connect()
            except OSError as error:
                if deadline.passed or isinstance(error, TimeoutError):
                    raise RemoteError(self._no_answer()) from None
                raise RemoteError(
                    f"cannot reach the server at {self.server}: {_reason(error)}"
                ) from None
            connection.request(method, self._base + path, body=payload, headers=dict(headers))
            answer = connection.getresponse()
            if answer.length is not None and answer.length > CLIENT_MAX_ANSWER_BYTES:
                raise RemoteError(self._too_big(path))
            body = answer.read(CLIENT_MAX_ANSWER_BYTES + 1)
            if deadline.passed:  # the socket was shut under a read: what came is not all
                raise RemoteError(self._no_answer())
            if len(body) > CLIENT_MAX_ANSWER_BYTES:
                raise RemoteError(self._too_big(path))
            location = answer.getheader("Location") or ""
            return _Answer(answer.status, answer.reason, location, body)
        except (OSError, http.client.HTTPException, ValueError) as error:
            if deadline.passed or isinstance(error, TimeoutError):
                raise RemoteError(self._no_answer()) from None
            raise RemoteError(
                f"cannot talk to the server at {self.server}: {_reason(error)}"
            ) from None
        finally:
            deadline.close()
            connection.close()

    def _no_answer(self) -> str:
        return f"the server at {self.server} did not answer within {self.timeout:g} s"

    def _too_big(self, path: str) -> str:
        return (
            f"the answer of {self.server}{path} is over {CLIENT_MAX_ANSWER_BYTES:,} bytes: not read"
        )


def _reason(error: BaseException) -> str:
    """Why a connection failed, in a few words (the server's bytes in it made safe, cut)."""
    return shown(getattr(error, "strerror", None) or str(error) or type(error).__name__)


def _refusal(answer: _Answer, challenge: bool) -> str:
    """An error answer as a sentence: the server's own ``{"error": ...}`` message if any
    (made safe and cut to ``CLIENT_MAX_SHOWN_TEXT`` characters)."""
    try:
        body = parse_json(answer.body)
        message = body.get("error") if isinstance(body, dict) else None
    except ValueError:
        message = None
    if not isinstance(message, str) or not message.strip():
        message = f"HTTP {answer.status} {answer.reason}"
    message = shown(message)
    if answer.status == 404 and challenge:
        return f"no such challenge on this server: {message}"
    return f"the server refused it ({answer.status}): {message}"


def _segment(text: str) -> str:
    """``text`` quoted as one segment of a URL's path."""
    return urllib.parse.quote(text, safe="")


class KeyFile:
    """The keys of the challenge rounds played from this terminal, one per server, challenge
    and player: ``"SERVER CODE NAME-KEY"`` -> (name, key).

    A guest's seat in a challenge is proved by the key of one of its games, so a later round is
    played by the same name with a key kept here. A key is kept for the server it came from
    (never sent to another server given the same code) and for its player (two people taking
    turns at one terminal each keep their own seat). The file is small JSON, read bounded; one
    that cannot be read (or written) is no reason to stop a game: it is then as if empty.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = FilePath(path)

    @staticmethod
    def default_path() -> FilePath:
        """``challenge-keys.json`` in the user's data folder."""
        import platformdirs

        folder = platformdirs.user_data_dir("bigboggle", appauthor=False)
        return FilePath(folder) / "challenge-keys.json"

    def load(self) -> dict[str, dict[str, str]]:
        """Every kept seat: ``"SERVER CODE NAME-KEY"`` -> ``{"player", "key"}`` (entries of
        another shape, such as a file from before keys were kept per server, are left out)."""
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(CLIENT_KEY_FILE_BYTES + 1)
            data = json.loads(raw) if len(raw) <= CLIENT_KEY_FILE_BYTES else {}
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            slot: {"player": seat["player"], "key": seat["key"]}
            for slot, seat in data.items()
            if isinstance(slot, str)
            and slot.count(" ") >= 2
            and isinstance(seat, dict)
            and isinstance(seat.get("player"), str)
            and isinstance(seat.get("key"), str)
        }

    def seat(self, server: str, code: str, player: str | None = None) -> dict[str, str] | None:
        """The name and key kept for ``player`` in the challenge ``code`` on ``server``; with
        no player, the latest seat played there from this terminal."""
        seats = self.load()
        if player is not None:
            return seats.get(_slot(server, code, player))
        prefix = f"{_slot(server, code, '')}"
        mine = [seat for slot, seat in seats.items() if slot.startswith(prefix)]
        return mine[-1] if mine else None

    def keep(self, server: str, code: str, player: str, key: str) -> None:
        """Keep ``key`` as the proof of ``player``'s seat in ``code`` on ``server`` (the newest
        few kept)."""
        seats = self.load()
        slot = _slot(server, code, player)
        seats.pop(slot, None)
        seats[slot] = {"player": player, "key": key}
        kept = dict(list(seats.items())[-CLIENT_MAX_KEPT_CHALLENGES:])
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")
        except OSError:
            return  # the round is played all the same; the next one asks for the name again
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(kept, out)
            os.replace(temporary, self.path)
        except OSError:
            FilePath(temporary).unlink(missing_ok=True)


def _slot(server: str, code: str, player: str) -> str:
    """A kept seat's handle: the server (its URL without a trailing slash), the challenge's
    normal code and the player's name key (so ``Ann`` and ``ann`` are one seat), apart by
    spaces, which none of them holds."""
    from ..names import name_key

    who = name_key(player) if player else ""
    return f"{server.rstrip('/').replace(' ', '')} {_normal(code)} {who.replace(' ', '')}"


def _normal(code: str) -> str:
    return code.replace("-", "").replace(" ", "").upper()

"""The terminal game's HTTP client: a challenge played over a bigboggle server's JSON API.

The standard library's ``urllib`` is enough for a handful of JSON calls a minute (no new
dependency). Every answer is bounded before it is parsed (``CLIENT_MAX_ANSWER_BYTES``), every
call has a timeout (``CLIENT_TIMEOUT_SECONDS``), and every failure - the server unreachable, a
timeout, an error answer, an answer that is not the JSON expected - is one
:class:`RemoteError` whose message says what happened and where, for the command line to print
(exit 2) or a screen to show: never a traceback.

The calls are the challenges' contract (``GET /api/challenges/CODE``, ``POST
/api/challenges/CODE/play``, ``GET /api/challenges/CODE/results``) and the solo games' (``POST
/api/games/ID/words``, ``POST /api/games/ID/finish``), with the game's key in ``X-Game-Key``.
A guest proves their seat in a challenge by the key of one of their games in it: the keys of
the rounds played from this terminal are kept in a small JSON file (:class:`KeyFile`), so the
next round can be played later, by the same name.
"""

from __future__ import annotations

import json
import os
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path as FilePath
from typing import Any

from .._version import __version__
from ..board import Board
from ..errors import BoggleError, quoted
from ..limits import (
    CLIENT_KEY_FILE_BYTES,
    CLIENT_MAX_ANSWER_BYTES,
    CLIENT_MAX_KEPT_CHALLENGES,
    CLIENT_TIMEOUT_SECONDS,
    MAX_ENTRY_LENGTH,
)
from ..verdicts import Verdict, WordResult

#: The longest server address taken (a URL, not a document).
MAX_SERVER_URL = 2000
#: The longest challenge code taken as typed (``BCDF-2345``, spaces and dashes allowed).
MAX_CODE_LENGTH = 20


class RemoteError(Exception):
    """A call to the server failed; the message says what happened, for a person to read."""


def check_server(url: str) -> str:
    """``url`` as a server's base address (``http://host:port``, no trailing slash);
    :class:`RemoteError` for anything else."""
    if len(url) > MAX_SERVER_URL:
        raise RemoteError(f"--server: {quoted(url)} is too long for a server's address")
    parts = urllib.parse.urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise RemoteError(f"--server: {quoted(url)} is not an http:// or https:// address")
    if parts.query or parts.fragment:
        raise RemoteError(f"--server: {quoted(url)}: give the server's address alone")
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
    """A verdict from the server's JSON (``{"word", "verdict", "score", "bonus", "entry"?,
    "path"?}``); :class:`RemoteError` for an answer of another shape."""
    if not isinstance(data, Mapping):
        raise RemoteError(f"the server's verdict is not an object: {quoted(data)}")
    try:
        word = data["word"]
        verdict = Verdict(data["verdict"])
        score, bonus = int(data.get("score", 0)), int(data.get("bonus", 0))
        entry = data.get("entry", word)
        path = data.get("path")
        if not isinstance(word, str) or not isinstance(entry, str):
            raise TypeError("word and entry are text")
        steps = None if path is None else tuple((int(row), int(col)) for row, col in path)
    except (KeyError, TypeError, ValueError) as exc:
        raise RemoteError(f"the server's verdict {quoted(data)} is not one ({exc})") from None
    return WordResult(entry, word, verdict, score, bonus, steps)


class ChallengeClient:
    """The calls that play a challenge, on the server at ``server`` (checked)."""

    def __init__(self, server: str, timeout: float = CLIENT_TIMEOUT_SECONDS) -> None:
        self.server = check_server(server)
        self.timeout = timeout

    # -- the challenge -----------------------------------------------------------------------

    def challenge(self, code: str, key: str | None = None) -> dict[str, Any]:
        """``GET /api/challenges/CODE``: its settings, who has played, your seat (by ``key``)."""
        return self._call("GET", f"/api/challenges/{_segment(code)}", key=key, what="challenge")

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
            what="challenge",
        )
        try:
            board = Board.parse(_text(data, "board"))
            number, left = data.get("round", 1), data.get("time_left")
            if isinstance(number, bool) or not isinstance(number, int):
                raise TypeError(f"round {quoted(number)}")
            if isinstance(left, bool) or not isinstance(left, int | float) or left < 0:
                raise TypeError(f"time_left {quoted(left)}")
            min_length = data.get("min_length", 3)
            return RemoteRound(
                code=code,
                number=number,
                game_id=_text(data, "id"),
                key=_text(data, "key"),
                board=board,
                time_left=float(left),
                rules=str(data.get("rules", "")),
                min_length=min_length if isinstance(min_length, int) else 3,
            )
        except (BoggleError, TypeError) as exc:
            raise RemoteError(f"the server's round is not one this game can play: {exc}") from None

    def results(self, code: str, key: str | None = None) -> dict[str, Any]:
        """``GET /api/challenges/CODE/results``: the standings (words where you may see them)."""
        path = f"/api/challenges/{_segment(code)}/results"
        return self._call("GET", path, key=key, what="challenge")

    # -- the round's solo game ---------------------------------------------------------------

    def submit(self, game: RemoteRound, word: str) -> tuple[WordResult, float]:
        """``POST /api/games/ID/words``: the word's verdict and the seconds left."""
        if len(word) > MAX_ENTRY_LENGTH:
            raise RemoteError(f"{quoted(word)} is longer than any word ({MAX_ENTRY_LENGTH})")
        data = self._call(
            "POST", f"/api/games/{_segment(game.game_id)}/words", {"word": word}, key=game.key
        )
        left = data.get("time_left", 0.0)
        if isinstance(left, bool) or not isinstance(left, int | float):
            left = 0.0
        return word_result(data.get("result")), float(left)

    def finish(self, game: RemoteRound) -> dict[str, Any]:
        """``POST /api/games/ID/finish``: the round ended now (its results stored)."""
        return self._call("POST", f"/api/games/{_segment(game.game_id)}/finish", key=game.key)

    # -- one call ----------------------------------------------------------------------------

    def _call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        key: str | None = None,
        what: str = "game",
    ) -> dict[str, Any]:
        """One JSON call; the answer's object, or :class:`RemoteError` saying what failed."""
        headers = {"Accept": "application/json", "User-Agent": f"bigboggle/{__version__}"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if key is not None:
            headers["X-Game-Key"] = key
        request = urllib.request.Request(
            self.server + path, data=data, method=method, headers=headers
        )
        where = f"{self.server}{path}"
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                raw = answer.read(CLIENT_MAX_ANSWER_BYTES + 1)
        except urllib.error.HTTPError as error:
            with error:
                raise RemoteError(_refusal(error, what)) from None
        except TimeoutError:
            raise RemoteError(self._no_answer()) from None
        except urllib.error.URLError as error:
            if isinstance(error.reason, TimeoutError):
                raise RemoteError(self._no_answer()) from None
            reason = getattr(error.reason, "strerror", None) or str(error.reason)
            raise RemoteError(f"cannot reach the server at {self.server}: {reason}") from None
        except (OSError, ValueError) as error:  # a reset connection, a bad port in the URL...
            raise RemoteError(f"cannot talk to the server at {self.server}: {error}") from None
        if len(raw) > CLIENT_MAX_ANSWER_BYTES:
            raise RemoteError(
                f"the answer of {where} is over {CLIENT_MAX_ANSWER_BYTES:,} bytes: not read"
            )
        try:
            parsed = json.loads(raw)
        except (UnicodeDecodeError, ValueError):
            raise RemoteError(
                f"the answer of {where} is not JSON: {quoted(raw[:60].decode(errors='replace'))}"
                " (is this a bigboggle server?)"
            ) from None
        if not isinstance(parsed, dict):
            raise RemoteError(f"the answer of {where} is not a JSON object")
        return parsed

    def _no_answer(self) -> str:
        return f"the server at {self.server} did not answer within {self.timeout:g} s"


def _refusal(error: urllib.error.HTTPError, what: str) -> str:
    """An error answer as a sentence: the server's own ``{"error": ...}`` message if any."""
    try:
        body = json.loads(error.read(CLIENT_MAX_ANSWER_BYTES))
        message = body.get("error") if isinstance(body, dict) else None
    except (OSError, ValueError):
        message = None
    if not isinstance(message, str) or not message:
        message = f"HTTP {error.code} {error.reason}"
    if error.code == 404 and what == "challenge":
        return f"no such challenge on this server: {message}"
    return f"the server refused it ({error.code}): {message}"


def _segment(text: str) -> str:
    """``text`` quoted as one segment of a URL's path."""
    return urllib.parse.quote(text, safe="")


def _text(data: Mapping[str, Any], name: str) -> str:
    value = data.get(name)
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} {quoted(value)}")
    return value


class KeyFile:
    """The keys of the challenge rounds played from this terminal: code -> (name, key).

    A guest's seat in a challenge is proved by the key of one of its games, so a later round is
    played by the same name with a key kept here. The file is small JSON, read bounded; one that
    cannot be read (or written) is no reason to stop a game: it is then as if empty.
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
        """Every kept seat: normal code -> ``{"player", "key"}``."""
        try:
            with self.path.open("rb") as handle:
                raw = handle.read(CLIENT_KEY_FILE_BYTES + 1)
            data = json.loads(raw) if len(raw) <= CLIENT_KEY_FILE_BYTES else {}
        except (OSError, ValueError):
            return {}
        if not isinstance(data, dict):
            return {}
        return {
            code: {"player": seat["player"], "key": seat["key"]}
            for code, seat in data.items()
            if isinstance(seat, dict)
            and isinstance(seat.get("player"), str)
            and isinstance(seat.get("key"), str)
        }

    def seat(self, code: str) -> dict[str, str] | None:
        """The name and key kept for the challenge ``code``, if any."""
        return self.load().get(_normal(code))

    def keep(self, code: str, player: str, key: str) -> None:
        """Keep ``key`` as the proof of ``player``'s seat in ``code`` (the newest few kept)."""
        seats = self.load()
        seats.pop(_normal(code), None)
        seats[_normal(code)] = {"player": player, "key": key}
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


def _normal(code: str) -> str:
    return code.replace("-", "").replace(" ", "").upper()

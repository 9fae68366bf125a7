"""Every limit that protects a server from what strangers send, in one place.

Two kinds live here. Fixed limits are part of a contract (a board has at most 12 rows; a round
at most 100 players): they are plain constants, and the library checks them before it parses
anything. Operator limits (body sizes, timeouts, pool sizes, rates) have a default here and can
be changed without touching code: :class:`ServerLimits` reads ``BIGBOGGLE_LIMIT_<NAME>``
environment variables (``BIGBOGGLE_LIMIT_MAX_BODY_BYTES=2000000``). The README's "Limits and
protections" lists them all; each has a test.

This module is part of the core: it imports nothing but the standard library.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

# -- text the library parses (fixed) --------------------------------------------------------------

#: The longest board text any parser reads: a 12×12 board of three-letter faces in brackets, with
#: separators and a challenge mark, fits well within it.
MAX_BOARD_TEXT = 800
#: The longest line ``score_lines`` (one board text a line) reads: MAX_BOARD_TEXT characters of up
#: to four bytes of UTF-8 each. A longer line is refused by number before it is read to its end.
MAX_BOARD_LINE_BYTES = 4 * MAX_BOARD_TEXT
#: Most solver threads one call of the batch forms (``score_many``, ``score_stream``,
#: ``score_lines`` and their tallies) starts: each is an OS thread, so a caller's threads=10**6
#: would start thousands of them per chunk. Far more than cores; the CLI's --threads has the same.
MAX_SOLVER_THREADS = 64
#: The largest photo file read as a board (``bigboggle read``, ``POST /api/read-board``): a
#: phone's 50-megapixel JPEG is 10-20 MB.
MAX_PHOTO_BYTES = 30_000_000
#: The most pixels a photo may declare (width x height), checked from its header before any is
#: decoded: 50-megapixel phone photos are read; a "decompression bomb" that claims more is not.
MAX_PHOTO_PIXELS = 80_000_000
#: The most pixels of a photo in another format than JPEG (PNG, WebP), which is decoded whole.
MAX_PHOTO_PIXELS_DECODED_WHOLE = 30_000_000
#: How many times its shorter side a photo's longer side may be: a tray's photo is no strip,
#: and a strip of a few pixels' height would be decoded whole (JPEG's reduced scales shrink
#: both sides alike).
MAX_PHOTO_ASPECT = 4
#: The most scans a JPEG may have (a progressive photo has about ten): each scan is decoded over
#: the whole picture, so a small file that repeats one thousands of times costs minutes.
MAX_JPEG_SCANS = 100
#: The longest side, in pixels, a photo is brought down to before the board is looked for in it
#: (a JPEG is decoded at a reduced scale straight away, so a large photo costs little more).
PHOTO_WORK_SIDE = 1600
#: The longest player, team or room name (after Unicode normalisation).
MAX_NAME_LENGTH = 40
#: How many characters of a bad input an error message quotes.
MAX_QUOTED = 60
#: The longest entry of a player's list (longer text is not a word on any board).
MAX_ENTRY_LENGTH = 60
#: Most players (or teams, or members of one team) in a round, and most entries in one list.
MAX_PLAYERS = 100
MAX_LIST_LENGTH = 2000
#: The longest round JSON the library parses (characters; ``bigboggle score`` reads at most as
#: many bytes). 100 players with 2000 words each fit; the web server's body limit is lower.
MAX_ROUND_JSON = 4_000_000
#: The most object keys JSON text may have, counted as ``:`` characters before it is parsed (an
#: upper bound: every key has one). A round has a few hundred; keys cost a parser most.
MAX_JSON_KEYS = 10_000
#: The longest dictionary name or word-list path (PATH_MAX on Linux).
MAX_DICTIONARY_SPEC = 4096
#: The longest rules preset, scoring table or dice set name, and band text (``words:100-200``).
MAX_SPEC_NAME = 40
#: Options a rules object may be given at once (there are nine).
MAX_RULES_OPTIONS = 16


# -- tournaments and solo games (fixed) ----------------------------------------------------------

#: The longest tournament name (after Unicode normalisation).
MAX_TOURNAMENT_NAME = 80
#: Most rounds a tournament keeps (far past any evening's play).
MAX_TOURNAMENT_ROUNDS = 200
#: Most entries (across every player's list) one tournament round keeps: a round is a game of the
#: boxed set, written on paper, so far below what ``/api/score`` takes; a tournament's reads
#: stay proportionate to what it may store.
MAX_TOURNAMENT_ROUND_ENTRIES = 4_000
#: Most entries a tournament keeps across all its rounds.
MAX_TOURNAMENT_ENTRIES = 40_000
#: Solo games whose round engine (the board solved once) a server process keeps for their next
#: word, least recently used dropped first.
SOLO_ENGINE_CACHE = 64
#: Solo games a server process times at once (ended and scored at their deadlines); a game
#: beyond it is scored by its player's next request.
SOLO_TIMERS = 10_000
#: Timers' work (ending and scoring a solo game at its deadline) a server process runs at once,
#: in threads of its own: a burst of deadlines never takes the threads requests are served in.
SOLO_TIMERS_AT_ONCE = 2
#: The longest owner key a request may send (X-Tournament-Key, X-Game-Key); keys are 24 chars.
MAX_KEY_LENGTH = 100


# -- request bodies (fixed) -------------------------------------------------------------------------

#: The largest body of a request that carries no round's lists (a solve, a game, a word, a
#: tournament's or a room's settings): refused past it before it is parsed (bytes).
SMALL_BODY_BYTES = 16_384

# -- rooms (fixed) ---------------------------------------------------------------------------------

#: The largest room settings object, as JSON (bytes).
MAX_SETTINGS_BYTES = 4096
#: The most players a room can seat (``settings.max_players`` at most; handicaps, teams too).
MAX_ROOM_PLAYERS = 50
#: The highest ``settings.target`` (points that end a room's game).
MAX_ROOM_TARGET = 100_000
#: The most ``settings.rounds`` a room's game may have.
MAX_ROOM_ROUNDS = 200
#: Room events waiting for one slow connection; beyond it they are dropped (it resyncs).
ROOM_EVENT_QUEUE = 100
#: Client addresses whose room creations and joins are counted (least recently seen forgotten).
ADDRESSES_KEPT = 10_000
#: Rounds' boards and judges kept in memory per process (one per round being played).
JUDGE_CACHE = 64
#: Presence changes (a tab hidden, shown again) one connection may send at once, and then
#: per second: each is told to everyone in the room, so a page toggling fast is refused.
PRESENCE_BURST = 6
PRESENCE_RATE = 0.5

# -- accounts (fixed) ------------------------------------------------------------------------------

#: A member's user name: at least / at most this many characters (after normalising).
MIN_ACCOUNT_NAME = 3
MAX_ACCOUNT_NAME = 24
#: A password: at least this many characters, at most this many bytes of UTF-8 (checked before
#: anything hashes it: a hash's cost must not grow with what a stranger sends).
MIN_PASSWORD_LENGTH = 10
MAX_PASSWORD_BYTES = 1024
#: The lowest zxcvbn score (0-4) a new password may have: 2 is "somewhat guardable", beyond
#: 10^8 guesses, which an online guesser behind the log-in throttle never reaches.
MIN_PASSWORD_STRENGTH = 2
#: A session ends after this many days without a request, and this many days after its log-in
#: whatever happens; its last use is written at most once every SESSION_TOUCH_SECONDS.
SESSION_IDLE_DAYS = 30
SESSION_MAX_DAYS = 365
SESSION_TOUCH_SECONDS = 60
#: The most sessions (logged-in browsers) one member keeps; a new one ends the oldest.
MAX_SESSIONS_PER_ACCOUNT = 50
#: The longest session token or CSRF token a request may send (ours are 43 characters).
MAX_TOKEN_LENGTH = 100
#: Failed log-ins allowed in LOGIN_WINDOW_SECONDS per account and per address before log-ins
#: for it are refused (429) for LOGIN_BLOCK_SECONDS. An address that logged in to an account
#: within KNOWN_ADDRESS_DAYS is not held back by that account's block (only by its own).
LOGIN_FAILURES_PER_ACCOUNT = 5
LOGIN_FAILURES_PER_ADDRESS = 20
LOGIN_WINDOW_SECONDS = 900
LOGIN_BLOCK_SECONDS = 900
KNOWN_ADDRESS_DAYS = 90
#: Password hashes (about 0.2 s of a core and 64 MiB each) a server process computes at once,
#: and how many more requests may wait for one; beyond that, 503 Busy.
HASHES_AT_ONCE = 2
HASHES_WAITING = 16
#: Password hashes (log-ins, sign-ups, password changes, deletions), whatever their result,
#: one address (an IPv6 /64) may ask a server process for per minute, and how many of them
#: may be in its hash gate (running or waiting) at once: past either, 429 with Retry-After,
#: so one client cannot fill the gate and starve everyone else's log-ins.
HASHES_PER_ADDRESS_MINUTE = 30
HASH_SLOTS_PER_ADDRESS = 1
#: New accounts one address (an IPv6 /64) may make per hour; past it, 429 until the hour is out.
#: Ten: more than a household signs up in an hour, fewer than a script squatting names wants.
SIGNUPS_PER_ADDRESS_HOUR = 10
#: Adding or removing a passkey (and deleting an account without its password, by passkey)
#: needs a log-in within this many seconds, or the password: a stolen older session is not
#: enough for what outlives a password change.
RECENT_AUTH_SECONDS = 300
#: A browser that logged in to an account keeps a signed known-device cookie this many days;
#: with it, strangers' failed log-ins that block the account do not block that browser.
KNOWN_DEVICE_DAYS = 365

# -- members' history and claims (fixed) -----------------------------------------------------------

#: Counters in a member's missed-words summary per preset family (Misra-Gries heavy hitters): the
#: row stays this small however many games are played; a word's count is short by at most the
#: misses counted / (MISSED_WORDS_COUNTERS + 1).
MISSED_WORDS_COUNTERS = 200
#: Guest games and guest room seats one claim (``POST /api/me/claim``) may name, each; refused
#: past it (400), and the body is bounded at CLAIM_BODY_BYTES before it is parsed.
CLAIM_MAX_GAMES = 500
CLAIM_MAX_SEATS = 500
CLAIM_BODY_BYTES = 65_536

# -- passkeys (fixed) ------------------------------------------------------------------------------

#: The largest body of a passkey ceremony's request (bytes): a credential with attestation
#: "none" is a few hundred bytes; refused past it before it is parsed.
PASSKEY_BODY_BYTES = 8_192
#: Seconds a passkey ceremony's challenge stays good (it is used once, then gone).
PASSKEY_CHALLENGE_SECONDS = 300
#: Ceremonies one member may have under way (registrations, or log-ins naming them); a newer
#: one drops the oldest.
PASSKEY_CHALLENGES_PER_MEMBER = 5
#: Ceremonies under way on the whole server (usernameless log-ins too); past it the oldest are
#: dropped, so what strangers ask for stays bounded.
PASSKEY_CHALLENGES = 10_000
#: Passkey log-in ceremonies one client address may start per minute (each server process
#: counts its own): past it, 429 with Retry-After, so no one address fills the server's bound.
PASSKEY_LOGINS_PER_ADDRESS_MINUTE = 30
#: Passkeys one member may register.
MAX_PASSKEYS = 20
#: The longest passkey label ("phone", "laptop").
MAX_PASSKEY_LABEL = 80
#: The longest credential id a passkey may have, in base64url (WebAuthn's 1,023 bytes).
MAX_CREDENTIAL_ID = 1_364

# -- profiles and leaderboards (fixed) ---------------------------------------------------------------

#: Weeks of averages a profile's chart shows (the last ones, this week included).
PROFILE_WEEKS = 26
#: Weeks of the daily calendar a profile shows (Monday first, to today).
PROFILE_CALENDAR_WEEKS = 12
#: Most missed words a profile lists per preset family.
PROFILE_MISSED_WORDS = 20
#: Rating changes a profile's history shows per preset family (the last ones).
PROFILE_RATING_POINTS = 50
#: Last plays the member's own profile lists.
PROFILE_RECENT_PLAYS = 20
#: Most rows a leaderboard answers (``limit`` at most); a viewer below them gets their own row.
LEADERBOARD_ROWS = 100
#: Days of daily boards the week's leaderboard sums (today's and the days before, UTC).
LEADERBOARD_WEEK_DAYS = 7

# -- ratings (fixed) ---------------------------------------------------------------------------------

#: The largest field (sides of a contest) rated by OpenSkill's own update, whose cost grows with
#: the square of the field; a larger one (a daily board) by the same update in linear time.
RATING_FULL_FIELD = 64
#: Daily boards (one day, one preset) one settling rates at most; the rest wait for the next.
RATING_DAILY_PER_SETTLE = 8
#: Seconds between two settlings of the daily boards by a server process.
RATING_SETTLE_EVERY = 300.0
#: Rating changes :meth:`Ratings.history` answers at most.
RATING_HISTORY_ROWS = 200
#: Days back the sweep for finished room games left unrated looks (a game whose rating was lost
#: to a crash or a failed write): older ones stay unrated.
ROOM_RATING_LOOKBACK = 2
#: Finished room games one sweep decides at most (rates, or marks as not rated); the rest
#: wait for the next, every ``RATING_SETTLE_EVERY``.
ROOM_RATING_PER_SWEEP = 50

# -- account pages (fixed) ---------------------------------------------------------------------------

#: The largest HTML form post the account pages read (bytes): room for two passwords of
#: MAX_PASSWORD_BYTES each, percent-encoded, and a CSRF token; refused (413) before it is parsed.
FORM_BODY_BYTES = 8_192
#: The longest ``next`` path the log-in and sign-up pages go on to (longer: the profile).
MAX_NEXT_PATH = 300


# -- computer opponents (fixed) ----------------------------------------------------------------------

#: Most boards ``bigboggle opponents --boards`` measures the strengths on (each is solved and
#: played by every strength: about a minute a 5,000 boards).
MAX_OPPONENT_BOARDS = 100_000
#: Most computer opponents one terminal game seats (``bigboggle play --opponent``, repeated): the
#: clock line names each one's count, and a table's results list every list.
MAX_TERMINAL_OPPONENTS = 8
#: The longest strength name a room's ``add_opponent`` message may carry (the strengths are
#: short words; a longer one is refused before it is looked up).
MAX_STRENGTH_LENGTH = 40
#: Seconds at least between two firings of a room's opponents' timer: words due closer
#: together are submitted together (each stored at its own time), so five opponents on a rich
#: board tell the room of their words a few times a second at most.
OPPONENT_NEWS_INTERVAL = 0.5
#: Most computer opponents seated in one room at once (``add_opponent``; they count toward
#: ``max_players`` too): each list is one solve at a round's start, and every word of theirs is
#: stored in a write transaction. Past it: ``room_full``, naming the limit.
MAX_ROOM_OPPONENTS = 8
#: Most computer opponents' words stored in one write transaction: words due together (a timer
#: late, or the catch-up before scoring) are stored in batches of this many, so no transaction
#: holds the database (SQLite's one writer) for long and other writes get in between.
OPPONENT_WORDS_PER_TRANSACTION = 200

#: Most computer opponents one solo game may have (``POST /api/games``'s ``opponents``): each
#: list is made at the start, one solve through the worker pool each.
MAX_SOLO_OPPONENTS = 5
#: Largest board (in cells) a solo game seats computer opponents on: the presets' sizes, up to
#: Super Big Boggle's 6x6. A given board may be up to 12x12, where each opponent (the solver
#: above all) would write thousands of words into a game anyone may read.
MAX_OPPONENT_CELLS = 36

# -- hints and the trainer (fixed) -------------------------------------------------------------------

#: Most hints one solo game's player may use (each is stored with the game and costs a solve).
MAX_HINTS_PER_GAME = 30

#: The trainer (``trainer.py``): at most this many cards in a deck (a full deck gives up its
#: best-known card for a new miss, ``Deck.make_room``), each word of at most
#: TRAINER_MAX_WORD_LETTERS letters.
TRAINER_MAX_CARDS = 500
TRAINER_MAX_WORD_LETTERS = 25
#: New cards a deck introduces per day (UTC): the rest wait for the next days.
TRAINER_NEW_PER_DAY = 20
#: Words one game (a round's missed words) adds to a deck at most: the highest-scoring first.
TRAINER_WORDS_PER_GAME = 15
#: A deck as JSON, at most (a deck file read, a guest's deck posted): 500 cards of the longest fit.
TRAINER_DECK_BYTES = 327_680
#: A member's deck is fed from this many of their latest solo and daily games (their missed
#: words with boards and paths), besides the missed-words summaries.
TRAINER_FEED_GAMES = 20
#: A guest's deck is fed from at most this many of this browser's games per request.
TRAINER_GUEST_GAMES = 50
#: Finished games whose words for a deck (at most TRAINER_WORDS_PER_GAME, with their board) a
#: server process keeps in memory: a game's stored results (often 100 KB of JSON) are read once,
#: not on every trainer request that feeds from them (a finished game's results never change).
TRAINER_FED_GAMES_KEPT = 4096

# -- asynchronous challenges (fixed) -----------------------------------------------------------------

#: Rounds (boards) one challenge may have: a match of several, all played by each player.
CHALLENGE_MAX_ROUNDS = 10
#: Players one challenge seats (each plays every round): each finish scores the round again
#: among all who finished it, so the work of one finish is bounded by this many lists.
CHALLENGE_MAX_PLAYERS = 50
#: Teams one challenge may have (at least 2 when it has any): each player plays for one, and
#: words found by team-mates are not crossed off against each other.
CHALLENGE_MAX_TEAMS = 8
#: Hours a challenge stays open by default (7 days), and at most (30 days).
CHALLENGE_DEFAULT_HOURS = 168
CHALLENGE_MAX_HOURS = 720
#: Challenge rounds one sweep catches up at most (standings a missed listener left behind, and
#: abandoned challenge games scored); the rest wait for the next sweep.
CHALLENGE_SWEEP_ROUNDS = 50
#: Challenges a member's own profile lists (the open ones first, then the last finished).
PROFILE_CHALLENGES = 20
#: The terminal's client of the challenges' API (``bigboggle play --challenge``): the largest
#: answer it reads (bytes; a challenge's results with every round's lists fit), and seconds it
#: waits for one answer in all (connecting, the headers, the body) before saying the server did
#: not answer.
CLIENT_MAX_ANSWER_BYTES = 16_000_000
CLIENT_TIMEOUT_SECONDS = 20.0
#: The most characters of a server's own text (an error message, a reason) the client quotes
#: in an error, and the deepest nesting of an answer it reads (a challenge's results are ~8).
CLIENT_MAX_SHOWN_TEXT = 200
CLIENT_MAX_ANSWER_DEPTH = 32
#: The terminal's file of challenge seats (a game key per challenge, to play the next round by
#: the same name): the largest file read (bytes), and the most challenges kept (newest kept).
CLIENT_KEY_FILE_BYTES = 100_000
CLIENT_MAX_KEPT_CHALLENGES = 100


# -- the atlas (fixed) ----------------------------------------------------------------------------

#: The atlas (``bigboggle atlas``'s JSON, shipped as ``data/atlas.json`` or an operator's
#: ``BIGBOGGLE_ATLAS`` file): the largest file read (bytes; refused past it before it is
#: parsed), the most entries (a preset and a dictionary each), best boards per entry, distinct
#: values per histogram (points or words per board), and characters of a reproducing command.
MAX_ATLAS_BYTES = 16_000_000
MAX_ATLAS_ENTRIES = 200
MAX_ATLAS_BEST = 20
MAX_ATLAS_VALUES = 100_000
MAX_ATLAS_COMMAND = 1_000


@dataclass(frozen=True)
class ServerLimits:
    """The limits an operator may change, with their defaults. ``from_environment()`` reads
    ``BIGBOGGLE_LIMIT_<FIELD NAME IN CAPITALS>`` for each field."""

    # HTTP
    #: The largest request body read (bytes).
    max_body_bytes: int = 1_000_000
    #: The largest body of ``POST /api/read-board`` (a photo of the tray: a phone's full-size
    #: JPEG is 3-20 MB), never more than the library reads (MAX_PHOTO_BYTES).
    max_photo_body_bytes: int = 31_000_000
    #: Seconds a client may take to send a request body once its headers have arrived.
    body_timeout: float = 30.0
    #: The largest header block accepted (bytes, all headers together).
    max_header_bytes: int = 16_384
    #: The most headers a request may carry.
    max_headers: int = 100
    #: Seconds a client may take to send its request headers / keep an idle connection open.
    header_timeout: float = 10.0
    #: Connections (sockets included) and requests in progress at once; past it, 503.
    max_connections: int = 4096

    # the worker pool (solving, scoring, searching)
    #: Worker processes for CPU work (0: one per core, at least one).
    pool_workers: int = 0
    #: Jobs that may wait for a worker beyond those running; past it, 503 with Retry-After.
    pool_queue: int = 32
    #: Seconds a job may take before the request is answered 503 naming the limit.
    job_budget: float = 10.0

    # WebSockets
    #: The largest WebSocket message (bytes); larger frames are refused before they are buffered.
    max_message_bytes: int = 4096
    #: Seconds between the server's keep-alive pings, and how long it waits for the answer.
    ws_ping_interval: float = 20.0
    ws_ping_timeout: float = 20.0
    #: Messages a connection may send in a burst, and then per second.
    ws_burst: int = 30
    ws_rate: float = 10.0
    #: Messages dropped for flooding before the connection is closed (code 1008).
    ws_flood_drops: int = 100
    #: Open sockets one seat may have, and one client address.
    sockets_per_seat: int = 3
    sockets_per_address: int = 50
    #: Rooms one client address may create per hour, and join attempts per minute.
    rooms_per_address_hour: int = 30
    joins_per_address_minute: int = 60

    # rooms
    #: Seconds a host may be away before the host role passes to the next player.
    host_away: float = 60.0
    #: Days without activity after which a room is closed for good (its rounds stay readable).
    room_idle_days: float = 30.0

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> ServerLimits:
        """The defaults, with any ``BIGBOGGLE_LIMIT_*`` variables applied; :class:`ValueError`
        names a variable whose value is not a positive number of the field's type."""
        environ = os.environ if environ is None else environ
        changed: dict[str, Any] = {}
        for field in fields(cls):
            name = "BIGBOGGLE_LIMIT_" + field.name.upper()
            raw = environ.get(name)
            if raw is None or raw == "":
                continue
            kind = int if field.type in ("int", int) else float
            try:
                value = kind(raw)
            except ValueError:
                raise ValueError(f"{name}={raw[:MAX_QUOTED]!r} is not a {kind.__name__}") from None
            if not math.isfinite(value):
                raise ValueError(f"{name}={raw[:MAX_QUOTED]!r} must be a finite number")
            if value < 0 or (value == 0 and field.name != "pool_workers"):
                raise ValueError(f"{name}={raw[:MAX_QUOTED]!r} must be above 0")
            changed[field.name] = value
        return dataclasses.replace(cls(), **changed)

    def to_json(self) -> dict[str, int | float]:
        """Every limit by name, as plain data (for the README and ``/healthz``)."""
        return dataclasses.asdict(self)

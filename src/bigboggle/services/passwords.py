"""Passwords and members' names: the hashing policy and the rules a new one must keep.

**Hashing.** Argon2id through ``argon2-cffi``'s :class:`~argon2.PasswordHasher` with its
defaults, which are RFC 9106's "low-memory" recommendation (``time_cost=3``,
``memory_cost=65536`` KiB = 64 MiB, ``parallelism=4``, a 16-byte salt, a 32-byte hash), chosen
deliberately: the parameters the library's authors and the RFC recommend, with no tuning of our
own to get wrong. ``benchmarks/bench_login.py`` on this project's 2-core machine, measured
while the other work of the day shared it (load average about 7): **a median of 0.28 s of CPU
per hash** (its four lanes in threads), 0.6-1.0 s wall under that load; about 0.17 s wall on an
idle machine. A log-in costs one verification plus about 20 ms of database work, so one
process completes a few log-ins a second at most (1-2 a second through the server under that
load, with 4-8 clients). The web app runs at most :data:`~bigboggle.limits.HASHES_AT_ONCE` at
once and answers 503 beyond :data:`~bigboggle.limits.HASHES_WAITING` waiting, so a flood of
log-ins cannot take every thread. A hash stored with older parameters is rehashed at the next
successful log-in (:meth:`Passwords.verify` says when). Tests pass a cheap hasher
(:func:`cheap_hasher`) through the services' ``hasher`` parameter; production never does.

**Rules for a new password** (each refusal an :class:`~bigboggle.errors.AccountError` naming
the rule, never quoting the password):

- at least :data:`~bigboggle.limits.MIN_PASSWORD_LENGTH` characters;
- at most :data:`~bigboggle.limits.MAX_PASSWORD_BYTES` bytes of UTF-8 (checked before any hash:
  Argon2 itself takes any length, but nothing a stranger sends should cost more than a bound);
- not the user name, nor containing it (case-insensitive, by :func:`bigboggle.names.name_key`);
- not a commonly used or easily guessed one: ``zxcvbn`` (Dropbox's estimator, MIT licence; its
  dictionaries of common passwords, names and words, keyboard walks, dates, repeats) must give it
  a score of at least :data:`~bigboggle.limits.MIN_PASSWORD_STRENGTH` (2 of 4: more than 10^8
  guesses, beyond reach of an online guesser behind the log-in throttle). zxcvbn reads at most
  72 characters; a longer password is judged by its first 72.

**Members' names** are players' names (:func:`bigboggle.names.clean_name`; one member per
:func:`~bigboggle.names.name_key`, so ``Bob``, ``BOB`` and a Cyrillic ``Воb`` are one name) with
a stricter rule, since a member's name is in URLs (``/players/NAME``) and reserved in play:
:data:`~bigboggle.limits.MIN_ACCOUNT_NAME` to :data:`~bigboggle.limits.MAX_ACCOUNT_NAME`
characters, ASCII letters and digits, with single spaces, ``_``, ``-`` and ``.`` between them
(so no name is ``.``, ``..``, or starts or ends with a separator), and not a reserved word
(:data:`RESERVED_NAMES`: names the site or its players use for someone else).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import argon2
from argon2.exceptions import InvalidHashError, VerificationError
from zxcvbn import zxcvbn  # type: ignore[import-untyped]

from ..errors import AccountError, RoundInputError, quoted
from ..limits import (
    MAX_ACCOUNT_NAME,
    MAX_PASSWORD_BYTES,
    MIN_ACCOUNT_NAME,
    MIN_PASSWORD_LENGTH,
    MIN_PASSWORD_STRENGTH,
)
from ..names import clean_name, name_key

#: Names no member may take: the site's own words and the names the pages give other people
#: (the solo page's default player is "you"; guests and the computer may be named so).
RESERVED_NAMES = frozenset(
    {
        "admin",
        "administrator",
        "anonymous",
        "api",
        "bigboggle",
        "boggle",
        "computer",
        "guest",
        "host",
        "login",
        "logout",
        "me",
        "member",
        "moderator",
        "nobody",
        "null",
        "player",
        "root",
        "server",
        "signup",
        "staff",
        "support",
        "system",
        "undefined",
        "you",
    }
)
#: :data:`RESERVED_NAMES` by :func:`~bigboggle.names.name_key` (``Adm1n`` is ``admin``).
_RESERVED_KEYS = frozenset(name_key(name) for name in RESERVED_NAMES)
#: Letters and digits, with one space, ``_``, ``-`` or ``.`` between any two runs of them.
_ACCOUNT_NAME = re.compile(r"[A-Za-z0-9]+(?:[ _.\-][A-Za-z0-9]+)*")
#: zxcvbn's own bound on what it reads (it raises past it).
_ZXCVBN_MAX = 72
#: Words zxcvbn should count as known for every password here.
_SITE_WORDS = ("bigboggle", "boggle")


def check_account_name(name: object) -> str:
    """The normal form of a new member's name, or :class:`AccountError` naming the rule."""
    try:
        normal = clean_name(name, "username", max_length=MAX_ACCOUNT_NAME)
    except RoundInputError as exc:
        raise AccountError(str(exc)) from None
    if len(normal) < MIN_ACCOUNT_NAME:
        raise AccountError(
            f"username: {quoted(normal)} is shorter than {MIN_ACCOUNT_NAME} characters"
        )
    if not _ACCOUNT_NAME.fullmatch(normal):
        raise AccountError(
            f"username: {quoted(normal)} may have only letters A-Z, digits, and single spaces, "
            "'_', '-' or '.' between them"
        )
    if name_key(normal) in _RESERVED_KEYS:
        raise AccountError(f"username: {quoted(normal)} is reserved; choose another name")
    return normal


def login_key(name: object) -> str | None:
    """The :func:`~bigboggle.names.name_key` of a name typed at log-in, or ``None`` for text that
    can be no member's name (no account has it, so no error says more than a wrong password)."""
    try:
        return name_key(clean_name(name, "username", max_length=MAX_ACCOUNT_NAME))
    except RoundInputError:
        return None


def check_password_size(password: object) -> str:
    """``password`` if it is text within :data:`MAX_PASSWORD_BYTES`: the bound every password
    meets before it is hashed, at log-in too. The message never quotes it."""
    if not isinstance(password, str):
        raise AccountError("password: must be text")
    if len(password) > MAX_PASSWORD_BYTES or len(password.encode("utf-8")) > MAX_PASSWORD_BYTES:
        raise AccountError(f"password: longer than {MAX_PASSWORD_BYTES} bytes of UTF-8")
    return password


def check_new_password(password: object, username: str) -> str:
    """``password`` if it keeps every rule of the module's docstring for a member named
    ``username``; else :class:`AccountError` naming the first rule it breaks."""
    password = check_password_size(password)
    if len(password) < MIN_PASSWORD_LENGTH:
        raise AccountError(f"password: shorter than {MIN_PASSWORD_LENGTH} characters")
    if name_key(username) in name_key(password):
        raise AccountError("password: must not contain the user name")
    verdict = zxcvbn(password[:_ZXCVBN_MAX], user_inputs=[username, *_SITE_WORDS])
    if verdict["score"] < MIN_PASSWORD_STRENGTH:
        hint = verdict["feedback"].get("warning") or "it is too easy to guess"
        raise AccountError(
            f"password: too common or easy to guess ({hint.rstrip('.')}); "
            "a few unrelated words make a strong one"
        )
    return password


def cheap_hasher() -> argon2.PasswordHasher:
    """A fast Argon2id hasher for tests only (1 pass, 1 MiB): the services take it as their
    ``hasher`` parameter so a test suite does not spend 0.2 s on each log-in."""
    return argon2.PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1)


@dataclass(frozen=True)
class Checked:
    """What :meth:`Passwords.verify` found: whether the password matched, and if so the new
    hash to store (the stored one used older parameters), else ``None``."""

    ok: bool
    rehashed: str | None = None


class Passwords:
    """Argon2id hashing by ``hasher`` (default: argon2-cffi's defaults, RFC 9106 low-memory)."""

    def __init__(self, hasher: argon2.PasswordHasher | None = None) -> None:
        self.hasher = hasher or argon2.PasswordHasher()
        self._dummy: str | None = None

    def hash(self, password: str) -> str:
        """The encoded Argon2id hash of ``password`` (salted; CPU and memory work)."""
        return self.hasher.hash(check_password_size(password))

    def verify(self, stored: str | None, password: str) -> Checked:
        """Whether ``password`` matches the ``stored`` hash. With no hash (no such member, or
        one without a password), a dummy hash is checked instead, so the answer costs the same
        and its time does not tell which names exist."""
        password = check_password_size(password)
        if stored is None:
            self._check(self.dummy_hash, password)
            return Checked(False)
        if not self._check(stored, password):
            return Checked(False)
        if self.hasher.check_needs_rehash(stored):
            return Checked(True, self.hasher.hash(password))
        return Checked(True)

    def _check(self, stored: str, password: str) -> bool:
        try:
            return self.hasher.verify(stored, password)
        except (VerificationError, InvalidHashError):
            return False

    @property
    def dummy_hash(self) -> str:
        """A hash of a random password with this hasher's parameters, made once."""
        if self._dummy is None:
            self._dummy = self.hasher.hash(secrets.token_urlsafe(16))
        return self._dummy

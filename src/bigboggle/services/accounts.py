"""Members: optional accounts with a password, server-side sessions, and all that is held about
each member.

An account is a user name (checked by :func:`~bigboggle.services.passwords.check_account_name`,
unique by :func:`~bigboggle.names.name_key`) and an Argon2id hash of its password
(:mod:`bigboggle.services.passwords`). Playing never needs one: guests stay first-class.

**Sessions.** A log-in (or a sign-up, or a passkey's log-in: :meth:`Accounts.start_session`)
makes a fresh session: a token of 32 random bytes (``secrets.token_urlsafe(32)``) given once,
to be the browser's cookie, of which only :func:`~bigboggle.services.keys.key_hash` is stored
(a copy of the database logs no one in), and a CSRF token for the session's HTML forms. Every
log-in makes a new token, whatever token the browser had (no session fixation). A session ends
at log-out, after :data:`~bigboggle.limits.SESSION_IDLE_DAYS` without a request, and
:data:`~bigboggle.limits.SESSION_MAX_DAYS` after its log-in whatever happens; its ``last_seen``
is written at most once every :data:`~bigboggle.limits.SESSION_TOUCH_SECONDS`, so a request
usually costs one read. A member keeps at most
:data:`~bigboggle.limits.MAX_SESSIONS_PER_ACCOUNT` sessions (a new one ends the oldest). A
password change ends every session of the member and answers a fresh one; the member's
passkeys stay unless they ask for them to go too.

**Recent authentication.** A session's ``created_at`` is when its member logged in (every
log-in makes a fresh session), carried as :attr:`Member.auth_at`. What outlives a password
change (adding or removing a passkey; deleting an account without its password, by passkey)
needs a log-in within :data:`~bigboggle.limits.RECENT_AUTH_SECONDS` or the password
(:meth:`Accounts.confirm_recent`): a stolen older session is not enough.

**Log-ins** are throttled per account and per address (:mod:`.login_throttle`) before anything
is hashed; a wrong password and an unknown user name answer the same
:class:`~bigboggle.errors.WrongPasswordError` after the same work (an unknown name is checked
against a dummy hash), so neither the answer nor its time tells which names exist. No password
is logged, stored or put in a message.

Hashing is CPU work (about 0.2 s): these methods are called off the event loop (the web runs
them in a thread, at most :data:`~bigboggle.limits.HASHES_AT_ONCE` at once).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import argon2
from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import NameTakenError, NotFoundError, NotLoggedInError, WrongPasswordError, quoted
from ..limits import (
    KNOWN_DEVICE_DAYS,
    MAX_SESSIONS_PER_ACCOUNT,
    MAX_TOKEN_LENGTH,
    RECENT_AUTH_SECONDS,
    SESSION_IDLE_DAYS,
    SESSION_MAX_DAYS,
    SESSION_TOUCH_SECONDS,
)
from ..names import name_key
from .keys import key_hash
from .login_throttle import LoginThrottle, ThrottleLimits
from .passwords import (
    Passwords,
    check_account_name,
    check_new_password,
    check_password_size,
    login_key,
)
from .store import (
    AccountRow,
    AccountSessionRow,
    MissedWordsRow,
    PasskeyRow,
    PlayRow,
    RatingEventRow,
    RatingRow,
    RoomPlayerRow,
    RoomRoundRow,
    RoomWordRow,
    SoloGameRow,
    SoloWordRow,
    Store,
)

#: The one answer to a log-in with a wrong name or a wrong password.
WRONG_LOGIN = "wrong user name or password"
DAY = 86_400.0


@dataclass(frozen=True)
class Member:
    """Who is asking: a member's id and user name, how this session logged in (``password``
    or ``passkey``; empty for a member looked up by name) and when (``auth_at``: the session's
    ``created_at``, since every log-in makes a fresh session; 0 for a member looked up by
    name). ``auth_at`` is left out of comparisons: it says how, not who."""

    id: int
    username: str
    method: str
    auth_at: float = field(default=0.0, compare=False)


@dataclass(frozen=True)
class NewSession:
    """A session just made: its member, its token (the cookie's value, given this once) and
    the CSRF token of its HTML forms."""

    member: Member
    token: str
    csrf: str


@dataclass(frozen=True)
class AccountLimits:
    """How long sessions last and how log-ins are throttled (defaults: :mod:`bigboggle.limits`)."""

    idle_days: float = SESSION_IDLE_DAYS
    max_days: float = SESSION_MAX_DAYS
    recent_seconds: float = RECENT_AUTH_SECONDS
    device_days: float = KNOWN_DEVICE_DAYS
    touch_seconds: float = SESSION_TOUCH_SECONDS
    sessions_per_account: int = MAX_SESSIONS_PER_ACCOUNT
    throttle: ThrottleLimits = field(default_factory=ThrottleLimits)


@dataclass(frozen=True)
class Rating:
    """A member's rating in one preset family."""

    mu: float
    sigma: float
    display: float
    games: int

    def to_json(self) -> dict[str, Any]:
        return {"mu": self.mu, "sigma": self.sigma, "display": self.display, "games": self.games}


@dataclass(frozen=True)
class Overview:
    """What ``GET /api/me`` shows a member about their own account."""

    username: str
    created_at: float
    has_password: bool
    method: str
    games: int
    passkeys: int
    sessions: int
    ratings: dict[str, Rating]

    def to_json(self) -> dict[str, Any]:
        return {
            "username": self.username,
            "ratings": {family: rating.to_json() for family, rating in self.ratings.items()},
            "games": self.games,
            "created_at": self.created_at,
            "has_password": self.has_password,
            "method": self.method,
            "passkeys": self.passkeys,
            "sessions": self.sessions,
        }


class Accounts:
    """Members and their sessions on ``store`` (see the module's docstring). ``clock`` is the
    server's; ``limits`` the sessions' and the throttle's; ``hasher`` the Argon2id hasher
    (default: argon2-cffi's defaults; tests pass
    :func:`~bigboggle.services.passwords.cheap_hasher`)."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.time,
        limits: AccountLimits | None = None,
        *,
        hasher: argon2.PasswordHasher | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits or AccountLimits()
        self.passwords = Passwords(hasher)
        self.throttle = LoginThrottle(store, clock, self.limits.throttle)
        self._form_secret: bytes | None = None
        self._device_secret: bytes | None = None

    # -- joining and logging in ---------------------------------------------------------------

    def sign_up(self, username: object, password: object, address: str | None = None) -> NewSession:
        """A new member named ``username`` with ``password``, logged in: its first session.
        :class:`~bigboggle.errors.AccountError` names a rule the name or password breaks;
        :class:`~bigboggle.errors.NameTakenError` if a member has the name (by its key)."""
        name = check_account_name(username)
        checked = check_new_password(password, name)
        key = name_key(name)
        # A guesser's address, or too many: no account. Counted before the hash, so parallel
        # sign-ups cannot overshoot; given back if no account is made after all.
        self.throttle.reserve_signup(address)
        try:
            if self._row_by_key(key) is not None:  # before the hash: a taken name costs nothing
                raise _taken(name)
            hashed = self.passwords.hash(checked)
            account_id = self._insert(name, key, hashed)
        except BaseException:
            self.throttle.release_signup(address)
            raise
        return self.start_session(account_id, "password")

    def _insert(self, name: str, key: str, hashed: str) -> int:
        now = self.clock()
        try:
            with self.store.write_session() as session:
                row = AccountRow(
                    username=name,
                    name_key=key,
                    password_hash=hashed,
                    created_at=now,
                    password_changed_at=now,
                )
                session.add(row)
                session.flush()
                account_id = row.id
        except IntegrityError:
            raise _taken(name) from None
        return account_id

    def check_throttle(
        self, username: object, *, address: str | None = None, device: str | None = None
    ) -> None:
        """Raise :class:`~bigboggle.errors.ThrottledError` if a log-in as ``username`` from
        ``address`` (with the known-device cookie ``device``, if the browser has one) would
        be refused now (cheap reads; the web asks before it queues a hash)."""
        key = login_key(username)
        row = self._row_by_key(key) if key is not None else None
        known = row is not None and self.device_account(device) == row.id
        self.throttle.check(key, address, known_device=known)

    def log_in(
        self,
        username: object,
        password: object,
        address: str | None = None,
        *,
        device: str | None = None,
    ) -> NewSession:
        """A fresh session for the member ``username`` if ``password`` is theirs; else
        :class:`~bigboggle.errors.WrongPasswordError` (the same for an unknown name) or
        :class:`~bigboggle.errors.ThrottledError` (before any hash). The attempt is counted
        as a failure before the hash and given back on success (parallel guesses cannot pass
        the throttle together). ``device``: the browser's known-device cookie
        (:meth:`device_token`); one of this member's spares the browser the account's block
        (not the address's). A hash made with older parameters is replaced by one made with
        the current ones."""
        password = check_password_size(password)
        key = login_key(username)
        row = self._row_by_key(key) if key is not None else None
        known = row is not None and self.device_account(device) == row.id
        spared = self.throttle.reserve(key, address, known_device=known)
        checked = self.passwords.verify(row.password_hash if row is not None else None, password)
        if row is None or not checked.ok:
            raise WrongPasswordError(WRONG_LOGIN)  # counted already, by the reservation
        if checked.rehashed is not None:
            with self.store.write_session() as session:
                session.execute(
                    update(AccountRow)
                    .where(AccountRow.id == row.id)
                    .values(password_hash=checked.rehashed)
                )
        assert key is not None
        self.throttle.release(None, address)
        # A log-in through a block (a known device or address) leaves the strangers' count.
        self.throttle.succeeded(key, address, reset=not spared)
        return self.start_session(row.id, "password")

    # -- known devices ----------------------------------------------------------------------------

    def device_token(self, account_id: int) -> str:
        """A known-device token for member ``account_id``: ``ID.ISSUED.SIGNATURE``, the HMAC
        under the server's secret (:meth:`device_secret`). The web sets it as a long-lived
        ``HttpOnly`` cookie at each successful log-in; at a later log-in it spares this
        browser the account's block that strangers' failures cause (OWASP's "device
        cookies"), never the address's."""
        issued = int(self.clock())
        return f"{account_id}.{issued}.{self._device_signature(f'{account_id}.{issued}')}"

    def device_account(self, token: str | None) -> int | None:
        """The member a known-device token of :meth:`device_token` was made for, if it is
        well formed, signed by this server and younger than ``device_days``; else ``None``."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
            return None
        account, _, rest = token.partition(".")
        issued, _, signature = rest.partition(".")
        if not (account.isdigit() and issued.isdigit()) or len(account) > 12 or len(issued) > 12:
            return None
        expected = self._device_signature(f"{account}.{issued}")
        if not hmac.compare_digest(expected, signature):
            return None
        if self.clock() - int(issued) > self.limits.device_days * DAY:
            return None
        return int(account)

    def _device_signature(self, text: str) -> str:
        if self._device_secret is None:
            value = self.store.setting("device_secret", lambda: secrets.token_hex(32))
            self._device_secret = bytes.fromhex(value)
        return hmac.new(self._device_secret, text.encode(), hashlib.sha256).hexdigest()[:32]

    # -- recent authentication -----------------------------------------------------------------

    def recent(self, member: Member, *, method: str | None = None) -> bool:
        """Whether ``member``'s session logged in (by ``method``, if given) within
        ``recent_seconds``: a stolen cookie of an older session is not enough for what
        outlives a password change (adding or removing a passkey, deleting by passkey)."""
        if method is not None and member.method != method:
            return False
        return self.clock() - member.auth_at <= self.limits.recent_seconds

    def confirm_recent(
        self, member: Member, password: object = None, *, address: str | None = None
    ) -> None:
        """Pass if ``member`` logged in recently (:meth:`recent`), or ``password`` (if given)
        is theirs (throttled as a log-in; hashing: the web calls this through its gate);
        else :class:`~bigboggle.errors.NotLoggedInError` saying how to confirm."""
        if password is not None:
            self._confirm(member, password, address)
            return
        if not self.recent(member):
            minutes = max(1, round(self.limits.recent_seconds / 60))
            raise NotLoggedInError(
                "confirm it is you first: give your password, or log in again (this needs a "
                f"log-in within the last {minutes} minutes)"
            )

    def start_session(self, account_id: int, method: str) -> NewSession:
        """A fresh session for member ``account_id`` that logged in by ``method`` (``password``
        or ``passkey``); :class:`~bigboggle.errors.NotFoundError` if there is no such member.
        The member's expired sessions, and its oldest beyond the most it may keep, end."""
        token = secrets.token_urlsafe(32)
        csrf = secrets.token_urlsafe(32)
        now = self.clock()
        with self.store.write_session() as session:
            account = session.get(AccountRow, account_id)
            if account is None:
                raise NotFoundError(f"no member with id {account_id}")
            self._end_expired(session, account_id, now)
            session.add(
                AccountSessionRow(
                    token_hash=key_hash(token),
                    account_id=account_id,
                    csrf=csrf,
                    created_at=now,
                    last_seen=now,
                    method=method[:16],
                )
            )
            session.flush()
            oldest = session.scalars(
                select(AccountSessionRow.token_hash)
                .where(AccountSessionRow.account_id == account_id)
                .order_by(AccountSessionRow.last_seen.desc(), AccountSessionRow.created_at.desc())
                .offset(self.limits.sessions_per_account)
            ).all()
            if oldest:
                session.execute(
                    delete(AccountSessionRow).where(AccountSessionRow.token_hash.in_(oldest))
                )
            username = account.username
        return NewSession(Member(account_id, username, method, now), token, csrf)

    def _end_expired(self, session: Session, account_id: int, now: float) -> None:
        limits = self.limits
        session.execute(
            delete(AccountSessionRow).where(
                AccountSessionRow.account_id == account_id,
                (AccountSessionRow.last_seen < now - limits.idle_days * DAY)
                | (AccountSessionRow.created_at < now - limits.max_days * DAY),
            )
        )

    # -- sessions -------------------------------------------------------------------------------

    def member(self, token: str | None) -> Member | None:
        """The member of the live session whose token is ``token``; ``None`` for no token, an
        unknown or ended one, or an expired one (which is deleted)."""
        live = self._live(token)
        return live[0] if live is not None else None

    def visit(self, token: str | None) -> tuple[Member, bool] | None:
        """As :meth:`member`, with whether this visit wrote the session's ``last_seen`` (the
        web then gives the cookie its full idle lifetime again)."""
        live = self._live(token)
        return (live[0], live[2]) if live is not None else None

    def csrf(self, token: str | None) -> str | None:
        """The CSRF token of the live session ``token`` (``None`` as for :meth:`member`)."""
        live = self._live(token)
        return live[1] if live is not None else None

    def _live(self, token: str | None) -> tuple[Member, str, bool] | None:
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
            return None
        hashed = key_hash(token)
        now = self.clock()
        with self.store.session() as session:
            found = session.execute(
                select(AccountSessionRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == AccountSessionRow.account_id)
                .where(AccountSessionRow.token_hash == hashed)
            ).first()
        if found is None:
            return None
        row, username = found
        limits = self.limits
        if (
            now - row.last_seen > limits.idle_days * DAY
            or now - row.created_at > limits.max_days * DAY
        ):
            with self.store.write_session() as session:
                session.execute(
                    delete(AccountSessionRow).where(AccountSessionRow.token_hash == hashed)
                )
            return None
        touched = now - row.last_seen >= limits.touch_seconds
        if touched:
            with self.store.write_session() as session:
                session.execute(
                    update(AccountSessionRow)
                    .where(AccountSessionRow.token_hash == hashed)
                    .values(last_seen=now)
                )
        return Member(row.account_id, username, row.method, row.created_at), row.csrf, touched

    def log_out(self, token: str | None) -> None:
        """End the session ``token`` (nothing happens for an unknown one)."""
        if not isinstance(token, str) or not token or len(token) > MAX_TOKEN_LENGTH:
            return
        with self.store.write_session() as session:
            session.execute(
                delete(AccountSessionRow).where(AccountSessionRow.token_hash == key_hash(token))
            )

    # -- the member's own account ---------------------------------------------------------------

    def change_password(
        self,
        member: Member,
        old: object,
        new: object,
        *,
        address: str | None = None,
        remove_passkeys: bool = False,
    ) -> NewSession:
        """Set ``member``'s password to ``new`` once ``old`` is shown to be the current one;
        every session of the member ends (a thief's too) and a fresh one is answered. The
        member's passkeys stay (a thief may have added one: the account page says so and
        offers to remove them), unless ``remove_passkeys``: then they all go too.
        :class:`~bigboggle.errors.WrongPasswordError` for a wrong ``old`` (counted by the
        throttle like a failed log-in), :class:`~bigboggle.errors.AccountError` for a ``new``
        that breaks a rule."""
        row = self._confirm(member, old, address)
        checked = check_new_password(new, row.username)
        hashed = self.passwords.hash(checked)
        with self.store.write_session() as session:
            session.execute(
                update(AccountRow)
                .where(AccountRow.id == member.id)
                .values(password_hash=hashed, password_changed_at=self.clock())
            )
            session.execute(
                delete(AccountSessionRow).where(AccountSessionRow.account_id == member.id)
            )
            if remove_passkeys:
                session.execute(delete(PasskeyRow).where(PasskeyRow.account_id == member.id))
        return self.start_session(member.id, "password")

    def delete(
        self, member: Member, password: object = None, *, address: str | None = None
    ) -> None:
        """Delete ``member``'s account once ``password`` is shown to be theirs, or, without a
        password (``None``: a passkey-only member, or one who forgot it), if the session
        logged in by passkey within ``recent_seconds``. With it go its
        sessions, passkeys, plays, missed-word summaries, ratings and rating history (the
        database cascades) and the member's solo games, daily games included, with their words
        (a solo game is private to its player; this service deletes them). Rooms keep their
        rounds: the member's seats become a guest's (their ``account_id`` is cleared), under
        the same name, which is no longer reserved."""
        if password is None:
            if not self.recent(member, method="passkey"):
                raise NotLoggedInError(
                    "to delete the account, give its password, or log in with a passkey again "
                    f"(within {max(1, round(self.limits.recent_seconds / 60))} minutes)"
                )
            key = self._key_of(member)
        else:
            key = self._confirm(member, password, address).name_key
        with self.store.write_session() as session:
            session.execute(delete(SoloGameRow).where(SoloGameRow.account_id == member.id))
            session.execute(delete(AccountRow).where(AccountRow.id == member.id))
        self.throttle.forget(key)

    def _confirm(self, member: Member, password: object, address: str | None) -> AccountRow:
        """The member's row once ``password`` is shown to be theirs (throttled as a log-in)."""
        password = check_password_size(password)
        with self.store.session() as session:
            row = session.get(AccountRow, member.id)
        if row is None:
            raise NotLoggedInError("this account no longer exists; log in again")
        self.throttle.reserve(row.name_key, address)  # counted now; given back if right
        if not self.passwords.verify(row.password_hash, password).ok:
            raise WrongPasswordError("the password is wrong")
        self.throttle.release(row.name_key, address)
        return row

    def overview(self, member: Member) -> Overview:
        """What the member sees of their own account (``GET /api/me``)."""
        with self.store.session() as session:
            row = session.get(AccountRow, member.id)
            if row is None:
                raise NotLoggedInError("this account no longer exists; log in again")
            ratings = {
                rating.family: Rating(rating.mu, rating.sigma, rating.display, rating.games)
                for rating in session.scalars(
                    select(RatingRow).where(RatingRow.account_id == member.id)
                )
            }
            games = _count(session, PlayRow, PlayRow.account_id == member.id)
            passkeys = _count(session, PasskeyRow, PasskeyRow.account_id == member.id)
            sessions = _count(session, AccountSessionRow, AccountSessionRow.account_id == member.id)
        return Overview(
            username=row.username,
            created_at=row.created_at,
            has_password=row.password_hash is not None,
            method=member.method,
            games=games,
            passkeys=passkeys,
            sessions=sessions,
            ratings=ratings,
        )

    def export(self, member: Member) -> dict[str, Any]:
        """Everything held about ``member``, as plain JSON data: the account (no hash), its
        sessions (when made and last used, how; no tokens), passkeys (ids and labels, no keys),
        plays, missed-word summaries, ratings and their history, solo games with their words,
        room seats, and the addresses the log-in throttle knows the member by."""
        known = self.throttle.known_addresses(self._key_of(member))
        with self.store.session() as session:
            row = session.get(AccountRow, member.id)
            if row is None:
                raise NotLoggedInError("this account no longer exists; log in again")
            mine = member.id
            games = list(
                session.scalars(
                    select(SoloGameRow)
                    .where(SoloGameRow.account_id == mine)
                    .order_by(SoloGameRow.started_at)
                )
            )
            words: dict[str, list[dict[str, Any]]] = {game.id: [] for game in games}
            if games:
                for word in session.scalars(
                    select(SoloWordRow)
                    .where(SoloWordRow.game_id.in_(list(words)))
                    .order_by(SoloWordRow.game_id, SoloWordRow.seq)
                ):
                    words[word.game_id].append(
                        {
                            "entry": word.entry,
                            "at": word.at,
                            "word": word.word,
                            "verdict": word.verdict,
                            "score": word.score,
                        }
                    )
            return {
                "account": {
                    "id": row.id,
                    "username": row.username,
                    "created_at": row.created_at,
                    "password_changed_at": row.password_changed_at,
                    "has_password": row.password_hash is not None,
                },
                "sessions": [
                    {"created_at": s.created_at, "last_seen": s.last_seen, "method": s.method}
                    for s in session.scalars(
                        select(AccountSessionRow)
                        .where(AccountSessionRow.account_id == mine)
                        .order_by(AccountSessionRow.created_at)
                    )
                ],
                "passkeys": [
                    {
                        "id": p.id,
                        "credential_id": p.credential_id,
                        "label": p.label,
                        "transports": p.transports,
                        "created_at": p.created_at,
                        "last_used": p.last_used,
                    }
                    for p in session.scalars(
                        select(PasskeyRow)
                        .where(PasskeyRow.account_id == mine)
                        .order_by(PasskeyRow.id)
                    )
                ],
                "plays": [
                    _columns(p)
                    for p in session.scalars(
                        select(PlayRow)
                        .where(PlayRow.account_id == mine)
                        .order_by(PlayRow.played_at)
                    )
                ],
                "missed_words": [
                    _columns(m)
                    for m in session.scalars(
                        select(MissedWordsRow).where(MissedWordsRow.account_id == mine)
                    )
                ],
                "ratings": [
                    _columns(r)
                    for r in session.scalars(select(RatingRow).where(RatingRow.account_id == mine))
                ],
                "rating_events": [
                    _columns(e)
                    for e in session.scalars(
                        select(RatingEventRow)
                        .where(RatingEventRow.account_id == mine)
                        .order_by(RatingEventRow.at)
                    )
                ],
                "solo_games": [
                    {
                        **{
                            key: value
                            for key, value in _columns(game).items()
                            if key != "owner_hash"
                        },
                        "words": words[game.id],
                    }
                    for game in games
                ],
                "log_in_addresses": known,
                "room_seats": [
                    {
                        **{
                            key: value
                            for key, value in _columns(seat).items()
                            if key not in ("token_hash", "id")
                        },
                        "words": _seat_words(session, seat),
                    }
                    for seat in session.scalars(
                        select(RoomPlayerRow)
                        .where(RoomPlayerRow.account_id == mine)
                        .order_by(RoomPlayerRow.joined_at)
                    )
                ],
            }

    def created_at(self, member: Member) -> float | None:
        """When ``member`` signed up (``None`` if the account is gone)."""
        with self.store.session() as session:
            return session.scalar(select(AccountRow.created_at).where(AccountRow.id == member.id))

    def by_name(self, name: object) -> Member | None:
        """The member whose name has the key of ``name`` (``method`` empty), or ``None``."""
        key = login_key(name)
        row = self._row_by_key(key) if key is not None else None
        return Member(row.id, row.username, "") if row is not None else None

    def form_secret(self) -> bytes:
        """The server's secret for signing the CSRF tokens of forms shown before a log-in
        (kept in the database, so every process signs alike); made on first use."""
        if self._form_secret is None:
            value = self.store.setting("form_csrf_secret", lambda: secrets.token_hex(32))
            self._form_secret = bytes.fromhex(value)
        return self._form_secret

    def _key_of(self, member: Member) -> str:
        with self.store.session() as session:
            key = session.scalar(select(AccountRow.name_key).where(AccountRow.id == member.id))
        if key is None:
            raise NotLoggedInError("this account no longer exists; log in again")
        return key

    def _row_by_key(self, key: str) -> AccountRow | None:
        with self.store.session() as session:
            return session.scalar(select(AccountRow).where(AccountRow.name_key == key))


def _taken(name: str) -> NameTakenError:
    return NameTakenError(f"the user name {quoted(name)} is taken; choose another")


def _count(session: Session, model: Any, where: Any) -> int:
    return int(session.scalar(select(func.count()).select_from(model).where(where)) or 0)


def _seat_words(session: Session, seat: RoomPlayerRow) -> list[dict[str, Any]]:
    """The words the member entered from ``seat`` in its room's rounds (stored by the seat's
    name), in order, each with its round, time and verdict: part of what the export holds."""
    rows = session.execute(
        select(RoomRoundRow.number, RoomWordRow.entry, RoomWordRow.at, RoomWordRow.verdict)
        .join(RoomRoundRow, RoomRoundRow.id == RoomWordRow.round_id)
        .where(RoomRoundRow.room == seat.room, RoomWordRow.player == seat.name)
        .order_by(RoomRoundRow.number, RoomWordRow.id)
    )
    return [
        {"round": number, "entry": entry, "at": at, "verdict": verdict}
        for number, entry, at, verdict in rows
    ]


def _columns(row: Any) -> dict[str, Any]:
    """A row's columns by name (the table's own, no relationships)."""
    return {column.key: getattr(row, column.key) for column in row.__mapper__.column_attrs}

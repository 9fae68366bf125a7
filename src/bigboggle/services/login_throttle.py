"""The log-in throttle: failed log-ins counted per account and per address, in the database so
that every server process shares one count (:class:`~bigboggle.services.store.LoginFailureRow`).

- **Per account** (the :func:`~bigboggle.names.name_key` of the name typed, whether or not a
  member has it, so the throttle tells no one which names exist): after
  :data:`~bigboggle.limits.LOGIN_FAILURES_PER_ACCOUNT` failures within
  :data:`~bigboggle.limits.LOGIN_WINDOW_SECONDS` of the first, log-ins to it are refused for
  :data:`~bigboggle.limits.LOGIN_BLOCK_SECONDS`: a guesser spread over many addresses gets
  five guesses per quarter hour at one account.
- **Per address** (an IPv4 address, or the /64 network of an IPv6 one, since one machine holds a
  whole /64): after :data:`~bigboggle.limits.LOGIN_FAILURES_PER_ADDRESS` failures, every log-in
  from it is refused for the block time: one guesser cannot sweep many accounts.
- **Lockout of a victim by strangers.** A per-account block is exactly what a stranger would
  use to keep a member out. So it does not apply to an address from which that account logged
  in successfully within :data:`~bigboggle.limits.KNOWN_ADDRESS_DAYS` (a ``known:`` row): the
  member at home logs in while a stranger's guesses are refused; the per-address count still
  applies to everyone. Nor does it apply to a browser showing a known-device cookie of the
  account (OWASP's "device cookies": a signed token the web sets at each successful log-in,
  :meth:`~.accounts.Accounts.device_token`): the member's own browser logs in on any network.
  A log-in through a block this way leaves the strangers' count as it is. A passkey log-in is
  never throttled (it guesses nothing), and a logged-in browser keeps its session. A member in
  a new browser on a new network while a stranger is guessing waits at most the block time.
- **Counted before hashing** (:meth:`LoginThrottle.reserve`): an attempt is checked and
  counted as a failure in one transaction (rows locked), before its password is hashed, and
  given back when the password was right (:meth:`LoginThrottle.release`): parallel guesses
  cannot all pass the check before any of them is counted. Sign-ups likewise
  (:meth:`LoginThrottle.reserve_signup`).

- **New accounts** per address: at most :data:`~bigboggle.limits.SIGNUPS_PER_ADDRESS_HOUR` an
  hour (a ``signup:`` row), and none from an address blocked for failed log-ins.

A refused attempt costs no hash (:meth:`LoginThrottle.check`, one read, comes first in the
web). Every hash, whatever its result, is also counted per address by the web's hash gate
(:class:`~bigboggle.web.auth.HashGate`). Rows of
windows long past are deleted now and then (:meth:`LoginThrottle.purge`), so the table stays
proportionate to recent failures. The clock is a parameter: tests move it, never sleep.
"""

from __future__ import annotations

import ipaddress
import math
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import delete, or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from ..errors import ThrottledError
from ..limits import (
    KNOWN_ADDRESS_DAYS,
    LOGIN_BLOCK_SECONDS,
    LOGIN_FAILURES_PER_ACCOUNT,
    LOGIN_FAILURES_PER_ADDRESS,
    LOGIN_WINDOW_SECONDS,
    SIGNUPS_PER_ADDRESS_HOUR,
)
from .store import LoginFailureRow, Store

#: Every this many failures recorded in a process, the rows of old windows are purged.
_PURGE_EVERY = 64
#: Room for a key's parts within the column (200 characters).
_PART = 90


@dataclass(frozen=True)
class ThrottleLimits:
    """How many failures, in what window, block for how long (defaults: :mod:`bigboggle.limits`)."""

    per_account: int = LOGIN_FAILURES_PER_ACCOUNT
    per_address: int = LOGIN_FAILURES_PER_ADDRESS
    window: float = LOGIN_WINDOW_SECONDS
    block: float = LOGIN_BLOCK_SECONDS
    known_days: float = KNOWN_ADDRESS_DAYS
    signups_per_hour: int = SIGNUPS_PER_ADDRESS_HOUR


def address_key(address: str | None) -> str | None:
    """What an address is counted as: the IPv4 address, an IPv6 address's /64 network (an
    IPv4-mapped one as IPv4), or the text itself (bounded) if it is not an IP address."""
    if not address:
        return None
    try:
        parsed = ipaddress.ip_address(address)
    except ValueError:
        return address[:_PART]
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.IPv6Network(f"{parsed}/64", strict=False))
    return str(parsed)


class LoginThrottle:
    """Failed log-ins per account and per address (see the module's docstring)."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.time,
        limits: ThrottleLimits | None = None,
    ) -> None:
        self.store = store
        self.clock = clock
        self.limits = limits or ThrottleLimits()
        self._recorded = 0

    @staticmethod
    def _keys(account: str | None, address: str | None) -> tuple[str | None, str | None]:
        net = address_key(address)
        return (
            f"account:{account[:_PART]}" if account is not None else None,
            f"address:{net}" if net is not None else None,
        )

    @staticmethod
    def _known_key(account: str, address: str | None) -> str | None:
        net = address_key(address)
        return f"known:{account[:_PART]}|{net}" if net is not None else None

    def check(
        self, account: str | None, address: str | None, *, known_device: bool = False
    ) -> None:
        """Raise :class:`ThrottledError` (with ``retry_after``) if log-ins to ``account`` (a
        name key) from ``address`` are refused now (``known_device``: the browser shows a
        known-device cookie of the account, which the account's block spares). One read;
        nothing is hashed."""
        with self.store.session() as session:
            rows = self._rows(session, account, address, lock=False)
        self._refuse(rows, account, address, known_device, self.clock())

    def reserve(
        self, account: str | None, address: str | None, *, known_device: bool = False
    ) -> bool:
        """:meth:`check`, then count the attempt as a failure at once, in one transaction,
        before anything is hashed: parallel guesses cannot all pass the check before any of
        them is counted. A success gives it back (:meth:`release`, :meth:`succeeded`).
        ``True`` if the account is blocked and the attempt passed only as a known device's
        or address's (its success then leaves the strangers' count as it is)."""
        spared = False
        account_key, net_key = self._keys(account, address)
        limits = self.limits
        counted = [(account_key, limits.per_account), (net_key, limits.per_address)]
        for attempt in range(3):  # another try if another process inserted a row meanwhile
            try:
                with self.store.write_session() as session:
                    now = self.clock()
                    rows = self._rows(session, account, address, lock=True)
                    spared = self._refuse(rows, account, address, known_device, now)
                    # A row missing from the locked read may be another process's, inserted
                    # but not committed: insert ours now, so that such a race is a unique-key
                    # error (and another try, which reads and locks theirs), never a count
                    # made past a check that could not see it.
                    _insert_missing(session, [key for key, _ in counted if key], rows, now)
                    for key, most in counted:
                        if key is not None:
                            self._count(session, key, most, now)
                break
            except IntegrityError:
                if attempt == 2:
                    raise
        self._recorded += 1
        if self._recorded % _PURGE_EVERY == 0:
            self.purge()
        return spared

    def release(self, account: str | None, address: str | None) -> None:
        """Give back an attempt :meth:`reserve` counted (the password was right): one failure
        less for ``account`` and ``address``, and a block it alone caused lifted."""
        account_key, net_key = self._keys(account, address)
        limits = self.limits
        with self.store.write_session() as session:
            for key, most in ((account_key, limits.per_account), (net_key, limits.per_address)):
                if key is None:
                    continue
                row = session.get(LoginFailureRow, key, with_for_update=True)
                if row is None:
                    continue
                row.failures = max(0, row.failures - 1)
                if row.failures < most:
                    row.blocked_until = None

    def _rows(
        self, session: Session, account: str | None, address: str | None, *, lock: bool
    ) -> dict[str, LoginFailureRow]:
        account_key, net_key = self._keys(account, address)
        known_key = self._known_key(account, address) if account is not None else None
        wanted = [key for key in (account_key, net_key, known_key) if key is not None]
        query = select(LoginFailureRow).where(LoginFailureRow.key.in_(wanted))
        if lock:
            query = query.with_for_update()
        return {row.key: row for row in session.scalars(query)}

    def _refuse(
        self,
        rows: dict[str, LoginFailureRow],
        account: str | None,
        address: str | None,
        known_device: bool,
        now: float,
    ) -> bool:
        """Raise :class:`ThrottledError` if ``rows`` (from :meth:`_rows`) refuse the attempt;
        ``True`` if the account is blocked but spares this device or address."""
        account_key, net_key = self._keys(account, address)
        known_key = self._known_key(account, address) if account is not None else None
        net_row = rows.get(net_key) if net_key else None
        if net_row is not None and (net_row.blocked_until or 0) > now:
            raise ThrottledError(
                "too many failed log-ins from your address; try again in "
                f"{_wait(net_row.blocked_until, now)} s",
                _wait(net_row.blocked_until, now),
            )
        account_row = rows.get(account_key) if account_key else None
        if account_row is None or (account_row.blocked_until or 0) <= now:
            return False
        if known_device:
            return True  # this browser logged in to the account before: the block spares it
        known = rows.get(known_key) if known_key else None
        if known is not None and now - known.window_start < self.limits.known_days * 86400:
            return (
                True  # this address logged in to the account before: a stranger's block spares it
            )
        raise ThrottledError(
            "too many failed log-ins for this user name; try again in "
            f"{_wait(account_row.blocked_until, now)} s (or log in with a passkey, or from a "
            "browser you logged in with before)",
            _wait(account_row.blocked_until, now),
        )

    def failed(self, account: str | None, address: str | None) -> None:
        """Count a failed log-in for ``account`` (a name key) and ``address``."""
        now = self.clock()
        account_key, net_key = self._keys(account, address)
        limits = self.limits
        counted = [(account_key, limits.per_account), (net_key, limits.per_address)]
        for attempt in range(2):  # a second try if another process inserted a row meanwhile
            try:
                with self.store.write_session() as session:
                    for key, most in counted:
                        if key is not None:
                            self._count(session, key, most, now)
                break
            except IntegrityError:
                if attempt:
                    raise
        self._recorded += 1
        if self._recorded % _PURGE_EVERY == 0:
            self.purge()

    def _count(
        self,
        session: Session,
        key: str,
        most: int,
        now: float,
        window: float | None = None,
        block: float | None = None,
    ) -> None:
        """One more event for ``key`` in its window (``window``, default the log-ins'); at
        ``most``, blocked for ``block`` seconds (default the log-ins'; ``None`` given as 0:
        until the window is over)."""
        window = self.limits.window if window is None else window
        row = session.get(LoginFailureRow, key, with_for_update=True)
        if row is None:
            row = LoginFailureRow(key=key, failures=0, window_start=now, blocked_until=None)
            session.add(row)
        elif now - row.window_start >= window:
            row.failures = 0
            row.window_start = now
        row.failures += 1
        if row.failures >= most:
            until = now + self.limits.block if block is None else row.window_start + window
            row.blocked_until = max(row.blocked_until or 0.0, until)
        session.flush()

    def check_signup(self, address: str | None) -> None:
        """Raise :class:`ThrottledError` if ``address`` made its hour's share of accounts (or
        is blocked for failed log-ins)."""
        self.check(None, address)
        key = self._signup_key(address)
        if key is None:
            return
        with self.store.session() as session:
            row = session.get(LoginFailureRow, key)
        _refuse_signup(row, self.clock())

    def reserve_signup(self, address: str | None) -> None:
        """:meth:`check_signup` and count the account at once, in one transaction, before its
        password is hashed (parallel sign-ups cannot overshoot the hour's share); a sign-up
        that fails after all gives it back (:meth:`release_signup`)."""
        self.check(None, address)
        key = self._signup_key(address)
        if key is None:
            return
        for attempt in range(2):
            try:
                with self.store.write_session() as session:
                    now = self.clock()
                    row = session.get(LoginFailureRow, key, with_for_update=True)
                    _refuse_signup(row, now)
                    _insert_missing(session, [key], {} if row is None else {key: row}, now)
                    self._count(session, key, self.limits.signups_per_hour, now, 3600.0, 0.0)
                break
            except IntegrityError:
                if attempt:
                    raise

    def release_signup(self, address: str | None) -> None:
        """Give back the count :meth:`reserve_signup` took (no account was made)."""
        key = self._signup_key(address)
        if key is None:
            return
        with self.store.write_session() as session:
            row = session.get(LoginFailureRow, key, with_for_update=True)
            if row is not None:
                row.failures = max(0, row.failures - 1)
                if row.failures < self.limits.signups_per_hour:
                    row.blocked_until = None

    def signed_up(self, address: str | None) -> None:
        """Count an account made from ``address`` (at most ``signups_per_hour`` an hour)."""
        key = self._signup_key(address)
        if key is None:
            return
        now = self.clock()
        for attempt in range(2):
            try:
                with self.store.write_session() as session:
                    self._count(session, key, self.limits.signups_per_hour, now, 3600.0, 0.0)
                break
            except IntegrityError:
                if attempt:
                    raise

    @staticmethod
    def _signup_key(address: str | None) -> str | None:
        net = address_key(address)
        return f"signup:{net}" if net is not None else None

    def succeeded(self, account: str, address: str | None, *, reset: bool = True) -> None:
        """A log-in to ``account`` from ``address`` succeeded: the account's count starts
        again (unless not ``reset``: a log-in that passed a block as a known device's or
        address's leaves the strangers' count), and the address is known to it (its block
        spares the address from now on)."""
        now = self.clock()
        account_key, _ = self._keys(account, address)
        known_key = self._known_key(account, address)
        for attempt in range(2):
            try:
                with self.store.write_session() as session:
                    if reset:
                        session.execute(
                            delete(LoginFailureRow).where(LoginFailureRow.key == account_key)
                        )
                    if known_key is not None:
                        row = session.get(LoginFailureRow, known_key, with_for_update=True)
                        if row is None:
                            session.add(
                                LoginFailureRow(key=known_key, failures=0, window_start=now)
                            )
                        else:
                            row.window_start = now
                break
            except IntegrityError:
                if attempt:
                    raise

    def known_addresses(self, account: str) -> list[dict[str, object]]:
        """The addresses (IPv4, or IPv6 /64) ``account`` (a name key) logged in from within
        ``known_days``, with when it last did: what the throttle holds about a member."""
        prefix = f"known:{account[:_PART]}|"
        with self.store.session() as session:
            rows = session.scalars(
                select(LoginFailureRow)
                .where(LoginFailureRow.key.startswith(prefix, autoescape=True))
                .order_by(LoginFailureRow.window_start)
            ).all()
        return [
            {"address": row.key[len(prefix) :], "last_log_in": row.window_start} for row in rows
        ]

    def forget(self, account: str) -> None:
        """Drop every row about ``account`` (a name key): its count and its known addresses
        (when the account is deleted)."""
        account_key, _ = self._keys(account, None)
        prefix = f"known:{account[:_PART]}|"
        with self.store.write_session() as session:
            session.execute(
                delete(LoginFailureRow).where(
                    or_(
                        LoginFailureRow.key == account_key,
                        LoginFailureRow.key.startswith(prefix, autoescape=True),
                    )
                )
            )

    def purge(self) -> int:
        """Delete the rows of windows and blocks long over (and known addresses not seen for
        ``known_days``); the number deleted."""
        now = self.clock()
        limits = self.limits
        stale = now - max(limits.window, limits.block, 3600.0)
        with self.store.write_session() as session:
            counts = session.execute(
                delete(LoginFailureRow).where(
                    ~LoginFailureRow.key.startswith("known:"),
                    LoginFailureRow.window_start < stale,
                    or_(
                        LoginFailureRow.blocked_until.is_(None),
                        LoginFailureRow.blocked_until < now,
                    ),
                )
            )
            known = session.execute(
                delete(LoginFailureRow).where(
                    LoginFailureRow.key.startswith("known:"),
                    LoginFailureRow.window_start < now - limits.known_days * 86400,
                )
            )
        return int(counts.rowcount or 0) + int(known.rowcount or 0)  # type: ignore[attr-defined]


def _insert_missing(
    session: Session, keys: list[str], rows: dict[str, LoginFailureRow], now: float
) -> None:
    """Insert (and flush) a zero row for each of ``keys`` that ``rows`` has not got: raises
    ``IntegrityError`` if another transaction has one, however uncommitted."""
    for key in keys:
        if key not in rows:
            session.add(LoginFailureRow(key=key, failures=0, window_start=now, blocked_until=None))
    session.flush()


def _refuse_signup(row: LoginFailureRow | None, now: float) -> None:
    if row is not None and (row.blocked_until or 0) > now:
        wait = _wait(row.blocked_until, now)
        raise ThrottledError(
            f"too many new accounts from your address; try again in {wait} s", wait
        )


def _wait(until: float | None, now: float) -> int:
    return max(1, math.ceil((until or now) - now))

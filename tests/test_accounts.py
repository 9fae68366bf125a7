"""Accounts as a service: names and passwords and their rules, sessions (fresh at every log-in,
stored by hash, expiring), the log-in throttle, password changes, deletion and export, on
SQLite and PostgreSQL."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from typing import Any, Literal

import argon2
import pytest
from sqlalchemy import inspect, select, text

from bigboggle import limits
from bigboggle.errors import (
    AccountError,
    NameTakenError,
    NotLoggedInError,
    ThrottledError,
    WrongPasswordError,
)
from bigboggle.services.accounts import WRONG_LOGIN, AccountLimits, Accounts
from bigboggle.services.keys import key_hash
from bigboggle.services.login_throttle import LoginThrottle, ThrottleLimits, address_key
from bigboggle.services.passwords import (
    RESERVED_NAMES,
    Passwords,
    cheap_hasher,
    check_account_name,
    check_new_password,
    check_password_size,
)
from bigboggle.services.store import (
    AccountRow,
    AccountSessionRow,
    LoginFailureRow,
    PlayRow,
    RatingEventRow,
    RatingRow,
    RoomPlayerRow,
    RoomRoundRow,
    RoomRow,
    RoomWordRow,
    SoloGameRow,
    SoloWordRow,
    Store,
)
from conftest import FakeClock, postgres_schema

pytestmark = pytest.mark.once

PASSWORD = "correct horse battery staple"
OTHER = "purple monkey dishwasher"
DAY = 86_400
#: The tests whose SQL differs between the databases (locks, cascades, upserts) run on both.
BOTH = pytest.mark.parametrize("store", ["sqlite", "postgres"], indirect=True)


class CountingHasher(argon2.PasswordHasher):
    """The tests' cheap hasher, counting how often it hashes and verifies."""

    def __init__(self, time_cost: int = 1) -> None:
        super().__init__(time_cost=time_cost, memory_cost=1024, parallelism=1)
        self.hashes = 0
        self.verifies = 0

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self.hashes += 1
        return super().hash(password, salt=salt)

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self.verifies += 1
        return super().verify(hash, password)


@pytest.fixture
def store(request: pytest.FixtureRequest, db_url: str) -> Iterator[Store]:
    """A fresh store: SQLite, or PostgreSQL for the tests marked :data:`BOTH`."""
    if getattr(request, "param", "sqlite") == "sqlite":
        opened = Store(db_url)
        yield opened
        opened.close()
    else:
        with postgres_schema("test_accounts", migrated=True) as url:
            opened = Store(url)
            yield opened
            opened.close()


@pytest.fixture
def hasher() -> CountingHasher:
    return CountingHasher()


@pytest.fixture
def accounts(store: Store, clock: FakeClock, hasher: CountingHasher) -> Accounts:
    return Accounts(store, clock, hasher=hasher)


def _all_text(store: Store) -> str:
    """Every value of every column of every table, as one text."""
    parts: list[str] = []
    with store.engine.connect() as connection:
        for table in inspect(connection).get_table_names():
            for row in connection.execute(text(f'SELECT * FROM "{table}"')):
                parts.extend(repr(value) for value in row)
    return "\n".join(parts)


# -- names -----------------------------------------------------------------------------------------


@BOTH
def test_a_member_signs_up_and_is_logged_in(accounts: Accounts, store: Store) -> None:
    new = accounts.sign_up("Ann_Reads", PASSWORD)
    assert new.member.username == "Ann_Reads"
    assert new.member.method == "password"
    assert len(new.token) >= 43 and len(new.csrf) >= 43
    assert accounts.member(new.token) == new.member
    assert accounts.csrf(new.token) == new.csrf
    with store.session() as session:
        row = session.scalars(select(AccountSessionRow)).one()
    assert row.token_hash == key_hash(new.token)  # only its hash is stored
    assert new.token not in _all_text(store)
    assert accounts.by_name("ann_reads") == type(new.member)(new.member.id, "Ann_Reads", "")
    assert accounts.by_name("nobody") is None


@pytest.mark.parametrize(
    "variant",
    ["ann_reads", "ANN_READS", "Ann_Reads ", "\u0430nn_reads", "ａｎｎ_reads"],
    ids=["same", "case", "space", "cyrillic-a", "full-width"],
)
def test_a_name_is_taken_in_every_look_alike_form(accounts: Accounts, variant: str) -> None:
    accounts.sign_up("Ann_Reads", PASSWORD)
    with pytest.raises((NameTakenError, AccountError)) as refused:
        accounts.sign_up(variant, OTHER)
    if variant != "\u0430nn_reads":  # the Cyrillic one is refused by the name rule first
        assert isinstance(refused.value, NameTakenError)
        assert "is taken" in str(refused.value)


def test_a_taken_name_costs_no_hash(accounts: Accounts, hasher: CountingHasher) -> None:
    accounts.sign_up("bob", PASSWORD)
    before = hasher.hashes
    with pytest.raises(NameTakenError):
        accounts.sign_up("BOB", OTHER)
    assert hasher.hashes == before


@pytest.mark.parametrize(
    ("name", "rule"),
    [
        ("ab", "shorter than 3 characters"),
        ("a" * (limits.MAX_ACCOUNT_NAME + 1), "longer than 24 characters"),
        ("ann/reads", "may have only letters"),
        ("ann<b>", "may have only letters"),
        ("_ann", "may have only letters"),
        ("ann..reads", "may have only letters"),
        ("ånn", "may have only letters"),
        ("ann\u200breads", "invisible or control character"),
        ("Admin", "is reserved"),
        ("GUEST", "is reserved"),
        ("you", "is reserved"),
        ("", "non-empty"),
        (12, "must be text"),
    ],
)
def test_a_name_breaking_a_rule_is_refused_naming_it(name: Any, rule: str) -> None:
    with pytest.raises(AccountError, match=rule):
        check_account_name(name)


def test_names_at_the_limits_are_taken() -> None:
    assert check_account_name("a" * limits.MIN_ACCOUNT_NAME) == "aaa"
    longest = "b" * limits.MAX_ACCOUNT_NAME
    assert check_account_name(longest) == longest
    assert check_account_name("Ann  Reads") == "Ann Reads"  # spaces folded
    assert check_account_name("ann.reads-2_x") == "ann.reads-2_x"
    assert {"admin", "guest", "you", "system"} <= RESERVED_NAMES


# -- passwords -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("password", "rule"),
    [
        ("short pw", f"shorter than {limits.MIN_PASSWORD_LENGTH} characters"),
        ("é" * (limits.MAX_PASSWORD_BYTES // 2 + 1), f"longer than {limits.MAX_PASSWORD_BYTES}"),
        ("my name is Ann_Reads ok", "must not contain the user name"),
        ("xxANN_READSxx-2026", "must not contain the user name"),
        ("password1234", "too common or easy to guess"),
        ("qwertyuiop", "too common or easy to guess"),
        ("aaaaaaaaaaaaaaa", "too common or easy to guess"),
        ("bigboggle2026", "too common or easy to guess"),
        (None, "must be text"),
    ],
)
def test_a_password_breaking_a_rule_is_refused_naming_it(password: Any, rule: str) -> None:
    with pytest.raises(AccountError, match=rule) as refused:
        check_new_password(password, "Ann_Reads")
    if isinstance(password, str):
        assert password not in str(refused.value)  # never quoted


def test_passwords_at_the_limits_are_taken() -> None:
    assert check_new_password("ztk4 vb9q!", "bob") == "ztk4 vb9q!"  # exactly 10 characters
    longest = ("correct horse battery staple " * 40)[: limits.MAX_PASSWORD_BYTES]
    assert check_new_password(longest, "bob") == longest
    at_bound = "é" * (limits.MAX_PASSWORD_BYTES // 2)  # 512 two-byte letters: 1,024 bytes
    assert check_password_size(at_bound) == at_bound
    with pytest.raises(AccountError, match="longer than"):
        check_password_size(at_bound + "x")


def test_the_strength_threshold_is_zxcvbns_score() -> None:
    from zxcvbn import zxcvbn  # type: ignore[import-untyped]

    assert zxcvbn("correct horse battery")["score"] >= limits.MIN_PASSWORD_STRENGTH
    assert zxcvbn("password1234")["score"] < limits.MIN_PASSWORD_STRENGTH


def test_production_hashes_with_argon2_cffis_defaults(store: Store) -> None:
    hasher = Accounts(store).passwords.hasher
    assert hasher.type is argon2.Type.ID
    assert (hasher.time_cost, hasher.memory_cost, hasher.parallelism) == (3, 65536, 4)
    assert (hasher.hash_len, hasher.salt_len) == (32, 16)
    assert Passwords().hasher.time_cost == argon2.PasswordHasher().time_cost
    assert cheap_hasher().time_cost == 1  # the tests' only


@BOTH
def test_a_hash_with_old_parameters_is_replaced_at_log_in(store: Store, clock: FakeClock) -> None:
    Accounts(store, clock, hasher=CountingHasher(time_cost=1)).sign_up("ann", PASSWORD)
    stronger = Accounts(store, clock, hasher=CountingHasher(time_cost=2))
    stronger.log_in("ann", PASSWORD)
    with store.session() as session:
        stored = session.scalars(select(AccountRow.password_hash)).one()
    assert stored is not None and ",t=2," in stored
    assert stronger.passwords.hasher.check_needs_rehash(stored) is False
    stronger.log_in("ann", PASSWORD)  # the new hash verifies


@BOTH
def test_the_password_is_nowhere_in_the_database(accounts: Accounts, store: Store) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    accounts.log_in("ann", PASSWORD)
    with pytest.raises(WrongPasswordError):
        accounts.log_in("ann", OTHER)
    with pytest.raises(WrongPasswordError):
        accounts.log_in("nobody_here", PASSWORD)
    accounts.change_password(new.member, PASSWORD, OTHER)
    everything = _all_text(store)
    for secret in (PASSWORD, OTHER, "horse battery", "monkey dish"):
        assert secret not in everything
    assert "$argon2id$" in everything  # the hash is


# -- log-in ----------------------------------------------------------------------------------------


def test_every_log_in_makes_a_fresh_session(accounts: Accounts) -> None:
    first = accounts.sign_up("ann", PASSWORD)
    second = accounts.log_in("ANN", PASSWORD)
    third = accounts.log_in("ann", PASSWORD)
    assert len({first.token, second.token, third.token}) == 3
    assert len({first.csrf, second.csrf, third.csrf}) == 3
    assert accounts.member(second.token) == second.member
    assert second.member.username == "ann"


@BOTH
def test_a_wrong_password_and_an_unknown_name_look_alike(
    accounts: Accounts, hasher: CountingHasher
) -> None:
    accounts.sign_up("ann", PASSWORD)
    answers = []
    for name, password in [("ann", OTHER), ("nobody", PASSWORD), ("a/b", PASSWORD)]:
        before = hasher.verifies
        with pytest.raises(WrongPasswordError) as refused:
            accounts.log_in(name, password, "10.0.0.1")
        answers.append(str(refused.value))
        assert hasher.verifies == before + 1  # one Argon2 check each: the same cost
    assert answers == [WRONG_LOGIN] * 3
    # The dummy hash of an unknown name has the real hasher's parameters.
    assert argon2.extract_parameters(accounts.passwords.dummy_hash) == argon2.extract_parameters(
        hasher.hash("x")
    )


def test_an_oversized_password_at_log_in_is_refused_before_hashing(
    accounts: Accounts, hasher: CountingHasher
) -> None:
    accounts.sign_up("ann", PASSWORD)
    before = hasher.verifies
    with pytest.raises(AccountError, match="longer than 1024 bytes"):
        accounts.log_in("ann", "x" * (limits.MAX_PASSWORD_BYTES + 1))
    assert hasher.verifies == before


# -- the throttle --------------------------------------------------------------------------------


def _fail(accounts: Accounts, name: str, address: str, times: int = 1) -> None:
    for _ in range(times):
        with pytest.raises(WrongPasswordError):
            accounts.log_in(name, OTHER, address)


@BOTH
def test_an_account_is_throttled_after_five_failures_from_anywhere(
    accounts: Accounts, clock: FakeClock, hasher: CountingHasher
) -> None:
    accounts.sign_up("ann", PASSWORD)
    for number in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        _fail(accounts, "ann", f"203.0.113.{number}")
    before = hasher.verifies
    with pytest.raises(ThrottledError, match="for this user name") as refused:
        accounts.log_in("ann", PASSWORD, "203.0.113.99")  # even the right password waits
    assert refused.value.retry_after == limits.LOGIN_BLOCK_SECONDS
    assert hasher.verifies == before  # a throttled attempt hashes nothing
    member = accounts.by_name("ann")
    assert member is not None
    accounts.start_session(member.id, "passkey")  # a passkey's log-in is never held back
    clock.advance(limits.LOGIN_BLOCK_SECONDS - 10)
    with pytest.raises(ThrottledError) as still:
        accounts.check_throttle("ANN", address="203.0.113.99")
    assert still.value.retry_after == 10
    clock.advance(10)
    accounts.log_in("ann", PASSWORD, "203.0.113.99")


def test_an_unknown_name_is_throttled_like_a_known_one(accounts: Accounts) -> None:
    for number in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        _fail(accounts, "ghost", f"198.51.100.{number}")
    with pytest.raises(ThrottledError, match="for this user name"):
        accounts.log_in("ghost", OTHER, "198.51.100.200")


def test_failures_spread_beyond_the_window_do_not_add_up(
    accounts: Accounts, clock: FakeClock
) -> None:
    accounts.sign_up("ann", PASSWORD)
    for _ in range(3):
        _fail(accounts, "ann", "192.0.2.1", limits.LOGIN_FAILURES_PER_ACCOUNT - 1)
        clock.advance(limits.LOGIN_WINDOW_SECONDS)
    accounts.log_in("ann", PASSWORD, "192.0.2.1")


def test_a_success_starts_the_accounts_count_again(accounts: Accounts) -> None:
    accounts.sign_up("ann", PASSWORD)
    _fail(accounts, "ann", "192.0.2.1", limits.LOGIN_FAILURES_PER_ACCOUNT - 1)
    accounts.log_in("ann", PASSWORD, "192.0.2.1")
    _fail(accounts, "ann", "192.0.2.1", limits.LOGIN_FAILURES_PER_ACCOUNT - 1)
    accounts.log_in("ann", PASSWORD, "192.0.2.1")


@BOTH
def test_strangers_cannot_lock_a_member_out_of_a_known_address(accounts: Accounts) -> None:
    accounts.sign_up("ann", PASSWORD)
    accounts.log_in("ann", PASSWORD, "192.0.2.10")  # ann's home
    for number in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        _fail(accounts, "ann", f"203.0.113.{number}")
    with pytest.raises(ThrottledError):
        accounts.log_in("ann", PASSWORD, "203.0.113.50")  # a new address waits
    accounts.log_in("ann", PASSWORD, "192.0.2.10")  # home is not held back


def test_a_known_address_stops_being_known_after_its_days(
    accounts: Accounts, clock: FakeClock
) -> None:
    accounts.sign_up("ann", PASSWORD)
    accounts.log_in("ann", PASSWORD, "192.0.2.10")
    clock.advance(limits.KNOWN_ADDRESS_DAYS * DAY + 1)
    for number in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        _fail(accounts, "ann", f"203.0.113.{number}")
    with pytest.raises(ThrottledError):
        accounts.log_in("ann", PASSWORD, "192.0.2.10")


@BOTH
def test_an_address_is_throttled_after_twenty_failures_on_any_names(
    accounts: Accounts, clock: FakeClock, hasher: CountingHasher
) -> None:
    accounts.sign_up("ann", PASSWORD)
    for number in range(limits.LOGIN_FAILURES_PER_ADDRESS):
        _fail(accounts, f"name{number}", "198.51.100.7")
    before = hasher.verifies
    with pytest.raises(ThrottledError, match="from your address") as refused:
        accounts.log_in("ann", PASSWORD, "198.51.100.7")
    assert refused.value.retry_after == limits.LOGIN_BLOCK_SECONDS
    assert hasher.verifies == before
    with pytest.raises(ThrottledError, match="from your address"):
        accounts.sign_up("newcomer", PASSWORD, "198.51.100.7")  # no accounts from it either
    accounts.log_in("ann", PASSWORD, "198.51.100.8")  # another address is not held back
    clock.advance(limits.LOGIN_BLOCK_SECONDS)
    accounts.log_in("ann", PASSWORD, "198.51.100.7")


def test_an_ipv6_address_counts_as_its_slash_64() -> None:
    assert address_key("2001:db8:1:2::1") == address_key("2001:db8:1:2:ffff::9")
    assert address_key("2001:db8:1:2::1") == "2001:db8:1:2::/64"
    assert address_key("2001:db8:1:3::1") != address_key("2001:db8:1:2::1")
    assert address_key("::ffff:192.0.2.1") == "192.0.2.1"
    assert address_key("203.0.113.5") == "203.0.113.5"
    assert address_key("testclient") == "testclient"
    assert address_key(None) is None


@BOTH
def test_old_throttle_rows_are_purged(store: Store, clock: FakeClock) -> None:
    throttle = LoginThrottle(store, clock, ThrottleLimits())
    throttle.failed("ann", "192.0.2.1")
    throttle.succeeded("bob", "192.0.2.2")
    assert throttle.purge() == 0
    clock.advance(3601)  # past every window (log-ins' and sign-ups')
    assert throttle.purge() == 2  # ann's and the address's count; bob's known address stays
    clock.advance(limits.KNOWN_ADDRESS_DAYS * DAY)
    assert throttle.purge() == 1
    with store.session() as session:
        assert session.scalars(select(LoginFailureRow)).all() == []


# -- sessions --------------------------------------------------------------------------------------


def _last_seen(store: Store, token: str) -> float:
    with store.session() as session:
        row = session.get(AccountSessionRow, key_hash(token))
        assert row is not None
        return row.last_seen


@BOTH
def test_a_session_is_touched_at_most_once_a_minute(
    accounts: Accounts, store: Store, clock: FakeClock
) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    start = clock()
    clock.advance(limits.SESSION_TOUCH_SECONDS - 1)
    assert accounts.member(new.token) is not None
    assert _last_seen(store, new.token) == start  # not written
    clock.advance(1)
    assert accounts.member(new.token) is not None
    assert _last_seen(store, new.token) == start + limits.SESSION_TOUCH_SECONDS


@BOTH
def test_an_idle_session_expires_and_is_deleted(
    accounts: Accounts, store: Store, clock: FakeClock
) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    kept = accounts.log_in("ann", PASSWORD)
    for _ in range(3):  # used every 20 days: alive for 60
        clock.advance(20 * DAY)
        assert accounts.member(kept.token) == kept.member
    assert accounts.member(new.token) is None  # 60 days idle
    assert accounts.csrf(new.token) is None
    with store.session() as session:
        assert session.get(AccountSessionRow, key_hash(new.token)) is None
    clock.advance(limits.SESSION_IDLE_DAYS * DAY + 1)
    assert accounts.member(kept.token) is None


def test_a_session_ends_at_its_absolute_lifetime(accounts: Accounts, clock: FakeClock) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    for _ in range(limits.SESSION_MAX_DAYS // 25):
        clock.advance(25 * DAY)
        assert accounts.member(new.token) is not None
    clock.advance(25 * DAY)  # past a year since the log-in, though used all along
    assert accounts.member(new.token) is None


def test_unknown_malformed_and_oversized_tokens_are_no_one(accounts: Accounts) -> None:
    accounts.sign_up("ann", PASSWORD)
    for token in [None, "", "nope", "x" * (limits.MAX_TOKEN_LENGTH + 1), 12]:
        assert accounts.member(token) is None  # type: ignore[arg-type]
        accounts.log_out(token)  # type: ignore[arg-type]


def test_log_out_ends_the_session(accounts: Accounts, store: Store) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    other = accounts.log_in("ann", PASSWORD)
    accounts.log_out(new.token)
    assert accounts.member(new.token) is None
    assert accounts.member(other.token) is not None  # another browser stays
    with store.session() as session:
        assert session.get(AccountSessionRow, key_hash(new.token)) is None


@BOTH
def test_a_member_keeps_a_bounded_number_of_sessions(store: Store, clock: FakeClock) -> None:
    accounts = Accounts(
        store, clock, AccountLimits(sessions_per_account=3), hasher=CountingHasher()
    )
    tokens = [accounts.sign_up("ann", PASSWORD).token]
    for _ in range(3):
        clock.advance(1)
        tokens.append(accounts.log_in("ann", PASSWORD).token)
    assert accounts.member(tokens[0]) is None  # the oldest ended
    assert all(accounts.member(token) is not None for token in tokens[1:])
    assert AccountLimits().sessions_per_account == limits.MAX_SESSIONS_PER_ACCOUNT


def test_a_passkey_session_starts_without_a_password(accounts: Accounts) -> None:
    member = accounts.sign_up("ann", PASSWORD).member
    new = accounts.start_session(member.id, "passkey")
    assert accounts.member(new.token) == type(member)(member.id, "ann", "passkey")
    with pytest.raises(Exception, match="no member with id"):
        accounts.start_session(member.id + 100, "passkey")


# -- the member's own account ----------------------------------------------------------------------


@BOTH
def test_changing_the_password_ends_every_session(accounts: Accounts) -> None:
    first = accounts.sign_up("ann", PASSWORD)
    second = accounts.log_in("ann", PASSWORD)
    with pytest.raises(WrongPasswordError):
        accounts.change_password(first.member, "not the password", OTHER)
    with pytest.raises(AccountError, match="shorter than"):
        accounts.change_password(first.member, PASSWORD, "short")
    assert accounts.member(first.token) is not None  # refused: nothing changed
    fresh = accounts.change_password(first.member, PASSWORD, OTHER)
    assert accounts.member(first.token) is None
    assert accounts.member(second.token) is None
    assert accounts.member(fresh.token) == fresh.member
    assert fresh.token not in (first.token, second.token)
    with pytest.raises(WrongPasswordError):
        accounts.log_in("ann", PASSWORD)
    accounts.log_in("ann", OTHER)


def _seed_history(store: Store, account_id: int, clock: FakeClock) -> None:
    """A member's solo game with a word, a room seat, a play, a rating and its event."""
    now = clock()
    with store.write_session() as session:
        session.add(
            SoloGameRow(
                id="g1",
                rules="big",
                options={},
                dictionary="standard",
                board="LINES/TQARD/HEMOP/ABCKI/PSTEW",
                seed=1,
                player="ann",
                owner_hash="f" * 64,
                account_id=account_id,
                started_at=now,
                deadline=now + 180,
            )
        )
        session.flush()
        session.add(SoloWordRow(game_id="g1", seq=0, entry="lines", at=now))
        session.add(RoomRow(code="ABCD", settings={}, host="ann", created_at=now))
        session.flush()
        session.add(
            RoomPlayerRow(
                room="ABCD", name="ann", token_hash="e" * 64, joined_at=now, account_id=account_id
            )
        )
        played = RoomRoundRow(
            room="ABCD",
            number=1,
            board="LINES/TQARD/HEMOP/ABCKI/PSTEW",
            settings={},
            starts_at=now,
            deadline=now + 180,
        )
        session.add(played)
        session.flush()
        for player, entry in (("ann", "tqa"), ("bob", "lines"), ("ann", "lines")):
            session.add(RoomWordRow(round_id=played.id, player=player, entry=entry, at=now))
        session.add(
            PlayRow(
                account_id=account_id,
                kind="solo",
                rules="big",
                family="5x5",
                ref="g1",
                played_at=now,
                score=12,
                words=3,
            )
        )
        session.add(
            RatingRow(
                account_id=account_id,
                family="5x5",
                mu=26.0,
                sigma=7.5,
                display=1040.0,
                games=1,
                updated_at=now,
            )
        )
        session.add(
            RatingEventRow(
                account_id=account_id,
                family="5x5",
                contest="room:ABCD:1",
                at=now,
                place=1,
                field=2,
                mu=26.0,
                sigma=7.5,
                display=1040.0,
            )
        )


@BOTH
def test_export_holds_everything_but_secrets(
    accounts: Accounts, store: Store, clock: FakeClock
) -> None:
    accounts.sign_up("ann", PASSWORD)
    new = accounts.log_in("ann", PASSWORD, "2001:db8:5:6::7")
    accounts.log_out(accounts.log_in("ann", PASSWORD).token)
    _seed_history(store, new.member.id, clock)
    data = accounts.export(new.member)
    assert data["log_in_addresses"] == [{"address": "2001:db8:5:6::/64", "last_log_in": clock()}]
    assert data["account"]["username"] == "ann"
    assert len(data["sessions"]) == 2
    assert [play["ref"] for play in data["plays"]] == ["g1"]
    assert data["ratings"][0]["mu"] == 26.0
    assert data["rating_events"][0]["contest"] == "room:ABCD:1"
    assert data["solo_games"][0]["words"][0]["entry"] == "lines"
    assert data["room_seats"][0]["room"] == "ABCD"
    # the seat's own words in the room's rounds, not another player's
    assert [(w["round"], w["entry"]) for w in data["room_seats"][0]["words"]] == [
        (1, "tqa"),
        (1, "lines"),
    ]
    shown = json.dumps(data)
    with store.session() as session:
        stored_hash = session.scalars(select(AccountRow.password_hash)).one()
    assert stored_hash is not None
    for secret in (stored_hash, key_hash(new.token), new.token, new.csrf, "f" * 64, "e" * 64):
        assert secret not in shown
    assert PASSWORD not in shown


@BOTH
def test_deleting_an_account_leaves_no_session_and_no_history(
    accounts: Accounts, store: Store, clock: FakeClock
) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    other = accounts.log_in("ann", PASSWORD, "192.0.2.1")
    _seed_history(store, new.member.id, clock)
    bob = accounts.sign_up("bob", OTHER)
    with pytest.raises(WrongPasswordError):
        accounts.delete(new.member, OTHER)
    assert accounts.member(new.token) is not None  # a wrong password deletes nothing
    accounts.delete(new.member, PASSWORD)
    assert accounts.member(new.token) is None
    assert accounts.member(other.token) is None
    assert accounts.member(bob.token) == bob.member  # others untouched
    with store.session() as session:
        assert session.scalars(select(AccountRow.username)).all() == ["bob"]
        assert session.scalars(select(AccountSessionRow.account_id)).all() == [bob.member.id]
        assert session.scalars(select(SoloGameRow)).all() == []  # private: deleted
        assert session.scalars(select(SoloWordRow)).all() == []
        assert session.scalars(select(PlayRow)).all() == []
        assert session.scalars(select(RatingRow)).all() == []
        assert session.scalars(select(RatingEventRow)).all() == []
        seat = session.scalars(select(RoomPlayerRow)).one()  # the room keeps its seat, a guest's
        assert (seat.name, seat.account_id) == ("ann", None)
        keys = session.scalars(select(LoginFailureRow.key)).all()
    assert not [key for key in keys if "ann" in key]  # the throttle forgot ann
    with pytest.raises(NotLoggedInError):
        accounts.export(new.member)
    with pytest.raises(WrongPasswordError):
        accounts.log_in("ann", PASSWORD)
    accounts.sign_up("ann", OTHER)  # the name is free again


def test_overview_counts_the_members_things(
    accounts: Accounts, store: Store, clock: FakeClock
) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    _seed_history(store, new.member.id, clock)
    shown = accounts.overview(new.member).to_json()
    assert shown["username"] == "ann"
    assert shown["games"] == 1
    assert shown["ratings"] == {"5x5": {"mu": 26.0, "sigma": 7.5, "display": 1040.0, "games": 1}}
    assert shown["passkeys"] == 0 and shown["sessions"] == 1
    assert shown["created_at"] == clock() == accounts.created_at(new.member)


def test_the_defaults_are_the_limits() -> None:
    chosen = AccountLimits()
    assert chosen.idle_days == limits.SESSION_IDLE_DAYS
    assert chosen.max_days == limits.SESSION_MAX_DAYS
    assert chosen.touch_seconds == limits.SESSION_TOUCH_SECONDS
    throttle = chosen.throttle
    assert (throttle.per_account, throttle.per_address) == (
        limits.LOGIN_FAILURES_PER_ACCOUNT,
        limits.LOGIN_FAILURES_PER_ADDRESS,
    )
    assert (throttle.window, throttle.block, throttle.known_days) == (
        limits.LOGIN_WINDOW_SECONDS,
        limits.LOGIN_BLOCK_SECONDS,
        limits.KNOWN_ADDRESS_DAYS,
    )


def test_an_address_makes_a_bounded_number_of_accounts_an_hour(
    accounts: Accounts, clock: FakeClock
) -> None:
    for number in range(limits.SIGNUPS_PER_ADDRESS_HOUR):
        accounts.sign_up(f"member{number}", PASSWORD, "192.0.2.77")
    with pytest.raises(ThrottledError, match="too many new accounts") as refused:
        accounts.sign_up("one_more", PASSWORD, "192.0.2.77")
    assert refused.value.retry_after == 3600
    accounts.sign_up("elsewhere", PASSWORD, "192.0.2.78")
    clock.advance(3600)
    accounts.sign_up("one_more", PASSWORD, "192.0.2.77")
    assert AccountLimits().throttle.signups_per_hour == limits.SIGNUPS_PER_ADDRESS_HOUR


@BOTH
def test_failures_counted_by_many_processes_at_once_are_all_counted(
    store: Store, clock: FakeClock
) -> None:
    other = Store(store.url)  # a second server process's connection pool
    try:
        throttles = [LoginThrottle(store, clock), LoginThrottle(other, clock)]
        start = threading.Barrier(8)

        def fail(number: int) -> None:
            start.wait()
            throttles[number % 2].failed("ann", f"192.0.2.{number}")

        threads = [threading.Thread(target=fail, args=(n,)) for n in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        other.close()
    with store.session() as session:
        row = session.get(LoginFailureRow, "account:ann")
    assert row is not None and row.failures == 8  # no count lost between processes
    assert row.blocked_until == clock() + limits.LOGIN_BLOCK_SECONDS


# -- attempts counted before hashing, recent authentication, known devices ----------------------


class GatedHasher(CountingHasher):
    """A hasher that, once armed for ``parties`` attempts, holds every hash and verify until
    each attempt has either reached one or been refused (:meth:`arrived`): all parallel
    attempts are past the throttle's door before any is counted the old way."""

    def __init__(self) -> None:
        super().__init__()
        self.parties = 0
        self.count = 0
        self.lock = threading.Lock()
        self.all_in = threading.Event()

    def arm(self, parties: int) -> None:
        self.parties = parties

    def arrived(self) -> None:
        with self.lock:
            self.count += 1
            if self.count >= self.parties:
                self.all_in.set()

    def _hold(self) -> None:
        if self.parties:
            self.arrived()
            assert self.all_in.wait(30)

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self._hold()
        return super().hash(password, salt=salt)

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:
        self._hold()
        return super().verify(hash, password)


def _at_once(hasher: GatedHasher, attempts: list[Any]) -> list[str]:
    """Run ``attempts`` (callables) in threads started together; what each ended with."""
    hasher.arm(len(attempts))
    start = threading.Barrier(len(attempts))
    results: list[str] = [""] * len(attempts)

    def attempt(number: int) -> None:
        start.wait()
        try:
            attempts[number]()
            results[number] = "ok"
        except (WrongPasswordError, ThrottledError) as exc:
            if isinstance(exc, ThrottledError):
                hasher.arrived()  # refused at the door: never reaches the hasher
            results[number] = type(exc).__name__

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(len(attempts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


@BOTH
def test_parallel_guesses_get_no_more_than_the_throttles_count(
    store: Store, clock: FakeClock
) -> None:
    hasher = GatedHasher()
    accounts = Accounts(store, clock, hasher=hasher)
    accounts.sign_up("ann", PASSWORD)
    guesses = 3 * limits.LOGIN_FAILURES_PER_ACCOUNT
    results = _at_once(
        hasher,
        [
            (lambda n=n: accounts.log_in("ann", f"guess number {n}", f"203.0.113.{n}"))
            for n in range(guesses)
        ],
    )
    assert results.count("WrongPasswordError") == limits.LOGIN_FAILURES_PER_ACCOUNT
    assert results.count("ThrottledError") == guesses - limits.LOGIN_FAILURES_PER_ACCOUNT
    with store.session() as session:
        row = session.get(LoginFailureRow, "account:ann")
    assert row is not None and row.failures == limits.LOGIN_FAILURES_PER_ACCOUNT


@BOTH
def test_a_right_password_gives_its_reserved_attempt_back(store: Store, clock: FakeClock) -> None:
    accounts = Accounts(store, clock, hasher=CountingHasher())
    accounts.sign_up("ann", PASSWORD)
    for number in range(limits.LOGIN_FAILURES_PER_ADDRESS - 1):
        _fail(accounts, f"someone{number}", "192.0.2.5")
    for _ in range(3):  # counted before the hash, given back after it: never blocked
        accounts.log_in("ann", PASSWORD, "192.0.2.5")
        accounts.change_password(
            accounts.by_name("ann") or pytest.fail(), PASSWORD, PASSWORD + "!", address="192.0.2.5"
        )
        accounts.change_password(
            accounts.by_name("ann") or pytest.fail(), PASSWORD + "!", PASSWORD, address="192.0.2.5"
        )
    _fail(accounts, "someone_else", "192.0.2.5")
    with pytest.raises(ThrottledError, match="your address"):
        accounts.log_in("ann", PASSWORD, "192.0.2.5")


def test_parallel_sign_ups_do_not_overshoot_the_hours_share(store: Store, clock: FakeClock) -> None:
    hasher = GatedHasher()
    accounts = Accounts(store, clock, hasher=hasher)
    tries = limits.SIGNUPS_PER_ADDRESS_HOUR + 5
    results = _at_once(
        hasher,
        [
            (lambda n=n: accounts.sign_up(f"member{n}", PASSWORD, "192.0.2.77"))
            for n in range(tries)
        ],
    )
    assert results.count("ok") == limits.SIGNUPS_PER_ADDRESS_HOUR
    assert results.count("ThrottledError") == 5


def test_a_sign_up_that_fails_gives_its_count_back(accounts: Accounts) -> None:
    accounts.sign_up("ann", PASSWORD, "192.0.2.77")
    for _ in range(limits.SIGNUPS_PER_ADDRESS_HOUR):
        with pytest.raises(NameTakenError):
            accounts.sign_up("ANN", PASSWORD, "192.0.2.77")
    for number in range(limits.SIGNUPS_PER_ADDRESS_HOUR - 1):
        accounts.sign_up(f"member{number}", PASSWORD, "192.0.2.77")
    with pytest.raises(ThrottledError):
        accounts.sign_up("one_too_many", PASSWORD, "192.0.2.77")


def test_the_sign_up_cap_is_one_a_person_never_hits() -> None:
    assert limits.SIGNUPS_PER_ADDRESS_HOUR == 10  # 25 in 6 s went through at 30


def test_a_session_knows_when_it_logged_in_and_whether_that_is_recent(
    accounts: Accounts, clock: FakeClock
) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    assert new.member.auth_at == clock()
    clock.advance(limits.RECENT_AUTH_SECONDS)
    member = accounts.member(new.token)
    assert member is not None and member.auth_at == new.member.auth_at
    assert member == new.member  # auth_at says how, not who
    assert accounts.recent(member)
    accounts.confirm_recent(member)
    clock.advance(1)
    assert not accounts.recent(member)
    with pytest.raises(NotLoggedInError, match="confirm it is you"):
        accounts.confirm_recent(member)
    with pytest.raises(WrongPasswordError):
        accounts.confirm_recent(member, OTHER)
    accounts.confirm_recent(member, PASSWORD)
    again = accounts.log_in("ann", PASSWORD)  # a log-in is a fresh authentication
    assert accounts.recent(again.member)
    assert AccountLimits().recent_seconds == limits.RECENT_AUTH_SECONDS


def test_a_recent_passkey_log_in_deletes_without_a_password(
    accounts: Accounts, clock: FakeClock, store: Store
) -> None:
    new = accounts.sign_up("ann", PASSWORD)
    with pytest.raises(NotLoggedInError, match="passkey"):
        accounts.delete(new.member)  # a password session must give the password
    by_passkey = accounts.start_session(new.member.id, "passkey")
    clock.advance(limits.RECENT_AUTH_SECONDS + 1)
    late = accounts.member(by_passkey.token)
    assert late is not None
    with pytest.raises(NotLoggedInError, match="passkey"):
        accounts.delete(late)
    fresh = accounts.start_session(new.member.id, "passkey")
    accounts.delete(fresh.member)
    assert accounts.by_name("ann") is None
    with store.session() as session:
        assert session.scalars(select(AccountSessionRow)).all() == []


def test_a_known_device_token_is_signed_bound_and_ages(
    accounts: Accounts, clock: FakeClock
) -> None:
    token = accounts.device_token(7)
    assert accounts.device_account(token) == 7
    number, issued, signature = token.split(".")
    assert accounts.device_account(f"8.{issued}.{signature}") is None
    assert accounts.device_account(f"{number}.{int(issued) + 1}.{signature}") is None
    for bad in (None, "", "7", "7..", "x.y.z", "7.1." + "0" * 32, token + "0", "7." * 100):
        assert accounts.device_account(bad) is None
    other = Accounts(accounts.store, clock, hasher=cheap_hasher())
    assert other.device_account(token) == 7  # one secret for every process
    clock.advance(limits.KNOWN_DEVICE_DAYS * DAY + 1)
    assert accounts.device_account(token) is None
    assert AccountLimits().device_days == limits.KNOWN_DEVICE_DAYS


def test_a_known_device_passes_the_accounts_block_but_not_the_addresss(
    accounts: Accounts, clock: FakeClock
) -> None:
    new = accounts.sign_up("bob", PASSWORD)
    device = accounts.device_token(new.member.id)
    stranger = accounts.device_token(new.member.id + 1)
    for number in range(limits.LOGIN_FAILURES_PER_ACCOUNT):
        _fail(accounts, "bob", f"203.0.113.{number}")
    with pytest.raises(ThrottledError, match="for this user name"):
        accounts.log_in("bob", PASSWORD, "192.0.2.9")
    with pytest.raises(ThrottledError):
        accounts.log_in("bob", PASSWORD, "192.0.2.9", device=stranger)  # another member's
    accounts.check_throttle("bob", address="192.0.2.9", device=device)
    accounts.log_in("bob", PASSWORD, "192.0.2.9", device=device)
    with pytest.raises(ThrottledError, match="for this user name"):  # the block stays
        accounts.log_in("bob", PASSWORD, "192.0.2.10")
    for number in range(limits.LOGIN_FAILURES_PER_ADDRESS):
        _fail(accounts, f"name{number}", "192.0.2.11")
    with pytest.raises(ThrottledError, match="your address"):
        accounts.log_in("bob", PASSWORD, "192.0.2.11", device=device)

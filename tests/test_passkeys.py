"""Passkeys (WebAuthn) as the service does them, with real ceremonies: the authenticator's side
is made here in Python (an EC P-256 key, authenticator data, ``clientDataJSON`` and a "none"
attestation object in CBOR, an ECDSA signature over them), so registration, log-in and every
refusal run through py_webauthn's own checks without a browser."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from sqlalchemy import func, insert, select, update

from bigboggle.errors import (
    AccountError,
    GameStateError,
    NotFoundError,
    NotLoggedInError,
)
from bigboggle.limits import (
    MAX_CREDENTIAL_ID,
    MAX_PASSKEY_LABEL,
    MAX_PASSKEYS,
    PASSKEY_BODY_BYTES,
    PASSKEY_CHALLENGE_SECONDS,
    PASSKEY_CHALLENGES,
    PASSKEY_CHALLENGES_PER_MEMBER,
    PASSKEY_LOGINS_PER_ADDRESS_MINUTE,
    RECENT_AUTH_SECONDS,
)
from bigboggle.services.accounts import Accounts, Member
from bigboggle.services.passkeys import Ceremony, Passkeys, RelyingParty
from bigboggle.services.passwords import cheap_hasher
from bigboggle.services.store import AccountRow, AuthChallengeRow, PasskeyRow, Store

pytestmark = pytest.mark.once

ORIGIN = "http://localhost:8123"
PARTY = RelyingParty.from_origin(ORIGIN)
PASSWORD = "correct horse battery"


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class SoftAuthenticator:
    """A passkey authenticator in software: one EC P-256 credential per registration, its
    counter, and the answers a browser would send (``PublicKeyCredential.toJSON()``)."""

    counting: bool = True
    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    credential_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    counter: int = 0
    user_handle: bytes = b""

    def cose_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps(
            {
                1: 2,
                3: -7,
                -1: 1,
                -2: numbers.x.to_bytes(32, "big"),
                -3: numbers.y.to_bytes(32, "big"),
            }
        )

    def _auth_data(self, rp_id: str, flags: int, attested: bytes = b"") -> bytes:
        if self.counting:
            self.counter += 1
        rp_hash = hashlib.sha256(rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.counter) + attested

    @staticmethod
    def client_data(kind: str, challenge: str, origin: str, **extra: Any) -> bytes:
        return json.dumps(
            {"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False, **extra}
        ).encode()

    def create(
        self, options: Ceremony, *, origin: str = ORIGIN, rp_id: str | None = None, **extra: Any
    ) -> dict[str, Any]:
        """What ``navigator.credentials.create()`` answers for ``options``."""
        public = options.public_key
        self.user_handle = unb64(public["user"]["id"])
        attested = (
            bytes(16)
            + struct.pack(">H", len(self.credential_id))
            + self.credential_id
            + self.cose_key()
        )
        auth_data = self._auth_data(rp_id or public["rp"]["id"], 0x45, attested)
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client = self.client_data("webauthn.create", public["challenge"], origin, **extra)
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "attestationObject": b64(attestation),
                "transports": ["internal", "hybrid"],
            },
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
        }

    def get(
        self,
        options: Ceremony,
        *,
        origin: str = ORIGIN,
        rp_id: str | None = None,
        challenge: str | None = None,
    ) -> dict[str, Any]:
        """What ``navigator.credentials.get()`` answers for ``options``."""
        public = options.public_key
        auth_data = self._auth_data(rp_id or public["rpId"], 0x05)
        client = self.client_data("webauthn.get", challenge or public["challenge"], origin)
        signed = auth_data + hashlib.sha256(client).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64(self.credential_id),
            "rawId": b64(self.credential_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64(client),
                "authenticatorData": b64(auth_data),
                "signature": b64(signature),
                "userHandle": b64(self.user_handle),
            },
            "authenticatorAttachment": "platform",
            "clientExtensionResults": {},
        }


@pytest.fixture
def store(db_url: str) -> Any:
    opened = Store(db_url)
    yield opened
    opened.close()


@pytest.fixture
def accounts(store: Store, clock: Any) -> Accounts:
    return Accounts(store, clock, hasher=cheap_hasher())


@pytest.fixture
def passkeys(store: Store, clock: Any, accounts: Accounts) -> Passkeys:
    return Passkeys(store, clock, accounts)


def member(accounts: Accounts, name: str = "ann") -> Member:
    return accounts.sign_up(name, PASSWORD).member


def registered(passkeys: Passkeys, who: Member, label: str = "phone") -> SoftAuthenticator:
    device = SoftAuthenticator()
    options = passkeys.registration_options(who, PARTY)
    passkeys.register(who, PARTY, options.id, device.create(options), label)
    return device


# -- registration -------------------------------------------------------------------------------


def test_registration_options_name_the_site_and_an_opaque_user(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann = member(accounts)
    options = passkeys.registration_options(ann, PARTY).to_json()
    public = options["publicKey"]
    assert public["rp"] == {"name": "bigboggle", "id": "localhost"}
    assert public["user"]["name"] == "ann"
    handle = unb64(public["user"]["id"])
    assert len(handle) == 32
    # Not the account id in any plain form: an HMAC of it under the server's secret.
    assert handle not in {
        str(ann.id).encode(),
        ann.id.to_bytes(4, "big"),
        ann.id.to_bytes(8, "big"),
    }
    assert handle == passkeys.user_handle(ann.id)  # stable for the account
    assert passkeys.user_handle(ann.id + 1) != handle
    assert public["attestation"] == "none"
    assert public["authenticatorSelection"]["residentKey"] == "required"
    assert public["authenticatorSelection"]["userVerification"] == "preferred"
    assert public["excludeCredentials"] == []
    assert len(unb64(public["challenge"])) == 32
    assert isinstance(options["ceremony"], str)


def test_a_registered_passkey_is_listed_and_excluded_next_time(
    passkeys: Passkeys, accounts: Accounts, clock: Any
) -> None:
    ann = member(accounts)
    device = registered(passkeys, ann, "  my   phone ")
    [shown] = passkeys.list(ann)
    assert shown.to_json() == {
        "id": shown.id,
        "label": "my phone",
        "created_at": clock.now,
        "last_used": None,
        "transports": ["internal", "hybrid"],
    }
    again = passkeys.registration_options(ann, PARTY).public_key
    assert again["excludeCredentials"] == [
        {
            "id": b64(device.credential_id),
            "type": "public-key",
            "transports": ["internal", "hybrid"],
        }
    ]
    assert passkeys.list(member(accounts, "bob")) == []


def test_a_blank_label_is_passkey_and_a_long_one_is_refused(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann = member(accounts)
    registered(passkeys, ann, "")
    assert [p.label for p in passkeys.list(ann)] == ["passkey"]
    options = passkeys.registration_options(ann, PARTY)
    with pytest.raises(AccountError, match=f"longer than {MAX_PASSKEY_LABEL}"):
        passkeys.register(ann, PARTY, options.id, SoftAuthenticator().create(options), "x" * 81)
    with pytest.raises(AccountError, match="label"):
        passkeys.register(ann, PARTY, options.id, SoftAuthenticator().create(options), "a\u202eb")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"origin": "http://evil.example:8123"}, "origin"),
        ({"origin": "https://localhost:8123"}, "origin"),
        ({"rp_id": "evil.example"}, "RP ID"),
    ],
)
def test_registration_for_another_origin_or_rp_id_is_refused(
    passkeys: Passkeys, accounts: Accounts, changes: dict[str, str], message: str
) -> None:
    ann = member(accounts)
    options = passkeys.registration_options(ann, PARTY)
    answer = SoftAuthenticator().create(options, **changes)
    with pytest.raises(AccountError, match=message):
        passkeys.register(ann, PARTY, options.id, answer, "phone")
    assert passkeys.list(ann) == []


def test_a_registration_made_in_another_sites_frame_is_refused(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann = member(accounts)
    options = passkeys.registration_options(ann, PARTY)
    answer = SoftAuthenticator().create(options)
    client = json.loads(unb64(answer["response"]["clientDataJSON"]))
    answer["response"]["clientDataJSON"] = b64(json.dumps({**client, "crossOrigin": True}).encode())
    with pytest.raises(AccountError, match="frame"):
        passkeys.register(ann, PARTY, options.id, answer, "phone")


def test_a_registration_ceremony_is_used_once_and_only_by_its_member(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann, bob = member(accounts), member(accounts, "bob")
    options = passkeys.registration_options(ann, PARTY)
    with pytest.raises(AccountError, match="unknown or was used"):
        passkeys.register(bob, PARTY, options.id, SoftAuthenticator().create(options), "x")
    passkeys.register(ann, PARTY, options.id, SoftAuthenticator().create(options), "one")
    with pytest.raises(AccountError, match="unknown or was used"):
        passkeys.register(ann, PARTY, options.id, SoftAuthenticator().create(options), "two")
    assert [p.label for p in passkeys.list(ann)] == ["one"]


def test_an_expired_registration_ceremony_is_refused(
    passkeys: Passkeys, accounts: Accounts, clock: Any
) -> None:
    ann = member(accounts)
    options = passkeys.registration_options(ann, PARTY)
    clock.advance(PASSKEY_CHALLENGE_SECONDS + 1)
    with pytest.raises(AccountError, match="expired"):
        passkeys.register(ann, PARTY, options.id, SoftAuthenticator().create(options), "x")


def test_one_passkey_cannot_be_registered_twice(passkeys: Passkeys, accounts: Accounts) -> None:
    ann, bob = member(accounts), member(accounts, "bob")
    device = registered(passkeys, ann)
    options = passkeys.registration_options(bob, PARTY)
    with pytest.raises(GameStateError, match="registered here already"):
        passkeys.register(bob, PARTY, options.id, device.create(options), "stolen")


def test_a_member_has_at_most_max_passkeys(passkeys: Passkeys, accounts: Accounts) -> None:
    ann = member(accounts)
    for number in range(MAX_PASSKEYS):
        registered(passkeys, ann, f"key {number}")
    with pytest.raises(GameStateError, match="the most one account may have"):
        passkeys.registration_options(ann, PARTY)


# -- log-in -------------------------------------------------------------------------------------


def test_a_passkey_logs_its_member_in_without_a_name(
    passkeys: Passkeys, accounts: Accounts, clock: Any
) -> None:
    ann = member(accounts)
    device = registered(passkeys, ann)
    options = passkeys.login_options(PARTY)
    assert options.public_key["rpId"] == "localhost"
    assert options.public_key["allowCredentials"] == []
    assert options.public_key["userVerification"] == "preferred"
    clock.advance(10)
    new = passkeys.log_in(PARTY, options.id, device.get(options))
    assert new.member.id == ann.id
    assert accounts.member(new.token) == Member(ann.id, "ann", "passkey")
    [shown] = passkeys.list(ann)
    assert shown.last_used == clock.now
    with passkeys._store.session() as session:
        assert session.scalar(select(PasskeyRow.sign_count)) == device.counter == 2


def test_options_for_a_name_allow_that_members_passkeys_only(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann, bob = member(accounts), member(accounts, "bob")
    device = registered(passkeys, ann)
    bobs = registered(passkeys, bob)
    options = passkeys.login_options(PARTY, "ANN")
    assert [c["id"] for c in options.public_key["allowCredentials"]] == [b64(device.credential_id)]
    with pytest.raises(NotLoggedInError, match="not one of that member's"):
        passkeys.log_in(PARTY, options.id, bobs.get(options))
    # A name no member holds answers as no name does: nobody learns who is a member.
    unknown = passkeys.login_options(PARTY, "nobody")
    assert unknown.public_key["allowCredentials"] == []


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"origin": "http://evil.example:8123"}, "origin"),
        ({"origin": "http://localhost:9999"}, "origin"),
        ({"rp_id": "evil.example"}, "RP ID"),
    ],
)
def test_an_assertion_for_another_origin_or_rp_id_is_refused(
    passkeys: Passkeys, accounts: Accounts, changes: dict[str, str], message: str
) -> None:
    device = registered(passkeys, member(accounts))
    options = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match=message):
        passkeys.log_in(PARTY, options.id, device.get(options, **changes))


def test_a_hostile_host_cannot_make_another_origin_expected(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    # The web makes the party from the Host header when no public origin is set: an attacker's
    # Host names the attacker's site, and a passkey signs only for the site it was made on.
    device = registered(passkeys, member(accounts))
    hostile = RelyingParty.from_origin("http://evil.example:8123")
    # The member's browser on the real site signs the real origin: it does not match.
    options = passkeys.login_options(hostile)
    with pytest.raises(NotLoggedInError, match="origin"):
        passkeys.log_in(hostile, options.id, device.get(options, rp_id="localhost"))
    # Client data naming the attacker's origin: the authenticator still signs for localhost.
    options = passkeys.login_options(hostile)
    answer = device.get(options, origin=hostile.origin, rp_id="localhost")
    with pytest.raises(NotLoggedInError, match="RP ID"):
        passkeys.log_in(hostile, options.id, answer)


def test_a_replayed_assertion_and_challenge_are_refused(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    device = registered(passkeys, member(accounts))
    options = passkeys.login_options(PARTY)
    answer = device.get(options)
    passkeys.log_in(PARTY, options.id, answer)
    with pytest.raises(NotLoggedInError, match="unknown or was used"):
        passkeys.log_in(PARTY, options.id, answer)
    with pytest.raises(NotLoggedInError, match="unknown or was used"):
        passkeys.log_in(PARTY, options.id, device.get(options))
    # An old answer under a fresh ceremony: its challenge is not the fresh one.
    fresh = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match="challenge"):
        passkeys.log_in(
            PARTY, fresh.id, device.get(fresh, challenge=options.public_key["challenge"])
        )


def test_an_expired_login_ceremony_is_refused(
    passkeys: Passkeys, accounts: Accounts, clock: Any
) -> None:
    device = registered(passkeys, member(accounts))
    options = passkeys.login_options(PARTY)
    clock.advance(PASSKEY_CHALLENGE_SECONDS + 1)
    with pytest.raises(NotLoggedInError, match="expired"):
        passkeys.log_in(PARTY, options.id, device.get(options))


def test_a_signature_counter_that_goes_back_is_refused_as_a_clone(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    device = registered(passkeys, member(accounts))
    options = passkeys.login_options(PARTY)
    passkeys.log_in(PARTY, options.id, device.get(options))
    clone = SoftAuthenticator(key=device.key, credential_id=device.credential_id, counter=0)
    clone.user_handle = device.user_handle
    options = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match=r"counter did not go up \(1 after 2\)"):
        passkeys.log_in(PARTY, options.id, clone.get(options))
    # The real one, counting on, still logs in.
    options = passkeys.login_options(PARTY)
    assert passkeys.log_in(PARTY, options.id, device.get(options)).member.username == "ann"


def test_an_authenticator_that_does_not_count_logs_in_each_time(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann = member(accounts)
    device = SoftAuthenticator(counting=False)
    options = passkeys.registration_options(ann, PARTY)
    passkeys.register(ann, PARTY, options.id, device.create(options), "synced")
    for _ in range(2):
        options = passkeys.login_options(PARTY)
        assert passkeys.log_in(PARTY, options.id, device.get(options)).member.id == ann.id


def test_a_forged_signature_or_another_key_is_refused(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    device = registered(passkeys, member(accounts))
    impostor = SoftAuthenticator(credential_id=device.credential_id, counter=5)
    impostor.user_handle = device.user_handle
    options = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match="signature"):
        passkeys.log_in(PARTY, options.id, impostor.get(options))


def test_an_unknown_or_removed_passkey_does_not_log_in(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann = member(accounts)
    device = registered(passkeys, ann)
    [shown] = passkeys.list(ann)
    passkeys.remove(ann, shown.id)
    options = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match="not registered here"):
        passkeys.log_in(PARTY, options.id, device.get(options))


def test_a_user_handle_of_another_account_is_refused(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    device = registered(passkeys, member(accounts))
    device.user_handle = passkeys.user_handle(999)
    options = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match="does not match"):
        passkeys.log_in(PARTY, options.id, device.get(options))


# -- removing -----------------------------------------------------------------------------------


def test_only_ones_own_passkey_can_be_removed(passkeys: Passkeys, accounts: Accounts) -> None:
    ann, bob = member(accounts), member(accounts, "bob")
    registered(passkeys, ann)
    [anns] = passkeys.list(ann)
    with pytest.raises(NotFoundError, match=f"no passkey {anns.id}"):
        passkeys.remove(bob, anns.id)
    with pytest.raises(NotFoundError):
        passkeys.remove(ann, anns.id + 100)
    assert passkeys.list(ann) == [anns]
    with pytest.raises(AccountError, match="a number"):
        passkeys.remove(ann, "1")  # type: ignore[arg-type]
    passkeys.remove(ann, anns.id)
    assert passkeys.list(ann) == []


def test_a_member_without_a_password_keeps_their_last_passkey(
    passkeys: Passkeys, accounts: Accounts, store: Store
) -> None:
    ann = member(accounts)
    registered(passkeys, ann, "one")
    registered(passkeys, ann, "two")
    with store.session() as session:
        session.execute(update(AccountRow).values(password_hash=None))
    first, second = passkeys.list(ann)
    passkeys.remove(ann, first.id)
    with pytest.raises(GameStateError, match="only way to log in"):
        passkeys.remove(ann, second.id)
    assert passkeys.list(ann) == [second]


# -- bounds -------------------------------------------------------------------------------------


def challenges(store: Store, **where: Any) -> int:
    with store.session() as session:
        query = select(func.count()).select_from(AuthChallengeRow).filter_by(**where)
        return session.scalar(query) or 0


def test_a_member_has_a_bounded_number_of_ceremonies_under_way(
    passkeys: Passkeys, accounts: Accounts, store: Store, clock: Any
) -> None:
    ann = member(accounts)
    first = passkeys.registration_options(ann, PARTY)
    for _ in range(PASSKEY_CHALLENGES_PER_MEMBER + 3):
        clock.advance(1)
        last = passkeys.registration_options(ann, PARTY)
    assert challenges(store, account_id=ann.id) == PASSKEY_CHALLENGES_PER_MEMBER
    with pytest.raises(AccountError, match="unknown or was used"):
        passkeys.register(ann, PARTY, first.id, SoftAuthenticator().create(first), "old")
    passkeys.register(ann, PARTY, last.id, SoftAuthenticator().create(last), "new")


def test_expired_ceremonies_are_dropped_and_the_server_keeps_a_bounded_number(
    passkeys: Passkeys, store: Store, clock: Any
) -> None:
    for _ in range(3):
        passkeys.login_options(PARTY)
    clock.advance(PASSKEY_CHALLENGE_SECONDS + 1)
    passkeys.login_options(PARTY)
    assert challenges(store) == 1
    # Fill the table to its bound in one statement, then ask once more: the oldest goes.
    with store.session() as session:
        session.execute(
            insert(AuthChallengeRow),
            [
                {
                    "id": f"filler{n:010d}x",
                    "challenge": "AAAA",
                    "purpose": "login",
                    "created_at": clock.now - 1,
                }
                for n in range(PASSKEY_CHALLENGES)
            ],
        )
    passkeys.login_options(PARTY)
    assert challenges(store) == PASSKEY_CHALLENGES


def good_login(passkeys: Passkeys, accounts: Accounts) -> tuple[Ceremony, dict[str, Any]]:
    device = registered(passkeys, member(accounts))
    options = passkeys.login_options(PARTY)
    return options, device.get(options)


#: Ways to spoil an assertion before anything parses it, each with what the refusal says.
MALFORMED: list[tuple[Any, str]] = [
    (lambda c: "not an object", "credential must be an object"),
    (lambda c: {**c, "type": "password"}, "'public-key'"),
    (lambda c: {**c, "id": "other"}, "id must equal"),
    (lambda c: {**c, "response": []}, "response must be an object"),
    (lambda c: {**c, "rawId": "A" * (MAX_CREDENTIAL_ID + 1)}, "at most"),
    (lambda c: {**c, "response": {**c["response"], "signature": 12}}, "signature must be"),
    (lambda c: {**c, "response": {**c["response"], "signature": "a+b/"}}, "not base64url"),
    (lambda c: {**c, "response": {**c["response"], "signature": "abcde"}}, "not base64url"),
    (
        lambda c: {
            **c,
            "response": {**c["response"], "clientDataJSON": "A" * (PASSKEY_BODY_BYTES + 4)},
        },
        "at most",
    ),
    (lambda c: {**c, "response": {**c["response"], "clientDataJSON": b64(b"[1")}}, "not JSON"),
]


def test_a_malformed_assertion_is_a_clear_400(passkeys: Passkeys, accounts: Accounts) -> None:
    options, answer = good_login(passkeys, accounts)
    # Each is refused before the ceremony is used (but the last, which uses it): one serves all.
    for spoil, message in MALFORMED:
        with pytest.raises(AccountError, match=message):
            passkeys.log_in(PARTY, options.id, spoil(answer))


def test_garbage_bytes_in_a_well_formed_answer_are_refused_not_raised(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    options, answer = good_login(passkeys, accounts)
    answer["response"]["authenticatorData"] = b64(b"short")
    with pytest.raises(NotLoggedInError, match="malformed"):
        passkeys.log_in(PARTY, options.id, answer)
    ann = accounts.by_name("ann")
    assert ann is not None
    options = passkeys.registration_options(ann, PARTY)
    created = SoftAuthenticator().create(options)
    created["response"]["attestationObject"] = b64(b"\xff\x00garbage")
    with pytest.raises(AccountError, match="refused"):
        passkeys.register(ann, PARTY, options.id, created, "x")


def test_a_bad_ceremony_id_is_a_clear_400(passkeys: Passkeys, accounts: Accounts) -> None:
    _, answer = good_login(passkeys, accounts)
    for ceremony in [None, 12, "", "short", "x" * 65, "a b c d e f g h i j k"]:
        with pytest.raises(AccountError, match="ceremony must be"):
            passkeys.log_in(PARTY, ceremony, answer)


@pytest.mark.parametrize(
    ("origin", "message"),
    [
        ("http://127.0.0.1:8000", "not an IP address"),
        ("http://[::1]:8000", "not an IP address"),
        ("ftp://boggle.example", "must be like"),
        ("https://boggle.example/path", "must be like"),
        ("https://user@boggle.example", "must be like"),
        ("https://bad_host.example", "not a host name"),
        ("https://boggle.example:99999", "bad port"),
        ("x" * 10_000, "must be like"),
        (None, "must be like"),
    ],
)
def test_a_bad_origin_is_refused_by_name(origin: Any, message: str) -> None:
    with pytest.raises(AccountError, match=message):
        RelyingParty.from_origin(origin)


def test_origins_are_normalised_as_browsers_write_them() -> None:
    assert RelyingParty.from_origin("HTTPS://Boggle.Example:443/") == RelyingParty(
        "https://boggle.example", "boggle.example"
    )
    assert RelyingParty.from_origin("http://localhost:8000") == RelyingParty(
        "http://localhost:8000", "localhost"
    )


# -- over HTTP ------------------------------------------------------------------------------------

WEB = RelyingParty.from_origin("http://testserver")


@pytest.fixture
def client(db_url: str, clock: Any) -> Any:
    from fastapi.testclient import TestClient

    from bigboggle.web import create_app

    return TestClient(create_app(db_url, clock=clock))


def web_member(client: Any, name: str = "ann") -> None:
    answer = client.post("/api/account", json={"username": name, "password": PASSWORD})
    assert answer.status_code == 201, answer.text


def web_register(client: Any, device: SoftAuthenticator, label: str = "laptop") -> dict[str, Any]:
    options = client.post("/api/passkeys/register/options", json={})
    assert options.status_code == 200, options.text
    ceremony = Ceremony(options.json()["ceremony"], options.json()["publicKey"])
    answer = client.post(
        "/api/passkeys/register",
        json={
            "ceremony": ceremony.id,
            "credential": device.create(ceremony, origin=WEB.origin),
            "label": label,
        },
    )
    assert answer.status_code == 201, answer.text
    found: dict[str, Any] = answer.json()
    return found


def web_login(client: Any, device: SoftAuthenticator, **body: Any) -> Any:
    options = client.post("/api/passkeys/login/options", json=body)
    assert options.status_code == 200, options.text
    ceremony = Ceremony(options.json()["ceremony"], options.json()["publicKey"])
    credential = device.get(ceremony, origin=WEB.origin)
    return client.post(
        "/api/passkeys/login", json={"ceremony": ceremony.id, "credential": credential}
    )


def test_a_member_adds_a_passkey_logs_out_and_in_with_it_then_removes_it(client: Any) -> None:
    web_member(client)
    device = SoftAuthenticator()
    added = web_register(client, device)
    assert added["label"] == "laptop"
    assert client.get("/api/passkeys").json() == {"passkeys": [added]}
    password_cookie = client.cookies.get("bigboggle_session")
    assert client.delete("/api/session").status_code == 204
    assert client.get("/api/me").status_code == 401
    answer = web_login(client, device)
    assert answer.status_code == 200, answer.text
    assert answer.json()["username"] == "ann"
    assert answer.headers["cache-control"] == "no-store"
    cookie = client.cookies.get("bigboggle_session")
    assert cookie and cookie != password_cookie
    me = client.get("/api/me").json()
    assert (me["username"], me["method"], me["passkeys"]) == ("ann", "passkey", 1)
    assert client.get("/api/passkeys").json()["passkeys"][0]["last_used"] is not None
    assert client.delete(f"/api/passkeys/{added['id']}").status_code == 204
    assert client.get("/api/passkeys").json() == {"passkeys": []}
    client.delete("/api/session")
    refused = web_login(client, device)
    assert refused.status_code == 401
    assert "not registered here" in refused.json()["error"]
    assert "bigboggle_session" not in client.cookies


def test_the_list_and_registration_need_a_member(client: Any) -> None:
    assert client.get("/api/passkeys").status_code == 401
    assert client.post("/api/passkeys/register/options", json={}).status_code == 401
    assert client.delete("/api/passkeys/1").status_code == 401
    web_member(client)
    other = client.delete("/api/passkeys/1")
    assert other.status_code == 404
    assert client.delete("/api/passkeys/0").status_code == 400


def test_passkey_requests_are_bounded_and_guarded(client: Any) -> None:
    huge = {"ceremony": "x" * 32, "credential": {"id": "A" * PASSKEY_BODY_BYTES}}
    assert client.post("/api/passkeys/login", json=huge).status_code == 413
    typed = client.post(
        "/api/passkeys/login/options", content=b"{}", headers={"Content-Type": "text/plain"}
    )
    assert typed.status_code == 415
    extra = client.post("/api/passkeys/login/options", json={"user": "ann"})
    assert extra.status_code == 400 and "user" in extra.json()["error"]
    elsewhere = client.post(
        "/api/passkeys/login/options", json={}, headers={"Origin": "https://evil.example"}
    )
    assert elsewhere.status_code == 403
    garbage = client.post("/api/passkeys/login", json={"ceremony": "x" * 32, "credential": {}})
    assert garbage.status_code == 400 and "rawId" in garbage.json()["error"]


def test_an_ip_address_host_is_told_to_use_the_sites_name(client: Any) -> None:
    answer = client.post("/api/passkeys/login/options", json={}, headers={"Host": "127.0.0.1:8000"})
    assert answer.status_code == 400
    assert "localhost" in answer.json()["error"]


def test_the_public_origin_decides_whatever_the_host_says(db_url: str, clock: Any) -> None:
    from fastapi.testclient import TestClient

    from bigboggle.web import create_app

    app = create_app(db_url, clock=clock, public_origin="https://Boggle.Example")
    client = TestClient(app, base_url="https://boggle.example")
    answer = client.post("/api/passkeys/login/options", json={}, headers={"Host": "evil.example"})
    assert answer.status_code == 200
    assert answer.json()["publicKey"]["rpId"] == "boggle.example"


def test_a_bad_public_origin_is_refused_naming_the_variable(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from bigboggle.web import create_app

    monkeypatch.setenv("BIGBOGGLE_PUBLIC_ORIGIN", "http://10.0.0.2:8000")
    with pytest.raises(
        AccountError, match="BIGBOGGLE_PUBLIC_ORIGIN: passkeys need the site's name"
    ):
        create_app(db_url)


def test_openapi_documents_every_passkey_route(client: Any) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    expected = {
        ("/api/passkeys/register/options", "post"): {"200", "401", "409"},
        ("/api/passkeys/register", "post"): {"201", "401", "409"},
        ("/api/passkeys/login/options", "post"): {"200"},
        ("/api/passkeys/login", "post"): {"200", "401"},
        ("/api/passkeys", "get"): {"200", "401"},
        ("/api/passkeys/{passkey_id}", "delete"): {"204", "401", "404", "409"},
    }
    for (path, method), statuses in expected.items():
        documented = paths[path][method]
        assert statuses | {"400", "403", "413", "415"} <= set(documented["responses"]), path
        assert documented["summary"]
    body = paths["/api/passkeys/login"]["post"]["requestBody"]["content"]["application/json"]
    assert set(body["schema"]["properties"]) == {"ceremony", "credential"}
    # A passkey's id is a number: the ceremonies' paths are not taken for one.
    wrong = client.put("/api/passkeys/login", json={})
    assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
    assert client.delete("/api/passkeys/phone").status_code == 404


def test_a_deleted_members_passkey_logs_no_one_in(passkeys: Passkeys, accounts: Accounts) -> None:
    ann = member(accounts)
    device = registered(passkeys, ann)
    accounts.delete(ann, PASSWORD)
    options = passkeys.login_options(PARTY)
    with pytest.raises(NotLoggedInError, match="not registered here"):
        passkeys.log_in(PARTY, options.id, device.get(options))


def test_a_registration_whose_id_is_not_the_attested_one_is_refused(
    passkeys: Passkeys, accounts: Accounts
) -> None:
    ann = member(accounts)
    options = passkeys.registration_options(ann, PARTY)
    answer = SoftAuthenticator().create(options)
    other = b64(secrets.token_bytes(16))
    answer.update(id=other, rawId=other)
    with pytest.raises(AccountError, match="not the one it attested"):
        passkeys.register(ann, PARTY, options.id, answer, "x")


def test_the_ceremonies_on_postgresql(clock: Any) -> None:
    from conftest import postgres_schema

    with postgres_schema("test_passkeys", migrated=True) as url:
        store = Store(url)
        try:
            accounts = Accounts(store, clock, hasher=cheap_hasher())
            passkeys = Passkeys(store, clock, accounts)
            ann = member(accounts)
            device = registered(passkeys, ann)
            for _ in range(PASSKEY_CHALLENGES_PER_MEMBER + 1):
                clock.advance(1)
                passkeys.registration_options(ann, PARTY)
            assert challenges(store, account_id=ann.id) == PASSKEY_CHALLENGES_PER_MEMBER
            options = passkeys.login_options(PARTY, "ann")
            assert passkeys.log_in(PARTY, options.id, device.get(options)).member.id == ann.id
            with pytest.raises(NotLoggedInError, match="unknown or was used"):
                passkeys.log_in(PARTY, options.id, device.get(options))
            [shown] = passkeys.list(ann)
            assert shown.last_used == clock.now
            passkeys.remove(ann, shown.id)
            assert passkeys.list(ann) == []
        finally:
            store.close()


def test_one_address_starts_a_bounded_number_of_passkey_log_ins(client: Any, clock: Any) -> None:
    for _ in range(PASSKEY_LOGINS_PER_ADDRESS_MINUTE):
        assert client.post("/api/passkeys/login/options", json={}).status_code == 200
    clock.advance(20)
    refused = client.post("/api/passkeys/login/options", json={})
    assert refused.status_code == 429
    assert refused.headers["retry-after"] == "40"
    assert "passkey log-ins from this address" in refused.json()["error"]
    clock.advance(40)
    assert client.post("/api/passkeys/login/options", json={}).status_code == 200


# -- recent authentication, passkeys after a password change, limits per /64, bad hosts --------


def test_a_stolen_older_session_cannot_add_or_remove_a_passkey(client: Any, clock: Any) -> None:
    web_member(client)
    mine = web_register(client, SoftAuthenticator(), "mine")  # just signed up: recent
    clock.advance(RECENT_AUTH_SECONDS + 1)  # the session is a thief's now, or just old
    refused = client.post("/api/passkeys/register/options", json={})
    assert refused.status_code == 401
    assert "confirm it is you" in refused.json()["error"]
    assert client.delete(f"/api/passkeys/{mine['id']}").status_code == 401
    wrong = client.post("/api/passkeys/register/options", json={"password": "not the password"})
    assert wrong.status_code == 401 and "password is wrong" in wrong.json()["error"]
    removal = client.request(
        "DELETE", f"/api/passkeys/{mine['id']}", json={"password": "not the password"}
    )
    assert removal.status_code == 401
    assert client.get("/api/passkeys").json()["passkeys"] == [mine]  # nothing changed
    # The password, or a fresh log-in, says it is the member.
    options = client.post("/api/passkeys/register/options", json={"password": PASSWORD})
    assert options.status_code == 200, options.text
    removal = client.request("DELETE", f"/api/passkeys/{mine['id']}", json={"password": PASSWORD})
    assert removal.status_code == 204
    assert (
        client.post("/api/session", json={"username": "ann", "password": PASSWORD}).status_code
        == 200
    )
    web_register(client, SoftAuthenticator(), "again")


def test_a_password_change_keeps_passkeys_unless_asked_to_remove_them(
    client: Any, store: Store
) -> None:
    web_member(client)
    device = SoftAuthenticator()
    web_register(client, device, "maybe a thief's")
    kept = client.post("/api/me/password", json={"old": PASSWORD, "new": PASSWORD + " two"})
    assert kept.status_code == 200 and kept.json()["passkeys"] == 1
    gone = client.post(
        "/api/me/password",
        json={"old": PASSWORD + " two", "new": PASSWORD + " three", "remove_passkeys": True},
    )
    assert gone.status_code == 200 and gone.json()["passkeys"] == 0
    client.delete("/api/session")
    assert web_login(client, device).status_code == 401  # the thief's way back is gone
    bad = client.post("/api/me/password", json={"old": "x", "new": "y", "remove_passkeys": "yes"})
    assert bad.status_code in (400, 401)


def test_a_passkey_only_member_deletes_the_account_after_a_fresh_passkey_log_in(
    client: Any, clock: Any
) -> None:
    web_member(client)
    device = SoftAuthenticator()
    web_register(client, device)
    without = client.request("DELETE", "/api/me", json={})
    assert without.status_code == 401 and "passkey" in without.json()["error"]  # a password session
    client.delete("/api/session")
    assert web_login(client, device).status_code == 200
    clock.advance(RECENT_AUTH_SECONDS + 1)
    late = client.request("DELETE", "/api/me", json={})
    assert late.status_code == 401
    client.delete("/api/session")
    assert web_login(client, device).status_code == 200
    done = client.request("DELETE", "/api/me", json={"password": None})
    assert done.status_code == 200 and done.json() == {"deleted": "ann"}
    assert client.get("/api/me").status_code == 401


def test_passkey_log_ins_are_limited_per_ipv6_slash_64(db_url: str, clock: Any) -> None:
    from fastapi.testclient import TestClient

    from bigboggle.web import create_app

    app = create_app(db_url, clock=clock)
    for number in range(PASSKEY_LOGINS_PER_ADDRESS_MINUTE):
        neighbour = TestClient(app, client=(f"2001:db8:5:5::{number + 1:x}", 4000))
        assert neighbour.post("/api/passkeys/login/options", json={}).status_code == 200
    same_net = TestClient(app, client=("2001:db8:5:5:abcd::1", 4000))
    assert same_net.post("/api/passkeys/login/options", json={}).status_code == 429
    other_net = TestClient(app, client=("2001:db8:5:6::1", 4000))
    assert other_net.post("/api/passkeys/login/options", json={}).status_code == 200


def test_a_malformed_host_is_a_clear_400_for_every_ceremony(client: Any) -> None:
    web_member(client)
    for host in ["[", "[::1", "a]b", "x:99999"]:
        for path in ("/api/passkeys/login/options", "/api/passkeys/register/options"):
            answer = client.post(path, json={}, headers={"Host": host})
            assert answer.status_code == 400, (host, path, answer.text)
            assert "origin" in answer.json()["error"]
        with pytest.raises(AccountError, match="origin"):
            RelyingParty.from_origin(f"http://{host}")

"""Passkeys: WebAuthn credentials as a second way for a member to log in, through ``webauthn``
(py_webauthn).

Two ceremonies, each in two steps. *Registration* (a logged-in member adds a passkey):
:meth:`Passkeys.registration_options` hands the browser a challenge for
``navigator.credentials.create()``; :meth:`Passkeys.register` checks the authenticator's answer
(origin, RP ID, the challenge, attestation "none") and keeps the credential's id and public key.
*Log-in* (no one logged in): :meth:`Passkeys.login_options` asks for any passkey of this site
(discoverable credentials: no user name needed) or one of a named member's;
:meth:`Passkeys.log_in` checks the signature with the stored public key, and the signature
counter, then starts a session through :meth:`Accounts.start_session`.

Each challenge is a row (:class:`~.store.AuthChallengeRow`): used once (deleted when its answer
arrives, whatever the verdict), good for :data:`~bigboggle.limits.PASSKEY_CHALLENGE_SECONDS`,
at most :data:`~bigboggle.limits.PASSKEY_CHALLENGES_PER_MEMBER` under way per member and
:data:`~bigboggle.limits.PASSKEY_CHALLENGES` on the server (older ones are dropped), so what a
stranger asks for stays bounded.

Where the ceremony happens is a :class:`RelyingParty`: the site's origin and its RP ID (the
host name). The web front end makes it from the operator's ``BIGBOGGLE_PUBLIC_ORIGIN``, or from
the request's own scheme and ``Host``; the browser signs the origin it really is on into
``clientDataJSON`` and the RP ID's hash into the authenticator data, and both must equal the
expected ones exactly, so a hostile ``Host`` header gains nothing: a passkey only signs for the
site it was made on.

The user handle an authenticator keeps with a passkey is not the account id in clear: it is
HMAC-SHA256 of the account id under a server secret (setting ``passkey_user_secret``), stable
for the account and meaningless to anyone else.

Failures are the library's errors (:mod:`bigboggle.errors`): a malformed request is an
:class:`~bigboggle.errors.AccountError` (400), a refused log-in a
:class:`~bigboggle.errors.NotLoggedInError` (401), never a traceback.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import json
import re
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import delete, func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session
from webauthn import (
    generate_authentication_options,
    generate_registration_options,
    verify_authentication_response,
    verify_registration_response,
)
from webauthn.helpers import bytes_to_base64url, options_to_json_dict, parse_authenticator_data
from webauthn.helpers.structs import (
    AttestationConveyancePreference,
    AuthenticatorSelectionCriteria,
    AuthenticatorTransport,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from ..errors import (
    AccountError,
    GameStateError,
    NotFoundError,
    NotLoggedInError,
    RoundInputError,
    quoted,
)
from ..limits import (
    MAX_CREDENTIAL_ID,
    MAX_NAME_LENGTH,
    MAX_PASSKEY_LABEL,
    MAX_PASSKEYS,
    PASSKEY_BODY_BYTES,
    PASSKEY_CHALLENGE_SECONDS,
    PASSKEY_CHALLENGES,
    PASSKEY_CHALLENGES_PER_MEMBER,
)
from ..names import clean_name
from .accounts import Accounts, Member, NewSession
from .store import AccountRow, AuthChallengeRow, PasskeyRow, Store

#: How long the browser is told it may take (milliseconds): well within the challenge's life.
CEREMONY_TIMEOUT_MS = 120_000
#: The setting that holds the secret of the user handles.
HANDLE_SECRET = "passkey_user_secret"
#: What a ceremony's id looks like (``secrets.token_urlsafe(24)``: 32 characters).
_CEREMONY = re.compile(r"[A-Za-z0-9_-]{16,64}")
_BASE64URL = re.compile(r"[A-Za-z0-9_-]*")
#: A host name as an RP ID: dot-separated labels of letters, digits and inner hyphens.
_LABEL = r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?"
_HOST_NAME = re.compile(rf"{_LABEL}(?:\.{_LABEL})*")
_TRANSPORTS = frozenset(transport.value for transport in AuthenticatorTransport)
#: Most transports kept for one passkey (there are six kinds).
_MAX_TRANSPORTS = 8


@dataclass(frozen=True)
class RelyingParty:
    """Where a ceremony happens: the site's ``origin`` as a browser writes it
    (``https://boggle.example``, ``http://localhost:8000``) and its ``rp_id`` (the host name)."""

    origin: str
    rp_id: str

    @classmethod
    def from_origin(cls, origin: object) -> RelyingParty:
        """The party of ``origin`` (``scheme://host[:port]``, nothing after it), normalised as
        browsers serialise origins (lower-case host, no default port). :class:`AccountError`
        says what is wrong: not http(s), a path, an IP address (browsers refuse an IP address
        as an RP ID: open the site by its name, ``localhost`` on this machine)."""
        if not isinstance(origin, str) or not origin or len(origin) > 300:
            raise AccountError(
                f"the site's origin must be like https://boggle.example, not {quoted(origin)}"
            )
        try:
            parts = urlsplit(origin)
        except ValueError:
            raise AccountError(
                f"the site's origin must be like https://boggle.example, not {quoted(origin)}"
            ) from None
        if (
            parts.scheme not in ("http", "https")
            or parts.path not in ("", "/")
            or parts.query
            or parts.fragment
            or "@" in parts.netloc
        ):
            raise AccountError(
                f"the site's origin must be like https://boggle.example, not {quoted(origin)}"
            )
        try:
            host, port = parts.hostname, parts.port
        except ValueError:
            raise AccountError(f"the site's origin has a bad port: {quoted(origin)}") from None
        if not host:
            raise AccountError(f"the site's origin has no host: {quoted(origin)}")
        if _is_ip_address(host):
            raise AccountError(
                f"passkeys need the site's name, not an IP address ({quoted(host)}): "
                "open it as http://localhost:PORT or by its domain name"
            )
        if len(host) > 253 or not _HOST_NAME.fullmatch(host):
            raise AccountError(f"the site's host {quoted(host)} is not a host name")
        default = 443 if parts.scheme == "https" else 80
        shown = host if port in (None, default) else f"{host}:{port}"
        return cls(origin=f"{parts.scheme}://{shown}", rp_id=host)


def _is_ip_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


@dataclass(frozen=True)
class PasskeyView:
    """One of a member's passkeys, as the account page lists it (no key material)."""

    id: int
    label: str
    created_at: float
    last_used: float | None
    transports: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "created_at": self.created_at,
            "last_used": self.last_used,
            "transports": list(self.transports),
        }


@dataclass(frozen=True)
class Ceremony:
    """A ceremony started: its ``id`` (sent back with the authenticator's answer) and the
    options for ``navigator.credentials.create()`` / ``.get()``, as WebAuthn's JSON form
    (``PublicKeyCredentialCreationOptionsJSON``, ``…RequestOptionsJSON``)."""

    id: str
    public_key: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {"ceremony": self.id, "publicKey": self.public_key}


@dataclass(frozen=True)
class _Challenge:
    """A challenge taken out of the store (so used): what it was for, for whom, and when."""

    challenge: bytes
    account_id: int | None
    created_at: float


class Passkeys:
    """Members' passkeys on ``store``: registering, listing, removing, and logging in with
    them (sessions started by ``accounts``). ``clock`` gives "now" (seconds since the epoch);
    ``rp_name`` is the name an authenticator shows for this site."""

    def __init__(
        self,
        store: Store,
        clock: Callable[[], float] = time.time,
        accounts: Accounts | None = None,
        rp_name: str = "bigboggle",
        *,
        public_origin: str | None = None,
    ) -> None:
        self._store = store
        self._clock = clock
        self._accounts = accounts if accounts is not None else Accounts(store, clock)
        self._rp_name = rp_name
        self._secret: bytes | None = None
        #: The operator's origin of the site (``BIGBOGGLE_PUBLIC_ORIGIN``), if set: then every
        #: ceremony is for it, whatever a request's ``Host`` says.
        self.public_party = RelyingParty.from_origin(public_origin) if public_origin else None

    def party_for(self, request_origin: str) -> RelyingParty:
        """The party a request's ceremony is for: the operator's :attr:`public_party` if set,
        else the one of ``request_origin`` (``scheme://Host`` of the request), which is right
        when the browser reaches this server directly. Behind a proxy that changes the scheme
        or the host, the operator sets the public origin (or the ceremonies fail: the origin
        the browser signs is not the one expected)."""
        if self.public_party is not None:
            return self.public_party
        return RelyingParty.from_origin(request_origin)

    # -- registration -----------------------------------------------------------------------------

    def registration_options(self, member: Member, party: RelyingParty) -> Ceremony:
        """A registration ceremony for ``member``: the options exclude the passkeys they have
        (an authenticator holding one says so instead of making a second), ask for a
        discoverable credential (so log-in needs no name), user verification preferred and no
        attestation. :class:`GameStateError` (409) once they have :data:`MAX_PASSKEYS`."""
        with self._store.session() as session:
            held = session.scalars(
                select(PasskeyRow).where(PasskeyRow.account_id == member.id)
            ).all()
        if len(held) >= MAX_PASSKEYS:
            raise GameStateError(
                f"you have {len(held)} passkeys, the most one account may have: remove one first"
            )
        ceremony, challenge = self._issue("register", member.id)
        options = generate_registration_options(
            rp_id=party.rp_id,
            rp_name=self._rp_name,
            user_name=member.username,
            user_id=self.user_handle(member.id),
            user_display_name=member.username,
            challenge=challenge,
            timeout=CEREMONY_TIMEOUT_MS,
            attestation=AttestationConveyancePreference.NONE,
            authenticator_selection=AuthenticatorSelectionCriteria(
                resident_key=ResidentKeyRequirement.REQUIRED,
                user_verification=UserVerificationRequirement.PREFERRED,
            ),
            exclude_credentials=[_descriptor(row) for row in held],
        )
        return Ceremony(ceremony, options_to_json_dict(options))

    def register(
        self,
        member: Member,
        party: RelyingParty,
        ceremony: object,
        credential: object,
        label: object = "",
    ) -> PasskeyView:
        """Keep the passkey that ``credential`` (``PublicKeyCredential.toJSON()`` of
        ``navigator.credentials.create()``) made in ``ceremony``, under ``label`` (at most
        :data:`MAX_PASSKEY_LABEL` characters; "passkey" if blank). :class:`AccountError` (400)
        says what is wrong with a refused one (malformed, another origin or RP ID, an unknown,
        used or expired ceremony); :class:`GameStateError` (409) for a passkey registered
        already."""
        name = _label(label)
        answer = _registration_credential(credential)
        challenge = self._consume(ceremony, "register", member.id, AccountError)
        _check_client_data(answer, "webauthn.create", AccountError)
        try:
            verified = verify_registration_response(
                credential=answer,
                expected_challenge=challenge.challenge,
                expected_rp_id=party.rp_id,
                expected_origin=party.origin,
                require_user_verification=False,
            )
        except Exception as exc:  # the library's verdict on a stranger's bytes, whatever it is
            raise AccountError(f"the passkey was refused: {_reason(exc)}") from None
        if verified.credential_id != _decode(answer["rawId"], "credential.rawId"):
            raise AccountError("the passkey was refused: its id is not the one it attested")
        transports = _transports(answer["response"].get("transports"))
        row = PasskeyRow(
            account_id=member.id,
            credential_id=bytes_to_base64url(verified.credential_id),
            public_key=bytes_to_base64url(verified.credential_public_key),
            sign_count=verified.sign_count,
            label=name,
            transports=list(transports),
            created_at=self._clock(),
            last_used=None,
        )
        try:
            with self._store.write_session() as session:
                count = session.scalar(
                    select(func.count())
                    .select_from(PasskeyRow)
                    .where(PasskeyRow.account_id == member.id)
                )
                if (count or 0) >= MAX_PASSKEYS:
                    raise GameStateError(
                        f"you have {count} passkeys, the most one account may have: remove one first"
                    )
                session.add(row)
                session.flush()
        except IntegrityError:
            raise GameStateError("this passkey is registered here already") from None
        return _view(row)

    # -- log-in -----------------------------------------------------------------------------------

    def login_options(self, party: RelyingParty, username: object = None) -> Ceremony:
        """A log-in ceremony: for any passkey of this site (no ``username``: the authenticator
        offers the ones it holds), or for the passkeys of member ``username``. A name no
        member holds, or a member without passkeys, gets the same answer as no name; but for
        a member with passkeys ``allowCredentials`` lists their credential ids, so this does
        tell who has passkeys (and their ids, which are not secrets). Profiles and the
        sign-up's 409 tell who is a member anyway."""
        account_id: int | None = None
        allowed: list[PublicKeyCredentialDescriptor] = []
        if username is not None and username != "":
            if not isinstance(username, str) or len(username) > MAX_NAME_LENGTH * 4:
                raise AccountError(f"username must be a member's name, not {quoted(username)}")
            member = self._accounts.by_name(username)
            if member is not None:
                with self._store.session() as session:
                    rows = session.scalars(
                        select(PasskeyRow).where(PasskeyRow.account_id == member.id)
                    ).all()
                    allowed = [_descriptor(row) for row in rows]
                if allowed:
                    account_id = member.id
        ceremony, challenge = self._issue("login", account_id)
        options = generate_authentication_options(
            rp_id=party.rp_id,
            challenge=challenge,
            timeout=CEREMONY_TIMEOUT_MS,
            allow_credentials=allowed,
            user_verification=UserVerificationRequirement.PREFERRED,
        )
        return Ceremony(ceremony, options_to_json_dict(options))

    def log_in(self, party: RelyingParty, ceremony: object, credential: object) -> NewSession:
        """A session for the member whose passkey signed ``ceremony``'s challenge
        (``credential``: ``PublicKeyCredential.toJSON()`` of ``navigator.credentials.get()``).
        The signature is checked with the stored public key, the origin and RP ID against
        ``party``, and the signature counter must go up (an authenticator that counts and
        answers a count no higher than the last one may be a clone: refused). Then the
        passkey's counter and last use are kept. :class:`AccountError` (400) for a malformed
        answer; :class:`NotLoggedInError` (401) for a refused one."""
        answer = _authentication_credential(credential)
        challenge = self._consume(ceremony, "login", None, NotLoggedInError)
        _check_client_data(answer, "webauthn.get", NotLoggedInError)
        credential_id = _canonical_id(answer["rawId"])
        with self._store.session() as session:
            row = session.scalar(
                select(PasskeyRow).where(PasskeyRow.credential_id == credential_id)
            )
        if row is None:
            raise NotLoggedInError("this passkey is not registered here (it may have been removed)")
        if challenge.account_id is not None and challenge.account_id != row.account_id:
            raise NotLoggedInError("this passkey is not one of that member's")
        handle = answer["response"].get("userHandle")
        if handle and not hmac.compare_digest(
            _decode(handle, "userHandle"), self.user_handle(row.account_id)
        ):
            raise NotLoggedInError("this passkey's user does not match its registration")
        new_count = _sign_count(answer["response"]["authenticatorData"])
        if (new_count > 0 or row.sign_count > 0) and new_count <= row.sign_count:
            raise NotLoggedInError(
                f"this passkey's signature counter did not go up ({new_count} after "
                f"{row.sign_count}): a copy of it may be in use elsewhere, so it is refused"
            )
        try:
            verified = verify_authentication_response(
                credential=answer,
                expected_challenge=challenge.challenge,
                expected_rp_id=party.rp_id,
                expected_origin=party.origin,
                credential_public_key=_decode(row.public_key, "public key"),
                credential_current_sign_count=row.sign_count,
                require_user_verification=False,
            )
        except Exception as exc:  # the library's verdict on a stranger's bytes, whatever it is
            raise NotLoggedInError(f"the passkey was refused: {_reason(exc)}") from None
        self._used(row, verified.new_sign_count)
        try:
            return self._accounts.start_session(row.account_id, "passkey")
        except NotFoundError:  # the account was deleted meanwhile, its passkeys with it
            raise NotLoggedInError("this passkey's account no longer exists") from None

    def _used(self, row: PasskeyRow, new_count: int) -> None:
        """Keep the counter and the time of a passkey's log-in. With a counting authenticator,
        only if no other log-in moved the counter meanwhile (two answers with one count: the
        second is refused, as a clone's would be)."""
        change = (
            update(PasskeyRow)
            .where(PasskeyRow.id == row.id)
            .values(sign_count=new_count, last_used=self._clock())
        )
        if new_count > 0:
            change = change.where(PasskeyRow.sign_count == row.sign_count)
        with self._store.write_session() as session:
            done = session.execute(change).rowcount  # type: ignore[attr-defined]
        if not done:
            raise NotLoggedInError("this passkey was used at the same moment elsewhere: refused")

    # -- the member's list ------------------------------------------------------------------------

    def list(self, member: Member) -> list[PasskeyView]:
        """``member``'s passkeys, oldest first."""
        with self._store.session() as session:
            rows = session.scalars(
                select(PasskeyRow)
                .where(PasskeyRow.account_id == member.id)
                .order_by(PasskeyRow.created_at, PasskeyRow.id)
            ).all()
            return [_view(row) for row in rows]

    def remove(self, member: Member, passkey_id: object) -> None:
        """Remove ``member``'s passkey ``passkey_id``. Another member's (or no such one) is
        :class:`NotFoundError` (404: nobody learns which ids exist); the last passkey of an
        account without a password is :class:`GameStateError` (409): it would lock them out."""
        if not isinstance(passkey_id, int) or isinstance(passkey_id, bool):
            raise AccountError(f"a passkey's id is a number, not {quoted(passkey_id)}")
        with self._store.write_session() as session:
            row = session.scalar(
                select(PasskeyRow)
                .where(PasskeyRow.id == passkey_id, PasskeyRow.account_id == member.id)
                .with_for_update()
            )
            if row is None:
                raise NotFoundError(f"you have no passkey {passkey_id}")
            password = session.scalar(
                select(AccountRow.password_hash).where(AccountRow.id == member.id)
            )
            if not password:
                others = session.scalar(
                    select(func.count())
                    .select_from(PasskeyRow)
                    .where(PasskeyRow.account_id == member.id, PasskeyRow.id != passkey_id)
                )
                if not others:
                    raise GameStateError(
                        "this is your only way to log in (the account has no password): "
                        "add another passkey before you remove this one"
                    )
            session.delete(row)

    # -- user handles and challenges --------------------------------------------------------------

    def user_handle(self, account_id: int) -> bytes:
        """The user handle of ``account_id``'s passkeys: HMAC-SHA256 of the id under the
        server's secret (32 bytes; the same every time, and no one else can tell the id)."""
        if self._secret is None:
            self._secret = bytes.fromhex(
                self._store.setting(HANDLE_SECRET, lambda: secrets.token_hex(32))
            )
        message = f"passkey-user:{account_id}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def _issue(self, purpose: str, account_id: int | None) -> tuple[str, bytes]:
        """A fresh challenge kept for ``purpose`` (and ``account_id``): its ceremony id and
        bytes. Expired challenges are dropped, and the oldest beyond the member's and the
        server's bounds."""
        now = self._clock()
        ceremony = secrets.token_urlsafe(24)
        challenge = secrets.token_bytes(32)
        with self._store.write_session() as session:
            session.execute(
                delete(AuthChallengeRow).where(
                    AuthChallengeRow.created_at < now - PASSKEY_CHALLENGE_SECONDS
                )
            )
            if account_id is not None:
                _drop_oldest(
                    session,
                    AuthChallengeRow.account_id == account_id,
                    PASSKEY_CHALLENGES_PER_MEMBER - 1,
                )
            _drop_oldest(session, None, PASSKEY_CHALLENGES - 1)
            session.add(
                AuthChallengeRow(
                    id=ceremony,
                    challenge=bytes_to_base64url(challenge),
                    purpose=purpose,
                    account_id=account_id,
                    created_at=now,
                )
            )
        return ceremony, challenge

    def _consume(
        self,
        ceremony: object,
        purpose: str,
        account_id: int | None,
        error: type[AccountError] | type[NotLoggedInError],
    ) -> _Challenge:
        """Take ceremony ``ceremony``'s challenge out of the store (so it is never used twice),
        if it is one for ``purpose`` (and, for a registration, ``account_id``'s) and not
        expired; otherwise ``error`` says so."""
        if not isinstance(ceremony, str) or not _CEREMONY.fullmatch(ceremony):
            raise AccountError(f"ceremony must be the id the options gave, not {quoted(ceremony)}")
        with self._store.write_session() as session:
            query = select(AuthChallengeRow).where(
                AuthChallengeRow.id == ceremony, AuthChallengeRow.purpose == purpose
            )
            if account_id is not None:
                query = query.where(AuthChallengeRow.account_id == account_id)
            row = session.scalar(query.with_for_update())
            if row is not None:
                taken = _Challenge(
                    _decode(row.challenge, "challenge"), row.account_id, row.created_at
                )
                session.delete(row)
        if row is None:
            raise error("this passkey request is unknown or was used already: start again")
        if self._clock() - taken.created_at > PASSKEY_CHALLENGE_SECONDS:
            raise error(
                f"this passkey request expired (after {PASSKEY_CHALLENGE_SECONDS} s): start again"
            )
        return taken


def _drop_oldest(session: Session, where: Any, keep: int) -> None:
    """Delete the oldest challenges (of those ``where`` picks, or all) beyond ``keep``."""
    query = select(AuthChallengeRow.id)
    if where is not None:
        query = query.where(where)
    surplus = session.scalars(
        query.order_by(AuthChallengeRow.created_at.desc(), AuthChallengeRow.id).offset(keep)
    ).all()
    if surplus:
        session.execute(delete(AuthChallengeRow).where(AuthChallengeRow.id.in_(surplus)))


# -- checking what the browser sent, before the library parses it --------------------------------


def _registration_credential(credential: object) -> dict[str, Any]:
    """``credential`` checked for shape and size and rebuilt with the keys registration
    reads only; :class:`AccountError` names the key at fault."""
    found = _credential(credential)
    response = found["response"]
    checked: dict[str, Any] = {
        "clientDataJSON": _text(response, "clientDataJSON", "response.clientDataJSON"),
        "attestationObject": _text(response, "attestationObject", "response.attestationObject"),
    }
    transports = response.get("transports")
    if transports is not None:
        if not isinstance(transports, list) or len(transports) > _MAX_TRANSPORTS:
            raise AccountError(
                f"credential.response.transports must be a short list, not {quoted(transports)}"
            )
        checked["transports"] = [t for t in transports if isinstance(t, str) and t in _TRANSPORTS]
    found["response"] = checked
    return found


def _authentication_credential(credential: object) -> dict[str, Any]:
    """``credential`` checked for shape and size and rebuilt with the keys a log-in reads
    only; :class:`AccountError` names the key at fault."""
    found = _credential(credential)
    response = found["response"]
    checked: dict[str, Any] = {
        "clientDataJSON": _text(response, "clientDataJSON", "response.clientDataJSON"),
        "authenticatorData": _text(response, "authenticatorData", "response.authenticatorData"),
        "signature": _text(response, "signature", "response.signature"),
    }
    if response.get("userHandle") not in (None, ""):
        checked["userHandle"] = _text(response, "userHandle", "response.userHandle", 200)
    found["response"] = checked
    return found


def _credential(credential: object) -> dict[str, Any]:
    """The common part of both answers: ``id`` (= ``rawId``), ``type`` and a ``response``."""
    if not isinstance(credential, Mapping):
        raise AccountError(f"credential must be an object, not {quoted(credential)}")
    raw_id = _text(credential, "rawId", "rawId", MAX_CREDENTIAL_ID)
    if credential.get("id") != raw_id:
        raise AccountError("credential.id must equal credential.rawId")
    if not raw_id:
        raise AccountError("credential.rawId is empty")
    if credential.get("type") != "public-key":
        raise AccountError(
            f"credential.type must be 'public-key', not {quoted(credential.get('type'))}"
        )
    response = credential.get("response")
    if not isinstance(response, Mapping):
        raise AccountError(f"credential.response must be an object, not {quoted(response)}")
    attachment = credential.get("authenticatorAttachment")
    found: dict[str, Any] = {
        "id": raw_id,
        "rawId": raw_id,
        "type": "public-key",
        "response": response,
    }
    if attachment in ("platform", "cross-platform"):
        found["authenticatorAttachment"] = attachment
    return found


def _text(data: Mapping[str, Any], key: str, where: str, limit: int = PASSKEY_BODY_BYTES) -> str:
    """``data[key]``: base64url text (no padding) of at most ``limit`` characters."""
    value = data.get(key)
    if not isinstance(value, str):
        raise AccountError(f"credential.{where} must be base64url text, not {quoted(value)}")
    if len(value) > limit:
        raise AccountError(f"credential.{where} is {len(value)} characters; at most {limit}")
    if not _BASE64URL.fullmatch(value) or len(value) % 4 == 1:
        raise AccountError(f"credential.{where} is not base64url: {quoted(value)}")
    return value


def _decode(text: str, where: str) -> bytes:
    """Base64url ``text`` (checked by :func:`_text` or written by us) as bytes."""
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (binascii.Error, ValueError):
        raise AccountError(f"{where} is not base64url: {quoted(text)}") from None


def _canonical_id(text: str) -> str:
    """A credential id as it is stored: base64url without padding, of its bytes."""
    return bytes_to_base64url(_decode(text, "credential.rawId"))


def _check_client_data(
    answer: Mapping[str, Any],
    kind: str,
    error: type[AccountError] | type[NotLoggedInError],
) -> None:
    """Refuse a ``clientDataJSON`` of the wrong kind, or made in a frame of another site
    (``crossOrigin``): the library checks the origin, challenge and type, not that."""
    raw = _decode(answer["response"]["clientDataJSON"], "credential.response.clientDataJSON")
    try:
        data = json.loads(raw)
    except (ValueError, RecursionError):
        raise AccountError("credential.response.clientDataJSON is not JSON") from None
    if not isinstance(data, dict) or data.get("type") != kind:
        raise error(f"the browser's client data is not of a {kind} ceremony")
    if data.get("crossOrigin") is True:
        raise error("a passkey used inside another site's frame is refused")


def _sign_count(authenticator_data: str) -> int:
    """The signature counter in an assertion's authenticator data."""
    try:
        return parse_authenticator_data(_decode(authenticator_data, "authenticatorData")).sign_count
    except Exception:  # the library's parser on a stranger's bytes
        raise NotLoggedInError("the passkey's authenticator data is malformed") from None


def _transports(found: object) -> tuple[str, ...]:
    return tuple(found) if isinstance(found, list) else ()


def _label(label: object) -> str:
    """A passkey's label in its normal form; "passkey" if blank."""
    if label is None or (isinstance(label, str) and not label.strip()):
        return "passkey"
    if isinstance(label, str) and len(label) > MAX_PASSKEY_LABEL * 4:
        raise AccountError(f"label: at most {MAX_PASSKEY_LABEL} characters")
    try:
        return clean_name(label, "label", max_length=MAX_PASSKEY_LABEL)
    except RoundInputError as exc:
        raise AccountError(str(exc)) from None


def _reason(exc: Exception) -> str:
    """The library's reason for refusing, bounded (it may quote what a stranger sent)."""
    text = str(exc).strip() or type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


def _descriptor(row: PasskeyRow) -> PublicKeyCredentialDescriptor:
    transports = [AuthenticatorTransport(t) for t in row.transports or () if t in _TRANSPORTS]
    return PublicKeyCredentialDescriptor(
        id=_decode(row.credential_id, "credential id"), transports=transports or None
    )


def _view(row: PasskeyRow) -> PasskeyView:
    return PasskeyView(
        id=row.id,
        label=row.label,
        created_at=row.created_at,
        last_used=row.last_used,
        transports=tuple(str(t) for t in row.transports or ()),
    )

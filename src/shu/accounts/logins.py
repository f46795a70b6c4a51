"""People who sign in with a name and a password, for the web page (API keys stay for programs).

A password is kept only as its argon2id hash (argon2-cffi), checked in constant time; an unknown
name is checked against a dummy hash so it answers like a wrong password, with the same message
and about the same time. Every attempt is counted in the store, in one atomic statement, before
the password is hashed: per (name, address) — the sixth attempt within fifteen minutes is a 423
unchecked, for a known name and an unknown one alike — and per address, any name (past
`MAX_ADDRESS_FAILURES` wrong passwords, a 429). A lockout is the pair's, not the name's: wrong
passwords from one address never lock a user (an admin) out from another. A good password
forgets its pair's count and is not held against its address. An admin may also lock a login
until unlocked (said only to whoever gives its right password). At most `sign_in_hashes`
passwords are hashed at once (argon2id takes 64 MiB each); the rest wait for a turn.

A session is a random 256-bit token the browser keeps in an HttpOnly cookie; the store keeps
only its SHA-256 (a copied store gives no working session), with its expiry and the CSRF token
that every state-changing request of the session must echo.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from shu.errors import (
    ForbiddenError,
    InvalidRequestError,
    LockedError,
    NotFoundError,
    TooManyRequestsError,
    UnauthorizedError,
)
from shu.store.base import KnowledgeReader, LoginStore
from shu.types import ApiKey, Login, Session

MAX_FAILURES = 5
"""Attempts per (name, address) in a window of `LOCKOUT`: the last one checked, more are 423."""
MAX_ADDRESS_FAILURES = 20
"""Wrong passwords per address, any names, in a window of `LOCKOUT` (429 beyond)."""
LOCKOUT = timedelta(minutes=15)
ANY_NAME = ""
"""The name an address's own count is kept under (no login is named so)."""
SESSION_LIFETIME = timedelta(hours=12)
MIN_PASSWORD_CHARS = 8
MAX_PASSWORD_CHARS = 1024
WRONG = "wrong name or password"

_NAME = re.compile(r"^[\w.@+-]{1,100}$")
_hasher = PasswordHasher()
_DUMMY = _hasher.hash("not a password of anyone: unknown names are checked against it")


class Logins:
    """Users who sign in and their sessions, over the login store; `knowledge` is read to check
    the personas a user is given."""

    def __init__(self, store: LoginStore, knowledge: KnowledgeReader, hashes: int = 2) -> None:
        self.store = store
        self.knowledge = knowledge
        self._hashing = threading.BoundedSemaphore(hashes)

    # -- users (an admin's) ---------------------------------------------------------------

    def add(
        self,
        name: str,
        password: str,
        reads: list[str] | None = None,
        writes: list[str] | None = None,
        admin: bool = False,
    ) -> Login:
        if not _NAME.match(name):
            raise InvalidRequestError(f"user {name!r}: use 1–100 letters, digits or . @ + - _")
        if self.store.get_login(name) is not None:
            raise InvalidRequestError(f"user {name!r} can already sign in (`shu users passwd {name}`)")
        login = Login(name=name, admin=admin, created=_stamp(_now()))
        login = self._with_personas(login, reads or [], writes or [])
        self.store.save_login(login, _hash_password(password))
        return login

    def users(self) -> list[Login]:
        return self.store.list_logins()

    def exist(self) -> bool:
        """Whether anyone signs in here (a server with users asks who is calling)."""
        return bool(self.store.list_logins())

    def get(self, name: str) -> Login:
        return self._found(name)[0]

    def set_personas(
        self, name: str, reads: list[str], writes: list[str], admin: bool | None = None
    ) -> Login:
        """Replace which personas a user may read and write (and, given, whether an admin)."""
        login, password_hash = self._found(name)
        changed = self._with_personas(login, reads, writes)
        if admin is not None:
            changed = changed.model_copy(update={"admin": admin})
        self.store.save_login(changed, password_hash)
        return changed

    def set_password(self, name: str, password: str) -> Login:
        """A new password; every session of the user ends, the lockout is lifted."""
        login, _ = self._found(name)
        login = login.model_copy(update={"failures": 0, "locked_until": ""})
        self.store.save_login(login, _hash_password(password))
        self.store.delete_sessions(name)
        self.store.forget_sign_ins(name)
        return login

    def lock(self, name: str) -> Login:
        """Lock a user out until unlocked; every session of theirs ends."""
        login, password_hash = self._found(name)
        login = login.model_copy(update={"locked": True})
        self.store.save_login(login, password_hash)
        self.store.delete_sessions(name)
        return login

    def unlock(self, name: str) -> Login:
        login, password_hash = self._found(name)
        login = login.model_copy(update={"locked": False, "failures": 0, "locked_until": ""})
        self.store.save_login(login, password_hash)
        self.store.forget_sign_ins(name)  # from every address
        return login

    # -- signing in -----------------------------------------------------------------------

    def sign_in(
        self, name: str, password: str, address: str = "", now: datetime | None = None
    ) -> tuple[Login, Session, str]:
        """Check a password and open a session: the login, the session and its token (given to
        the browser once; only its hash is kept). `address`: where the attempt comes from.
        UnauthorizedError with one message for an unknown name and a wrong password; LockedError
        after too many attempts for the name from this address (whether the name exists or not)
        or, to whoever gives the right password, while an admin has locked it;
        TooManyRequestsError after too many wrong passwords from the address."""
        moment = now or _now()
        stamp, since = _stamp(moment), _stamp(moment - LOCKOUT)
        self.store.forget_old_sign_ins(since)
        counted = name[:100] or " "  # never the address's own count
        attempts, started = self.store.count_sign_in(counted, address, stamp, since)
        if attempts > MAX_FAILURES:  # refused before any hashing: the count is already written
            raise LockedError(_too_many(started))
        from_address, began = self.store.count_sign_in(ANY_NAME, address, stamp, since)
        if from_address > MAX_ADDRESS_FAILURES:
            raise TooManyRequestsError(
                f"too many wrong passwords from this address: try again after {_after(began)}",
                retry_after_s=max(1, int((_parse(began) + LOCKOUT - moment).total_seconds())),
            )
        found = self.store.get_login(name) if _NAME.match(name) else None
        with self._hashing:
            right = _verify(found[1] if found else _DUMMY, password)  # an unknown name takes as long
        if found is None or not right:
            if attempts >= MAX_FAILURES:
                raise LockedError(_too_many(started))
            raise UnauthorizedError(WRONG)
        login, password_hash = found
        self.store.forget_sign_ins(counted, address)
        self.store.uncount_sign_in(ANY_NAME, address)
        if login.locked:
            raise LockedError(f"{login.name!r} is locked by an admin (`shu users unlock {login.name}`)")
        if login.failures or login.locked_until or _hasher.check_needs_rehash(password_hash):
            login = login.model_copy(update={"failures": 0, "locked_until": ""})
            if _hasher.check_needs_rehash(password_hash):
                password_hash = _hash_password(password)
            self.store.save_login(login, password_hash)
        self.store.delete_expired_sessions(stamp)  # expired ones are forgotten here
        token = secrets.token_urlsafe(32)
        session = Session(
            user=name,
            created=stamp,
            expires=_stamp(moment + SESSION_LIFETIME),
            csrf=secrets.token_urlsafe(32),
        )
        self.store.add_session(_token_hash(token), session)
        return login, session, token

    def session(self, token: str | None, now: datetime | None = None) -> tuple[Login, Session]:
        """The login and session a browser's token belongs to; UnauthorizedError for none, an
        unknown, expired or locked one (an expired one is deleted)."""
        if not token or len(token) > 100:
            raise UnauthorizedError("not signed in (or the session ended): sign in again")
        token_hash = _token_hash(token)
        session = self.store.get_session(token_hash)
        moment = now or _now()
        if session is None or _parse(session.expires) <= moment:
            if session is not None:
                self.store.delete_session(token_hash)
            raise UnauthorizedError("not signed in (or the session ended): sign in again")
        found = self.store.get_login(session.user)
        if found is None or found[0].locked:
            self.store.delete_session(token_hash)
            raise UnauthorizedError("not signed in (or the session ended): sign in again")
        return found[0], session

    def sign_out(self, token: str | None) -> bool:
        return bool(token) and self.store.delete_session(_token_hash(token or ""))

    def _found(self, name: str) -> tuple[Login, str]:
        found = self.store.get_login(name)
        if found is None:
            raise NotFoundError(f"no user {name!r} signs in here (`shu users add {name}`)")
        return found

    def _with_personas(self, login: Login, reads: list[str], writes: list[str]) -> Login:
        known = {p.slug for p in self.knowledge.list_personas()}
        unknown = sorted((set(reads) | set(writes)) - known)
        if unknown:
            listing = ", ".join(sorted(known)) or "none ingested yet"
            raise NotFoundError(f"unknown persona(s) {', '.join(unknown)} (known: {listing})")
        return login.model_copy(update={"reads": sorted(set(reads)), "writes": sorted(set(writes))})


def caller_of(login: Login) -> ApiKey:
    """The caller record a signed-in user's requests carry, like a key's: an admin reaches every
    persona, anyone else what they may read (ForbiddenError for nothing at all)."""
    personas = [] if login.admin else login.personas()
    if not login.admin and not personas:
        raise ForbiddenError(f"user {login.name} may read no persona yet: an admin gives them some")
    writes = [] if login.admin else sorted(login.writes)  # an admin writes every persona
    return ApiKey(
        id=f"user:{login.name}", user=login.name, personas=personas, admin=login.admin, writes=writes
    )


def csrf_matches(session: Session, sent: str | None) -> bool:
    return bool(sent) and hmac.compare_digest(session.csrf.encode(), (sent or "").encode())


def _too_many(started: str) -> str:
    """One message for a known and an unknown name (it names neither)."""
    return f"too many wrong passwords for this name from this address: sign in again after {_after(started)}"


def _after(started: str) -> str:
    return _stamp(_parse(started) + LOCKOUT)


def _hash_password(password: str) -> str:
    if not MIN_PASSWORD_CHARS <= len(password) <= MAX_PASSWORD_CHARS:
        raise InvalidRequestError(f"a password has {MIN_PASSWORD_CHARS}–{MAX_PASSWORD_CHARS} characters")
    return _hasher.hash(password)


def _verify(password_hash: str, password: str) -> bool:
    try:
        return _hasher.verify(password_hash, password[:MAX_PASSWORD_CHARS])
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _now() -> datetime:
    return datetime.now(UTC)


def _stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="seconds")


def _parse(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)

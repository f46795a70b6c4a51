"""People who sign in with a name and a password, for the web page (API keys stay for programs).

A password is kept only as its argon2id hash (argon2-cffi), checked in constant time; an unknown
name is checked against a dummy hash so it answers like a wrong password, with the same message
and about the same time. Five wrong passwords in a row lock the login for fifteen minutes (an
admin may also lock it until unlocked). A session is a random 256-bit token the browser keeps in
an HttpOnly cookie; the store keeps only its SHA-256 (a copied store gives no working session),
with its expiry and the CSRF token that every state-changing request of the session must echo.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from datetime import UTC, datetime, timedelta

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from shu.errors import ForbiddenError, InvalidRequestError, LockedError, NotFoundError, UnauthorizedError
from shu.store.base import KnowledgeReader, LoginStore
from shu.types import ApiKey, Login, Session

MAX_FAILURES = 5
LOCKOUT = timedelta(minutes=15)
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

    def __init__(self, store: LoginStore, knowledge: KnowledgeReader) -> None:
        self.store = store
        self.knowledge = knowledge

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
        return login

    # -- signing in -----------------------------------------------------------------------

    def sign_in(self, name: str, password: str, now: datetime | None = None) -> tuple[Login, Session, str]:
        """Check a password and open a session: the login, the session and its token (given to
        the browser once; only its hash is kept). UnauthorizedError with one message for an
        unknown name and a wrong password; LockedError while the login is locked."""
        moment = now or _now()
        found = self.store.get_login(name) if _NAME.match(name) else None
        if found is None:
            _verify(_DUMMY, password)  # as long as a wrong password takes
            raise UnauthorizedError(WRONG)
        login, password_hash = found
        _refuse_locked(login, moment)
        if not _verify(password_hash, password):
            failures = login.failures + 1
            locked_until = _stamp(moment + LOCKOUT) if failures >= MAX_FAILURES else ""
            self.store.save_login(
                login.model_copy(
                    update={"failures": 0 if locked_until else failures, "locked_until": locked_until}
                ),
                password_hash,
            )
            if locked_until:
                raise LockedError(
                    f"too many wrong passwords: {name!r} may sign in again after {locked_until}"
                )
            raise UnauthorizedError(WRONG)
        if login.failures or login.locked_until or _hasher.check_needs_rehash(password_hash):
            login = login.model_copy(update={"failures": 0, "locked_until": ""})
            if _hasher.check_needs_rehash(password_hash):
                password_hash = _hash_password(password)
            self.store.save_login(login, password_hash)
        self.store.delete_expired_sessions(_stamp(moment))  # expired ones are forgotten here
        token = secrets.token_urlsafe(32)
        session = Session(
            user=name,
            created=_stamp(moment),
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


def _refuse_locked(login: Login, moment: datetime) -> None:
    if login.locked:
        raise LockedError(f"{login.name!r} is locked by an admin (`shu users unlock {login.name}`)")
    if login.locked_until and _parse(login.locked_until) > moment:
        raise LockedError(
            f"too many wrong passwords: {login.name!r} may sign in again after {login.locked_until}"
        )


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

"""Signing in from the browser: `/v1/session` opens a session with a name and a password (an
HttpOnly, SameSite=Strict cookie; Secure over https), tells who is signed in (with the CSRF token
the page echoes in `X-CSRF-Token` on every request that changes something), and signs out.
`/v1/admin/users` lets an admin add users, set which personas each may read and write, set a
password, lock and unlock. API keys stay for programs (a bearer key needs no CSRF token: no
browser sends it by itself)."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import FastAPI, Path, Request, Response
from pydantic import Field

from shu.accounts.keys import require_admin
from shu.accounts.logins import MAX_PASSWORD_CHARS, SESSION_LIFETIME, Logins, caller_of
from shu.kb import KnowledgeBase
from shu.serve.addresses import Addresses
from shu.serve.callers import SESSION_COOKIE, Caller
from shu.serve.validation import Body
from shu.types import Login, Session

Name = Annotated[str, Field(min_length=1, max_length=100)]
PersonaList = list[Annotated[str, Field(min_length=1, max_length=200)]]
UserName = Annotated[str, Path(min_length=1, max_length=100)]


class SignIn(Body):
    name: Name
    password: str = Field(min_length=1, max_length=MAX_PASSWORD_CHARS)


class NewUser(Body):
    name: Name
    password: str = Field(min_length=1, max_length=MAX_PASSWORD_CHARS)
    reads: PersonaList = Field(default_factory=list, max_length=500)
    writes: PersonaList = Field(default_factory=list, max_length=500)
    admin: bool = False


class Access(Body):
    reads: PersonaList = Field(max_length=500)
    writes: PersonaList = Field(default_factory=list, max_length=500)
    admin: bool | None = None


class NewPassword(Body):
    password: str = Field(min_length=1, max_length=MAX_PASSWORD_CHARS)


def logins_of(kb: KnowledgeBase) -> Logins:
    return kb.logins


def add_session_routes(app: FastAPI, kb: KnowledgeBase) -> None:
    logins = logins_of(kb)  # one for the routes: its passwords hashed `server.sign_in_hashes` at once
    addresses = Addresses(kb.settings.server.trusted_proxies)

    @app.post("/v1/session")
    def sign_in(body: SignIn, request: Request, response: Response) -> dict[str, Any]:
        """Sign in with a name and a password: the session's cookie, and its CSRF token. A wrong
        password and an unknown name are one 401; the sixth attempt within 15 minutes for a name
        from one address is a 423 (known name or not), more than 20 wrong passwords from one
        address a 429; other addresses still sign in."""
        login, session, token = logins.sign_in(body.name, body.password, addresses.client(request.scope))
        response.set_cookie(
            SESSION_COOKIE,
            token,
            max_age=int(SESSION_LIFETIME.total_seconds()),
            path="/",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )
        return _signed_in(login, session)

    @app.get("/v1/session")
    def who(request: Request) -> dict[str, Any]:
        """Who is signed in with this browser's cookie, and the CSRF token (401: no session)."""
        login, session = logins.session(request.cookies.get(SESSION_COOKIE))
        return _signed_in(login, session)

    @app.delete("/v1/session", status_code=204)
    def sign_out(request: Request, response: Response, key: Caller) -> None:
        """Sign out: the session ends on the server and its cookie is cleared (a key is revoked
        instead: `shu keys revoke`)."""
        logins.sign_out(request.cookies.get(SESSION_COOKIE))
        response.delete_cookie(SESSION_COOKIE, path="/", httponly=True, samesite="strict")

    @app.get("/v1/admin/users")
    def users(key: Caller) -> list[Login]:
        """The users who sign in, with their personas (admin)."""
        require_admin(key)
        return logins.users()

    @app.post("/v1/admin/users", status_code=201)
    def add_user(body: NewUser, key: Caller) -> Login:
        """Let a user sign in, reading and writing the personas given (admin)."""
        require_admin(key)
        return logins.add(body.name, body.password, body.reads, body.writes, body.admin)

    @app.put("/v1/admin/users/{name}")
    def set_access(name: UserName, body: Access, key: Caller) -> Login:
        """Replace the personas a user reads and writes (and whether an admin) (admin)."""
        require_admin(key)
        return logins.set_personas(name, body.reads, body.writes, body.admin)

    @app.put("/v1/admin/users/{name}/password")
    def set_password(name: UserName, body: NewPassword, key: Caller) -> Login:
        """A new password; the user's sessions end (admin)."""
        require_admin(key)
        return logins.set_password(name, body.password)

    @app.post("/v1/admin/users/{name}/lock")
    def lock(name: UserName, key: Caller) -> Login:
        """Refuse a user's sign-in until unlocked; their sessions end now (admin)."""
        require_admin(key)
        return logins.lock(name)

    @app.post("/v1/admin/users/{name}/unlock")
    def unlock(name: UserName, key: Caller) -> Login:
        """Lift a lock, an admin's or one of too many wrong passwords (admin)."""
        require_admin(key)
        return logins.unlock(name)


def _signed_in(login: Login, session: Session) -> dict[str, Any]:
    caller = caller_of(login)
    return {
        "user": login.name,
        "admin": login.admin,
        "personas": caller.personas or None,
        "writes": caller.writes,
        "expires": session.expires,
        "csrf_token": session.csrf,
    }

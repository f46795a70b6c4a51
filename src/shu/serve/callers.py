"""Who is calling the API: the bearer key of a request, or the user of a browser's session
cookie (None on a server without keys or users, where everything is open), as a FastAPI
dependency every route shares. A session's request that changes something (POST, PUT, PATCH,
DELETE) must carry the session's CSRF token in `X-CSRF-Token` (403 else); a bearer key needs
none (no browser sends it by itself) and wins over a cookie sent beside it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from starlette.datastructures import Headers
from starlette.requests import cookie_parser

from shu.accounts.logins import caller_of, csrf_matches
from shu.errors import ForbiddenError
from shu.kb import KnowledgeBase
from shu.types import ApiKey

SESSION_COOKIE = "shu_session"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

_bearer = HTTPBearer(auto_error=False, description="a key made by `shu keys create`")


def caller(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> ApiKey | None:
    """The key of the request (or the signed-in user's, as a key); None on a server without keys
    or users (everything is open)."""
    if not request.app.state.keys_required():
        return None
    key = key_of(request.app.state.kb, request.method, Headers(scope=request.scope))
    request.state.key = key
    return key


def key_of(kb: KnowledgeBase, method: str, headers: Headers) -> ApiKey:
    """The key a request's headers carry: its bearer key, else its session's user (with the CSRF
    token when it changes something); UnauthorizedError or ForbiddenError else."""
    authorization = headers.get("authorization")
    session = cookie_parser(headers.get("cookie", "")).get(SESSION_COOKIE, "")
    if not authorization and session:
        return _session_caller(kb, method, headers, session)
    scheme, _, token = (authorization or "").partition(" ")
    return kb.accounts.authenticate(token.strip() if scheme.lower() == "bearer" and token.strip() else None)


def _session_caller(kb: KnowledgeBase, method: str, headers: Headers, cookie: str) -> ApiKey:
    login, session = kb.logins.session(cookie)
    if method not in SAFE_METHODS and not csrf_matches(session, headers.get(CSRF_HEADER)):
        raise ForbiddenError(
            f"a signed-in request that changes something needs the session's {CSRF_HEADER} header "
            "(the page sends it; GET /v1/session gives it)"
        )
    return caller_of(login)


Caller = Annotated[ApiKey | None, Depends(caller)]

"""Who is calling the API: the bearer key of a request, or the user of a browser's session
cookie (None on a server without keys or users, where everything is open), as a FastAPI
dependency every route shares. A session's request that changes something (POST, PUT, PATCH,
DELETE) must carry the session's CSRF token in `X-CSRF-Token` (403 else); a bearer key needs
none (no browser sends it by itself) and wins over a cookie sent beside it."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from shu.accounts.logins import Logins, caller_of, csrf_matches
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
    kb: KnowledgeBase = request.app.state.kb
    if not request.app.state.keys_required():
        return None
    cookie = request.cookies.get(SESSION_COOKIE)
    if credentials is None and cookie and not request.headers.get("authorization"):
        key = _session_caller(kb, request, cookie)
    else:
        key = kb.accounts.authenticate(credentials.credentials if credentials else None)
    request.state.key = key
    return key


def _session_caller(kb: KnowledgeBase, request: Request, cookie: str) -> ApiKey:
    login, session = Logins(kb.store, kb.store).session(cookie)
    if request.method not in SAFE_METHODS and not csrf_matches(session, request.headers.get(CSRF_HEADER)):
        raise ForbiddenError(
            f"a signed-in request that changes something needs the session's {CSRF_HEADER} header "
            "(the page sends it; GET /v1/session gives it)"
        )
    return caller_of(login)


Caller = Annotated[ApiKey | None, Depends(caller)]

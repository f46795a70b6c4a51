"""Who is calling the API: the bearer key of a request (None on a server without keys, where
everything is open), as a FastAPI dependency every route shares."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from shu.kb import KnowledgeBase
from shu.types import ApiKey

_bearer = HTTPBearer(auto_error=False, description="a key made by `shu keys create`")


def caller(
    request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]
) -> ApiKey | None:
    """The key of the request; None on a server without keys (everything is open)."""
    kb: KnowledgeBase = request.app.state.kb
    if not request.app.state.keys_required():
        return None
    key = kb.accounts.authenticate(credentials.credentials if credentials else None)
    request.state.key = key
    return key


Caller = Annotated[ApiKey | None, Depends(caller)]

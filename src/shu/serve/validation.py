"""Bad request bodies as a 422 with a message, never a 500. JSON may hold what no encoder writes
back — a lone surrogate (`"\\ud800"`), NaN, Infinity — and FastAPI's own handler echoes each
error's input: so request bodies refuse lone surrogates in any text, and the 422 keeps each
error's type, location, message and context, made encodable, never the input itself."""

from __future__ import annotations

import math
from typing import Any

from fastapi import Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, model_validator


class Body(BaseModel):
    """A request body: no unknown fields, no text that is not Unicode."""

    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    @model_validator(mode="before")
    @classmethod
    def _unicode_only(cls, data: Any) -> Any:
        if _has_surrogate(data):
            raise ValueError("text holds a lone surrogate (half of a UTF-16 pair), which is not Unicode")
        return data


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any("\ud800" <= c <= "\udfff" for c in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


async def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
    """FastAPI's 422, without each error's `input` and with everything else encodable."""
    errors = [
        {"type": e.get("type"), "loc": encodable(list(e.get("loc", ()))), "msg": encodable(e.get("msg", ""))}
        | ({"ctx": encodable(e["ctx"])} if e.get("ctx") else {})
        for e in exc.errors()
    ]
    said = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in errors)
    body = {"detail": errors} | openai_error(said, "invalid_request_error", 422)
    return JSONResponse(body, status_code=422)


def openai_error(message: str, kind: str, status: int) -> dict[str, Any]:
    """The error as OpenAI's clients read it (`{"error": {"message": …}}`), beside Shu's `detail`:
    a chat client shows the message instead of "Error code: 404"."""
    return {"error": {"message": message, "type": kind, "param": None, "code": str(status)}}


def encodable(value: Any) -> Any:
    """`value` as JSON can hold it: lone surrogates become "?", NaN and infinities strings,
    anything else that is not JSON its text."""
    if isinstance(value, str):
        return value.encode("utf-8", "replace").decode("utf-8")
    if isinstance(value, bool | int | None):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(encodable(k)): encodable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [encodable(v) for v in value]
    return encodable(str(value))

"""What one request and one caller may take from the server (pure ASGI middlewares, so a body is
counted as it streams in and a slot is held until a streamed answer ends).

`BodyLimit`: a body over the limit is a 413 as soon as it is declared (`Content-Length`) or read
past it (chunked), and the connection is closed rather than read to its end.

`WorkLimiter`: the API and MCP routes (`/v1/…`, `/mcp`) run on a shared pool of threads, so a
caller — a key, or the client's address for requests without a good key — may have only
`concurrent_per_caller` of them running and start `requests_per_minute` a minute (429 with
Retry-After), and all callers together `concurrent_total` (503). `/healthz`, the page and the docs
are not counted."""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import anyio
from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shu.config.settings import ServerSettings

Identify = Callable[[str], str | None]
"""A bearer token → the id of its key (None: no such key, or not usable)."""
MAX_CALLERS = 10_000


def too_large(limit: int) -> JSONResponse:
    return JSONResponse(
        {"detail": f"request body over {limit} bytes"}, status_code=413, headers={"Connection": "close"}
    )


class BodyLimit:
    """`wider`: the larger limit of a request that may send more (an upload), None for the rest."""

    def __init__(self, app: ASGIApp, limit: int, wider: Callable[[Scope], int | None] | None = None) -> None:
        self.app = app
        self.limit = limit
        self.wider = wider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = (self.wider(scope) if self.wider else None) or self.limit
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await too_large(limit)(scope, receive, send)
            return
        received = 0
        refused = started = False

        async def counted() -> Message:
            nonlocal received, refused
            if refused:
                return {"type": "http.disconnect"}
            message = await receive()
            received += len(message.get("body", b"")) if message["type"] == "http.request" else 0
            if received <= limit:
                return message
            refused = True
            if not started:
                await too_large(limit)(scope, receive, send)
            return {"type": "http.disconnect"}  # the app stops reading; the rest is never read

        async def answered(message: Message) -> None:
            nonlocal started
            if refused:
                return  # the 413 is the answer
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, answered)
        except Exception:
            if not refused:
                raise


@dataclass
class Allowance:
    """One caller's token bucket (a minute's worth at most) and requests running."""

    tokens: float
    updated: float
    running: int = 0

    def refill(self, now: float, per_second: float, most: float) -> None:
        self.tokens = min(most, self.tokens + (now - self.updated) * per_second)
        self.updated = now


class WorkLimiter:
    def __init__(self, app: ASGIApp, settings: ServerSettings, identify: Identify) -> None:
        self.app = app
        self.settings = settings
        self.identify = identify
        self.allowances: dict[str, Allowance] = {}
        self.running = 0
        self._auth_threads: anyio.CapacityLimiter | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_work(scope["path"]):
            await self.app(scope, receive, send)
            return
        caller = await self._caller(scope)
        refusal = self._admit(caller)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._release(caller)

    async def _caller(self, scope: Scope) -> str:
        """`key:<id>` for a good key (checked in a thread of its own: a store may block), else
        `address:<client>` — a forged token spends no allowance of the key it names."""
        scheme, _, token = Headers(scope=scope).get("authorization", "").partition(" ")
        if scheme.lower() == "bearer" and token.strip():
            if self._auth_threads is None:
                self._auth_threads = anyio.CapacityLimiter(4)
            key_id = await anyio.to_thread.run_sync(self.identify, token.strip(), limiter=self._auth_threads)
            if key_id is not None:
                return f"key:{key_id}"
        client = scope.get("client")
        return f"address:{client[0] if client else 'unknown'}"

    def _admit(self, caller: str) -> JSONResponse | None:
        """None when the request may run (its slot and token taken), else the refusal."""
        settings, now = self.settings, time.monotonic()
        per_second = settings.requests_per_minute / 60
        allowance = self.allowances.setdefault(caller, Allowance(settings.requests_per_minute, now))
        allowance.refill(now, per_second, settings.requests_per_minute)
        if allowance.running >= settings.concurrent_per_caller:
            return _refused(
                429,
                1,
                f"at most {settings.concurrent_per_caller} requests at once per caller "
                "(server.concurrent_per_caller): retry when one has ended",
            )
        if self.running >= settings.concurrent_total:
            return _refused(503, 1, f"the server is busy ({settings.concurrent_total} requests running)")
        if allowance.tokens < 1:
            wait = math.ceil((1 - allowance.tokens) / per_second)
            return _refused(
                429,
                wait,
                f"at most {settings.requests_per_minute} requests per minute per caller "
                "(server.requests_per_minute)",
            )
        allowance.tokens -= 1
        allowance.running += 1
        self.running += 1
        return None

    def _release(self, caller: str) -> None:
        self.allowances[caller].running -= 1
        self.running -= 1
        if len(self.allowances) > MAX_CALLERS:
            self._forget_idle()

    def _forget_idle(self) -> None:
        """Drop callers with nothing running and a full bucket (they would start afresh anyway)."""
        now, most = time.monotonic(), self.settings.requests_per_minute
        for caller, allowance in list(self.allowances.items()):
            allowance.refill(now, most / 60, most)
            if allowance.running == 0 and allowance.tokens >= most:
                del self.allowances[caller]


def is_work(path: str) -> bool:
    return path.startswith("/v1/") or path == "/mcp" or path.startswith("/mcp/")


def _refused(status: int, retry_after_s: int, detail: str) -> JSONResponse:
    return JSONResponse({"detail": detail}, status_code=status, headers={"Retry-After": str(retry_after_s)})

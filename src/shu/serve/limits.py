"""What one request and one caller may take from the server (pure ASGI middlewares, so a body is
counted as it streams in and a slot is held until a streamed answer ends).

`BodyLimit`: a body over the limit is a 413 as soon as it is declared (`Content-Length`) or read
past it (chunked), and the connection is closed rather than read to its end. An upload's wider
limit is given only once its key or session is known to be good and to write the persona: else
the body past the small limit is refused with that answer (401, 403), unread.

`WorkLimiter`: the API and MCP routes (`/v1/…`, `/mcp`) run on a shared pool of threads. A
request's body (all but an upload's) arrives before it takes a place, so a client trickling it
holds none (the connection's read timeout ends it). A caller — a key, a signed-in user, or the
client's address (`addresses.py`) for requests without good credentials — may have only
`concurrent_per_caller` requests running and start `requests_per_minute` a minute (429 with
Retry-After). Callers with good credentials (everyone, on a server without keys) share
`concurrent_total` places; the others — sign-ins among them — their own `concurrent_unauthenticated`
(503 beyond either), so they never take a keyed user's place. `/healthz`, the page and the docs
are not counted."""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import anyio
from starlette.datastructures import Headers
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shu.config.settings import ServerSettings
from shu.errors import StoreError
from shu.serve.addresses import Addresses
from shu.serve.validation import openai_error

log = logging.getLogger(__name__)

Identify = Callable[[Headers], str | None]
"""A request's headers → who calls: `key:<id>` for a good key, `user:<name>` for a good session,
"" on a server open to all; None without good credentials."""
Wider = Callable[[Scope], Awaitable[int | Response | None]]
"""A request → its larger limit (an upload's), the answer to a body past the small limit
(its credentials are not good enough to send more), or None (the small limit)."""
Streamed = Callable[[Scope], bool]
"""Whether a request's body streams into its route (an upload) rather than arriving first."""
MAX_CALLERS = 10_000


def too_large(limit: int) -> JSONResponse:
    detail = f"request body over {limit} bytes"
    return JSONResponse(
        {"detail": detail} | openai_error(detail, "invalid_request_error", 413),
        status_code=413,
        headers={"Connection": "close"},
    )


class BodyLimit:
    """`wider`: the larger limit of a request that may send more (an upload), see `Wider`."""

    def __init__(self, app: ASGIApp, limit: int, wider: Wider | None = None) -> None:
        self.app = app
        self.limit = limit
        self.wider = wider

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        wider = await self.wider(scope) if self.wider else None
        limit = wider if isinstance(wider, int) else self.limit
        refusal = wider if isinstance(wider, Response) else too_large(limit)
        declared = Headers(scope=scope).get("content-length")
        if declared is not None and (not declared.isdigit() or int(declared) > limit):
            await refusal(scope, receive, send)
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
                await refusal(scope, receive, send)
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
    def __init__(
        self,
        app: ASGIApp,
        settings: ServerSettings,
        identify: Identify,
        streamed: Streamed | None = None,
    ) -> None:
        self.app = app
        self.settings = settings
        self.identify = identify
        self.streamed = streamed or (lambda scope: False)
        self.addresses = Addresses(settings.trusted_proxies)
        self.allowances: dict[str, Allowance] = {}
        self.running = {True: 0, False: 0}
        """Requests running, with good credentials (True) and without."""
        self._auth_threads: dict[bool, anyio.CapacityLimiter] | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not is_work(scope["path"]):
            await self.app(scope, receive, send)
            return
        if not self.streamed(scope):
            arrived = await _whole_body(receive)
            if arrived is None:
                return  # the client left (or its body was refused): nothing to run
            receive = _replayed(arrived, receive)
        try:
            caller, known = await self._caller(scope)
        except StoreError as exc:  # who calls cannot be looked up: the store is down, not the caller
            log.warning("the store could not say who calls: %s", exc)
            await _refused(503, 5, "the knowledge base's store is not answering; try again soon")(
                scope, receive, send
            )
            return
        refusal = self._admit(caller, known)
        if refusal is not None:
            await refusal(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self._release(caller, known)

    async def _caller(self, scope: Scope) -> tuple[str, bool]:
        """Who calls, and whether with good credentials: `key:<id>` for a good key, `user:<name>`
        for a good session (checked in a thread of their own: a store may block), else
        `address:<client>` — a forged token or cookie spends no allowance of the one it names."""
        headers = Headers(scope=scope)
        if self._auth_threads is None:  # those without credentials never queue before the others
            self._auth_threads = {True: anyio.CapacityLimiter(4), False: anyio.CapacityLimiter(2)}
        with_credentials = "authorization" in headers or "cookie" in headers
        threads = self._auth_threads[with_credentials]
        who = await anyio.to_thread.run_sync(self.identify, headers, limiter=threads)
        if who:
            return who, True
        return f"address:{self.addresses.client(scope)}", who is not None

    def _admit(self, caller: str, known: bool) -> JSONResponse | None:
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
        if known and self.running[True] >= settings.concurrent_total:
            return _refused(503, 1, f"the server is busy ({settings.concurrent_total} requests running)")
        if not known and self.running[False] >= settings.concurrent_unauthenticated:
            return _refused(
                503,
                1,
                f"the server is busy ({settings.concurrent_unauthenticated} requests without a good key "
                "or session running, server.concurrent_unauthenticated)",
            )
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
        self.running[known] += 1
        return None

    def _release(self, caller: str, known: bool) -> None:
        self.allowances[caller].running -= 1
        self.running[known] -= 1
        if len(self.allowances) > MAX_CALLERS:
            self._forget_idle()

    def _forget_idle(self) -> None:
        """Drop callers with nothing running and a full bucket (they would start afresh anyway)."""
        now, most = time.monotonic(), self.settings.requests_per_minute
        for caller, allowance in list(self.allowances.items()):
            allowance.refill(now, most / 60, most)
            if allowance.running == 0 and allowance.tokens >= most:
                del self.allowances[caller]


async def _whole_body(receive: Receive) -> list[Message] | None:
    """Every message of a request's body (BodyLimit bounds it), None when the client left first."""
    arrived: list[Message] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        arrived.append(message)
        if not message.get("more_body", False):
            return arrived


def _replayed(arrived: list[Message], receive: Receive) -> Receive:
    """The body again, then the connection's own messages (a disconnect while answering)."""
    waiting = list(arrived)

    async def replay() -> Message:
        return waiting.pop(0) if waiting else await receive()

    return replay


def is_work(path: str) -> bool:
    return path.startswith("/v1/") or path == "/mcp" or path.startswith("/mcp/")


def _refused(status: int, retry_after_s: int, detail: str) -> JSONResponse:
    kind = "rate_limit_error" if status == 429 else "server_error"  # 503: busy with other work
    body = {"detail": detail} | openai_error(detail, kind, status)
    return JSONResponse(body, status_code=status, headers={"Retry-After": str(retry_after_s)})

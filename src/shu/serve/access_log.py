"""One line a request on the `shu.access` logger (shown by `shu serve`): method, path, status,
time to the response's first bytes, and whose key or session it was — the key's id and user,
never the key itself, never the query string (it may name what was asked)."""

from __future__ import annotations

import logging
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

log = logging.getLogger("shu.access")


class AccessLog:
    """The outermost middleware: every request is logged, those refused by a wall too."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status: list[int] = []

        async def sent(message: Message) -> None:
            if message["type"] == "http.response.start" and not status:
                status.append(int(message["status"]))
                log.info(_line(scope, status[0], time.perf_counter() - started))
            await send(message)

        try:
            await self.app(scope, receive, sent)
        except BaseException:  # the server's error page is sent outside this middleware: a 500
            if not status:
                status.append(500)
                log.info(_line(scope, 500, time.perf_counter() - started))
            raise
        if not status:  # the connection ended before an answer began
            log.info(_line(scope, 0, time.perf_counter() - started))


def _line(scope: Scope, status: int, seconds: float) -> str:
    key: Any = scope.get("state", {}).get("key")
    who = f"{key.id} ({key.user})" if key is not None else "-"
    path = scope.get("path", "").encode("unicode_escape").decode("ascii")[:300]
    return f"{scope.get('method', '?')} {path} {status or '-'} {seconds * 1000:.0f} ms {who}"

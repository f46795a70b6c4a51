"""DNS rebinding: a page on another site whose name is made to resolve to 127.0.0.1 reaches the
server with its own name in `Host` (and its own origin in `Origin`). The server answers only the
names it has: loopback (127.0.0.1, localhost, ::1) with any port, the address it is bound to (and
the local address a connection arrived on), and `server.allowed_hosts`; anything else is a 421
with a message, on every route. A browser's `Origin`, when sent, must name one of them too (403)."""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from shu.serve.validation import openai_error

LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1"})
WILDCARD = frozenset({"0.0.0.0", "::", ""})


def host_name(host: str) -> str:
    """`Host` without its port and brackets, lower case: `[::1]:8000` → `::1`."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1:].partition("]")[0]
    name, _, port = host.rpartition(":")
    return name if name and port.isdigit() and ":" not in name else host


@dataclass(frozen=True)
class HostRule:
    bound: str = "127.0.0.1"
    configured: list[str] = field(default_factory=list)

    def names(self, local: str | None) -> set[str]:
        named = set(LOOPBACK) | set(self.configured)
        named |= {host_name(self.bound)} - WILDCARD
        return named | ({local.lower()} if local else set())

    def allows(self, host: str, local: str | None) -> bool:
        return bool(host) and host_name(host) in self.names(local)


class HostGuard:
    """Refuses a request whose `Host` (or `Origin`) is not a name of this server."""

    def __init__(self, app: ASGIApp, rule: HostRule) -> None:
        self.app = app
        self.rule = rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        local = (scope.get("server") or (None,))[0]
        host = headers.get("host", "")
        origin = headers.get("origin")
        if not self.rule.allows(host, local):
            shown = host[:100] or "(none)"
            detail = (
                f"host {shown!r} is not a name of this server: use 127.0.0.1 or localhost, or list the "
                "name in the setting server.allowed_hosts"
            )
            body = {"detail": detail} | openai_error(detail, "invalid_request_error", 421)
            await JSONResponse(body, status_code=421)(scope, receive, send)
        elif origin is not None and not self.rule.allows(urlsplit(origin).netloc, local):
            detail = f"origin {origin[:100]!r} is not a page of this server (server.allowed_hosts lists more)"
            body = {"detail": detail} | openai_error(detail, "permission_error", 403)
            await JSONResponse(body, status_code=403)(scope, receive, send)
        else:
            await self.app(scope, receive, send)

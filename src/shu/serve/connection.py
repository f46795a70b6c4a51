"""How uvicorn serves Shu, in `shu serve` and in `background.running` alike: its h11 protocol
with one more timeout. uvicorn closes a connection idle between requests (`timeout_keep_alive`)
but waits forever for a request that never completes — a client may open a connection and send
nothing, or trickle its headers or body a byte at a time, and hold the connection (and, with a
body, the request's task) open. Here a request — its line, headers and body — must arrive within
`read_timeout_s` of the connection opening or the previous answer, else the connection closes."""

from __future__ import annotations

import asyncio
import errno
import socket
from typing import Any

import h11
import uvicorn
from uvicorn.protocols.http.h11_impl import H11Protocol

DEFAULT_READ_TIMEOUT_S = 15.0
KEEP_ALIVE_S = 5
_ARRIVING = (h11.IDLE, h11.SEND_BODY)
"""The client's states while its request is still arriving."""


class TimedH11Protocol(H11Protocol):
    read_timeout_s = DEFAULT_READ_TIMEOUT_S

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]  # uvicorn's H11Protocol narrows it too
        self._read_deadline: asyncio.TimerHandle | None = None
        super().connection_made(transport)
        self._arm()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def handle_events(self) -> None:
        super().handle_events()
        if self.conn.their_state not in _ARRIVING:
            self._disarm()  # the whole request is in: the app's time is the app's

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and self.conn.their_state in _ARRIVING:
            self._arm()  # the next request on this connection has its own deadline

    def _arm(self) -> None:
        self._disarm()
        self._read_deadline = self.loop.call_later(self.read_timeout_s, self._read_timed_out)

    def _disarm(self) -> None:
        if self._read_deadline is not None:
            self._read_deadline.cancel()
            self._read_deadline = None

    def _read_timed_out(self) -> None:
        self._read_deadline = None
        if self.conn.their_state in _ARRIVING and not self.transport.is_closing():
            self.logger.info(
                "closing a connection whose request did not arrive within %s s", self.read_timeout_s
            )
            self.transport.close()


def protocol(read_timeout_s: float) -> type[TimedH11Protocol]:
    """The protocol class with its timeout (uvicorn builds one protocol per connection)."""
    return type("ShuH11Protocol", (TimedH11Protocol,), {"read_timeout_s": read_timeout_s})


def uvicorn_config(app: Any, host: str, port: int, read_timeout_s: float) -> uvicorn.Config:
    return uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level="warning",
        http=protocol(read_timeout_s),
        ws="none",
        timeout_keep_alive=KEEP_ALIVE_S,
        proxy_headers=False,  # X-Forwarded-For would let a client name its own address to the limits
    )


def bind_sockets(host: str, port: int) -> list[socket.socket]:
    """Sockets bound to every address `host` names (as uvicorn would bind them: address reuse on,
    IPv6 sockets for IPv6 only), for uvicorn to listen on; `OSError` with a one-line reason
    (`cannot_bind`) when one cannot be bound, before anything is served or announced."""
    bound: list[socket.socket] = []
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        for family, kind, proto, _, address in dict.fromkeys(found):
            try:
                sock = socket.socket(family, kind, proto)
            except OSError:  # a family this machine has no support for (as asyncio skips it)
                continue
            bound.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if family == socket.AF_INET6:
                sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            sock.bind(address)
            sock.set_inheritable(True)
    except OSError:
        for sock in bound:
            sock.close()
        raise
    return bound


def cannot_bind(host: str, port: int, exc: OSError) -> str:
    """Why `host:port` cannot be served, in one line."""
    where = f"{host}:{port}"
    if isinstance(exc, socket.gaierror):
        return f"cannot serve on {where}: {host!r} is no address of this machine ({exc.strerror})"
    if exc.errno == errno.EADDRINUSE:
        return f"cannot serve on {where}: the port is in use (another server?); choose another with --port"
    if exc.errno == errno.EACCES:
        return f"cannot serve on {where}: not allowed to bind port {port} (ports below 1024 need privileges)"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot serve on {where}: {host} is no address of this machine"
    return f"cannot serve on {where}: {exc.strerror or exc}"

"""Slow clients on a real server: a connection whose request (head and body) has not arrived
within `server.read_timeout_s` is closed, however it trickles; a prompt client is unaffected."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import httpx

from shu.serve.background import running
from shu.serve.http import create_app
from tests.serve.conftest import SmallKB

BOUND_S = 30.0


def _closed_within(sock: socket.socket, trickle: bytes, seconds: float) -> float | None:
    """Send `trickle` a byte at a time, every 0.2 s; the seconds until the server closed the
    connection (None: still open after `seconds`)."""
    started = time.monotonic()
    sock.settimeout(0.2)
    sent = 0
    while time.monotonic() - started < seconds:
        try:
            if sock.recv(4096) == b"":
                return time.monotonic() - started
        except TimeoutError:
            pass
        except ConnectionResetError:
            return time.monotonic() - started
        if not trickle:
            continue
        try:
            sock.send(trickle[sent % len(trickle) : sent % len(trickle) + 1])
            sent += 1
        except (BrokenPipeError, ConnectionResetError):
            return time.monotonic() - started
    return None


def test_a_connection_trickling_its_headers_is_closed(small_kb: SmallKB) -> None:
    with running(create_app(small_kb("server.read_timeout_s=2"))) as url:
        parts = urlsplit(url)
        head = f"GET /healthz HTTP/1.1\r\nHost: {parts.netloc}\r\n" + "X-Slow: " + "a" * 4000
        with socket.create_connection((parts.hostname, parts.port)) as sock:
            closed = _closed_within(sock, head.encode(), BOUND_S)
        assert closed is not None, f"a trickling connection was still open after {BOUND_S} s"
        assert httpx.get(f"{url}/healthz").status_code == 200


def test_a_silent_connection_and_a_trickled_body_are_closed(small_kb: SmallKB) -> None:
    with running(create_app(small_kb("server.read_timeout_s=2"))) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port)) as silent:
            assert _closed_within(silent, b"", BOUND_S) is not None, "a connection sending nothing stays open"
        head = (
            f"POST /v1/feedback HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
            "Content-Length: 60000\r\n\r\n"
        )
        with socket.create_connection((parts.hostname, parts.port)) as sock:
            sock.sendall(head.encode())
            assert _closed_within(sock, b" " * 60000, BOUND_S) is not None, "a trickled body stays open"


def test_a_kept_alive_connection_is_closed_when_its_next_request_trickles(small_kb: SmallKB) -> None:
    with running(create_app(small_kb("server.read_timeout_s=2"))) as url:
        parts = urlsplit(url)
        request = f"GET /healthz HTTP/1.1\r\nHost: {parts.netloc}\r\n\r\n".encode()
        with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
            sock.sendall(request)
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            sock.send(request[:5])
            assert _closed_within(sock, request[5:-4] + b"X: y\r\n", BOUND_S) is not None

"""Hostile requests against a real server on loopback (real sockets, real uvicorn): a foreign
`Host` on a server without keys and on one with keys (a 2xx is a breach), a chunked body past the
limit (not a 413, or one of 64 MiB read to its end, is a breach), JSON no encoder writes back — a lone
surrogate, NaN, Infinity — on every JSON route and at /mcp (a 5xx is a crash), one key holding
more requests than it may (no 429 is a breach; another key's search or /healthz not answering is a
hang), one key past its requests a minute (no 429 is a breach), and connections trickling their
request a byte at a time (one left open is a hang).

Sign-in (`signin_abuse.py`'s rows, on the same server and store): concurrent wrong passwords
(more checked than the lockout allows is a breach; the user locked out from another address is
data lost), a known and an unknown name answered differently (a breach), 32 concurrent sign-ins
and 32 trickling keyless bodies while a keyed search must answer (a 503 is a breach), a session
sharing its address's allowance (a breach), and a forged key or junk cookie sending a 45 MB
upload (no 401 before the body is a breach)."""

from __future__ import annotations

import contextlib
import selectors
import socket
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit

import httpx

from shu.kb import KnowledgeBase, open_kb
from shu.serve.background import running
from shu.serve.http import MAX_BODY_BYTES, create_app
from shu_eval.faults.checks import Check, store_label, store_overrides, walls_corpus
from shu_eval.faults.signin_abuse import sign_in_rows

READ_TIMEOUT_S = 2.0
ANSWER_WITHIN_S = 20.0
"""Generous: another key's search and /healthz on a busy 2-core machine."""
TRICKLERS = 40
FOREIGN = ("attacker.example", "alpha.attacker.example:8000", "127.0.0.1.attacker.example")
SEARCH = {"question": "What is the vault code?", "persona": "alpha"}
PROBES = [
    ("GET", "/healthz", None),
    ("GET", "/v1/personas", None),
    ("POST", "/v1/search", SEARCH),
    ("POST", "/v1/jobs", {"kind": "ingest", "path": "/"}),
    ("GET", "/", None),
    ("GET", "/docs", None),
    ("POST", "/mcp", {"jsonrpc": "2.0", "id": 1, "method": "ping"}),
]
JSON_ROUTES = [
    ("POST", "/v1/search", '{"question": %s, "persona": "alpha"}'),
    ("POST", "/v1/search", '{"question": "vault", "persona": "alpha", "limit": %s}'),
    ("POST", "/v1/ask", '{"question": %s, "persona": "alpha"}'),
    ("POST", "/v1/ask", '{"question": "vault", "persona": "alpha", "stream": %s}'),
    ("POST", "/v1/search", '{"question": "vault", "persona": "alpha", "filter": {"since": %s}}'),
    ("POST", "/v1/ask", '{"question": "vault", "persona": "alpha", "filter": {"people": [%s]}}'),
    ("POST", "/v1/chat/completions", '{"model": "alpha", "messages": [{"role": "user", "content": %s}]}'),
    ("POST", "/v1/chat/completions", '{"model": %s, "messages": [{"role": "user", "content": "vault"}]}'),
    ("POST", "/v1/feedback", '{"persona": "alpha", "kind": "up", "question": %s}'),
    ("PUT", "/v1/users/me", '{"name": %s}'),
    ("POST", "/v1/jobs", '{"kind": "ingest", "path": %s}'),
    (
        "POST",
        "/mcp",
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": '
        '{"name": "search", "arguments": {"question": %s, "persona": "alpha"}}}',
    ),
]
UNENCODABLE = ('"\\ud800"', '"vault \\udfff"', "NaN", "Infinity", "-Infinity", "1e999")


def server_abuse_check(work: Path, url: str = "") -> Check:
    """Every row against a real server over the store `url` names (PostgreSQL; "": SQLite)."""
    root = walls_corpus(work / "abuse")
    check = Check(f"hostile requests (HTTP){store_label(url)}", 0)
    overrides = ["answer.cache=false", f"server.read_timeout_s={READ_TIMEOUT_S}", *store_overrides(url)]
    with open_kb(work / "abuse-home", overrides) as kb:
        kb.ingest(root)
        with running(create_app(kb)) as url:
            _foreign_hosts(url, None, "without keys", check)
        tokens = {
            name: kb.accounts.create_key(name, admin=True)[1]
            for name in ("hosts", "json", "busy", "calm", "rate")
        }
        with running(create_app(kb)) as url:
            _foreign_hosts(url, tokens["hosts"], "with keys", check)
            _oversized_chunked(url, tokens["json"], check)
            _unencodable(url, tokens["json"], check)
            _held(url, kb, tokens["busy"], tokens["calm"], check)
            _per_minute(url, kb, tokens["rate"], check)
            _tricklers(url, check)
        sign_in_rows(kb, check)
    return check


def _headers(token: str | None, **more: str) -> dict[str, str]:
    return ({"Authorization": f"Bearer {token}"} if token else {}) | more


def _foreign_hosts(url: str, token: str | None, server: str, check: Check) -> None:
    for host in FOREIGN:
        for method, path, body in PROBES:
            check.inputs += 1
            headers = _headers(token, Host=host)
            response = httpx.request(method, url + path, json=body, headers=headers, timeout=60)
            where = f"{method} {path} with Host {host} ({server})"
            if response.status_code >= 500:
                check.crashes += 1
                check.notes.append(f"{where}: {response.status_code}")
            elif response.status_code < 400:
                check.breaches += 1
                check.notes.append(f"{where}: {response.status_code}, answered")


def _oversized_chunked(url: str, token: str, check: Check) -> None:
    """A chunked body a little past the limit, whole: a 413. One of up to 64 MiB (more than any
    socket buffers hold), chunk by chunk until the server answers: it must not be read to its end."""
    parts = urlsplit(url)
    head = (
        f"POST /v1/feedback HTTP/1.1\r\nHost: {parts.netloc}\r\nAuthorization: Bearer {token}\r\n"
        "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
    ).encode()
    size, most, sent = 16 * 1024, 64 * 1024 * 1024, 0
    chunk = f"{size:x}\r\n".encode() + b"[" * size + b"\r\n"
    check.inputs += 2
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(head + chunk * (MAX_BODY_BYTES // size + 1) + b"0\r\n\r\n")
        status = _status_line(sock)
    if not status.startswith("HTTP/1.1 413"):
        check.breaches += 1
        check.notes.append(f"a chunked body past {MAX_BODY_BYTES} bytes: {status or 'no answer'}")
    with socket.create_connection((parts.hostname, parts.port), timeout=60) as sock:
        sock.sendall(head)
        with contextlib.suppress(OSError):
            while sent < most and not _readable([sock], 0):
                sock.sendall(chunk)
                sent += size
    if sent >= most:
        check.breaches += 1
        check.notes.append(f"a chunked body of {most} bytes was read to its end")


def _readable(socks: list[socket.socket], timeout_s: float) -> list[socket.socket]:
    """The sockets with something to read (or closed) within `timeout_s` (poll: any fd number)."""
    with selectors.DefaultSelector() as selector:
        for sock in socks:
            selector.register(sock, selectors.EVENT_READ)
        # the file objects registered above: sockets
        return [cast(socket.socket, key.fileobj) for key, _ in selector.select(timeout_s)]


def _status_line(sock: socket.socket) -> str:
    try:
        return sock.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
    except OSError:
        return ""


def _unencodable(url: str, token: str, check: Check) -> None:
    headers = _headers(
        token, **{"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    )
    for method, path, template in JSON_ROUTES:
        for value in UNENCODABLE:
            check.inputs += 1
            body = (template % value).encode()
            response = httpx.request(method, url + path, content=body, headers=headers, timeout=60)
            if response.status_code >= 500:
                check.crashes += 1
                check.notes.append(f"{method} {path} {body[:80]!r}: {response.status_code}")


def _held(url: str, kb: KnowledgeBase, busy: str, calm: str, check: Check) -> None:
    """`busy` holds more uploads than it may (their bodies still streaming into the route: a
    request's place is taken once its body is in, an upload's as it streams); the ones beyond its
    limit must get 429, while `calm` searches and /healthz answers."""
    allowed = kb.settings.server.concurrent_per_caller
    parts = urlsplit(url)
    body = b"--b\r\n" + b"x" * 995
    head = (
        f"POST /v1/personas/alpha/documents HTTP/1.1\r\nHost: {parts.netloc}\r\n"
        f"Authorization: Bearer {busy}\r\n"
        f"Content-Type: multipart/form-data; boundary=b\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    held = [socket.create_connection((parts.hostname, parts.port), timeout=60) for _ in range(allowed + 4)]
    try:
        for sock in held:
            sock.sendall(head + body[:5])
            time.sleep(0.05)  # in order: the first ones take the places
        deadline = time.monotonic() + ANSWER_WITHIN_S
        answered: list[socket.socket] = []
        while len(answered) < len(held) - allowed and time.monotonic() < deadline:
            answered = _readable(held, 0.2)
        refused = [s for s in answered if _status_line(s).startswith("HTTP/1.1 429")]
        check.inputs += len(held)
        if len(refused) < len(held) - allowed:
            check.breaches += 1
            check.notes.append(
                f"{len(held)} uploads held at once by one key: {len(refused)} refused with 429"
            )
        with ThreadPoolExecutor(2) as pool:
            search = pool.submit(_timed, "POST", f"{url}/v1/search", SEARCH, calm)
            health = pool.submit(_timed, "GET", f"{url}/healthz", None, None)
            for name, outcome in (("another key's search", search.result()), ("/healthz", health.result())):
                check.inputs += 1
                if outcome is None:
                    check.hangs += 1
                    check.notes.append(f"{name} did not answer within {ANSWER_WITHIN_S:.0f} s of a burst")
    finally:
        for sock in held:
            sock.close()


def _timed(method: str, url: str, body: object, token: str | None) -> float | None:
    started = time.monotonic()
    try:
        response = httpx.request(method, url, json=body, headers=_headers(token), timeout=ANSWER_WITHIN_S)
    except httpx.TimeoutException:
        return None
    return time.monotonic() - started if response.status_code == 200 else None


def _per_minute(url: str, kb: KnowledgeBase, token: str, check: Check) -> None:
    most = kb.settings.server.requests_per_minute
    with httpx.Client(headers=_headers(token), timeout=60) as client:
        statuses = [client.get(f"{url}/v1/me").status_code for _ in range(most + 5)]
    check.inputs += len(statuses)
    if 429 not in statuses:
        check.breaches += 1
        check.notes.append(f"{most + 5} requests in a row from one key: no 429 ({sorted(set(statuses))})")


def _tricklers(url: str, check: Check) -> None:
    """`TRICKLERS` connections sending their headers a byte at a time: each must be closed by the
    server within the read timeout (and a generous margin)."""
    parts = urlsplit(url)
    head = f"GET /healthz HTTP/1.1\r\nHost: {parts.netloc}\r\nX-Slow: ".encode() + b"a" * 4000
    open_ = [socket.create_connection((parts.hostname, parts.port), timeout=60) for _ in range(TRICKLERS)]
    for sock in open_:
        sock.setblocking(False)
    check.inputs += len(open_)
    deadline, sent = time.monotonic() + READ_TIMEOUT_S + ANSWER_WITHIN_S, 0
    try:
        while open_ and time.monotonic() < deadline:
            readable = _readable(open_, 0.2)
            open_ = [s for s in open_ if s not in readable or not _closed(s)]
            for sock in open_:
                with contextlib.suppress(OSError):
                    sock.send(head[sent % len(head) : sent % len(head) + 1])
            sent += 1
        if open_:
            check.hangs += len(open_)
            check.notes.append(
                f"{len(open_)} connections trickling their headers still open after {sent} bytes"
            )
    finally:
        for sock in open_:
            sock.close()


def _closed(sock: socket.socket) -> bool:
    try:
        closed = sock.recv(4096) == b""
    except BlockingIOError:
        return False
    except OSError:
        closed = True
    if closed:
        sock.close()
    return closed

"""What one caller may take from a real server on loopback: a request body of at most
`MAX_BODY_BYTES` however it is sent, a few requests at once and so many a minute (429 with
Retry-After beyond), while another key's search and /healthz still answer."""

from __future__ import annotations

import contextlib
import select
import socket
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import urlsplit

import httpx

from shu.serve.background import running
from shu.serve.http import MAX_BODY_BYTES, create_app
from tests.conftest import CountingEmbedder
from tests.serve.conftest import PRO, SmallKB

CHUNK = 16 * 1024
MOST_SENT = 64 * 1024 * 1024
"""More than any socket buffers hold: a client sends it all only when the server reads it all."""
SEARCH = {"question": "What does the Pro plan cost?", "persona": "lumen"}


def test_a_chunked_body_past_the_limit_is_413_with_a_message(small_kb: SmallKB) -> None:
    with running(create_app(small_kb())) as url:
        parts = urlsplit(url)
        with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
            sock.sendall(_chunked_head(url, "/v1/feedback") + _chunk() * 5 + b"0\r\n\r\n")
            answer = _read_all(sock)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    said = b"request body over %d bytes" % MAX_BODY_BYTES
    expected = (
        b'{"detail":"%s","error":{"message":"%s","type":"invalid_request_error","param":null,"code":"413"}}'
    )
    assert answer.endswith(expected % (said, said)), answer[-300:]


def test_a_huge_chunked_body_is_not_read_to_its_end(small_kb: SmallKB) -> None:
    """Chunks until the server answers or drops the connection, at most `MOST_SENT`."""
    with running(create_app(small_kb())) as url:
        parts = urlsplit(url)
        sent = 0
        with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
            sock.sendall(_chunked_head(url, "/v1/feedback"))
            chunk = _chunk()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                while sent < MOST_SENT and not select.select([sock], [], [], 0)[0]:
                    sock.sendall(chunk)
                    sent += CHUNK
            answer = _read_all(sock)
    assert sent < MOST_SENT, "the server read the whole body"
    assert answer == b"" or answer.startswith(b"HTTP/1.1 413"), answer[:200]


def test_a_chunked_body_within_the_limit_is_read(small_kb: SmallKB) -> None:
    with running(create_app(small_kb())) as url:
        body = b'{"question": "What does the Pro plan cost?", "persona": "lumen"}'
        response = httpx.post(
            f"{url}/v1/search",
            content=iter([body[:10], body[10:]]),
            headers={"content-type": "application/json"},
        )
        assert response.status_code == 200 and response.json()["hits"][0]["citation"] == PRO


def _chunked_head(url: str, path: str) -> bytes:
    return (
        f"POST {path} HTTP/1.1\r\nHost: {urlsplit(url).netloc}\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: chunked\r\n\r\n"
    ).encode()


def _chunk() -> bytes:
    return f"{CHUNK:x}\r\n".encode() + b"{" + b" " * (CHUNK - 1) + b"\r\n"


def _read_all(sock: socket.socket) -> bytes:
    """Everything until the server closes (or 30 s); a reset ends it too."""
    received = b""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            piece = sock.recv(65536)
        except ConnectionResetError:
            break
        if not piece:
            break
        received += piece
    return received


def test_one_key_gets_429_beyond_its_concurrent_requests_and_others_still_answer(small_kb: SmallKB) -> None:
    release = threading.Event()

    def slow(messages: Any, schema: Any) -> str:
        if schema is None:  # the answer is slow to write (a search's plan is not)
            release.wait(60)
        return f"The Pro plan costs $65. {PRO}"

    kb = small_kb("server.concurrent_per_caller=2", reply=slow)
    ana, bob = (kb.accounts.create_key(user, ["lumen"])[1] for user in ("ana", "bob"))
    body = {
        "question": "What does the Pro plan cost?",
        "persona": "lumen",
        "use_cache": False,
        "stream": True,
    }
    with running(create_app(kb)) as url, ThreadPoolExecutor(12) as pool:

        def ask() -> httpx.Response:
            return httpx.post(
                f"{url}/v1/ask", json=body, headers={"Authorization": f"Bearer {ana}"}, timeout=90
            )

        asks = [pool.submit(ask) for _ in range(10)]
        deadline = time.monotonic() + 30
        while sum(f.done() for f in asks) < 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        refused = [f.result() for f in asks if f.done() and f.result().status_code == 429]
        health = httpx.get(f"{url}/healthz", timeout=30)
        search = httpx.post(
            f"{url}/v1/search", json=SEARCH, headers={"Authorization": f"Bearer {bob}"}, timeout=30
        )
        release.set()
        statuses = sorted(f.result().status_code for f in asks)
    assert len(refused) == 8 and statuses == [200, 200] + [429] * 8, statuses
    for response in refused:
        assert int(response.headers["retry-after"]) >= 1 and "at once" in response.json()["detail"]
        error = response.json()["error"]  # as OpenAI's clients read it
        assert (error["type"], error["code"], error["message"]) == (
            "rate_limit_error",
            "429",
            response.json()["detail"],
        )
    assert health.status_code == 200, "/healthz answers while ana's asks hold their places"
    assert search.status_code == 200 and search.json()["hits"], "bob's search is not queued behind ana's asks"


def test_one_key_gets_429_beyond_its_requests_per_minute(small_kb: SmallKB) -> None:
    kb = small_kb("server.requests_per_minute=5")
    ana, bob = (kb.accounts.create_key(user, ["lumen"])[1] for user in ("ana", "bob"))
    with running(create_app(kb)) as url:
        statuses = [
            httpx.get(f"{url}/v1/personas", headers={"Authorization": f"Bearer {ana}"}).status_code
            for _ in range(8)
        ]
        last = httpx.get(f"{url}/v1/personas", headers={"Authorization": f"Bearer {ana}"})
        other = httpx.get(f"{url}/v1/personas", headers={"Authorization": f"Bearer {bob}"})
        forged = httpx.get(f"{url}/v1/personas", headers={"Authorization": f"Bearer {ana[:-3]}xyz"})
        spoofed = [  # no key: counted by address, and a header cannot name another one
            httpx.get(f"{url}/v1/personas", headers={"X-Forwarded-For": f"10.0.0.{n}"}).status_code
            for n in range(7)
        ]
        health = [httpx.get(f"{url}/healthz").status_code for _ in range(10)]
    assert statuses == [200] * 5 + [429] * 3, statuses
    assert last.status_code == 429 and 1 <= int(last.headers["retry-after"]) <= 60
    assert "per minute" in last.json()["detail"]
    assert other.status_code == 200, "another key has its own allowance"
    assert forged.status_code == 401, "a forged token spends no allowance of the key it names"
    assert health == [200] * 10, "/healthz is never limited"
    assert spoofed.count(429) >= 2, spoofed


def test_all_callers_together_get_503_beyond_the_total(small_kb: SmallKB) -> None:
    """A request takes its place once its body is in (a body still arriving holds none)."""
    entered, release = threading.Event(), threading.Event()

    def slow(messages: Any, schema: Any) -> str:
        if schema is None:
            entered.set()
            release.wait(60)
        return f"The Pro plan costs $65. {PRO}"

    kb = small_kb("server.concurrent_total=1", reply=slow)
    ana, bob = (kb.accounts.create_key(user, ["lumen"])[1] for user in ("ana", "bob"))
    with running(create_app(kb)) as url, ThreadPoolExecutor(1) as pool:
        body = SEARCH | {"use_cache": False}
        asked = pool.submit(
            httpx.post, f"{url}/v1/ask", json=body, headers={"Authorization": f"Bearer {ana}"}, timeout=90
        )
        try:
            assert entered.wait(60), "ana's ask is being written"
            busy = httpx.post(f"{url}/v1/search", json=SEARCH, headers={"Authorization": f"Bearer {bob}"})
        finally:
            release.set()
        assert asked.result().status_code == 200
        after = httpx.post(f"{url}/v1/search", json=SEARCH, headers={"Authorization": f"Bearer {bob}"})
    assert busy.status_code == 503 and busy.headers["retry-after"] == "1" and "busy" in busy.json()["detail"]
    assert after.status_code == 200


def test_healthz_answers_while_every_worker_thread_is_busy(
    small_kb: SmallKB, embedder: CountingEmbedder
) -> None:
    kb = small_kb("server.concurrent_per_caller=60", "server.concurrent_total=60")
    entered: list[str] = []
    release = threading.Event()
    embed = embedder.embed_query

    def blocked(text: str) -> Any:
        entered.append(text)
        release.wait(60)
        return embed(text)

    embedder.embed_query = blocked  # type: ignore[method-assign]  # each search holds its thread
    with running(create_app(kb)) as url, ThreadPoolExecutor(45) as pool:
        try:
            searches = [
                pool.submit(
                    httpx.post, f"{url}/v1/search", json=SEARCH | {"question": f"Pro plan {n}"}, timeout=90
                )
                for n in range(45)
            ]
            deadline = time.monotonic() + 60
            while len(entered) < 40 and time.monotonic() < deadline:
                time.sleep(0.1)
            health = httpx.get(f"{url}/healthz", timeout=20)
        finally:
            release.set()
        statuses = {f.result().status_code for f in searches}
    assert len(entered) >= 40, "the 40 worker threads were all held by searches"
    assert health.status_code == 200 and health.json()["auth"] is False
    assert statuses == {200}

"""Sign-in and the limits through a real server on loopback (issue 40, items 8–12): requests
without good credentials — sign-ins and trickled bodies among them — never take a keyed user's
place; a session has its own allowance, apart from its address's keyless requests; a configured
proxy's X-Forwarded-For names the client (nobody else's); a forged key or a junk cookie gets its
401 before an upload's body is read; a known and an unknown name answer alike, and a lockout holds
one address, not the user."""

from __future__ import annotations

import re
import socket
import time
from typing import Any
from urllib.parse import urlsplit

import httpx

from shu.serve.background import running
from shu.serve.http import create_app
from shu.serve.sessions_http import logins_of
from tests.serve.conftest import PRO, SmallKB

PASSWORD = "a long enough password"
SEARCH = {"question": "What does the Pro plan cost?", "persona": "lumen"}


def _held(url: str, path: str, count: int, headers: str = "") -> list[socket.socket]:
    """`count` requests whose body has only begun to arrive (the rest never sent), each from
    another address (one address may hold only `concurrent_per_caller`)."""
    parts = urlsplit(url)
    body = b'{"name": "ana", "password": "' + b"x" * 40 + b'"}'
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\n{headers}"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
    ).encode()
    held = []
    for number in range(count):  # each from an address of its own (every 127.x.y.z is loopback)
        source = (f"127.0.{1 + number // 200}.{1 + number % 200}", 0)
        sock = socket.create_connection((parts.hostname, parts.port), timeout=30, source_address=source)
        sock.sendall(head + body[:5])
        held.append(sock)
    time.sleep(0.5)
    return held


def test_trickled_bodies_without_a_key_take_no_keyed_place(small_kb: SmallKB) -> None:
    """32 sign-ins and 32 keyless searches trickling their bodies: a keyed search still answers."""
    kb = small_kb("server.read_timeout_s=60")
    _, token = kb.accounts.create_key("ana", ["lumen"])
    with running(create_app(kb)) as url:
        held = _held(url, "/v1/session", 32) + _held(url, "/v1/search", 32)
        try:
            search = httpx.post(
                f"{url}/v1/search", json=SEARCH, headers={"Authorization": f"Bearer {token}"}, timeout=30
            )
            forged = httpx.post(f"{url}/v1/search", json=SEARCH, headers={"Authorization": "Bearer shu_x_y"})
        finally:
            for sock in held:
                sock.close()
    assert search.status_code == 200 and search.json()["hits"][0]["citation"] == PRO, search.text
    assert forged.status_code == 401


def test_requests_without_good_credentials_have_a_small_pool_of_their_own(small_kb: SmallKB) -> None:
    """Keyless uploads in their route (their small bodies still streaming in) fill
    `concurrent_unauthenticated`: one more keyless request is a 503, a keyed search answers."""
    kb = small_kb(
        "server.concurrent_unauthenticated=2", "server.concurrent_total=2", "server.read_timeout_s=60"
    )
    _, token = kb.accounts.create_key("ana", ["lumen"])
    with running(create_app(kb)) as url:
        parts = urlsplit(url)
        head = (
            f"POST /v1/personas/lumen/documents HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 1000\r\n\r\n--b\r\n"
        ).encode()
        held = []
        for _ in range(2):
            sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
            sock.sendall(head)
            held.append(sock)
        time.sleep(0.5)
        try:
            keyless = httpx.get(f"{url}/v1/personas", timeout=30)
            keyed = [
                httpx.post(
                    f"{url}/v1/search", json=SEARCH, headers={"Authorization": f"Bearer {token}"}, timeout=30
                ).status_code
                for _ in range(3)
            ]
        finally:
            for sock in held:
                sock.close()
    assert keyless.status_code == 503 and "server.concurrent_unauthenticated" in keyless.json()["detail"]
    assert keyed == [200, 200, 200]


def test_a_session_has_its_own_allowance_apart_from_its_address(small_kb: SmallKB) -> None:
    kb = small_kb("server.requests_per_minute=5")
    logins_of(kb).add("ana", PASSWORD, reads=["lumen"])
    kb.accounts.create_key("ops", admin=True)
    with running(create_app(kb)) as url, httpx.Client(base_url=url, timeout=30) as browser:
        assert browser.post("/v1/session", json={"name": "ana", "password": PASSWORD}).status_code == 200
        signed_in = [browser.get("/v1/me").status_code for _ in range(6)]
        anonymous = [httpx.get(f"{url}/v1/personas").status_code for _ in range(5)]
    assert signed_in == [200] * 5 + [429], "the session's own five, then its own 429"
    assert anonymous == [401] * 4 + [429], "the address's five, the sign-in one of them"


def test_a_trusted_proxys_forwarded_address_is_believed(small_kb: SmallKB) -> None:
    kb = small_kb("server.requests_per_minute=3", "server.trusted_proxies=127.0.0.1")
    kb.accounts.create_key("ops", admin=True)
    with running(create_app(kb)) as url:

        def statuses(forwarded: str) -> list[int]:
            headers = {"X-Forwarded-For": forwarded}
            return [httpx.get(f"{url}/v1/personas", headers=headers).status_code for _ in range(4)]

        one, other = statuses("198.51.100.1"), statuses("198.51.100.2")
        hops = statuses("198.51.100.3, 127.0.0.1")  # the right-most hop that is no trusted proxy
    assert one == other == hops == [401] * 3 + [429], (one, other, hops)


def test_a_forged_key_or_a_junk_cookie_gets_401_before_an_upload_is_read(small_kb: SmallKB) -> None:
    kb = small_kb()
    _, reader = kb.accounts.create_key("rita", ["lumen"])
    with running(create_app(kb)) as url:
        answers = {
            who: _upload_head(url, header)
            for who, header in [
                ("forged key", "Authorization: Bearer shu_abcdef_forged\r\n"),
                ("junk cookie", "Cookie: shu_session=junk\r\n"),
                ("nothing", ""),
                ("a reader", f"Authorization: Bearer {reader}\r\n"),
            ]
        }
    assert answers["forged key"].startswith("HTTP/1.1 401"), answers
    assert answers["junk cookie"].startswith("HTTP/1.1 401"), answers
    assert answers["nothing"].startswith("HTTP/1.1 401"), answers
    assert answers["a reader"].startswith("HTTP/1.1 403"), answers


def _upload_head(url: str, header: str) -> str:
    """The status line a 45 MB upload gets with only its head sent ('' when none came in 5 s)."""
    parts = urlsplit(url)
    head = (
        f"POST /v1/personas/lumen/documents HTTP/1.1\r\nHost: {parts.netloc}\r\n{header}"
        "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 45000000\r\n\r\n"
    ).encode()
    with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
        sock.sendall(head + b"--b\r\n")
        try:
            return sock.recv(4096).split(b"\r\n", 1)[0].decode()
        except TimeoutError:
            return ""


def _sign_in(url: str, name: str, password: str, forwarded: str) -> httpx.Response:
    return httpx.post(
        f"{url}/v1/session",
        json={"name": name, "password": password},
        headers={"X-Forwarded-For": forwarded},
        timeout=30,
    )


def test_a_known_and_an_unknown_name_answer_alike_and_a_lockout_holds_one_address(
    small_kb: SmallKB,
) -> None:
    kb = small_kb("server.trusted_proxies=127.0.0.1")
    logins_of(kb).add("root", PASSWORD, admin=True)
    with running(create_app(kb)) as url:
        answers: dict[str, list[Any]] = {}
        for name in ("root", "nobody"):
            tries = [_sign_in(url, name, "not the password", "203.0.113.9") for _ in range(6)]
            answers[name] = [
                (r.status_code, re.sub(r"after \S+", "after …", r.json()["detail"])) for r in tries
            ]
        locked = _sign_in(url, "root", PASSWORD, "203.0.113.9")
        inside = _sign_in(url, "root", PASSWORD, "10.0.0.2")
    assert answers["root"] == answers["nobody"], answers
    assert [status for status, _ in answers["root"]] == [401] * 4 + [423] * 2
    assert locked.status_code == 423, "the address that guessed stays locked out"
    assert inside.status_code == 200, "the admin signs in from elsewhere"

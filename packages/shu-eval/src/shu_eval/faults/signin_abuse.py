"""The hostile-requests check's sign-in rows (issue 40, items 8–12), against a real server over
the check's store: 64 concurrent wrong passwords for the admin from one address (more checked
than the lockout allows is a breach; the admin then refused from another address is data lost),
a known and an unknown name answered differently (a breach), 32 concurrent sign-ins and 32
keyless bodies trickling in while a keyed search must answer (a 503 is a breach, none in time a
hang), a session sharing its address's allowance (a breach), and a forged key or a junk cookie
announcing a 45 MB upload (anything but a 401 before the body is a breach)."""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import urlsplit

import httpx

from shu.accounts.logins import MAX_FAILURES
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from shu.serve.sessions_http import logins_of
from shu_eval.faults.checks import Check

PASSWORD = "a long enough password"
ADMIN, USER = "abuse-admin", "abuse-user"
ATTACKER, INSIDE = "203.0.113.66", "10.0.0.2"
ANSWER_WITHIN_S = 20.0
SEARCH = {"question": "What is the vault code?", "persona": "alpha"}
BURST = 32


def sign_in_rows(kb: KnowledgeBase, check: Check) -> None:
    """Users and a key of their own; the server trusts loopback as its proxy (so each request
    names its client in X-Forwarded-For), then one with 5 requests a minute for the buckets."""
    logins = logins_of(kb)
    logins.add(ADMIN, PASSWORD, admin=True)
    logins.add(USER, PASSWORD, reads=["alpha"])
    token = kb.accounts.create_key("abuse-calm", ["alpha"])[1]
    settings = kb.settings.server
    try:
        kb.settings.server = settings.model_copy(update={"trusted_proxies": ["127.0.0.1/32"]})
        with running(create_app(kb)) as url:
            _concurrent_guesses(url, check)
            _alike(url, check)
            _sign_in_burst(url, token, check)
            _trickling_keyless(url, token, check)
            _forged_upload(url, check)
        kb.settings.server = settings.model_copy(update={"requests_per_minute": 5})
        with running(create_app(kb)) as url:
            _buckets(url, check)
    finally:
        kb.settings.server = settings


def _sign_in(url: str, name: str, password: str, address: str) -> httpx.Response:
    return httpx.post(
        f"{url}/v1/session",
        json={"name": name, "password": password},
        headers={"X-Forwarded-For": address},
        timeout=60,
    )


def _concurrent_guesses(url: str, check: Check) -> None:
    """64 wrong passwords at once (16 at a time; a 503 — the keyless pool full — is sent again)."""

    def guess(number: int) -> int:
        deadline = time.monotonic() + ANSWER_WITHIN_S
        while True:
            status = _sign_in(url, ADMIN, f"wrong guess {number}", ATTACKER).status_code
            if status != 503 or time.monotonic() > deadline:
                return status
            time.sleep(0.05)

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(guess, range(64)))
    check.inputs += len(statuses)
    _crashes(statuses, "64 concurrent wrong passwords", check)
    checked = statuses.count(401) + (423 in statuses)  # each 401 was checked, so was the first 423
    answered = ", ".join(f"{n} × {status}" for status, n in sorted(Counter(statuses).items()))
    if checked > MAX_FAILURES or 423 not in statuses:
        check.breaches += 1
        check.notes.append(
            f"64 concurrent wrong passwords: {checked} checked, designed {MAX_FAILURES} then 423 ({answered})"
        )
    else:
        check.notes.append(f"64 concurrent wrong passwords: {checked} checked before 423 ({answered})")
    inside = _sign_in(url, ADMIN, PASSWORD, INSIDE)
    check.inputs += 1
    if inside.status_code != 200:
        check.lost += 1
        check.notes.append(
            f"the admin, guessed at from {ATTACKER}, signing in from {INSIDE}: {inside.status_code}"
        )


def _alike(url: str, check: Check) -> None:
    """A real name and one nobody has, six wrong passwords each: the same statuses and messages."""
    answers: dict[str, list[tuple[int, str]]] = {}
    for name in (USER, "nobody-at-all"):
        tries = [_sign_in(url, name, "not the password", "203.0.113.20") for _ in range(MAX_FAILURES + 1)]
        answers[name] = [(r.status_code, re.sub(r"after \S+", "after …", r.json()["detail"])) for r in tries]
        check.inputs += len(tries)
    if answers[USER] != answers["nobody-at-all"]:
        check.breaches += 1
        check.notes.append(
            f"a known and an unknown name answered differently: {[s for s, _ in answers[USER]]} "
            f"and {[s for s, _ in answers['nobody-at-all']]}"
        )


def _sign_in_burst(url: str, token: str, check: Check) -> None:
    """32 sign-ins at once, each from an address of its own (argon2id, 64 MiB each) while a key searches; the
    growth of this process's memory (the server's) is noted."""
    before, peak, done = _rss_mb(), [0.0], threading.Event()

    def sample() -> None:
        while not done.wait(0.02):
            peak[0] = max(peak[0], _rss_mb())

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    with ThreadPoolExecutor(BURST) as pool:
        tries = [pool.submit(_sign_in_from, url, f"burst-{n}", _loopback(n)) for n in range(BURST)]
        time.sleep(0.2)
        search = _search(url, token)
        statuses = [t.result().status_code for t in tries]
    done.set()
    sampler.join()
    check.inputs += len(statuses) + 1
    _crashes(statuses, f"{BURST} concurrent sign-ins", check)
    during = f"{BURST} concurrent sign-ins"
    _keyed_answer(search, during, check)
    check.notes.append(
        f"{during}: {statuses.count(503)} × 503 (keyless pool full), memory +{peak[0] - before:.0f} MB"
    )


def _sign_in_from(url: str, name: str, source: str) -> httpx.Response:
    """A wrong password from the loopback address `source` (the server sees that address)."""
    with httpx.Client(transport=httpx.HTTPTransport(local_address=source), timeout=60) as client:
        return client.post(f"{url}/v1/session", json={"name": name, "password": "not the password"})


def _loopback(number: int) -> str:
    """An address of its own for each client: every 127.x.y.z is loopback."""
    return f"127.0.{1 + number // 200}.{1 + number % 200}"


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _trickling_keyless(url: str, token: str, check: Check) -> None:
    """16 sign-ins and 16 keyless searches trickling their bodies, each from an address of its
    own, while a key searches."""
    parts = urlsplit(url)
    body = b'{"name": "abuse-user", "password": "' + b"x" * 40 + b'"}'
    held: list[socket.socket] = []
    try:
        for number in range(BURST):
            path = "/v1/session" if number % 2 else "/v1/search"
            head = (
                f"POST {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\n\r\n"
            ).encode()
            source = (_loopback(number), 0)
            sock = socket.create_connection((parts.hostname, parts.port), timeout=60, source_address=source)
            sock.sendall(head + body[:5])
            held.append(sock)
        time.sleep(0.5)
        search = _search(url, token)
    finally:
        for sock in held:
            sock.close()
    check.inputs += len(held) + 1
    _keyed_answer(search, f"{BURST} keyless bodies trickling in", check)


def _forged_upload(url: str, check: Check) -> None:
    """A 45 MB upload's head with a forged key, and with a junk cookie: a 401 before the body."""
    parts = urlsplit(url)
    for who, header in (
        ("a forged key", "Authorization: Bearer shu_abcdef_forged\r\n"),
        ("a junk cookie", "Cookie: shu_session=junk\r\n"),
    ):
        head = (
            f"POST /v1/personas/alpha/documents HTTP/1.1\r\nHost: {parts.netloc}\r\n{header}"
            "Content-Type: multipart/form-data; boundary=b\r\nContent-Length: 45000000\r\n\r\n--b\r\n"
        ).encode()
        check.inputs += 1
        with socket.create_connection((parts.hostname, parts.port), timeout=5) as sock:
            sock.sendall(head)
            try:
                status = sock.recv(4096).split(b"\r\n", 1)[0].decode("latin-1")
            except OSError:
                status = ""
        if not status.startswith("HTTP/1.1 401"):
            check.breaches += 1
            check.notes.append(f"a 45 MB upload with {who}: {status or 'no answer in 5 s'}, not a 401 unread")


def _buckets(url: str, check: Check) -> None:
    """5 requests a minute: a signed-in browser's own five, apart from its address's keyless ones."""
    with httpx.Client(base_url=url, timeout=60) as browser:
        signed = browser.post("/v1/session", json={"name": USER, "password": PASSWORD}).status_code
        session = [browser.get("/v1/me").status_code for _ in range(6)]
    anonymous = [httpx.get(f"{url}/v1/personas", timeout=60).status_code for _ in range(5)]
    check.inputs += 1 + len(session) + len(anonymous)
    if signed != 200 or session != [200] * 5 + [429] or anonymous != [401] * 4 + [429]:
        check.breaches += 1
        check.notes.append(
            f"5 requests a minute: sign-in {signed}, the session {session}, its address {anonymous}"
        )


def _search(url: str, token: str) -> httpx.Response | None:
    try:
        return httpx.post(
            f"{url}/v1/search",
            json=SEARCH,
            headers={"Authorization": f"Bearer {token}"},
            timeout=ANSWER_WITHIN_S,
        )
    except httpx.TimeoutException:
        return None


def _keyed_answer(search: httpx.Response | None, during: str, check: Check) -> None:
    if search is None:
        check.hangs += 1
        check.notes.append(f"a keyed search during {during}: no answer in {ANSWER_WITHIN_S:.0f} s")
    elif search.status_code != 200:
        check.breaches += 1
        check.notes.append(f"a keyed search during {during}: {search.status_code} {search.text[:100]}")


def _crashes(statuses: list[int], what: str, check: Check) -> None:
    failed = [s for s in statuses if s >= 500 and s != 503]
    if failed:
        check.crashes += len(failed)
        check.notes.append(f"{what}: {sorted(set(failed))}")

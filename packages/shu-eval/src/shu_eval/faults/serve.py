"""The persona and user walls through the server's doors: a key per persona, every HTTP route
and MCP tool asked about its own persona and about each other one. A breach is a 2xx for another
persona, a document of another persona read through one's own, or another persona's secret in
any response; no key, a wrong key and a non-admin key must be refused (401, 401, 403); a 5xx is a
crash."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import httpx

from shu.kb import KnowledgeBase, open_kb
from shu.serve.background import running
from shu.serve.http import create_app
from shu.serve.sessions_http import logins_of
from shu_eval.faults.checks import (
    _MARK,
    OUTSIDE_MARK,
    PEOPLE_MARK,
    Check,
    clerk,
    store_label,
    store_overrides,
    walls_corpus,
)

PERSONAS = ("alpha", "beta", "gamma")
QUESTION = "What is the vault code?"


def serve_walls_check(work: Path, url: str = "") -> Check:
    """The walls through a real server over the store `url` names (PostgreSQL; "": SQLite)."""
    root = walls_corpus(work / "serve-walls")
    check = Check(f"persona and user walls (HTTP, MCP){store_label(url)}", 0)
    # every route is asked many times by one key: no per-minute limit in the way (its own tests)
    unlimited = ["answer.cache=false", "server.requests_per_minute=1000000", "server.job_turn_s=1"]
    with open_kb(work / "serve-walls-home", [*unlimited, *store_overrides(url)]) as kb:
        kb.ingest(root)
        tokens = {p: kb.accounts.create_key(f"user-{p}", [p])[1] for p in PERSONAS}
        with running(create_app(kb)) as url:
            for persona, token in tokens.items():
                _http_walls(kb, url, persona, token, check)
                _mcp_walls(kb, url, persona, token, check)
                _learning_walls(kb, url, persona, token, check)
            _conversation_walls(url, tokens, check)
            _document_walls(kb, url, check)
            _job_walls(kb, url, check)
            _session_walls(kb, url, check)
            _refusals(url, tokens["alpha"], check)
    return check


def _conversation_walls(url: str, tokens: dict[str, str], check: Check) -> None:
    """Each user's conversation, answered from their persona's vault, is "not found" for every
    other user on every conversation route, and never listed or leaked to them."""
    threads: dict[str, str] = {}
    for persona, token in tokens.items():
        headers = {"Authorization": f"Bearer {token}"}
        start = {"persona": persona}
        threads[persona] = httpx.post(f"{url}/v1/conversations", json=start, headers=headers).json()["id"]
        ask = {"question": QUESTION, "persona": persona, "conversation_id": threads[persona]}
        httpx.post(f"{url}/v1/ask", json=ask, headers=headers, timeout=120)
    for owner, thread in threads.items():
        for persona, token in tokens.items():
            if persona == owner:
                continue
            headers = {"Authorization": f"Bearer {token}"}
            ask = {"question": QUESTION, "persona": persona, "conversation_id": thread}
            for method, path, body in (
                ("GET", f"/v1/conversations/{thread}", None),
                ("GET", f"/v1/conversations/{thread}/export", None),
                ("PATCH", f"/v1/conversations/{thread}", {"title": "taken"}),
                ("DELETE", f"/v1/conversations/{thread}", None),
                ("POST", "/v1/ask", ask),
                ("GET", "/v1/conversations", None),
            ):
                check.inputs += 1
                response = httpx.request(method, url + path, json=body, headers=headers, timeout=120)
                where = f"HTTP {method} {path} as {persona} (conversation of {owner})"
                if response.status_code >= 500:
                    check.crashes += 1
                    check.notes.append(f"{where}: {response.status_code}")
                elif path != "/v1/conversations" and response.status_code != 404:
                    check.breaches += 1
                    check.notes.append(f"{where}: {response.status_code}, not 404")
                elif _MARK.format(persona=owner) in response.text or (
                    path == "/v1/conversations" and thread in response.text  # (a 404 names the id asked for)
                ):
                    check.breaches += 1
                    check.notes.append(f"{where}: the conversation or its answer in the response")


SESSION_PASSWORD = "walls of the sessions"
ADMIN_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/admin/users", None),
    ("POST", "/v1/admin/users", {"name": "mallory", "password": SESSION_PASSWORD, "admin": True}),
    ("PUT", "/v1/admin/users/user-alpha", {"reads": list(PERSONAS), "admin": True}),
    ("PUT", "/v1/admin/users/user-alpha/password", {"password": SESSION_PASSWORD + "!"}),
    ("POST", "/v1/admin/users/user-alpha/unlock", None),
    ("POST", "/v1/admin/users/user-beta/lock", None),
    ("GET", "/v1/stats", None),
]


def _session_walls(kb: KnowledgeBase, url: str, check: Check) -> None:
    """Users who sign in, one per persona: every route through a session cookie keeps to the
    user's persona like a key; a change without the session's CSRF token (or with another
    user's) is refused; a forged or signed-out cookie is nobody; the admin routes refuse users."""
    logins = logins_of(kb)
    sessions: dict[str, tuple[httpx.Client, str]] = {}
    for persona in PERSONAS:
        logins.add(f"user-{persona}", SESSION_PASSWORD, reads=[persona])
        client = httpx.Client(base_url=url, timeout=120)
        signed = client.post("/v1/session", json={"name": f"user-{persona}", "password": SESSION_PASSWORD})
        sessions[persona] = (client, signed.json()["csrf_token"])
    for persona, (client, csrf) in sessions.items():
        foreign = [_MARK.format(persona=p) for p in PERSONAS if p != persona]
        others = [token for p, (_, token) in sessions.items() if p != persona]
        for other in PERSONAS:
            for target in PERSONAS:
                for method, path, body, refused in _routes(other, f"{target}-vault"):
                    tokens = [csrf] if method == "GET" else [csrf, None, others[0]]
                    for sent in tokens:
                        check.inputs += 1
                        headers = {"X-CSRF-Token": sent} if sent else {}
                        response = client.request(method, path, json=body, headers=headers)
                        where = f"HTTP {method} {path} as the session of user-{persona} (CSRF {sent == csrf})"
                        if response.status_code >= 500:
                            check.crashes += 1
                            check.notes.append(f"{where}: {response.status_code}")
                        elif (expected := 403 if sent != csrf else refused if other != persona else 0) and (
                            response.status_code != expected
                        ):
                            check.breaches += 1
                            check.notes.append(f"{where}: {response.status_code}, not {expected}")
                        elif (
                            response.status_code < 300 and _names_document(method, path) and target != persona
                        ):
                            check.breaches += 1
                            check.notes.append(f"{where}: another persona's document reached")
                        leaked = [m for m in foreign if m in response.text]
                        if leaked:
                            check.breaches += len(leaked)
                            check.notes.append(f"{where}: {leaked} in the response")
        for method, path, body in ADMIN_ROUTES:
            check.inputs += 1
            response = client.request(method, path, json=body, headers={"X-CSRF-Token": csrf})
            if response.status_code != 403:
                check.breaches += 1
                check.notes.append(f"{method} {path} as user-{persona}: {response.status_code}, not 403")
    client, csrf = sessions["alpha"]
    cookie = client.cookies["shu_session"]
    forged = [cookie[:-1] + ("A" if cookie[-1] != "A" else "B"), "x" * 43, ""]
    client.delete("/v1/session", headers={"X-CSRF-Token": csrf})
    for bad in [cookie, *forged]:
        for method, path, body, _ in _routes("alpha", "alpha-vault"):
            check.inputs += 1
            headers = {"Cookie": f"shu_session={bad}", "X-CSRF-Token": csrf}
            response = httpx.request(method, url + path, json=body, headers=headers, timeout=60)
            if response.status_code != 401:
                check.breaches += 1
                check.notes.append(
                    f"{method} {path} with a signed-out or forged cookie: {response.status_code}"
                )
    for client, _ in sessions.values():
        client.close()


def _routes(persona: str, doc_id: str) -> list[tuple[str, str, dict[str, Any] | None, int]]:
    """Each route that reaches a persona, with how it refuses a key that does not reach it (403;
    the chat API as OpenAI does: no such model, 404)."""
    ask = {"question": QUESTION, "persona": persona}
    chat = {"model": persona, "messages": [{"role": "user", "content": QUESTION}]}
    routes: list[tuple[str, str, dict[str, Any] | None]] = [
        ("GET", f"/v1/personas/{persona}/documents", None),
        ("GET", f"/v1/personas/{persona}/documents?doc={doc_id}", None),
        ("GET", f"/v1/personas/{persona}/filters", None),
        ("GET", f"/v1/personas/{persona}/graph", None),
        ("GET", f"/v1/personas/{persona}/graph?around={doc_id}", None),
        ("GET", f"/v1/documents/{doc_id}?persona={persona}", None),
        ("POST", "/v1/search", ask | {"trace": True}),
        ("POST", "/v1/search", ask | {"trace": True, "filter": {"doc_ids": [doc_id]}}),
        ("POST", "/v1/ask", ask | {"trace": True, "filter": {"doc_ids": [doc_id]}}),
        ("POST", "/v1/ask", ask | {"trace": True}),
        ("POST", "/v1/ask", ask | {"stream": True}),
        ("POST", "/v1/feedback", {"persona": persona, "kind": "star", "doc_id": doc_id}),
        ("GET", f"/v1/feedback?persona={persona}", None),
        ("POST", "/v1/conversations", {"persona": persona}),
        ("GET", f"/v1/conversations?persona={persona}", None),
        ("GET", f"/v1/documents/{doc_id}/original?persona={persona}", None),
        ("POST", f"/v1/documents/{doc_id}/reingest?persona={persona}", None),
        ("DELETE", f"/v1/documents/{doc_id}?persona={persona}", None),
    ]
    models: list[tuple[str, str, dict[str, Any] | None]] = [
        ("POST", "/v1/chat/completions", chat | {"trace": True}),
        ("POST", "/v1/chat/completions", chat | {"stream": True, "trace": True}),
        ("POST", "/v1/chat/completions", chat | {"trace": True, "filter": {"doc_ids": [doc_id]}}),
    ]
    return [(*route, 403) for route in routes] + [(*route, 404) for route in models]


def _http_walls(kb: KnowledgeBase, url: str, persona: str, token: str, check: Check) -> None:
    visible = {d.id for d in kb.documents(persona)}
    foreign = [_MARK.format(persona=p) for p in PERSONAS if f"{p}-vault" not in visible]
    headers = {"Authorization": f"Bearer {token}"}
    for other in PERSONAS:
        for target in PERSONAS:  # every vault, read through `other`
            for method, path, body, refused in _routes(other, f"{target}-vault"):
                check.inputs += 1
                response = httpx.request(method, url + path, json=body, headers=headers, timeout=120)
                where = f"HTTP {method} {path} as {persona}"
                target_hidden = f"{target}-vault" not in visible
                if response.status_code >= 500:
                    check.crashes += 1
                    check.notes.append(f"{where}: {response.status_code}")
                elif other != persona and response.status_code != refused:
                    check.breaches += 1
                    check.notes.append(f"{where}: {response.status_code}, not {refused}")
                elif response.status_code < 300 and _names_document(method, path) and target_hidden:
                    check.breaches += 1
                    check.notes.append(f"{where}: another persona's document reached")
                leaked = [m for m in foreign if m in response.text]
                if leaked:
                    check.breaches += len(leaked)
                    check.notes.append(f"{where}: {leaked} in the response")


def _learning_walls(kb: KnowledgeBase, url: str, persona: str, token: str, check: Check) -> None:
    """A user claiming another persona's address on their own profile is refused; with every
    address set by an admin, learning through a persona key names only that persona's people;
    the personas listed (HTTP, MCP) never carry a file read from outside the knowledge base."""
    visible = {d.id for d in kb.documents(persona)}
    foreign = [PEOPLE_MARK.format(persona=p) for p in PERSONAS if f"{p}-mail" not in visible]
    headers = {"Authorization": f"Bearer {token}"}
    for other in PERSONAS:
        check.inputs += 1
        claim = {"emails": [clerk(other)]}
        claimed = httpx.put(f"{url}/v1/users/me", json=claim, headers=headers, timeout=60)
        if claimed.status_code >= 500:
            check.crashes += 1
        elif claimed.status_code != 403:
            check.breaches += 1
            check.notes.append(f"PUT /v1/users/me emails={clerk(other)} as {persona}: {claimed.status_code}")
    kb.accounts.set_user(f"user-{persona}", {"emails": [clerk(p) for p in PERSONAS]})  # as an admin would
    check.inputs += 3
    learned = httpx.post(f"{url}/v1/users/me/learn", headers=headers, timeout=60)
    listed = httpx.get(f"{url}/v1/personas", headers=headers, timeout=60)
    (tools,) = asyncio.run(mcp_calls(url, token, [("list_personas", {})]))
    for where, response in (("learn", learned), ("GET /v1/personas", listed)):
        if response.status_code >= 500:
            check.crashes += 1
            check.notes.append(f"{where} as {persona}: {response.status_code}")
    contacts = json.dumps(learned.json().get("contacts")) if learned.status_code == 200 else ""
    if PEOPLE_MARK.format(persona=persona) not in contacts:
        check.lost += 1
        check.notes.append(f"learn as {persona}: the persona's own people were not learned")
    shown = [
        ("learned contacts", contacts, foreign),
        ("GET /v1/personas", listed.text, [OUTSIDE_MARK]),
        ("MCP list_personas", " ".join(getattr(c, "text", "") for c in tools.content), [OUTSIDE_MARK]),
    ]
    for where, text, marks in shown:
        leaked = [m for m in marks if m in text]
        if leaked:
            check.breaches += len(leaked)
            check.notes.append(f"{where} as {persona}: {leaked} in the response")


def _document_walls(kb: KnowledgeBase, url: str, check: Check) -> None:
    """Keys that may change their own persona's documents: an upload, a delete, a re-ingest or a
    download of another persona's is refused (403 for that persona, 404 for its document named
    through one's own), nothing lands in the other's folder and no secret of it comes back; an
    upload to one's own persona is taken."""
    writers = {p: kb.accounts.create_key(f"writer-{p}", [p], writes=[p])[1] for p in PERSONAS}
    folders = {p: kb.persona_folder(p) for p in PERSONAS}
    for persona, token in writers.items():
        headers = {"Authorization": f"Bearer {token}"}
        visible = {d.id for d in kb.documents(persona)}
        foreign = [_MARK.format(persona=p) for p in PERSONAS if f"{p}-vault" not in visible]
        for other in PERSONAS:
            name = f"from-{persona}.md"
            files = {"files": (name, f"# Note\n\nWritten by {persona}.\n".encode())}
            check.inputs += 1
            sent = httpx.post(
                f"{url}/v1/personas/{other}/documents", files=files, headers=headers, timeout=60
            )
            where = f"upload to {other} as writer of {persona}"
            if sent.status_code >= 500:
                check.crashes += 1
                check.notes.append(f"{where}: {sent.status_code}")
            elif other == persona and sent.status_code != 202:
                check.lost += 1
                check.notes.append(f"{where}: {sent.status_code}, not taken")
            elif other != persona and (
                sent.status_code != 403 or (folders[other] / "RAW-DOCS" / name).exists()
            ):
                check.breaches += 1
                check.notes.append(f"{where}: {sent.status_code}, not 403")
            if other == persona:
                continue
            target = f"{other}-vault"
            hidden = target not in visible
            indexed = {d.id for d in kb.documents(other)}
            for method, path in (
                ("GET", f"/v1/documents/{target}/original?persona={other}"),
                ("POST", f"/v1/documents/{target}/reingest?persona={other}"),
                ("DELETE", f"/v1/documents/{target}?persona={other}"),
                ("GET", f"/v1/documents/{target}/original?persona={persona}"),
                ("POST", f"/v1/documents/{target}/reingest?persona={persona}"),
                ("DELETE", f"/v1/documents/{target}?persona={persona}"),
            ):
                check.inputs += 1
                response = httpx.request(method, url + path, headers=headers, timeout=60)
                where = f"HTTP {method} {path} as writer of {persona}"
                expected = 403 if f"persona={other}" in path else (404 if hidden else 403)
                if response.status_code >= 500:
                    check.crashes += 1
                    check.notes.append(f"{where}: {response.status_code}")
                elif response.status_code != expected and not (
                    response.status_code == 403 and expected == 404
                ):
                    check.breaches += 1
                    check.notes.append(f"{where}: {response.status_code}, not {expected}")
                leaked = [m for m in foreign if m in response.text]
                if leaked:
                    check.breaches += len(leaked)
                    check.notes.append(f"{where}: {leaked} in the response")
            if target in indexed and target not in {d.id for d in kb.documents(other)}:
                check.lost += 1
                check.notes.append(f"{target} left the index after the writer of {persona} tried it")


def _job_walls(kb: KnowledgeBase, url: str, check: Check) -> None:
    """Uploads through writer keys: a file named like another persona's document is indexed as
    the writer's own (and the other stays whole); a job's view names no other persona's file and
    no server path; a one-file upload sent while another persona's large upload runs finishes
    first (jobs take turns)."""
    writers = {p: kb.accounts.create_key(f"jobs-writer-{p}", [p], writes=[p])[1] for p in PERSONAS}
    server_root = str(kb.persona_folder("alpha").parent)
    for persona, token in writers.items():
        other = next(p for p in PERSONAS if p != persona)
        headers = {"Authorization": f"Bearer {token}"}
        files = {"files": (f"{other}-vault.md", f"# Vault\n\nThe vault of {persona} is green.\n".encode())}
        check.inputs += 1
        sent = httpx.post(f"{url}/v1/personas/{persona}/documents", files=files, headers=headers, timeout=60)
        if sent.status_code != 202:
            check.crashes += sent.status_code >= 500
            check.lost += sent.status_code < 500
            check.notes.append(f"upload of {other}-vault.md as writer of {persona}: {sent.status_code}")
            continue
        job = _finished(url, headers, sent.json()["job"]["id"])
        where = f"the job of {other}-vault.md uploaded by the writer of {persona}"
        if job is None or _status(job, f"RAG/{other}-vault.md") != "ingested":
            check.lost += 1
            check.notes.append(f"{where}: {job and job['files']}")
        shown = json.dumps(job)
        named = [n for n in (server_root, f"/{other}/", _MARK.format(persona=other)) if n in shown]
        if named:
            check.breaches += len(named)
            check.notes.append(f"{where}: {named} in the job view")
        vault = " ".join(c.text for c in kb.store.list_chunks(f"{other}-vault"))
        if _MARK.format(persona=other) not in vault:
            check.lost += 1
            check.notes.append(f"{where}: {other}'s vault lost ({vault!r})")
    check.inputs += 1
    alpha, beta = ({"Authorization": f"Bearer {writers[p]}"} for p in ("alpha", "beta"))
    many = [
        ("files", (f"bulk-{i}.md", f"# Bulk {i}\n\n{'Line of bulk text. ' * 400}\n".encode()))
        for i in range(40)
    ]
    large = httpx.post(f"{url}/v1/personas/alpha/documents", files=many, headers=alpha, timeout=60)
    small = httpx.post(
        f"{url}/v1/personas/beta/documents",
        files={"files": ("one.md", b"# One\n\nOne line.\n")},
        headers=beta,
        timeout=60,
    )
    if large.status_code != 202 or small.status_code != 202:
        check.crashes += 1
        check.notes.append(f"uploads for the turns: {large.status_code}, {small.status_code}")
        return
    first = _finished(url, beta, small.json()["job"]["id"])
    still = httpx.get(f"{url}/v1/jobs/{large.json()['job']['id']}", headers=alpha, timeout=60).json()
    last = _finished(url, alpha, large.json()["job"]["id"])
    if first is None or last is None:
        check.hangs += 1
        check.notes.append("the uploads for the turns did not finish within 300 s")
    elif still["status"] == "done" and last["attempts"] == 1:
        check.hangs += 1
        check.notes.append("beta's one-file upload waited for alpha's 40-file upload to end")
    else:
        indexed = {d.id for d in kb.documents("alpha")} | {d.id for d in kb.documents("beta")}
        missing = sorted({"one", *(f"bulk-{i}" for i in range(40))} - indexed)
        if missing:  # (a job that took turns lists in its last report only what its last run did)
            check.lost += 1
            check.notes.append(f"uploads for the turns: not indexed {missing}")


def _status(job: dict[str, Any], file: str) -> str | None:
    return next((f["status"] for f in job["files"] if f["file"] == file), None)


def _finished(url: str, headers: dict[str, str], job_id: str, seconds: float = 300) -> dict[str, Any] | None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job: dict[str, Any] = httpx.get(f"{url}/v1/jobs/{job_id}", headers=headers, timeout=60).json()
        if job.get("status") not in ("queued", "running"):
            return job
        time.sleep(0.1)
    return None


def _names_document(method: str, path: str) -> bool:
    return path.startswith("/v1/documents/") or (method == "POST" and path == "/v1/feedback")


def _mcp_walls(kb: KnowledgeBase, url: str, persona: str, token: str, check: Check) -> None:
    visible = {d.id for d in kb.documents(persona)}
    foreign = [_MARK.format(persona=p) for p in PERSONAS if f"{p}-vault" not in visible]
    calls = [
        (tool, arguments | {"persona": other}, other)
        for other in PERSONAS
        for tool, arguments in (
            ("search", {"question": QUESTION}),
            ("ask", {"question": QUESTION}),
            ("read_document", {"doc_id": f"{other}-vault"}),
            ("graph", {}),
            # a filter naming every vault keeps only the persona's own
            ("search", {"question": QUESTION, "filter": {"doc_ids": [f"{p}-vault" for p in PERSONAS]}}),
        )
    ]
    results = asyncio.run(mcp_calls(url, token, [(tool, arguments) for tool, arguments, _ in calls]))
    for (tool, _, other), result in zip(calls, results, strict=True):
        check.inputs += 1
        text = " ".join(getattr(c, "text", "") for c in result.content)
        if other != persona and not result.is_error:
            check.breaches += 1
            check.notes.append(f"MCP {tool} on {other} as {persona}: not refused")
        leaked = [m for m in foreign if m in text]
        if leaked:
            check.breaches += len(leaked)
            check.notes.append(f"MCP {tool} on {other} as {persona}: {leaked} in the result")


async def mcp_calls(url: str, token: str | None, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """The MCP tools called in turn through the SDK's own client over streamable HTTP, with a key."""
    import httpx2
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=120) as client,
        streamable_http_client(f"{url}/mcp", http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        return [await session.call_tool(name, arguments) for name, arguments in calls]


def _refusals(url: str, token: str, check: Check) -> None:
    """No key and a wrong key: 401 everywhere; a persona key on stats and jobs: 403."""
    ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    routes = [*((m, p, b) for m, p, b, _ in _routes("alpha", "alpha-vault")), ("POST", "/mcp", ping)]
    for headers in ({}, {"Authorization": "Bearer shu_000000000000_" + "x" * 43}):
        for method, path, body in routes:
            check.inputs += 1
            response = httpx.request(method, url + path, json=body, headers=headers, timeout=60)
            if response.status_code != 401:
                check.breaches += 1
                check.notes.append(f"{method} {path} with {headers or 'no key'}: {response.status_code}")
    for method, path, body in (
        ("GET", "/v1/stats", None),
        ("POST", "/v1/jobs", {"kind": "ingest", "path": "/"}),
    ):
        check.inputs += 1
        response = httpx.request(method, url + path, json=body, headers={"Authorization": f"Bearer {token}"})
        if response.status_code != 403:
            check.breaches += 1
            check.notes.append(f"{method} {path} with a persona key: {response.status_code}")

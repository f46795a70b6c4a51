"""Users and keys through a real server: once a key exists, every route needs one (401 for none,
a malformed, unknown or revoked key), a key reaches only its personas (403 on every route that
takes a persona, over HTTP and over MCP), stats and jobs need an admin key, and each user's
feedback is that user's own."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shu.config.settings import load_settings
from shu.errors import UnauthorizedError
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from shu_eval.faults.serve import mcp_calls
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
SECRET = doc("secret", "Board secrets", "# Board\n\n## Deal\n\nThe acquisition price is 9 million.")

Q = "What does the Pro plan cost?"
PERSONA_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/personas/{p}/documents", None),
    ("GET", "/v1/documents/{d}?persona={p}", None),
    ("POST", "/v1/search", {"question": Q, "persona": "{p}"}),
    ("POST", "/v1/ask", {"question": Q, "persona": "{p}"}),
    ("POST", "/v1/ask", {"question": Q, "persona": "{p}", "stream": True}),
    ("POST", "/v1/feedback", {"persona": "{p}", "kind": "up", "question": Q}),
    ("GET", "/v1/feedback?persona={p}", None),
    ("POST", "/v1/conversations", {"persona": "{p}"}),
    ("GET", "/v1/conversations?persona={p}", None),
]
ADMIN_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/stats", None),
    ("GET", "/v1/findings", None),
    ("PUT", "/v1/admin/profiles/nobody/learning", {"on": False}),
    ("POST", "/v1/admin/profiles/nobody/reset", None),
    ("POST", "/v1/findings/1/undo", None),
    ("GET", "/v1/jobs", None),
    ("GET", "/v1/jobs/nope", None),
    ("POST", "/v1/jobs/nope/cancel", None),
    ("POST", "/v1/jobs", {"kind": "ingest", "path": "/"}),
    ("GET", "/v1/admin/users", None),
    ("POST", "/v1/admin/users", {"name": "cy", "password": "a long enough password", "reads": ["lumen"]}),
    ("PUT", "/v1/admin/users/nobody", {"reads": ["lumen"]}),
    ("PUT", "/v1/admin/users/nobody/password", {"password": "a long enough password"}),
    ("POST", "/v1/admin/users/nobody/lock", None),
    ("POST", "/v1/admin/users/nobody/unlock", None),
]
WRITE_ROUTES: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/v1/personas/{p}/suggested-config", None),
    ("POST", "/v1/personas/{p}/documents", None),  # multipart (test_documents_http.py); empty here
    ("POST", "/v1/documents/{d}/reingest?persona={p}", None),
    ("DELETE", "/v1/documents/{d}?persona={p}", None),
]
"""What changes a persona's documents: a key with the write right on it (or an admin's)."""
OPEN_ROUTES = [
    ("GET", "/v1/me", None),
    ("GET", "/v1/conversations", None),
    ("GET", "/v1/personas", None),
    ("GET", "/v1/users/me", None),
    ("PUT", "/v1/users/me", {"name": "Ana"}),
    ("POST", "/v1/users/me/learn", None),
    ("GET", "/v1/users/me/export", None),
    ("DELETE", "/v1/users/me", None),
    ("DELETE", "/v1/session", None),
]


@pytest.fixture
def keyed(tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker) -> Iterator[dict[str, Any]]:
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false"])
    kb = KnowledgeBase(settings, embedder=embedder)
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    tokens = {
        "ana": kb.accounts.create_key("ana", ["lumen"])[1],
        "bob": kb.accounts.create_key("bob", ["lumen"])[1],
        "root": kb.accounts.create_key("root", admin=True)[1],
    }
    revoked, tokens["gone"] = kb.accounts.create_key("gone", ["lumen"])
    kb.accounts.revoke_key(revoked.id)
    with running(create_app(kb)) as url:
        yield {"url": url, "kb": kb, "tokens": tokens}
    kb.close()


def call(
    url: str, method: str, path: str, body: Any, token: str | None, persona: str = "lumen"
) -> httpx.Response:
    filled = path.format(p=persona, d="pricing" if persona == "lumen" else "secret")
    if isinstance(body, dict):
        body = {k: v.format(p=persona) if isinstance(v, str) else v for k, v in body.items()}
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx.request(method, f"{url}{filled}", json=body, headers=headers, timeout=30)


EVERY_ROUTE = PERSONA_ROUTES + ADMIN_ROUTES + OPEN_ROUTES + WRITE_ROUTES
PERSONA_ROUTES.append(("GET", "/v1/documents/{d}/original?persona={p}", None))


@pytest.mark.parametrize(("method", "path", "body"), EVERY_ROUTE)
def test_every_route_refuses_no_key_a_bad_key_and_a_revoked_key(
    keyed: dict[str, Any], method: str, path: str, body: Any
) -> None:
    url, tokens = keyed["url"], keyed["tokens"]
    ana = tokens["ana"]
    tampered = ana[:-1] + ("B" if ana.endswith("A") else "A")
    bad = ["", "shu_000000000000_" + "x" * 43, "not-a-key", tampered, tokens["gone"]]
    for token in bad:
        response = call(url, method, path, body, token or None)
        assert response.status_code == 401, (token, response.text)
        assert response.headers["www-authenticate"] == "Bearer" and response.json()["detail"]
    assert "revoked" in call(url, method, path, body, tokens["gone"]).json()["detail"]


@pytest.mark.parametrize(("method", "path", "body"), PERSONA_ROUTES)
def test_a_key_reaches_its_own_personas_only(
    keyed: dict[str, Any], method: str, path: str, body: Any
) -> None:
    url, tokens = keyed["url"], keyed["tokens"]
    inside = call(url, method, path, body, tokens["ana"], "lumen")
    assert inside.status_code in (200, 201), inside.text
    outside = call(url, method, path, body, tokens["ana"], "board")
    assert outside.status_code == 403 and "does not reach persona 'board'" in outside.json()["detail"]
    assert call(url, method, path, body, tokens["root"], "board").status_code in (200, 201)


@pytest.mark.parametrize(("method", "path", "body"), WRITE_ROUTES)
def test_only_a_write_right_changes_a_persona(
    keyed: dict[str, Any], method: str, path: str, body: Any
) -> None:
    url, tokens, kb = keyed["url"], keyed["tokens"], keyed["kb"]
    writer = kb.accounts.create_key("wes", ["lumen"], writes=["lumen"])[1]
    refused = call(url, method, path, body, tokens["ana"], "lumen")  # reads lumen, writes nothing
    assert (
        refused.status_code == 403 and refused.json()["detail"] == "this key may not change persona 'lumen'"
    )
    outside = call(url, method, path, body, writer, "board")
    assert outside.status_code == 403 and "does not reach persona 'board'" in outside.json()["detail"]
    if "/documents/{d}" in path or path.endswith("/suggested-config"):
        taken = call(url, method, path, body, writer, "lumen")
        assert taken.status_code in (200, 202), taken.text
        assert call(url, method, path, body, tokens["root"], "board").status_code in (200, 202)
    else:  # no file sent: an invalid field once the right is granted
        assert call(url, method, path, body, writer, "lumen").status_code == 422


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ROUTES)
def test_stats_and_jobs_need_an_admin_key(keyed: dict[str, Any], method: str, path: str, body: Any) -> None:
    url, tokens = keyed["url"], keyed["tokens"]
    refused = call(url, method, path, body, tokens["ana"])
    assert refused.status_code == 403 and "not an admin key" in refused.json()["detail"]
    assert call(url, method, path, body, tokens["root"]).status_code not in (401, 403, 500)


def test_health_is_open_and_says_keys_are_needed_personas_are_filtered(keyed: dict[str, Any]) -> None:
    url, tokens = keyed["url"], keyed["tokens"]
    assert httpx.get(f"{url}/healthz").json()["auth"] is True
    listed = call(url, "GET", "/v1/personas", None, tokens["ana"]).json()
    assert [p["slug"] for p in listed] == ["lumen"]
    everything = call(url, "GET", "/v1/personas", None, tokens["root"]).json()
    assert {p["slug"] for p in everything} == {"board", "lumen"}
    me = call(url, "GET", "/v1/me", None, tokens["ana"]).json()
    assert me["user"] == "ana" and me["personas"] == ["lumen"] and me["admin"] is False


def test_each_user_sees_only_their_own_feedback(keyed: dict[str, Any]) -> None:
    url, tokens, kb = keyed["url"], keyed["tokens"], keyed["kb"]
    body = {"persona": "lumen", "kind": "star", "doc_id": "pricing"}
    stored = call(url, "POST", "/v1/feedback", body, tokens["ana"])
    assert stored.status_code == 201 and stored.json()["user"] == "ana" and stored.json()["id"]
    call(url, "POST", "/v1/feedback", {"persona": "lumen", "kind": "down", "question": Q}, tokens["bob"])
    assert [s["kind"] for s in call(url, "GET", "/v1/feedback", None, tokens["ana"]).json()] == ["star"]
    assert [s["kind"] for s in call(url, "GET", "/v1/feedback", None, tokens["bob"]).json()] == ["down"]
    assert [s.kind for s in kb.accounts.signals("ana")] == ["star"]
    walled = call(url, "POST", "/v1/feedback", body | {"doc_id": "secret"}, tokens["ana"])
    assert walled.status_code == 404, "a document of another persona is not found, not revealed"
    assert call(url, "POST", "/v1/feedback", body | {"kind": "love"}, tokens["ana"]).status_code == 422


def test_tokens_are_stored_hashed_and_a_revoked_key_stops_working(keyed: dict[str, Any]) -> None:
    kb: KnowledgeBase = keyed["kb"]
    token = keyed["tokens"]["ana"]
    key = kb.accounts.authenticate(token)
    stored = kb.store.get_key(key.id)
    assert stored is not None and token.split("_", 2)[2] not in stored[1] and len(stored[1]) == 64
    kb.accounts.revoke_key(key.id)
    with pytest.raises(UnauthorizedError, match="revoked"):
        kb.accounts.authenticate(token)


def test_mcp_over_http_needs_a_key_and_keeps_to_its_personas(keyed: dict[str, Any]) -> None:
    url, tokens = keyed["url"], keyed["tokens"]
    calls = [
        ("list_personas", {}),
        ("search", {"question": "Pro plan price", "persona": "lumen"}),
        ("search", {"question": "acquisition price", "persona": "board"}),
        ("read_document", {"doc_id": "secret", "persona": "board"}),
        ("get_contextual_retrieval_stats", {}),
    ]
    personas, inside, outside, read, stats = asyncio.run(mcp_calls(url, tokens["ana"], calls))
    assert [p["slug"] for p in personas.structured_content["result"]] == ["lumen"]
    assert inside.structured_content["result"][0]["citation"] == "[^pricing:Pricing > Pro]"
    for refused in (outside, read):
        assert refused.is_error and "does not reach persona 'board'" in refused.content[0].text
    assert stats.is_error and "not an admin key" in stats.content[0].text
    admin = asyncio.run(mcp_calls(url, tokens["root"], calls))
    assert not any(result.is_error for result in admin)
    assert admin[4].structured_content["total_chunks"] >= 2
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    for token in (None, tokens["gone"]):
        raw = call(url, "POST", "/mcp", initialize, token)
        assert raw.status_code == 401 and raw.json()["detail"]
        with pytest.raises(Exception, match="unhandled errors"):  # the SDK's client fails on the 401
            asyncio.run(mcp_calls(url, token, calls[:1]))


def test_a_user_reaches_only_their_own_profile_and_can_forget_themselves(keyed: dict[str, Any]) -> None:
    url, tokens, kb = keyed["url"], keyed["tokens"], keyed["kb"]
    assert call(url, "GET", "/v1/users/me", None, tokens["ana"]).status_code == 404, "no profile yet"
    mine = call(url, "PUT", "/v1/users/me", {"name": "Ana", "projects": ["Pricing"]}, tokens["ana"]).json()
    assert mine["id"] == "ana" and mine["projects"][0]["value"] == "Pricing"
    call(url, "PUT", "/v1/users/me", {"name": "Bob", "roles": ["sales"]}, tokens["bob"])
    assert call(url, "GET", "/v1/users/me", None, tokens["bob"]).json()["name"] == "Bob"
    assert call(url, "GET", "/v1/users/me", None, tokens["ana"]).json()["name"] == "Ana"
    assert call(url, "PUT", "/v1/users/me", {"id": "bob"}, tokens["ana"]).status_code == 422, (
        "no way to name another"
    )
    assert call(url, "POST", "/v1/users/me/learn", None, tokens["ana"]).json()["id"] == "ana"
    searched = {"question": Q, "persona": "lumen", "trace": True}
    traced = call(url, "POST", "/v1/search", searched, tokens["ana"])
    assert traced.json()["trace"]["asker"] == "ana", "a caller with a profile is ranked for"
    plain = call(url, "POST", "/v1/search", searched, tokens["root"])
    assert plain.json()["trace"]["asker"] is None, "no profile: no personal ranking"
    call(url, "POST", "/v1/feedback", {"persona": "lumen", "kind": "up", "question": Q}, tokens["ana"])
    exported = call(url, "GET", "/v1/users/me/export", None, tokens["ana"]).json()
    assert exported["profile"]["name"] == "Ana" and len(exported["signals"]) == 1
    assert {k["user"] for k in exported["keys"]} == {"ana"}
    forgotten = call(url, "DELETE", "/v1/users/me", None, tokens["ana"]).json()
    assert forgotten == {"profile": 1, "signals": 1, "keys": 1}
    assert call(url, "GET", "/v1/users/me", None, tokens["ana"]).status_code == 401, "her key went with her"
    assert kb.accounts.users() == ["bob"] and kb.accounts.user("bob").roles == ["sales"]


def test_a_server_that_had_keys_never_reopens_when_the_last_one_goes(keyed: dict[str, Any]) -> None:
    url, kb = keyed["url"], keyed["kb"]
    for key in kb.accounts.api_keys():
        if not key.revoked:
            kb.accounts.revoke_key(key.id)
        kb.accounts.forget_user(key.user)
    assert kb.accounts.api_keys() == [] and not kb.accounts.auth_required()
    assert httpx.get(f"{url}/healthz").json()["auth"] is True
    assert call(url, "GET", "/v1/personas", None, None).status_code == 401
    assert call(url, "POST", "/v1/jobs", {"kind": "ingest", "path": "/"}, None).status_code == 401


def test_mcp_over_http_ranks_for_a_caller_with_a_profile(keyed: dict[str, Any]) -> None:
    url, tokens, kb = keyed["url"], keyed["tokens"], keyed["kb"]
    kb.accounts.set_user("ana", {"name": "Ana", "projects": ["Pricing"]})
    calls = [("search", {"question": "Pro plan price", "persona": "lumen"})]
    (found,) = asyncio.run(mcp_calls(url, tokens["ana"], calls))
    assert found.structured_content["result"][0]["citation"] == "[^pricing:Pricing > Pro]"
    assert kb.with_profile("ana") == "ana" and kb.with_profile("bob") is None
    assert kb.with_profile(None) is None
    (asked,) = asyncio.run(mcp_calls(url, tokens["ana"], [("ask", {"question": Q, "persona": "lumen"})]))
    assert not asked.is_error
    assert [s.kind for s in kb.accounts.signals("ana")] == ["used_in_answer"], (
        "the MCP answer was ranked for Ana"
    )


def test_learning_reads_only_what_the_callers_key_reaches(keyed: dict[str, Any]) -> None:
    """Issue 25 #1: a lumen key that set a board member's address on its own profile learned the
    board's people; an address a user sets is unverified, and learning reads only reached personas."""
    url, tokens, kb = keyed["url"], keyed["tokens"], keyed["kb"]
    mail = doc(
        "board-mail",
        "Deal",
        "# Deal\n\nThe acquisition closes in May.",
        type="email",
        participants=[
            {"name": "Sam Osei", "email": "sam@board.example", "role": "author"},
            {"name": "Ria Chen", "email": "ria@board.example", "role": "to"},
        ],
    )
    board = Path(kb.documents("board")[0].path).parent
    (board / "mail.md").write_text(mail)
    assert not kb.ingest(board.parent.parent).failed
    claimed = call(url, "PUT", "/v1/users/me", {"emails": ["sam@board.example"]}, tokens["ana"])
    assert claimed.status_code == 403 and "admin" in claimed.json()["detail"]
    assert kb.store.get_user("ana") is None, "nothing of the refused request was kept"
    kb.accounts.set_user("ana", {"emails": ["sam@board.example"]})  # as if an admin had set it
    learned = call(url, "POST", "/v1/users/me/learn", None, tokens["ana"])
    assert learned.status_code == 200 and learned.json()["contacts"] == [], "board mail read for a lumen key"
    assert "ria@board.example" not in call(url, "GET", "/v1/users/me", None, tokens["ana"]).text
    root = call(url, "PUT", "/v1/users/me", {"emails": ["root@lumen.example"]}, tokens["root"])
    assert root.status_code == 200 and root.json()["emails"] == ["root@lumen.example"], "an admin may"
    assert [c.email for c in kb.accounts.learn_user("ana").contacts] == ["ria@board.example"], (
        "the CLI reads all"
    )

"""Signing in through a real server: a session cookie (HttpOnly, SameSite=Strict) works on every
route a key does and reaches only the user's personas; a request that changes something needs
the session's CSRF token (403 without, or with another's); bearer keys need none; sign-out, a
lock and a new password end a session; a forged cookie is nobody; one message for a wrong
password and an unknown name; five wrong passwords lock for a while (423); admins manage users."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shu.accounts.logins import WRONG
from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from shu.serve.sessions_http import logins_of
from tests.conftest import CountingEmbedder, PersonaMaker
from tests.serve.test_auth import ADMIN_ROUTES, EVERY_ROUTE, OPEN_ROUTES, PERSONA_ROUTES, PRICING, SECRET

PASSWORD = "a long enough password"
CHANGES = ("POST", "PUT", "PATCH", "DELETE")


@pytest.fixture
def served(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> Iterator[dict[str, Any]]:
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", "answer.scope=false"])
    kb = KnowledgeBase(settings, embedder=embedder)
    folder = make_persona("lumen", rag={"pricing.md": PRICING})
    make_persona("board", rag={"secret.md": SECRET})
    assert not kb.ingest(folder.parent).failed
    logins = logins_of(kb)
    logins.add("ana", PASSWORD, reads=["lumen"])
    logins.add("bob", PASSWORD, reads=["board"], writes=["board"])
    logins.add("root", PASSWORD, admin=True)
    _, token = kb.accounts.create_key("prog", ["lumen"])
    with running(create_app(kb)) as url:
        yield {"url": url, "kb": kb, "token": token}
    kb.close()


def sign_in(url: str, name: str, password: str = PASSWORD) -> tuple[httpx.Client, str]:
    client = httpx.Client(base_url=url, timeout=30)
    response = client.post("/v1/session", json={"name": name, "password": password})
    assert response.status_code == 200, response.text
    return client, response.json()["csrf_token"]


def send(
    client: httpx.Client, method: str, path: str, body: Any, persona: str = "lumen", csrf: str | None = None
) -> httpx.Response:
    filled = path.format(p=persona, d="pricing" if persona == "lumen" else "secret")
    if isinstance(body, dict):
        body = {k: v.format(p=persona) if isinstance(v, str) else v for k, v in body.items()}
    headers = {"X-CSRF-Token": csrf} if csrf else {}
    return client.request(method, filled, json=body, headers=headers)


def test_the_cookie_is_httponly_strict_and_the_session_says_who(served: dict[str, Any]) -> None:
    response = httpx.post(f"{served['url']}/v1/session", json={"name": "ana", "password": PASSWORD})
    cookie = response.headers["set-cookie"].lower()
    assert "shu_session=" in cookie and "httponly" in cookie and "samesite=strict" in cookie
    assert "path=/" in cookie and "secure" not in cookie, "plain http on loopback: no Secure"
    shown = response.json()
    assert shown["user"] == "ana" and shown["personas"] == ["lumen"] and len(shown["csrf_token"]) >= 40
    client, csrf = sign_in(served["url"], "ana")
    assert client.get("/v1/session").json()["csrf_token"] == csrf
    assert client.get("/v1/me").json() == {
        "user": "ana",
        "admin": False,
        "personas": ["lumen"],
        "key": "user:ana",
        "writes": [],
    }
    assert httpx.get(f"{served['url']}/healthz").json() | {"version": ""} == {
        "status": "ok", "version": "", "auth": True, "sign_in": True
    }  # fmt: skip


@pytest.mark.parametrize(("method", "path", "body"), PERSONA_ROUTES)
def test_a_session_reaches_its_users_personas_only(
    served: dict[str, Any], method: str, path: str, body: Any
) -> None:
    client, csrf = sign_in(served["url"], "ana")
    inside = send(client, method, path, body, "lumen", csrf)
    assert inside.status_code in (200, 201), inside.text
    outside = send(client, method, path, body, "board", csrf)
    assert outside.status_code == 403 and "does not reach persona 'board'" in outside.json()["detail"]
    root, root_csrf = sign_in(served["url"], "root")
    assert send(root, method, path, body, "board", root_csrf).status_code in (200, 201)


@pytest.mark.parametrize(("method", "path", "body"), [r for r in EVERY_ROUTE if r[0] in CHANGES])
def test_a_change_without_the_csrf_token_is_refused(
    served: dict[str, Any], method: str, path: str, body: Any
) -> None:
    client, csrf = sign_in(served["url"], "root")
    _, other = sign_in(served["url"], "ana")
    for sent in (None, "", other, csrf[:-1], csrf + "x"):
        refused = send(client, method, path, body, "lumen", sent)
        assert refused.status_code == 403 and "X-CSRF-Token" in refused.json()["detail"], (sent, refused.text)
    bearer = {"Authorization": f"Bearer {served['token']}"}
    filled = path.format(p="lumen", d="pricing")
    keyed = httpx.request(method, f"{served['url']}{filled}", json=_filled(body), headers=bearer, timeout=30)
    assert keyed.status_code != 403 or "X-CSRF-Token" not in keyed.text, "a bearer key needs no CSRF token"


def _filled(body: Any) -> Any:
    if isinstance(body, dict):
        return {k: v.format(p="lumen") if isinstance(v, str) else v for k, v in body.items()}
    return body


@pytest.mark.parametrize(("method", "path", "body"), ADMIN_ROUTES + OPEN_ROUTES)
def test_admin_and_open_routes_work_for_a_session(
    served: dict[str, Any], method: str, path: str, body: Any
) -> None:
    ana, ana_csrf = sign_in(served["url"], "ana")
    root, root_csrf = sign_in(served["url"], "root")
    if (method, path, body) in ADMIN_ROUTES:
        refused = send(ana, method, path, body, csrf=ana_csrf)
        assert refused.status_code == 403 and "not an admin" in refused.json()["detail"]
    assert send(root, method, path, body, csrf=root_csrf).status_code not in (401, 403, 500)


def test_sign_out_ends_the_session_and_a_forged_cookie_is_nobody(served: dict[str, Any]) -> None:
    url = served["url"]
    client, csrf = sign_in(url, "ana")
    cookie = client.cookies["shu_session"]
    assert client.delete("/v1/session").status_code == 403, "sign-out changes something: CSRF too"
    assert client.delete("/v1/session", headers={"X-CSRF-Token": csrf}).status_code == 204
    assert "shu_session" not in client.cookies
    replayed = httpx.get(f"{url}/v1/personas", cookies={"shu_session": cookie})
    assert replayed.status_code == 401, "the old cookie is gone on the server too"
    for forged in (cookie[:-1] + ("A" if cookie[-1] != "A" else "B"), "x" * 43, "", "ana", "x" * 5000):
        assert httpx.get(f"{url}/v1/personas", cookies={"shu_session": forged}).status_code in (401, 431)
    assert httpx.get(f"{url}/v1/session").status_code == 401


def test_a_bearer_key_wins_over_a_cookie(served: dict[str, Any]) -> None:
    client, _ = sign_in(served["url"], "root")
    bearer = {"Authorization": f"Bearer {served['token']}"}
    me = client.get("/v1/me", headers=bearer).json()
    assert me["user"] == "prog", "the key speaks, not the admin's cookie beside it"
    body = {"persona": "lumen", "kind": "up", "question": "q"}
    assert client.post("/v1/feedback", json=body, headers=bearer).status_code == 201
    bad = {"Authorization": "Bearer nope"}
    assert client.get("/v1/me", headers=bad).status_code == 401, "a bad key does not fall back to the cookie"


def test_one_message_for_a_wrong_password_and_an_unknown_name_then_a_lockout(served: dict[str, Any]) -> None:
    url = served["url"]
    wrong = httpx.post(f"{url}/v1/session", json={"name": "ana", "password": "not it at all"})
    unknown = httpx.post(f"{url}/v1/session", json={"name": "nobody", "password": PASSWORD})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() and wrong.json()["detail"] == WRONG
    assert "set-cookie" not in wrong.headers
    for _ in range(4):
        httpx.post(f"{url}/v1/session", json={"name": "ana", "password": "not it at all"})
    locked = httpx.post(f"{url}/v1/session", json={"name": "ana", "password": PASSWORD})
    assert locked.status_code == 423 and "too many wrong passwords" in locked.json()["detail"]
    root, csrf = sign_in(url, "root")
    assert root.post("/v1/admin/users/ana/unlock", headers={"X-CSRF-Token": csrf}).status_code == 200
    sign_in(url, "ana")


def test_an_admin_adds_users_sets_their_personas_and_locks_them(served: dict[str, Any]) -> None:
    url = served["url"]
    root, csrf = sign_in(url, "root")
    h = {"X-CSRF-Token": csrf}
    made = root.post(
        "/v1/admin/users", json={"name": "cy", "password": PASSWORD, "reads": ["lumen"]}, headers=h
    )
    assert made.status_code == 201 and made.json()["reads"] == ["lumen"]
    assert "password" not in made.text and "argon2" not in made.text
    assert [u["name"] for u in root.get("/v1/admin/users").json()] == ["ana", "bob", "cy", "root"]
    cy, _ = sign_in(url, "cy")
    assert [p["slug"] for p in cy.get("/v1/personas").json()] == ["lumen"]
    changed = root.put("/v1/admin/users/cy", json={"reads": ["board"]}, headers=h)
    assert changed.status_code == 200 and changed.json()["reads"] == ["board"]
    assert [p["slug"] for p in cy.get("/v1/personas").json()] == ["board"], "a change holds at once"
    assert root.put("/v1/admin/users/cy", json={"reads": ["nope"]}, headers=h).status_code == 404
    assert root.post("/v1/admin/users/cy/lock", headers=h).json()["locked"] is True
    assert cy.get("/v1/personas").status_code == 401, "a lock ends the session"
    refused = httpx.post(f"{url}/v1/session", json={"name": "cy", "password": PASSWORD})
    assert refused.status_code == 423 and "locked by an admin" in refused.json()["detail"]
    root.post("/v1/admin/users/cy/unlock", headers=h)
    cy, _ = sign_in(url, "cy")
    assert root.put(
        "/v1/admin/users/cy/password", json={"password": "another password"}, headers=h
    ).is_success
    assert cy.get("/v1/personas").status_code == 401, "a new password ends the session"
    sign_in(url, "cy", "another password")
    assert root.put("/v1/admin/users/cy/password", json={"password": "short"}, headers=h).status_code == 400
    ana, ana_csrf = sign_in(url, "ana")
    hostile = {"name": "eve", "password": PASSWORD, "admin": True}
    assert ana.post("/v1/admin/users", json=hostile, headers={"X-CSRF-Token": ana_csrf}).status_code == 403
    assert ana.post("/v1/admin/users/ana/unlock", headers={"X-CSRF-Token": ana_csrf}).status_code == 403


def test_write_rights_follow_the_user(served: dict[str, Any]) -> None:
    bob, _ = sign_in(served["url"], "bob")
    ana, _ = sign_in(served["url"], "ana")
    assert bob.get("/v1/session").json()["writes"] == ["board"]
    assert ana.get("/v1/session").json()["writes"] == []


def test_a_cross_site_sign_in_or_change_is_refused(served: dict[str, Any]) -> None:
    """Another site's page can neither sign a browser in (login CSRF) nor change anything: its
    Origin is refused, and a form's text/plain body is no JSON."""
    url = served["url"]
    body = {"name": "ana", "password": PASSWORD}
    foreign = httpx.post(f"{url}/v1/session", json=body, headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403 and "set-cookie" not in foreign.headers
    form = httpx.post(f"{url}/v1/session", content=json.dumps(body), headers={"Content-Type": "text/plain"})
    assert form.status_code == 422 and "set-cookie" not in form.headers
    client, csrf = sign_in(url, "ana")
    hostile = {"X-CSRF-Token": csrf, "Origin": "http://evil.example"}
    assert client.post("/v1/conversations", json={"persona": "lumen"}, headers=hostile).status_code == 403

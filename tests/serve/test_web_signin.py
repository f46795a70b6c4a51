"""Signing in from the web page, in real Chromium against a real server with users: the sign-in
form (a wrong password told, the right one taken), a question asked, still signed in after a
reload (the cookie; the CSRF token asked again), a request with the cookie but without the CSRF
token refused, sign-out back to the form."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from shu.serve.background import running
from shu.serve.http import create_app
from shu.serve.sessions_http import logins_of
from tests.serve import web_page
from tests.serve.conftest import SmallKB
from tests.serve.web_page import expect

pytestmark = pytest.mark.slow
browser = web_page.browser
page = web_page.page

PASSWORD = "a long enough password"
START = """(body) => fetch("/v1/conversations", {
  method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)
}).then((r) => r.status)"""


@pytest.fixture
def url(small_kb: SmallKB) -> Iterator[str]:
    kb = small_kb()
    logins_of(kb).add("ana", PASSWORD, reads=["lumen"])
    logins_of(kb).add("root", PASSWORD, admin=True)
    with running(create_app(kb)) as served:
        yield served


def sign_in(page: Any, password: str = PASSWORD, name: str = "ana") -> None:
    dialog = page.locator("#signin-dialog")
    expect(dialog).to_be_visible()
    page.fill("#signin-name", name)
    page.fill("#signin-password", password)
    page.click("#signin-form button[type=submit]")


def test_sign_in_ask_reload_csrf_refused_and_sign_out(url: str, page: Any) -> None:
    page.goto(url)
    sign_in(page, "not the password")
    expect(page.locator("#signin-message")).to_have_text("wrong name or password")
    sign_in(page)
    expect(page.locator("#signin-dialog")).to_be_hidden()
    expect(page.locator('#persona option[value="lumen"]')).to_have_count(1)
    expect(page.locator("#sign-out")).to_be_visible()
    expect(page.locator("#key-label")).to_have_text("ana")
    expect(page.locator("#users-button")).to_be_hidden()
    turn = web_page.ask(page, "What does the Pro plan cost?")  # starts a conversation: a POST with the token
    expect(turn.locator(".answer-text")).to_contain_text("$65")
    cookies = {c["name"]: c for c in page.context.cookies()}
    assert cookies["shu_session"]["httpOnly"] and cookies["shu_session"]["sameSite"] == "Strict"
    assert page.evaluate("document.cookie") == "", "the page cannot read its session"

    page.reload()
    expect(page.locator('#persona option[value="lumen"]')).to_have_count(1)
    expect(page.locator("#signin-dialog")).to_be_hidden()
    expect(page.locator(".turn")).to_have_count(1)
    expect(page.locator("#sign-out")).to_be_visible()

    assert page.evaluate(START, {"persona": "lumen"}) == 403, "the cookie alone changes nothing"
    token = page.evaluate("fetch('/v1/session').then((r) => r.json()).then((s) => s.csrf_token)")
    with_token = """([body, token]) => fetch("/v1/conversations", {method: "POST",
      headers: {"Content-Type": "application/json", "X-CSRF-Token": token}, body: JSON.stringify(body)
    }).then((r) => r.status)"""
    assert page.evaluate(with_token, [{"persona": "lumen"}, token]) == 201

    page.click("#sign-out")
    expect(page.locator("#signin-dialog")).to_be_visible()
    assert page.evaluate("fetch('/v1/session').then((r) => r.status)") == 401
    assert page.evaluate(START, {"persona": "lumen"}) == 401


def test_an_admin_adds_a_user_sets_their_personas_and_locks_them(url: str, page: Any) -> None:
    page.goto(url)
    sign_in(page, name="root")
    expect(page.locator("#users-button")).to_be_visible()
    page.click("#users-button")
    rows = page.locator("#users-list .users-row")
    expect(rows).to_have_count(2)
    page.fill("#user-name", "cy")
    page.fill("#user-password", PASSWORD)
    page.fill("#user-reads", "nope")
    page.click("#users-form button[type=submit]")
    expect(page.locator("#users-message")).to_contain_text("unknown persona(s) nope")
    page.fill("#user-reads", "lumen")
    page.click("#users-form button[type=submit]")
    expect(page.locator("#users-message")).to_have_text("Added cy.")
    cy = page.locator('#users-list .users-row[data-user="cy"]')
    expect(cy.locator(".users-reads")).to_have_value("lumen")
    cy.locator(".users-writes").fill("lumen")
    cy.locator(".users-save").click()
    expect(page.locator("#users-message")).to_have_text("Saved cy.")
    page.locator('#users-list .users-row[data-user="cy"] .users-lock').click()
    expect(page.locator('#users-list .users-row[data-user="cy"] .users-name')).to_contain_text("locked")
    listed = page.evaluate("fetch('/v1/admin/users').then((r) => r.json())")
    cy_login = next(u for u in listed if u["name"] == "cy")
    assert cy_login["writes"] == ["lumen"] and cy_login["locked"] is True

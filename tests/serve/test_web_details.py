"""Details a new user met, in a real browser (headless Chromium through Playwright) against the
real server of web_page.py: the API docs at /docs render offline, and the page asks only what
its key may see."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlparse

import pytest

from shu.serve.background import running
from shu.serve.http import create_app
from tests.serve import web_page
from tests.serve.conftest import SmallKB
from tests.serve.web_page import DESKTOP, Served, expect, open_page

pytestmark = pytest.mark.slow

served = web_page.served
browser = web_page.browser
page = web_page.page


def test_the_api_docs_render_the_openapi_3_1_schema_offline(served: Served, page: Any) -> None:
    """Swagger UI from a package reads the schema FastAPI writes (OpenAPI 3.1) and shows every
    operation; nothing is fetched from another host."""
    own = urlparse(served.url).netloc
    elsewhere: list[str] = []

    def only_this_server(route: Any) -> None:
        if urlparse(route.request.url).netloc == own:
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_this_server)
    page.goto(f"{served.url}/docs")
    operations = page.locator(".opblock")
    expect(operations.first).to_be_visible(timeout=20_000)
    expect(page.locator(".opblock-summary-path", has_text="/v1/search")).to_have_count(1)
    expect(page.locator(".opblock-summary-path", has_text="/v1/ask")).to_have_count(1)
    assert operations.count() >= 15, "every route of the API is listed"
    expect(page.locator("body")).not_to_contain_text("Unable to render")
    expect(page.locator(".info .title")).to_contain_text("Shu")
    assert elsewhere == [], f"the docs fetched from elsewhere: {elsewhere}"


def test_a_read_only_key_never_asks_for_the_jobs(small_kb: SmallKB, browser: Any) -> None:
    """With a key that reads one persona, the page asks /v1/me what the key may see and never
    asks for /v1/jobs (admin only), so the browser logs no 403; an admin key's page does."""
    kb = small_kb()
    _, reader = kb.accounts.create_key("ana", ["lumen"])
    _, admin = kb.accounts.create_key("ops", [], admin=True)
    with running(create_app(kb)) as url:
        asked, logged = _page_with_key(browser, url, reader)
        assert "/v1/me" in asked and "/v1/personas" in asked
        assert "/v1/jobs" not in asked, asked
        assert [line for line in logged if "403" in line or line.startswith("error")] == []
        asked, logged = _page_with_key(browser, url, admin)
        assert "/v1/jobs" in asked, "an admin key's page shows the running jobs"
        assert [line for line in logged if line.startswith("error")] == []


def _page_with_key(browser: Any, url: str, token: str) -> tuple[list[str], list[str]]:
    """The paths a page opened with `token` requested in its first seconds, and what it logged."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    asked: list[str] = []
    logged: list[str] = []
    page.on("request", lambda request: asked.append(urlparse(request.url).path))
    page.on("console", lambda message: logged.append(f"{message.type}: {message.text}"))
    page.add_init_script(f"localStorage.setItem('shu.apiKey', {json.dumps(token)})")
    try:
        open_page(page, url, persona="lumen")
        expect(page.locator("body.ready")).to_have_count(1)
        page.wait_for_timeout(1500)  # the first poll of the jobs goes out right after the personas
        expect(page.locator("#jobs")).to_be_hidden()  # no job is running
    finally:
        context.close()
    return asked, logged

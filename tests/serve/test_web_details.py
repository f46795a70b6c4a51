"""Details a new user met, in a real browser (headless Chromium through Playwright) against the
real server of web_page.py: the API docs at /docs render offline, and the page asks only what
its key may see."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

import pytest

from tests.serve import web_page
from tests.serve.web_page import Served, expect

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

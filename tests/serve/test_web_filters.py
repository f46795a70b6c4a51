"""The filter row in a real browser (headless Chromium through Playwright) against the real server
of web_page.py: its choices come from the persona's documents, a question asked with a filter
sends it and the answer says what it was kept to, Clear takes it away, and at phone width the row
wraps without scrolling sideways. `SHU_SCREENSHOTS=1` writes docs/web-filters.png and
docs/web-filters-phone.png."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.serve import web_page
from tests.serve.web_page import (
    PHONE,
    QUESTION,
    Served,
    ask,
    expect,
    no_horizontal_overflow,
    open_page,
    screenshot_path,
)

pytestmark = pytest.mark.slow

served = web_page.served
browser = web_page.browser
page = web_page.page


def test_a_question_is_kept_to_the_filter_set_in_the_row(served: Served, page: Any, tmp_path: Path) -> None:
    open_page(page, served.url)
    row = page.locator("#filter-row")
    expect(row).to_be_hidden()
    page.click("#filter-toggle")
    expect(row).to_be_visible()
    assert page.get_attribute("#filter-toggle", "aria-expanded") == "true"
    types = page.locator("#filter-type option")
    expect(types).to_have_text(["Any type", "guide (2)", "faq (1)"])
    expect(page.locator("#filter-source option")).to_have_text(["Any folder", "lumen-support/RAG (6)"])
    assert page.get_attribute("#filter-since", "max") == "2026-04-21"

    page.select_option("#filter-type", "faq")
    expect(page.locator("#filter-count")).to_have_text("1")
    expect(page.locator("#filter-toggle")).to_have_class(re.compile(r"\bactive\b"))
    with page.expect_request(lambda r: r.url.endswith("/v1/ask")) as sent:
        turn = ask(page, QUESTION)
    assert json.loads(sent.value.post_data or "{}")["filter"] == {"types": ["faq"]}
    expect(turn.locator(".notice")).to_contain_text("Kept to: type faq (1 document).")
    for source in turn.locator(".sources li").all_inner_texts():
        assert "Frequently Asked Questions" in source, source  # nothing outside the filter is cited
    page.screenshot(path=str(screenshot_path(tmp_path, "web-filters.png")))

    page.fill("#filter-person", "Nobody Atall")
    expect(page.locator("#filter-count")).to_have_text("2")
    nothing = ask(page, "What does the Pro plan cost?")
    expect(nothing.locator(".answer-text")).to_contain_text("matches the filter")

    page.click("#filter-clear")
    expect(page.locator("#filter-count")).to_be_hidden()
    with page.expect_request(lambda r: r.url.endswith("/v1/ask")) as sent:
        plain = ask(page, QUESTION)
    assert json.loads(sent.value.post_data or "{}").get("filter") is None
    expect(plain.locator(".notice")).not_to_contain_text("Kept to")

    page.select_option("#filter-type", "guide")
    page.fill("#filter-since", "2026-01-01")
    page.set_viewport_size(PHONE)
    expect(row).to_be_visible()
    assert no_horizontal_overflow(page)
    toggle = page.locator("#filter-toggle")
    assert toggle.get_attribute("aria-controls") == "filter-row" and "Filters" in toggle.inner_text()
    page.screenshot(path=str(screenshot_path(tmp_path, "web-filters-phone.png")))

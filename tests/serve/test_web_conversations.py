"""Conversations in the web page, in real Chromium against a real server: a follow-up answered
from the turn before ("searched as" shown), the thread kept across a reload, listed in the panel,
a new conversation started, and an old one opened again."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.serve import web_page
from tests.serve.web_page import Served, ask, expect, open_page, screenshot_path

pytestmark = pytest.mark.slow
served = web_page.served
browser = web_page.browser
page = web_page.page

FIRST = "How many API requests per minute does the Pro plan allow?"
FOLLOW = "and the Team plan?"
STANDALONE = "How many API requests per minute does the Team plan allow?"


def test_a_conversation_is_kept_across_a_reload_and_can_be_started_anew(
    served: Served, page: Any, tmp_path: Path
) -> None:
    open_page(page, served.url)
    first = ask(page, FIRST)
    expect(first.locator(".sources li")).not_to_have_count(0)
    follow = ask(page, FOLLOW)
    expect(follow.locator(".notice")).to_contain_text(f"Searched as: “{STANDALONE}”")
    shown = follow.locator(".answer-text").inner_text()
    page.reload()
    turns = page.locator(".turn")
    expect(turns).to_have_count(2)
    expect(turns.nth(0).locator(".question")).to_contain_text(FIRST)
    expect(turns.nth(1).locator(".notice")).to_contain_text(STANDALONE)
    restored = turns.nth(1).locator(".answer-text").inner_text()
    assert re.sub(r"\s+", "", restored) == re.sub(r"\s+", "", shown), "the same answer, read back"
    expect(turns.nth(1).locator(".sources li")).not_to_have_count(0)
    expect(page.locator("#intro")).to_be_hidden()
    page.click("#conversations")
    listed = page.locator(".conversation-list .doc-item")
    expect(listed.first).to_contain_text(FIRST)
    expect(listed.first).to_contain_text("2 questions · today, ")  # not an ISO stamp
    said = page.evaluate(
        """async () => {
            const { readableWhen } = await import(new URL("dom.js", location.href).href);
            const now = new Date(2026, 10, 28, 15, 0);
            return [
                new Date(2026, 10, 27, 14, 2).toISOString(),
                new Date(2026, 10, 24, 9, 0).toISOString(),
                new Date(2026, 4, 3, 9, 0).toISOString(),
                new Date(2025, 4, 3, 9, 0).toISOString(),
                "not a date",
            ].map((iso) => readableWhen(iso, now));
        }"""
    )
    assert said[0].startswith("yesterday, ") and said[1].startswith("Tuesday, "), said
    assert "May" in said[2] and "2026" not in said[2] and "2025" in said[3] and said[4] == "not a date", said
    row = page.locator(".conversation-row").first
    card, delete = row.locator(".doc-item").bounding_box(), row.locator(".delete-conversation").bounding_box()
    assert card is not None and delete is not None
    assert delete["x"] >= card["x"] + card["width"] - 1, "the actions stand beside the card, not under it"
    assert delete["y"] + delete["height"] <= card["y"] + card["height"] + 1
    row.locator(".rename-conversation").click()
    field = row.locator(".rename-field")
    expect(field).to_be_focused()
    field.fill("Plan prices")
    field.press("Enter")
    expect(page.locator(".conversation-list .doc-item").first).to_contain_text("Plan prices")
    page.locator("#panel").screenshot(path=str(screenshot_path(tmp_path, "web-conversations.png")))
    assert httpx.get(f"{served.url}/v1/conversations").json()[0]["title"] == "Plan prices"
    row.locator(".rename-conversation").click()
    row.locator(".rename-field").fill("Not kept")
    row.locator(".rename-field").press("Escape")
    expect(page.locator(".conversation-list")).to_be_visible()  # Escape ends the renaming, not the panel
    expect(page.locator(".conversation-list .doc-item").first).to_contain_text("Plan prices")
    page.click("#new-conversation")
    expect(page.locator(".turn")).to_have_count(0)
    expect(page.locator("#intro h1")).to_be_visible()
    ask(page, "How long are workspace backups kept?")
    page.click("#conversations")
    expect(page.locator(".conversation-list .doc-item")).to_have_count(2, timeout=10_000)
    page.locator(".conversation-list .doc-item", has_text="Plan prices").click()
    expect(page.locator(".turn")).to_have_count(2)
    expect(page.locator(".turn").nth(1).locator(".question")).to_contain_text(re.compile("Team plan"))

"""Documents from the web page, in real Chromium against a real server: files chosen with the
Upload button (one refused with its reason), the job followed to its end, the document in the
browser, its original downloaded, and deleted after the confirmation; files dropped on the chat,
a corrupt one reported by the job with its reason."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import CountingEmbedder, PersonaMaker, doc
from tests.serve import web_page
from tests.serve.web_page import Served, expect, open_page

pytestmark = pytest.mark.slow
served = web_page.served
browser = web_page.browser
page = web_page.page

PLANS = doc("plans", "Plans", "# Plans\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
HOURS = b"# Garden hours\n\nThe community garden opens at nine on Saturdays.\n"


def _count(page: Any) -> int:
    """The document count the persona picker shows for the chosen persona ("Lumen Support (6)")."""
    shown = page.locator("#persona option:checked").inner_text()
    return int(shown.rsplit("(", 1)[1].rstrip(")"))


def test_upload_follow_download_and_delete_a_document(served: Served, page: Any) -> None:
    open_page(page, served.url)
    before = _count(page)
    page.set_input_files(
        "#upload-input",
        files=[
            {"name": "garden-hours.txt", "mimeType": "text/plain", "buffer": HOURS},
            {"name": "tool.exe", "mimeType": "application/octet-stream", "buffer": b"MZ\x90\x00"},
        ],
    )
    card = page.locator(".upload-card").first
    expect(card.locator(".upload-bad")).to_contain_text("tool.exe: .exe: not a format Shu reads")
    expect(card.locator(".upload-status")).to_contain_text("Done: 1 document indexed.", timeout=60_000)
    expect(card.locator(".upload-ok")).to_contain_text("garden-hours")
    expect(page.locator("#persona option:checked")).to_contain_text(f"({before + 1})")  # without a reload
    expect(page.locator("#jobs")).to_be_hidden()  # the job chip does not stay on after "Done"

    page.click("#browse")
    item = page.locator('.doc-item[data-doc-id="garden-hours"]')
    expect(item).to_have_count(1)
    item.click()
    expect(page.locator(".doc-title")).to_contain_text("Garden hours")
    with page.expect_download() as downloaded:
        page.click(".doc-download")
    download = downloaded.value
    assert download.suggested_filename == "garden-hours.txt"
    with open(download.path(), "rb") as handle:
        assert handle.read() == HOURS

    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    page.click(".doc-delete")
    expect(page.locator(".doc-list")).to_be_visible()
    expect(page.locator('.doc-item[data-doc-id="garden-hours"]')).to_have_count(0)
    assert asked and "Garden hours" in asked[0]
    expect(page.locator("#persona option:checked")).to_contain_text(f"({before})")


def test_files_dropped_on_the_chat_are_indexed_and_a_corrupt_one_says_why(served: Served, page: Any) -> None:
    open_page(page, served.url)
    page.click("#browse")
    expect(page.locator(".doc-list")).to_be_visible()
    page.evaluate(
        """() => {
          const dropped = new DataTransfer();
          dropped.items.add(new File(["# Seed swap\\n\\nThe seed swap is in April.\\n"], "seed-swap.md"));
          dropped.items.add(new File(["%PDF-1.4\\n\\u0000broken"], "broken.pdf"));
          const chat = document.getElementById("chat");
          const init = { dataTransfer: dropped, bubbles: true, cancelable: true };
          chat.dispatchEvent(new DragEvent("dragover", init));
          chat.dispatchEvent(new DragEvent("drop", init));
        }"""
    )
    card = page.locator(".upload-card").first
    expect(card.locator(".upload-status")).to_contain_text("Done: 1 document indexed.", timeout=60_000)
    expect(card.locator(".upload-bad")).to_contain_text("RAW-DOCS/broken.pdf")
    expect(page.locator('.doc-item[data-doc-id="seed-swap"]')).to_have_count(1)  # the list shown is refreshed
    dismissed: list[str] = []
    page.click('.doc-item[data-doc-id="seed-swap"]')
    page.once("dialog", lambda dialog: (dismissed.append(dialog.message), dialog.dismiss()))
    page.click(".doc-delete")
    expect(page.locator(".doc-title")).to_contain_text("Seed swap")  # not confirmed: still there
    assert dismissed


def test_a_read_only_key_sees_no_upload_or_delete_and_a_writer_does(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker, page: Any
) -> None:
    kb = KnowledgeBase(load_settings(tmp_path / "home", ["enrich.enabled=false"]), embedder=embedder)
    kb.ingest(make_persona("lumen", rag={"plans.md": PLANS}).parent)
    reader = kb.accounts.create_key("rita", ["lumen"])[1]
    writer = kb.accounts.create_key("wes", ["lumen"], writes=["lumen"])[1]
    with running(create_app(kb)) as url:
        page.add_init_script(f"localStorage.setItem('shu.apiKey', {json.dumps(reader)})")
        open_page(page, url, persona="lumen")
        expect(page.locator("#upload")).to_be_hidden()
        page.click("#browse")
        page.locator('.doc-item[data-doc-id="plans"]').click()
        expect(page.locator(".doc-download")).to_be_visible()
        expect(page.locator(".doc-delete")).to_have_count(0)
        page.evaluate(f"localStorage.setItem('shu.apiKey', {json.dumps(writer)})")
        page.add_init_script(f"localStorage.setItem('shu.apiKey', {json.dumps(writer)})")
        open_page(page, url, persona="lumen")
        expect(page.locator("#upload")).to_be_visible()
        page.set_input_files(
            "#upload-input", files=[{"name": "hours.md", "mimeType": "text/markdown", "buffer": HOURS}]
        )
        card = page.locator(".upload-card").first
        expect(card.locator(".upload-status")).to_contain_text("Done: 1 document indexed.", timeout=60_000)
    kb.close()

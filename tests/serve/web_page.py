"""What the web page tests (test_web.py) share: a real uvicorn server over a small knowledge base
(the six lumen-support example documents and a hostile persona, answered by a scripted model),
headless Chromium through Playwright, and helpers that open the page, ask and check it. Importing
this module skips the importing test module when Playwright or /usr/bin/chromium is missing."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.embed.minilm import MiniLMEmbedder
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import doc

sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
CHROMIUM = Path("/usr/bin/chromium")
if not CHROMIUM.exists():
    pytest.skip(
        "no Chromium at /usr/bin/chromium (Playwright must not download one)", allow_module_level=True
    )

expect = sync_api.expect

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "personas" / "lumen-support"
EXAMPLE_DOCS = [
    "pricing-and-plans",
    "sso-saml-setup",
    "lumen-faq",
    "api-rate-limits-and-errors",
    "onboarding-checklist",
    "data-connectors-guide",
]
QUESTION = "How much does the Pro plan cost?"
OVERVIEW = "[^pricing-and-plans:Pricing and Plans > Plan overview]"
PRO = "[^pricing-and-plans:Pricing and Plans > Plan details > Pro]"
PRICING_REPLY = (
    f"The Pro plan costs **$65 per seat per month** billed annually, or $78 per seat billed monthly. "
    f"{OVERVIEW} Pro includes SSO with SAML 2.0, anomaly detection alerts and 1,200 API requests "
    f"per minute. {PRO}"
)

XSS_SCRIPT = "<script>window.pwned=1</script>"
XSS_IMG = '<img src=x onerror="window.pwned=1">'
TABLE_QUESTION = "How do the Team and Pro plans compare in price?"
TABLE_REPLY = (
    "The Team and Pro plans side by side:\n\n"
    "| Plan | Price per seat | Note |\n"
    "| --- | --- | --- |\n"
    f"| Team | $35 billed annually {OVERVIEW} | 3 to 50 paid seats |\n"
    f"| Pro | $65 billed annually | {XSS_SCRIPT} {XSS_IMG} | {OVERVIEW}\n\n"
    f"Pro includes SSO with SAML 2.0. {PRO}"
)
XSS_LINK = "[click](javascript:window.pwned=1)"
FAKE_KEY = "[^lumen-faq:Fake > Section]"
HOSTILE_TITLE = f"{XSS_SCRIPT} Hostile notes"
HOSTILE = doc(
    "hostile",
    HOSTILE_TITLE,
    f"# Hostile notes\n\n## {XSS_IMG} Setup\n\nRun {XSS_SCRIPT} now, then {XSS_IMG} and {XSS_LINK}. "
    f"See {FAKE_KEY} for more about the hostile setup.\n\n## Other\n\nNothing else to see here.",
    date="2026-05-01",
    source_url="javascript:window.pwned=1",
    license=f"CC-BY-4.0 {XSS_IMG}",
)
HOSTILE_QUESTION = "What do the hostile notes say about the setup?"
BENIGN = doc("benign", "Benign notes", "# Benign notes\n\n## Intro\n\nThese notes are plain and harmless.")

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
PROSE_ONLY = "llm.budget.max_json_failures=0"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}


def _write_personas(root: Path) -> None:
    lumen = root / "lumen-support"
    (lumen / "RAG").mkdir(parents=True)
    for name in ("persona.md", "persona.config.json"):
        shutil.copy(EXAMPLE / name, lumen / name)
    for name in EXAMPLE_DOCS:
        shutil.copy(EXAMPLE / "RAG" / f"{name}.md", lumen / "RAG" / f"{name}.md")
    red = root / "red-team"
    (red / "RAG").mkdir(parents=True)
    (red / "persona.md").write_text("# Red Team\n\nDocuments that try to break the page.\n", encoding="utf-8")
    config = {"slug": "red-team", "display_name": "Red Team", "tags": []}
    (red / "persona.config.json").write_text(json.dumps(config), encoding="utf-8")
    (red / "RAG" / "hostile.md").write_text(HOSTILE, encoding="utf-8")
    (red / "RAG" / "benign.md").write_text(BENIGN, encoding="utf-8")


class Served:
    def __init__(self, url: str, hostile_key: str) -> None:
        self.url = url
        self.hostile_key = hostile_key


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, minilm: MiniLMEmbedder) -> Iterator[Served]:
    """A uvicorn server over six example documents (lumen-support) and a hostile persona; the
    scripted model answers the pricing question, or quotes the hostile document."""
    keys: dict[str, str] = {}

    def reply(messages: list[Message], schema: dict[str, Any] | None) -> str:
        if schema is not None:
            return "no JSON here: the rules take over"  # planner, verifier, agent fall back to rules
        prompt = "\n".join(m.content for m in messages)
        if TABLE_QUESTION in prompt:
            return TABLE_REPLY
        if "[^hostile:" in prompt:
            quoted = f"run {XSS_SCRIPT} and {XSS_IMG} and {XSS_LINK}."
            return f"The hostile notes say: {quoted} {keys['hostile']} [^evil:Fake]"
        return PRICING_REPLY

    tmp = tmp_path_factory.mktemp("web")
    _write_personas(tmp / "personas")
    settings = load_settings(
        tmp / "home",
        # the model's JSON never parses: it is asked for the answer all the same
        ["enrich.enabled=false", "answer.scope=false", "verify.method=rules", PROSE_ONLY],
    )
    kb = KnowledgeBase(settings, embedder=minilm, llm=LLMClient(ScriptedLLM(reply)))
    assert not kb.ingest(tmp / "personas").failed
    setup = next(s for s in kb.document("hostile", persona="red-team").sections if "Run" in s.text)
    keys["hostile"] = setup.citation_key
    with running(create_app(kb)) as url:
        yield Served(url, setup.citation_key)
    kb.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport=DESKTOP, color_scheme="light")
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda error: errors.append(str(error)))
    yield opened
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def screenshot_path(tmp_path: Path, name: str) -> Path:
    if os.environ.get("SHU_SCREENSHOTS") == "1":
        return ROOT / "docs" / name
    return tmp_path / name


def open_page(page: Any, url: str, persona: str = "lumen-support") -> None:
    page.goto(url)
    expect(page.locator(f'#persona option[value="{persona}"]')).to_have_count(1)
    page.select_option("#persona", persona)
    expect(page.locator("#intro h1")).to_be_visible()


def ask(page: Any, question: str) -> Any:
    """Ask and wait for the checked answer; the last turn."""
    turns = page.locator(".turn")
    before = turns.count()
    page.fill("#question", question)
    page.press("#question", "Enter")
    turn = turns.nth(before)
    expect(turn).to_have_class(re.compile(r"\bdone\b"), timeout=30_000)
    return turn


def no_horizontal_overflow(page: Any) -> bool:
    """Neither the page nor the chat or the panel scrolls sideways (wide tables scroll in place)."""
    return page.evaluate(
        """() => document.documentElement.scrollWidth <= window.innerWidth &&
        ['#scroller', '#panel-body'].every((s) => {
            const node = document.querySelector(s);
            return node.offsetParent === null || node.scrollWidth <= node.clientWidth;
        })"""
    )


def assert_harmless(page: Any) -> None:
    assert page.evaluate("typeof window.pwned") == "undefined"
    assert page.locator("body script, body img, body iframe, body [onerror]").count() == 0
    assert page.locator('a[href^="javascript:" i]').count() == 0


def sse(*events: tuple[str, object]) -> str:
    return "".join(f"event: {name}\ndata: {json.dumps(data)}\n\n" for name, data in events)

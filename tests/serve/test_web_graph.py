"""The graph view in a real browser (headless Chromium through Playwright) against a real uvicorn
server: a persona's documents, people and links drawn by the Cytoscape.js the package ships (no
network), a document node opening the document with Back to the graph, a person listing their
documents, a document's one-hop neighbourhood beside it, and the links an answer's expansion
followed highlighted. `SHU_SCREENSHOTS=1` writes docs/web-graph.png and docs/web-graph-phone.png."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import pytest

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.embed.minilm import MiniLMEmbedder
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import doc
from tests.serve import web_page
from tests.serve.web_page import PHONE, expect, no_horizontal_overflow, open_page, screenshot_path

pytestmark = pytest.mark.slow

browser = web_page.browser
page = web_page.page

VENDOR = Path(__file__).resolve().parents[2] / "src" / "shu" / "serve" / "web" / "vendor"
DOCS = {
    "announce.md": doc(
        "price-change",
        "Pro plan price change",
        "# Pro plan price change\n\nFrom March the Pro plan costs $15 a month instead of $12. "
        "Existing subscribers keep their price until renewal.",
        relations={"derived_from": ["pricing-memo"]},
        **{"from": "Ana Lima <ana@acme.example>"},
    ),
    "memo.md": doc(
        "pricing-memo",
        "Margin review memo",
        "# Margin review memo\n\nOur GPU supplier raised the accelerator rate from 1.74 to 2.31 euro "
        "an hour, so the margin of the cheapest paid tier fell from 71% to 58%.",
        **{"from": "Ana Lima <ana@acme.example>", "to": ["Ben Okafor <ben@acme.example>"]},
    ),
    "alerts.md": doc("alerts", "Alerts", "# Alerts\n\nAn alert fires when a metric crosses its threshold."),
}
SECRET = doc(
    "secret",
    "Board secrets",
    "# Board\n\nThe acquisition price is 9 million.",
    **{"from": "Cy <cy@board.example>"},
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory, minilm: MiniLMEmbedder) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("graph")
    for slug, files in (("acme", DOCS), ("board", {"secret.md": SECRET})):
        folder = tmp / "personas" / slug
        (folder / "RAG").mkdir(parents=True)
        (folder / "persona.md").write_text(f"# {slug.title()}\n\nA test persona.\n", encoding="utf-8")
        config = {"slug": slug, "display_name": slug.title(), "tags": []}
        (folder / "persona.config.json").write_text(json.dumps(config), encoding="utf-8")
        for name, text in files.items():
            (folder / "RAG" / name).write_text(text, encoding="utf-8")
    settings = load_settings(tmp / "home", ["answer.scope=false"])
    kb = KnowledgeBase(settings, embedder=minilm)
    assert not kb.ingest(tmp / "personas").failed
    with running(create_app(kb)) as url:
        yield url
    kb.close()


def click_node(page: Any, canvas: Any, node_id: str) -> None:
    """A real mouse click where Cytoscape drew the node."""
    expect(canvas).to_have_attribute("data-nodes", re.compile(r"\d+"))
    position = canvas.evaluate("(c, id) => c.cy.getElementById(id).renderedPosition()", node_id)
    box = canvas.bounding_box()
    page.mouse.click(box["x"] + position["x"], box["y"] + position["y"])


def test_the_vendored_library_is_the_published_file() -> None:
    listed = (VENDOR / "README.md").read_text(encoding="utf-8")
    digest = hashlib.sha256((VENDOR / "cytoscape.esm.min.mjs").read_bytes()).hexdigest()
    assert f"`{digest}`" in listed and "3.35.0" in listed
    assert (VENDOR / "cytoscape.LICENSE.txt").read_text(encoding="utf-8").startswith("Copyright (c)")


def test_the_graph_opens_documents_lists_a_persons_and_shows_a_neighbourhood(
    served: str, page: Any, tmp_path: Path
) -> None:
    own = urlparse(served).netloc
    elsewhere: list[str] = []
    page.on("request", lambda r: urlparse(r.url).netloc != own and elsewhere.append(r.url))
    open_page(page, served, "acme")
    page.click("#graph")
    panel = page.locator("#panel")
    canvas = panel.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-nodes", "5")  # three documents, Ana and Ben
    expect(panel.locator(".graph-summary")).to_have_text("3 documents · 2 people · 1 link between documents")
    expect(panel.locator(".graph-words li")).to_have_count(5)
    assert (
        "Board secrets" not in panel.inner_text() and "Cy" not in panel.locator(".graph-words").inner_text()
    )
    page.screenshot(path=str(screenshot_path(tmp_path, "web-graph.png")))

    click_node(page, canvas, "person:ana@acme.example")
    details = panel.locator(".graph-details")
    expect(details.locator("h3")).to_have_text("Person: Ana Lima")
    expect(details.locator(".graph-links li")).to_have_count(2)
    details.get_by_role("button", name="Margin review memo").click()
    expect(panel.locator(".doc-title")).to_have_text("Margin review memo")
    expect(page.locator("#panel-back")).to_contain_text("Graph")

    neighbourhood = panel.locator(".neighbourhood")  # beside the document: its one-hop links
    expect(neighbourhood).to_be_visible()
    expect(neighbourhood.locator(".graph-canvas")).to_have_attribute("data-nodes", "4")
    expect(neighbourhood.locator(".neighbours li")).to_have_text(
        ["Pro plan price change · document", "Ana Lima · person", "Ben Okafor · person"]
    )
    page.click("#panel-back")
    expect(canvas).to_be_visible()
    click_node(page, panel.locator(".graph-canvas"), "document:price-change")
    expect(panel.locator(".doc-title")).to_have_text("Pro plan price change")

    page.set_viewport_size(PHONE)
    page.click("#panel-back")
    expect(panel.locator(".graph-canvas")).to_have_attribute("data-nodes", "5")
    assert no_horizontal_overflow(page)
    page.screenshot(path=str(screenshot_path(tmp_path, "web-graph-phone.png")))
    assert elsewhere == [], "the graph library is the package's own: nothing is fetched elsewhere"


def test_the_links_an_answer_followed_are_highlighted_in_the_graph(served: str, page: Any) -> None:
    open_page(page, served, "acme")
    page.fill("#question", "Why did the Pro plan price go up?")
    page.press("#question", "Enter")
    turn = page.locator(".turn").last
    expect(turn).to_have_class(re.compile(r"\bdone\b"), timeout=30_000)
    turn.locator("details.trace summary").click()
    followed = turn.locator(".followed li")
    expect(followed).to_have_count(1)
    expect(followed.first).to_contain_text("price-change —derived_from→ pricing-memo")
    turn.get_by_role("button", name="Show them in the graph").click()
    panel = page.locator("#panel")
    expect(panel.locator(".graph-summary")).to_contain_text("1 link the answer followed, highlighted")
    canvas = panel.locator(".graph-canvas")
    expect(canvas).to_have_attribute("data-nodes", "5")
    highlighted = canvas.evaluate(
        "c => c.cy.edges('.followed').map((e) => [e.source().id(), e.target().id()])"
    )
    assert highlighted == [["document:price-change", "document:pricing-memo"]]

"""The web chat page in a real browser (headless Chromium through Playwright) against a real
uvicorn server over a small knowledge base: the streamed, cited answer and the cited section in
the side panel, hostile documents rendered as text, tables in answers as tables, the document
browser, feedback, auth, errors and a phone-width layout. `SHU_SCREENSHOTS=1` writes
docs/web-desktop.png, docs/web-phone.png and docs/web-phone-panel.png (otherwise they go to the
test's tmp_path)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from shu.kb import KnowledgeBase
from shu.serve.background import running
from shu.serve.http import create_app
from tests.conftest import PersonaMaker
from tests.retrieve.test_personal import build_office
from tests.serve import web_page
from tests.serve.web_page import (
    EXAMPLE_DOCS,
    FAKE_KEY,
    HOSTILE_QUESTION,
    HOSTILE_TITLE,
    OVERVIEW,
    PHONE,
    PRO,
    QUESTION,
    TABLE_QUESTION,
    XSS_IMG,
    XSS_LINK,
    XSS_SCRIPT,
    Served,
    ask,
    assert_harmless,
    expect,
    no_horizontal_overflow,
    open_page,
    screenshot_path,
    sse,
)

pytestmark = pytest.mark.slow

# the fixtures of web_page.py, found by pytest under these names (`served` starts one server for
# all the tests here)
served = web_page.served
browser = web_page.browser
page = web_page.page


def test_a_streamed_answer_cites_and_opens_the_cited_section(
    served: Served, page: Any, tmp_path: Path
) -> None:
    open_page(page, served.url)
    expect(page.locator("#intro h1")).to_have_text("Lumen Support")
    turn = ask(page, QUESTION)
    text = turn.locator(".answer-text")
    expect(text).to_contain_text("The Pro plan costs $65 per seat per month billed annually")
    expect(text.locator("strong")).to_have_text("$65 per seat per month")
    assert "[^" not in text.inner_text(), "every citation key became a number"
    cites = text.locator("button.cite")
    expect(cites).to_have_count(2)
    assert cites.all_inner_texts() == ["1", "2"]
    sources = turn.locator(".sources li")
    expect(sources).to_have_count(2)
    expect(sources.first).to_contain_text("Pricing and Plans")
    expect(sources.first).to_contain_text("Plan overview")
    expect(turn.locator(".badge.confidence")).to_contain_text("Confidence")

    cites.nth(1).click()
    panel = page.locator("#panel")
    expect(panel.locator(".doc-title")).to_have_text("Pricing and Plans")
    cited = panel.locator(".doc-section.cited")
    expect(cited).to_have_count(1)
    expect(cited.locator(".section-path")).to_have_text("Plan details › ProCited")
    expect(cited.locator("mark.cited-text")).to_contain_text("Pro is built for companies")
    expect(cited).to_be_in_viewport()
    assert cited.get_attribute("data-key") == PRO

    cites.first.click()  # the first citation moves the highlight to its own section
    expect(cited.locator(".section-path")).to_contain_text("Plan overview")
    expect(cited.locator("mark.cited-text")).to_contain_text("Annual billing is about 17% cheaper")
    expect(cited.locator("table td", has_text="$65")).to_have_count(1)  # the Markdown table, as a table
    expect(cited).to_be_in_viewport()
    assert cited.get_attribute("data-key") == OVERVIEW
    page.screenshot(path=str(screenshot_path(tmp_path, "web-desktop.png")))

    page.click("#panel-close")
    expect(panel).to_be_hidden()
    page.set_viewport_size(PHONE)
    turn.scroll_into_view_if_needed()
    expect(turn.locator(".answer-text")).to_be_in_viewport()
    page.locator("#scroller").evaluate("node => { node.scrollTop = 0; }")
    page.screenshot(path=str(screenshot_path(tmp_path, "web-phone.png")))
    cites.first.click()
    expect(panel.locator(".doc-section.cited")).to_be_in_viewport()
    box = panel.bounding_box()
    assert box is not None and box["x"] == 0 and box["width"] == PHONE["width"], "full width, below the chat"
    page.screenshot(path=str(screenshot_path(tmp_path, "web-phone-panel.png")))


def test_b_a_hostile_document_renders_as_text(served: Served, page: Any) -> None:
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    open_page(page, served.url, "red-team")

    page.click("#browse")  # through the document browser
    page.click('.doc-item[data-doc-id="hostile"]')
    panel = page.locator("#panel")
    expect(panel.locator(".doc-title")).to_have_text(HOSTILE_TITLE)
    body = panel.locator(".doc-sections")
    expect(body).to_contain_text(f"Run {XSS_SCRIPT} now, then {XSS_IMG} and {XSS_LINK}.")
    expect(body).to_contain_text(FAKE_KEY)
    expect(panel.locator(".section-path").first).to_contain_text(f"{XSS_IMG} Setup")
    expect(panel.locator('a[href^="javascript:"]')).to_have_count(0)  # the API drops a javascript: source
    expect(panel.locator(".source-url a")).to_have_count(0)
    expect(panel.locator(".doc-meta .license")).to_have_text(f"Licence: CC-BY-4.0 {XSS_IMG}")  # as text
    assert_harmless(page)

    page.click("#panel-close")
    turn = ask(page, HOSTILE_QUESTION)  # and through an answer that quotes it
    text = turn.locator(".answer-text")
    expect(text).to_contain_text(f"run {XSS_SCRIPT} and {XSS_IMG} and [click]")  # the answer step
    expect(text).to_contain_text("(javascript:window.pwned=1)")  # writes "[click] (…)" apart
    assert text.locator("button.cite").count() >= 1
    assert text.locator('button.cite[data-key^="[^evil:"]').count() == 0, "an unresolved key is no citation"
    text.locator("button.cite").first.click()
    expect(panel.locator(".doc-section.cited")).to_contain_text(f"Run {XSS_SCRIPT} now")
    assert panel.locator(".doc-section.cited").get_attribute("data-key") == served.hostile_key
    expect(turn.locator(".sources li").first.locator(".source-license")).to_have_text(
        f"Licence: CC-BY-4.0 {XSS_IMG}"
    )
    turn.locator(".trace summary").click()
    expect(turn.locator(".trace-body")).to_be_visible()
    assert_harmless(page)
    assert not dialogs


def test_c_the_document_browser_opens_a_document(served: Served, page: Any) -> None:
    open_page(page, served.url)
    page.click("#browse")
    items = page.locator("#panel .doc-item")
    expect(items).to_have_count(len(EXAMPLE_DOCS))
    expect(page.locator("#panel .pager")).to_contain_text(f"1–{len(EXAMPLE_DOCS)} of {len(EXAMPLE_DOCS)}")
    expect(page.locator("#panel .pager button", has_text="Next")).to_be_disabled()
    page.click('#panel .doc-item[data-doc-id="sso-saml-setup"]')
    title = page.locator("#panel .doc-title")
    expect(title).to_contain_text("SAML")
    expect(page.locator("#panel .doc-section").first).to_be_visible()
    expect(page.locator("#panel .doc-section.cited")).to_have_count(0)
    page.click("#panel-back")
    expect(items).to_have_count(len(EXAMPLE_DOCS))
    expect(page.locator("#jobs")).to_be_hidden()  # /v1/jobs is not on this server: no panel


def test_d_feedback_is_sent_and_a_missing_endpoint_breaks_nothing(served: Served, page: Any) -> None:
    open_page(page, served.url)
    turn = ask(page, QUESTION)
    answer_text = turn.locator(".answer-text").inner_text()

    def feedback(kind: str) -> Any:
        def sent(request: Any) -> bool:
            if not request.url.endswith("/v1/feedback") or request.method != "POST":
                return False
            return json.loads(request.post_data or "{}").get("kind") == kind

        return sent

    with page.expect_request(feedback("up")) as sent:
        turn.locator(".feedback-up").click()
    body = sent.value.post_data_json
    assert body["kind"] == "up" and body["persona"] == "lumen-support" and body["question"] == QUESTION
    assert body["answer"].startswith("The Pro plan costs **$65") and "$65" in answer_text
    expect(turn.locator(".feedback-up")).to_have_attribute("aria-pressed", "true")
    expect(turn.locator(".feedback-note")).to_have_text("Thanks for the feedback")
    stored = httpx.get(f"{served.url}/v1/feedback", params={"persona": "lumen-support"}).json()
    assert (stored[0]["kind"], stored[0]["question"]) == ("up", QUESTION), "the newest signal"

    # a server without the endpoint (404/405): the page just keeps working
    page.route("**/v1/feedback", lambda route: route.fulfill(status=404, json={"detail": "Not Found"}))
    with page.expect_request(feedback("down")):
        turn.locator(".feedback-down").click()
    expect(turn.locator(".feedback-down")).to_have_attribute("aria-pressed", "true")
    expect(turn.locator(".feedback-up")).to_have_attribute("aria-pressed", "false")
    expect(turn.locator(".feedback-note")).to_have_text("")

    with page.expect_request(feedback("opened")) as opened:
        turn.locator(".answer-text button.cite").first.click()
    assert opened.value.post_data_json == {
        "persona": "lumen-support",
        "kind": "opened",
        "doc_id": "pricing-and-plans",
    }
    with page.expect_request(feedback("star")) as starred:
        page.click("#panel .star")
    assert starred.value.post_data_json == {
        "persona": "lumen-support",
        "kind": "star",
        "doc_id": "pricing-and-plans",
    }
    expect(page.locator("#panel .star")).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".error")).to_have_count(0)


def test_e_a_phone_width_never_scrolls_sideways(served: Served, browser: Any) -> None:
    context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    page = context.new_page()
    try:
        open_page(page, served.url)
        assert no_horizontal_overflow(page)
        for button, name in (
            ("#browse", "Documents"),
            ("#conversations", "Conversations"),
            ("#new-conversation", "New"),
            ("#upload", "Upload"),
        ):  # the labels are hidden at this width: each shows an icon, and keeps its name
            expect(page.locator(button)).to_have_accessible_name(name)
            drawn = page.locator(f"{button} svg.icon").bounding_box()
            assert drawn is not None and drawn["width"] >= 12, f"{button} shows an icon"
        turn = ask(page, QUESTION)
        turn.locator(".trace summary").click()
        expect(turn.locator(".trace .hits").first).to_be_visible()
        assert no_horizontal_overflow(page)
        turn.locator(".trace .fused .hit-link").first.click()  # a hit of the trace opens its section
        expect(page.locator("#panel .doc-section.cited")).to_be_visible()
        assert no_horizontal_overflow(page)
        page.click("#panel-close")
        turn.locator(".answer-text button.cite").first.click()  # the section with the wide table
        expect(page.locator("#panel .doc-section.cited .md-table")).to_be_visible()
        assert no_horizontal_overflow(page)
        chat, panel = page.locator("#chat").bounding_box(), page.locator("#panel").bounding_box()
        assert chat is not None and panel is not None
        assert chat["y"] + chat["height"] <= panel["y"] + 1, "the document opens below the chat, not over it"
        assert chat["height"] >= 200 and panel["height"] >= 300, (chat, panel)
        expect(page.locator("#question")).to_be_in_viewport()  # one can go on asking
        expect(page.locator("#panel-close")).to_be_in_viewport()
        table = page.locator("#panel .doc-section.cited .table-wrap")
        before, after = _scrolled_to_its_last_column(table)
        assert before["wider"] and before["faded"], "a table wider than its box shows there is more"
        assert before["inside"], "the box of a wide table stays inside the panel"
        assert after["last_in_sight"] and not after["faded"], "its last column scrolls into sight, in its box"
        assert no_horizontal_overflow(page)
        page.click("#panel-close")
        page.click("#browse")
        expect(page.locator("#panel .doc-item")).to_have_count(len(EXAMPLE_DOCS))
        assert no_horizontal_overflow(page)
    finally:
        context.close()


def _scrolled_to_its_last_column(wrap: Any) -> tuple[dict[str, bool], dict[str, bool]]:
    """A table's box before and after it is scrolled to its right end: whether the table is wider
    than its box, the box within the panel's body, its right edge faded (there is more to see),
    and its last column wholly within the box."""
    look = """(box) => {
        const edges = (node) => node.getBoundingClientRect();
        const own = edges(box), body = edges(document.querySelector('#panel-body'));
        const last = edges(box.querySelector('tr > :last-child'));
        return {
            wider: box.scrollWidth > box.clientWidth,
            inside: own.left >= body.left && own.right <= body.right,
            faded: getComputedStyle(box).maskImage !== 'none',
            last_in_sight: last.left >= own.left - 1 && last.right <= own.right + 1,
        };
    }"""
    before = wrap.evaluate(look)
    wrap.evaluate("(box) => { box.scrollLeft = box.scrollWidth; }")
    wrap.page.wait_for_timeout(100)  # the fade follows the scroll on the next frame
    return before, wrap.evaluate(look)


def test_f_the_api_key_is_asked_for_kept_and_asked_again_on_401(served: Served, page: Any) -> None:
    page.route("**/healthz", lambda route: route.fulfill(json={"status": "ok", "version": "t", "auth": True}))
    seen: list[str | None] = []

    def personas(route: Any) -> None:
        given = route.request.headers.get("authorization")
        seen.append(given)
        if given == "Bearer right-key":
            route.continue_()
        else:
            route.fulfill(status=401, json={"detail": "invalid API key"})

    page.route("**/v1/personas", personas)
    page.goto(served.url)
    dialog = page.locator("#auth-dialog")
    expect(dialog).to_be_visible()
    page.fill("#auth-key", "wrong-key")
    page.click("#auth-form button[type=submit]")
    expect(page.locator("#auth-message")).to_contain_text("invalid API key")
    page.fill("#auth-key", "right-key")
    page.click("#auth-form button[type=submit]")
    expect(page.locator('#persona option[value="lumen-support"]')).to_have_count(1)
    expect(dialog).to_be_hidden()
    assert seen == ["Bearer wrong-key", "Bearer right-key"]
    assert page.evaluate("localStorage.getItem('shu.apiKey')") == "right-key"
    expect(page.locator("#key-button")).to_be_visible()


def test_g_errors_are_readable_and_jobs_are_shown(served: Served, page: Any) -> None:
    replies = iter(
        [
            (403, {"detail": "this key may not read persona 'lumen-support'"}),
            (
                422,
                {
                    "detail": [
                        {"loc": ["body", "question"], "msg": "String should have at most 4000 characters"}
                    ]
                },
            ),
        ]
    )
    page.route("**/v1/ask", lambda route: route.fulfill(status=(r := next(replies))[0], json=r[1]))
    job = {"id": "j1", "kind": "ingest", "status": "running", "stage": "embedding", "processed": 12}
    job |= {"failed": 0, "total": 40, "percent": 30.0, "elapsed_s": 5.0, "eta_s": 11.0, "error": None}
    listed = {"jobs": [job, job | {"id": "j2", "status": "queued", "percent": None}]}
    page.route(re.compile(r"/v1/jobs(\?|$)"), lambda route: route.fulfill(json=listed))
    open_page(page, served.url)
    jobs = page.locator("#jobs")
    expect(jobs).to_be_visible()
    expect(jobs).to_contain_text("ingest · embedding 12/40 · 30% · 11s left")
    expect(jobs.locator(".job")).to_have_count(1)
    expect(jobs).to_contain_text("+1 more")

    page.fill("#question", QUESTION)
    page.press("#question", "Enter")
    expect(page.locator(".turn.failed .error")).to_have_text("this key may not read persona 'lumen-support'")
    page.fill("#question", QUESTION)
    page.press("#question", "Enter")
    expect(page.locator(".turn.failed .error").nth(1)).to_have_text(
        "question: String should have at most 4000 characters"
    )


def test_h_a_reset_withdraws_the_draft_and_an_error_event_is_shown(served: Served, page: Any) -> None:
    citation = {
        "key": OVERVIEW,
        "doc_id": "pricing-and-plans",
        "section_path": "Pricing and Plans > Plan overview",
    }
    citation |= {"chunk_id": "pricing-and-plans#1", "title": "Pricing and Plans", "source_url": None}
    final = {
        "question": QUESTION,
        "persona": "lumen-support",
        "text": f"Annual billing is cheaper. {OVERVIEW}",
    }
    final |= {"citations": [citation], "insufficient": False, "confidence": 0.9, "method": "llm:x"}
    streams = iter(
        [
            sse(
                ("piece", {"text": "A draft that "}),
                ("piece", {"text": PRO}),
                ("reset", {"reason": "the draft cited a section it did not read"}),
                ("piece", {"text": "Annual billing is cheaper. "}),
                ("piece", {"text": OVERVIEW}),
                ("answer", final),
            ),
            sse(("piece", {"text": "Half an ans"}), ("error", {"detail": "the model timed out"})),
        ]
    )
    page.route(
        "**/v1/ask",
        lambda route: route.fulfill(status=200, content_type="text/event-stream", body=next(streams)),
    )
    open_page(page, served.url)
    turn = ask(page, QUESTION)
    expect(turn.locator(".notice")).to_have_text(
        "A first draft was withdrawn: the draft cited a section it did not read."
    )
    expect(turn.locator(".answer-text")).to_have_text("Annual billing is cheaper.1")
    expect(turn.locator(".answer-text button.cite")).to_have_attribute("data-key", OVERVIEW)
    expect(turn.locator(".badge.confidence.high")).to_have_text("Confidence 90%")

    page.fill("#question", "And the monthly price?")
    page.press("#question", "Enter")
    failed = page.locator(".turn").nth(1)
    expect(failed).to_have_class(re.compile(r"\bfailed\b"))
    expect(failed.locator(".error")).to_have_text("the model timed out")
    expect(failed.locator(".answer-text")).to_have_text("Half an ans")


def test_i_the_trace_shows_whom_the_ranking_was_for(
    kb: KnowledgeBase, make_persona: PersonaMaker, page: Any, tmp_path: Path
) -> None:
    """Asked with a user's key, the trace names the user, each boosted document with its reasons
    (a link to the document), and what "the proposal" was taken to mean."""
    office = build_office(kb, make_persona)
    _, token = office.accounts.create_key("vp", ["office"])
    with running(create_app(office)) as url:
        page.add_init_script(f"localStorage.setItem('shu.apiKey', {json.dumps(token)})")
        open_page(page, url, persona="office")
        turn = ask(page, "What's the status of the proposal?")
        turn.locator(".trace summary").click()
        ranked = turn.locator(".trace-block", has_text="Ranked for vp")
        first = ranked.locator(".boost").first
        expect(first).to_contain_text("Proposal for Acme Corp")
        expect(first).to_contain_text("project Acme Deal (the one you mean)")
        expect(first.locator(".boost-size")).to_have_text(re.compile(r"^\+0\.\d\d$"))
        expect(ranked.locator("dt", has_text="“the proposal”")).to_have_count(1)
        ranked.screenshot(path=screenshot_path(tmp_path, "web-trace-personal.png"))
        first.locator(".hit-link").click()
        expect(page.locator("#panel")).to_contain_text("awaiting legal review")


def test_j_a_table_in_an_answer_is_a_table_of_text_and_never_pipes(
    served: Served, page: Any, tmp_path: Path
) -> None:
    """Streamed in pieces of a few characters; shown as an HTML table whose cells keep their
    citations (one written after the row's closing pipe too) and show markup as text."""
    open_page(page, served.url)
    turn = ask(page, TABLE_QUESTION)
    text = turn.locator(".answer-text")
    table = text.locator("table.md-table")
    expect(table).to_have_count(1)
    assert table.locator("th").all_inner_texts() == ["Plan", "Price per seat", "Note"]
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(2)
    team, pro = rows.nth(0).locator("td"), rows.nth(1).locator("td")
    assert team.all_inner_texts()[0] == "Team" and team.all_inner_texts()[2] == "3 to 50 paid seats"
    expect(team.nth(1)).to_have_text("$35 billed annually1")
    expect(team.nth(1).locator("button.cite")).to_have_attribute("data-key", OVERVIEW)
    expect(pro.nth(2)).to_have_text(f"{XSS_SCRIPT} {XSS_IMG}1")
    expect(pro.nth(2).locator("button.cite")).to_have_attribute("data-key", OVERVIEW)
    expect(text.locator("p", has_text="Pro includes SSO with SAML 2.0.")).to_have_count(1)  # not a row
    assert "|" not in text.inner_text() and "---" not in text.inner_text(), "no pipe text left"
    assert_harmless(page)
    turn.screenshot(path=str(screenshot_path(tmp_path, "web-answer-table.png")))

    shown = page.evaluate(
        """async () => {
            const { settledText } = await import(new URL("answer.js", location.href).href);
            return [
                "Intro\\n\\n| a | b",
                "Intro\\n\\n| a | b |\\n| --",
                "| a | b |\\n| --- | --- |\\n| 1 | 2",
                "| a | b |\\n| --- | --- |\\n| 1 | 2 |\\n",
                "Prose with a | pipe",
            ].map(settledText);
        }"""
    )
    assert shown == [
        "Intro\n",
        "Intro\n",
        "| a | b |\n| --- | --- |",
        "| a | b |\n| --- | --- |\n| 1 | 2 |",
        "Prose with a | pipe",
    ], "while streaming, a row shows once whole and a header once its rule is there"


def test_j_a_contradicted_claim_is_marked_on_its_own_line_and_in_the_trace(served: Served, page: Any) -> None:
    said = "The Pro plan costs $65 per seat per month."
    note = f"[contradicted] the cited section says: “{said}”"
    verdict = {"claim": "The Pro plan costs $99 per seat", "citations": [OVERVIEW], "verdict": "contradicted"}
    verdict |= {"reason": "the claim says 99; the source says 65", "quote": said, "method": "rules"}
    citation = {"key": OVERVIEW, "doc_id": "pricing-and-plans", "section_path": OVERVIEW[20:-1]}
    citation |= {"chunk_id": "pricing-and-plans#1", "title": "Pricing and Plans", "source_url": None}
    final = {"question": QUESTION, "persona": "lumen-support", "method": "llm:x", "citations": [citation]}
    text = f"The Pro plan costs $99 per seat. {OVERVIEW}\n{note}\nIt is billed per seat. {OVERVIEW}"
    final |= {"text": text}
    final |= {"verification": {"method": "rules", "verdicts": [verdict]}, "insufficient": False}
    final |= {"llm_stopped": "its 16 calls (llm.budget.max_calls) were spent"}
    body = sse(("piece", {"text": "The Pro plan costs $99 per seat. "}), ("answer", final))
    page.route(
        "**/v1/ask", lambda route: route.fulfill(status=200, content_type="text/event-stream", body=body)
    )
    open_page(page, served.url)
    turn = ask(page, QUESTION)
    shown = turn.locator(".answer-text")
    flag = shown.locator(".flag.flag-contradicted")
    expect(flag).to_have_text("contradicted")
    expect(shown).to_contain_text(f"contradicted the cited section says: “{said}”")
    before = """(node) => {
        let seen = node.previousSibling;  // what is shown before the flag, empty text aside
        while (seen && seen.nodeType === Node.TEXT_NODE && !seen.textContent.trim()) {
            seen = seen.previousSibling;
        }
        return seen && seen.nodeName;
    }"""
    assert flag.evaluate(before) == "BR", "the note starts a line of its own"
    turn.locator(".trace summary").click()
    expect(turn.locator(".verdict.contradicted .badge")).to_have_text("contradicted")
    expect(turn.locator(".trace")).to_contain_text("its 16 calls (llm.budget.max_calls) were spent")


def test_k_which_documents_is_a_list_of_the_documents_each_cited_at_any_width(
    served: Served, page: Any, tmp_path: Path
) -> None:
    """A question about the collection is answered with the documents, one line each, by the
    reader (the model is not asked), on a desktop and at phone width."""
    open_page(page, served.url)
    turn = ask(page, "Which documents mention SCIM provisioning?")
    text = turn.locator(".answer-text")
    expect(text).to_contain_text("4 documents mention SCIM provisioning:")
    items = text.locator("li")
    expect(items).to_have_count(4)
    titles = sorted(t.split(" (")[0].split(":")[0] for t in items.all_inner_texts())
    assert titles == [
        "Lumen Analytics Frequently Asked Questions",
        "New Workspace Onboarding Checklist",
        "Pricing and Plans",
        "SSO and SAML Setup Guide",
    ]
    for n in range(4):
        expect(items.nth(n).locator("button.cite")).to_have_count(1)
    assert "$65" not in text.inner_text(), "the scripted model was not asked"
    assert "|" not in text.inner_text()
    turn.screenshot(path=str(screenshot_path(tmp_path, "web-which-documents.png")))
    page.set_viewport_size(PHONE)
    assert no_horizontal_overflow(page)
    turn.screenshot(path=str(screenshot_path(tmp_path, "web-which-documents-phone.png")))

"""The agent's relational and manifest tools take their qualifier (a relation type, a domain), a
document's passages are reached through their summaries, and what the agent finds of a
document's people and projects is written back quoted, read by search, and undoable — each
through the agent with the scripted model."""

from __future__ import annotations

import json
from typing import Any

import pytest

from shu.answer.agent import Agent
from shu.answer.agent.tools import TOOLS, Call, Workspace
from shu.config.settings import AgentSettings
from shu.kb import KnowledgeBase
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from tests.conftest import PersonaMaker, doc

DEALS = {
    "pricing.md": doc(
        "acme-pricing",
        "Acme pricing agreement",
        "# Acme pricing agreement\n\n## Terms\n\nWe agreed with Acme Corp on 40 euros per seat for "
        "the first year.",
        type="email",
        project="Acme Renewal",
        **{"from": "Ana Lima <ana@acme.example>", "to": ["Ben Okafor <ben@acme.example>"]},
    ),
    "revision.md": doc(
        "acme-pricing-2025",
        "Acme pricing revision",
        "# Acme pricing revision\n\n## Change\n\nThe price per seat for Acme Corp rose to 44 euros in "
        "2025. Ana Lima asked for the change after the audit. Carla Mendes approved the new price for "
        "the Acme Renewal project. The change is tracked under the Northwind Migration.",
        author="Ben Okafor",
        relations={"supersedes": ["acme-pricing"]},
    ),
    "guide.md": doc(
        "onboarding-guide",
        "Onboarding guide",
        "# Onboarding guide\n\n## Accounts\n\nEvery new customer gets an administrator account and "
        "a sandbox.\n\n## Billing\n\n1. Open the billing page.\n2. Enter the invoice address.\n"
        "3. Choose monthly or yearly invoicing.",
    ),
}


@pytest.fixture
def deals(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("deals", rag=DEALS)).failed
    return kb


def workspace(kb: KnowledgeBase) -> Workspace:
    return Workspace(kb.store, kb.parts.embedder, kb.parts.pipeline, kb.persona("deals"))


def action(
    tool: str, query: str = "", doc_ids: list[str] | None = None, kind: str = "", reason: str = ""
) -> str:
    return json.dumps(
        {"tool": tool, "query": query, "doc_ids": doc_ids or [], "kind": kind, "reason": reason or "scripted"}
    )


def run_script(
    kb: KnowledgeBase, question: str, replies: list[str], learn: bool = True
) -> tuple[Any, list[str]]:
    """The agent following `replies`; the trace and what the model read after each step."""
    read: list[str] = []
    script = iter(replies)

    def reply(messages: list[Message], schema: Any) -> str:
        read.append(messages[-1].content.split("Last results:")[-1])
        return next(script, action("finish"))

    settings = AgentSettings(method="llm", max_steps=len(replies) + 1, learn=learn)
    agent = Agent(
        settings,
        kb.store,
        kb.parts.embedder,
        kb.parts.pipeline,
        LLMClient(ScriptedLLM(reply), max_retries=0),
    )
    _, trace = agent.investigate(kb.retrieve(question, persona="deals"), kb.persona("deals"), "test")
    return trace, read[1:]


def ids(result: Any) -> list[str]:
    return [f.doc_id for f in result.found]


# -- query_relational_index(entity, relation_type) ----------------------------------------------


def test_the_relational_index_keeps_to_the_role_a_name_plays(deals: KnowledgeBase) -> None:
    ws = workspace(deals)
    tool = TOOLS["query_relational_index"]
    assert ids(tool.run(ws, Call("Ana Lima", kind="author")))[:1] == ["acme-pricing"]
    assert ids(tool.run(ws, Call("Ben Okafor", kind="recipient")))[:1] == ["acme-pricing"]
    assert ids(tool.run(ws, Call("Ben Okafor", kind="author")))[:1] == ["acme-pricing-2025"]
    nowhere = tool.run(ws, Call("Ana Lima", kind="recipient"))
    assert nowhere.found == [] and nowhere.summary == "no document by name as recipient"
    project = tool.run(ws, Call("Acme Renewal", kind="project"))
    assert "acme-pricing" in ids(project)
    assert ids(tool.run(ws, Call("Ana", kind="author")))[:1] == ["acme-pricing"], (
        "a first name finds the person"
    )


def test_a_link_type_follows_only_links_of_that_type_both_ways(deals: KnowledgeBase) -> None:
    ws = workspace(deals)
    tool = TOOLS["query_relational_index"]
    newer = tool.run(ws, Call("Ana Lima", kind="supersedes"))
    assert ids(newer)[:2] == ["acme-pricing", "acme-pricing-2025"], newer.text
    assert "acme-pricing-2025 supersedes acme-pricing" in newer.text
    replies = tool.run(ws, Call("Ana Lima", kind="replies_to"))
    assert "acme-pricing" in ids(replies) and "supersedes" not in replies.text
    wrong = tool.run(ws, Call("Ana Lima", kind="deal"))
    assert wrong.found == [] and wrong.summary == "not a relation type: 'deal'"
    assert "supersedes" in wrong.text and "decision_maker" in wrong.text, "the model is told the types"


# -- query_capability_manifests(topic, domain) --------------------------------------------------


def test_a_domain_keeps_the_documents_whose_manifest_declares_it(deals: KnowledgeBase) -> None:
    ws = workspace(deals)
    tool = TOOLS["query_capability_manifests"]
    everything = tool.run(ws, Call("customer pricing and billing"))
    assert len(everything.found) == 3
    how = tool.run(ws, Call("customer pricing and billing", kind="how"))
    assert ids(how) == ["onboarding-guide"], how.text
    assert "step-by-step procedures" in how.text
    prices = tool.run(ws, Call("customer pricing and billing", kind="prices"))
    assert set(ids(prices)) == {"acme-pricing", "acme-pricing-2025"}
    none = tool.run(ws, Call("customer pricing and billing", kind="recipes"))
    assert none.found == [] and none.summary == "no document by manifest declares 'recipes'"
    assert "step-by-step procedures" in none.text, "what the topic's documents declare instead"


# -- scan_chunk_summaries(doc_id, query?) -------------------------------------------------------


def test_a_scan_goes_from_a_document_to_its_matching_passage_without_loading_it(deals: KnowledgeBase) -> None:
    trace, read = run_script(
        deals,
        "How do I set up invoicing for a new customer?",
        [
            action("query_synopses", "onboarding new customers"),
            action("scan_chunk_summaries", "invoice address billing", ["onboarding-guide"]),
        ],
    )
    assert [s.tool for s in trace.steps] == ["query_synopses", "scan_chunk_summaries"]
    assert trace.steps[1].refused is None and trace.steps[1].arguments["doc_ids"] == ["onboarding-guide"]
    assert "1 matching" in trace.steps[1].summary
    shown = read[1].split('<result tool="scan_chunk_summaries">')[1]
    assert "Onboarding guide > Billing" in shown and "Onboarding guide > Accounts" in shown
    assert "Choose monthly or yearly invoicing" not in shown, "summaries, not the document's text"
    result = TOOLS["scan_chunk_summaries"].run(
        workspace(deals), Call("invoice address", ["onboarding-guide"])
    )
    assert [h.chunk.section_path for h in result.hits] == ["Onboarding guide > Billing"]
    bare = TOOLS["scan_chunk_summaries"].run(workspace(deals), Call("", ["onboarding-guide"]))
    assert bare.hits == [] and bare.text.count("\n- ") == 2, "without a query: every passage, in order"


# -- relational write-back ----------------------------------------------------------------------


def test_a_person_the_model_reads_in_a_document_is_recorded_quoted_searched_and_undone(
    deals: KnowledgeBase,
) -> None:
    quote = "Carla Mendes approved the new price for the Acme Renewal project."
    record = action(
        "record_relational_context", "Carla Mendes", ["acme-pricing-2025"], "decision_maker", quote
    )
    trace, _ = run_script(
        deals,
        "Who approved the 2025 Acme price?",
        [
            record,  # not read yet: refused
            action("get_document_context", doc_ids=["acme-pricing-2025"]),
            action(
                "record_relational_context",
                "Carla Mendes",
                ["acme-pricing-2025"],
                "decision_maker",
                "Carla Mendes signed off on everything",
            ),
            action("record_relational_context", "Dan Roe", ["acme-pricing-2025"], "decision_maker", quote),
            action("record_relational_context", "Carl", ["acme-pricing-2025"], "decision_maker", quote),
            action(
                "record_relational_context",
                "approved the new price for the Acme Renewal project",
                ["acme-pricing-2025"],
                "decision_maker",
                quote,
            ),
            action("record_relational_context", "Carla Mendes", ["acme-pricing-2025"], "chair", quote),
            record,
        ],
    )
    assert (
        trace.steps[0].refused == "record_relational_context needs a document loaded or inspected in this run"
    )
    assert [s.summary for s in trace.steps[2:8]] == [
        "not recorded: the reason must quote the document verbatim (20 characters or more)",
        "not recorded: the quote does not name 'Dan Roe'",
        "not recorded: the quote does not name 'Carl'",
        "not recorded: 'approved the new price for the Acme Renewal project' is not a name "
        "(a person or a project, 1–6 words)",
        "not a role: 'chair'",
        "acme-pricing-2025: Carla Mendes (decision_maker) recorded",
    ]
    found = [f for f in deals.store.list_findings("deals") if f.target == "decision_maker"]
    assert [(f.doc_id, f.value, f.target, f.evidence) for f in found] == [
        ("acme-pricing-2025", "Carla Mendes", "decision_maker", quote)
    ]
    assert (
        found[0].method.startswith("agent:llm:") and found[0].question == "Who approved the 2025 Acme price?"
    )
    profile = deals.store.get_profile("acme-pricing-2025")
    assert profile is not None and ("Carla Mendes", "decision_maker") in {
        (p.name, p.role) for p in profile.participants
    }
    ws = workspace(deals)
    approver = TOOLS["query_relational_index"].run(ws, Call("Carla Mendes", kind="decision_maker"))
    assert ids(approver) == ["acme-pricing-2025"]
    context = TOOLS["get_document_context"].run(ws, Call("", ["acme-pricing-2025"]))
    assert "Carla Mendes (decision_maker)" in context.text
    assert found[0].id is not None and deals.store.undo_finding(found[0].id)
    assert (
        TOOLS["query_relational_index"]
        .run(workspace(deals), Call("Carla Mendes", kind="decision_maker"))
        .found
        == []
    )


def test_a_project_is_recorded_only_when_the_quote_names_it(deals: KnowledgeBase) -> None:
    replies = [
        action("query_synopses", "Acme pricing revision"),
        action("load_full_document", doc_ids=["acme-pricing-2025"]),
        action(
            "record_relational_context",
            "Acme Renewal",
            ["acme-pricing-2025"],
            "project",
            "Carla Mendes approved the new price for the Acme Renewal project.",
        ),
        action(
            "record_relational_context",
            "Northwind Migration",
            ["acme-pricing-2025"],
            "project",
            "The change is tracked under the Northwind Migration.",
        ),
    ]
    trace, _ = run_script(deals, "Which project did the 2025 price change belong to?", replies, learn=True)
    assert [s.summary for s in trace.steps[2:4]] == [
        "acme-pricing-2025 already lists Acme Renewal (project)",
        "acme-pricing-2025: Northwind Migration (project) recorded",
    ]
    profile = deals.store.get_profile("acme-pricing-2025")
    assert profile is not None and "Northwind Migration" in profile.projects
    project = TOOLS["query_relational_index"].run(
        workspace(deals), Call("Northwind Migration", kind="project")
    )
    assert ids(project) == ["acme-pricing-2025"]


def test_the_agent_learns_a_person_another_document_lists_when_it_reads_them_named(
    deals: KnowledgeBase,
) -> None:
    """No recording call: the revision, read whole, names Ana Lima (an author of the agreement the
    agent found) in so many words; she joins its people as mentioned, the sentence as evidence."""
    replies = [
        action("query_relational_index", "Ana Lima", kind="author"),
        action("query_synopses", "Acme pricing revision"),
        action("load_full_document", doc_ids=["acme-pricing-2025"]),
    ]
    run_script(deals, "What changed in Acme's pricing?", replies)
    learned = [
        (f.doc_id, f.value, f.target, f.evidence)
        for f in deals.store.list_findings("deals")
        if f.kind in ("participant", "project")
    ]
    assert (
        "acme-pricing-2025",
        "Ana Lima",
        "mentioned",
        "Ana Lima asked for the change after the audit.",
    ) in learned
    assert not any(doc_id == "acme-pricing" for doc_id, *_ in learned), (
        "what a profile lists is not learned again"
    )
    profile = deals.store.get_profile("acme-pricing-2025")
    assert profile is not None and ("Ana Lima", "mentioned") in {
        (p.name, p.role) for p in profile.participants
    }


def test_nothing_relational_is_learned_when_learning_is_off(deals: KnowledgeBase) -> None:
    replies = [
        action("query_relational_index", "Ana Lima", kind="author"),
        action("query_synopses", "Acme pricing revision"),
        action("load_full_document", doc_ids=["acme-pricing-2025"]),
    ]
    run_script(deals, "What changed in Acme's pricing?", replies, learn=False)
    assert deals.store.list_findings("deals") == []


# -- once with a real local model ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.service
def test_a_real_small_model_is_offered_the_relational_tools_and_stays_bounded(
    llama_server: str, tmp_path: Any, embedder: Any, make_persona: PersonaMaker
) -> None:
    """SmolLM2 sees every tool with its relation, domain and role arguments. Whatever it picks,
    each step is a known tool or refused by the guard, the budget holds, and anything it writes
    back rests on the document's own words."""
    from shu.kb import open_kb
    from tests.answer.test_llm_e2e import smollm2

    settings = smollm2(
        llama_server,
        "enrich.enabled=true",
        "enrich.method=extractive",
        "agent.method=llm",
        "agent.max_steps=4",
    )
    kb = open_kb(tmp_path / "home", settings, embedder=embedder)
    try:
        assert not kb.ingest(make_persona("deals", rag=DEALS)).failed
        answer = kb.ask(
            "Which documents did Ana Lima write, and who approved the price?", persona="deals", agent=True
        )
        trace = answer.agent
        assert trace is not None and trace.method.startswith("llm:openai:smollm2")
        print(
            "SmolLM2 agent:",
            trace.stopped,
            [(s.tool, s.arguments, s.refused, s.summary) for s in trace.steps],
        )
        assert len(trace.steps) <= 4 and trace.tokens > 0
        assert all(step.refused or step.tool in TOOLS for step in trace.steps)
        texts = {
            d: "\n".join(c.text for c in kb.store.list_chunks(d))
            for d in ("acme-pricing", "acme-pricing-2025")
        }
        for finding in kb.store.list_findings("deals"):
            assert finding.evidence and finding.evidence in texts.get(finding.doc_id, ""), finding
        assert {c.doc_id for c in answer.citations} <= {
            "acme-pricing",
            "acme-pricing-2025",
            "onboarding-guide",
        }
    finally:
        kb.close()

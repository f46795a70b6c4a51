"""Filters through the whole query pipeline and answer, over the real store and embedder: every
surface searches among the documents kept (the limit filled from them), expansion never leaves
them, corrective retrieval and the agent's tools keep to them, lists and counts count them."""

from __future__ import annotations

import pytest

from shu.answer.agent.tools import TOOLS, Call, Workspace
from shu.kb import KnowledgeBase
from shu.types import DocumentFilter
from tests.conftest import PersonaMaker, doc

PRO = "The Pro plan costs $65 per seat per month and includes priority support and SSO."
DOCS = {
    **{
        f"pricing-{n}.md": doc(f"pricing-{n}", f"Pricing page {n}", f"# Pricing {n}\n\n{PRO}", type="guide")
        for n in range(8)
    },
    "mail-1.md": doc(
        "mail-1",
        "Question about our invoice",
        "# Question about our invoice\n\nHi, is the Pro plan price per seat? Our invoice lists 12 seats.",
        type="email",
        date="2026-02-10",
        **{"from": "Sofia Marquez <sofia@acme.example>"},
    ),
    "mail-2.md": doc(
        "mail-2",
        "Renewal",
        "# Renewal\n\nWe renew the Pro plan in March; please keep our price.",
        type="email",
        date="2026-03-02",
        **{"from": "Ana Lima <ana@acme.example>"},
        relations={"references": ["pricing-0"]},
    ),
}
EMAIL = DocumentFilter(types=("email",))


@pytest.fixture
def acme(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("acme", rag=DOCS)).failed
    return kb


def test_the_limit_is_filled_from_the_kept_documents(acme: KnowledgeBase) -> None:
    question = "How much does the Pro plan cost per seat?"
    plain = acme.retrieve(question, "acme", limit=2)
    assert {h.chunk.doc_id for h in plain.hits} <= {f"pricing-{n}" for n in range(8)}
    result = acme.retrieve(question, "acme", limit=2, where=EMAIL)
    assert {h.chunk.doc_id for h in result.hits} == {"mail-1", "mail-2"}
    assert result.filter == EMAIL and result.filtered == 2
    assert any(n.startswith("filtered (type email): 2 of 10 documents") for n in result.notes)
    for name, listed in result.surfaces.items():
        owners = acme.store.chunk_documents([s.chunk_id for s in listed])
        assert set(owners.values()) <= {"mail-1", "mail-2"}, name


def test_expansion_never_leaves_the_filter(acme: KnowledgeBase) -> None:
    # mail-2 references pricing-0: without a filter expansion may follow it; with one it may not
    result = acme.retrieve("When do we renew the Pro plan?", "acme", where=DocumentFilter(since="2026-03-01"))
    assert {h.chunk.doc_id for h in result.hits} == {"mail-2"}
    assert (
        all(e.doc_id == "mail-2" for e in result.retrieval_plan.expanded)
        or not result.retrieval_plan.expanded
    )


def test_people_and_dates_reach_the_answer(acme: KnowledgeBase) -> None:
    answer = acme.ask(
        "What did the customer ask about the Pro plan?", "acme", where=DocumentFilter(people=("sofia",))
    )
    assert answer.citations and {c.doc_id for c in answer.citations} == {"mail-1"}
    assert answer.retrieval is not None and answer.retrieval.filter is not None


def test_a_filter_that_keeps_nothing_searches_nothing_and_says_so(acme: KnowledgeBase) -> None:
    answer = acme.ask("What does the Pro plan cost?", "acme", where=DocumentFilter(until="2020-01-01"))
    assert answer.insufficient and not answer.citations
    assert "matches the filter (until 2020-01-01)" in answer.text
    assert answer.retrieval is not None and answer.retrieval.filtered == 0


def test_lists_and_counts_count_only_the_kept_documents(acme: KnowledgeBase) -> None:
    listed = acme.ask("Which documents mention the Pro plan?", "acme", where=EMAIL)
    assert listed.method == "collection"
    assert {c.doc_id for c in listed.citations} == {"mail-1", "mail-2"}
    counted = acme.ask(
        "How many documents mention the Pro plan?",
        "acme",
        where=DocumentFilter(doc_ids=("pricing-3", "mail-1")),
    )
    assert counted.text.startswith("2 documents") and {c.doc_id for c in counted.citations} == {
        "pricing-3",
        "mail-1",
    }


def test_the_filter_is_part_of_the_cached_answers_key(acme: KnowledgeBase) -> None:
    first = acme.ask("What does the Pro plan cost?", "acme")
    filtered = acme.ask("What does the Pro plan cost?", "acme", where=EMAIL)
    assert {c.doc_id for c in filtered.citations} <= {"mail-1", "mail-2"}
    assert {c.doc_id for c in first.citations} != {c.doc_id for c in filtered.citations}


def test_the_agents_tools_keep_to_the_filter(acme: KnowledgeBase) -> None:
    parts = acme.parts
    ws = Workspace(acme.store, parts.embedder, parts.pipeline, acme.persona("acme"), where=EMAIL)
    assert "pricing-0" not in ws.documents and "mail-1" in ws.documents
    chunks = TOOLS["query_chunks"].run(ws, Call("Pro plan price per seat"))
    assert chunks.hits and {h.chunk.doc_id for h in chunks.hits} <= {"mail-1", "mail-2"}
    asked_outside = TOOLS["query_chunks"].run(ws, Call("Pro plan price", ["pricing-0"]))
    assert {h.chunk.doc_id for h in asked_outside.hits} <= {"mail-1", "mail-2"}
    for name in ("query_synthesized_questions", "query_synopses", "query_capability_manifests"):
        found = TOOLS[name].run(ws, Call("Pro plan price"))
        assert {f.doc_id for f in found.found} <= {"mail-1", "mail-2"}, name
    related = TOOLS["query_relational_index"].run(ws, Call("Ana Lima"))
    assert {f.doc_id for f in related.found} <= {
        "mail-1",
        "mail-2",
    }  # mail-2's link to pricing-0 is not shown


def test_corrective_retrieval_keeps_the_filter(acme: KnowledgeBase) -> None:
    first = acme.retrieve("What does the Pro plan cost?", "acme", where=EMAIL)
    persona = acme.persona("acme")
    widened = acme.parts.pipeline.search_more(first, "SSO priority support", persona, "test")
    assert {h.chunk.doc_id for h in widened.hits} <= {"mail-1", "mail-2"}

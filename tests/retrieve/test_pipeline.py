"""The query pipeline over the real store and embedder: identity with every stage off,
relationship expansion, document lookups, escalation, reranking, early termination, traces."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from shu.config.retrieval import TEMPORAL_ROUTE
from shu.config.settings import RetrievalSettings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.models.rerank.cross_encoder import CrossEncoderReranker
from shu.models.rerank.llm import LLMReranker
from shu.retrieve.hybrid import HybridSearcher
from shu.retrieve.pipeline import RetrievalPipeline
from tests.conftest import PersonaMaker, doc
from tests.models.tiny_cross_encoder import build_tiny_cross_encoder

DOCS = {
    "announce.md": doc(
        "price-change",
        "Pro plan price change",
        "# Pro plan price change\n\nFrom March the Pro plan costs $15 a month instead of $12. "
        "Existing subscribers keep their price until renewal.",
        relations={"derived_from": ["pricing-memo"]},
    ),
    "memo.md": doc(
        "pricing-memo",
        "Margin review memo",
        "# Margin review memo\n\nOur GPU supplier raised the accelerator rate from 1.74 to 2.31 euro "
        "an hour, "
        "so the margin of the cheapest paid tier fell from 71% to 58%.",
    ),
    "biography.md": doc(
        "biography",
        "Biography of Ada Byron",
        "# Biography of Ada Byron\n\n## Early life\n\nAda was born in London in 1815.\n\n"
        "## Work\n\nShe wrote the first published algorithm for the Analytical Engine.",
    ),
    "alerts.md": doc("alerts", "Alerts", "# Alerts\n\nAn alert fires when a metric crosses its threshold."),
}
OFF = RetrievalSettings(
    plan=False,
    transform=False,
    multiquery=False,
    hyde=False,
    expand=False,
    full_document=False,
    escalate=False,
)


@pytest.fixture
def acme(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("acme", rag=DOCS)).failed
    return kb


def test_every_stage_off_is_plain_hybrid_search(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    for question in ("Why did the Pro plan price go up?", "alert threshold", "Ada"):
        hybrid = HybridSearcher(acme.store, acme.parts.embedder).search(question, persona)
        result = RetrievalPipeline(acme.store, acme.parts.embedder, OFF).run(question, persona)
        assert [(h.chunk.id, h.score) for h in result.hits] == [(h.chunk.id, h.score) for h in hybrid]


def test_a_related_document_joins_right_behind_its_seed(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    question = "Why did the Pro plan price go up?"
    without = RetrievalPipeline(acme.store, acme.parts.embedder, OFF).run(question, persona)
    result = RetrievalPipeline(acme.store, acme.parts.embedder, OFF.model_copy(update={"expand": True})).run(
        question, persona
    )
    assert result.retrieval_plan.seeds[0] == "price-change"
    assert [(e.doc_id, e.via, e.relation) for e in result.retrieval_plan.expanded] == [
        ("pricing-memo", "price-change", "derived_from")
    ]
    ranked = [h.chunk.doc_id for h in result.hits]
    assert ranked[:2] == ["price-change", "pricing-memo"]
    plain = {h.chunk.doc_id: h.score for h in without.hits}
    assert plain["pricing-memo"] < 0.95 * plain["price-change"], "plain search scores it well below"
    memo = next(h for h in result.hits if h.chunk.doc_id == "pricing-memo")
    assert memo.expanded_via == "price-change derived_from"
    assert memo.score == pytest.approx(0.95 * result.hits[0].score), "95 % of its seed's score"


def test_a_lookup_returns_the_whole_document_and_ask_answers_with_it(acme: KnowledgeBase) -> None:
    result = acme.retrieve("Show me the biography of Ada", persona="acme")
    assert result.plan.query_type == "document_lookup" and result.context.mode == "full_document"
    whole = result.context.documents[0]
    assert whole.doc_id == "biography" and whole.full
    assert [s.section_path for s in whole.sections] == [
        "Biography of Ada Byron > Early life",
        "Biography of Ada Byron > Work",
    ]
    answer = acme.ask("Show me the biography of Ada", persona="acme")
    assert answer.method == "full_document" and "born in London in 1815" in answer.text
    assert [c.key for c in answer.citations] == [
        "[^biography:Biography of Ada Byron > Early life]",
        "[^biography:Biography of Ada Byron > Work]",
    ]


def test_escalation_loads_documents_the_summary_surfaces_rank_high(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    params = persona.config.retrieval.model_copy(update={"question_weight": 1.0})
    settings = OFF.model_copy(update={"escalate": True})
    result = RetrievalPipeline(acme.store, acme.parts.embedder, settings).run(
        "Pro plan price", persona, params, limit=1
    )
    escalated = result.context.escalated
    top_questions = {
        acme.store.chunk_documents([s.chunk_id])[s.chunk_id] for s in result.surfaces["questions"][:3]
    }
    assert escalated and set(escalated) <= top_questions - {result.hits[0].chunk.doc_id}
    assert all(d.full for d in result.context.documents if d.doc_id in escalated)


def test_rerank_sorts_every_candidate_up_to_the_depth(acme: KnowledgeBase, tmp_path) -> None:  # type: ignore[no-untyped-def]
    persona = acme.persona("acme")
    reranker = CrossEncoderReranker(build_tiny_cross_encoder(tmp_path / "ce"))
    settings = RetrievalSettings.model_validate(
        OFF.model_dump() | {"rerank": {"method": "cross-encoder", "depth": 3}}
    )
    result = RetrievalPipeline(acme.store, acme.parts.embedder, settings, reranker=reranker).run(
        "Pro plan price", persona, limit=4
    )
    head = result.hits[:3]
    assert all(h.rerank_score is not None for h in head) and result.hits[3].rerank_score is None
    assert [h.rerank_score for h in head] == sorted((h.rerank_score for h in head), reverse=True)
    assert result.reranker == f"cross-encoder:{(tmp_path / 'ce').name}"


def test_a_failing_reranker_keeps_the_fused_order(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    broken = LLMReranker(LLMClient(ScriptedLLM(lambda m, s: "not json")))
    settings = RetrievalSettings.model_validate(OFF.model_dump() | {"rerank": {"method": "llm"}})
    plain = RetrievalPipeline(acme.store, acme.parts.embedder, OFF).run("Pro plan price", persona)
    result = RetrievalPipeline(acme.store, acme.parts.embedder, settings, reranker=broken).run(
        "Pro plan price", persona
    )
    assert [h.chunk.id for h in result.hits] == [h.chunk.id for h in plain.hits]
    assert any(note.startswith("rerank failed") for note in result.notes)


def test_a_decisive_question_match_ends_the_search_early(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    params = persona.config.retrieval.model_copy(update={"question_weight": 1.0})
    asked = acme.store.list_questions("pricing-memo")[0].text
    settings = OFF.model_copy(update={"expand": True, "decisive_question": 0.9})
    result = RetrievalPipeline(acme.store, acme.parts.embedder, settings).run(asked, persona, params)
    assert any("decisive" in note for note in result.notes)
    assert result.retrieval_plan.expanded == []


def test_search_trace_as_json_and_as_a_tree(acme: KnowledgeBase) -> None:
    from shu.serve.cli import app

    home = str(acme.settings.home)
    acme.close()
    runner = CliRunner()
    shown = runner.invoke(
        app,
        ["--home", home, "--json", "search", "--trace", "Why did the Pro plan price go up?", "-p", "acme"],
    )
    assert shown.exit_code == 0, shown.output
    trace = json.loads(shown.output)
    assert set(trace) >= {
        "plan",
        "queries",
        "surfaces",
        "fused",
        "retrieval_plan",
        "hits",
        "context",
        "timings_ms",
    }
    assert trace["plan"]["query_type"] == "interpretive" and trace["surfaces"]["keyword"][0]["score"] > 0
    assert trace["retrieval_plan"]["expanded"][0]["doc_id"] == "pricing-memo"
    tree = runner.invoke(
        app, ["--home", home, "search", "--trace", "Show me the biography of Ada", "-p", "acme"]
    )
    assert tree.exit_code == 0 and "document_lookup" in tree.output and "whole" in tree.output


def test_expansion_never_follows_a_link_into_another_personas_document(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    make_persona(
        "alpha",
        rag={
            "announce.md": DOCS["announce.md"].replace("pricing-memo", "secret-memo"),
            "alerts.md": DOCS["alerts.md"],
        },
    )
    secret = doc(
        "secret-memo", "Secret memo", "# Secret memo\n\nThe Pro plan price rose because of GPU costs."
    )
    folder = make_persona("beta", rag={"secret.md": secret})
    assert not kb.ingest(folder.parent).failed
    result = RetrievalPipeline(kb.store, kb.parts.embedder, OFF.model_copy(update={"expand": True})).run(
        "Why did the Pro plan price go up?", kb.persona("alpha")
    )
    assert result.retrieval_plan.expanded == []
    assert not any(s.chunk_id.startswith("secret-memo") for s in result.fused)


def test_variations_of_negative_similarity_keep_their_order_under_convex_fusion() -> None:
    from shu.retrieve.hybrid import fuse_wordings
    from shu.store.base import ScoredChunk
    from shu.types import RetrievalParams

    fused = fuse_wordings([[ScoredChunk("best", -0.02), ScoredChunk("worst", -0.30)]], RetrievalParams())
    assert [s.chunk_id for s in fused] == ["best", "worst"]


def test_keyword_feedback_reaches_the_keyword_surface(acme: KnowledgeBase) -> None:
    """With `feedback_docs`, the keyword surface is searched with the best chunks' words too (the
    in-memory index; in a knowledge base of four chunks a word in two may join); with keyword
    search in SQL the trace says feedback was not applied."""
    persona = acme.persona("acme")
    question = "Pro plan price"
    plain = RetrievalPipeline(acme.store, acme.parts.embedder, OFF).run(question, persona)
    params = persona.config.retrieval.model_copy(update={"feedback_docs": 1, "feedback_terms": 5})
    fed = RetrievalPipeline(acme.store, acme.parts.embedder, OFF).run(question, persona, params=params)
    assert acme.store.keyword_in_sql is False
    best, fed_best = plain.surfaces["keyword"][0], fed.surfaces["keyword"][0]
    assert fed_best.chunk_id == best.chunk_id
    assert fed_best.score > best.score, "the best chunk's own words joined the query"
    assert not any("feedback" in note for note in fed.notes)
    acme.store.keyword_in_sql = True  # a store whose keyword search runs in SQL
    try:
        ignored = RetrievalPipeline(acme.store, acme.parts.embedder, OFF).run(
            question, persona, params=params
        )
    finally:
        acme.store.keyword_in_sql = False
    assert any("keyword feedback not applied" in note for note in ignored.notes)


def test_last_week_is_read_against_the_day_the_question_is_asked(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    settings = RetrievalSettings()
    settings.personal.now = "2026-11-25"
    result = RetrievalPipeline(acme.store, acme.parts.embedder, settings).run(
        "What changed last week?", persona
    )
    assert (result.plan.temporal_scope.start, result.plan.temporal_scope.end) == ("2026-11-16", "2026-11-24")
    today = RetrievalPipeline(acme.store, acme.parts.embedder).run("What changed yesterday?", persona)
    scope = today.plan.temporal_scope
    assert scope.start is not None and scope.start == scope.end, "yesterday is one day"


# -- routes: the surfaces each kind of question searches (issue 44) ------------------------------

ROUTED = RetrievalSettings(routes=TEMPORAL_ROUTE)
"""The default stages with the temporal route (off by default: it won on no test question)."""


def test_a_routed_temporal_question_also_searches_the_question_surface_and_escalates(
    acme: KnowledgeBase,
) -> None:
    persona = acme.persona("acme")
    result = RetrievalPipeline(acme.store, acme.parts.embedder, ROUTED).run(
        "What happened after the March price change?", persona, limit=1
    )
    assert result.plan.query_type == "temporal"
    assert "routed as temporal: question_weight 1" in result.notes
    assert result.surfaces.get("questions")
    assert result.context.escalated, "a document the question surface ranks high, the chunks missed"
    assert any(note.startswith("escalated to whole documents") for note in result.notes)


def test_by_default_no_kind_of_question_is_routed(acme: KnowledgeBase) -> None:
    for asked in ("What happened after the March price change?", "How much does the Pro plan cost?"):
        result = acme.retrieve(asked, "acme", limit=1)
        assert "questions" not in result.surfaces and not any("routed" in n for n in result.notes)


def test_a_routed_question_a_synthesized_question_matches_stops_early(acme: KnowledgeBase) -> None:
    stored = [q.text for q in acme.store.list_questions("biography")]
    assert "What does Biography of Ada Byron say about Early life?" in stored
    asked = "What does Biography of Ada Byron say about Early life before 1830?"  # temporal: routed
    persona = acme.persona("acme")
    result = RetrievalPipeline(acme.store, acme.parts.embedder, ROUTED).run(asked, persona)
    assert result.plan.query_type == "temporal"
    assert any("decisive" in note for note in result.notes), result.notes
    assert result.retrieval_plan.expanded == []


def test_routes_can_be_turned_off(acme: KnowledgeBase) -> None:
    settings = RetrievalSettings(routes={})
    persona = acme.persona("acme")
    result = RetrievalPipeline(acme.store, acme.parts.embedder, settings).run(
        "What happened after the March price change?", persona, limit=1
    )
    assert "questions" not in result.surfaces and not result.context.escalated


def test_a_route_never_turns_a_personas_own_weight_down(acme: KnowledgeBase) -> None:
    persona = acme.persona("acme")
    params = persona.config.retrieval.model_copy(update={"question_weight": 2.0})
    result = RetrievalPipeline(acme.store, acme.parts.embedder, ROUTED).run(
        "What happened after the March price change?", persona, params
    )
    assert not any("routed" in n for n in result.notes)

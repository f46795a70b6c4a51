"""Hybrid search over the real store and embedder."""

from __future__ import annotations

import pytest

from shu.errors import UnknownPersonaError
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker, doc

ALPHA_DOCS = {
    "pricing.md": doc(
        "pricing",
        "Pricing",
        "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.\n\n"
        "## Team\n\nThe Team plan costs $35 per seat.\n\n## Starter\n\nStarter costs $15.\n\n"
        "## Enterprise\n\nEnterprise pricing starts at $30,000 a year.",
        tags=["billing"],
    ),
    "sso.md": doc("sso", "SSO", "# SSO\n\nSAML single sign-on works with Okta and Azure AD on the Pro plan."),
    "alerts.md": doc("alerts", "Alerts", "# Alerts\n\nAn alert fires when a metric crosses its threshold."),
}
BETA_DOCS = {
    "compost.md": doc(
        "compost", "Compost", "# Compost\n\nTurn the compost pile every week; the Pro plan is a secret."
    ),
    "fees.md": doc(
        "fees", "Plot fees", "# Plot fees\n\nA full plot costs $40 per season and a half plot $25."
    ),
}


@pytest.fixture
def two_personas(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    make_persona(
        "alpha", tags=["billing"], rag=ALPHA_DOCS, retrieval={"max_chunks_per_doc": 2, "fusion": "rrf"}
    )
    folder = make_persona("beta", rag=BETA_DOCS)
    assert not kb.ingest(folder.parent).failed
    return kb


def test_a_query_for_one_persona_never_returns_another_personas_documents(
    two_personas: KnowledgeBase,
) -> None:
    for query in ("Pro plan price", "compost", "plot fees per season", "secret"):
        assert {h.chunk.doc_id for h in two_personas.search(query, persona="alpha")} <= set(
            "pricing sso alerts".split()
        )
        assert {h.chunk.doc_id for h in two_personas.search(query, persona="beta")} <= {"compost", "fees"}


def test_the_best_chunk_comes_first(two_personas: KnowledgeBase) -> None:
    hits = two_personas.search("How much does the Pro plan cost per seat?", persona="alpha")
    assert hits[0].chunk.section_path == "Pricing > Pro"
    assert hits[0].bm25_rank is not None and hits[0].dense_rank is not None


def test_fusion_order_and_scores_follow_rrf_and_tag_boost(two_personas: KnowledgeBase) -> None:
    hits = two_personas.search("single sign-on with Okta", persona="alpha", limit=20)
    for hit in hits:
        expected = sum(1 / (60 + r) for r in (hit.bm25_rank, hit.dense_rank) if r is not None)
        expected *= 1.075 if hit.tag_boosted else 1.0
        assert hit.score == pytest.approx(expected)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)
    assert {h.tag_boosted for h in hits if h.chunk.doc_id == "pricing"} == {True}
    assert {h.tag_boosted for h in hits if h.chunk.doc_id != "pricing"} == {False}


def test_convex_fusion_is_the_default_and_sums_scores_divided_by_each_lists_best(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    assert not kb.ingest(make_persona("plain", rag=ALPHA_DOCS)).failed
    persona = kb.persona("plain")
    assert persona.config.retrieval.fusion == "convex"
    params = persona.config.retrieval.model_copy(update={"tag_boost": 0.0, "max_chunks_per_doc": 20})
    hits = kb.parts.pipeline.searcher.search("single sign-on with Okta", persona, params, limit=20)
    best_bm25 = max(h.bm25_score for h in hits if h.bm25_score is not None)
    best_dense = max(h.dense_score for h in hits if h.dense_score is not None)
    for hit in hits:
        if hit.bm25_score is not None and hit.dense_score is not None:
            expected = 0.5 * hit.bm25_score / best_bm25 + 0.5 * hit.dense_score / best_dense
            assert hit.score == pytest.approx(expected)
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_at_most_max_chunks_per_doc(two_personas: KnowledgeBase) -> None:
    hits = two_personas.search("plan costs per seat", persona="alpha", limit=20)
    assert sum(h.chunk.doc_id == "pricing" for h in hits) == 2


def test_persona_retrieval_parameters_are_honoured(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    make_persona("strict", rag=ALPHA_DOCS, retrieval={"vector_threshold": 0.99, "bm25_min_score": 100.0})
    folder = make_persona("small", rag=ALPHA_DOCS, retrieval={"max_chunks": 2})
    assert not kb.ingest(folder.parent).failed  # the same files in both folders: one document each
    assert kb.search("Azure AD on the Pro plan", persona="strict") == [], (
        "chunk thresholds hold (no title matches)"
    )
    assert len(kb.search("plan", persona="small")) == 2
    assert sorted(kb.store.get_document("pricing").personas) == ["small", "strict"]


def test_an_unknown_persona_is_a_clear_error(two_personas: KnowledgeBase) -> None:
    with pytest.raises(UnknownPersonaError, match="unknown persona 'gamma' \\(known: alpha, beta\\)"):
        two_personas.search("anything", persona="gamma")


@pytest.mark.parametrize("query", ["", "   ", "x" * 5000])
def test_invalid_queries_are_refused(two_personas: KnowledgeBase, query: str) -> None:
    with pytest.raises(Exception, match="question is"):
        two_personas.search(query, persona="alpha")


@pytest.mark.parametrize(
    ("weights", "surfaces"),
    [
        ({"synopsis_weight": 1.0}, ["synopsis"]),
        ({"question_weight": 1.0, "manifest_weight": 2.0}, ["questions", "manifest"]),
    ],
)
def test_document_surfaces_add_their_rrf_share_to_the_documents_best_chunk(
    two_personas: KnowledgeBase, weights: dict[str, float], surfaces: list[str]
) -> None:
    from shu.retrieve.hybrid import HybridSearcher

    persona = two_personas.persona("alpha")
    params = persona.config.retrieval.model_copy(
        update={"max_chunks_per_doc": 20, "tag_boost": 0.0, **weights}
    )
    query = "single sign-on with Okta"
    hits = HybridSearcher(two_personas.store, two_personas.parts.embedder).search(
        query, persona, params, limit=20
    )
    vector = two_personas.parts.embedder.embed_query(query)
    ranks: dict[str, list[tuple[int, float]]] = {}
    for surface in surfaces:
        if surface == "questions":
            found = list(
                dict.fromkeys(q.doc_id for q in two_personas.store.search_questions(vector, "alpha", 60))
            )
        else:
            found = [d.doc_id for d in two_personas.store.search_profiles(vector, "alpha", surface, 20)]
        assert found, f"the {surface} surface is filled at ingestion"
        weight = {
            "questions": weights.get("question_weight", 0),
            "synopsis": weights.get("synopsis_weight", 0),
            "manifest": weights.get("manifest_weight", 0),
        }[surface]
        for rank, doc_id in enumerate(found, start=1):
            ranks.setdefault(doc_id, []).append((rank, weight))
    best_of_doc: set[str] = set()
    for hit in hits:
        expected = sum(1 / (60 + r) for r in (hit.bm25_rank, hit.dense_rank) if r is not None)
        if hit.chunk.doc_id not in best_of_doc:  # the document's surfaces count for its best chunk
            expected += sum(w / (60 + r) for r, w in ranks.get(hit.chunk.doc_id, []))
            best_of_doc.add(hit.chunk.doc_id)
        assert hit.score == pytest.approx(expected)
    assert {h.chunk.doc_id for h in hits} == {"pricing", "sso", "alerts"}

"""The conformance suite every `Store` backend passes. A backend's test module subclasses
`StoreConformance` and provides a `store` fixture returning a fresh, empty store."""

from __future__ import annotations

import numpy as np
import pytest

from shu.errors import StoreError
from shu.store.base import Store
from shu.types import (
    Chunk,
    ChunkProfile,
    Document,
    DocumentProfile,
    Enrichment,
    Persona,
    PersonaConfig,
    Provenance,
    SynthesizedQuestion,
)

DIM = 8


def persona(slug: str, tags: list[str] | None = None) -> Persona:
    return Persona(
        slug=slug,
        display_name=slug.title(),
        config=PersonaConfig(slug=slug, display_name=slug.title(), tags=tags or []),
    )


def document(doc_id: str, personas: list[str], **fields: object) -> Document:
    return Document(
        id=doc_id,
        title=f"Title {doc_id}",
        personas=personas,
        content_hash=f"h-{doc_id}",
        path=f"/kb/{doc_id}.md",
        **fields,
    )


def chunks(doc_id: str, texts: list[str]) -> list[Chunk]:
    return [
        Chunk(
            id=f"{doc_id}#{i}",
            doc_id=doc_id,
            ord=i,
            section_path=f"S{i}",
            text=t,
            index_text=t,
            token_count=len(t.split()),
        )
        for i, t in enumerate(texts)
    ]


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


def vectors(*rows: np.ndarray) -> np.ndarray:
    return np.vstack(rows).astype(np.float32)


class StoreConformance:
    @pytest.fixture
    def store(self) -> Store:  # pragma: no cover - provided by each backend
        raise NotImplementedError

    @pytest.fixture
    def filled(self, store: Store) -> Store:
        for slug in ("alpha", "beta"):
            store.upsert_persona(persona(slug))
        store.replace_document(
            document("a1", ["alpha"], tags=["billing"], date="2026-01-02"),
            chunks("a1", ["the pro plan costs sixty five dollars", "invoices are sent monthly"]),
            vectors(unit(1, 0), unit(0, 1)),
            "test-embedder",
        )
        store.replace_document(
            document("b1", ["beta"]),
            chunks("b1", ["the pro plan of beta is secret"]),
            vectors(unit(1, 0.01)),
            "test-embedder",
        )
        store.replace_document(
            document("shared", ["alpha", "beta"]),
            chunks("shared", ["compost and pro gardening tips"]),
            vectors(unit(0, 0, 1)),
            "test-embedder",
        )
        return store

    def test_personas_round_trip(self, store: Store) -> None:
        store.upsert_persona(persona("alpha", tags=["SSO"]))
        store.upsert_persona(persona("alpha", tags=["SAML"]))
        found = store.get_persona("alpha")
        assert found is not None and found.config.tags == ["SAML"]
        assert [p.slug for p in store.list_personas()] == ["alpha"]
        assert store.get_persona("missing") is None

    def test_documents_round_trip(self, filled: Store) -> None:
        doc = filled.get_document("a1")
        assert doc is not None
        assert (doc.title, doc.tags, doc.date, doc.personas) == (
            "Title a1",
            ["billing"],
            "2026-01-02",
            ["alpha"],
        )
        assert [d.id for d in filled.list_documents("beta")] == ["b1", "shared"]
        assert [c.text for c in filled.list_chunks("a1")] == [
            "the pro plan costs sixty five dollars",
            "invoices are sent monthly",
        ]

    def test_replacing_a_document_never_duplicates(self, filled: Store) -> None:
        before = filled.stats()
        filled.replace_document(
            document("a1", ["alpha"]),
            chunks("a1", ["a single new chunk"]),
            vectors(unit(1, 1)),
            "test-embedder",
        )
        after = filled.stats()
        assert (after.documents, after.chunks, after.vectors) == (
            before.documents,
            before.chunks - 1,
            before.vectors - 1,
        )
        assert [c.text for c in filled.list_chunks("a1")] == ["a single new chunk"]
        assert filled.search_keyword("invoices", "alpha", 10) == []

    def test_a_failed_replace_leaves_the_old_version(self, filled: Store) -> None:
        broken = chunks("a1", ["new one", "new two"])
        broken[1] = broken[1].model_copy(update={"id": broken[0].id})  # duplicate chunk id
        with pytest.raises(Exception):  # noqa: B017 - any backend error
            filled.replace_document(
                document("a1", ["alpha"]), broken, vectors(unit(1), unit(0, 1)), "test-embedder"
            )
        assert next(c.text for c in filled.list_chunks("a1")) == "the pro plan costs sixty five dollars"
        assert filled.search_keyword("invoices", "alpha", 10)

    def test_delete_document(self, filled: Store) -> None:
        assert filled.delete_document("a1") is True
        assert filled.delete_document("a1") is False
        assert filled.get_document("a1") is None
        assert filled.search_keyword("invoices", "alpha", 10) == []
        assert all(s.chunk_id.startswith("shared") for s in filled.search_vector(unit(1, 0), "alpha", 10))

    def test_keyword_search_ranks_and_stays_within_the_persona(self, filled: Store) -> None:
        alpha = filled.search_keyword("How much does the pro plan cost?", "alpha", 10)
        assert alpha[0].chunk_id == "a1#0"
        assert {s.chunk_id for s in alpha} <= {"a1#0", "a1#1", "shared#0"}
        assert all(s.score > 0 for s in alpha)
        assert [s.score for s in alpha] == sorted((s.score for s in alpha), reverse=True)
        beta = filled.search_keyword("pro plan secret", "beta", 10)
        assert beta[0].chunk_id == "b1#0" and all(not s.chunk_id.startswith("a1") for s in beta)
        assert filled.search_keyword("pro", "nobody", 10) == []

    def test_keyword_search_survives_query_syntax(self, filled: Store) -> None:
        for query in ['"unbalanced', "AND OR NOT", "a*b (c", "sixty-five: dollars!", "NEAR(pro plan)", "  "]:
            filled.search_keyword(query, "alpha", 5)  # never raises

    def test_keyword_search_stems(self, filled: Store) -> None:
        assert filled.search_keyword("costing", "alpha", 5)[0].chunk_id == "a1#0"

    def test_vector_search_is_exact_cosine_within_the_persona(self, filled: Store) -> None:
        hits = filled.search_vector(unit(1, 0.1), "alpha", 10)
        assert [h.chunk_id for h in hits] == ["a1#0", "a1#1", "shared#0"]
        assert hits[0].score == pytest.approx(float(unit(1, 0) @ unit(1, 0.1)), abs=1e-5)
        assert [h.chunk_id for h in filled.search_vector(unit(1, 0), "beta", 1)] == ["b1#0"]
        assert filled.search_vector(unit(1, 0), "nobody", 5) == []

    def test_a_document_with_two_personas_is_found_by_both(self, filled: Store) -> None:
        for slug in ("alpha", "beta"):
            assert filled.search_vector(unit(0, 0, 1), slug, 1)[0].chunk_id == "shared#0"
            assert filled.search_keyword("compost", slug, 1)[0].chunk_id == "shared#0"

    def test_search_sees_writes_made_after_it_was_first_used(self, filled: Store) -> None:
        assert filled.search_vector(unit(0, 0, 0, 1), "alpha", 1)[0].chunk_id != "a2#0"
        filled.replace_document(
            document("a2", ["alpha"]), chunks("a2", ["fresh"]), vectors(unit(0, 0, 0, 1)), "test-embedder"
        )
        assert filled.search_vector(unit(0, 0, 0, 1), "alpha", 1)[0].chunk_id == "a2#0"

    def test_vectors_of_another_embedder_are_refused(self, filled: Store) -> None:
        with pytest.raises(StoreError, match="test-embedder"):
            filled.replace_document(
                document("x", ["alpha"]), chunks("x", ["t"]), vectors(unit(1)), "other-embedder"
            )

    def test_chunk_and_vector_counts_must_match(self, filled: Store) -> None:
        with pytest.raises(StoreError, match="2 chunks but 1 vectors"):
            filled.replace_document(
                document("x", ["alpha"]), chunks("x", ["a", "b"]), vectors(unit(1)), "test-embedder"
            )

    def test_get_chunks_and_documents_by_id(self, filled: Store) -> None:
        found = filled.get_chunks(["a1#1", "missing", "b1#0"])
        assert set(found) == {"a1#1", "b1#0"} and found["a1#1"].section_path == "S1"
        assert set(filled.get_documents(["a1", "shared", "nope"])) == {"a1", "shared"}

    def test_stats(self, filled: Store) -> None:
        stats = filled.stats()
        assert (stats.personas, stats.documents, stats.chunks, stats.vectors) == (2, 3, 4, 4)
        assert stats.embedder == "test-embedder" and stats.size_bytes > 0

    # -- enrichment ---------------------------------------------------------------------------

    def _enrich(self, store: Store, doc_id: str, personas: list[str], questions: list[str]) -> Enrichment:
        provenance = Provenance(method="extractive")
        enrichment = Enrichment(
            profile=DocumentProfile(
                doc_id=doc_id, synopsis=f"About {doc_id}.", document_type="technical", provenance=provenance
            ),
            questions=[
                SynthesizedQuestion(id=f"{doc_id}?{i}", doc_id=doc_id, text=t, provenance=provenance)
                for i, t in enumerate(questions)
            ],
            chunk_profiles=[
                ChunkProfile(chunk_id=f"{doc_id}#0", summary="s", keywords=["k"], provenance=provenance)
            ],
        )
        qvectors = (
            vectors(*[unit(*([0.0] * i + [1.0])) for i in range(len(questions))]) if questions else None
        )
        store.replace_document(
            document(doc_id, personas),
            chunks(doc_id, ["text of " + doc_id]),
            vectors(unit(1)),
            "test-embedder",
            enrichment,
            qvectors,
        )
        return enrichment

    def test_enrichment_is_stored_with_its_document(self, filled: Store) -> None:
        enrichment = self._enrich(filled, "e1", ["alpha"], ["What does e1 cost?", "Who wrote e1?"])
        assert filled.get_profile("e1") == enrichment.profile
        assert [q.text for q in filled.list_questions("e1")] == ["What does e1 cost?", "Who wrote e1?"]
        assert filled.get_chunk_profiles(["e1#0", "nope"])["e1#0"].keywords == ["k"]
        stats = filled.enrichment_stats()
        assert stats["profiles"] == {"extractive": 1} and stats["questions"] == {"extractive": 2}

    def test_questions_are_searched_within_the_persona(self, filled: Store) -> None:
        self._enrich(filled, "e1", ["alpha"], ["What does e1 cost?", "Who wrote e1?"])
        self._enrich(filled, "e2", ["beta"], ["What does e2 cost?"])
        found = filled.search_questions(unit(0, 1), "alpha", 5)
        assert [(q.question_id, q.doc_id) for q in found][:1] == [("e1?1", "e1")]
        assert {q.doc_id for q in filled.search_questions(unit(1), "beta", 5)} == {"e2"}

    def test_replacing_or_deleting_a_document_drops_its_enrichment(self, filled: Store) -> None:
        self._enrich(filled, "e1", ["alpha"], ["What does e1 cost?"])
        filled.replace_document(
            document("e1", ["alpha"]), chunks("e1", ["new"]), vectors(unit(1)), "test-embedder"
        )
        assert filled.get_profile("e1") is None and filled.list_questions("e1") == []
        assert filled.search_questions(unit(1), "alpha", 5) == []
        self._enrich(filled, "e1", ["alpha"], ["What does e1 cost?"])
        filled.delete_document("e1")
        assert filled.enrichment_stats()["questions"] == {}

    def test_question_vectors_must_match_the_questions(self, filled: Store) -> None:
        provenance = Provenance(method="extractive")
        enrichment = Enrichment(
            questions=[SynthesizedQuestion(id="x?0", doc_id="x", text="q", provenance=provenance)]
        )
        with pytest.raises(StoreError, match="questions"):
            filled.replace_document(
                document("x", ["alpha"]),
                chunks("x", ["t"]),
                vectors(unit(1)),
                "test-embedder",
                enrichment,
                None,
            )

    def test_profile_surfaces_are_searched_within_the_persona(self, filled: Store) -> None:
        for doc_id, personas, synopsis in (
            ("p1", ["alpha"], unit(0, 1)),
            ("p2", ["alpha", "beta"], unit(0, 0, 1)),
        ):
            filled.replace_document(
                document(doc_id, personas),
                chunks(doc_id, ["text of " + doc_id]),
                vectors(unit(1)),
                "test-embedder",
                Enrichment(),
                None,
                {"synopsis": synopsis, "manifest": unit(1)},
            )
        found = filled.search_profiles(unit(0, 1), "alpha", "synopsis", 5)
        assert [d.doc_id for d in found] == ["p1", "p2"] and found[0].score == pytest.approx(1.0)
        assert [d.doc_id for d in filled.search_profiles(unit(0, 1), "beta", "synopsis", 5)] == ["p2"]
        assert len(filled.search_profiles(unit(1), "alpha", "manifest", 5)) == 2
        filled.delete_document("p1")
        assert [d.doc_id for d in filled.search_profiles(unit(0, 1), "alpha", "synopsis", 5)] == ["p2"]

    def test_unknown_profile_surfaces_are_refused(self, filled: Store) -> None:
        with pytest.raises(StoreError, match="surface"):
            filled.replace_document(
                document("x", ["alpha"]),
                chunks("x", ["t"]),
                vectors(unit(1)),
                "test-embedder",
                None,
                None,
                {"mood": unit(1)},
            )

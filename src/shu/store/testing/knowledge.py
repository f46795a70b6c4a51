"""The knowledge store's conformance (`KnowledgeReader` and `KnowledgeStore`)."""

from __future__ import annotations

import numpy as np
import pytest

from shu.errors import StoreError
from shu.store.base import Store
from shu.store.testing.records import DIM, chunks, document, persona, unit, vectors
from shu.types import (
    ChunkProfile,
    DocumentProfile,
    Enrichment,
    Finding,
    KeywordFeedback,
    Participant,
    Provenance,
    Relationship,
    SynthesizedQuestion,
    TemporalScope,
)


class KnowledgeConformance:
    """The knowledge store: personas, documents with their chunks, vectors and enrichment, keyword,
    vector, question and profile search within a persona, the generation, one writer at a time,
    and reads that never see half of a write."""

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

    def test_keyword_search_follows_every_change_of_a_persona(self, filled: Store) -> None:
        """Search first (an in-memory index is built then), change, search again: additions,
        replacements, a document moving between personas and deletions are all seen."""
        assert [s.chunk_id for s in filled.search_keyword("invoices", "alpha", 5)] == ["a1#1"]
        filled.replace_document(
            document("a2", ["alpha"]),
            chunks("a2", ["invoices and more invoices"]),
            vectors(unit(1)),
            "test-embedder",
        )
        assert [s.chunk_id for s in filled.search_keyword("invoices", "alpha", 5)] == ["a2#0", "a1#1"]
        filled.replace_document(
            document("a1", ["alpha"]),
            chunks("a1", ["the plan is free now"]),
            vectors(unit(1)),
            "test-embedder",
        )
        assert [s.chunk_id for s in filled.search_keyword("invoices", "alpha", 5)] == ["a2#0"]
        assert [s.chunk_id for s in filled.search_keyword("free", "alpha", 5)] == ["a1#0"]
        filled.replace_document(
            document("a2", ["beta"]),
            chunks("a2", ["invoices and more invoices"]),
            vectors(unit(1)),
            "test-embedder",
        )
        assert filled.search_keyword("invoices", "alpha", 5) == []
        assert [s.chunk_id for s in filled.search_keyword("invoices", "beta", 5)] == ["a2#0"]
        filled.delete_document("a2")
        assert filled.search_keyword("invoices", "beta", 5) == []
        assert [s.chunk_id for s in filled.search_keyword("compost", "beta", 5)] == ["shared#0"]

    def test_keyword_search_sees_what_another_connection_wrote(self, filled: Store, reopened: Store) -> None:
        """Another process's writes (here: another store object on the same data, its own
        connections) reach this one's keyword search without a restart."""
        assert filled.search_keyword("zucchini", "alpha", 5) == []
        reopened.replace_document(
            document("z", ["alpha"]), chunks("z", ["zucchini season"]), vectors(unit(1)), "test-embedder"
        )
        assert [s.chunk_id for s in filled.search_keyword("zucchini", "alpha", 5)] == ["z#0"]
        reopened.delete_document("a1")
        assert filled.search_keyword("invoices", "alpha", 5) == []
        assert [s.chunk_id for s in filled.search_keyword("compost", "alpha", 5)] == ["shared#0"]

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

    def test_the_generation_moves_with_every_write_and_only_then(self, filled: Store) -> None:
        """What the answer cache is keyed on: personas, replaced and deleted documents move it;
        reads and searches do not."""
        seen = [filled.generation()]
        filled.search_keyword("pro plan", "alpha", 5)
        filled.list_documents("alpha")
        assert filled.generation() == seen[-1], "reads leave it alone"
        filled.upsert_persona(persona("gamma"))
        seen.append(filled.generation())
        filled.replace_document(
            document("g1", ["gamma"]), chunks("g1", ["hello"]), vectors(unit(1)), "test-embedder"
        )
        seen.append(filled.generation())
        filled.delete_document("g1")
        seen.append(filled.generation())
        assert len(set(seen)) == 4, seen
        assert seen[0].split(":")[0], "a store id: two stores never share a generation"

    def test_vectors_of_another_embedder_are_refused(self, filled: Store) -> None:
        with pytest.raises(StoreError, match="test-embedder"):
            filled.replace_document(
                document("x", ["alpha"]), chunks("x", ["t"]), vectors(unit(1)), "other-embedder"
            )

    def test_a_store_names_its_embedder_and_forgets_it_only_when_empty(self, filled: Store) -> None:
        assert filled.stored_embedder() == "test-embedder"
        with pytest.raises(StoreError, match="3 documents still hold vectors of embedder test-embedder"):
            filled.forget_embedder()
        for doc in filled.list_documents():
            filled.delete_document(doc.id)
        filled.forget_embedder()
        assert filled.stored_embedder() is None
        wider = np.zeros(2 * DIM, dtype=np.float32)
        wider[3] = 1.0  # another embedder, twice as wide: taken, and searched
        filled.replace_document(
            document("x", ["alpha"]), chunks("x", ["t"]), vectors(wider), "wider-embedder"
        )
        assert filled.stored_embedder() == "wider-embedder"
        assert [hit.chunk_id for hit in filled.search_vector(wider, "alpha", 5)] == ["x#0"]

    def test_chunk_and_vector_counts_must_match(self, filled: Store) -> None:
        with pytest.raises(StoreError, match="2 chunks but 1 vectors"):
            filled.replace_document(
                document("x", ["alpha"]), chunks("x", ["a", "b"]), vectors(unit(1)), "test-embedder"
            )

    def test_get_chunks_and_documents_by_id(self, filled: Store) -> None:
        found = filled.get_chunks(["a1#1", "missing", "b1#0"])
        assert set(found) == {"a1#1", "b1#0"} and found["a1#1"].section_path == "S1"
        assert set(filled.get_documents(["a1", "shared", "nope"])) == {"a1", "shared"}

    def test_adjacent_chunks_are_the_ones_before_and_after_in_the_same_document(self, store: Store) -> None:
        store.upsert_persona(persona("alpha"))
        store.replace_document(
            document("talk", ["alpha"]),
            chunks("talk", ["one", "two", "three"]),
            vectors(unit(1), unit(1), unit(1)),
            "test-embedder",
        )
        store.replace_document(
            document("solo", ["alpha"]), chunks("solo", ["alone"]), vectors(unit(1)), "test-embedder"
        )
        found = store.adjacent_chunks(["talk#0", "talk#1", "talk#2", "solo#0", "missing"])
        assert found == {"talk#0": ["talk#1"], "talk#1": ["talk#0", "talk#2"], "talk#2": ["talk#1"]}
        assert store.adjacent_chunks([]) == {}

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

    # -- relationships, the relational index, LLM runs ---------------------------------------

    def test_relationships_are_listed_most_confident_first_and_go_with_their_document(
        self, filled: Store
    ) -> None:
        enrichment = Enrichment(
            relationships=[
                Relationship(source="r1", target="b", type="references", origin="link", confidence=0.9),
                Relationship(
                    source="r1", target="a", type="explains", origin="llm", confidence=0.7, evidence="q"
                ),
                Relationship(
                    source="r1", target="c", type="supersedes", origin="frontmatter", confidence=1.0
                ),
            ]
        )
        filled.replace_document(
            document("r1", ["alpha"]), chunks("r1", ["t"]), vectors(unit(1)), "test-embedder", enrichment
        )
        found = filled.list_relationships(["r1", "nobody"])
        assert [(r.target, r.type) for r in found] == [
            ("c", "supersedes"),
            ("b", "references"),
            ("a", "explains"),
        ]
        assert found[2].evidence == "q" and found[2].origin == "llm"
        assert filled.enrichment_stats()["relationships"] == {"frontmatter": 1, "link": 1, "llm": 1}
        assert filled.linking_to("b") == ["r1"] and filled.linking_to("r1") == []
        finding = Finding(
            kind="relationship", doc_id="a1", persona="alpha", target="b", value="explains", evidence="e"
        )
        undone = filled.add_finding(finding)
        assert filled.linking_to("b") == ["a1", "r1"], "an agent's finding links too"
        filled.undo_finding(undone.id or 0)
        assert filled.linking_to("b") == ["r1"], "until it is undone"
        filled.delete_document("r1")
        assert filled.list_relationships(["r1"]) == [] and filled.linking_to("b") == []

    def test_the_document_index_knows_titles_names_and_dates(self, filled: Store) -> None:
        profile = DocumentProfile(
            doc_id="bio",
            synopsis="About Ada.",
            document_type="narrative",
            participants=[Participant(name="Ada Byron", role="subject")],
            temporal_scope=TemporalScope(start="1815-12-10", end="1852-11-27"),
            provenance=Provenance(method="extractive"),
        )
        filled.replace_document(
            document("bio", ["alpha"], title="Biography of Ada Byron"),
            chunks("bio", ["born in London"]),
            vectors(unit(1)),
            "test-embedder",
            Enrichment(
                profile=profile,
                chunk_profiles=[
                    ChunkProfile(
                        chunk_id="bio#0",
                        summary="Born in London.",
                        keywords=["London"],
                        provenance=profile.provenance,
                    )
                ],
            ),
        )
        index = filled.document_index("alpha")
        assert [h.doc_id for h in index.search_titles("biography ada", 5)] == ["bio"]
        assert [h.doc_id for h in index.search_names(["ada byron"], 5)[0]] == ["bio"]
        assert [h.doc_id for h in index.search_dates("1840", "1840", 5)[0]] == ["bio"]
        assert "ada byron" in index.known_names()
        assert index.search_keywords("Where was Ada born? London?", 5) == [("bio#0", 1.0)]
        assert filled.document_index("beta").search_titles("biography ada", 5) == []
        filled.delete_document("bio")
        assert filled.document_index("alpha").search_titles("biography ada", 5) == [], "rebuilt after a write"

    def test_llm_runs_are_recorded_and_summed(self, store: Store) -> None:
        assert store.llm_totals()["runs"] == 0
        store.record_llm_run({"calls": 3, "prompt_tokens": 100, "fell_back": {"questions: X": 1}})
        store.record_llm_run({"calls": 2, "cost_usd": 0.5, "fell_back": {"questions: X": 2}})
        totals = store.llm_totals()
        assert totals["runs"] == 2 and totals["calls"] == 5 and totals["cost_usd"] == 0.5
        assert totals["fell_back"] == {"questions: X": 3}

    def test_index_settings_are_kept_and_replaced(self, store: Store) -> None:
        assert store.index_settings() == {}
        store.save_index_settings({"fingerprint": {"chunking": {"max_tokens": 180}}, "context": None})
        store.save_index_settings({"fingerprint": {"chunking": {"max_tokens": 200}}, "context": True})
        assert store.index_settings() == {"fingerprint": {"chunking": {"max_tokens": 200}}, "context": True}
        store.save_index_settings(["not", "a", "mapping"])  # type: ignore[arg-type]  # as if damaged
        assert store.index_settings() == {}, "damaged settings read as none (the next run writes them)"

    # -- BM25 -----------------------------------------------------------------------------------

    def test_bm25_prefers_rare_terms_and_short_chunks(self, store: Store) -> None:
        store.upsert_persona(persona("alpha"))
        texts = {
            "common": "plan plan plan and the plan",
            "rare": "zephyr appears once in this plan",
            "short": "invoice total plan",
            "long": "invoice total plan with many other words padding this chunk out a great deal more",
        }
        for i, (doc_id, text) in enumerate(texts.items()):
            store.replace_document(
                document(doc_id, ["alpha"]), chunks(doc_id, [text]), vectors(unit(*([0.0] * i + [1.0]))), "e"
            )
        assert store.search_keyword("zephyr plan", "alpha", 5)[0].chunk_id == "rare#0"
        ranked = [s.chunk_id for s in store.search_keyword("invoice total", "alpha", 5)]
        assert ranked[:2] == ["short#0", "long#0"]

    def test_identifiers_match_whole_and_by_parts(self, store: Store) -> None:
        store.upsert_persona(persona("alpha"))
        texts = {
            "camel": "The DiffExecutor applies each patch in order.",
            "snake": "Call run_target once the build is ready.",
            "dotted": "Raise sync.workers when the queue grows.",
            "code": "Error SAML-004 means the audience does not match.",
            "run": "Run the target; run target.",
            "sync": "Sync workers: sync workers.",
            "saml": "SAML 004, SAML 004.",
        }
        for i, (doc_id, text) in enumerate(texts.items()):
            store.replace_document(
                document(doc_id, ["alpha"]), chunks(doc_id, [text]), vectors(unit(*([0.0] * i + [1.0]))), "e"
            )

        def first(query: str) -> str:
            return store.search_keyword(query, "alpha", 5)[0].chunk_id

        assert first("run_target") == "snake#0", "the whole name outranks its parts met apart"
        assert first("sync.workers") == "dotted#0"
        assert first("SAML-004") == "code#0"
        assert first("DiffExecutor") == "camel#0"
        assert first("diff executor") == "camel#0", "a camelCase name is found by its parts"

    def test_keyword_feedback_adds_the_best_chunks_words(self, store: Store) -> None:
        """RM3 in the in-memory index: a chunk that shares only the words of the question's best
        chunks is found; keyword search in SQL searches the question alone."""
        store.upsert_persona(persona("alpha"))
        texts = {
            "apple1": "The apple orchard harvest: orchard pickers bring in every apple crate.",
            "apple2": "Apple blossom in the orchard means a harvest in autumn.",
            "orchard": "Orchard harvest crews start at dawn and finish at dusk.",
        } | {f"filler{n}": f"Invoices for office chairs number {n} were paid." for n in range(40)}
        for doc_id, text in texts.items():
            store.replace_document(document(doc_id, ["alpha"]), chunks(doc_id, [text]), vectors(unit(1)), "e")
        plain = [s.chunk_id for s in store.search_keyword("apple", "alpha", 5)]
        fed = [
            s.chunk_id for s in store.search_keyword("apple", "alpha", 5, KeywordFeedback(docs=2, terms=3))
        ]
        assert "orchard#0" not in plain
        if store.keyword_in_sql:
            assert fed == plain
        else:
            assert fed[:2] == plain[:2] and "orchard#0" in fed

    def test_bm25_statistics_follow_deletes_and_replacements(self, store: Store) -> None:
        """Adding documents, then taking them away again, leaves every score as it was."""
        store.upsert_persona(persona("alpha"))

        def put(doc_id: str, text: str) -> None:
            store.replace_document(document(doc_id, ["alpha"]), chunks(doc_id, [text]), vectors(unit(1)), "e")

        for n in range(6):
            put(f"filler{n}", f"unrelated filler text number {n} about gardens")
        put("d1", "pro plan pricing for teams")
        put("d2", "other words entirely")
        before = store.search_keyword("pricing plan", "alpha", 5)
        put("d2", "pro plan limits and pricing tiers pricing")
        put("d3", "pricing pricing plan")
        during = store.search_keyword("pricing plan", "alpha", 5)
        put("d2", "other words entirely")
        store.delete_document("d3")
        after = store.search_keyword("pricing plan", "alpha", 5)
        assert [s.chunk_id for s in before] == [s.chunk_id for s in after] == ["d1#0"]
        assert after[0].score == pytest.approx(before[0].score, rel=1e-6)
        assert during[0].score != pytest.approx(before[0].score, rel=1e-3), "statistics did change meanwhile"

    # -- many writers ---------------------------------------------------------------------------

    def test_a_small_persona_inside_a_big_table_gets_its_full_top_k(self, store: Store) -> None:
        """Filtered vector search keeps recall: 40 chunks of one persona among 3,000 of another
        (an HNSW scan that filtered after the fact would return only a few)."""
        rng = np.random.default_rng(4)
        store.upsert_persona(persona("big"))
        store.upsert_persona(persona("small"))
        small_vectors = np.zeros((0, DIM), dtype=np.float32)
        for n in range(31):
            slug = "small" if n == 30 else "big"
            count = 40 if slug == "small" else 100
            rows = rng.standard_normal((count, DIM)).astype(np.float32)
            rows /= np.linalg.norm(rows, axis=1, keepdims=True)
            if slug == "small":
                small_vectors = rows
            doc_id = f"{slug}{n}"
            store.replace_document(
                document(doc_id, [slug]), chunks(doc_id, [f"t{i}" for i in range(count)]), rows, "e"
            )
        query = unit(1, 1, 1)
        found = store.search_vector(query, "small", 10)
        exact = np.argsort(-(small_vectors @ query))[:10]
        assert [h.chunk_id for h in found] == [f"small30#{i}" for i in exact]

"""The conformance suite every `Store` backend passes, run over each backend by
`tests/store/test_conformance.py` (a `store` fixture parametrized by backend, fresh and empty)."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

import numpy as np
import pytest

from shu.errors import StoreError
from shu.store.base import Store
from shu.types import (
    ApiKey,
    Chunk,
    ChunkProfile,
    Contact,
    Document,
    DocumentProfile,
    Enrichment,
    Finding,
    Job,
    Participant,
    Persona,
    PersonaConfig,
    ProfileItem,
    Provenance,
    Relationship,
    Signal,
    SynthesizedQuestion,
    TemporalScope,
    UserProfile,
)

DIM = 8


def persona(slug: str, tags: list[str] | None = None) -> Persona:
    return Persona(
        slug=slug,
        display_name=slug.title(),
        config=PersonaConfig(slug=slug, display_name=slug.title(), tags=tags or []),
    )


def document(doc_id: str, personas: list[str], **fields: object) -> Document:
    values: dict[str, object] = {
        "title": f"Title {doc_id}",
        "content_hash": f"h-{doc_id}",
        "path": f"/kb/{doc_id}.md",
    }
    return Document(id=doc_id, personas=personas, **(values | fields))  # type: ignore[arg-type]


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

    def test_one_writer_at_a_time(self, store: Store) -> None:
        inside = threading.Event()
        times: dict[str, float] = {}

        def first() -> None:
            with store.writer():
                inside.set()
                time.sleep(0.3)
                times["first out"] = time.monotonic()

        def second() -> None:
            inside.wait(5)
            with store.writer():
                times["second in"] = time.monotonic()

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(10)
        assert times["second in"] >= times["first out"]
        with store.writer():
            pass  # free again

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
        filled.delete_document("r1")
        assert filled.list_relationships(["r1"]) == []

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

    def test_concurrent_writers_lose_nothing(self, store: Store) -> None:
        store.upsert_persona(persona("alpha"))
        store.replace_document(document("seed", ["alpha"]), chunks("seed", ["x"]), vectors(unit(1)), "e")

        def write(worker: int) -> None:
            for n in range(8):
                doc_id = f"w{worker}-{n}"
                store.replace_document(
                    document(doc_id, ["alpha"]),
                    chunks(doc_id, [f"worker{worker} note{n} shared words", "second chunk"]),
                    vectors(unit(1, worker), unit(worker, 1)),
                    "e",
                )
                if n % 3 == 2:
                    store.delete_document(f"w{worker}-{n - 1}")

        with ThreadPoolExecutor(4) as pool:
            list(pool.map(write, range(4)))
        stats = store.stats()
        assert stats.documents == 1 + 4 * (8 - 2) and stats.chunks == 1 + 2 * 4 * 6
        for worker in range(4):
            hits = store.search_keyword(f"worker{worker} note7", "alpha", 3)
            assert hits[0].chunk_id == f"w{worker}-7#0"

    def test_a_small_persona_inside_a_big_table_gets_its_full_top_k(self, store: Store) -> None:
        """Filtered vector search keeps recall: 40 chunks of one persona among 3,000 of another
        (an HNSW scan that filtered after the fact would return only a few)."""
        rng = np.random.default_rng(4)
        store.upsert_persona(persona("big"))
        store.upsert_persona(persona("small"))
        small_vectors = []
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

    def test_reads_in_another_thread_never_see_half_of_a_replaced_document(self, store: Store) -> None:
        """A server reads while an in-process ingest replaces documents: every read sees one
        whole version (all chunks of version n, as many as version n has), never a mix."""
        store.upsert_persona(persona("alpha"))

        def version(n: int) -> tuple[Document, list[Chunk], np.ndarray]:
            count = 2 + n % 3
            texts = [f"version {n} part {i}" for i in range(count)]
            return document("d", ["alpha"]), chunks("d", texts), vectors(*[unit(1, i) for i in range(count)])

        store.replace_document(*version(0), "test-embedder")
        seen: list[str] = []
        done = threading.Event()

        def read() -> None:
            while not done.is_set():
                found = store.list_chunks("d")
                versions = {c.text.split()[1] for c in found}
                if len(versions) != 1 or len(found) != 2 + int(next(iter(versions))) % 3:
                    seen.append(f"mixed: {[c.text for c in found]}")
                by_id = store.get_chunks([f"d#{i}" for i in range(4)])
                if len({c.text.split()[1] for c in by_id.values()}) > 1:
                    seen.append(f"mixed by id: {sorted(c.text for c in by_id.values())}")

        readers = [threading.Thread(target=read) for _ in range(2)]
        for reader in readers:
            reader.start()
        try:
            for n in range(1, 40):
                store.replace_document(*version(n), "test-embedder")
        finally:
            done.set()
            for reader in readers:
                reader.join()
        assert seen == []

    def test_an_export_never_mixes_two_versions_of_a_document(self, store: Store) -> None:
        """`shu migrate` reads while ingestion may write: each export is one version, whole."""
        store.upsert_persona(persona("alpha"))
        versions = {
            "old": (["old one", "old two"], vectors(unit(1), unit(1, 1))),
            "new": (["new one", "new two"], vectors(unit(0, 1), unit(0, 1, 1))),
        }
        store.replace_document(
            document("d", ["alpha"]), chunks("d", versions["old"][0]), versions["old"][1], "e"
        )
        stop = False

        def write() -> None:
            turn = 0
            while not stop:
                texts, rows = versions["new" if turn % 2 else "old"]
                store.replace_document(document("d", ["alpha"]), chunks("d", texts), rows, "e")
                turn += 1

        with ThreadPoolExecutor(1) as pool:
            writer = pool.submit(write)
            try:
                for _ in range(60):
                    stored = store.export_document("d")
                    assert stored is not None
                    name = stored.chunks[0].text.split()[0]
                    assert [c.text.split()[0] for c in stored.chunks] == [name, name]
                    assert np.allclose(stored.vectors, versions[name][1]), "chunks and vectors of one version"
            finally:
                stop = True
                writer.result()


def finding(
    kind: str = "relationship", doc_id: str = "p1", persona: str = "alpha", **fields: object
) -> Finding:
    values: dict[str, object] = {"evidence": f"words of {doc_id}", "question": "what links them?"}
    if kind == "relationship":
        values |= {"target": "p2", "value": "explains"}
    return Finding(kind=kind, doc_id=doc_id, persona=persona, **(values | fields))  # type: ignore[arg-type]


class FindingsConformance:
    """What the agent finds, written back with provenance and undoable: listed per persona,
    shown in relationships and profiles while active, gone from them once undone."""

    @pytest.fixture
    def profiled(self, store: Store) -> Store:
        for slug in ("alpha", "beta"):
            store.upsert_persona(persona(slug))
        provenance = Provenance(method="extractive")
        for doc_id, personas in (("p1", ["alpha", "beta"]), ("p2", ["alpha"])):
            enrichment = Enrichment(
                profile=DocumentProfile(
                    doc_id=doc_id,
                    synopsis=f"About {doc_id}.",
                    document_type="narrative",
                    provenance=provenance,
                ),
                relationships=[
                    Relationship(source=doc_id, target="x", type="references", origin="link", confidence=0.9),
                    Relationship(source=doc_id, target="y", type="related_to", origin="llm", confidence=0.5),
                ],
            )
            store.replace_document(
                document(doc_id, personas),
                chunks(doc_id, [f"text of {doc_id}"]),
                vectors(unit(1)),
                "test-embedder",
                enrichment,
            )
        return store

    def test_a_finding_is_stored_with_an_id_and_the_time_it_was_found(self, profiled: Store) -> None:
        stored = profiled.add_finding(finding())
        assert isinstance(stored.id, int) and not stored.undone
        created = datetime.fromisoformat(stored.created)
        assert created.utcoffset() == timedelta(0) and created.microsecond == 0
        assert abs(datetime.now(created.tzinfo) - created) < timedelta(minutes=5)
        assert profiled.list_findings() == [stored]
        given = profiled.add_finding(
            finding("stale_manifest", value="pricing", created="2026-01-02T03:04:05+00:00")
        )
        assert given.created == "2026-01-02T03:04:05+00:00" and given.id != stored.id
        assert profiled.list_findings("alpha")[1] == given, "kept as given, with its provenance"
        assert (given.evidence, given.question, given.method) == ("words of p1", "what links them?", "rules")

    def test_the_same_active_finding_is_stored_once(self, profiled: Store) -> None:
        first = profiled.add_finding(finding())
        generation = profiled.generation()
        again = profiled.add_finding(finding(evidence="other words"))
        assert again == first and len(profiled.list_findings()) == 1
        assert profiled.generation() == generation, "nothing written"
        assert profiled.add_finding(finding(value="supersedes")).id != first.id
        assert profiled.add_finding(finding(persona="beta")).id != first.id
        assert first.id is not None and profiled.undo_finding(first.id)
        renewed = profiled.add_finding(finding())
        assert renewed.id != first.id and not renewed.undone, "undone, it may be found again"
        assert len(profiled.list_findings()) == 3 and len(profiled.list_findings(include_undone=True)) == 4

    def test_findings_are_listed_per_persona_newest_first(self, profiled: Store) -> None:
        older = profiled.add_finding(finding("document_type", value="reference"))
        newer = profiled.add_finding(finding())
        beta = profiled.add_finding(finding("stale_manifest", persona="beta", value="prices"))
        backdated = profiled.add_finding(
            finding("document_type", doc_id="p2", value="technical", created="2020-01-01T00:00:00+00:00")
        )
        assert [f.id for f in profiled.list_findings("alpha")] == [newer.id, older.id, backdated.id]
        assert profiled.list_findings("beta") == [beta], "beta never sees alpha's findings"
        assert profiled.list_findings("gamma") == []
        assert [f.id for f in profiled.list_findings()] == [beta.id, newer.id, older.id, backdated.id]

    def test_a_finding_is_undone_once_and_kept_for_the_record(self, profiled: Store) -> None:
        stored = profiled.add_finding(finding())
        assert stored.id is not None
        assert profiled.undo_finding(stored.id) is True
        assert profiled.undo_finding(stored.id) is False, "already undone"
        assert profiled.undo_finding(stored.id + 1000) is False, "unknown"
        assert profiled.list_findings() == [] and profiled.list_findings("alpha") == []
        kept = profiled.list_findings("alpha", include_undone=True)
        assert [(f.id, f.undone) for f in kept] == [(stored.id, True)]

    def test_an_active_relationship_finding_is_a_relationship_of_the_agent(self, profiled: Store) -> None:
        stored = profiled.add_finding(finding(evidence="p1 explains what p2 decided"))
        found = profiled.list_relationships(["p1"])
        assert [(r.target, r.type, r.origin) for r in found] == [
            ("x", "references", "link"),
            ("p2", "explains", "agent"),
            ("y", "related_to", "llm"),
        ], "sorted with the others, most confident first"
        assert found[1].source == "p1" and found[1].confidence == pytest.approx(0.6)
        assert found[1].evidence == "p1 explains what p2 decided"
        assert [r.origin for r in profiled.list_relationships(["p2"])] == ["link", "llm"]
        assert stored.id is not None and profiled.undo_finding(stored.id)
        assert [r.origin for r in profiled.list_relationships(["p1"])] == ["link", "llm"]

    def test_profile_findings_correct_the_profile_until_undone(self, profiled: Store) -> None:
        before = profiled.get_profile("p1")
        assert before is not None and before.document_type == "narrative" and not before.manifest.stale
        typed = profiled.add_finding(finding("document_type", value="reference"))
        profiled.add_finding(finding("document_type", value="memo"))  # not a document type: ignored
        profile = profiled.get_profile("p1")
        assert profile is not None and profile.document_type == "reference" and not profile.manifest.stale
        newest = profiled.add_finding(finding("document_type", value="technical", persona="beta"))
        stale = profiled.add_finding(finding("stale_manifest", value="the 2026 prices"))
        profile = profiled.get_profile("p1")
        assert profile is not None and profile.document_type == "technical" and profile.manifest.stale
        assert profile.synopsis == before.synopsis and profile.provenance == before.provenance
        many = profiled.get_profiles(["p2", "nobody", "p1", "p1"])
        assert set(many) == {"p1", "p2"}, "the profiled ones, nobody left out"
        assert many["p1"] == profile and many["p2"] == profiled.get_profile("p2"), "findings applied to each"
        assert profiled.get_profiles([]) == {}
        assert profiled.get_profile("p2") == profiled.export_document("p2").enrichment.profile  # type: ignore[union-attr]
        for done in (newest, stale):
            assert done.id is not None and profiled.undo_finding(done.id)
        profile = profiled.get_profile("p1")
        assert profile is not None and profile.document_type == "reference" and not profile.manifest.stale
        assert typed.id is not None and profiled.undo_finding(typed.id)
        assert profiled.get_profile("p1") == before
        assert profiled.get_profile("nobody") is None

    def test_an_export_leaves_the_findings_out(self, profiled: Store) -> None:
        """`shu migrate` copies findings apart: they never become part of the enrichment."""
        profiled.add_finding(finding())
        profiled.add_finding(finding("stale_manifest", value="prices"))
        stored = profiled.export_document("p1")
        assert stored is not None and stored.enrichment.profile is not None
        assert not stored.enrichment.profile.manifest.stale
        assert [r.origin for r in stored.enrichment.relationships] == ["link", "llm"]

    def test_the_generation_moves_when_a_finding_is_added_or_undone(self, profiled: Store) -> None:
        seen = [profiled.generation()]
        stored = profiled.add_finding(finding())
        seen.append(profiled.generation())
        profiled.list_findings()
        profiled.list_relationships(["p1"])
        profiled.get_profile("p1")
        assert profiled.generation() == seen[-1], "reads leave it alone"
        assert stored.id is not None and profiled.undo_finding(stored.id)
        seen.append(profiled.generation())
        assert not profiled.undo_finding(stored.id)
        assert profiled.generation() == seen[-1]
        assert len(set(seen)) == 3, seen

    def test_deleting_a_document_deletes_its_findings_replacing_keeps_them(self, profiled: Store) -> None:
        profiled.add_finding(finding())
        profiled.add_finding(finding("stale_manifest", value="prices"))
        other = profiled.add_finding(finding("document_type", doc_id="p2", value="reference"))
        profiled.replace_document(
            document("p1", ["alpha", "beta"]), chunks("p1", ["new text"]), vectors(unit(1)), "test-embedder"
        )
        assert len(profiled.list_findings()) == 3, "a re-ingested document keeps them"
        assert [r.origin for r in profiled.list_relationships(["p1"])] == ["agent"]
        assert profiled.get_profile("p1") is None, "no profile to correct"
        assert profiled.delete_document("p1")
        assert profiled.list_findings(include_undone=True) == [other]
        assert profiled.list_relationships(["p1"]) == []


class ServiceConformance:
    """What a store keeps for the server: keys (hashed, revocable), each user's own signals, and
    jobs whose cancel request survives the worker's progress writes; none of it moves the
    generation (cached answers stay valid)."""

    def test_keys_are_kept_with_their_hash_and_revoked_once(self, store: Store) -> None:
        before = store.generation()
        key = ApiKey(id="k1", user="ana", personas=["alpha"], admin=False, created="2026-01-01T00:00:00")
        store.add_key(key, "hash-of-secret")
        store.add_key(ApiKey(id="k2", user="root", admin=True, created="2026-01-02T00:00:00"), "h2")
        assert store.get_key("k1") == (key, "hash-of-secret")
        assert store.get_key("nope") is None
        assert [k.id for k in store.list_keys()] == ["k1", "k2"]
        assert store.revoke_key("k1") and not store.revoke_key("k1") and not store.revoke_key("nope")
        found = store.get_key("k1")
        assert found is not None and found[0].revoked
        assert [k.revoked for k in store.list_keys()] == [True, False]
        assert store.delete_keys("ana") == 1 and [k.id for k in store.list_keys()] == ["k2"]
        assert store.generation() == before

    def test_signals_are_each_users_own_newest_first_and_can_be_forgotten(self, store: Store) -> None:
        before = store.generation()
        first = store.add_signal(Signal(user="ana", persona="alpha", kind="up", question="q1", answer="a1"))
        assert first.id is not None and first.created
        late = "2999-01-01T00:00:00"
        store.add_signal(Signal(user="ana", persona="beta", kind="star", doc_id="d1", created=late))
        store.add_signal(Signal(user="bob", persona="alpha", kind="down", question="q\x00"))
        assert [s.kind for s in store.list_signals("ana")] == ["star", "up"]
        assert [s.kind for s in store.list_signals("ana", "alpha")] == ["up"]
        assert store.list_signals("ana", "alpha")[0] == first
        assert [s.user for s in store.list_signals("bob")] == ["bob"]
        assert store.forget_signals("ana") == 2 and store.list_signals("ana") == []
        assert len(store.list_signals("bob")) == 1
        assert store.generation() == before

    def test_a_cancel_request_survives_progress_writes(self, store: Store) -> None:
        job = Job(id="j1", kind="ingest", path="/data", created="2026-01-01T00:00:00")
        store.save_job(job)
        store.save_job(Job(id="j0", kind="reindex", path="/x", status="done", created="2025-01-01T00:00:00"))
        assert store.get_job("j1") == job and store.get_job("nope") is None
        assert store.request_cancel("j1")
        assert not store.request_cancel("j0") and not store.request_cancel("no")
        running = job.model_copy(update={"status": "running", "processed": 3, "total": 9})
        store.save_job(running)
        found = store.get_job("j1")
        assert found is not None and found.processed == 3 and found.cancel_requested
        assert [j.id for j in store.list_jobs()] == ["j1", "j0"]
        assert [j.id for j in store.list_jobs(["queued", "running"])] == ["j1"]
        assert [j.id for j in store.list_jobs(limit=1)] == ["j1"]

    def test_a_users_profile_is_kept_replaced_and_deleted(self, store: Store) -> None:
        before = store.generation()
        profile = UserProfile(
            id="ana",
            name="Ana Lima",
            emails=["ana@harbor.example"],
            roles=["treasurer"],
            contacts=[Contact(name="Jonas Berg", email="jonas@harbor.example", affinity=0.8, source="email")],
            projects=[ProfileItem(value="Q3 repair budget", source="frontmatter")],
            preferences={"detail": "summary"},
        )
        saved = store.save_user(profile)
        assert saved.updated and store.get_user("ana") == saved
        store.save_user(profile.model_copy(update={"name": "Ana L."}))
        store.save_user(UserProfile(id="bob"))
        found = store.get_user("ana")
        assert found is not None and found.name == "Ana L." and found.contacts[0].affinity == 0.8
        assert store.list_users() == ["ana", "bob"] and store.get_user("nobody") is None
        assert store.delete_user("ana") and not store.delete_user("ana") and store.list_users() == ["bob"]
        assert store.generation() == before

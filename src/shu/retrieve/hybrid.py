"""Hybrid search (spec 004 §7.2): BM25 top-N + dense top-N → RRF → tag boost → per-document cap."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from shu.models.embed.base import Embedder
from shu.retrieve.fusion import convex_fusion, reciprocal_rank_fusion
from shu.store.base import PROFILE_SURFACES, ScoredChunk, ScoredDocument, Store
from shu.types import Document, Persona, RetrievalParams, SearchHit

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="shu-keyword")


@dataclass
class _Ranked:
    keyword: list[ScoredChunk]
    dense: list[ScoredChunk]
    documents: dict[str, list[ScoredChunk]] = field(default_factory=dict)
    """Document-level surfaces (questions, synopsis, manifest), each document standing for a chunk."""


class HybridSearcher:
    def __init__(self, store: Store, embedder: Embedder) -> None:
        self.store = store
        self.embedder = embedder

    def search(
        self, query: str, persona: Persona, params: RetrievalParams | None = None, limit: int | None = None
    ) -> list[SearchHit]:
        params = params or persona.config.retrieval
        if limit is not None and limit > params.candidates:
            params = params.model_copy(update={"candidates": limit})
        ranked = self._retrieve(query, persona.slug, params)
        fused = _fuse(ranked, params)
        return self._hits(fused, ranked, persona, params, limit or params.max_chunks)

    def _retrieve(self, query: str, persona: str, params: RetrievalParams) -> _Ranked:
        # BM25 runs on a worker thread while the query is embedded and the vectors are scored:
        # both sides spend their time outside the GIL (SQLite, onnxruntime, BLAS).
        keyword_future = _POOL.submit(self.store.search_keyword, query, persona, params.candidates)
        vector = self.embedder.embed_query(query)
        dense = [
            s
            for s in self.store.search_vector(vector, persona, params.candidates)
            if s.score >= params.vector_threshold
        ]
        keyword = [s for s in keyword_future.result() if s.score >= params.bm25_min_score]
        documents = self._document_surfaces(vector, persona, params)
        if documents:
            chunk_of = self._representatives(documents, keyword + dense)
            documents = {
                name: [
                    ScoredChunk(chunk_id=chunk_of[d.doc_id], score=d.score)
                    for d in found
                    if d.doc_id in chunk_of
                ]
                for name, found in documents.items()
            }
        return _Ranked(keyword=keyword, dense=dense, documents=documents)

    def _document_surfaces(
        self, vector: np.ndarray, persona: str, params: RetrievalParams
    ) -> dict[str, list[ScoredDocument]]:
        """The document-level surfaces with a weight, each a ranked list of documents."""
        found: dict[str, list[ScoredDocument]] = {}
        if params.question_weight:
            best: dict[str, float] = {}
            for question in self.store.search_questions(vector, persona, params.candidates * 3):
                best.setdefault(question.doc_id, question.score)
            found["questions"] = [ScoredDocument(d, score) for d, score in best.items()][: params.candidates]
        for surface in PROFILE_SURFACES:
            if surface_weight(params, surface):
                found[surface] = self.store.search_profiles(vector, persona, surface, params.candidates)
        return found

    def _representatives(
        self, documents: dict[str, list[ScoredDocument]], candidates: list[ScoredChunk]
    ) -> dict[str, str]:
        """doc id → the chunk that stands for it: its best in the chunk lists, else its first."""
        owners = self.store.chunk_documents([c.chunk_id for c in candidates])
        chunk_of: dict[str, str] = {}
        for candidate in candidates:
            chunk_of.setdefault(owners.get(candidate.chunk_id, ""), candidate.chunk_id)
        wanted = {d.doc_id for found in documents.values() for d in found}
        return chunk_of | self.store.first_chunks(sorted(wanted - chunk_of.keys()))

    def _hits(
        self,
        fused: list[tuple[str, float]],
        ranked: _Ranked,
        persona: Persona,
        params: RetrievalParams,
        limit: int,
    ) -> list[SearchHit]:
        """Boost, order and cap on ids and scores alone; load the text of the survivors only."""
        owners = self.store.chunk_documents([chunk_id for chunk_id, _ in fused])
        docs = self.store.get_documents(list(set(owners.values())))
        persona_tags = {tag.casefold() for tag in persona.config.tags}
        boosted = {doc_id: _carries_persona_tag(doc, persona_tags) for doc_id, doc in docs.items()}
        scored = [
            (chunk_id, score * (1.0 + params.tag_boost) if boosted[owners[chunk_id]] else score)
            for chunk_id, score in fused
            if chunk_id in owners
            and owners[chunk_id] in docs
            and persona.slug in docs[owners[chunk_id]].personas
        ]
        scored.sort(key=lambda pair: pair[1], reverse=True)
        kept = _cap_per_document(scored, owners, params.max_chunks_per_doc)[:limit]
        chunks = self.store.get_chunks([chunk_id for chunk_id, _ in kept])
        keyword = {s.chunk_id: (rank, s.score) for rank, s in enumerate(ranked.keyword, start=1)}
        dense = {s.chunk_id: (rank, s.score) for rank, s in enumerate(ranked.dense, start=1)}
        hits: list[SearchHit] = []
        for chunk_id, score in kept:
            doc = docs[owners[chunk_id]]
            hits.append(
                SearchHit(
                    chunk=chunks[chunk_id],
                    doc_title=doc.title,
                    doc_source_url=doc.source_url,
                    doc_date=doc.date,
                    score=score,
                    bm25_rank=keyword.get(chunk_id, (None, None))[0],
                    bm25_score=keyword.get(chunk_id, (None, None))[1],
                    dense_rank=dense.get(chunk_id, (None, None))[0],
                    dense_score=dense.get(chunk_id, (None, None))[1],
                    tag_boosted=boosted[doc.id],
                )
            )
        return hits


def _fuse(ranked: _Ranked, params: RetrievalParams) -> list[tuple[str, float]]:
    lists = [ranked.keyword, ranked.dense]
    weights = [params.convex_alpha, 1.0 - params.convex_alpha] if params.fusion == "convex" else [1.0, 1.0]
    for surface, scored in ranked.documents.items():
        lists.append(scored)
        weights.append(surface_weight(params, surface) * (0.5 if params.fusion == "convex" else 1.0))
    if params.fusion == "convex":
        return convex_fusion([[(s.chunk_id, s.score) for s in scored] for scored in lists], weights)
    return reciprocal_rank_fusion(
        [[s.chunk_id for s in scored] for scored in lists], k=params.rrf_k, weights=weights
    )


def surface_weight(params: RetrievalParams, surface: str) -> float:
    weights = {
        "questions": params.question_weight,
        "synopsis": params.synopsis_weight,
        "manifest": params.manifest_weight,
    }
    return weights[surface]


def _carries_persona_tag(doc: Document, persona_tags: set[str]) -> bool:
    return bool(persona_tags) and any(tag.casefold() in persona_tags for tag in doc.tags)


def _cap_per_document(
    scored: list[tuple[str, float]], owners: dict[str, str], per_doc: int
) -> list[tuple[str, float]]:
    counts: dict[str, int] = {}
    kept: list[tuple[str, float]] = []
    for chunk_id, score in scored:
        doc_id = owners[chunk_id]
        if counts.get(doc_id, 0) < per_doc:
            kept.append((chunk_id, score))
            counts[doc_id] = counts.get(doc_id, 0) + 1
    return kept

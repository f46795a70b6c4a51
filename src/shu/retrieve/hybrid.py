"""Hybrid search (spec 004 §7.2): BM25 top-N + dense top-N → RRF → tag boost → per-document cap."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from shu.models.embed.base import Embedder
from shu.retrieve.fusion import convex_fusion, reciprocal_rank_fusion
from shu.store.base import ScoredChunk, Store
from shu.types import Document, Persona, RetrievalParams, SearchHit

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="shu-keyword")


@dataclass
class _Ranked:
    keyword: list[ScoredChunk]
    dense: list[ScoredChunk]


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
        hits = self._hits(fused, ranked, persona, params)
        return _cap_per_document(hits, params.max_chunks_per_doc)[: limit or params.max_chunks]

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
        return _Ranked(keyword=keyword, dense=dense)

    def _hits(
        self, fused: list[tuple[str, float]], ranked: _Ranked, persona: Persona, params: RetrievalParams
    ) -> list[SearchHit]:
        chunks = self.store.get_chunks([chunk_id for chunk_id, _ in fused])
        docs = self.store.get_documents(list({c.doc_id for c in chunks.values()}))
        keyword = {s.chunk_id: (rank, s.score) for rank, s in enumerate(ranked.keyword, start=1)}
        dense = {s.chunk_id: (rank, s.score) for rank, s in enumerate(ranked.dense, start=1)}
        persona_tags = {tag.casefold() for tag in persona.config.tags}
        hits: list[SearchHit] = []
        for chunk_id, score in fused:
            chunk = chunks.get(chunk_id)
            doc = docs.get(chunk.doc_id) if chunk else None
            if chunk is None or doc is None or persona.slug not in doc.personas:
                continue
            boosted = _carries_persona_tag(doc, persona_tags)
            hits.append(
                SearchHit(
                    chunk=chunk,
                    doc_title=doc.title,
                    doc_source_url=doc.source_url,
                    doc_date=doc.date,
                    score=score * (1.0 + params.tag_boost) if boosted else score,
                    bm25_rank=keyword.get(chunk_id, (None, None))[0],
                    bm25_score=keyword.get(chunk_id, (None, None))[1],
                    dense_rank=dense.get(chunk_id, (None, None))[0],
                    dense_score=dense.get(chunk_id, (None, None))[1],
                    tag_boosted=boosted,
                )
            )
        hits.sort(key=lambda hit: hit.score, reverse=True)
        return hits


def _fuse(ranked: _Ranked, params: RetrievalParams) -> list[tuple[str, float]]:
    if params.fusion == "convex":
        return convex_fusion(
            [[(s.chunk_id, s.score) for s in ranked.keyword], [(s.chunk_id, s.score) for s in ranked.dense]],
            [params.convex_alpha, 1.0 - params.convex_alpha],
        )
    return reciprocal_rank_fusion(
        [[s.chunk_id for s in ranked.keyword], [s.chunk_id for s in ranked.dense]], k=params.rrf_k
    )


def _carries_persona_tag(doc: Document, persona_tags: set[str]) -> bool:
    return bool(persona_tags) and any(tag.casefold() in persona_tags for tag in doc.tags)


def _cap_per_document(hits: list[SearchHit], per_doc: int) -> list[SearchHit]:
    counts: dict[str, int] = {}
    kept: list[SearchHit] = []
    for hit in hits:
        seen = counts.get(hit.chunk.doc_id, 0)
        if seen < per_doc:
            kept.append(hit)
            counts[hit.chunk.doc_id] = seen + 1
    return kept

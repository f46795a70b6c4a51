"""Hybrid search: BM25 top-N + dense top-N → convex/RRF fusion → tag boost → per-document cap,
plus the document-level surfaces a persona weights (synthesized questions, synopses, capability
manifests), and those the question's plan opens (titles, names, dates; `planned_surfaces`, weighed
by their selectivity). The pieces (`surfaces`, `fuse`, `hits`) are what the query pipeline composes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, date, datetime

import numpy as np

from shu.models.embed.base import Embedder
from shu.retrieve import standing
from shu.retrieve.candidates import Candidates, StageContext, Surfaces
from shu.retrieve.fusion import convex_fusion, reciprocal_rank_fusion
from shu.store.base import PROFILE_SURFACES, KnowledgeReader, ScoredChunk, ScoredDocument, Within
from shu.store.document_index import DocumentIndex
from shu.types import Document, Persona, QueryPlan, RetrievalParams, SearchHit

_POOL = ThreadPoolExecutor(max_workers=4, thread_name_prefix="shu-keyword")
CHUNK_SURFACES = ("keyword", "dense")
"""surface name → ranked chunks, best first; a document-level surface lists each document's
representative chunk (its best in the chunk lists, else its first)."""


class HybridSearcher:
    def __init__(self, store: KnowledgeReader, embedder: Embedder, today: date | None = None) -> None:
        """`today`: the day freshness counts from (`retrieval.personal.now`; None: the real one)."""
        self.store = store
        self.embedder = embedder
        self.today = today

    def search(
        self, query: str, persona: Persona, params: RetrievalParams | None = None, limit: int | None = None
    ) -> list[SearchHit]:
        params = for_embedder(widened(params or persona.config.retrieval, limit), self.embedder)
        found = self.surfaces(query, persona.slug, params)
        return self.hits(fuse(found, params), found, persona, params, limit or params.max_chunks)

    def surfaces(
        self,
        query: str,
        persona: str,
        params: RetrievalParams,
        vector: np.ndarray | None = None,
        within: Within = None,
    ) -> Surfaces:
        """Every embedded surface and keyword search, each searched among `within` (a filter's
        documents) inside the store's own query."""
        # BM25 runs on a worker thread while the query is embedded or the vectors are scored, when
        # it spends its time outside the GIL (SQL) or there is an embedding to overlap with; an
        # in-memory index given a ready vector answers faster than a thread hand-over: it runs here.
        beside = getattr(self.store, "keyword_in_sql", True) or vector is None
        feedback = params.keyword_feedback()
        pending = (
            _POOL.submit(self.store.search_keyword, query, persona, params.candidates, feedback, within)
            if beside
            else None
        )
        vector = self.embedder.embed_query(query) if vector is None else vector
        dense = [
            s
            for s in self.store.search_vector(vector, persona, params.candidates, within)
            if s.score >= params.vector_threshold
        ]
        listed = (
            pending.result()
            if pending
            else self.store.search_keyword(query, persona, params.candidates, feedback, within)
        )
        keyword = [s for s in listed if s.score >= params.bm25_min_score]
        found: Surfaces = {"keyword": keyword, "dense": dense}
        documents = self.document_surfaces(vector, persona, params, within)
        return found | self.represent(documents, [keyword, dense])

    def document_surfaces(
        self, vector: np.ndarray, persona: str, params: RetrievalParams, within: Within = None
    ) -> dict[str, list[ScoredDocument]]:
        """The embedded document-level surfaces with a weight, each a ranked list of documents."""
        found: dict[str, list[ScoredDocument]] = {}
        if params.question_weight:
            best: dict[str, float] = {}
            for question in self.store.search_questions(vector, persona, params.candidates * 3, within):
                best.setdefault(question.doc_id, question.score)
            found["questions"] = [ScoredDocument(d, score) for d, score in best.items()][: params.candidates]
        for surface in PROFILE_SURFACES:
            if surface_weight(params, surface):
                found[surface] = self.store.search_profiles(
                    vector, persona, surface, params.candidates, within
                )
        return found

    def planned_surfaces(
        self,
        plan: QueryPlan,
        index: DocumentIndex,
        found: Surfaces,
        params: RetrievalParams,
        within: Within = None,
    ) -> tuple[Surfaces, dict[str, float]]:
        """Title matches, the relational index (names the question mentions) and dates, with
        the selectivity of the names and of the time span (what share of the documents they
        leave out); of `within`'s documents only (each lookup keeps to them before its limit)."""
        depth = params.candidates
        documents: dict[str, list[ScoredDocument]] = {}
        selectivity: dict[str, float] = {}
        # Titles only for questions that name a document: as a surface for every question they
        # cost SciFact 0.028 nDCG@10 (claims share words with paper titles).
        titles = index.search_titles(" ".join(plan.title_hints), depth, within) if plan.title_hints else []
        if titles:
            documents["titles"] = [ScoredDocument(h.doc_id, h.score) for h in titles]
        if plan.entities:
            named, selectivity["relational"] = index.search_names(plan.entities, depth, within)
            if named:
                documents["relational"] = [ScoredDocument(h.doc_id, h.score) for h in named]
        scope = plan.temporal_scope
        if scope.start or scope.end:
            dated, selectivity["temporal"] = index.search_dates(scope.start, scope.end, depth, within)
            if dated:
                documents["temporal"] = [ScoredDocument(h.doc_id, h.score) for h in dated]
        if not documents:
            return {}, selectivity
        return self.represent(documents, [found["keyword"], found["dense"]]), selectivity

    def represent(
        self, documents: dict[str, list[ScoredDocument]], lists: list[list[ScoredChunk]]
    ) -> Surfaces:
        """Each document-level list as chunks (see `representatives`)."""
        wanted = [d.doc_id for found in documents.values() for d in found]
        chunk_of = self.representatives(wanted, lists) if wanted else {}
        return {
            name: [
                ScoredChunk(chunk_id=chunk_of[d.doc_id], score=d.score) for d in found if d.doc_id in chunk_of
            ]
            for name, found in documents.items()
        }

    def representatives(self, doc_ids: list[str], lists: list[list[ScoredChunk]]) -> dict[str, str]:
        """doc id → the chunk that stands for it: its best-ranked chunk in the chunk lists (the
        rank within its own list counts), else its first chunk."""
        owners = self.store.chunk_documents([c.chunk_id for listed in lists for c in listed])
        best: dict[str, tuple[int, int, str]] = {}
        for order, listed in enumerate(lists):
            for rank, candidate in enumerate(listed):
                doc_id = owners.get(candidate.chunk_id, "")
                if doc_id not in best or (rank, order) < best[doc_id][:2]:
                    best[doc_id] = (rank, order, candidate.chunk_id)
        wanted = set(doc_ids)
        chunk_of = {doc_id: chunk_id for doc_id, (_, _, chunk_id) in best.items() if doc_id in wanted}
        return chunk_of | self.store.first_chunks(sorted(wanted - chunk_of.keys()))

    def ranked(
        self,
        fused: list[tuple[str, float]],
        persona: Persona,
        params: RetrievalParams,
        limit: int,
        within: Within = None,
    ) -> tuple[list[tuple[str, float]], dict[str, str], dict[str, Document], dict[str, bool]]:
        """The fused list tag-boosted, ordered and capped per document: (chunk id, score) pairs,
        with each chunk's document id, the documents and which of them the tag boost raised;
        a chunk of a document outside `within` (a stage's neighbour) is not kept."""
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
            and (within is None or owners[chunk_id] in within)
        ]
        scored.sort(key=lambda pair: pair[1], reverse=True)
        if standing.active(params):
            profiles = self.store.get_profiles(list(docs)) if params.authority_boost else {}
            today = self.today or datetime.now(UTC).date()
            scored = standing.standing(scored, owners, docs, profiles, params, today)
        return _cap_per_document(scored, owners, params.max_chunks_per_doc)[:limit], owners, docs, boosted

    def hits(
        self,
        fused: list[tuple[str, float]],
        found: Surfaces,
        persona: Persona,
        params: RetrievalParams,
        limit: int,
        expanded_via: dict[str, str] | None = None,
        within: Within = None,
    ) -> list[SearchHit]:
        """Boost, order and cap on ids and scores alone (`ranked`); load the text of the
        survivors only."""
        kept, owners, docs, boosted = self.ranked(fused, persona, params, limit, within)
        chunks = self.store.get_chunks([chunk_id for chunk_id, _ in kept])
        ranks = {
            name: {s.chunk_id: (rank, s.score) for rank, s in enumerate(listed, start=1)}
            for name, listed in found.items()
        }
        hits: list[SearchHit] = []
        for chunk_id, score in kept:
            doc = docs[owners[chunk_id]]
            keyword = ranks.get("keyword", {}).get(chunk_id, (None, None))
            dense = ranks.get("dense", {}).get(chunk_id, (None, None))
            hits.append(
                SearchHit(
                    chunk=chunks[chunk_id],
                    doc_title=doc.title,
                    doc_source_url=doc.source_url,
                    doc_date=doc.date,
                    score=score,
                    bm25_rank=keyword[0],
                    bm25_score=keyword[1],
                    dense_rank=dense[0],
                    dense_score=dense[1],
                    tag_boosted=boosted[doc.id],
                    surfaces={
                        name: ranked[chunk_id][0] for name, ranked in ranks.items() if chunk_id in ranked
                    },
                    expanded_via=(expanded_via or {}).get(chunk_id),
                )
            )
        return hits


def widened(params: RetrievalParams, limit: int | None) -> RetrievalParams:
    """Asking for more results than `candidates` takes more candidates from each list."""
    if limit is not None and limit > params.candidates:
        return params.model_copy(update={"candidates": limit})
    return params


def for_embedder(params: RetrievalParams, embedder: Embedder) -> RetrievalParams:
    """BM25's weight in convex fusion, when the persona does not set it, is the one that fits the
    embedder: a stronger dense list earns more of the fused score."""
    if params.convex_alpha is not None:
        return params
    weight = getattr(embedder, "keyword_weight", KEYWORD_WEIGHT)
    return params.model_copy(update={"convex_alpha": float(weight)})


KEYWORD_WEIGHT = 0.5
"""BM25's weight in convex fusion beside an embedder that names none (measured with MiniLM)."""


def fuse(found: Surfaces, params: RetrievalParams) -> list[tuple[str, float]]:
    """Weighted RRF (or convex fusion) across surfaces; chunk surfaces weigh 1 (or α / 1-α)."""
    names = [name for name, listed in found.items() if listed and surface_weight(params, name)]
    convex = params.fusion == "convex"
    weights = [
        surface_weight(params, name) * (0.5 if convex and name not in CHUNK_SURFACES else 1.0)
        for name in names
    ]
    if convex:
        return convex_fusion([[(s.chunk_id, s.score) for s in found[name]] for name in names], weights)
    return reciprocal_rank_fusion(
        [[s.chunk_id for s in found[name]] for name in names], k=params.rrf_k, weights=weights
    )


def surface_weight(params: RetrievalParams, surface: str) -> float:
    convex = params.fusion == "convex"
    alpha = KEYWORD_WEIGHT if params.convex_alpha is None else params.convex_alpha
    weights = {
        "keyword": alpha if convex else 1.0,
        "dense": 1.0 - alpha if convex else 1.0,
        "questions": params.question_weight,
        "synopsis": params.synopsis_weight,
        "manifest": params.manifest_weight,
        "titles": params.title_weight,
        "keywords": params.keyword_weight,
        "relational": params.relational_weight,
        "temporal": params.temporal_weight,
    }
    return weights.get(surface, 1.0)


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


def fuse_wordings(lists: list[list[ScoredChunk]], params: RetrievalParams) -> list[ScoredChunk]:
    """One surface searched with several wordings → one list. Under RRF, RRF; under convex
    fusion, each list's scores divided by its best and the best of them kept per chunk, so the
    surface still carries scores that convex fusion can compare (RRF scores are nearly flat)."""
    if params.fusion == "convex":
        best: dict[str, float] = {}
        for listed in lists:
            top = max((s.score for s in listed), default=0.0)
            top = top if top > 0 else 1.0  # all-negative cosines keep their order
            for scored in listed:
                best[scored.chunk_id] = max(best.get(scored.chunk_id, 0.0), scored.score / top)
        fused = sorted(best.items(), key=lambda pair: -pair[1])
    else:
        fused = reciprocal_rank_fusion([[s.chunk_id for s in listed] for listed in lists], k=params.rrf_k)
    return [ScoredChunk(chunk_id=c, score=s) for c, s in fused[: params.candidates]]


def weighted_by_selectivity(
    params: RetrievalParams, selectivity: dict[str, float], notes: list[str]
) -> RetrievalParams:
    """A planned surface weighs its persona weight times its selectivity: names or dates that
    most documents share carry almost nothing."""
    update: dict[str, float] = {}
    for surface, share in selectivity.items():
        field = f"{surface}_weight"
        update[field] = getattr(params, field) * share
        if share < 1.0:
            notes.append(f"{surface} surface weighted {share:.2f} by selectivity")
    return params.model_copy(update=update) if update else params


def decisive_question(found: Surfaces, threshold: float) -> str | None:
    """The question surface is decisive when its best match clears the threshold well ahead of
    the next document's."""
    questions = found.get("questions", [])
    if not questions or questions[0].score < threshold:
        return None
    runner_up = questions[1].score if len(questions) > 1 else 0.0
    return questions[0].chunk_id if questions[0].score - runner_up >= 0.05 else None


class Hits:
    """Boost by the persona's tags, order and cap on ids and scores; load the survivors' text."""

    name = "hits"

    def __init__(self, searcher: HybridSearcher) -> None:
        self.searcher = searcher

    def applies(self, context: StageContext) -> bool:
        return True

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates:
        hits = self.searcher.hits(
            candidates.ranked,
            context.surfaces,
            context.persona,
            context.params,
            context.depth,
            candidates.expanded_via,
            context.within,
        )
        return candidates.but(hits=hits)

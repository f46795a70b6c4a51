"""The query pipeline (docs/design/query-pipeline.md#stages): plan → transform → search
every surface → fuse → expand one hop along relationships → boost and cap → rerank → assemble.
Each stage can be switched off in `RetrievalSettings`; with every stage off it is plain hybrid
search. The result carries the whole trace."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date

from shu.config.settings import RetrievalSettings
from shu.models.embed.base import Embedder
from shu.models.llm.client import LLMClient
from shu.models.rerank.base import Reranker
from shu.retrieve.asker import Asker
from shu.retrieve.assemble import AssemblyRequest, assemble, assembly_request
from shu.retrieve.candidates import Candidates, Stage, StageContext, Surfaces
from shu.retrieve.classify import classify
from shu.retrieve.expand import Expand
from shu.retrieve.headings import NamedSections
from shu.retrieve.hybrid import (
    Hits,
    HybridSearcher,
    decisive_question,
    for_embedder,
    fuse,
    fuse_wordings,
    weighted_by_selectivity,
    widened,
)
from shu.retrieve.neighbours import Surroundings
from shu.retrieve.personal import PersonalBoosts
from shu.retrieve.planner import LLMPlanner
from shu.retrieve.rerank import Rerank
from shu.retrieve.transform import LLMTransformer, rule_queries
from shu.store.base import KnowledgeReader, ScoredChunk, Within
from shu.store.document_index import DocumentIndex
from shu.types import (
    AssembledContext,
    DocumentFilter,
    Persona,
    QueryPlan,
    RetrievalParams,
    RetrievalPlan,
    RetrievalResult,
    SearchHit,
    SearchQueries,
    SurfaceHit,
)

log = logging.getLogger(__name__)

_TRACE_DEPTH = 20


class RetrievalPipeline:
    def __init__(
        self,
        store: KnowledgeReader,
        embedder: Embedder,
        settings: RetrievalSettings | None = None,
        llm: LLMClient | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.settings = settings or RetrievalSettings()
        pinned = self.settings.personal.now
        self.searcher = HybridSearcher(store, embedder, date.fromisoformat(pinned) if pinned else None)
        self.planner = LLMPlanner(llm) if llm is not None and self.settings.plan_method == "auto" else None
        self.transformer = LLMTransformer(llm, hyde=self.settings.hyde) if llm is not None else None
        self.reranker = reranker
        named = self.settings.named_sections
        named_sections = named == "on" or (named == "auto" and llm is not None)
        """A section the question names by heading joins the hits: a model reads the whole context."""
        self.stages: list[Stage] = [
            Surroundings(store),
            *([NamedSections(store)] if named_sections else []),
            Expand(store, self.searcher, self.settings),
            PersonalBoosts(store, self.settings.personal),
            Hits(self.searcher),
            *([Rerank(reranker, self.settings.rerank.depth)] if reranker is not None else []),
        ]
        """After fusion, in order: each `(Candidates, StageContext) -> Candidates`."""

    def params(self, persona: Persona) -> RetrievalParams:
        return self.params_for(self.settings, persona)

    @staticmethod
    def params_for(settings: RetrievalSettings, persona: Persona) -> RetrievalParams:
        """The persona's retrieval parameters with the weights `shu tune` fitted laid over them."""
        tuned = settings.tuned.get(persona.slug)
        return persona.config.retrieval.model_copy(update=tuned) if tuned else persona.config.retrieval

    def run(
        self,
        question: str,
        persona: Persona,
        params: RetrievalParams | None = None,
        limit: int | None = None,
        assemble_context: bool = True,
        asker: Asker | None = None,
        where: DocumentFilter | None = None,
    ) -> RetrievalResult:
        """`assemble_context=False` stops at the ranked hits (a caller that reads no context);
        `asker`: rank for this person (RELATIONAL-BOOST); `where`: only the documents the filter
        keeps are searched (each surface's own query takes them: the limit is filled from them)."""
        params = for_embedder(widened(params or self.params(persona), limit), self.embedder)
        limit = limit or params.max_chunks
        timings: dict[str, float] = {}
        notes: list[str] = []
        index = self.store.document_index(persona.slug)
        where = None if where is None or where.empty else where
        within = index.kept(where)
        if where is not None and within is not None:
            notes.append(f"filtered ({where.described()}): {len(within)} of {len(index.facets)} documents")
            if not within:  # nothing to search: no plan, no rewrite, no embedding
                return RetrievalResult(
                    question=question,
                    persona=persona.slug,
                    plan=QueryPlan(method="off"),
                    queries=SearchQueries(original=question, rewritten=question),
                    retrieval_plan=RetrievalPlan(),
                    notes=notes,
                    filter=where,
                    filtered=0,
                )
        if params.feedback_docs and self.store.keyword_in_sql:
            notes.append("keyword feedback not applied: it needs the in-memory keyword index (store.keyword)")
        with _timed(timings, "plan"):
            plan = self._plan(question, index)
            params = self._routed(plan, params, notes)
        with _timed(timings, "transform"):
            queries = self._transform(question, _selective(plan, index), persona)
        with _timed(timings, "search"):
            vector = self.embedder.embed_query(queries.rewritten)
            found = self.searcher.surfaces(queries.rewritten, persona.slug, params, vector, within)
            decisive = (
                decisive_question(found, self.settings.decisive_question) if params.question_weight else None
            )
            if decisive:
                notes.append(f"question surface decisive ({decisive}): variations and expansion skipped")
            else:
                found = self._more_queries(found, queries, persona.slug, params, within)
            if self.settings.plan:
                planned, selectivity = self.searcher.planned_surfaces(plan, index, found, params, within)
                found |= planned
                params = weighted_by_selectivity(params, selectivity, notes)
            if params.keyword_weight and index.keywords:
                # chunk-level keywords know no documents: a filter reads deeper, then keeps its own
                depth = params.candidates * (1 if within is None else 8)
                named = index.search_keywords(question, depth)
                kept = self._kept([ScoredChunk(chunk_id=c, score=s) for c, s in named], within)
                found["keywords"] = kept[: params.candidates]
        context = StageContext(
            question=question,
            query=queries.rewritten,
            persona=persona,
            params=params,
            surfaces=found,
            decisive=bool(decisive),
            asker=asker,
            depth=max(limit, self.settings.rerank.depth if self.reranker else 0),
            within=within,
        )
        with _timed(timings, "fuse"):
            candidates = Candidates(ranked=fuse(found, params))
        for stage in self.stages:
            if stage.applies(context):
                with _timed(timings, stage.name):
                    candidates = stage(candidates, context)
        notes += candidates.notes
        hits = candidates.hits[:limit]
        assembled = AssembledContext(budget=self.settings.context_tokens)
        if assemble_context:
            with _timed(timings, "assemble"):
                assembled = assemble(
                    self.store,
                    assembly_request(self.store, self.settings, plan, found, hits, notes, question),
                )
        return RetrievalResult(
            question=question,
            persona=persona.slug,
            plan=plan,
            queries=queries,
            retrieval_plan=candidates.retrieval_plan,
            surfaces={
                name: [
                    SurfaceHit(chunk_id=s.chunk_id, score=round(s.score, 6)) for s in listed[:_TRACE_DEPTH]
                ]
                for name, listed in found.items()
            },
            fused=[SurfaceHit(chunk_id=c, score=round(s, 6)) for c, s in candidates.ranked[:_TRACE_DEPTH]],
            hits=hits,
            context=assembled,
            reranker=self.reranker.name if self.reranker else None,
            notes=notes,
            timings_ms=timings,
            asker=asker.user if asker is not None else None,
            detail=asker.detail if asker is not None else None,
            personal=candidates.boosts,
            resolved=candidates.resolved,
            filter=where,
            filtered=None if within is None else len(within),
        )

    def search_more(
        self, result: RetrievalResult, query: str, persona: Persona, why: str, asker: Asker | None = None
    ) -> RetrievalResult:
        """Corrective retrieval: `query` (what the first search missed) searched with the same
        pipeline; its new chunks join the first result's and the context is assembled again.
        The question stays the asker's."""
        more = self.run(query, persona, assemble_context=False, asker=asker, where=result.filter)
        return self.merged(result, more.hits, f"{why}: searched {query!r}")

    def merged(
        self, result: RetrievalResult, extra: list[SearchHit], note: str, whole: tuple[str, ...] = ()
    ) -> RetrievalResult:
        """`result` with `extra` hits interleaved after its own (chunks of documents not yet in
        the context first) and the documents in `whole` loaded whole where they fit; the
        context is assembled again within the same budget."""
        known_chunks = {h.chunk.id for h in result.hits}
        known_docs = {d.doc_id for d in result.context.documents}
        fresh = [h for h in extra if h.chunk.id not in known_chunks]
        fresh.sort(key=lambda h: h.chunk.doc_id in known_docs)  # stable: new documents first
        hits = _interleaved(result.hits, fresh)
        context = assemble(
            self.store,
            AssemblyRequest(
                hits=hits,
                budget=result.context.budget,
                lookup=result.context.lookup,
                escalated=tuple(dict.fromkeys([*result.context.escalated, *whole])),
                question=result.question,
                compress=self.settings.compress,
            ),
        )
        return result.model_copy(update={"hits": hits, "context": context, "notes": [*result.notes, note]})

    # -- stages ----------------------------------------------------------------------------

    def _plan(self, question: str, index: DocumentIndex) -> QueryPlan:
        if not self.settings.plan:
            return QueryPlan(method="off")
        if self.planner is not None:
            return self.planner.plan(question, index.known_names())
        return classify(question, index.known_names(), self.today())

    def _routed(self, plan: QueryPlan, params: RetrievalParams, notes: list[str]) -> RetrievalParams:
        """The parameters with the surfaces the question's kind searches turned up (`routes`)."""
        route = self.settings.routes.get(plan.query_type)
        raised = route.over(params) if route is not None else {}
        if not raised:
            return params
        notes.append(f"routed as {plan.query_type}: " + ", ".join(f"{k} {v:g}" for k, v in raised.items()))
        return params.model_copy(update=raised)

    def today(self) -> date:
        """The day questions are asked on: `personal.now` when set, else today."""
        now = self.settings.personal.now
        return date.fromisoformat(now) if now else date.today()

    def _transform(self, question: str, plan: QueryPlan, persona: Persona) -> SearchQueries:
        """An LLM's variations and hypothetical answer when one is configured (validated, rules
        as fallback); else rules: aliases always, contractions when `transform`, variations when
        `multiquery`."""
        aliases = persona.config.aliases
        if self.transformer is not None and (self.settings.multiquery or self.settings.hyde):
            return self.transformer.queries(question, plan, aliases)
        queries = rule_queries(question, plan, aliases, contractions=self.settings.transform)
        return queries if self.settings.multiquery else queries.model_copy(update={"variations": []})

    def _kept(self, listed: list[ScoredChunk], within: Within) -> list[ScoredChunk]:
        """The chunks of `within`'s documents (all when None)."""
        if within is None or not listed:
            return listed
        owners = self.store.chunk_documents([s.chunk_id for s in listed])
        return [s for s in listed if owners.get(s.chunk_id) in within]

    def _more_queries(
        self, found: Surfaces, queries: SearchQueries, persona: str, params: RetrievalParams, within: Within
    ) -> Surfaces:
        """Variations and the hypothetical answer search the chunk surfaces too; each surface's
        lists are fused by RRF (within the surface) before the surfaces are fused."""
        texts = queries.variations if self.settings.multiquery else []
        if not texts and not queries.hypothetical_answer:
            return found
        chunk_only = params.model_copy(
            update={"question_weight": 0, "synopsis_weight": 0, "manifest_weight": 0}
        )
        keyword_lists, dense_lists = [found["keyword"]], [found["dense"]]
        for text in texts:
            more = self.searcher.surfaces(text, persona, chunk_only, within=within)
            keyword_lists.append(more["keyword"])
            dense_lists.append(more["dense"])
        if queries.hypothetical_answer:
            vector = self.embedder.embed_query(queries.hypothetical_answer)
            dense_lists.append(self.store.search_vector(vector, persona, params.candidates, within))
        return found | {
            "keyword": fuse_wordings(keyword_lists, params),
            "dense": fuse_wordings(dense_lists, params),
        }


def _interleaved(first: list[SearchHit], second: list[SearchHit]) -> list[SearchHit]:
    """first[0], second[0], first[1], second[1], …, then the rest of the longer list."""
    merged: list[SearchHit] = []
    for index in range(max(len(first), len(second))):
        merged += first[index : index + 1] + second[index : index + 1]
    return merged


def _selective(plan: QueryPlan, index: DocumentIndex) -> QueryPlan:
    """The plan with only the names that tell documents apart, for rewriting the question: a
    name most documents carry would only repeat what every document says."""
    entities = [name for name in plan.entities if index.name_selectivity(name) >= 0.5]
    return plan if entities == plan.entities else plan.model_copy(update={"entities": entities})


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    started = time.perf_counter()
    yield
    timings[stage] = round((time.perf_counter() - started) * 1000, 3)

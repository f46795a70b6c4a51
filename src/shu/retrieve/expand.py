"""One-hop expansion: from the seed documents, one hop along *outgoing* typed relationships,
optionally only of some types. No recursion: a document reached by expansion is never expanded
itself. A seed ranked below the seed that points to it may be reached too (it then joins at
its source's share). Deterministic: seeds in rank order, each seed's relationships most
confident first; every document is reached once.
With no relationships the plan holds the seeds alone and retrieval is unchanged."""

from __future__ import annotations

from collections.abc import Callable

from shu.config.settings import RetrievalSettings
from shu.retrieve.candidates import Candidates, StageContext
from shu.retrieve.hybrid import HybridSearcher
from shu.store.base import KnowledgeReader
from shu.types import Expansion, Relationship, RetrievalPlan


def plan_candidates(
    seeds: list[str],
    relationships_of: Callable[[list[str]], list[Relationship]],
    relation_types: list[str] | None = None,
    limit: int = 10,
    known: Callable[[list[str]], set[str]] | None = None,
) -> RetrievalPlan:
    """`known(ids)` keeps only targets that exist (in the persona); `limit` caps the expansions."""
    seeds = list(dict.fromkeys(seeds))
    allowed = set(relation_types) if relation_types else None
    by_source: dict[str, list[Relationship]] = {}
    for relationship in relationships_of(seeds):
        if allowed is None or relationship.type in allowed:
            by_source.setdefault(relationship.source, []).append(relationship)
    proposed: list[Expansion] = []
    reached: set[str] = set()
    for rank, seed in enumerate(seeds):
        reached.add(seed)
        ordered = sorted(by_source.get(seed, []), key=lambda r: (-r.confidence, r.target, r.type))
        for relationship in ordered:
            if relationship.target in reached or relationship.target in seeds[:rank]:
                continue
            reached.add(relationship.target)
            proposed.append(
                Expansion(
                    doc_id=relationship.target,
                    via=seed,
                    relation=relationship.type,
                    confidence=relationship.confidence,
                )
            )
    existing = known([e.doc_id for e in proposed]) if known and proposed else None
    expanded = [e for e in proposed if existing is None or e.doc_id in existing][:limit]
    return RetrievalPlan(seeds=seeds, expanded=expanded, relation_types=relation_types)


class Expand:
    """The stage: seeds are the best documents of the ranked list; each document one outgoing
    relationship away joins with a share of its seed's score (`expansion_weight` × confidence)."""

    name = "expand"

    def __init__(self, store: KnowledgeReader, searcher: HybridSearcher, settings: RetrievalSettings) -> None:
        self.store = store
        self.searcher = searcher
        self.settings = settings

    def applies(self, context: StageContext) -> bool:
        settings = self.settings
        return (
            not context.decisive
            and settings.expand
            and bool(context.params.expansion_weight)
            and bool(settings.max_expansions)
        )

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates:
        store, settings, params, persona = self.store, self.settings, context.params, context.persona.slug
        fused = candidates.ranked
        owners = store.chunk_documents([c for c, _ in fused[: params.candidates * 2]])
        seed_scores: dict[str, float] = {}
        for chunk_id, score in fused:
            doc_id = owners.get(chunk_id)
            if doc_id is not None and doc_id not in seed_scores:
                seed_scores[doc_id] = score
            if len(seed_scores) >= settings.expand_seeds:
                break
        plan = plan_candidates(
            list(seed_scores),
            store.list_relationships,
            settings.relation_types,
            settings.max_expansions,
            # only targets this persona may see (and the filter keeps): a link into another
            # persona's document is not followed
            known=lambda ids: {
                d.id
                for d in store.get_documents(ids).values()
                if persona in d.personas and (context.within is None or d.id in context.within)
            },
        )
        if not plan.expanded:
            return candidates.but(retrieval_plan=plan)
        found = context.surfaces
        chunk_of = self.searcher.representatives(
            [e.doc_id for e in plan.expanded], [found["keyword"], found["dense"]]
        )
        scores = dict(fused)
        via: dict[str, str] = {}
        for expansion in plan.expanded:
            target = chunk_of.get(expansion.doc_id)
            score = params.expansion_weight * seed_scores[expansion.via] * expansion.confidence
            if target is not None and score > scores.get(target, 0.0):
                scores[target] = score
                via[target] = f"{expansion.via} {expansion.relation}"
        ranked = sorted(scores.items(), key=lambda pair: pair[1], reverse=True)
        return candidates.but(retrieval_plan=plan, ranked=ranked, expanded_via=via)

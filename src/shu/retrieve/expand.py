"""Stage 3, ADR-005: from the seed documents, one hop along *outgoing* typed relationships,
optionally only of some types. No recursion: a document reached by expansion is never expanded
itself. A seed ranked below the seed that points to it may be reached too (it then joins at
its source's share). Deterministic: seeds in rank order, each seed's relationships most
confident first; every document is reached once.
With no relationships the plan holds the seeds alone and retrieval is unchanged."""

from __future__ import annotations

from collections.abc import Callable

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

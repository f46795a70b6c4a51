"""A retrieval trace as a readable rich tree: plan, queries, each surface's hits with raw
scores, fusion, expansion, rerank scores and the assembled context."""

from __future__ import annotations

from rich.markup import escape
from rich.tree import Tree

from shu.types import RetrievalResult

_SHOWN = 5


def trace_tree(result: RetrievalResult) -> Tree:
    root = Tree(f"[bold]{escape(result.question)}[/] · persona {escape(result.persona)}")
    plan = result.plan
    node = root.add(f"plan ({escape(plan.method)}): [cyan]{plan.query_type}[/], answer {plan.answer_style}")
    for label, value in (
        ("entities", ", ".join(plan.entities)),
        ("dates", " – ".join(d for d in (plan.temporal_scope.start, plan.temporal_scope.end) if d)),
        ("title hints", ", ".join(plan.title_hints)),
        ("document type", plan.implied_document_type or ""),
    ):
        if value:
            node.add(f"{label}: {escape(value)}")
    queries = root.add(f"queries ({escape(result.queries.method)}): {escape(result.queries.rewritten)}")
    for variation in result.queries.variations:
        queries.add(f"variation: {escape(variation)}")
    if result.queries.hypothetical_answer:
        queries.add(f"hypothetical answer: {escape(result.queries.hypothetical_answer)}")
    surfaces = root.add("surfaces (raw scores)")
    for name, hits in result.surfaces.items():
        branch = surfaces.add(f"{name}: {len(hits)} hits")
        for hit in hits[:_SHOWN]:
            branch.add(f"{hit.score:.4f}  {escape(hit.chunk_id)}")
    fused = root.add("fused")
    for hit in result.fused[:_SHOWN]:
        fused.add(f"{hit.score:.4f}  {escape(hit.chunk_id)}")
    expansion = root.add(f"relationship plan: seeds {', '.join(result.retrieval_plan.seeds) or '—'}")
    for item in result.retrieval_plan.expanded:
        expansion.add(
            f"+ {escape(item.doc_id)} (via {escape(item.via)} {item.relation}, {item.confidence:.2f})"
        )
    if result.asker is not None:
        boosted = f"{len(result.personal)} documents boosted"
        personal = root.add(f"personal ranking for {escape(result.asker)}: {boosted}")
        for boost in result.personal:
            personal.add(f"{boost.boost:+.2f}  {escape(boost.doc_id)}: {escape('; '.join(boost.reasons))}")
        for match in result.resolved:
            personal.add(f"“{escape(match.phrase)}” means {escape(match.means)} ({match.kind})")
    results = root.add(f"results{f' (reranked by {escape(result.reranker)})' if result.reranker else ''}")
    for rank, ranked in enumerate(result.hits, start=1):
        extra = [f"rerank {ranked.rerank_score:.3f}"] if ranked.rerank_score is not None else []
        extra += ["tag boost"] if ranked.tag_boosted else []
        extra += [f"via {ranked.expanded_via}"] if ranked.expanded_via else []
        ranks = " ".join(f"{name}#{r}" for name, r in ranked.surfaces.items())
        results.add(
            f"{rank}. {ranked.score:.4f} {escape(ranked.citation_key)} [dim]{escape(ranks)}"
            f"{' · ' + escape(', '.join(extra)) if extra else ''}[/]"
        )
    context = result.context
    assembled = root.add(f"context: {context.mode}, {context.tokens}/{context.budget} tokens")
    for doc in context.documents:
        assembled.add(
            f"{escape(doc.title)} [{escape(doc.doc_id)}] {len(doc.sections)} sections"
            + (" (whole)" if doc.full else "")
        )
    for note in result.notes:
        root.add(f"[yellow]note[/]: {escape(note)}")
    root.add("timings ms: " + ", ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items()))
    return root

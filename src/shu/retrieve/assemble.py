"""Stage 5: the context the answer step reads. Hits are grouped by document (documents in score
order, chunks in reading order), overlapping chunk text is merged, each document gets a metadata
header, and everything fits a token budget. A document lookup returns the whole document; a
document whose summary surfaces rank it high while its chunks rank low is loaded whole too
(escalation), when the budget allows."""

from __future__ import annotations

from dataclasses import dataclass

from shu.store.base import Store
from shu.text import count_tokens
from shu.types import AssembledContext, Chunk, ContextDocument, ContextSection, Document, SearchHit

_MAX_OVERLAP_WORDS = 200


@dataclass(frozen=True)
class AssemblyRequest:
    hits: list[SearchHit]
    budget: int
    whole: list[str]
    """Documents to return whole, in order (lookups first, then escalations)."""
    mode: str = "chunks"
    escalated: tuple[str, ...] = ()


def assemble(store: Store, request: AssemblyRequest) -> AssembledContext:
    context = AssembledContext(budget=request.budget, mode=request.mode, escalated=list(request.escalated))  # type: ignore[arg-type]
    scores: dict[str, float] = {}
    grouped: dict[str, list[Chunk]] = {}
    for hit in request.hits:
        scores.setdefault(hit.chunk.doc_id, hit.score)
        grouped.setdefault(hit.chunk.doc_id, []).append(hit.chunk)
    order = list(dict.fromkeys([*request.whole, *grouped]))
    docs = store.get_documents(order)
    for doc_id in order:
        doc = docs.get(doc_id)
        if doc is None:
            continue
        whole = doc_id in request.whole
        chunks = store.list_chunks(doc_id) if whole else sorted(grouped[doc_id], key=lambda c: c.ord)
        entry = _document(doc, chunks, scores.get(doc_id, 0.0), whole)
        tokens = sum(count_tokens(s.text) for s in entry.sections)
        if context.tokens + tokens > request.budget and whole and doc_id in grouped:
            # a whole document that does not fit falls back to the chunks that were found
            entry = _document(doc, sorted(grouped[doc_id], key=lambda c: c.ord), entry.score, False)
            tokens = sum(count_tokens(s.text) for s in entry.sections)
        if context.tokens + tokens > request.budget:
            entry = _fit(entry, request.budget - context.tokens)
            tokens = sum(count_tokens(s.text) for s in entry.sections)
            if not entry.sections:
                continue
        context.documents.append(entry)
        context.tokens += tokens
    return context


def _document(doc: Document, chunks: list[Chunk], score: float, whole: bool) -> ContextDocument:
    sections: list[ContextSection] = []
    previous: Chunk | None = None
    for chunk in chunks:
        adjacent = previous is not None and chunk.ord == previous.ord + 1
        text = _without_overlap(previous.text, chunk.text) if adjacent and previous else chunk.text
        if sections and adjacent and sections[-1].section_path == chunk.section_path:
            sections[-1].text += "\n" + text
            sections[-1].chunk_ids.append(chunk.id)
        elif text.strip():
            sections.append(ContextSection(section_path=chunk.section_path, text=text, chunk_ids=[chunk.id]))
        previous = chunk
    return ContextDocument(
        doc_id=doc.id,
        title=doc.title,
        date=doc.date,
        source=doc.source_url or doc.path or None,
        score=score,
        full=whole,
        sections=sections,
    )


def _without_overlap(before: str, after: str) -> str:
    """`after` minus the words it repeats from the end of `before` (chunk overlap)."""
    tail, head = before.split(), after.split()
    for size in range(min(len(tail), len(head), _MAX_OVERLAP_WORDS), 0, -1):
        if tail[-size:] == head[:size]:
            return " ".join(head[size:])
    return after


def _fit(entry: ContextDocument, tokens_left: int) -> ContextDocument:
    """The sections that fit, in order; a document that does not fit whole is no longer whole."""
    kept: list[ContextSection] = []
    for section in entry.sections:
        cost = count_tokens(section.text)
        if cost > tokens_left:
            break
        kept.append(section)
        tokens_left -= cost
    return entry.model_copy(
        update={"sections": kept, "full": entry.full and len(kept) == len(entry.sections)}
    )

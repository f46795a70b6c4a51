"""Stage 5: the context the answer step reads. Hits are grouped by document (documents in score
order, chunks in reading order), overlapping chunk text is merged, each document gets a metadata
header, and everything fits a token budget. A document lookup returns the whole document; a
document whose summary surfaces rank it high while its chunks rank low is loaded whole too
(escalation), when the budget allows."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.config.settings import RetrievalSettings
from shu.fences import closed
from shu.retrieve.candidates import Surfaces
from shu.retrieve.compress import compressed
from shu.store.base import KnowledgeReader
from shu.text import count_tokens
from shu.types import (
    AssembledContext,
    Chunk,
    ContextDocument,
    ContextSection,
    Document,
    QueryPlan,
    SearchHit,
    knowledge_base_path,
)

_MAX_OVERLAP_WORDS = 200
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class AssemblyRequest:
    hits: list[SearchHit]
    budget: int
    lookup: str | None = None
    """The document a lookup asks for: first, whole (or as much of it as the budget holds)."""
    escalated: tuple[str, ...] = ()
    """Documents to load whole after the hits' documents, only where they fit whole."""
    question: str = ""
    """A section over the budget is summarised for it (`compress`), not cut at a word."""
    compress: bool = True


def assemble(store: KnowledgeReader, request: AssemblyRequest) -> AssembledContext:
    context = AssembledContext(
        budget=request.budget,
        mode="full_document" if request.lookup else "chunks",
        lookup=request.lookup,
        escalated=list(request.escalated),
    )
    scores: dict[str, float] = {}
    grouped: dict[str, list[Chunk]] = {}
    for hit in request.hits:
        scores.setdefault(hit.chunk.doc_id, hit.score)
        grouped.setdefault(hit.chunk.doc_id, []).append(hit.chunk)
    order = list(dict.fromkeys([*([request.lookup] if request.lookup else []), *grouped, *request.escalated]))
    docs = store.get_documents(order)
    for doc_id in order:
        doc = docs.get(doc_id)
        if doc is None:
            continue
        entry = _entry(store, doc, grouped.get(doc_id, []), scores.get(doc_id, 0.0), request, context)
        if entry is not None and entry.sections:
            context.documents.append(entry)
            context.tokens += _tokens(entry)
    if request.lookup and not any(d.doc_id == request.lookup for d in context.documents):
        context.lookup, context.mode = None, "chunks"
    context.number_parts()  # two chunks of one section that are apart: a key each
    return context


def _entry(
    store: KnowledgeReader,
    doc: Document,
    found: list[Chunk],
    score: float,
    request: AssemblyRequest,
    context: AssembledContext,
) -> ContextDocument | None:
    """One document for the context: whole when asked for and it fits, else the chunks that
    were found; a lookup that does not fit is cut to the budget, an escalation is left out."""
    left = request.budget - context.tokens
    found = sorted(found, key=lambda c: c.ord)
    if doc.id == request.lookup or doc.id in request.escalated:
        whole = _document(doc, store.list_chunks(doc.id), score, True)
        if _tokens(whole) <= left:
            return whole
        if doc.id == request.lookup and not found:
            return _fit(whole, left, request)
    if not found:
        return None
    entry = _document(doc, found, score, False)
    return entry if _tokens(entry) <= left else _fit(entry, left, request)


def _tokens(entry: ContextDocument) -> int:
    return sum(count_tokens(s.text) for s in entry.sections)


def _document(doc: Document, chunks: list[Chunk], score: float, whole: bool) -> ContextDocument:
    sections: list[ContextSection] = []
    previous: Chunk | None = None
    for chunk in chunks:
        adjacent = previous is not None and chunk.ord == previous.ord + 1
        same = adjacent and previous is not None and previous.section_path == chunk.section_path
        text = _without_overlap(previous.text, chunk.text, same) if adjacent and previous else chunk.text
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
        source=doc.source_url or knowledge_base_path(doc.path),  # never a path of the machine
        path=knowledge_base_path(doc.path),
        license=doc.license,
        score=score,
        full=whole,
        sections=sections,
    )


def _without_overlap(before: str, after: str, same_section: bool = True) -> str:
    """`after` minus the words it repeats from the end of `before` (chunk overlap), the rest as
    written: a code block keeps its lines. An overlap is two words or more, one of them a word
    ("|" alone is not); a table's next chunk in the same section goes on without the header and
    rows already shown (a section of its own keeps its header: "Rows 5–8" of a sheet)."""
    after = _without_shown_rows(before, after) if same_section else after
    tail = before.split()
    words = list(_WORD.finditer(after))
    head = [w.group(0) for w in words]
    for size in range(min(len(tail), len(head), _MAX_OVERLAP_WORDS), 1, -1):
        if tail[-size:] == head[:size] and any(any(c.isalnum() for c in w) for w in head[:size]):
            return after[words[size - 1].end() :].strip()
    return after


def _without_shown_rows(before: str, after: str) -> str:
    """`after` without a table header it repeats from `before` and the rows after it that
    `before` already has (the chunker starts a table's next chunk with its header and overlap)."""
    shown = {line.strip() for line in before.split("\n") if line.strip().startswith("|")}
    lines = after.split("\n")
    if len(lines) < 2 or lines[0].strip() not in shown or not _TABLE_RULE.match(lines[1].strip()):
        return after
    start = 2
    while start < len(lines) and lines[start].strip().startswith("|") and lines[start].strip() in shown:
        start += 1
    return "\n".join(lines[start:]).strip()


def _fit(entry: ContextDocument, tokens_left: int, request: AssemblyRequest) -> ContextDocument:
    """The sections that fit, in order, the next one summarised for the question (else cut at a
    word boundary); a document cut short is no longer whole."""
    kept: list[ContextSection] = []
    for section in entry.sections:
        cost = count_tokens(section.text)
        if cost > tokens_left:
            summary = compressed(section.text, tokens_left, request.question) if request.compress else None
            cut = summary or _cut(section.text, tokens_left)
            if cut:
                kept.append(section.model_copy(update={"text": cut}))
            break
        kept.append(section)
        tokens_left -= cost
    return entry.model_copy(update={"sections": kept, "full": entry.full and kept == entry.sections})


def _cut(text: str, tokens: int) -> str:
    """The words of `text` that fit `tokens`, as written (a code block keeps its lines), a code
    block cut short closed."""
    end, used = 0, 0
    for word in _WORD.finditer(text):
        used += count_tokens(word.group(0))
        if used > tokens:
            break
        end = word.end()
    cut = closed(text[:end])
    if cut != text[:end] and count_tokens(cut) > tokens:
        return _cut(text[:end], tokens - (count_tokens(cut) - count_tokens(text[:end])))
    return cut


_ESCALATE_TOP = 3
"""How many of the question and synopsis surfaces' best documents may be escalated to whole."""
_ESCALATE_CHUNK_RANK = 5
"""A document already among this many best chunks is not escalated."""


def assembly_request(
    store: KnowledgeReader,
    settings: RetrievalSettings,
    plan: QueryPlan,
    found: Surfaces,
    hits: list[SearchHit],
    notes: list[str],
    question: str = "",
) -> AssemblyRequest:
    """What to assemble: the hits, and the documents to give whole — the one a lookup names
    (`full_document`), and those the question or synopsis surface found but the chunks missed
    (`escalate`)."""
    whole: list[str] = []
    owners = store.chunk_documents(
        [
            s.chunk_id
            for name in ("titles", "questions", "synopsis")
            for s in found.get(name, [])[:_ESCALATE_TOP]
        ]
    )
    if settings.full_document and plan.answer_style == "full_document" and found.get("titles"):
        target = owners.get(found["titles"][0].chunk_id)
        if target:
            whole.append(target)
            notes.append(f"document lookup: {target} returned whole")
    escalated: list[str] = []
    if settings.escalate:
        top_chunks = {h.chunk.doc_id for h in hits[:_ESCALATE_CHUNK_RANK]}
        for name in ("questions", "synopsis"):
            for scored in found.get(name, [])[:_ESCALATE_TOP]:
                doc_id = owners.get(scored.chunk_id)
                if doc_id and doc_id not in top_chunks and doc_id not in whole and doc_id not in escalated:
                    escalated.append(doc_id)
        if escalated:
            notes.append(f"escalated to whole documents: {', '.join(escalated)}")
    return AssemblyRequest(
        hits=hits,
        budget=settings.context_tokens,
        lookup=whole[0] if whole else None,
        escalated=tuple(escalated),
        question=question,
        compress=settings.compress,
    )

"""What a small model reads when it writes from the extractive reader's evidence
(`answer.model_context = "evidence"`, the default for a local model): not the best few sections
whole, but the sentences the reader chose to answer with — its yes/no verdict, the rows and list
items it picked, the sentence under the heading that answers the kind asked — one passage per
section they come from, in the order the reader cited them. The passages are short (a faster first
token on a CPU), and the model's work is to say it plainly, or to decline when they do not answer.
"""

from __future__ import annotations

from shu.types import Answer, AssembledContext, Citation, ContextDocument, ContextSection


def evidence_context(answer: Answer, context: AssembledContext) -> AssembledContext:
    """The reader's sentences as a context: a section per key they cite (its sentences joined,
    in the reader's order), documents in the order first cited. A section the reader read from
    the store (retrieval missed it) keeps its citation's document details."""
    by_key: dict[str, list[str]] = {}
    for sentence in answer.sentences:
        key = sentence.citation
        if key and sentence.text.strip():
            by_key.setdefault(key, []).append(sentence.text.strip())
    if not by_key:
        return AssembledContext(budget=context.budget)
    cited = {c.key: c for c in answer.citations}
    known = {s.citation_key: (d, s) for d in context.documents for s in d.sections if s.chunk_ids}
    documents: dict[str, ContextDocument] = {}
    for key, texts in by_key.items():
        found = known.get(key)
        citation = cited.get(key)
        if found is not None:
            original, section = found
            path, chunk_ids = section.section_path, section.chunk_ids
        elif citation is not None:
            original, path, chunk_ids = _document(citation), citation.section_path, [citation.chunk_id]
        else:
            continue
        document = documents.setdefault(
            original.doc_id, original.model_copy(update={"sections": [], "full": False})
        )
        document.sections.append(ContextSection(section_path=path, text=" ".join(texts), chunk_ids=chunk_ids))
    return AssembledContext(documents=list(documents.values()), budget=context.budget)


def _document(citation: Citation) -> ContextDocument:
    return ContextDocument(
        doc_id=citation.doc_id,
        title=citation.title,
        date=citation.date,
        source=citation.source_url,
        path=citation.path,
        score=0.0,
    )

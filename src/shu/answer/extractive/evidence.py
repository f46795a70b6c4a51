"""What a small model reads when it writes from the extractive reader's evidence
(`answer.model_context = "evidence"`, the default for a local model): not the best few sections
whole, but the sentences the reader chose to answer with — its yes/no verdict, the rows and list
items it picked, the sentence under the heading that answers the kind asked — one passage per
section they come from, in the order the reader cited them. The passages are short (a faster first
token on a CPU), and the model's work is to say it plainly, or to decline when they do not answer.
"""

from __future__ import annotations

import re

from shu.answer.extractive.reading import read_question
from shu.relative_dates import RESOLVED
from shu.types import Answer, AssembledContext, Citation, ContextDocument, ContextSection

_VERDICT = re.compile(r"^(?:Yes|No)\b[:,]")
_LAID_OUT = re.compile(r"\n\s*(?:[-*+] |\|)")


def evidence_context(answer: Answer, context: AssembledContext) -> AssembledContext:
    """The reader's sentences as a context: a section per key they cite (its sentences joined,
    in the reader's order, a line each), documents in the order first cited. A section the reader read from
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
        text = "\n".join(texts)  # a line each: an attendee or a row is not run into the next
        if found is not None:  # its key as the context gave it (`(part 2)` and all)
            original, section = found
            section = section.model_copy(update={"text": text, "chunk_ids": list(section.chunk_ids)})
        elif citation is not None:
            original = _document(citation)
            section = ContextSection(
                section_path=citation.section_path, text=text, chunk_ids=[citation.chunk_id]
            )
        else:
            continue
        document = documents.setdefault(
            original.doc_id, original.model_copy(update={"sections": [], "full": False})
        )
        document.sections.append(section)
    return AssembledContext(documents=list(documents.values()), budget=context.budget)


def _document(citation: Citation) -> ContextDocument:
    return ContextDocument(
        doc_id=citation.doc_id,
        title=citation.title,
        date=citation.date,
        source=citation.source_url,
        path=citation.path,
        license=citation.license,
        score=0.0,
    )


def reader_decided(question: str, answer: Answer) -> bool:
    """Whether the reader's answer is a decision it computed rather than sentences it chose: a
    yes/no verdict (from a threshold, a negation, a row), a comparison, a list or table laid out
    item by item, every one of several facts asked for (what was decided, who attends). A small
    model rewriting one loses items or flips the verdict (measured on the labelled dev half with
    Qwen2.5-Coder-1.5B: lists 10 -> 7 right, yes/no 8 -> 6, comparisons 6 -> 4; "what was decided
    at the 20 May meeting" became a decision no document states), so it is shown as written. So
    is a when answer whose date the reader read from a relative one ("last Friday (the Friday
    before 15 July 2023)"): the model dropped those dates (LoCoMo, first 60: 0.350 -> 0.183)."""
    if answer.insufficient or not answer.sentences:
        return False
    reading = read_question(question)
    kind = reading.kind
    return bool(
        _VERDICT.match(answer.text)
        or reading.sides is not None
        or (kind is not None and (kind.kind == "list" or reading.every))
        or _LAID_OUT.search(answer.text)
        or (kind is not None and kind.kind == "when" and RESOLVED.search(answer.text) is not None)
    )

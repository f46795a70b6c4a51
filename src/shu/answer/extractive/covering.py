"""Which documents cover something ("which documents mention rats", "where can I read about the
drip irrigation pilot"): answered with the documents, one line each, not with three sentences.

A document covers the subject when it holds most of the subject's words, each weighted by how
few documents hold it (a filter over the documents' own text, not similarity: a document that
mentions the subject is listed whatever its rank). The documents read are those retrieval ranked
and those keyword search finds for the subject; each line gives the title, what the document is
(type, day, who wrote to whom) and the sentence that mentions the subject, cited."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from shu.analysis import content_words
from shu.answer.extractive.library import Library, context_document, described, section_of, stems
from shu.answer.extractive.sentences import candidate_sentences
from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, Chunk, Document, Persona, RetrievalResult

_WHAT = (
    r"(?:docs?|documents?|files?|pages?|notes|sources|records|guides?|emails?|e-mails?|messages?|reports?)"
)
_WHICH = re.compile(
    rf"^(?:which|what)\s+(?:of (?:the|our|my) )?{_WHAT}\s+(?:do|does|did)?\s*"
    r"(?:mentions?|covers?|deals? with|talks? about|discuss(?:es)?|describes?|refers? to"
    r"|says? (?:anything )?about|(?:have|has) (?:anything )?(?:on|about)|(?:is|are) about|touch(?:es)? on)"
    r"\s+(?P<subject>.+?)[?.!]*$",
    re.I,
)
_WHERE = re.compile(
    r"^where\s+(?:can|could|do|should|would|might)\s+(?:i|we|you|one)\s+(?:read|find|look|learn|get|see)\s+"
    r"(?:up\s+)?(?:more\s+)?(?:(?:information|info|advice|anything|something|details|guidance|documentation|"
    r"material|more)\s+)?(?:about|on|regarding|for|of|into)\s+(?P<subject>.+?)[?.!]*$",
    re.I,
)
_DOCUMENTED = re.compile(
    r"^where\s+(?:is|are)\s+(?P<subject>.+?)\s+"
    r"(?:documented|described|written (?:down|up)|covered|explained)[?.!]*$",
    re.I,
)
_ANY = re.compile(
    rf"^(?:is there|are there|do (?:we|you) have)\s+(?:a|an|any)\s+(?:{_WHAT}|anything|something)\s+"
    r"(?:on|about|covering|that (?:mentions?|covers?))\s+(?P<subject>.+?)[?.!]*$",
    re.I,
)
_LEADING = re.compile(r"^(?:(?:the|our|my|a|an|any)\s+|[a-z]+ing\s+(?=\w))", re.I)
"""An article, or the verb of the asking ("mention getting alerts in Teams" asks about alerts)."""

MIN_COVERAGE = 0.6
"""The share of the subject's (weighted) words a document must hold to be listed."""
MAX_DOCUMENTS = 10
_SEARCHED = 100
"""Chunks keyword search brings for the subject (their documents are read, besides retrieval's)."""
_READ = 40
"""Documents read at most."""


def asks_which_documents(question: str) -> str | None:
    """The subject of a question that asks which documents cover it, else None."""
    text = " ".join(question.split())
    for pattern in (_WHICH, _WHERE, _DOCUMENTED, _ANY):
        match = pattern.match(text)
        if match:
            subject = _LEADING.sub("", match.group("subject").strip())
            return subject or None
    return None


@dataclass(frozen=True)
class Covering:
    document: Document
    coverage: float
    chunk: Chunk
    sentence: str


def covering_documents(subject: str, persona: str, ranked: list[str], library: Library) -> list[Covering]:
    """The documents that hold most of `subject`'s words, most covered first (then by `ranked`,
    retrieval's order), each with its sentence that holds most of them."""
    wanted = list(dict.fromkeys(stems(" ".join(content_words(subject)))))
    if not wanted:
        return []
    found = library.search_keyword(subject, persona, _SEARCHED)
    by_chunk = library.chunk_documents([s.chunk_id for s in found])
    read = list(dict.fromkeys([*ranked, *(by_chunk[s.chunk_id] for s in found if s.chunk_id in by_chunk)]))
    read = read[:_READ]
    documents = library.get_documents(read)
    chunks = {doc_id: library.list_chunks(doc_id) for doc_id in read if doc_id in documents}
    held = {
        doc_id: stems(" ".join([documents[doc_id].title, *(c.text for c in listed)]))
        for doc_id, listed in chunks.items()
    }
    total_documents = max(len(library.list_documents(persona)), len(held), 1)
    weight = {}
    for word in wanted:
        holding = sum(word in words for words in held.values())
        if holding:
            weight[word] = math.log(1 + total_documents / holding)
    whole = sum(weight.values())
    if not whole:
        return []
    order = {doc_id: rank for rank, doc_id in enumerate(ranked)}
    covering = []
    for doc_id, words in held.items():
        coverage = sum(w for word, w in weight.items() if word in words) / whole
        if coverage >= MIN_COVERAGE and chunks[doc_id]:
            chunk, sentence = _mentioning(chunks[doc_id], weight)
            covering.append(Covering(documents[doc_id], round(coverage, 4), chunk, sentence))
    covering.sort(key=lambda c: (-c.coverage, order.get(c.document.id, len(order))))
    return covering[:MAX_DOCUMENTS]


def _mentioning(chunks: list[Chunk], weight: dict[str, float]) -> tuple[Chunk, str]:
    """The document's sentence holding most of the subject's words (the first such), and its chunk."""
    best: tuple[float, Chunk, str] | None = None
    for chunk in chunks:
        for sentence in candidate_sentences(chunk.text):
            held = stems(sentence)
            score = sum(w for word, w in weight.items() if word in held)
            if best is None or score > best[0]:
                best = (score, chunk, sentence)
    if best is None:
        return chunks[0], chunks[0].text.strip()[:300]
    return best[1], best[2]


def covering_answer(
    result: RetrievalResult, persona: Persona, subject: str, covering: list[Covering], library: Library
) -> Answer:
    """One line a document: its title, what it is, and its sentence about the subject, cited."""
    profiles = library.get_profiles([c.document.id for c in covering])
    sentences, citations = [], []
    for found in covering:
        section = section_of(found.chunk)
        document = context_document(found.document, found.coverage, [section])
        about = described(found.document, profiles.get(found.document.id))
        line = f"**{quoted(found.document.title)}**" + (f" ({quoted(about)})" if about else "")
        sentences.append(
            AnswerSentence(text=f"{line}: {quoted(found.sentence)}", citations=[section.citation_key])
        )
        citations.append(document.citation(section))
    count = "One document covers" if len(covering) == 1 else f"{len(covering)} documents cover"
    head = AnswerSentence(text=f"{count} {quoted(subject)}:")
    text = "\n".join([head.text, *(f"- {s.text} {s.citation}" for s in sentences)])
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=text,
        method="extractive",
        sentences=[head, *sentences],
        citations=citations,
        hits=result.hits,
    )

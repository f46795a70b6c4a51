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
from shu.answer.quote import quoted_line
from shu.months import MONTH_NAMES
from shu.types import Answer, AnswerSentence, Chunk, Document, Persona, RetrievalResult

_NOT_SUBJECT = frozenset({"mani", "much", "t", "s", "d", "ll", "ve", "re", "m"})
"""Words of a subject clause that name nothing: "how many", what is left of "can't", "it's"."""
_NAME = re.compile(r"\b[A-Z]\w+")
_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday"
_NOT_NAMES = frozenset(stems(" ".join([*MONTH_NAMES, _DAYS])))
"""A name in a subject is a word written with a capital, not a month or a day."""
MIN_COVERAGE = 0.5
"""The share of the subject's (weighted) words a document must hold to be listed."""
MAX_DOCUMENTS = 10
_SEARCHED = 100
"""Chunks keyword search brings for the subject (their documents are read, besides retrieval's)."""
_READ = 200
"""Documents read at most: every document of a persona that has no more, else retrieval's and
keyword search's first."""


@dataclass(frozen=True)
class Covering:
    document: Document
    coverage: float
    chunk: Chunk
    sentence: str


def covering_documents(
    subject: str,
    persona: str,
    ranked: list[str],
    library: Library,
    limit: int | None = MAX_DOCUMENTS,
    within: tuple[str, str] | None = None,
    types: frozenset[str] | None = None,
    described: str = "",
    kept: frozenset[str] | None = None,
) -> list[Covering]:
    """The documents that hold most of `subject`'s words (in their text, title or metadata: an
    author, a publisher), or most of `described`'s (the subject with the words describing it:
    "the break-glass login that lets an Owner bypass SSO"), most covered first (then by `ranked`,
    retrieval's order), each with its sentence that holds most of them; `within` (ISO prefixes,
    first and last): only documents dated then; `types`: only documents of those types, when the
    persona has any ("emails" in a knowledge base that types none is every document). An empty
    subject is covered by every document (of the dates and types asked). `kept`: a filter's
    documents, the only ones listed or counted."""
    every = library.list_documents(persona)
    if kept is not None:
        every = [d for d in every if d.id in kept]
        ranked = [doc_id for doc_id in ranked if doc_id in kept]
    if types is not None and any(d.type in types for d in every):
        every = [d for d in every if d.type in types]
    if len(every) <= _READ:
        read = [d.id for d in every]
    else:
        found = library.search_keyword(subject, persona, _SEARCHED, within=kept) if subject else []
        by_chunk = library.chunk_documents([s.chunk_id for s in found])
        searched = (by_chunk[s.chunk_id] for s in found if s.chunk_id in by_chunk)
        read = list(dict.fromkeys([*ranked, *searched]))[:_READ]
    documents = library.get_documents(read)
    kinds = {d.type for d in every}
    documents = {k: d for k, d in documents.items() if types is None or d.type in kinds}
    if within is not None:
        documents = {k: d for k, d in documents.items() if _dated_within(d.date, within)}
    chunks = {doc_id: library.list_chunks(doc_id) for doc_id in read if doc_id in documents}
    held = {doc_id: stems(_held_text(documents[doc_id], listed)) for doc_id, listed in chunks.items()}
    asked = [text for text in dict.fromkeys([subject, described]) if text.strip()]
    weighings = [w for w in (_weighing(text, held, len(every)) for text in asked) if w is not None]
    if subject.strip() and not weighings:
        return []
    order = {doc_id: rank for rank, doc_id in enumerate(ranked)}
    covering = []
    for doc_id, words in held.items():
        scored = [(weighing.coverage(words), weighing.weight) for weighing in weighings]
        coverage, weight = max(scored, key=lambda pair: pair[0]) if scored else (1.0, {})
        if coverage >= MIN_COVERAGE and chunks[doc_id]:
            chunk, sentence = _mentioning(chunks[doc_id], weight)
            covering.append(Covering(documents[doc_id], round(coverage, 4), chunk, sentence))
    covering.sort(key=lambda c: (-c.coverage, order.get(c.document.id, len(order)), c.document.date or ""))
    return covering if limit is None else covering[:limit]


@dataclass(frozen=True)
class Weighing:
    """What a subject asks of a document: its words, each weighted by how few documents hold it,
    and its names (a word written with a capital: "Sam Eggleston", "SCIM"), which a document
    must hold to cover it."""

    weight: dict[str, float]
    names: frozenset[str]

    def coverage(self, words: set[str]) -> float:
        """The share of the weight the document's words hold; 0 without one of the names."""
        if not self.names <= words:
            return 0.0
        whole = sum(self.weight.values())
        return sum(w for word, w in self.weight.items() if word in words) / whole if whole else 1.0


def _weighing(subject: str, held: dict[str, set[str]], documents: int) -> Weighing | None:
    """The subject's words that a document holds, weighted; None when the words no document holds
    are the asker's and what is left every document holds — nothing tells the documents apart."""
    wanted = [w for w in dict.fromkeys(stems(" ".join(content_words(subject)))) if w not in _NOT_SUBJECT]
    weight = {}
    for word in wanted:
        holding = sum(word in words for words in held.values())
        if holding:  # a word no document holds is the asker's, not the documents' ("the switch to")
            weight[word] = math.log(1 + max(documents, 1) / holding)
    everywhere = math.log(1 + max(documents, 1) / max(len(held), 1))
    told_apart = any(not math.isclose(w, everywhere) for w in weight.values())
    if not weight or (len(weight) < len(wanted) and not told_apart):
        return None
    names = frozenset(stems(" ".join(_NAME.findall(subject)))) & weight.keys() - _NOT_NAMES
    return Weighing(weight, names)


def _held_text(document: Document, chunks: list[Chunk]) -> str:
    """What a document holds: its title, its metadata's names, its text."""
    named = [str(document.meta.get(k) or "") for k in ("author", "publisher")]
    people = document.meta.get("participants")
    if isinstance(people, list):
        named += [str(p) for p in people]
    return " ".join([document.title, *named, *(c.text for c in chunks)])


def _dated_within(day: str | None, within: tuple[str, str]) -> bool:
    """A document dated inside the span (a prefix comparison: 2023-06 holds 2023-06-14)."""
    if not day:
        return False
    start, end = within
    return day[: len(start)] >= start and day[: len(end)] <= end


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
    result: RetrievalResult,
    persona: Persona,
    subject: str,
    covering: list[Covering],
    library: Library,
    head: str | None = None,
) -> Answer:
    """One line a document: its title, what it is, and its sentence about the subject, cited;
    under `head` (default: how many documents mention the subject — hold its words: whether they
    say yes or no to it is in the lines)."""
    profiles = library.get_profiles([c.document.id for c in covering])
    sentences, citations = [], []
    for found in covering:
        section = section_of(found.chunk)
        document = context_document(found.document, found.coverage, [section])
        about = described(found.document, profiles.get(found.document.id))
        line = f"**{quoted_line(found.document.title)}**" + (f" ({quoted_line(about)})" if about else "")
        sentences.append(
            AnswerSentence(text=f"{line}: {quoted_line(found.sentence)}", citations=[section.citation_key])
        )
        citations.append(document.citation(section))
    count = "One document mentions" if len(covering) == 1 else f"{len(covering)} documents mention"
    lead = AnswerSentence(text=head or f"{count} {quoted_line(subject)}:")
    text = "\n".join([lead.text, *(f"- {s.text} {s.citation}" for s in sentences)])
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=text,
        method="collection",
        sentences=[lead, *sentences],
        citations=citations,
        hits=result.hits,
    )

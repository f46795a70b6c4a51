"""A question about one document as a whole: what it covers ("what topics does the volunteer
handbook cover", "what was on the agenda of the April meeting") is answered with its headings;
a summary ("give me a rundown of the April meeting", "the spring newsletter in a nutshell") with
each of its sections' heading and the section's sentence closest to what is asked, each cited.

The document is the one whose title holds most of the words naming it, among those retrieval
ranked (the first, when no title shares a word)."""

from __future__ import annotations

import re

from shu.analysis import content_words
from shu.answer.extractive.library import Library, context_document, section_of, stems
from shu.answer.extractive.sentences import candidate_sentences
from shu.answer.quote import quoted_line
from shu.types import (
    Answer,
    AnswerSentence,
    Chunk,
    Citation,
    ContextSection,
    Document,
    Persona,
    RetrievalResult,
)

_OUTLINE = re.compile(
    r"^what\s+(?:topics|subjects|sections|areas|things|points)\s+(?:does|do|did)\s+(?P<doc>.+?)\s+"
    r"(?:cover|include|contain|deal with|go through|have)[?.!]*$"
    r"|^what\s+(?:topics|subjects|sections|items|points)\s+(?:are|were|is)\s+(?:covered\s+)?(?:in|on)\s+"
    r"(?:the\s+agenda\s+(?:of|for)\s+)?(?P<doc2>.+?)[?.!]*$"
    r"|^what\s+(?:does|do|did)\s+(?P<doc3>.+?)\s+cover[?.!]*$"
    r"|^what(?:'s| is| was)\s+covered\s+(?:in|by)\s+(?P<doc4>.+?)[?.!]*$",
    re.I,
)
_SUMMARY = re.compile(
    r"^(?:(?:please|can you|could you)\s+)*(?:summari[sz]e|recap|sum up)\s+(?P<doc>.+?)[?.!]*$"
    r"|\b(?:summary|rundown|overview|recap|gist|key points)\s+of\s+(?:what\s+)?(?P<doc2>.+?)[?.!]*$"
    r"|^what(?:'s| is| was)\s+in\s+(?P<doc3>.+?),?\s+in a nutshell[?.!]*$"
    r"|^what\s+came\s+out\s+of\s+(?P<doc4>.+?)[?.!]*$",
    re.I,
)
_NAMING = re.compile(
    r"\b(?:the whole|whole|entire|the|our|my|this|that|decided|said|covered|was|were|in a nutshell)\b", re.I
)
_OUTCOME = re.compile(
    r"\b(?:agreed|decided|decision|approved|resolved|carried|adopted|rejected|chose|chosen|concluded|"
    r"outcome|result(?:ed|s)?|found|will|action)\b",
    re.I,
)
"""What a section came to (a decision, a finding, what will happen): a summary quotes it first."""
MAX_HEADINGS = 20


def asks_for_outline(question: str) -> str | None:
    """The words naming the document whose topics are asked for, else None."""
    return _named(_OUTLINE, question)


def asks_for_summary(question: str) -> str | None:
    """The words naming the document a summary is asked of, else None."""
    return _named(_SUMMARY, question)


def _named(pattern: re.Pattern[str], question: str) -> str | None:
    match = pattern.search(" ".join(question.split()))
    if match is None:
        return None
    named = next(value for value in match.groups() if value)
    return " ".join(_NAMING.sub(" ", named).split()) or None


def named_document(named: str, ranked: list[str], library: Library) -> Document | None:
    """Of the documents retrieval ranked, the one whose title holds most of `named`'s words
    (the better ranked on a tie); the first ranked when no title holds one."""
    documents = library.get_documents(ranked[:10])
    wanted = stems(" ".join(content_words(named)))
    best: tuple[int, Document] | None = None
    for doc_id in ranked[:10]:
        document = documents.get(doc_id)
        if document is None:
            continue
        shared = len(wanted & stems(document.title))
        if best is None or shared > best[0]:
            best = (shared, document)
    return best[1] if best else None


def headings(chunks: list[Chunk]) -> list[tuple[str, list[Chunk]]]:
    """A document's top headings in reading order, each with its chunks: the level under the
    document's own title when every path starts with it."""
    paths = [[p.strip() for p in c.section_path.split(">")] for c in chunks]
    root = paths[0][0] if paths and paths[0] else ""
    depth = 1 if root and all(p[0] == root for p in paths) else 0
    found: dict[str, list[Chunk]] = {}
    for path, chunk in zip(paths, chunks, strict=True):
        if len(path) > depth:
            found.setdefault(path[depth], []).append(chunk)
    return list(found.items())[:MAX_HEADINGS]


def outline_answer(
    result: RetrievalResult, persona: Persona, document: Document, library: Library
) -> Answer | None:
    """The document's headings, each cited to its first section; None when it has fewer than two."""
    found = headings(library.list_chunks(document.id))
    if len(found) < 2:
        return None
    sentences, citations = [], []
    for heading, chunks in found:
        section = section_of(chunks[0])
        sentences.append(AnswerSentence(text=quoted_line(heading), citations=[section.citation_key]))
        citations.append(_citation(document, section))
    head = f"**{quoted_line(document.title)}** covers:"
    return _answer(result, persona, head, sentences, citations, "collection")


def summary_answer(
    result: RetrievalResult, persona: Persona, document: Document, library: Library, asked: str
) -> Answer | None:
    """Each top section of the document: its heading and its sentence sharing most words with
    what is asked, a sentence saying what the section came to first (the first on a tie),
    cited; None when it has fewer than two sections."""
    found = headings(library.list_chunks(document.id))
    if len(found) < 2:
        return None
    wanted = stems(" ".join(content_words(asked)))
    sentences, citations = [], []
    for heading, chunks in found:
        if heading == document.title:
            continue  # the document's own heading: what stands under it is not a section of it
        best: tuple[int, Chunk, str] | None = None
        for chunk in chunks:
            for sentence in candidate_sentences(chunk.text):
                shared = len(wanted & stems(sentence)) + 2 * bool(_OUTCOME.search(sentence))
                if best is None or shared > best[0]:
                    best = (shared, chunk, sentence)
        if best is None:
            continue
        section = section_of(best[1])
        text = f"**{quoted_line(heading)}**: {quoted_line(best[2])}"
        sentences.append(AnswerSentence(text=text, citations=[section.citation_key]))
        citations.append(_citation(document, section))
    head = f"**{quoted_line(document.title)}**, section by section:"
    return _answer(result, persona, head, sentences, citations, "summary")


def _citation(document: Document, section: ContextSection) -> Citation:
    return context_document(document, 1.0, [section]).citation(section)


def _answer(
    result: RetrievalResult,
    persona: Persona,
    head: str,
    sentences: list[AnswerSentence],
    citations: list[Citation],
    method: str,
) -> Answer:
    text = "\n".join([head, *(f"- {s.text} {s.citation}" for s in sentences)])
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=text,
        method=method,
        sentences=[AnswerSentence(text=head), *sentences],
        citations=citations,
        hits=result.hits,
    )

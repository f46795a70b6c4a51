"""A document lookup ("show me my biography") is answered with the document itself, each
section cited, in reading order."""

from __future__ import annotations

from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, Citation, ContextDocument


def document_answer(question: str, persona: str, document: ContextDocument) -> Answer:
    sentences = [
        AnswerSentence(text=quoted(f"{s.section_path}\n{s.text}"), citations=[s.citation_key])
        for s in document.sections
    ]
    citations = [
        Citation(
            key=s.citation_key,
            doc_id=document.doc_id,
            section_path=s.section_path,
            chunk_id=s.chunk_ids[0],
            title=document.title,
            source_url=document.source,
            date=document.date,
            path=document.path,
        )
        for s in document.sections
    ]
    return Answer(
        question=question,
        persona=persona,
        text="\n\n".join(f"{s.text} {s.citation}" for s in sentences),
        method="full_document",
        sentences=sentences,
        citations=citations,
    )

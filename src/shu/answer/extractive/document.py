"""A document lookup ("show me my biography") is answered with the document itself, each
section cited, in reading order."""

from __future__ import annotations

from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, ContextDocument


def document_answer(question: str, persona: str, document: ContextDocument) -> Answer:
    sentences = [
        AnswerSentence(text=quoted(f"{s.section_path}\n{s.text}"), citations=[s.citation_key])
        for s in document.sections
    ]
    citations = [document.citation(s) for s in document.sections]
    return Answer(
        question=question,
        persona=persona,
        text="\n\n".join(f"{s.text} {s.citation}" for s in sentences),
        method="full_document",
        sentences=sentences,
        citations=citations,
    )

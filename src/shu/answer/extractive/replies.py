"""The extractive reader's answer records: quoted sentences with their citations, a sentence
dated by its document when its own dates are relative, and the decline that says what is
missing."""

from __future__ import annotations

import re
from datetime import date

from shu.answer.extractive.asked import Asked
from shu.answer.extractive.candidate import Candidate
from shu.relative_dates import day_text, has_relative_date, states_a_time, with_dates
from shu.types import Answer, AnswerSentence, Citation, Persona, RetrievalResult, SearchHit


def quoted_answer(
    result: RetrievalResult,
    persona: Persona,
    text: str,
    sentences: list[AnswerSentence],
    citations: list[Citation],
    evidence: float,
) -> Answer:
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=text,
        method="extractive",
        sentences=sentences,
        citations=citations,
        hits=result.hits,
        evidence=evidence,
    )


def dated(candidate: Candidate, by_document: bool) -> str:
    """The sentence with its relative dates read against its document's date ("yesterday
    (7 May 2023)"), without which the reader cannot know the day it means; `by_document` (asked
    when something happened), a sentence that says no time at all ("My store is open!") is dated
    by its document."""
    try:
        written = date.fromisoformat((candidate.document.date or "")[:10])
    except ValueError:
        return candidate.text
    if has_relative_date(candidate.text):
        return with_dates(candidate.text, written)
    if by_document and not states_a_time(candidate.text):
        return f"{candidate.text} (written {day_text(written)})"
    return candidate.text


_AHEAD = re.compile(r"\b(?:will|going to|plann?\w*|scheduled|due|next|upcoming|expected)\b", re.I)


def asks_when_it_happened(question: str, kind: Asked | None) -> bool:
    """A when question about the past: the day a message says something happened is the day it
    was written; "when will the migration finish" is not answered by the day of the plan."""
    return kind is not None and kind.kind == "when" and not _AHEAD.search(question)


def insufficient(
    question: str,
    persona: Persona,
    hits: list[SearchHit],
    wanted: str | None = None,
    live: bool = False,
    attribute: str | None = None,
) -> Answer:
    if attribute:
        missing = (
            f"{persona.display_name}'s documents found for this question do not state {attribute} for it. "
        )
    elif wanted:
        missing = f"{persona.display_name}'s knowledge base has no document that matches “{wanted}”. "
    elif live:
        missing = (
            f"This asks for today's information (a forecast, a live figure), and none of "
            f"{persona.display_name}'s documents is dated today or later. "
        )
    else:
        missing = f"{persona.display_name}'s knowledge base has nothing that answers this question. "
    return Answer(
        question=question,
        persona=persona.slug,
        text=missing + "Add a document that covers it and ingest again.",
        method="extractive",
        hits=hits,
        insufficient=True,
    )

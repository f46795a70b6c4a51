"""The question, read once for the reader: what kind of answer it asks for, whether it is a yes/no,
the two sides of a comparison, the shape a sentence that answers must have, whether it asks for
live information no document can hold, and whether it asks when something happened. The
planner's `QueryPlan` says what to search; this says what to answer, and travels beside it to
every rule of the reader."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.answer.extractive.asked import Asked, asked
from shu.answer.extractive.compare import Side, compared
from shu.answer.extractive.counting import CountAsked, asks_how_many_documents
from shu.answer.extractive.documents_asked import DocumentsAsked, asks_which_documents
from shu.answer.extractive.expected import asks_for_live_information, expected_answer
from shu.answer.extractive.outline import asks_for_outline, asks_for_summary
from shu.answer.extractive.polarity import is_yes_no
from shu.answer.extractive.replies import asks_when_it_happened


@dataclass(frozen=True)
class QuestionReading:
    question: str
    kind: Asked | None
    """the kind of answer asked for (who, when, why, a list, a decision …), if the wording says"""
    every: bool
    """all of them is wanted ("what was decided at the meeting"), not the one about something"""
    yes_no: bool
    sides: tuple[Side, Side] | None
    """the two things compared ("the Team or the Pro plan")"""
    expected: re.Pattern[str] | None
    """what a sentence that answers must contain (a price, a date, a number, a role)"""
    live: bool
    """asks for what changes by the hour (a forecast, a live price)"""
    when: bool
    """asks when something happened (a message's day is the day it tells of)"""
    count_of: CountAsked | None = None
    """asks how many documents there are of something ("how many chats mention the allergy")"""
    documents_about: DocumentsAsked | None = None
    """asks which documents cover something ("which emails mention rats" → `rats`, of type email)"""
    outline_of: str | None = None
    """asks what a document covers ("what topics does the handbook cover" → `handbook`)"""
    summary_of: str | None = None
    """asks for a summary of a document ("what came out of the May meeting" → `May meeting`)"""

    @property
    def many(self) -> bool:
        """Several answers are expected (a list, every decision): more sentences are quoted."""
        return self.kind is not None and self.kind.many


def read_question(question: str) -> QuestionReading:
    kind = asked(question)
    return QuestionReading(
        question=question,
        kind=kind,
        every=kind is not None and kind.every(question),
        yes_no=is_yes_no(question),
        sides=compared(question),
        expected=expected_answer(question),
        live=asks_for_live_information(question),
        when=asks_when_it_happened(question, kind),
        count_of=asks_how_many_documents(question),
        documents_about=asks_which_documents(question),
        outline_of=asks_for_outline(question),
        summary_of=asks_for_summary(question),
    )

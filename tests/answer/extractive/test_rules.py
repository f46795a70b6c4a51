"""The reader's rules: tried in order, the first answer wins, and the rules before the sentences
never embed one."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.extractive.reading import read_question
from shu.answer.extractive.rules import (
    RULES,
    CountOfDocuments,
    DocumentOutline,
    DocumentSummary,
    Found,
    LiveInformation,
    MissingDocument,
    QuotedSentences,
    RowOfBoth,
    SideBySide,
    TooLittleEvidence,
    UnstatedAttribute,
    WhichDocuments,
    WholeDocument,
    WholeList,
)
from shu.kb import KnowledgeBase
from tests.answer.extractive.test_reader import DOCS
from tests.conftest import CountingEmbedder, PersonaMaker


def test_the_rules_run_collection_first_then_cheapest_and_a_quote_answers_last() -> None:
    assert [type(rule) for rule in RULES] == [
        CountOfDocuments,
        WhichDocuments,
        DocumentOutline,
        DocumentSummary,
        WholeDocument,
        MissingDocument,
        LiveInformation,
        TooLittleEvidence,
        UnstatedAttribute,
        WholeList,
        RowOfBoth,
        SideBySide,
        QuotedSentences,
    ]


@pytest.fixture
def asked(
    kb: KnowledgeBase, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> Callable[[str], Found]:
    """What the reader finds for a question to the support persona (nothing scored yet)."""
    assert not kb.ingest(make_persona("support", rag=DOCS)).failed
    persona = kb.persona("support")

    def found(question: str) -> Found:
        result = kb.retrieve(question, "support")
        return Found(ExtractiveAnswerer(embedder), result, persona, read_question(question))

    return found


def test_live_information_is_declined_before_any_sentence_is_embedded(
    asked: Callable[[str], Found], embedder: CountingEmbedder
) -> None:
    found = asked("What is the weather forecast for tomorrow?")
    reading = found.reading
    assert (
        WholeDocument().applies(reading, found) is None and MissingDocument().applies(reading, found) is None
    )
    before = embedder.embedded
    declined = LiveInformation().applies(reading, found)
    assert declined is not None and declined.insufficient and embedder.embedded == before
    assert found.reader.answer(found.result, found.persona) == declined and embedder.embedded == before


def test_an_ordinary_question_falls_through_to_the_quoted_sentences(asked: Callable[[str], Found]) -> None:
    found = asked("How many requests per minute does the Pro plan allow?")
    for rule in RULES[:-1]:
        assert rule.applies(found.reading, found) is None, type(rule).__name__
    quoted = QuotedSentences().applies(found.reading, found)
    assert quoted is not None and "1,200 requests per minute" in quoted.text
    assert quoted.citations[0].doc_id == "limits" and quoted.evidence == found.evidence > 0

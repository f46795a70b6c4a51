"""The answer seam: `kb.ask` answers through the factory's answerer, fed the assembled context."""

from __future__ import annotations

import pytest

from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.factory import create_answerer
from shu.config.settings import AnswerSettings
from shu.errors import ConfigError
from shu.kb import KnowledgeBase, open_kb
from shu.types import (
    Answer,
    AssembledContext,
    ContextDocument,
    ContextSection,
    Persona,
    PersonaConfig,
    QueryPlan,
    RetrievalPlan,
    RetrievalResult,
    SearchQueries,
)
from tests.conftest import CountingEmbedder, PersonaMaker, doc

PERSONA = Persona(slug="p", display_name="P", config=PersonaConfig(slug="p", display_name="P"))


class ContextCounter:
    """A user's own answerer, loaded by import path: it reports what it was fed."""

    name = "context-counter"

    def __init__(self, settings: AnswerSettings, embedder: object) -> None:
        self.settings = settings

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        documents = [d.doc_id for d in result.context.documents]
        return Answer(
            question=result.question, persona=persona.slug, text=f"context: {documents}", method=self.name
        )


class NoAnswer:
    def __init__(self, settings: AnswerSettings, embedder: object) -> None:
        pass


def result_with(context: AssembledContext, question: str) -> RetrievalResult:
    return RetrievalResult(
        question=question,
        persona="p",
        plan=QueryPlan(method="off"),
        queries=SearchQueries(original=question, rewritten=question, method="none"),
        retrieval_plan=RetrievalPlan(),
        context=context,
    )


def test_a_whole_document_in_the_context_reaches_the_extractive_answer(embedder: CountingEmbedder) -> None:
    escalated = ContextDocument(
        doc_id="handbook",
        title="Volunteer handbook",
        score=0.5,
        full=True,
        sections=[
            ContextSection(
                section_path="Handbook > Hours",
                text="Volunteers give 12 hours a season.",
                chunk_ids=["handbook#a"],
            ),
            ContextSection(
                section_path="Handbook > Keys",
                text="The shed key hangs by the gate.",
                chunk_ids=["handbook#b"],
            ),
        ],
    )
    answer = ExtractiveAnswerer(embedder).answer(
        result_with(AssembledContext(documents=[escalated]), "How many hours do volunteers give?"), PERSONA
    )
    assert not answer.insufficient
    assert answer.sentences[0].text == "Volunteers give 12 hours a season."
    assert answer.sentences[0].citation == "[^handbook:Handbook > Hours]"
    assert answer.citations[0].chunk_id == "handbook#a" and answer.citations[0].title == "Volunteer handbook"


def test_ask_goes_through_the_configured_answerer(
    tmp_path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:  # type: ignore[no-untyped-def]
    folder = make_persona(
        "p", rag={"a.md": doc("a", "Hours", "# Hours\n\nVolunteers give 12 hours a season.")}
    )
    custom = open_kb(tmp_path / "h", [f"answer.method={__name__}:ContextCounter"], embedder=embedder)
    custom.ingest(folder)
    assert custom.ask("How many hours?", persona="p").text == "context: ['a']"
    custom.close()


def test_auto_is_extractive_without_an_llm_and_a_bad_method_is_a_clear_error(
    kb: KnowledgeBase, embedder: CountingEmbedder
) -> None:
    assert kb.parts.answerer.name == "extractive"
    for method in ("nowhere.module:Class", "shu.kb:NoSuchClass", "just-a-word"):
        with pytest.raises(ConfigError, match=r"answer\.method"):
            create_answerer(AnswerSettings(method=method), embedder)
    with pytest.raises(ConfigError, match="has no answer"):
        create_answerer(AnswerSettings(method=f"{__name__}:NoAnswer"), embedder)
    with pytest.raises(ConfigError, match="could not be built"):
        create_answerer(AnswerSettings(method="shu.config.settings:AnswerSettings"), embedder)

"""The same sentence twice in the context — code, templates, boilerplate, quoted mail — is read by
every answerer: the extractive reader, the LLM answer with its verifier, and the agent."""

from __future__ import annotations

import pytest

from shu.answer.factory import create_answerer
from shu.config.settings import AnswerSettings, VerifySettings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.types import Answer
from tests.conftest import PersonaMaker, doc

RUNBOOK = doc(
    "runbook",
    "Worker runbook",
    "# Worker runbook\n\n## Recovery\n\nRestart the sync worker. Then check the error log for timeouts. "
    "Restart the sync worker. Then check the queue depth on the dashboard.\n\n"
    "## Replies\n\nThank you for contacting Lumen support. Refunds take 14 days.\n\n"
    "Thank you for contacting Lumen support. Outages are posted within 10 minutes.",
)
KEY = "[^runbook:Worker runbook > Recovery]"
QUESTIONS = (
    "How do I recover the sync worker?",
    "Restart the sync worker",
    "Thank you for contacting Lumen support",
)


@pytest.fixture
def ops(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("ops", rag={"runbook.md": RUNBOOK})).failed
    return kb


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_extractive_reader_quotes_a_repeated_sentence_once(ops: KnowledgeBase, question: str) -> None:
    answer = ops.ask(question, persona="ops", use_cache=False)
    assert answer.method == "extractive" and not answer.insufficient, answer.text
    texts = [s.text for s in answer.sentences]
    assert len(texts) == len(set(texts)), texts


@pytest.mark.parametrize("question", QUESTIONS)
def test_the_agent_reads_a_repeated_sentence(ops: KnowledgeBase, question: str) -> None:
    answer = ops.ask(question, persona="ops", use_cache=False, agent=True)
    assert answer.sentences and answer.agent is not None, answer.text


def test_the_llm_answer_citing_a_repeated_sentence_is_verified(ops: KnowledgeBase) -> None:
    reply = f"Restart the sync worker, then check the error log for timeouts. {KEY}"
    client = LLMClient(ScriptedLLM([reply]), max_retries=0)
    verify = VerifySettings(enabled=True, method="rules")
    answerer = create_answerer(
        AnswerSettings(method="llm", scope=False), ops.parts.embedder, ops.store, client, verify
    )
    answer = answerer.answer(ops.retrieve(QUESTIONS[0], persona="ops"), ops.persona("ops"))
    assert isinstance(answer, Answer) and [c.key for c in answer.citations] == [KEY], answer.text
    assert answer.verification is not None and not answer.verification.flagged, answer.verification

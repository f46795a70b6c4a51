"""`ask` end to end against a real local LLM: SmolLM2-135M-Instruct served by
`llama_cpp.server` (OpenAI-compatible, streaming). The model is tiny and writes poor answers:
what this proves is that the generated path streams for real and that whatever the model writes,
every citation shown resolves to the context — or the quoted answer is given, with the reason."""

from __future__ import annotations

import pytest

from shu.answer.agent.tools import TOOLS
from shu.answer.stream import StreamReset
from shu.kb import open_kb
from shu.types import Answer
from tests.answer.test_generate import DOCS, QUESTION
from tests.conftest import CountingEmbedder, PersonaMaker

pytestmark = [pytest.mark.slow, pytest.mark.service]


def smollm2(url: str, *more: str) -> list[str]:
    """Settings for the SmolLM2 server: JSON mode, no LLM planning or enrichment (too slow and
    too large a schema for this model), no scope judge."""
    return [
        "llm.provider=openai",
        f"llm.base_url={url}",
        "llm.model=smollm2",
        "llm.json_mode=json_object",
        "llm.timeout_s=300",
        "llm.max_retries=1",
        "enrich.enabled=false",
        "retrieval.plan=false",
        "retrieval.hyde=false",
        "answer.scope=false",
        *more,
    ]


def test_a_real_small_model_answers_with_checked_citations_or_falls_back(
    llama_server: str, tmp_path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:  # type: ignore[no-untyped-def]
    settings = smollm2(llama_server, "answer.context_tokens=700", "answer.max_tokens=160")
    kb = open_kb(tmp_path / "home", settings, embedder=embedder)
    kb.ingest(make_persona("support", rag=DOCS))
    events = list(kb.ask_stream(QUESTION, persona="support"))
    answer = events[-1]
    assert isinstance(answer, Answer)
    shown = "".join(e for e in events if isinstance(e, str))
    print("SmolLM2 answer:", answer.method, answer.fallback_reason, "|", shown[:300], "|", answer.check)
    print("SmolLM2 verification:", answer.verification)
    result = kb.retrieve(QUESTION, persona="support")
    offered = {s.citation_key for d in result.context.documents for s in d.sections}
    assert kb.parts.answerer.inner.client.accounting.calls >= 1, "the model was really asked"  # type: ignore[attr-defined]
    keys = [e for e in events if isinstance(e, str) and e.startswith("[^")]
    assert set(keys) <= offered, "every key streamed resolves to the context"
    assert ({c.key for c in answer.citations} <= offered and answer.citations) or answer.insufficient
    assert answer.insufficient or answer.quoted or answer.verification is not None, "generated: verified"
    if answer.verification is not None:
        assert answer.verification.method in ("llm:openai:smollm2", "rules (llm failed)")
    if answer.method.startswith("llm:openai:smollm2"):
        assert answer.check is not None and answer.llm_calls >= 1
    else:
        assert answer.method == "extractive" and answer.fallback_reason, "the fallback says why"
        assert any(isinstance(e, StreamReset) for e in events) or not shown
    kb.close()


def test_a_real_small_model_drives_the_agent_within_its_budget(
    llama_server: str, tmp_path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:  # type: ignore[no-untyped-def]
    """The model chooses actions through JSON mode; whatever it chooses, the guard, the budgets
    and the rules fallback keep the run bounded, and the answer still cites only its context."""
    settings = smollm2(llama_server, "answer.method=extractive", "agent.method=llm", "agent.max_steps=3")
    kb = open_kb(tmp_path / "home", settings, embedder=embedder)
    kb.ingest(make_persona("support", rag=DOCS))
    answer = kb.ask(QUESTION, persona="support", agent=True)
    trace = answer.agent
    assert trace is not None
    print(
        "SmolLM2 agent:", trace.method, trace.stopped, [(s.tool, s.arguments, s.refused) for s in trace.steps]
    )
    assert trace.method.startswith("llm:openai:smollm2")
    assert len(trace.steps) <= 3
    assert trace.stopped in {"finished", "step budget", "no new documents", "token budget", "enough evidence"}
    assert trace.tokens > 0, "the model was really asked"
    assert {c.doc_id for c in answer.citations} <= {"limits", "faq"}
    assert answer.insufficient or answer.citations
    assert all(step.refused or step.tool in TOOLS for step in trace.steps)
    kb.close()

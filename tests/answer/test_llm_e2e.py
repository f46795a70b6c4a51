"""`ask` end to end against a real local LLM: SmolLM2-135M-Instruct served by
`llama_cpp.server` (OpenAI-compatible, streaming). The model is tiny and writes poor answers:
what this proves is that the generated path streams for real and that whatever the model writes,
every citation shown resolves to the context — or the quoted answer is given, with the reason."""

from __future__ import annotations

import pytest

from shu.answer.stream import StreamReset
from shu.kb import open_kb
from shu.types import Answer
from tests.answer.test_generate import DOCS, QUESTION
from tests.conftest import CountingEmbedder, PersonaMaker

pytestmark = [pytest.mark.slow, pytest.mark.service]


def test_a_real_small_model_answers_with_checked_citations_or_falls_back(
    llama_server: str, tmp_path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:  # type: ignore[no-untyped-def]
    settings = [
        "llm.provider=openai",
        f"llm.base_url={llama_server}",
        "llm.model=smollm2",
        "llm.json_mode=json_object",
        "llm.timeout_s=300",
        "llm.max_retries=1",
        "enrich.enabled=false",
        "retrieval.plan=false",
        "retrieval.hyde=false",
        "answer.scope=false",
        "answer.context_tokens=700",
        "answer.max_tokens=160",
    ]
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
    assert kb.answerer.inner.client.accounting.calls >= 1, "the model was really asked"  # type: ignore[attr-defined]
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

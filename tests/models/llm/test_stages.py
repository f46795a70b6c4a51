"""One model per stage: with `llm.fast`, planning, scope, verification, the agent and follow-ups
ask the fast model and the answer asks the main one, each within its own budget of the
question; both are counted in the answer's usage."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.conftest import CountingEmbedder, PersonaMaker, doc

from shu.config.settings import load_settings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM

PRICING = doc("pricing", "Pricing", "# Pricing\n\n## Pro\n\nThe Pro plan costs $65 per seat per month.")
ANSWER = "The Pro plan costs $65 per seat per month. [^pricing:Pricing > Pro]"
FAST = ["llm.fast.provider=openai", "llm.fast.model=small", "llm.fast.base_url=http://127.0.0.1:9/v1"]


def asked(model: ScriptedLLM) -> list[str]:
    return ["\n".join(m.content for m in call) for call in model.calls]


def two_models(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker, *settings: str
) -> tuple[KnowledgeBase, ScriptedLLM, ScriptedLLM]:
    main = ScriptedLLM(lambda messages, schema: ANSWER if schema is None else "{}")
    fast = ScriptedLLM(lambda messages, schema: "not json")
    loaded = load_settings(tmp_path / "home", ["answer.scope=true", "retrieval.plan=true", *FAST, *settings])
    kb = KnowledgeBase(
        loaded,
        embedder=embedder,
        llm=LLMClient(main, max_retries=0),
        fast_llm=LLMClient(fast, max_retries=0, budget_name="fast"),
    )
    assert not kb.ingest(make_persona("lumen", rag={"pricing.md": PRICING})).failed
    main.calls.clear()  # what ingestion asked (the documents' profiles) is not a question's
    fast.calls.clear()
    return kb, main, fast


def test_the_fast_model_runs_the_fast_stages_and_the_main_one_answers(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    kb, main, fast = two_models(tmp_path, embedder, make_persona)
    try:
        answer = kb.ask("What does the Pro plan cost?", persona="lumen", use_cache=False)
        assert "$65" in answer.text
        answering = [text for text in asked(main) if "Answer directly" in text]
        assert len(answering) == 1 and len(asked(main)) == 1, "the main model only answers"
        assert fast.calls, "planning and checking went to the fast model"
        assert not any("Answer directly" in text for text in asked(fast))
        assert answer.llm_usage["total_tokens"] > 0
        assert kb.parts.client_for("verify") is kb.parts.fast_client
        assert kb.parts.client_for("plan") is kb.parts.fast_client
        assert kb.parts.client_for("enrich") is kb.parts.client, "enrichment is not a fast stage by default"
    finally:
        kb.close()


def test_each_model_has_its_own_budget(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    kb, main, fast = two_models(tmp_path, embedder, make_persona, "llm.fast.budget.max_calls=0")
    try:
        answer = kb.ask("What does the Pro plan cost?", persona="lumen", use_cache=False)
        assert fast.calls == [], "its budget is spent: the fast stages use their rules"
        assert len(main.calls) == 1 and "$65" in answer.text, "the answer's model still answers"
        assert answer.llm_stopped is not None and answer.llm_stopped.startswith("the fast model:")
    finally:
        kb.close()


def test_the_fast_stages_are_chosen_in_settings(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    only_verify = ['llm.fast_stages=["verify"]', "llm.budget.max_json_failures=0"]
    kb, main, fast = two_models(tmp_path, embedder, make_persona, *only_verify)
    try:
        kb.ask("What does the Pro plan cost?", persona="lumen", use_cache=False)
        assert asked(fast), "verification asked the fast model"
        assert all("verif" in text.lower() or "claim" in text.lower() for text in asked(fast)), asked(fast)
        assert len(main.calls) > 1, "planning and scope stay with the main model"
    finally:
        kb.close()


def test_a_fast_model_needs_a_provider_and_cannot_nest(tmp_path: Path) -> None:
    with pytest.raises(Exception, match=r"llm\.fast needs a provider"):
        load_settings(tmp_path / "a", ["llm.fast.model=small"])
    with pytest.raises(Exception, match="cannot have its own"):
        load_settings(tmp_path / "b", [*FAST, "llm.fast.fast.provider=openai", "llm.fast.fast.model=x",
                                       "llm.fast.fast.base_url=http://127.0.0.1:9/v1"])  # fmt: skip

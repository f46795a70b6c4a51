"""One question's LLM budget over every step that asks the model (planner, rewrite, generator,
verifier, corrective retrieval, agent): never exceeded, the steps after it use their non-LLM
methods, and the answer says why; a model that never writes JSON is asked twice, not fourteen
times."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from shu.config.settings import LLMBudgetSettings, load_settings
from shu.kb import KnowledgeBase
from shu.models.llm.base import Message
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from tests.answer.test_agent import OPS
from tests.conftest import CountingEmbedder, PersonaMaker

QUESTION = "How many seats did Acme Corp renew for?"


class EveryStep:
    """A model that answers each step validly (so that every step asks it again and again):
    a plan, rewrites, an answer whose numbers the source contradicts (so corrective retrieval
    searches again), no verdicts of its own, and agent actions that never finish."""

    def __init__(self) -> None:
        self.asked: Counter[str] = Counter()

    def __call__(self, messages: list[Message], schema: dict[str, Any] | None) -> str:
        step = (schema or {}).get("title", "answer")
        self.asked[step] += 1
        if step == "_PlanOut":
            return json.dumps({"query_type": "factual"})
        if step == "_Rewrites":
            hypothetical = "Acme Corp renewed its contract for many seats this spring."
            return json.dumps({"variations": ["Acme renewal seats"], "hypothetical_answer": hypothetical})
        if step == "_Verdicts":
            return json.dumps({"verdicts": []})
        if step == "_Verdict":
            return json.dumps({"decision": "in_scope", "reason": "renewals are ops work"})
        if step == "Action":
            action = {"tool": "query_chunks", "query": "Acme seats", "doc_ids": [], "reason": "more"}
            return json.dumps(action)
        key = re.search(r'key="([^"]+)"', "\n".join(m.content for m in messages))
        assert key is not None, "the answer prompt shows each section's key"
        cited = key.group(1).replace("&gt;", ">")
        return f"Acme Corp renewed for 300 seats at a discount of 15 percent. {cited}"


def opened(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker, model: ScriptedLLM, *sets: str
) -> KnowledgeBase:
    settings = load_settings(tmp_path / "home", ["enrich.enabled=false", *sets])
    kb = KnowledgeBase(settings, embedder=embedder, llm=LLMClient(model, max_retries=0))
    assert not kb.ingest(make_persona("ops", rag=OPS).parent).failed
    return kb


def test_a_budget_of_n_calls_is_never_exceeded_over_every_step(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    model = EveryStep()
    kb = opened(tmp_path, embedder, make_persona, ScriptedLLM(model), "llm.budget.max_calls=1000")
    try:
        assert kb.parts.responder.budget.max_calls == 1000, "the setting reaches the responder"
        free = kb.ask(QUESTION, persona="ops", use_cache=False, agent=True)
        unbounded = sum(model.asked.values())
        assert set(model.asked) >= {"_PlanOut", "_Rewrites", "answer", "_Verdicts", "Action"}
        assert free.corrections and free.agent is not None, "corrective retrieval and the agent ran"
        assert free.llm_stopped is None and unbounded >= 10
        for limit in (1, 4, 7, unbounded - 1):
            model.asked.clear()
            kb.parts.responder.budget = LLMBudgetSettings(max_calls=limit)
            answer = kb.ask(QUESTION, persona="ops", use_cache=False, agent=True)
            assert sum(model.asked.values()) == limit, f"{limit} calls at most, every one used"
            assert answer.llm_stopped == f"its {limit} calls (llm.budget.max_calls) were spent"
            assert answer.retrieval is not None
            assert any("not asked again" in note for note in answer.retrieval.notes)
    finally:
        kb.close()


def test_a_small_token_budget_stops_the_model_before_the_answer(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    kb = opened(tmp_path, embedder, make_persona, ScriptedLLM(EveryStep()), "llm.budget.max_tokens=1500")
    try:
        answer = kb.ask(QUESTION, persona="ops", use_cache=False, agent=True)
        assert answer.llm_stopped is not None and "llm.budget.max_tokens" in answer.llm_stopped
        assert answer.method == "extractive" and answer.fallback_reason is not None
        assert "240 seats" in answer.text, "the extractive answer, from the document itself"
    finally:
        kb.close()


def test_a_model_that_never_writes_json_is_asked_twice_for_a_whole_question(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    """The stand-in server of issue 26 cost 14 calls for one question this way."""
    model = ScriptedLLM(lambda messages, schema: "I am a helpful assistant! How can I help you today?")
    kb = opened(tmp_path, embedder, make_persona, model)
    try:
        answer = kb.ask(QUESTION, persona="ops", use_cache=False, agent=True)
        assert len(model.calls) == 2, "the planner twice, then nothing else"
        assert answer.llm_stopped == "its replies were not valid JSON 2 times (llm.budget.max_json_failures)"
        assert answer.method == "extractive" and "240 seats" in answer.text
        assert answer.agent is not None and "rules" in answer.agent.method
    finally:
        kb.close()


def test_no_calls_at_all_with_a_budget_of_zero(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    model = ScriptedLLM(EveryStep())
    kb = opened(tmp_path, embedder, make_persona, model, "llm.budget.max_calls=0")
    try:
        answer = kb.ask(QUESTION, persona="ops", use_cache=False)
        assert not model.calls and answer.method == "extractive" and answer.llm_stopped is not None
    finally:
        kb.close()


def test_a_search_alone_is_held_to_the_budget_too(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    """`kb.retrieve` and `kb.search` (what `/v1/search` and `shu search` call) plan and rewrite with
    the model: a model that never writes JSON is asked twice a search, not once a step."""
    asked: Counter[str] = Counter()

    def never_json(messages: list[Message], schema: dict[str, Any] | None) -> str:
        asked[(schema or {}).get("title", "answer")] += 1
        return "Sure! Here is what I think about that question."

    kb = opened(tmp_path, embedder, make_persona, ScriptedLLM(never_json), "retrieval.hyde=true")
    try:
        assert kb.retrieve(QUESTION, persona="ops").hits, "the non-LLM methods still search"
        assert sum(asked.values()) == 2, asked
        asked.clear()
        assert kb.search(QUESTION, persona="ops")
        assert sum(asked.values()) == 2, asked
    finally:
        kb.close()

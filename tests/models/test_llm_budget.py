"""A question's LLM budget as the client sees it: each call to the provider (retries included) is
counted and refused past the limits, a cached reply is free, two replies that are not JSON stop
the model, a reply JSON that only fails a check does not, and the budget is active only inside
each step of the question's stream, whichever thread reads it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import BaseModel

from shu.models.llm.base import LLMError, Message
from shu.models.llm.budget import BudgetSpent, QuestionBudget, active, current_budget, spending
from shu.models.llm.cache import ResponseCache
from shu.models.llm.client import LLMClient, StructuredOutputError
from shu.models.llm.scripted import ScriptedLLM

HELLO = [Message(role="user", content="Say hello to the team.")]


class Greeting(BaseModel):
    greeting: str


def test_calls_past_the_limit_are_refused_and_say_why() -> None:
    model = ScriptedLLM(lambda m, s: "hello")
    client = LLMClient(model)
    budget = QuestionBudget(max_calls=2, max_tokens=10_000)
    with active(budget):
        client.chat(HELLO)
        client.complete("again")
        with pytest.raises(BudgetSpent, match=r"llm.budget.max_calls") as refused:
            client.chat(HELLO, max_tokens=7)
    assert isinstance(refused.value, LLMError) and not refused.value.retryable
    assert len(model.calls) == 2 and budget.calls == 2
    assert budget.tokens == (5 + 1) + (1 + 1), "the scripted model counts words: prompt + reply"
    assert budget.stopped == "its 2 calls (llm.budget.max_calls) were spent"
    client.chat(HELLO, max_tokens=7)  # outside a question nothing is counted
    assert len(model.calls) == 3


def test_tokens_past_the_limit_refuse_the_next_prompt() -> None:
    long_prompt = [Message(role="user", content="word " * 400)]  # ~500 tokens at 4 characters each
    model = ScriptedLLM(lambda m, s: "ok")
    budget = QuestionBudget(max_calls=10, max_tokens=900)
    with active(budget):
        LLMClient(model).chat(long_prompt)
        assert budget.tokens == 401
        with pytest.raises(BudgetSpent, match=r"401 of its 900 tokens"):
            LLMClient(model).chat(long_prompt, max_tokens=9)
    assert len(model.calls) == 1


def test_each_retry_is_a_call_and_a_cached_reply_is_free(tmp_path: Path) -> None:
    failures = iter([LLMError("busy", retryable=True), LLMError("busy", retryable=True)])

    def flaky(messages: list[Message], schema: object) -> str:
        if (failure := next(failures, None)) is not None:
            raise failure
        return "hello"

    cache = ResponseCache(tmp_path / "cache.db")
    client = LLMClient(ScriptedLLM(flaky), cache=cache, max_retries=3, sleep=lambda s: None)
    budget = QuestionBudget(max_calls=3, max_tokens=10_000)
    with active(budget):
        assert client.chat(HELLO).text == "hello"
        assert budget.calls == 3, "two failed attempts and the one that answered"
        assert client.chat(HELLO).text == "hello", "the cached reply needs no budget"
    cache.close()


def test_a_stream_is_counted_with_the_usage_it_reports() -> None:
    client = LLMClient(ScriptedLLM(lambda m, s: "hello there team"))
    budget = QuestionBudget(max_calls=1, max_tokens=10_000)
    with active(budget):
        assert "".join(client.stream(HELLO)) == "hello there team"
        assert budget.calls == 1 and budget.tokens == 5 + 3
        with pytest.raises(BudgetSpent):
            list(client.stream(HELLO, max_tokens=9))


def test_two_replies_that_are_not_json_stop_the_model_for_the_question() -> None:
    model = ScriptedLLM(lambda m, s: "Sure! Here is your greeting: hello.")
    client = LLMClient(model)
    budget = QuestionBudget(max_calls=20, max_tokens=100_000)
    with active(budget):
        with pytest.raises(StructuredOutputError):
            client.structured(HELLO, Greeting)
        assert budget.json_failures == 2 and budget.stopped is not None
        with pytest.raises(BudgetSpent, match="not valid JSON 2 times"):
            client.chat(HELLO, max_tokens=5)  # not asked again, not even for prose
    assert len(model.calls) == 2


def test_json_a_check_refuses_is_not_a_json_failure() -> None:
    model = ScriptedLLM(lambda m, s: json.dumps({"greeting": "bye"}))
    client = LLMClient(model)
    budget = QuestionBudget(max_calls=20, max_tokens=100_000)
    with active(budget):
        for _ in range(2):
            with pytest.raises(StructuredOutputError):
                client.structured(HELLO, Greeting, check=lambda g: [] if g.greeting == "hi" else ["say hi"])
        assert budget.json_failures == 0 and budget.stopped is None
        assert client.chat(HELLO).text


def test_a_budget_with_no_json_limit_keeps_asking() -> None:
    model = ScriptedLLM(lambda m, s: "not json")
    budget = QuestionBudget(max_calls=20, max_tokens=100_000, max_json_failures=0)
    with active(budget):
        for _ in range(3):
            with pytest.raises(StructuredOutputError):
                LLMClient(model).structured(HELLO, Greeting)
    assert budget.stopped is None and len(model.calls) == 6


def test_negative_limits_are_refused() -> None:
    with pytest.raises(ValueError, match="0 or more"):
        QuestionBudget(max_calls=-1, max_tokens=10)


def test_the_budget_is_active_in_each_step_of_a_stream_whichever_thread_reads_it() -> None:
    budget = QuestionBudget(max_calls=5, max_tokens=100)

    def steps() -> Iterator[QuestionBudget | None]:
        for _ in range(4):
            yield current_budget()

    events = spending(budget, steps())
    with ThreadPoolExecutor(2) as pool:  # a server reads a stream's events on worker threads
        seen = [pool.submit(next, events).result() for _ in range(4)]
    assert seen == [budget] * 4
    assert current_budget() is None, "nothing is left active between the steps"
    assert list(events) == []

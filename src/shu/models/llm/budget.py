"""What one question may spend on the LLM: calls and tokens (prompt + completion) over every step
that asks it (planner, rewrite, scope, generator, verifier, corrective retrieval, agent), and
how many replies may fail to be valid JSON before the model is not asked again.

A `QuestionBudget` is made once per question where the question comes in (`Responder.stream`)
and is active while that question's steps run (`spending`); every `LLMClient` call made in that
time asks it first. A refused call raises `BudgetSpent`, an `LLMError`: each step already falls
back to its non-LLM method when the model fails (rules plan, rules rewrite, rules verifier,
extractive answer, rules agent). Outside a question (ingest, enrichment) nothing is counted.

The budget is carried in a context variable set around each step of a question's stream rather
than across it: a server may read one stream's events from different worker threads."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TypeVar

from shu.models.llm.base import LLMError, Message, Usage

T = TypeVar("T")

_CHARS_PER_TOKEN = 4


class BudgetSpent(LLMError):
    """The question's LLM budget refuses the call: the step uses its non-LLM method."""

    def __init__(self, message: str) -> None:
        super().__init__(message, retryable=False)


class QuestionBudget:
    """Counts one question's LLM calls, tokens and invalid JSON replies; refuses a call once a
    limit is reached. `max_json_failures` 0 never stops for invalid JSON."""

    def __init__(
        self,
        max_calls: int,
        max_tokens: int,
        max_json_failures: int = 2,
        models: dict[str, QuestionBudget] | None = None,
    ) -> None:
        if max_calls < 0 or max_tokens < 0 or max_json_failures < 0:
            raise ValueError("an LLM budget's limits must be 0 or more")
        self.max_calls = max_calls
        self.max_tokens = max_tokens
        self.max_json_failures = max_json_failures
        self.calls = 0
        self.tokens = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.json_failures = 0
        self.stopped: str | None = None
        """Why the model is not asked again for this question (None while it may be)."""
        self.models = models or {}
        """Another model's own budget for the same question, by the name its client asks with
        (`llm.fast`: "fast")."""
        self._lock = threading.Lock()

    def admit(self, messages: list[Message]) -> None:
        """Count one call about to be made, or raise `BudgetSpent`. A call is refused when the
        calls are used up, or when the tokens spent plus this prompt's (estimated at four
        characters a token) would pass the limit: the reply's length is not known before."""
        prompt = sum(len(m.content) for m in messages) // _CHARS_PER_TOKEN
        with self._lock:
            if self.stopped is None and self.calls >= self.max_calls:
                self.stopped = f"its {self.max_calls} calls (llm.budget.max_calls) were spent"
            elif self.stopped is None and self.tokens + prompt > self.max_tokens:
                self.stopped = (
                    f"{self.tokens:,} of its {self.max_tokens:,} tokens (llm.budget.max_tokens) were "
                    f"spent and the next prompt needs ~{prompt:,}"
                )
            if self.stopped is not None:
                raise BudgetSpent(f"the LLM is not asked again for this question: {self.stopped}")
            self.calls += 1

    def spend(self, usage: Usage) -> None:
        with self._lock:
            self.tokens += usage.prompt_tokens + usage.completion_tokens
            self.prompt_tokens += usage.prompt_tokens
            self.completion_tokens += usage.completion_tokens

    def json_failed(self) -> None:
        """A reply that was not valid JSON in the asked shape."""
        with self._lock:
            self.json_failures += 1
            limit = self.max_json_failures
            if limit and self.json_failures >= limit and not self.stopped:
                self.stopped = f"its replies were not valid JSON {limit} times (llm.budget.max_json_failures)"


_current: ContextVar[QuestionBudget | None] = ContextVar("shu_llm_budget", default=None)


def current_budget(model: str | None = None) -> QuestionBudget | None:
    """The budget of the question being answered, None outside one; `model`: the named model's
    own budget within it (the question's when it has none)."""
    budget = _current.get()
    if budget is None or model is None:
        return budget
    return budget.models.get(model, budget)


def spent(budget: QuestionBudget) -> tuple[int, int, int, int]:
    """Calls, tokens, prompt tokens and completion tokens a question spent on every model."""
    every = [budget, *budget.models.values()]
    return (
        sum(b.calls for b in every),
        sum(b.tokens for b in every),
        sum(b.prompt_tokens for b in every),
        sum(b.completion_tokens for b in every),
    )


def stopped(budget: QuestionBudget) -> str | None:
    """Why a model is not asked again for the question (the answer's model first), or None."""
    if budget.stopped is not None:
        return budget.stopped
    return next((f"the {name} model: {b.stopped}" for name, b in budget.models.items() if b.stopped), None)


@contextmanager
def active(budget: QuestionBudget | None) -> Iterator[QuestionBudget | None]:
    """`budget` is asked by every LLM call made inside the block (None: nothing is counted)."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def spending(budget: QuestionBudget | None, events: Iterator[T]) -> Iterator[T]:
    """`events` with `budget` active while each of its steps runs, and not between them (the
    reader of the stream may be another thread, or another question's)."""
    try:
        while True:
            with active(budget):
                try:
                    event = next(events)
                except StopIteration:
                    return
            yield event
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            with active(budget):
                close()

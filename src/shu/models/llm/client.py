"""What every LLM call goes through: cache, concurrency limit, retries with backoff, token and
cost accounting, the question's budget (`shu.models.llm.budget`: each call to the provider,
retries included, is counted; a cached reply is free), and structured output validated with
pydantic (retried once, then refused)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

from shu.errors import ShuError
from shu.models.llm.base import LLM, ChatResult, LLMError, Message, StreamingLLM, Usage
from shu.models.llm.budget import current_budget
from shu.models.llm.cache import ResponseCache, cache_key

T = TypeVar("T", bound=BaseModel)
Check = Callable[[Any], list[str]]
"""Extra validation: returns the problems found (empty when the value is acceptable)."""
RETRY_TEMPERATURE = 0.4
"""The least temperature of the second attempt at a structured answer: asked again at 0, a small
local model writes the same answer again (Qwen2.5-Coder-1.5B did, word for word)."""


class StructuredOutputError(ShuError):
    def __init__(self, problems: list[str]) -> None:
        super().__init__("the model's output failed validation: " + "; ".join(problems))
        self.problems = problems


@dataclass
class Accounting:
    price_in_per_mtok: float = 0.0
    price_out_per_mtok: float = 0.0
    calls: int = 0
    cached: int = 0
    failures: int = 0
    invalid: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def cost_usd(self) -> float:
        return (
            self.prompt_tokens * self.price_in_per_mtok + self.completion_tokens * self.price_out_per_mtok
        ) / 1e6

    def record(self, result: ChatResult, seconds: float) -> None:
        with self._lock:
            self.calls += 1
            self.prompt_tokens += result.usage.prompt_tokens
            self.completion_tokens += result.usage.completion_tokens
            self.seconds += seconds

    def count(self, what: str) -> None:
        with self._lock:
            setattr(self, what, getattr(self, what) + 1)


@dataclass
class Structured(Generic[T]):
    value: T
    attempts: int
    result: ChatResult


class LLMClient:
    def __init__(
        self,
        provider: LLM,
        cache: ResponseCache | None = None,
        max_retries: int = 3,
        backoff_s: float = 1.0,
        concurrency: int = 4,
        accounting: Accounting | None = None,
        sleep: Callable[[float], None] = time.sleep,
        budget_name: str | None = None,
    ) -> None:
        """`budget_name`: the question's budget this client spends (`QuestionBudget.models`), None:
        the question's own."""
        self.budget_name = budget_name
        self.provider = provider
        self.cache = cache
        self.max_retries = max_retries
        self.backoff_s = backoff_s
        self.accounting = accounting or Accounting()
        self._slots = threading.BoundedSemaphore(concurrency)
        self._sleep = sleep

    @property
    def name(self) -> str:
        return self.provider.name

    def complete(self, prompt: str, max_tokens: int = 512, temperature: float = 0.0) -> ChatResult:
        return self.chat([Message(role="user", content=prompt)], max_tokens, temperature)

    def chat(
        self,
        messages: list[Message],
        max_tokens: int = 512,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        settings: dict[str, Any] = {
            "max_tokens": max_tokens,
            "temperature": temperature,
            "schema": json_schema,
        }
        sampling = getattr(self.provider, "sampling", None)
        if sampling and json_schema is not None:  # a provider's own sampling of JSON replies
            settings["sampling"] = sampling
        key = cache_key(self.provider.name, [m.model_dump() for m in messages], settings)
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.accounting.count("cached")
            return hit
        result = self._call_with_retries(messages, max_tokens, temperature, json_schema)
        if self.cache is not None:
            self.cache.put(key, result)
        return result

    def stream(
        self,
        messages: list[Message],
        max_tokens: int = 512,
        temperature: float = 0.0,
        record: list[ChatResult] | None = None,
    ) -> Iterator[str]:
        """The reply as it is generated (a cached reply arrives whole). Retried like `chat` only
        until the first piece arrives; a failure after that is raised to the caller, who has
        already shown part of it. Usage the provider does not report is estimated (4 characters
        a token). The whole reply, with its usage, is appended to `record` when one is given (what
        one caller spent, whatever others do at the same time)."""
        key = cache_key(
            self.provider.name,
            [m.model_dump() for m in messages],
            {"max_tokens": max_tokens, "temperature": temperature, "schema": None},
        )
        if self.cache is not None and (hit := self.cache.get(key)) is not None:
            self.accounting.count("cached")
            yield hit.text
            return
        if not isinstance(self.provider, StreamingLLM):
            result = self.chat(messages, max_tokens, temperature)
            if record is not None:
                record.append(result)
            yield result.text
            return
        pieces: list[str] = []
        usage: Usage | None = None
        started = time.perf_counter()
        budget = current_budget(self.budget_name)
        for attempt in range(self.max_retries + 1):
            if budget is not None:
                budget.admit(messages)
            try:
                with self._slots:
                    for item in self.provider.stream(messages, max_tokens, temperature):
                        if isinstance(item, Usage):
                            usage = item
                        elif item:
                            pieces.append(item)
                            yield item
                break
            except LLMError as exc:
                if pieces or not exc.retryable or attempt == self.max_retries:
                    self.accounting.count("failures")
                    raise
                self._sleep(self.backoff_s * 2**attempt)
        text = "".join(pieces)
        if usage is None or not usage.completion_tokens:
            prompt_chars = sum(len(m.content) for m in messages)
            usage = Usage(prompt_tokens=prompt_chars // 4, completion_tokens=max(1, len(text) // 4))
        result = ChatResult(text=text, model=self.provider.name, usage=usage)
        self.accounting.record(result, time.perf_counter() - started)
        if budget is not None:
            budget.spend(usage)
        if record is not None:
            record.append(result)
        if self.cache is not None and text:
            self.cache.put(key, result)

    def structured(
        self,
        messages: list[Message],
        schema: type[T],
        max_tokens: int = 512,
        temperature: float = 0.0,
        check: Check | None = None,
        attempts: int = 2,
        salvage: Callable[[str], T | None] | None = None,
    ) -> Structured[T]:
        """JSON in the shape of `schema`, validated by pydantic and by `check`. An invalid answer
        is asked for again once, with the problems named and at `RETRY_TEMPERATURE` at least;
        then StructuredOutputError. A reply that is not JSON in the shape of `schema` counts
        against the question's budget (one that only fails `check` does not: the model can
        write JSON). `salvage` may make a value
        of a reply that is not valid JSON (one cut off at `max_tokens`); it is checked too."""
        json_schema = schema.model_json_schema()
        conversation = list(messages)
        problems: list[str] = []
        for attempt in range(1, attempts + 1):
            warmth = temperature if attempt == 1 else max(temperature, RETRY_TEMPERATURE)
            result = self.chat(conversation, max_tokens, warmth, json_schema)
            value, problems, malformed = _parse(result.text, schema, check)
            if value is None and malformed and salvage is not None:
                value, problems = _salvaged(result.text, salvage, check, problems)
            if value is not None:
                return Structured(value=value, attempts=attempt, result=result)
            self.accounting.count("invalid")
            if malformed and (budget := current_budget(self.budget_name)) is not None:
                budget.json_failed()
            conversation = [
                *messages,
                Message(role="assistant", content=result.text[:2000]),
                Message(
                    role="user",
                    content="That answer is invalid: "
                    + "; ".join(problems)[:500]
                    + ". Reply again with only the JSON object.",
                ),
            ]
        raise StructuredOutputError(problems)

    def _call_with_retries(
        self, messages: list[Message], max_tokens: int, temperature: float, json_schema: dict[str, Any] | None
    ) -> ChatResult:
        budget = current_budget(self.budget_name)
        for attempt in range(self.max_retries + 1):
            if budget is not None:
                budget.admit(messages)
            try:
                with self._slots:
                    started = time.perf_counter()
                    result = self.provider.chat(messages, max_tokens, temperature, json_schema)
                self.accounting.record(result, time.perf_counter() - started)
                if budget is not None:
                    budget.spend(result.usage)
                return result
            except LLMError as exc:
                if not exc.retryable or attempt == self.max_retries:
                    self.accounting.count("failures")
                    raise
                self._sleep(self.backoff_s * 2**attempt)
        raise AssertionError("unreachable")


def _salvaged(
    text: str, salvage: Callable[[str], T | None], check: Check | None, problems: list[str]
) -> tuple[T | None, list[str]]:
    """What `salvage` makes of a malformed reply, if it passes `check`; else the first problems."""
    value = salvage(text)
    if value is None:
        return None, problems
    refused = check(value) if check else []
    return (None, problems + refused) if refused else (value, [])


def _parse(text: str, schema: type[T], check: Check | None) -> tuple[T | None, list[str], bool]:
    """The value, or the problems and whether the reply was not JSON in the schema's shape at all
    (True) rather than JSON that `check` refused (False)."""
    start = text.find("{")
    if start < 0:
        return None, ["no JSON object in the answer"], True
    try:
        data, _ = json.JSONDecoder().raw_decode(text[start:])
    except json.JSONDecodeError as exc:
        return None, [f"not valid JSON ({exc.msg})"], True
    try:
        value = schema.model_validate(data)
    except ValidationError as exc:
        return (
            None,
            [f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in exc.errors()[:5]],
            True,
        )
    problems = check(value) if check else []
    return (None, problems, False) if problems else (value, [], False)

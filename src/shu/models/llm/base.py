"""The provider protocol: messages in, text out (whole, or streamed piece by piece), with token usage."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel

from shu.errors import ShuError
from shu.prompts import Message as Message  # a prompt's message, what a model reads


class Usage(BaseModel):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class ChatResult(BaseModel):
    text: str
    model: str
    usage: Usage = Usage()
    finish_reason: str | None = None


class LLMError(ShuError):
    """The model could not be reached or answered with an error."""

    def __init__(self, message: str, retryable: bool = False) -> None:
        super().__init__(message)
        self.retryable = retryable


class LLM(Protocol):
    @property
    def name(self) -> str:
        """Provider and model, e.g. `openai:gpt-4o-mini`: part of every cache key and provenance."""
        ...

    def chat(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        """One completion. With `json_schema`, the provider is asked for JSON in that shape
        (validation is the caller's job: providers and small models do not always comply)."""
        ...


@runtime_checkable
class StreamingLLM(Protocol):
    """A provider that can also stream: text pieces as they are generated, then, if the
    provider reports it, one `Usage`. A provider without `stream` is streamed as one piece."""

    def stream(
        self, messages: list[Message], max_tokens: int, temperature: float
    ) -> Iterator[str | Usage]: ...

"""The provider protocol: messages in, text out, with token usage."""

from __future__ import annotations

from typing import Any, Literal, Protocol

from pydantic import BaseModel

from shu.errors import ShuError


class Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


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

"""Anthropic's Messages API over httpx. Structured output uses a forced tool call whose input
schema is the requested JSON schema (the API's own way to get JSON in a given shape)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx

from shu.models.llm.base import ChatResult, LLMError, Message, Usage
from shu.models.llm.openai_compat import _post, server_events

API_VERSION = "2023-06-01"


class AnthropicLLM:
    def __init__(
        self,
        model: str,
        api_key: str | None,
        base_url: str = "https://api.anthropic.com/v1",
        timeout_s: float = 60.0,
        client: httpx.Client | None = None,
    ) -> None:
        self.model = model
        headers = {"x-api-key": api_key or "", "anthropic-version": API_VERSION}
        self._client = client or httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s
        )

    @property
    def name(self) -> str:
        return f"anthropic:{self.model}"

    def stream(self, messages: list[Message], max_tokens: int, temperature: float) -> Iterator[str | Usage]:
        """The Messages API's event stream: `content_block_delta` text, usage from
        `message_start` (input) and `message_delta` (output), `error` raised."""
        body = self._body(messages, max_tokens, temperature) | {"stream": True}
        usage = Usage()
        for event, data in server_events(self._client, "messages", body):
            try:
                payload = json.loads(data)
                if event == "error":
                    message = (payload.get("error") or {}).get("message", "")
                    raise LLMError(f"{self.name}: stream error {message[:200]}", retryable=True)
                if event == "content_block_delta" and payload["delta"].get("type") == "text_delta":
                    yield str(payload["delta"]["text"])
                elif event == "message_start":
                    usage.prompt_tokens = int(payload["message"]["usage"].get("input_tokens") or 0)
                elif event == "message_delta":
                    usage.completion_tokens = int((payload.get("usage") or {}).get("output_tokens") or 0)
            except (ValueError, KeyError, AttributeError, TypeError) as exc:
                raise LLMError(f"{self.name}: unexpected stream event ({exc.__class__.__name__})") from exc
        yield usage

    def _body(self, messages: list[Message], max_tokens: int, temperature: float) -> dict[str, Any]:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        body: dict[str, Any] = {
            "model": self.model,
            "max_tokens": max_tokens,
            "temperature": temperature,
            "messages": [m.model_dump() for m in messages if m.role != "system"],
        }
        if system:
            body["system"] = system
        return body

    def chat(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        body = self._body(messages, max_tokens, temperature)
        if json_schema is not None:
            body["tools"] = [
                {"name": "answer", "description": "Give the answer.", "input_schema": json_schema}
            ]
            body["tool_choice"] = {"type": "tool", "name": "answer"}
        payload = _post(self._client, "messages", body)
        try:
            blocks = payload["content"]
            if json_schema is not None:
                tool = next(b for b in blocks if b.get("type") == "tool_use")
                text = json.dumps(tool["input"])
            else:
                text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
            usage = payload.get("usage") or {}
            return ChatResult(
                text=text,
                model=str(payload.get("model") or self.model),
                usage=Usage(
                    prompt_tokens=int(usage.get("input_tokens") or 0),
                    completion_tokens=int(usage.get("output_tokens") or 0),
                ),
                finish_reason=payload.get("stop_reason"),
            )
        except (KeyError, StopIteration, TypeError, ValueError) as exc:
            raise LLMError(f"{self.name}: unexpected response body ({exc.__class__.__name__})") from exc

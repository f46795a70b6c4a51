"""OpenAI-compatible `/chat/completions` over httpx: OpenAI, Ollama, vLLM, LM Studio and
`llama_cpp.server` all speak it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any, Literal

import httpx

from shu.models.llm.base import ChatResult, LLMError, Message, Usage


class OpenAICompatibleLLM:
    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        client: httpx.Client | None = None,
        json_mode: Literal["json_schema", "json_object"] = "json_schema",
    ) -> None:
        self.model = model
        self.json_mode = json_mode
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._client = client or httpx.Client(
            base_url=base_url.rstrip("/") + "/", headers=headers, timeout=timeout_s
        )

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def chat(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
        }
        if json_schema is not None and self.json_mode == "json_schema":  # OpenAI, vLLM
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": json_schema, "strict": True},
            }
        elif json_schema is not None:  # llama-cpp-python's server: a JSON object constrained by the schema
            body["response_format"] = {"type": "json_object", "schema": grammar_safe(json_schema)}
        payload = _post(self._client, "chat/completions", body)
        try:
            choice = payload["choices"][0]
            usage = payload.get("usage") or {}
            return ChatResult(
                text=choice["message"]["content"] or "",
                model=str(payload.get("model") or self.model),
                usage=Usage(
                    prompt_tokens=int(usage.get("prompt_tokens") or 0),
                    completion_tokens=int(usage.get("completion_tokens") or 0),
                ),
                finish_reason=choice.get("finish_reason"),
            )
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise LLMError(
                f"{self.name}: unexpected response body ({exc.__class__.__name__}: {exc})"
            ) from exc

    def stream(self, messages: list[Message], max_tokens: int, temperature: float) -> Iterator[str | Usage]:
        """Server-sent events of `chat/completions` with `stream: true`; usage when the server
        sends it (OpenAI does with `stream_options.include_usage`)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [m.model_dump() for m in messages],
            "max_tokens": max_tokens,
            "temperature": temperature,
            "stream": True,
        }
        if self.json_mode == "json_schema":  # OpenAI, vLLM; llama-cpp-python's server ignores no fields
            body["stream_options"] = {"include_usage": True}
        for _, data in server_events(self._client, "chat/completions", body):
            if data == "[DONE]":
                return
            try:
                payload = json.loads(data)
                choices = payload.get("choices") or []
                piece = (choices[0].get("delta") or {}).get("content") if choices else None
                usage = payload.get("usage")
            except (ValueError, AttributeError, IndexError, TypeError) as exc:
                raise LLMError(f"{self.name}: unexpected stream event ({exc.__class__.__name__})") from exc
            if piece:
                yield str(piece)
            if usage:
                yield Usage(
                    prompt_tokens=int(usage.get("prompt_tokens") or 0),
                    completion_tokens=int(usage.get("completion_tokens") or 0),
                )


def server_events(
    client: httpx.Client, path: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """POST, then the (event, data) pairs of the server-sent event stream that answers it."""
    try:
        with client.stream("POST", path, json=body, headers=headers) as response:
            if response.status_code >= 400:
                response.read()
                retryable = response.status_code in (408, 409, 429) or response.status_code >= 500
                detail = response.text[:200].replace("\n", " ")
                raise LLMError(
                    f"{client.base_url}{path}: HTTP {response.status_code} {detail}", retryable=retryable
                )
            event = "message"
            data: list[str] = []
            for line in response.iter_lines():
                if not line:
                    if data:
                        yield event, "\n".join(data)
                    event, data = "message", []
                elif line.startswith("event:"):
                    event = line[6:].strip()
                elif line.startswith("data:"):
                    data.append(line[5:].strip())
            if data:
                yield event, "\n".join(data)
    except httpx.TimeoutException as exc:
        raise LLMError(f"{client.base_url}{path}: timed out", retryable=True) from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"{client.base_url}{path}: {exc.__class__.__name__}: {exc}", retryable=True) from exc


def _post(
    client: httpx.Client, path: str, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Any:
    try:
        response = client.post(path, json=body, headers=headers)
    except httpx.TimeoutException as exc:
        raise LLMError(f"{client.base_url}{path}: timed out", retryable=True) from exc
    except httpx.HTTPError as exc:
        raise LLMError(f"{client.base_url}{path}: {exc.__class__.__name__}: {exc}", retryable=True) from exc
    if response.status_code >= 400:
        retryable = response.status_code in (408, 409, 429) or response.status_code >= 500
        detail = response.text[:200].replace("\n", " ")
        raise LLMError(f"{client.base_url}{path}: HTTP {response.status_code} {detail}", retryable=retryable)
    try:
        return response.json()
    except ValueError as exc:
        raise LLMError(f"{client.base_url}{path}: response is not JSON") from exc


_UNBOUNDED = (
    "maxLength",
    "minLength",
    "maxItems",
    "minItems",
    "maximum",
    "minimum",
    "exclusiveMaximum",
    "exclusiveMinimum",
)


def grammar_safe(schema: Any) -> Any:
    """The schema without length and range limits: llama.cpp compiles `maxLength: 400` into a
    grammar rule per character and fails ("failed to parse grammar"), then generates with no
    grammar at all. The reply is still validated against the full schema (pydantic) on arrival."""
    if isinstance(schema, dict):
        return {k: grammar_safe(v) for k, v in schema.items() if k not in _UNBOUNDED}
    if isinstance(schema, list):
        return [grammar_safe(item) for item in schema]
    return schema

"""A scripted model: answers from a list, a function, or a JSONL recording, and remembers every
call. For deterministic tests of LLM-dependent logic and for replaying recorded sessions."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from shu.models.llm.base import ChatResult, LLMError, Message, Usage

Script = Callable[[list[Message], dict[str, Any] | None], str]


class ScriptedLLM:
    def __init__(self, replies: list[str] | Script, model: str = "scripted") -> None:
        self._replies = replies
        self.model = model
        self.calls: list[list[Message]] = []
        self.max_tokens: list[int] = []
        """The reply budget each call was given, in order."""

    @classmethod
    def from_recording(cls, path: Path) -> ScriptedLLM:
        """A JSONL file of {"reply": "..."} lines, replayed in order."""
        replies = [
            json.loads(line)["reply"]
            for line in path.read_text(encoding="utf-8").splitlines()
            if line.strip()
        ]
        return cls(replies, model=f"recording:{path.name}")

    @property
    def name(self) -> str:
        return f"scripted:{self.model}"

    def stream(self, messages: list[Message], max_tokens: int, temperature: float) -> Iterator[str | Usage]:
        """The scripted reply in pieces of a few characters (so a citation key arrives split)."""
        result = self.chat(messages, max_tokens, temperature)
        for start in range(0, len(result.text), 5):
            yield result.text[start : start + 5]
        yield result.usage

    def chat(
        self,
        messages: list[Message],
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None = None,
    ) -> ChatResult:
        self.calls.append(messages)
        self.max_tokens.append(max_tokens)
        if callable(self._replies):
            text = self._replies(messages, json_schema)
        else:
            if len(self.calls) > len(self._replies):
                raise LLMError(f"{self.name}: the script has only {len(self._replies)} replies")
            text = self._replies[len(self.calls) - 1]
        words = sum(len(m.content.split()) for m in messages)
        return ChatResult(
            text=text, model=self.model, usage=Usage(prompt_tokens=words, completion_tokens=len(text.split()))
        )

"""The model behind `shu eval-replay`: each request Shu sends is answered from the recording of the
question being asked (`begin(question_id)`), as a `ScriptedLLM` script.

- answer request (no JSON schema; its last user message ends with `Question: <q>`): the recorded
  answer reply, when the question is the recorded one;
- scope request (a schema with `decision`): the recorded scope reply, else "in scope";
- verify request (a schema with `verdicts`): with `verify_recorded`, the recorded verify reply
  when the claims Shu now sends are the recorded request's claims, else an `LLMError`, and the
  verifier falls back to its rules (counted: `fell_back`);
- anything else (or a request the recording has no reply for) is an `LLMError`: `unrecorded`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from shu.models.llm.base import LLMError, Message
from shu_eval.recordings import Recorded, asked_question, claim_lines


@dataclass
class Sent:
    """One request Shu sent during the replay and what the replay did with it."""

    kind: str
    """scope, answer, verify, or other."""
    outcome: str
    """recorded (the recorded reply), default (scope: in scope), fell_back (verify: claims
    changed, the rules decide) or unrecorded (an error: no reply recorded for it)."""
    chars: int
    recorded: int | None = None
    """The number of the recorded request it was answered from."""
    same_prompt: bool | None = None
    """The messages are exactly those of the recorded request."""


@dataclass
class ReplayModel:
    recordings: dict[str, Recorded]
    verify_recorded: bool
    current: str | None = None
    sent: dict[str, list[Sent]] = field(default_factory=dict)

    def begin(self, question_id: str) -> None:
        if question_id not in self.recordings:
            raise KeyError(f"no recording for {question_id!r}")
        self.current = question_id
        self.sent.setdefault(question_id, [])

    def __call__(self, messages: list[Message], schema: dict[str, Any] | None) -> str:
        if self.current is None:
            raise LLMError("replay: no question begun")
        recorded = self.recordings[self.current]
        given = [m.model_dump() for m in messages]
        kind = _kind(given, schema)
        chars = sum(len(m.content) for m in messages)
        log = self.sent[self.current]
        exchange = recorded.first(kind) if kind != "other" else None
        used = any(s.recorded is not None and s.kind == kind for s in log)
        if kind == "scope" and (exchange is None or used):
            log.append(Sent(kind, "default", chars))
            return _in_scope(schema)
        if exchange is None or used or (kind == "verify" and not self.verify_recorded):
            log.append(Sent(kind, "unrecorded", chars))
            raise LLMError(f"replay: no recorded {kind} reply for {self.current}")
        same = given == exchange.request.get("messages")
        if kind == "answer" and asked_question(given) != " ".join(str(recorded.answer["question"]).split()):
            log.append(Sent(kind, "unrecorded", chars, same_prompt=False))
            raise LLMError(f"replay: the answer request of {self.current} asks another question")
        if kind == "verify" and claim_lines(given) != claim_lines(exchange.request["messages"]):
            log.append(Sent(kind, "fell_back", chars, exchange.number, same))
            raise LLMError(f"replay: the claims of {self.current} changed since the recording")
        log.append(Sent(kind, "recorded", chars, exchange.number, same))
        return exchange.reply


def _kind(messages: list[dict[str, Any]], schema: dict[str, Any] | None) -> str:
    properties = (schema or {}).get("properties", {})
    if "verdicts" in properties:
        return "verify"
    if "decision" in properties or "in_scope" in properties:
        return "scope"
    if schema is None and asked_question(messages) is not None:
        return "answer"
    return "other"


def _in_scope(schema: dict[str, Any] | None) -> str:
    """An "in scope" reply in the request's schema (`decision` enum, or an `in_scope` flag)."""
    properties: dict[str, Any] = (schema or {}).get("properties", {})
    reply: dict[str, Any] = {}
    for name, spec in properties.items():
        options = spec.get("enum", [])
        if options:
            reply[name] = next((o for o in options if o == "in_scope"), options[0])
        elif spec.get("type") == "boolean":
            reply[name] = name == "in_scope"
        elif spec.get("type") == "string":
            reply[name] = "no scope request was recorded for this question (replay)"
    return json.dumps(reply or {"decision": "in_scope"})

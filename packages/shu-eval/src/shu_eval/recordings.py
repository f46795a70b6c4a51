"""Recorded model replies to Shu's prompts (`../shared/data/capable-model-replies/`): per question,
the requests Shu sent (scope, answer, verify, in order), the model's replies, and Shu's final
answer as it was shown then. Read here; replayed by `shu_eval.replay_model`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.text import count_tokens

KINDS = ("scope", "answer", "verify")
_CLAIM = re.compile(r"^Claim (\d+): (.*?)\n<cited>", re.MULTILINE | re.DOTALL)
"""A claim of the verify prompt's first version (each claim with its passage)."""
_LISTED_CLAIM = re.compile(r"^Claim (\d+) \(passage [\d, ]*\): (.*)$", re.MULTILINE)
"""A claim of verify.v2 (the passages once, then the claims naming theirs)."""
_QUESTION = re.compile(r"Question: (.+?)\s*$", re.DOTALL)


class RecordingError(ValueError):
    """The recordings cannot be read: names the file."""


@dataclass(frozen=True)
class Exchange:
    """One request Shu sent and the reply it got."""

    number: int
    kind: str
    request: dict[str, Any]
    reply: str

    @property
    def request_chars(self) -> int:
        return sum(len(str(m.get("content", ""))) for m in self.request.get("messages", []))

    @property
    def reply_tokens(self) -> int:
        """The reply's length in Shu's own token count (the provider's count was not recorded)."""
        return count_tokens(self.reply)


@dataclass
class Recorded:
    """One question's requests and replies, and the final answer recorded for it."""

    question_id: str
    exchanges: list[Exchange] = field(default_factory=list)
    answer: dict[str, Any] = field(default_factory=dict)

    def first(self, kind: str) -> Exchange | None:
        return next((e for e in self.exchanges if e.kind == kind), None)


def claim_lines(messages: list[dict[str, Any]]) -> list[str]:
    """The `Claim N: …` lines of a verify request, in order (what the claims compared on)."""
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    if not users:
        return []
    found = list(_LISTED_CLAIM.finditer(users[-1])) or list(_CLAIM.finditer(users[-1]))
    return [" ".join(m.group(2).split()) for m in found]


def asked_question(messages: list[dict[str, Any]]) -> str | None:
    """The question an answer request asks: its last user message ends with `Question: <q>`."""
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    if not users:
        return None
    found = _QUESTION.search(users[-1].rsplit("\n\n", 1)[-1])
    return " ".join(found.group(1).split()) if found else None


def load_recordings(folder: Path) -> dict[str, Recorded]:
    """question id → its recording, in the order of `log.txt`."""
    log = folder / "log.txt"
    try:
        lines = log.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise RecordingError(f"{log}: {exc}") from None
    found: dict[str, Recorded] = {}
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) < 3 or not parts[1].startswith("reqs"):
            raise RecordingError(f"{log}: cannot read {line!r}")
        question_id, numbers, kinds = parts[0], parts[1].removeprefix("reqs").strip(), parts[2]
        recorded = Recorded(question_id, answer=_json(folder / "answers" / f"{question_id}.json"))
        if numbers != "-":
            pairs = zip(numbers.split(","), kinds.split(","), strict=True)
            recorded.exchanges = [_exchange(folder, int(n), kind.strip()) for n, kind in pairs]
        found[question_id] = recorded
    if not found:
        raise RecordingError(f"{log}: no questions")
    return found


def _exchange(folder: Path, number: int, kind: str) -> Exchange:
    if kind not in KINDS:
        raise RecordingError(f"{folder / 'log.txt'}: request {number} has an unknown kind {kind!r}")
    request = _json(folder / "requests" / f"req-{number:04d}.json")
    reply_path = folder / "replies" / f"resp-{number:04d}.txt"
    try:
        reply = reply_path.read_text(encoding="utf-8")
    except OSError as exc:
        raise RecordingError(f"{reply_path}: {exc}") from None
    return Exchange(number, kind, request, reply)


def _json(path: Path) -> dict[str, Any]:
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise RecordingError(f"{path}: {exc}") from None
    if not isinstance(loaded, dict):
        raise RecordingError(f"{path}: expected a JSON object")
    return loaded

"""The verifier protocol, how an answer splits into claims, and what is done with the verdicts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from shu.answer.citations import ContextKeys
from shu.types import Answer, AnswerSentence, AssembledContext, Verification

_CLAUSE = re.compile(r";\s+|,?\s+and\s+(?=(?:the|a|an|it|they|we|you|this|that|each|every|[A-Z])\b)")
"""Clause boundaries inside a sentence: `;`, or `and` that starts a new clause."""


@dataclass(frozen=True)
class Claim:
    text: str
    citations: list[str]
    sentence: int
    """Index of the answer sentence it came from."""


class Verifier(Protocol):
    name: str

    def verify(self, claims: list[Claim], context: AssembledContext) -> Verification: ...


def split_claims(answer: Answer) -> list[Claim]:
    """Each sentence, and its clauses joined by `;` or a clause-starting `and`, when each part is
    a statement of its own (four words or more); a clause inherits its sentence's citations."""
    claims: list[Claim] = []
    for index, sentence in enumerate(answer.sentences):
        parts = [p.strip(" .") for p in _CLAUSE.split(sentence.text)]
        if len(parts) > 1 and all(len(p.split()) >= 4 for p in parts):
            claims += [Claim(p, list(sentence.citations), index) for p in parts]
        else:
            claims.append(Claim(sentence.text, list(sentence.citations), index))
    return claims


def cited_text(claim: Claim, keys: ContextKeys) -> str:
    """The text of the context sections the claim cites (empty when it cites none of them)."""
    return "\n\n".join(keys.sources[k].section.text for k in claim.citations if k in keys.sources)


def apply_verification(
    answer: Answer, verification: Verification, claims: list[Claim], on_unsupported: Literal["mark", "remove"]
) -> Answer:
    """The answer with its verification; a sentence holding a flagged claim is marked
    `[unsupported]` / `[contradicted]` (or removed, with its citations if nothing else uses them)."""
    flagged: dict[int, str] = {}
    for claim, verdict in zip(claims, verification.verdicts, strict=True):
        if verdict.verdict != "supported":
            worst = (
                "contradicted"
                if verdict.verdict == "contradicted"
                else flagged.get(claim.sentence, "unsupported")
            )
            flagged[claim.sentence] = worst
    spent = {
        "llm_calls": answer.llm_calls + verification.llm_calls,
        "llm_tokens": answer.llm_tokens + verification.llm_tokens,
    }
    if not flagged:
        return answer.model_copy(update={"verification": verification, **spent})
    sentences: list[AnswerSentence] = []
    text = answer.text
    for index, sentence in enumerate(answer.sentences):
        mark = flagged.get(index)
        if mark is None:
            sentences.append(sentence)
        elif on_unsupported == "remove":
            text = _without(text, sentence.text)
        else:
            sentences.append(sentence.model_copy(update={"text": f"{sentence.text} [{mark}]"}))
            text = _marked(text, sentence.text, mark)
    used = {c for s in sentences for c in s.citations}
    citations = (
        [c for c in answer.citations if c.key in used] if on_unsupported == "remove" else answer.citations
    )
    return answer.model_copy(
        update={
            "verification": verification,
            "sentences": sentences,
            "text": text,
            "citations": citations,
            **spent,
        }
    )


def _marked(text: str, sentence: str, mark: str) -> str:
    at = text.find(sentence)
    if at < 0:
        return text
    end = at + len(sentence)
    return f"{text[:end]} [{mark}]{text[end:]}"


def _without(text: str, sentence: str) -> str:
    at = text.find(sentence)
    if at < 0:
        return text
    end = at + len(sentence)
    tail = re.match(r"(?:\s*\[\^[^\[\]\n]*\])*", text[end:])
    end += tail.end() if tail else 0
    return " ".join((text[:at] + text[end:]).split(" ")).replace("  ", " ").strip()

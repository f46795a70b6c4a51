"""Is a question within the persona's expertise? (docs/design/answers-and-citations.md#out-of-scope)

- without an LLM (`SubjectScope`): the question's cosine with the persona's subject — the
  sentences of `persona.md`, its tags, the synopses and capability manifests of its documents,
  and the best chunk retrieval found — against a threshold calibrated on a labelled set
  (`shu eval --scope`);
- with an LLM (`LLMScope`): where the rules are unsure (closeness between the threshold and
  `answer.scope_sure`), a structured verdict from persona.md and what the documents cover; when
  the model fails, the subject rule decides.

A question in scope that the documents do not answer is not deferred: the answerer declines it
as insufficient, saying what is missing.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
from pydantic import BaseModel, Field

from shu.answer.quote import quoted
from shu.models.embed.base import Embedder
from shu.models.llm.base import LLMError
from shu.models.llm.client import LLMClient, StructuredOutputError
from shu.prompts import load_prompt
from shu.store.base import PROFILE_SURFACES, KnowledgeReader
from shu.text import STOPWORDS, split_sentences
from shu.types import Persona, RetrievalResult

log = logging.getLogger(__name__)

_TOPICS_SHOWN = 40
_NAMED_TITLES = 500
_NAMED = re.compile(r"\b[A-Za-z][\w-]*\d[\w-]*|(?<!^)(?<![.?!] )\b[A-Z][a-z]+(?:\s[A-Z][a-z]+)*")
"""A code with digits (INC-2026-0317, SAML-004, Q3), or a capitalised name not opening the question."""


@dataclass(frozen=True)
class ScopeDecision:
    in_scope: bool
    reason: str
    method: str
    score: float | None = None
    degraded: str | None = None
    """Why the configured judge could not decide (the rules did instead)."""
    llm_calls: int = 0
    llm_tokens: int = 0
    """What asking the model cost (counted in the answer's `llm_calls` / `llm_tokens`)."""


class ScopeJudge(Protocol):
    def judge(self, result: RetrievalResult, persona: Persona, model: bool = True) -> ScopeDecision:
        """`model`: False when the answer is settled without a model whatever the judge says (a
        question whose names the documents never mention is declined either way)."""
        ...


class SubjectScope:
    def __init__(self, store: KnowledgeReader, embedder: Embedder, threshold: float) -> None:
        self.store = store
        self.embedder = embedder
        self.threshold = threshold
        self._subjects: dict[str, tuple[list[str], np.ndarray]] = {}
        self._lock = threading.Lock()

    def judge(self, result: RetrievalResult, persona: Persona, model: bool = True) -> ScopeDecision:
        score, closest = self.closeness(result, persona)
        in_scope = score >= self.threshold
        verdict = "within" if in_scope else "outside"
        return ScopeDecision(
            in_scope,
            f"{verdict} {persona.display_name}'s subject: closest is {closest} ({score:.2f}, "
            f"threshold {self.threshold:.2f})",
            "subject",
            round(score, 4),
        )

    def closeness(self, result: RetrievalResult, persona: Persona) -> tuple[float, str]:
        """The best cosine between the question and anything that says what the persona covers."""
        vector = self.embedder.embed_query(result.question)
        texts, matrix = self._subject(persona)
        found: list[tuple[float, str]] = []
        if len(texts):
            scores = matrix @ vector
            best = int(np.argmax(scores))
            found.append((float(scores[best]), f"persona.md: “{_short(texts[best])}”"))
        for surface in PROFILE_SURFACES:
            for document in self.store.search_profiles(vector, persona.slug, surface, 1):
                found.append((document.score, f"the {surface} of {document.doc_id}"))
        dense = result.surfaces.get("dense") or []
        if dense:
            found.append((dense[0].score, f"chunk {dense[0].chunk_id}"))
        return max(found, default=(0.0, "nothing"))

    def _subject(self, persona: Persona) -> tuple[list[str], np.ndarray]:
        texts = [persona.display_name, *persona.config.tags, *split_sentences(persona.description)]
        texts = [t.strip("# ").strip() for t in texts if len(t.split()) >= 1 and t.strip("# ").strip()]
        key = hashlib.sha256("\n".join([persona.slug, *texts]).encode()).hexdigest()
        with self._lock:
            if key not in self._subjects:
                matrix = self.embedder.embed_documents(texts) if texts else np.zeros((0, 1), np.float32)
                self._subjects[key] = (texts, matrix)
            return self._subjects[key]


class _Verdict(BaseModel):
    decision: Literal["in_scope", "out_of_scope"]
    reason: str = Field(max_length=300)


class LLMScope:
    """The model judges only where the rules are unsure: a question closer to the persona's
    subject than `sure` is in scope, one below the rules' threshold is out, without a call. A
    model that misjudges (a small one calls everything out of scope) can then only err in the
    band where the rules would have guessed."""

    def __init__(
        self, client: LLMClient, store: KnowledgeReader, rules: SubjectScope, sure: float = 0.5
    ) -> None:
        self.client = client
        self.store = store
        self.rules = rules
        self.sure = sure

    def judge(self, result: RetrievalResult, persona: Persona, model: bool = True) -> ScopeDecision:
        decided = self.rules.judge(result, persona)
        if not decided.in_scope or (decided.score is not None and decided.score >= self.sure) or not model:
            return decided
        if named := self._named(result.question, persona):
            reason = f"it names {named}, which {persona.display_name}'s description or documents name"
            return ScopeDecision(True, reason, "named", decided.score)
        prompt = load_prompt("scope")
        messages = prompt.messages(
            persona_name=persona.display_name,
            persona_description=quoted(persona.description)[:4000],
            topics=self._topics(persona),
            question=result.question,
        )
        try:
            answered = self.client.structured(messages, _Verdict, max_tokens=200)
        except (LLMError, StructuredOutputError) as exc:
            log.warning("the scope model failed, the rules decide: %s", exc)
            return ScopeDecision(
                decided.in_scope,
                decided.reason,
                "subject",
                decided.score,
                degraded=f"the model failed: {exc}",
            )
        verdict, usage = answered.value, answered.result.usage
        return ScopeDecision(
            verdict.decision == "in_scope",
            quoted(verdict.reason),
            f"llm:{self.client.name}",
            decided.score,
            llm_calls=answered.attempts,
            llm_tokens=(usage.prompt_tokens + usage.completion_tokens) * answered.attempts,
        )

    def _named(self, question: str, persona: Persona) -> str | None:
        """A code or a name of the question (INC-2026-0317, Bramley) that the persona's
        description or one of its document titles holds: plainly in scope, no call."""
        titles = " ".join(d.title for d in self.store.list_documents(persona.slug)[:_NAMED_TITLES])
        told = f"{persona.description} {titles}".casefold()
        for term in _NAMED.findall(question):
            if len(term) >= 3 and term.casefold() not in STOPWORDS and term.casefold() in told:
                return f"“{term}”"
        return None

    def _topics(self, persona: Persona) -> str:
        """Titles of the persona's documents, one a line (the first 40)."""
        documents = self.store.list_documents(persona.slug)[:_TOPICS_SHOWN]
        return "\n".join(f"- {quoted(d.title)}" for d in documents) or "- (no documents yet)"


def deferral(persona: Persona) -> str:
    return (
        f"This question is outside {persona.display_name}'s expertise, so it is not answered from "
        f"{persona.display_name}'s documents. Ask a source that covers it."
    )


def _short(text: str) -> str:
    return text if len(text) <= 80 else text[:77] + "…"

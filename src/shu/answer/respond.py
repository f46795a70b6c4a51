"""What `ask` does with a retrieval result: judge the scope first, then answer, defer, or
(`answer.out_of_scope = "general"`) let the configured LLM answer from its own knowledge,
labelled as not from the knowledge base."""

from __future__ import annotations

from collections.abc import Iterator

from shu.answer.base import Answerer, answer_stream
from shu.answer.scope import ScopeDecision, ScopeJudge, deferral
from shu.answer.stream import AskEvent, StreamReset
from shu.models.llm.base import LLMError
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.types import Answer, Persona, RetrievalResult


class ScopedAnswerer:
    def __init__(
        self,
        inner: Answerer,
        judge: ScopeJudge | None,
        general: LLMClient | None = None,
        max_tokens: int = 600,
    ) -> None:
        self.inner = inner
        self.judge = judge
        self.general = general
        self.max_tokens = max_tokens
        self.name = inner.name

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        final = None
        for event in self.stream(result, persona):
            if isinstance(event, Answer):
                final = event
        assert final is not None, "a stream always ends with an answer"
        return final

    def stream(self, result: RetrievalResult, persona: Persona) -> Iterator[AskEvent]:
        lookup = result.plan.query_type == "document_lookup"  # asks for a document: the documents decide
        decision = self.judge.judge(result, persona) if self.judge and not lookup else None
        if decision is not None and not decision.in_scope:
            result.notes.append(f"scope ({decision.method}): {decision.reason}")
            if self.general is None:
                yield _deferred(result, persona, decision)
            else:
                yield from self._general(result, persona, decision)
            return
        if decision is not None:
            result.notes.append(f"scope ({decision.method}): {decision.reason}")
        for event in answer_stream(self.inner, result, persona):
            if isinstance(event, Answer) and decision is not None and decision.score is not None:
                event = event.model_copy(update={"scope_closeness": decision.score})
            yield event

    def _general(
        self, result: RetrievalResult, persona: Persona, decision: ScopeDecision
    ) -> Iterator[AskEvent]:
        assert self.general is not None
        prompt = load_prompt("general")
        messages = prompt.messages(persona_name=persona.display_name, question=result.question)
        calls = self.general.accounting.calls
        label = f"(General knowledge, not from {persona.display_name}'s documents.) "
        pieces: list[str] = [label]
        yield label
        try:
            for delta in self.general.stream(messages, self.max_tokens, 0.0):
                pieces.append(delta)
                yield delta
        except LLMError as exc:
            yield StreamReset(f"the model failed: {exc}")
            yield _deferred(result, persona, decision).model_copy(update={"fallback_reason": str(exc)})
            return
        yield Answer(
            question=result.question,
            persona=persona.slug,
            text=" ".join("".join(pieces).split(" ")).strip(),
            method=f"general:{self.general.name}",
            hits=result.hits,
            out_of_scope=True,
            from_knowledge_base=False,
            prompt_version=prompt.version,
            llm_calls=self.general.accounting.calls - calls,
        )


def _deferred(result: RetrievalResult, persona: Persona, decision: ScopeDecision) -> Answer:
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=deferral(persona),
        method="deferred",
        hits=result.hits,
        insufficient=True,
        out_of_scope=True,
        scope_closeness=decision.score,
    )

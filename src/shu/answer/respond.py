"""What `ask` does with a retrieval result: judge the scope first, then answer, defer, or
(`answer.out_of_scope = "general"`) let the configured LLM answer from its own knowledge,
labelled as not from the knowledge base."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from shu.answer.absent import StoreTerms, absent_terms
from shu.answer.base import Answerer, answer_stream
from shu.answer.citations import ContextKeys, check_citations
from shu.answer.generate import spent_on
from shu.answer.periods import uncovered_months
from shu.answer.scope import ScopeDecision, ScopeJudge, deferral
from shu.answer.stream import AskEvent, KeyFilter, StreamReset, filtered, final_answer
from shu.answer.verify.base import Verifier, apply_verification, split_claims
from shu.models.llm.base import ChatResult, LLMError
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.types import Answer, AssembledContext, Persona, RetrievalResult


class ScopedAnswerer:
    def __init__(
        self,
        inner: Answerer,
        judge: ScopeJudge | None,
        general: LLMClient | None = None,
        max_tokens: int = 600,
        verifier: Verifier | None = None,
        on_unsupported: Literal["mark", "remove"] = "mark",
        absent_terms: bool = False,
        terms: StoreTerms | None = None,
    ) -> None:
        self.inner = inner
        self.judge = judge
        self.general = general
        self.max_tokens = max_tokens
        self.verifier = verifier
        self.on_unsupported = on_unsupported
        self.absent_terms = absent_terms
        self.terms = terms
        """What the whole knowledge base mentions (without it, only the context is asked)."""
        self.name = inner.name

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        return final_answer(self.stream(result, persona))

    def stream(self, result: RetrievalResult, persona: Persona) -> Iterator[AskEvent]:
        lookup = result.plan.query_type == "document_lookup"  # asks for a document: the documents decide
        missing = self._absent_terms(result, persona) if self.absent_terms and not lookup else []
        settled = bool(missing) and self.general is None  # declined whatever the model would say
        decision = self.judge.judge(result, persona, model=not settled) if self.judge and not lookup else None
        if decision is not None and not decision.in_scope:
            result.notes.append(f"scope ({decision.method}): {decision.reason}")
            if self.general is None:
                yield _judged(_deferred(result, persona, decision), decision)
            else:
                yield from self._general(result, persona, decision)
            return
        if decision is not None:
            result.notes.append(f"scope ({decision.method}): {decision.reason}")
        if missing:
            result.notes.append(f"absent from the context: {', '.join(missing)}")
            declined = _absent(result, persona, missing)
            yield _judged(declined, decision) if decision is not None else declined
            return
        for event in answer_stream(self.inner, result, persona):
            if isinstance(event, Answer):
                event = self._verified(event, result, persona)
                event = _judged(event, decision) if decision is not None else event
            yield event

    def _absent_terms(self, result: RetrievalResult, persona: Persona) -> list[str]:
        if self.terms is None:
            return absent_terms(result.question, result.context, persona)
        doc_ids = [d.doc_id for d in result.context.documents]
        within = self.terms.kept(persona.slug, result.filter)
        known, metadata = self.terms.known(persona.slug, within), self.terms.metadata(doc_ids)
        missing = absent_terms(result.question, result.context, persona, known, metadata)
        sections = [s.text for d in result.context.documents for s in d.sections]
        spans = {
            d: span for d, span in self.terms.spans(persona.slug).items() if within is None or d in within
        }
        months = uncovered_months(result.question, sections, spans, doc_ids)
        return missing + [str(month) for month in months]

    def _verified(self, answer: Answer, result: RetrievalResult, persona: Persona) -> Answer:
        """Each claim checked against what it cites. Quoted answers are not: a sentence quoted
        verbatim from the section it cites is supported by construction (measured: 0 of their
        claims flagged on five datasets, at 40–120 ms a question)."""
        if self.verifier is None or answer.insufficient or answer.quoted or not answer.sentences:
            return answer
        claims = split_claims(answer)
        verification = self.verifier.verify(claims, result.context, background(persona))
        return apply_verification(answer, verification, claims, self.on_unsupported)

    def _general(
        self, result: RetrievalResult, persona: Persona, decision: ScopeDecision
    ) -> Iterator[AskEvent]:
        assert self.general is not None
        prompt = load_prompt("general")
        messages = prompt.messages(persona_name=persona.display_name, question=result.question)
        label = f"(General knowledge, not from {persona.display_name}'s documents.) "
        shown = KeyFilter(ContextKeys(AssembledContext()), detect_abstention=False)
        spent: list[ChatResult] = []
        pieces: list[str] = []
        yield label
        try:
            yield from filtered(
                self.general.stream(messages, self.max_tokens, 0.0, record=spent), shown, pieces
            )
        except LLMError as exc:
            yield StreamReset(f"the model failed: {exc}")
            yield _deferred(result, persona, decision).model_copy(update={"fallback_reason": str(exc)})
            return
        checked = check_citations("".join(pieces), ContextKeys(AssembledContext()))  # it may cite nothing
        yield Answer(
            question=result.question,
            persona=persona.slug,
            text=label + checked.text,
            method=f"general:{self.general.name}",
            hits=result.hits,
            out_of_scope=True,
            from_knowledge_base=False,
            prompt_version=prompt.version,
            **spent_on(spent),
        )


def background(persona: Persona) -> str:
    """What the writer was told of the persona besides the context: names from it (the
    product's, the organisation's) are not invented by the answer."""
    aliases = "; ".join(f"{short}: {long}" for short, long in persona.config.aliases.items())
    return "\n".join(part for part in (persona.display_name, persona.description, aliases) if part)


def _absent(result: RetrievalResult, persona: Persona, missing: list[str]) -> Answer:
    """Declined, saying which of the question's names or codes the documents do not mention."""
    named = ", ".join(f"“{term}”" for term in missing)
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=f"None of {persona.display_name}'s documents found for this question mentions {named}, "
        "so they cannot answer it. Add a document that covers it and ingest again.",
        method="declined",
        hits=result.hits,
        insufficient=True,
        evidence=0.0,  # nothing states it: corrective retrieval may search for the term
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


def _judged(answer: Answer, decision: ScopeDecision) -> Answer:
    """The answer with the scope judge's closeness and what its model call cost, and — when the
    judge fell back from the LLM to the rules — why (so the answer is not cached as if the judge
    had worked)."""
    update: dict[str, object] = {
        "scope_closeness": decision.score,
        "llm_calls": answer.llm_calls + decision.llm_calls,
        "llm_tokens": answer.llm_tokens + decision.llm_tokens,
    }
    if decision.degraded and not answer.fallback_reason:
        update["fallback_reason"] = f"scope judged by the rules: {decision.degraded}"
    return answer.model_copy(update=update)

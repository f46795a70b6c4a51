"""Corrective retrieval (CRAG, stage 7): when an answer rests on weak evidence, declines for lack
of it, or holds claims the verifier found unsupported, search again for what is missing — the
question's names and words that no retrieved document holds, the unsupported claims' words the
cited text lacks — and answer again from the widened context. Bounded by `verify.max_rounds`;
the corrected answer replaces the first only when it is better."""

from __future__ import annotations

from dataclasses import dataclass

from shu.text import content_words, stem
from shu.types import Answer, RetrievalResult

_MAX_QUERY_WORDS = 12


@dataclass(frozen=True)
class Need:
    reason: str
    query: str


def correction_needed(answer: Answer, result: RetrievalResult, weak_evidence: float) -> Need | None:
    """Why and what to search again for, or None (a good answer, a deferral, a lookup, or
    nothing left to search for)."""
    if answer.out_of_scope or answer.method == "full_document" or answer.cached:
        return None
    reason = _weakness(answer, weak_evidence)
    if reason is None:
        return None
    query = missing_terms(answer, result)
    if not query:
        return None
    return Need(reason, query)


def better(first: Answer, second: Answer) -> bool:
    """Whether the answer from the corrected context should replace the first: it answers where
    the first declined, or more of its claims are supported, or it covers more of the question's
    words at about the same evidence, or its evidence is clearly stronger."""
    if first.insufficient != second.insufficient:
        return first.insufficient
    if second.insufficient:
        return False
    first_support = first.verification.support_ratio if first.verification else 1.0
    second_support = second.verification.support_ratio if second.verification else 1.0
    if abs(first_support - second_support) > 1e-9:
        return second_support > first_support
    first_evidence, second_evidence = first.evidence or 0.0, second.evidence or 0.0
    if covered(second) > covered(first) and second_evidence >= first_evidence - 0.05:
        return True
    return second_evidence > first_evidence + 0.02


def covered(answer: Answer) -> int:
    """How many of the question's content words the answer's text holds."""
    said = {stem(w) for w in content_words(answer.text)}
    return len({stem(w) for w in content_words(answer.question)} & said)


def missing_terms(answer: Answer, result: RetrievalResult) -> str:
    """The question's names and content words no context document holds, then the words of
    unsupported claims that the text they cite lacks: what the next search looks for."""
    held = {stem(w) for d in result.context.documents for s in d.sections for w in content_words(s.text)}
    held |= {stem(w) for d in result.context.documents for w in content_words(d.title)}
    wanted = [*result.plan.entities, *content_words(result.question)]
    if answer.verification:
        for verdict in answer.verification.flagged:
            wanted += content_words(verdict.claim)
    missing: list[str] = []
    for term in wanted:
        words = content_words(term)
        if words and not all(stem(w) in held for w in words) and term.casefold() not in missing:
            missing.append(term.casefold())
    return " ".join(missing[:_MAX_QUERY_WORDS])


def _weakness(answer: Answer, weak_evidence: float) -> str | None:
    if answer.verification and answer.verification.flagged:
        return f"{len(answer.verification.flagged)} claim(s) not supported by what they cite"
    if answer.evidence is None:
        return None
    if answer.insufficient:
        return f"declined (best evidence {answer.evidence:.2f})"
    if answer.evidence < weak_evidence:
        return f"weak evidence ({answer.evidence:.2f} < {weak_evidence:.2f})"
    return None

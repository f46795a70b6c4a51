"""Stage 2: the question rewritten for search. Contractions and the persona's abbreviations are
spelled out, variations are added (rule-based, or written by an LLM and validated), and with an
LLM a hypothetical answer (HyDE) is written to be embedded. The answer step always receives the
user's original question, never these rewrites."""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from shu import checks
from shu.errors import ShuError
from shu.models.llm.client import LLMClient
from shu.prompts import load_prompt
from shu.text import content_words, stem
from shu.types import QueryPlan, SearchQueries

_CONTRACTIONS = {
    "what's": "what is",
    "who's": "who is",
    "where's": "where is",
    "when's": "when is",
    "how's": "how is",
    "why's": "why is",
    "that's": "that is",
    "it's": "it is",
    "there's": "there is",
    "isn't": "is not",
    "aren't": "are not",
    "wasn't": "was not",
    "weren't": "were not",
    "doesn't": "does not",
    "don't": "do not",
    "didn't": "did not",
    "can't": "cannot",
    "couldn't": "could not",
    "won't": "will not",
    "wouldn't": "would not",
    "shouldn't": "should not",
    "haven't": "have not",
    "hasn't": "has not",
    "i'm": "i am",
    "i've": "i have",
    "we're": "we are",
    "we've": "we have",
    "they're": "they are",
    "you're": "you are",
    "let's": "let us",
}
_CONTRACTION = re.compile(r"\b(" + "|".join(re.escape(c) for c in _CONTRACTIONS) + r")\b", re.I | re.ASCII)
_APOSTROPHES = str.maketrans({"’": "'", "‘": "'"})


class _Rewrites(BaseModel):
    variations: list[str] = Field(min_length=1, max_length=5)
    hypothetical_answer: str = Field("", max_length=1200)


def expand_contractions(text: str) -> str:
    text = text.translate(_APOSTROPHES)

    def spelled(match: re.Match[str]) -> str:
        long = _CONTRACTIONS.get(match.group(1).lower())
        return _match_case(long, match.group(1)) if long else match.group(0)

    return _CONTRACTION.sub(spelled, text)


def expand_abbreviations(text: str, aliases: dict[str, str]) -> str:
    """`SSO` → `SSO (single sign-on)` for each alias the persona declares (whole words)."""
    for short, long in sorted(aliases.items(), key=lambda pair: -len(pair[0])):
        pattern = re.compile(rf"\b{re.escape(short)}\b", re.I if short.islower() else 0)
        if long.casefold() not in text.casefold():

            def with_long(m: re.Match[str], long: str = long) -> str:
                return f"{m.group(0)} ({long})"

            text = pattern.sub(with_long, text, count=1)
    return text


def rule_queries(
    question: str, plan: QueryPlan, aliases: dict[str, str], contractions: bool = True
) -> SearchQueries:
    rewritten = expand_abbreviations(expand_contractions(question) if contractions else question, aliases)
    variations = [" ".join(content_words(rewritten))]
    hints = [*plan.title_hints, *plan.entities]
    if hints:
        variations.append(" ".join(dict.fromkeys([*hints, *content_words(rewritten)])))
    return SearchQueries(
        original=question,
        rewritten=rewritten,
        variations=[v for v in dict.fromkeys(variations) if v and v.casefold() != rewritten.casefold()],
        method="rules",
    )


class LLMTransformer:
    """Variations and a hypothetical answer from an LLM, validated; rules when it fails."""

    def __init__(self, client: LLMClient, hyde: bool = True) -> None:
        self.client = client
        self.hyde = hyde

    def queries(self, question: str, plan: QueryPlan, aliases: dict[str, str]) -> SearchQueries:
        fallback = rule_queries(question, plan, aliases)
        prompt = load_prompt("rewrite")
        hypothetical = (
            ", and a 2–3 sentence hypothetical answer such a document would contain." if self.hyde else "."
        )
        messages = prompt.messages(question=fallback.rewritten, hypothetical=hypothetical)
        try:
            answer = self.client.structured(
                messages, _Rewrites, max_tokens=400, check=lambda out: _problems(out, fallback.rewritten)
            )
        except ShuError:
            return fallback.model_copy(update={"method": "rules (llm failed)"})
        out: _Rewrites = answer.value
        return SearchQueries(
            original=question,
            rewritten=fallback.rewritten,
            variations=list(dict.fromkeys(v.strip() for v in out.variations)),
            hypothetical_answer=out.hypothetical_answer.strip() if self.hyde else None,
            method=f"llm:{self.client.name} ({prompt.version})",
        )


def _problems(out: _Rewrites, question: str) -> list[str]:
    asked = {stem(w) for w in content_words(question)}
    problems: list[str] = []
    for variation in out.variations:
        terms = {stem(w) for w in content_words(variation)}
        if not terms or len(variation.split()) > 30:
            problems.append(f"variation {variation!r} is empty or too long")
        elif not terms & asked:
            problems.append(f"variation {variation!r} shares no term with the question")
        problems += checks.no_prompt_echo(variation)
    if out.hypothetical_answer:
        problems += checks.length(out.hypothetical_answer, 8, 150, "hypothetical answer")
        problems += checks.no_prompt_echo(out.hypothetical_answer)
    return problems


def _match_case(replacement: str, original: str) -> str:
    return replacement[0].upper() + replacement[1:] if original[:1].isupper() else replacement

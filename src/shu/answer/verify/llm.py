"""Verification by an LLM: one structured verdict per claim, each with a quote that must appear
verbatim in the claim's cited text, else that verdict is discarded and the rules decide the
claim. When the model fails, the rules decide every claim."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import BaseModel, Field

from shu.answer.citations import ContextKeys
from shu.answer.quote import quoted
from shu.answer.verify.base import Claim, cited_text, passage
from shu.answer.verify.rules import RulesVerifier
from shu.models.llm.base import LLMError
from shu.models.llm.client import LLMClient, StructuredOutputError
from shu.prompts import load_prompt
from shu.types import AssembledContext, ClaimVerdict, Verification

log = logging.getLogger(__name__)

_CITED_CHARS = 2400
_TOKENS_BASE = 200
_TOKENS_PER_CLAIM = 80
"""A verdict with its quote takes about 45 tokens; the reply is budgeted for every claim."""
_MOST_TOKENS = 4000


class _Judged(BaseModel):
    claim: int = Field(ge=1, le=50)
    verdict: Literal["supported", "unsupported", "contradicted"]
    quote: str = Field(max_length=500)


class _Verdicts(BaseModel):
    verdicts: list[_Judged] = Field(max_length=50)


class LLMVerifier:
    name = "llm"

    def __init__(self, client: LLMClient, rules: RulesVerifier) -> None:
        self.client = client
        self.rules = rules

    def verify(self, claims: list[Claim], context: AssembledContext, background: str = "") -> Verification:
        ruled = self.rules.verify(claims, context, background)
        keys = ContextKeys(context)
        sources = [cited_text(claim, keys) for claim in claims]
        asked = [i for i, source in enumerate(sources) if source]
        if not asked:
            return ruled
        passages, claims_listed = _listed([claims[i] for i in asked], keys)
        prompt = load_prompt("verify")
        try:
            answered = self.client.structured(
                prompt.messages(passages=passages, claims=claims_listed),
                _Verdicts,
                max_tokens=min(_MOST_TOKENS, _TOKENS_BASE + _TOKENS_PER_CLAIM * len(asked)),
            )
        except (LLMError, StructuredOutputError) as exc:
            log.warning("the verifier model failed, the rules decide: %s", exc)
            return ruled.model_copy(update={"method": "rules (llm failed)"})
        judged, usage = answered.value, answered.result.usage
        verdicts = list(ruled.verdicts)
        for item in judged.verdicts:
            if item.claim > len(asked):
                continue
            index = asked[item.claim - 1]
            if _verbatim(item.quote, sources[index]):
                verdicts[index] = ClaimVerdict(
                    claim=claims[index].text,
                    citations=claims[index].citations,
                    verdict=item.verdict,
                    reason=f"the model: {item.verdict}, quoting the cited text",
                    quote=item.quote.strip(),
                    method=f"llm:{self.client.name}",
                )
        return Verification(
            method=f"llm:{self.client.name}",
            verdicts=verdicts,
            llm_calls=answered.attempts,
            llm_tokens=(usage.prompt_tokens + usage.completion_tokens) * answered.attempts,
        )


def _verbatim(quote: str, source: str) -> bool:
    """The quote (eight characters or more) appears in the source, spacing and case aside."""
    wanted = " ".join(quote.split()).casefold().strip(" .\"'")
    return len(wanted) >= 8 and wanted in " ".join(source.split()).casefold()


def _listed(claims: list[Claim], keys: ContextKeys) -> tuple[str, str]:
    """Each cited passage once, numbered, then the claims, each naming its passages (a table cited
    by ten claims is sent once, not ten times)."""
    numbers: dict[str, int] = {}
    for claim in claims:
        for key in claim.citations:
            if key in keys.sources:
                numbers.setdefault(key, len(numbers) + 1)
    passages = "\n\n".join(
        f'<cited passage="{n}">\n{quoted(passage(keys.sources[key])[:_CITED_CHARS])}\n</cited>'
        for key, n in numbers.items()
    )
    lines = []
    for number, claim in enumerate(claims, start=1):
        cited = ", ".join(str(numbers[k]) for k in dict.fromkeys(claim.citations) if k in numbers)
        lines.append(f"Claim {number} (passage {cited}): {quoted(claim.text)}")
    return passages, "\n".join(lines)

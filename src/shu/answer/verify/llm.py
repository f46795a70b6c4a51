"""Verification by an LLM: one structured verdict per claim, each with a quote that must appear
verbatim in the claim's cited text, else that verdict is discarded and the rules decide the
claim. When the model fails, the rules decide every claim."""

from __future__ import annotations

import logging
from typing import Literal

from pydantic import BaseModel, Field

from shu.answer.citations import ContextKeys
from shu.answer.quote import quoted
from shu.answer.verify.base import Claim, cited_text
from shu.answer.verify.rules import RulesVerifier
from shu.models.llm.base import LLMError
from shu.models.llm.client import LLMClient, StructuredOutputError
from shu.prompts import load_prompt
from shu.types import AssembledContext, ClaimVerdict, Verification

log = logging.getLogger(__name__)

_CITED_CHARS = 2400


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

    def verify(self, claims: list[Claim], context: AssembledContext) -> Verification:
        ruled = self.rules.verify(claims, context)
        keys = ContextKeys(context)
        sources = [cited_text(claim, keys) for claim in claims]
        asked = [i for i, source in enumerate(sources) if source]
        if not asked:
            return ruled
        prompt = load_prompt("verify")
        listed = "\n\n".join(
            f"Claim {n}: {quoted(claims[i].text)}\n<cited>\n{quoted(sources[i][:_CITED_CHARS])}\n</cited>"
            for n, i in enumerate(asked, start=1)
        )
        try:
            answered = self.client.structured(prompt.messages(claims=listed), _Verdicts, max_tokens=900)
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

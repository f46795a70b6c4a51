"""`verify.method` → a verifier: `rules`, `llm` (needs an LLM), `auto` (the LLM when configured)."""

from __future__ import annotations

from shu.answer.verify.base import Verifier
from shu.answer.verify.llm import LLMVerifier
from shu.answer.verify.rules import RulesVerifier
from shu.config.settings import VerifySettings
from shu.errors import ConfigError
from shu.models.embed.base import Embedder
from shu.models.llm.client import LLMClient


def create_verifier(settings: VerifySettings, embedder: Embedder, llm: LLMClient | None) -> Verifier | None:
    if not settings.enabled:
        return None
    rules = RulesVerifier(embedder, settings.min_similarity, settings.min_coverage)
    if settings.method == "rules" or (settings.method == "auto" and llm is None):
        return rules
    if llm is None:
        raise ConfigError("verify.method = llm needs an LLM (llm.provider, llm.model)")
    return LLMVerifier(llm, rules)

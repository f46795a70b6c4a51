"""The reranker the settings ask for, or None."""

from __future__ import annotations

from shu.config.settings import RerankSettings
from shu.errors import ConfigError
from shu.models.llm.client import LLMClient
from shu.models.rerank.base import Reranker
from shu.models.rerank.cross_encoder import CrossEncoderReranker
from shu.models.rerank.llm import LLMReranker


def create_reranker(settings: RerankSettings, llm: LLMClient | None) -> Reranker | None:
    if settings.method == "none":
        return None
    if settings.method == "cross-encoder":
        if settings.model_path is None:
            raise ConfigError("retrieval.rerank.model_path is required for the cross-encoder reranker")
        return CrossEncoderReranker(settings.model_path, batch_size=settings.batch_size)
    if llm is None:
        raise ConfigError("retrieval.rerank.method=llm needs an LLM (llm.provider)")
    return LLMReranker(llm, batch_size=min(settings.batch_size, 20))

"""Choose the embedder named in settings."""

from __future__ import annotations

from shu.config.settings import EmbedderSettings
from shu.errors import ConfigError
from shu.models.embed.base import Embedder
from shu.models.embed.minilm import MiniLMEmbedder
from shu.models.embed.openai import OpenAIEmbedder


def create_embedder(settings: EmbedderSettings) -> Embedder:
    if settings.provider == "minilm":
        return MiniLMEmbedder(
            batch_size=settings.batch_size,
            max_tokens=settings.max_tokens,
            threads=settings.threads,
            quantized=settings.quantized,
        )
    if not settings.base_url:
        raise ConfigError("embedder.provider=openai needs embedder.base_url")
    return OpenAIEmbedder.from_env(
        base_url=settings.base_url,
        model=settings.model,
        api_key_env=settings.api_key_env,
        batch_size=settings.batch_size,
        timeout_s=settings.timeout_s,
    )

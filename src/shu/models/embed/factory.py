"""Choose the embedder named in settings."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from shu.config.settings import EmbedderSettings
from shu.errors import ConfigError
from shu.models.embed.base import Embedder
from shu.models.embed.gemma import DIMS, MODEL, GemmaEmbedder
from shu.models.embed.minilm import MiniLMEmbedder
from shu.models.embed.openai import OpenAIEmbedder

MINILM = "all-MiniLM-L6-v2"
LOCAL = (MINILM, MODEL)
"""The embedders that run in Shu's own process."""


def create_embedder(settings: EmbedderSettings) -> Embedder:
    if settings.provider == "openai":
        if not settings.base_url:
            raise ConfigError("embedder.provider=openai needs embedder.base_url")
        return OpenAIEmbedder.from_env(
            base_url=settings.base_url,
            model=settings.model,
            api_key_env=settings.api_key_env,
            batch_size=settings.batch_size,
            timeout_s=settings.timeout_s,
        )
    model = MINILM if settings.provider == "minilm" else settings.model
    if model == MINILM:
        if settings.dim not in (None, 384):
            raise ConfigError(f"embedder.dim: {MINILM} has 384 dimensions, not {settings.dim}")
        return MiniLMEmbedder(
            batch_size=settings.batch_size,
            max_tokens=min(settings.max_tokens or 256, 512),
            threads=settings.threads,
            quantized=settings.quantized,
        )
    if model == MODEL:
        if settings.dim not in (None, *DIMS):
            raise ConfigError(f"embedder.dim: {MODEL} keeps {', '.join(map(str, DIMS))}, not {settings.dim}")
        if settings.quantized:
            raise ConfigError(f"embedder.quantized: {MODEL} runs in float32 only (int8 moved its vectors)")
        return GemmaEmbedder(
            installed_folder(settings),
            batch_size=min(settings.batch_size, 16),
            max_tokens=settings.max_tokens or 512,
            threads=settings.threads,
            dim=settings.dim or 768,
        )
    raise ConfigError(f"embedder.model {model!r} is not a local embedder: choose {' or '.join(LOCAL)}")


def sentence_embedder(store_embedder: Embedder, choice: str = "auto") -> Embedder:
    """What the extractive reader embeds a question's candidate sentences with: the store's
    embedder, or (`auto`) the lighter model that embedder names for the job (`sentence_model`:
    MiniLM beside EmbeddingGemma). The reader compares sentences with the question it is given,
    never with stored vectors, so its space need not be the store's."""
    if choice == "auto" and getattr(store_embedder, "sentence_model", None) == MINILM:
        return _shared_minilm()
    return store_embedder


@cache
def _shared_minilm() -> MiniLMEmbedder:
    """One MiniLM per process for every reader that borrows it (it loads on first use)."""
    return MiniLMEmbedder()


def kept_embedder(settings: EmbedderSettings, stored: str | None) -> Embedder:
    """The embedder for a store that holds vectors of `stored` (None: none yet): a store keeps
    the embedder it was filled with, so when the settings name another local one, the stored one
    is made instead (`shu reindex --embedder` switches)."""
    configured = create_embedder(settings)
    if stored is None or stored == configured.name:
        return configured
    for candidate in _local_choices(settings):
        made = create_embedder(candidate)
        if made.name == stored:
            return made
    raise ConfigError(
        f"this store holds vectors of embedder {stored}, which these settings do not make (they name "
        f"{configured.name}): set embedder.* back, or `shu reindex PATH --embedder` to embed every "
        f"document again with {configured.name}"
    )


def _local_choices(settings: EmbedderSettings) -> list[EmbedderSettings]:
    choices: list[dict[str, object]] = [{"model": MINILM, "dim": None, "quantized": q} for q in (False, True)]
    choices += [{"model": MODEL, "dim": d, "quantized": False} for d in DIMS]
    return [settings.model_copy(update={"provider": "local", "base_url": None, **c}) for c in choices]


def installed_folder(settings: EmbedderSettings) -> Path | None:
    """EmbeddingGemma's folder in the models folder, when installed (verified at install)."""
    from shu.models.registry import ModelStore, default_models_dir, known_model

    return ModelStore(settings.models_dir or default_models_dir()).installed(known_model(MODEL))

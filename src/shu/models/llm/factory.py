"""The LLM named in settings, or None when none is configured."""

from __future__ import annotations

import os

from shu.config.settings import LLMSettings
from shu.errors import ConfigError
from shu.models.llm.anthropic import AnthropicLLM
from shu.models.llm.base import LLM
from shu.models.llm.cache import ResponseCache
from shu.models.llm.client import Accounting, LLMClient
from shu.models.llm.local import LocalLLM, LocalOptions
from shu.models.llm.openai_compat import OpenAICompatibleLLM
from shu.models.registry import ModelError, known_models, resolve_model_path


def create_llm(
    settings: LLMSettings, cache: ResponseCache | None = None, budget_name: str | None = None
) -> LLMClient | None:
    """`budget_name`: the question's budget the client spends (`llm.fast`: "fast")."""
    if settings.provider == "none":
        return None
    if settings.provider == "local":
        return LLMClient(
            local_llm(settings),
            cache=cache,
            max_retries=0,
            concurrency=1,
            accounting=Accounting(),
            budget_name=budget_name,
        )
    if not settings.model:
        raise ConfigError(f"llm.provider={settings.provider} needs llm.model")
    api_key = os.environ.get(settings.api_key_env) if settings.api_key_env else None
    provider: LLM
    if settings.provider == "openai":
        if not settings.base_url:
            raise ConfigError("llm.provider=openai needs llm.base_url (e.g. http://127.0.0.1:8080/v1)")
        provider = OpenAICompatibleLLM(
            settings.base_url, settings.model, api_key, settings.timeout_s, json_mode=settings.json_mode
        )
    else:
        if not api_key:
            raise ConfigError(f"llm.provider=anthropic needs the key in ${settings.api_key_env}")
        provider = AnthropicLLM(
            settings.model, api_key, settings.base_url or "https://api.anthropic.com/v1", settings.timeout_s
        )
    return LLMClient(
        provider,
        cache=cache,
        max_retries=settings.max_retries,
        concurrency=settings.concurrency,
        accounting=Accounting(settings.price_in_per_mtok, settings.price_out_per_mtok),
        budget_name=budget_name,
    )


def local_llm(settings: LLMSettings) -> LocalLLM:
    """The GGUF `llm.model_path`, or the installed model `llm.model`, run in this process (loaded
    on its first call)."""
    try:
        path, name = resolve_model_path(settings.model, settings.model_path, settings.models_dir)
    except ModelError as exc:
        raise ConfigError(str(exc)) from exc
    known = known_models().get(name)
    chat_format = settings.chat_format or (known.chat_format if known else None)
    options = LocalOptions(
        n_ctx=settings.n_ctx,
        n_threads=settings.n_threads or os.cpu_count() or 1,
        n_batch=settings.n_batch,
        chat_format=chat_format,
    )
    return LocalLLM(path, name, options)

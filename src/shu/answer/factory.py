"""`answer.method` → an answerer: `auto` and `extractive` are Shu's own (the best sentences of
the context, each cited); anything else is an import path `package.module:Class` to a class of
yours, built as `Class(settings, embedder)`, that answers like the `Answerer` protocol says."""

from __future__ import annotations

import importlib

from shu.answer.base import Answerer
from shu.answer.extractive import ExtractiveAnswerer
from shu.config.settings import AnswerSettings
from shu.errors import ConfigError
from shu.models.embed.base import Embedder


def create_answerer(settings: AnswerSettings, embedder: Embedder) -> Answerer:
    if settings.method in ("auto", "extractive"):
        return ExtractiveAnswerer(
            embedder, settings.max_sentences, settings.chunks_considered, settings.min_meaning
        )
    module_name, _, class_name = settings.method.partition(":")
    try:
        found = getattr(importlib.import_module(module_name), class_name)
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigError(
            f"answer.method {settings.method!r}: expected auto, extractive or package.module:Class ({exc})"
        ) from exc
    try:
        answerer = found(settings, embedder)
    except Exception as exc:  # a user's class: whatever it raises, say which setting built it
        raise ConfigError(f"answer.method {settings.method!r}: could not be built ({exc})") from exc
    if not callable(getattr(answerer, "answer", None)):
        raise ConfigError(f"answer.method {settings.method!r}: {class_name} has no answer(result, persona)")
    return answerer  # type: ignore[no-any-return]

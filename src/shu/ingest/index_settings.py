"""What the index is built with, kept in the store between runs: the settings that change what
is indexed (chunking, embedder, enrichment, the LLM), and the context-prefix choice a reindex made.

A reindex's choice lasts: a later plain `shu ingest` follows it rather than the configuration it
was made against, until that configuration itself changes (then the newer decision, the
configuration's, wins). A run whose settings differ from the last complete run's says which."""

from __future__ import annotations

from typing import Any

from shu.config.settings import Settings

CONTEXT = "context"
BUILT_WITH = "built_with"


def context_choice(settings: Settings, kept: dict[str, Any], asked: bool | None) -> bool:
    """Whether this run indexes chunks with context prefixes: what the run asked for, else the
    last reindex's choice while the configuration is still the one it was made against, else
    the configuration."""
    configured = settings.enrich.context
    if asked is not None:
        return asked
    chosen = kept.get(CONTEXT)
    if isinstance(chosen, dict) and chosen.get("configured") == configured:
        return bool(chosen.get("chosen"))
    return configured


def with_context(settings: Settings, context: bool) -> Settings:
    if context == settings.enrich.context:
        return settings
    enrich = settings.enrich.model_copy(update={"context": context})
    return settings.model_copy(update={"enrich": enrich})


def chosen(kept: dict[str, Any], configured: bool, asked: bool) -> dict[str, Any]:
    """The kept settings with a reindex's choice recorded against the configuration it overrode."""
    return {**kept, CONTEXT: {"chosen": asked, "configured": configured}}


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """`name: old → new` for each setting that differs (nested settings by dotted name)."""
    old, new = _flat(before), _flat(after)
    return [
        f"{name}: {_shown(old.get(name))} → {_shown(new.get(name))}"
        for name in sorted(old.keys() | new.keys())
        if old.get(name) != new.get(name)
    ]


def _flat(settings: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for name, value in settings.items():
        if isinstance(value, dict):
            flat.update(_flat(value, f"{prefix}{name}."))
        else:
            flat[f"{prefix}{name}"] = value
    return flat


def _shown(value: Any) -> str:
    if value is None:
        return "unset"
    return str(value).lower() if isinstance(value, bool) else str(value)

"""Named retrieval configurations compared by `shu eval`. Each later retrieval feature is one
more preset here; `default` is always exactly what a user gets out of the box."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from shu.config.presets import read_presets
from shu.config.settings import EnrichSettings, RetrievalSettings, Settings
from shu.errors import ShuError
from shu.types import RetrievalParams

DEPTH = 100
"""Results kept per query: enough for Recall@100."""


class EvalConfig(BaseModel):
    name: str
    description: str
    retriever: Literal["bm25", "dense", "hybrid", "pipeline"]
    retrieval: RetrievalParams = Field(default_factory=RetrievalParams)
    pipeline: RetrievalSettings = Field(default_factory=RetrievalSettings)
    """The query pipeline's stages (retriever `pipeline` only)."""
    enrich: EnrichSettings = Field(default_factory=lambda: EnrichSettings(enabled=False))
    """How the corpus is indexed for this configuration (configs that agree share one store)."""


def written_by(config: EvalConfig, model: str) -> EvalConfig:
    """`config` as run with `--enrich-llm`: its enriched surfaces written by `model` (the
    extractive artifact where the model's failed validation), and its description says so."""
    if not config.enrich.enabled:
        return config
    said = f"written by {model}, extractive where it failed validation"
    description = config.description.replace("extractive", said)
    if description == config.description:
        description = f"{config.description} (artifacts {said})"
    return config.model_copy(update={"description": description})


PRESETS_DIR = Path(__file__).parent / "presets"
"""`retrieval/<name>.json`: an `EvalConfig` without its name; `answers/<name>.json`: settings laid
over the configured ones. Read with the product's preset reader."""

PRESETS: dict[str, EvalConfig] = {
    name: EvalConfig.model_validate({"name": name, **data})
    for name, data in read_presets(PRESETS_DIR / "retrieval").items()
}
"""The retrieval configurations `shu eval --configs` names."""


def resolve(names: str) -> list[EvalConfig]:
    """`bm25,dense,hybrid` → presets, `default` always included (first)."""
    wanted = ["default", *[n.strip() for n in names.split(",") if n.strip()]]
    unknown = [n for n in wanted if n not in PRESETS]
    if unknown:
        raise ShuError(f"unknown eval config(s) {', '.join(unknown)} (known: {', '.join(PRESETS)})")
    return [PRESETS[n] for n in dict.fromkeys(wanted)]


ANSWER_PRESETS: dict[str, dict[str, dict[str, object]]] = {
    name: data["settings"] for name, data in read_presets(PRESETS_DIR / "answers").items()
}
"""How `shu eval --answers --answer-configs` varies what happens after retrieval: settings laid
over the configured ones (`configured` = as they are). The agent never writes findings into an
eval store (`agent.learn` off)."""


def answer_settings(settings: Settings, name: str) -> Settings:
    if name not in ANSWER_PRESETS:
        raise ShuError(f"unknown answer config {name!r} (known: {', '.join(ANSWER_PRESETS)})")
    update: dict[str, BaseModel] = {}
    for section, values in ANSWER_PRESETS[name].items():
        update[section] = getattr(settings, section).model_copy(update=values)
    agent = update.get("agent", settings.agent)
    update["agent"] = agent.model_copy(update={"learn": False})
    return settings.model_copy(update=update)

"""Nested settings: defaults < `<home>/config.json` < `SHU_*` environment < dotted overrides.

Each section's model lives in the module of its part of Shu (`models`, `ingest`, `retrieval`,
`answer`, `service`); `Settings` gathers them, and every one imports from here too."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from shu.config.answer import AgentSettings, AnswerSettings, VerifySettings
from shu.config.ingest import ChunkingSettings, EnrichSettings, IngestSettings
from shu.config.models import EmbedderSettings, LLMBudgetSettings, LLMSettings
from shu.config.presets import lay_under, read_preset
from shu.config.retrieval import PersonalSettings, RerankSettings, RetrievalSettings
from shu.config.service import ServerSettings, StoreSettings
from shu.errors import ConfigError

__all__ = [
    "AgentSettings",
    "AnswerSettings",
    "ChunkingSettings",
    "EmbedderSettings",
    "EnrichSettings",
    "IngestSettings",
    "LLMBudgetSettings",
    "LLMSettings",
    "PersonalSettings",
    "RerankSettings",
    "RetrievalSettings",
    "ServerSettings",
    "Settings",
    "StoreSettings",
    "VerifySettings",
    "load_settings",
]


class Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)

    home: Path = Path(".shu")
    preset: str = ""
    """A named preset laid under these settings (`shu.config.presets`); empty: none, except
    `local` when `llm.provider` is `local`."""
    embedder: EmbedderSettings = Field(default_factory=EmbedderSettings)
    chunking: ChunkingSettings = Field(default_factory=ChunkingSettings)
    llm: LLMSettings = Field(default_factory=LLMSettings)
    enrich: EnrichSettings = Field(default_factory=EnrichSettings)
    ingest: IngestSettings = Field(default_factory=IngestSettings)
    retrieval: RetrievalSettings = Field(default_factory=RetrievalSettings)
    answer: AnswerSettings = Field(default_factory=AnswerSettings)
    verify: VerifySettings = Field(default_factory=VerifySettings)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    store: StoreSettings = Field(default_factory=StoreSettings)
    server: ServerSettings = Field(default_factory=ServerSettings)

    @property
    def db_path(self) -> Path:
        return self.home / "shu.db"

    @model_validator(mode="after")
    def _preset(self) -> Settings:
        """The named preset's settings where none is given (`llm.provider=local` implies `local`:
        a small model in this process answers, and the steps it does badly use their non-LLM
        methods)."""
        name = self.preset or ("local" if self.llm.provider == "local" else "")
        if name:
            lay_under(self, read_preset(name).settings)
        return self


def load_settings(home: Path | str | None = None, overrides: list[str] | None = None) -> Settings:
    """Build settings for a home folder. `overrides` are `dotted.key=value` strings."""
    home_path = Path(home or os.environ.get("SHU_HOME") or ".shu")
    data: dict[str, Any] = {}
    config_file = home_path / "config.json"
    if config_file.exists() and not config_file.is_file():
        raise ConfigError(f"{config_file}: must be a file of JSON settings, not a folder")
    if home_path.exists() and not home_path.is_dir():
        raise ConfigError(f"{home_path}: the home must be a folder, and this is a file")
    if config_file.is_file():
        try:
            data = json.loads(config_file.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"{config_file}: not valid UTF-8 JSON ({exc})") from exc
        except RecursionError as exc:
            raise ConfigError(f"{config_file}: nested too deeply to be settings") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{config_file}: must hold a JSON object of settings")
    for key, value in _environment_overrides().items():
        _set_dotted(data, key, value)
    for item in overrides or []:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"override {item!r}: expected dotted.key=value")
        _set_dotted(data, key.strip(), _parse_value(value.strip()))
    data["home"] = str(home_path)
    try:
        return Settings.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(f"invalid settings: {_first_error(exc)}") from exc


def _environment_overrides() -> dict[str, Any]:
    """`SHU_EMBEDDER__PROVIDER=openai` → `embedder.provider`."""
    found: dict[str, Any] = {}
    for name, value in os.environ.items():
        if name.startswith("SHU_") and "__" in name:
            dotted = name[4:].lower().replace("__", ".")
            found[dotted] = _parse_value(value)
    return found


def _set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    parts = dotted.split(".")
    node = data
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if not isinstance(child, dict):
            raise ConfigError(f"override {dotted!r}: {part!r} is not a section")
        node = child
    node[parts[-1]] = value


def _parse_value(raw: str) -> Any:
    """JSON when it parses (numbers, true, lists), else the string itself; Infinity and NaN stay
    strings (a setting is never infinite), and so does anything nested too deeply."""
    try:
        value = json.loads(raw, parse_constant=lambda name: raw)
    except (json.JSONDecodeError, RecursionError):
        return raw
    if isinstance(value, float) and not math.isfinite(value):
        return raw  # 1e999 parses as inf
    return value


def _first_error(exc: ValidationError) -> str:
    err = exc.errors()[0]
    where = ".".join(str(p) for p in err["loc"])
    return f"{where}: {err['msg']}"

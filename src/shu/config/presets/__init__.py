"""Named presets, shipped as files (as PaperQA2 ships its settings presets): each
`<name>.json` here is a description and a part of the settings, laid *under* what a user sets —
a setting given in `config.json`, the environment or `--set` always wins over the preset's.
`shu --preset NAME` (or the `preset` setting) names one; `llm.provider=local` implies `local`.

The measuring package reads its own folders of presets (retrieval configurations, answer
configurations) with the same reader, `read_presets`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from shu.errors import ConfigError

PRESETS = Path(__file__).parent
"""The product's presets: `<name>.json`."""


class Preset(BaseModel):
    name: str
    description: str
    settings: dict[str, Any]
    """Nested sections of settings, as in `config.json`."""


def read_presets(folder: Path) -> dict[str, dict[str, Any]]:
    """Every `<name>.json` of `folder` as its JSON object, by name, in name order."""
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ConfigError(f"preset {path}: not valid UTF-8 JSON ({exc})") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"preset {path}: must hold a JSON object")
        found[path.stem] = data
    return found


def preset_names(folder: Path = PRESETS) -> list[str]:
    return list(read_presets(folder))


def read_preset(name: str, folder: Path = PRESETS) -> Preset:
    """The preset `name`; a clear error naming the known ones when there is none."""
    known = read_presets(folder)
    if name not in known:
        raise ConfigError(f"unknown preset {name!r} (known: {', '.join(known) or 'none'})")
    try:
        return Preset.model_validate({"name": name, **known[name]})
    except ValidationError as exc:
        raise ConfigError(f"preset {name!r}: {exc.errors()[0]['msg']}") from exc


def lay_under(model: BaseModel, values: dict[str, Any], where: str = "") -> None:
    """Set each of `values` on `model` (nested sections recursively) where the user set nothing,
    each value validated as the setting's own type."""
    for key, value in values.items():
        dotted = f"{where}{key}"
        if key not in type(model).model_fields:
            raise ConfigError(f"preset setting {dotted!r}: no such setting")
        current = getattr(model, key)
        if isinstance(current, BaseModel) and isinstance(value, dict):
            lay_under(current, value, f"{dotted}.")
        elif key not in model.model_fields_set:
            try:
                model.__pydantic_validator__.validate_assignment(model, key, value)
            except ValidationError as exc:
                raise ConfigError(f"preset setting {dotted!r}: {exc.errors()[0]['msg']}") from exc

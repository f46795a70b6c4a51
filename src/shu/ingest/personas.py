"""Persona folders (spec 004 §2, §4): `persona.md`, `persona.config.json`, `RAW-DOCS/`, `RAG/`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from shu.errors import ConfigError
from shu.types import Persona, PersonaConfig

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
CONFIG_FILE = "persona.config.json"
PROFILE_FILE = "persona.md"


@dataclass
class PersonaFolder:
    path: Path
    persona: Persona

    @property
    def slug(self) -> str:
        return self.persona.slug

    @property
    def raw_dir(self) -> Path:
        return self.path / "RAW-DOCS"

    @property
    def rag_dir(self) -> Path:
        return self.path / "RAG"


def is_persona_folder(path: Path) -> bool:
    return path.is_dir() and ((path / CONFIG_FILE).is_file() or (path / PROFILE_FILE).is_file())


def find_persona_folders(root: Path) -> list[Path]:
    """`root` itself when it is a persona folder, else its persona subfolders."""
    if is_persona_folder(root):
        return [root]
    return sorted(child for child in root.iterdir() if is_persona_folder(child))


def load_persona(path: Path) -> PersonaFolder:
    """Read one persona folder. Raises ConfigError naming the file at fault."""
    slug = path.name
    if not SLUG.match(slug):
        raise ConfigError(f"{path}: persona folder name must be a kebab-case slug (a-z, 0-9, -)")
    description = _read_profile(path / PROFILE_FILE)
    config_path = path / CONFIG_FILE
    if config_path.is_file():
        config = _read_config(config_path)
        if config.slug != slug:
            raise ConfigError(f"{config_path}: slug {config.slug!r} does not match its folder {slug!r}")
    else:
        config = PersonaConfig(slug=slug, display_name=_first_heading(description) or _title(slug))
    persona = Persona(slug=slug, display_name=config.display_name, description=description, config=config)
    return PersonaFolder(path=path, persona=persona)


def _read_config(path: Path) -> PersonaConfig:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})") from exc
    try:
        return PersonaConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        raise ConfigError(f"{path}: {where}: {err['msg']}") from exc


def _read_profile(path: Path) -> str:
    if not path.is_file():
        return ""
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot be read as UTF-8 text ({exc})") from exc


def _first_heading(markdown: str) -> str | None:
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def _title(slug: str) -> str:
    return slug.replace("-", " ").title()

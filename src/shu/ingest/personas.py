"""Persona folders: `persona.md`, `persona.config.json`, `RAW-DOCS/`, `RAG/`."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from shu.errors import ConfigError, DocumentError
from shu.ingest.files import read_inside, resolved
from shu.types import Persona, PersonaConfig

SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
CONFIG_FILE = "persona.config.json"
PROFILE_FILE = "persona.md"
MAX_PERSONA_FILE_BYTES = 64 * 1024
"""persona.md and persona.config.json: a description and a config, never a document's size."""


@dataclass
class PersonaFolder:
    path: Path
    persona: Persona
    refused: list[tuple[Path, str]] = field(default_factory=list)
    """Files of the folder itself that were not read, each with why (the persona loads without)."""

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
    """`root` itself when it is a persona folder, else its persona subfolders (one that links
    out of `root` too: `load_persona` refuses it, with `root`)."""
    if is_persona_folder(root):
        return [root]
    return sorted(child for child in root.iterdir() if is_persona_folder(child))


def check_inside(folder: Path, root: Path) -> None:
    """Refuse a persona folder of a knowledge base that resolves outside it (a link out)."""
    if folder != root and not resolved(folder).is_relative_to(resolved(root)):
        where = resolved(folder)
        raise ConfigError(f"{folder}: persona folder outside the knowledge base (resolves to {where})")


def load_persona(path: Path) -> PersonaFolder:
    """Read one persona folder. Its files follow the rules of RAW-DOCS (inside the folder once
    links are followed, at most `MAX_PERSONA_FILE_BYTES`): a config that breaks them raises
    ConfigError naming the file (it decides the walls: nothing is guessed); a `persona.md` that
    breaks them is left out and named in `refused`, the persona loading without a description."""
    slug = path.name
    if not SLUG.match(slug):
        raise ConfigError(f"{path}: persona folder name must be a kebab-case slug (a-z, 0-9, -)")
    refused: list[tuple[Path, str]] = []
    try:
        description = _read_profile(path / PROFILE_FILE, path)
    except ConfigError as exc:
        description = ""
        refused.append((path / PROFILE_FILE, str(exc)))
    config_path = path / CONFIG_FILE
    if config_path.is_file() or config_path.is_symlink():
        config = _read_config(config_path, path)
        if config.slug != slug:
            raise ConfigError(f"{config_path}: slug {config.slug!r} does not match its folder {slug!r}")
    else:
        config = PersonaConfig(slug=slug, display_name=_first_heading(description) or _title(slug))
    persona = Persona(slug=slug, display_name=config.display_name, description=description, config=config)
    return PersonaFolder(path=path, persona=persona, refused=refused)


def _read_config(path: Path, folder: Path) -> PersonaConfig:
    try:
        data = json.loads(_read_text(path, folder))
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}: not valid JSON ({exc})") from exc
    try:
        return PersonaConfig.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"]) or "(root)"
        raise ConfigError(f"{path}: {where}: {err['msg']}") from exc


def _read_profile(path: Path, folder: Path) -> str:
    if not (path.is_file() or path.is_symlink()):
        return ""
    return _read_text(path, folder).strip()


def _read_text(path: Path, folder: Path) -> str:
    """A persona file as UTF-8 text (a BOM dropped); ConfigError naming the file otherwise."""
    try:
        data = read_inside(path, folder, MAX_PERSONA_FILE_BYTES)
        return data.decode("utf-8-sig")
    except DocumentError as exc:
        why = str(exc)
        if why.startswith("file too large"):
            why = f"over {MAX_PERSONA_FILE_BYTES // 1024} KB (a persona's description and config are short)"
        raise ConfigError(f"{path}: {why}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot be read as UTF-8 text ({exc})") from exc


def _first_heading(markdown: str) -> str | None:
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def _title(slug: str) -> str:
    return slug.replace("-", " ").title()

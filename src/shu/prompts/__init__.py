"""Every LLM prompt Shu sends, one versioned file each (`<name>.v<N>.md`: a `## system` part and
a `## user` part), loaded by name. Placeholders (`$question`) are filled strictly: a missing value
or a stray `$` in a template is an error, never a prompt sent half-filled. The file name is the
version recorded with everything the prompt produced.

A `Message` (system, user or assistant) is what a prompt becomes and what a model reads: defined
here, below the models (`shu.models.llm` takes messages and re-exports it), so imports between
the two point one way, models → prompts."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template
from typing import Literal

from pydantic import BaseModel

from shu.errors import ShuError


class Message(BaseModel):
    role: Literal["system", "user", "assistant"]
    content: str


class PromptError(ShuError):
    pass


@dataclass(frozen=True)
class Prompt:
    version: str
    system: Template
    user: Template

    def messages(self, **values: str) -> list[Message]:
        try:
            system = self.system.substitute(values)
            user = self.user.substitute(values)
        except (KeyError, ValueError) as exc:
            raise PromptError(
                f"prompt {self.version}: cannot fill it ({exc.__class__.__name__}: {exc})"
            ) from exc
        return [Message(role="system", content=system), Message(role="user", content=user)]


@cache
def load_prompt(name: str) -> Prompt:
    """The newest version of a prompt, e.g. `profile` → `profile.v1.md`."""
    folder = resources.files("shu.prompts")
    versions = sorted(
        (p.name for p in folder.iterdir() if p.name.startswith(f"{name}.v") and p.name.endswith(".md")),
        key=lambda n: int(n.removeprefix(f"{name}.v").removesuffix(".md")),
    )
    if not versions:
        raise PromptError(f"no prompt file for {name!r}")
    text = (folder / versions[-1]).read_text(encoding="utf-8")
    system, _, user = text.partition("## user")
    return Prompt(
        version=versions[-1].removesuffix(".md"),
        system=Template(system.replace("## system", "", 1).strip()),
        user=Template(user.strip()),
    )


@cache
def prompt_versions() -> str:
    """Every prompt file's name and content hash: changes whenever any prompt does."""
    folder = resources.files("shu.prompts")
    found = sorted(p.name for p in folder.iterdir() if p.name.endswith(".md"))
    digest = hashlib.sha256()
    for name in found:
        digest.update(name.encode() + b"\0" + (folder / name).read_bytes())
    return digest.hexdigest()[:16]

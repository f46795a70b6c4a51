"""Prompt templates stored as files (`prompts/<name>.v<N>.md`); the file name is the version
that is stored with every artifact a prompt produced."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from string import Template

from shu.models.llm.base import Message


@dataclass(frozen=True)
class Prompt:
    version: str
    system: str
    user: Template

    def messages(self, **values: str) -> list[Message]:
        return [
            Message(role="system", content=self.system),
            Message(role="user", content=self.user.safe_substitute(values)),
        ]


@cache
def load_prompt(name: str) -> Prompt:
    """The newest version of a prompt, e.g. `profile` → `profile.v1.md`."""
    folder = resources.files("shu.enrich") / "prompts"
    versions = sorted(
        (p.name for p in folder.iterdir() if p.name.startswith(f"{name}.v") and p.name.endswith(".md")),
        key=lambda n: int(n.removeprefix(f"{name}.v").removesuffix(".md")),
    )
    if not versions:
        raise FileNotFoundError(f"no prompt file for {name!r}")
    text = (folder / versions[-1]).read_text(encoding="utf-8")
    system, _, user = text.partition("## user")
    return Prompt(
        version=versions[-1].removesuffix(".md"),
        system=system.replace("## system", "", 1).strip(),
        user=Template(user.strip()),
    )

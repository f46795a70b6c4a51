"""A suggested `persona.config.json` for a person to accept (the config is curated: a program may
suggest, a person decides). Deterministic, no LLM: the curated tags, aliases and retrieval values
are kept as they are; frontmatter tags many documents carry, and the abbreviations the documents
define themselves ("single sign-on (SSO)"), are proposed beside them, each with why."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from shu.enrich.abbreviations import defined_abbreviations
from shu.types import Document, Persona, PersonaConfig

MAX_TAGS = 30
"""At most this many tags are proposed (curated tags are all kept, even beyond it)."""
MIN_TAG_DOCUMENTS = 2
MIN_TAG_PERCENT = 10
"""A frontmatter tag is proposed when at least MIN_TAG_DOCUMENTS documents carry it, and in a
persona of more than 20 documents at least this percentage of them."""
EXAMPLES = 3
"""Document ids named in a reason."""

Source = Literal["curated", "frontmatter", "abbreviation"]


@dataclass(frozen=True)
class Reason:
    """Why a tag or an alias is in the suggestion: where it comes from, how many of the persona's
    documents carry it (tags) or define it (abbreviations), a few of their ids."""

    source: Source
    documents: int
    examples: tuple[str, ...]

    @property
    def added(self) -> bool:
        return self.source != "curated"

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "added": self.added,
            "documents": self.documents,
            "examples": list(self.examples),
        }


@dataclass(frozen=True)
class ConfigSuggestion:
    config: PersonaConfig
    """The proposed config: the curated one with tags and aliases added."""
    tags: dict[str, Reason]
    """Each of the config's tags, with why."""
    aliases: dict[str, Reason]
    """Each of the config's aliases (by short form), with why."""
    documents: int
    """How many documents the suggestion was made from."""

    @property
    def added_tags(self) -> list[str]:
        return [tag for tag, reason in self.tags.items() if reason.added]

    @property
    def added_aliases(self) -> dict[str, str]:
        return {short: self.config.aliases[short] for short, reason in self.aliases.items() if reason.added}

    def as_json(self) -> dict[str, Any]:
        """{"config": the config as `persona.config.json` would hold it (the curated file's keys
        and the proposed tags and aliases, no defaults spelled out), "reasons": {"tags": {tag:
        reason}, "aliases": {short: reason and "long"}}}."""
        return {
            "config": self.config.model_dump(mode="json", exclude_unset=True),
            "reasons": {
                "tags": {tag: reason.as_json() for tag, reason in self.tags.items()},
                "aliases": {
                    short: {"long": self.config.aliases[short]} | reason.as_json()
                    for short, reason in self.aliases.items()
                },
            },
        }


@dataclass
class _Seen:
    """A tag or an abbreviation as the documents have it: its first spelling, who has it."""

    shown: str
    source: Source
    doc_ids: list[str]


def suggest_config(
    persona: Persona, documents: list[Document], text_of: Callable[[Document], str]
) -> ConfigSuggestion:
    """The suggested config of `persona` from its `documents` (`text_of`: a document's text)."""
    curated = persona.config
    ordered = sorted(documents, key=lambda d: d.id)
    defined = _abbreviations(ordered, text_of)
    aliases, alias_reasons = _aliases(curated.aliases, defined)
    tags, tag_reasons = _tags(curated.tags, ordered, defined, aliases)
    data = curated.model_dump(mode="json", exclude_unset=True)
    data |= {"slug": curated.slug, "display_name": curated.display_name}
    if tags or "tags" in data:
        data["tags"] = tags
    if aliases or "aliases" in data:
        data["aliases"] = aliases
    return ConfigSuggestion(
        config=PersonaConfig.model_validate(data),
        tags=tag_reasons,
        aliases=alias_reasons,
        documents=len(ordered),
    )


def _abbreviations(documents: list[Document], text_of: Callable[[Document], str]) -> dict[str, _Seen]:
    """Short form → its most used long form and the documents defining it (in any long form)."""
    longs: dict[str, Counter[str]] = {}
    spelled: dict[tuple[str, str], str] = {}
    seen: dict[str, _Seen] = {}
    for doc in documents:
        text = "\n\n".join(part for part in (doc.title, doc.summary or "", text_of(doc)) if part)
        for short, long in defined_abbreviations(text).items():
            key = long.casefold()
            spelled.setdefault((short, key), long)
            longs.setdefault(short, Counter())[key] += 1
            seen.setdefault(short, _Seen("", "abbreviation", [])).doc_ids.append(doc.id)
    for short, counted in longs.items():  # most documents, then first seen (Counter keeps order)
        seen[short].shown = spelled[(short, counted.most_common(1)[0][0])]
    return seen


def _aliases(curated: dict[str, str], defined: dict[str, _Seen]) -> tuple[dict[str, str], dict[str, Reason]]:
    """The curated aliases (each wins over what the documents define), then the documents'."""
    by_key = {short.casefold(): seen for short, seen in defined.items()}
    aliases = dict(curated)
    reasons = {short: _reason("curated", by_key.get(short.casefold())) for short in curated}
    taken = {short.casefold() for short in curated}
    for short, seen in sorted(defined.items(), key=lambda item: (-len(item[1].doc_ids), item[0])):
        if short.casefold() not in taken:
            taken.add(short.casefold())
            aliases[short] = seen.shown
            reasons[short] = _reason("abbreviation", seen)
    return aliases, reasons


def _tags(
    curated: list[str], documents: list[Document], defined: dict[str, _Seen], aliases: dict[str, str]
) -> tuple[list[str], dict[str, Reason]]:
    """The curated tags, then the most carried of the rest (frontmatter tags enough documents
    carry, both forms of each abbreviation defined), up to MAX_TAGS in all."""
    found: dict[str, _Seen] = {}
    for doc in documents:
        for tag in dict.fromkeys(t.strip() for t in doc.tags if t.strip()):
            seen = found.setdefault(tag.casefold(), _Seen(tag, "frontmatter", []))
            if doc.id not in seen.doc_ids:
                seen.doc_ids.append(doc.id)
    needed = max(MIN_TAG_DOCUMENTS, math.ceil(len(documents) * MIN_TAG_PERCENT / 100))
    candidates = {key: seen for key, seen in found.items() if len(seen.doc_ids) >= needed}
    long_of = {short.casefold(): long for short, long in aliases.items()}
    for short, seen in defined.items():
        for form in (short, long_of[short.casefold()]):
            known = found.get(form.casefold())
            carrying = list(dict.fromkeys([*seen.doc_ids, *(known.doc_ids if known else [])]))
            candidates[form.casefold()] = _Seen(known.shown if known else form, "abbreviation", carrying)
    tags = list(dict.fromkeys(curated))
    keys = {tag.casefold() for tag in tags}
    reasons = {
        tag: _reason("curated", candidates.get(tag.casefold()) or found.get(tag.casefold())) for tag in tags
    }
    ranked = sorted(
        (seen for key, seen in candidates.items() if key not in keys),
        key=lambda seen: (-len(seen.doc_ids), seen.source != "frontmatter"),  # then as first seen
    )
    for seen in ranked[: max(0, MAX_TAGS - len(tags))]:
        tags.append(seen.shown)
        reasons[seen.shown] = _reason(seen.source, seen)
    return tags, reasons


def _reason(source: Source, seen: _Seen | None) -> Reason:
    doc_ids = seen.doc_ids if seen is not None else []
    return Reason(source=source, documents=len(doc_ids), examples=tuple(doc_ids[:EXAMPLES]))

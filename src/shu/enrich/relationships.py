"""Typed relationships a document states itself: `relations:` in its frontmatter, Markdown links
to other documents, and e-mail reply headers. Targets are document ids (kebab slugs)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath
from typing import Any

from shu.text import content_words, slugify, stem
from shu.types import RELATIONSHIP_TYPES, Document, DocumentRef, Relationship

_LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
_LINKED_SUFFIXES = frozenset(
    {".md", ".markdown", ".html", ".htm", ".pdf", ".txt", ".docx", ".pptx", ".xlsx", ".csv", ".epub", ".eml"}
)
"""Files that convert to one document named after the file: a link to one is a link to it."""
_REPLY_SUBJECT = re.compile(r"^(?:re|aw|sv|fw|fwd)\s*:\s*", re.I)


def document_relationships(doc: Document, body: str) -> list[Relationship]:
    found: dict[tuple[str, str], Relationship] = {}
    for relationship in [*_from_frontmatter(doc), *_from_links(doc, body), *_from_thread(doc)]:
        key = (relationship.target, relationship.type)
        if relationship.target != doc.id and (
            key not in found or found[key].confidence < relationship.confidence
        ):
            found[key] = relationship
    return list(found.values())


def _from_frontmatter(doc: Document) -> list[Relationship]:
    """`relations: [{type: explains, target: other-doc}]` or `relations: {explains: [other-doc]}`."""
    declared: Any = doc.meta.get("relations")
    pairs: list[tuple[str, str]] = []
    if isinstance(declared, dict):
        for kind, targets in declared.items():
            pairs += [(str(kind), str(t)) for t in (targets if isinstance(targets, list) else [targets])]
    elif isinstance(declared, list):
        pairs += [
            (str(item.get("type", "related_to")), str(item.get("target", "")))
            for item in declared
            if isinstance(item, dict)
        ]
    return [
        Relationship(
            source=doc.id,
            target=slugify(target),
            type=kind if kind in RELATIONSHIP_TYPES else "related_to",
            origin="frontmatter",
            confidence=1.0,
        )
        for kind, target in pairs
        if slugify(target)
    ]


def _from_links(doc: Document, body: str) -> list[Relationship]:
    """Links to local Markdown files (`[pricing](pricing.md)`, `../RAG/sso.md#okta`)."""
    found = []
    for target in _LINK.findall(body):
        if "://" in target or target.startswith(("#", "mailto:")):
            continue
        path = PurePosixPath(target.split("#", 1)[0])
        if path.suffix.lower() in _LINKED_SUFFIXES and slugify(path.stem):
            found.append(
                Relationship(
                    source=doc.id, target=slugify(path.stem), type="references", origin="link", confidence=0.9
                )
            )
    return found


def _from_thread(doc: Document) -> list[Relationship]:
    """An e-mail that names the message it answers (`in_reply_to:` set to a document id)."""
    parent = doc.meta.get("in_reply_to") or doc.meta.get("in-reply-to")
    if not parent or doc.type != "email":
        return []
    return [
        Relationship(
            source=doc.id, target=slugify(str(parent)), type="replies_to", origin="thread", confidence=0.95
        )
    ]


def reply_subject(title: str) -> str | None:
    """`Re: Budget` → `Budget` (the thread a reply belongs to), else None."""
    stripped = _REPLY_SUBJECT.sub("", title)
    return stripped if stripped != title else None


def relationship_candidates(
    doc: Document, body: str, catalogue: list[DocumentRef], limit: int = 15
) -> list[DocumentRef]:
    """The documents of the same personas whose titles the text echoes most (by shared stemmed
    title words), at most `limit`: what an LLM is asked to relate the document to."""
    present = {stem(w) for w in content_words(body)}
    personas = set(doc.personas)
    scored = []
    for ref in catalogue:
        if ref.id == doc.id or not personas & set(ref.personas):
            continue
        title_words = {stem(w) for w in content_words(ref.title)}
        shared = len(title_words & present) / len(title_words) if title_words else 0.0
        if shared > 0:
            scored.append((-shared, ref.id, ref))
    return [ref for *_, ref in sorted(scored)[:limit]]

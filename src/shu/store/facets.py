"""What a filter is checked against: each document's own dates, type, tags, people and paths,
read from the rows every store keeps (the document and its profile), and the documents of a
persona a `DocumentFilter` keeps. Every store answers the same way (the facets live in the
persona's `DocumentIndex`); the searches then take the kept documents inside their own queries."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date

from shu.text import words
from shu.types import Document, DocumentFilter, DocumentProfile, knowledge_base_path
from shu.types.filters import Choice, FilterChoices

_PEOPLE_KEYS = ("author", "from", "to", "cc", "publisher")
_DATE_KEYS = ("date", "start", "end", "end_date")


@dataclass(frozen=True)
class Facets:
    """One document, as a filter sees it (values casefolded)."""

    first: str | None
    """its earliest own date (ISO day)"""
    last: str | None
    type: str
    tags: frozenset[str]
    people: tuple[tuple[str, ...], ...]
    """each name or address as its words"""
    paths: tuple[tuple[str, ...], ...]
    """its file in the knowledge base and the file it was converted from, as path segments"""

    @classmethod
    def of(cls, doc: Document, profile: DocumentProfile | None) -> Facets:
        days = sorted(d for d in (_day(doc.date), *(_day(doc.meta.get(k)) for k in _DATE_KEYS)) if d)
        return cls(
            first=days[0] if days else None,
            last=days[-1] if days else None,
            type=(doc.type or "").casefold(),
            tags=frozenset(t.casefold() for t in doc.tags),
            people=tuple(dict.fromkeys(tuple(words(n)) for n in _people(doc, profile) if words(n))),
            paths=tuple(_segments(p) for p in _paths(doc) if p),
        )

    def kept_by(self, where: DocumentFilter) -> bool:
        if where.since is not None and (self.last is None or self.last < where.since.isoformat()):
            return False
        if where.until is not None and (self.first is None or self.first > where.until.isoformat()):
            return False
        if where.types and self.type not in {t.casefold() for t in where.types}:
            return False
        if where.tags and not self.tags & {t.casefold() for t in where.tags}:
            return False
        if where.people and not any(_named(self.people, tuple(words(p))) for p in where.people):
            return False
        return not where.sources or any(_within(self.paths, _segments(s)) for s in where.sources)


def kept_documents(facets: Mapping[str, Facets], where: DocumentFilter) -> frozenset[str]:
    """The ids of the documents (of one persona's `facets`) the filter keeps."""
    candidates: Iterable[str] = where.doc_ids if where.doc_ids else facets
    return frozenset(d for d in candidates if d in facets and facets[d].kept_by(where))


def filter_choices(
    documents: list[Document], facets: Mapping[str, Facets], limit: int = 200
) -> FilterChoices:
    """What the documents offer a filter (each list its `limit` most common values)."""
    types = Counter(d.type for d in documents if d.type)
    tags = Counter(t for d in documents for t in dict.fromkeys(d.tags))
    held = [facets[d.id] for d in documents if d.id in facets]
    placed = (knowledge_base_path(d.path) or "" for d in documents)
    folders = Counter(path.rsplit("/", 1)[0] for path in placed if "/" in path)
    days = [day for f in held for day in (f.first, f.last) if day]
    return FilterChoices(
        documents=len(documents),
        types=_choices(types, limit),
        tags=_choices(tags, limit),
        folders=_choices(folders, limit),
        first=date.fromisoformat(min(days)) if days else None,
        last=date.fromisoformat(max(days)) if days else None,
    )


def _choices(counted: Counter[str], limit: int) -> list[Choice]:
    ranked = sorted(counted.items(), key=lambda pair: (-pair[1], pair[0].casefold()))
    return [Choice(value=value, documents=count) for value, count in ranked[:limit]]


def _day(value: object) -> str | None:
    text = str(value)[:10] if value else ""
    return text if len(text) == 10 and text[4] == "-" and text[7] == "-" else None


def _people(doc: Document, profile: DocumentProfile | None) -> Iterable[str]:
    for key in _PEOPLE_KEYS:
        value = doc.meta.get(key)
        for name in value if isinstance(value, list) else [value] if value else []:
            yield str(name)
    participants = doc.meta.get("participants")
    for person in participants if isinstance(participants, list) else []:
        if isinstance(person, dict):
            yield str(person.get("name") or "")
            yield str(person.get("email") or "")
        else:
            yield str(person)
    if profile is not None:
        for participant in profile.participants:
            yield participant.name
            yield participant.email or ""


def _paths(doc: Document) -> Iterable[str]:
    yield knowledge_base_path(doc.path) or ""
    source = doc.meta.get("source_file")
    if isinstance(source, str) and source and doc.personas:
        yield f"{doc.personas[0]}/{source}"


def _segments(path: str) -> tuple[str, ...]:
    return tuple(p.casefold() for p in path.replace("\\", "/").split("/") if p and p != ".")


def _within(paths: tuple[tuple[str, ...], ...], wanted: tuple[str, ...]) -> bool:
    """A path holds `wanted` as consecutive segments: a file name, a folder, or a path from the
    knowledge base's top ("lumen-support/RAG/emails")."""
    size = len(wanted)
    return bool(size) and any(
        path[at : at + size] == wanted for path in paths for at in range(len(path) - size + 1)
    )


def _named(people: tuple[tuple[str, ...], ...], wanted: tuple[str, ...]) -> bool:
    """Some person's words hold every word wanted ("sofia" → Sofia Marquez)."""
    return bool(wanted) and any(set(wanted) <= set(person) for person in people)

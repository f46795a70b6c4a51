"""What a filter is checked against: each document's own dates, type, tags, people and paths,
read from the rows every store keeps (the document and its profile), and the documents of a
persona a `DocumentFilter` keeps. Every store answers the same way (the facets live in the
persona's `DocumentIndex`); the searches then take the kept documents inside their own queries.

`FacetIndex` holds each facet inverted (type, tag, address, name word, path segment → documents;
dates sorted), so a filter is a few set intersections, not a pass over every document; what a
filter keeps is remembered until the store changes (the index is built again then)."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date

from shu.text import words
from shu.types import Document, DocumentFilter, DocumentProfile, knowledge_base_path
from shu.types.filters import Choice, FilterChoices

_PEOPLE_KEYS = ("author", "from", "to", "cc", "publisher")
_DATE_KEYS = ("date", "start", "end", "end_date")
_ADDRESSED = re.compile(r"^\s*\"?(?P<name>[^<\"]*?)\"?\s*<(?P<address>[^<>\s]+@[^<>\s]+)>\s*$")
_REMEMBERED = 256
"""filters whose kept documents an index remembers (the oldest forgotten first)"""


@dataclass(frozen=True)
class Facets:
    """One document, as a filter sees it (values casefolded, accents folded)."""

    first: str | None
    """the first day its own dates cover (ISO; a month or a year covers all its days)"""
    last: str | None
    type: str
    tags: frozenset[str]
    names: tuple[tuple[str, ...], ...]
    """each person's name as its words"""
    addresses: frozenset[str]
    paths: tuple[tuple[str, ...], ...]
    """its file in the knowledge base and the file it was converted from, as path segments"""

    @classmethod
    def of(cls, doc: Document, profile: DocumentProfile | None) -> Facets:
        spans = [s for s in (_span(doc.date), *(_span(doc.meta.get(k)) for k in _DATE_KEYS)) if s]
        names, addresses = _people(doc, profile)
        return cls(
            first=min(s[0] for s in spans) if spans else None,
            last=max(s[1] for s in spans) if spans else None,
            type=_folded(doc.type or ""),
            tags=frozenset(_folded(t) for t in doc.tags),
            names=tuple(dict.fromkeys(n for n in (name_words(name) for name in names) if n)),
            addresses=frozenset(addresses),
            paths=tuple(dict.fromkeys(s for s in (segments(p) for p in _paths(doc)) if s)),
        )


@dataclass
class FacetIndex:
    """A persona's facets, inverted."""

    facets: dict[str, Facets] = field(default_factory=dict)
    types: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    tags: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    addresses: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    name_words: dict[str, set[tuple[str, int]]] = field(default_factory=lambda: defaultdict(set))
    """a word of a name → (doc id, which of its names)"""
    segments: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    by_last: list[tuple[str, str]] = field(default_factory=list)
    """(last day, doc id), sorted"""
    by_first: list[tuple[str, str]] = field(default_factory=list)
    _kept: dict[DocumentFilter, frozenset[str]] = field(default_factory=dict)

    def add(self, doc_id: str, facets: Facets) -> None:
        self.facets[doc_id] = facets
        self.types[facets.type].add(doc_id)
        for tag in facets.tags:
            self.tags[tag].add(doc_id)
        for address in facets.addresses:
            self.addresses[address].add(doc_id)
        for which, name in enumerate(facets.names):
            for word in name:
                self.name_words[word].add((doc_id, which))
        for path in facets.paths:
            for segment in path:
                self.segments[segment].add(doc_id)
        if facets.first is not None and facets.last is not None:
            self.by_last.append((facets.last, doc_id))
            self.by_first.append((facets.first, doc_id))

    def done(self) -> FacetIndex:
        """Sorted for the date ranges: call once every document is added."""
        self.by_last.sort()
        self.by_first.sort()
        return self

    def kept(self, where: DocumentFilter) -> frozenset[str]:
        """The ids of the documents the filter keeps (every field given holds; any value of one)."""
        if (known := self._kept.get(where)) is not None:
            return known
        found: set[str] | None = set(where.doc_ids) & self.facets.keys() if where.doc_ids else None
        for held in self._held(where):
            found = held if found is None else found & held
            if not found:
                break
        kept = frozenset(self.facets if found is None else found)
        if len(self._kept) >= _REMEMBERED:
            self._kept.pop(next(iter(self._kept)))
        self._kept[where] = kept
        return kept

    def _held(self, where: DocumentFilter) -> Iterable[set[str]]:
        """Each field's documents, the cheapest first."""
        if where.types:
            yield set().union(*(self.types.get(_folded(t), set()) for t in where.types))
        if where.tags:
            yield set().union(*(self.tags.get(_folded(t), set()) for t in where.tags))
        if where.since is not None:  # its dates end on or after the day
            yield {d for _, d in self.by_last[bisect_left(self.by_last, (where.since.isoformat(), "")) :]}
        if where.until is not None:  # its dates begin on or before the day
            yield {
                d
                for _, d in self.by_first[: bisect_right(self.by_first, (where.until.isoformat(), "\uffff"))]
            }
        if where.people:
            yield set().union(*(self._named(person) for person in where.people))
        if where.sources:
            yield set().union(*(self._placed(segments(source)) for source in where.sources))

    def _named(self, person: str) -> set[str]:
        """An address: the documents that name it exactly. A name: those where one person's name
        holds every word given (whole words: "sofia" → Sofia Marquez, never Sofiane)."""
        if "@" in person:
            return set(self.addresses.get(_folded(person.strip()), set()))
        wanted = name_words(person)
        if not wanted:
            return set()
        held = set.intersection(*(self.name_words.get(word, set()) for word in wanted))
        return {doc_id for doc_id, _ in held}

    def _placed(self, wanted: tuple[str, ...]) -> set[str]:
        """Documents with a path holding `wanted` as consecutive segments: a file name, a folder,
        or a path from the knowledge base's top ("lumen-support/RAG/emails")."""
        if not wanted:
            return set()
        size = len(wanted)
        candidates = set.intersection(*(self.segments.get(s, set()) for s in wanted))
        return {
            doc_id
            for doc_id in candidates
            if any(
                path[at : at + size] == wanted
                for path in self.facets[doc_id].paths
                for at in range(len(path) - size + 1)
            )
        }


def filter_choices(documents: list[Document], facets: dict[str, Facets], limit: int = 200) -> FilterChoices:
    """What the documents offer a filter (each list its `limit` most common values)."""
    types = Counter(d.type for d in documents if d.type)
    tags = Counter(t for d in documents for t in dict.fromkeys(d.tags))
    placed = (knowledge_base_path(d.path) or "" for d in documents)
    folders = Counter(path.rsplit("/", 1)[0] for path in placed if "/" in path)
    held = [facets[d.id] for d in documents if d.id in facets]
    firsts = [f.first for f in held if f.first]
    lasts = [f.last for f in held if f.last]
    return FilterChoices(
        documents=len(documents),
        types=_choices(types, limit),
        tags=_choices(tags, limit),
        folders=_choices(folders, limit),
        first=date.fromisoformat(min(firsts)) if firsts else None,
        last=_real_day(max(lasts)) if lasts else None,
    )


def name_words(name: str) -> tuple[str, ...]:
    """A name's words, casefolded and with accents folded ("Sofía Márquez" → sofia, marquez)."""
    return tuple(words(_folded(name)))


def segments(path: str) -> tuple[str, ...]:
    """A path's segments, casefolded (a leading or trailing slash, `.` and empty ones dropped)."""
    return tuple(_folded(p) for p in path.replace("\\", "/").split("/") if p and p != ".")


def people_in(text: str) -> list[tuple[str, str]]:
    """(name, address) of each person a header value names: `Sofia Marquez <sofia@x.io>`, a bare
    address, a bare name ("Ana Lima", "Marquez, Sofia"), or several addresses with commas."""
    parts = [p for p in text.split(",") if p.strip()] if text.count("@") > 1 else [text]
    found = []
    for part in parts:
        addressed = _ADDRESSED.match(part)
        if addressed:
            found.append((addressed.group("name").strip(), addressed.group("address")))
        elif "@" in part and len(part.split()) == 1:
            found.append(("", part.strip().strip("<>")))
        elif part.strip():
            found.append((" ".join(part.split()), ""))
    return found


def _choices(counted: Counter[str], limit: int) -> list[Choice]:
    ranked = sorted(counted.items(), key=lambda pair: (-pair[1], pair[0].casefold()))
    return [Choice(value=value, documents=count) for value, count in ranked[:limit]]


def _folded(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def _span(value: object) -> tuple[str, str] | None:
    """The days a date covers, as ISO strings: a day itself, a month (`2026-03`: the 1st to
    the 31st, compared as text), a year (`2026`); a time of day is its day."""
    text = str(value).strip()[:10] if value else ""
    parts = text.split("-")
    if not all(p.isdigit() for p in parts) or len(parts[0]) != 4:
        return None
    if len(parts) == 3 and len(parts[1]) == 2 and len(parts[2]) == 2:
        return text, text
    if len(parts) == 2 and len(parts[1]) == 2:
        return f"{text}-01", f"{text}-31"
    if len(parts) == 1:
        return f"{text}-01-01", f"{text}-12-31"
    return None


def _real_day(day: str) -> date:
    """`2026-02-31` (the end of a month read as text) → the month's real last day."""
    year, month, value = (int(p) for p in day.split("-"))
    while True:
        try:
            return date(year, month, value)
        except ValueError:
            value -= 1


def _people(doc: Document, profile: DocumentProfile | None) -> tuple[list[str], list[str]]:
    """The names and the addresses (casefolded) of the people a document names."""
    found: list[tuple[str, str]] = []
    for key in _PEOPLE_KEYS:
        value = doc.meta.get(key)
        for item in value if isinstance(value, list) else [value] if value else []:
            found += people_in(str(item))
    participants = doc.meta.get("participants")
    for person in participants if isinstance(participants, list) else []:
        if isinstance(person, dict):
            found.append((str(person.get("name") or ""), str(person.get("email") or "")))
        else:
            found.append((str(person), ""))
    if profile is not None:
        found += [(p.name, p.email or "") for p in profile.participants]
    names = [name for name, _ in found if name.strip()]
    addresses = [_folded(a.strip()) for _, a in found if "@" in a]
    return names, addresses


def _paths(doc: Document) -> Iterable[str]:
    yield knowledge_base_path(doc.path) or ""
    source = doc.meta.get("source_file")
    if isinstance(source, str) and source and doc.personas:
        yield f"{doc.personas[0]}/{source}"

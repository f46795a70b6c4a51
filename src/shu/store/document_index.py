"""Document-level lookups every store answers the same way, from rows it already keeps: titles
(for "show me …" questions), names in profiles (the relational index: entities, participants,
authors) and dates (the temporal surface). Built once per persona and kept until the store
changes; a backend only supplies the rows."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from shu.store.facets import FacetIndex, Facets
from shu.text import content_words, stem, words
from shu.types import ChunkProfile, Document, DocumentFilter, DocumentProfile

ROLE_WEIGHTS = {"author": 1.0, "decision_maker": 1.0, "subject": 0.9, "recipient": 0.8, "mentioned": 0.5}
ENTITY_WEIGHT = 0.6
_NAMED_KINDS = {"person", "organization", "email", "place"}


@dataclass(frozen=True)
class DocumentHit:
    doc_id: str
    score: float


@dataclass
class DocumentIndex:
    titles: dict[str, frozenset[str]] = field(default_factory=dict)
    names: dict[str, dict[str, float]] = field(default_factory=dict)
    """casefolded name → doc id → weight of the role the name plays there"""
    spans: dict[str, tuple[str, str]] = field(default_factory=dict)
    """doc id → (first, last) ISO date the document is about"""
    keywords: dict[str, list[str]] = field(default_factory=dict)
    """casefolded keyword or topic of a chunk profile → the chunks it describes"""
    ids: dict[str, frozenset[str]] = field(default_factory=dict)
    """doc id → the words of its id and file name ("lumen-faq" → lumen, faq): lookup targets too"""
    filters: FacetIndex = field(default_factory=FacetIndex)
    """what a filter is checked against, inverted"""

    @classmethod
    def build(
        cls,
        rows: list[tuple[Document, DocumentProfile | None]],
        chunk_profiles: list[ChunkProfile] | None = None,
    ) -> DocumentIndex:
        index = cls()
        for chunk_profile in chunk_profiles or []:
            for term in {t.strip().casefold() for t in [*chunk_profile.keywords, *chunk_profile.topics]}:
                if len(term) >= 3:
                    index.keywords.setdefault(term, []).append(chunk_profile.chunk_id)
        names: dict[str, dict[str, float]] = defaultdict(dict)
        for doc, profile in rows:
            index.titles[doc.id] = frozenset(stem(w) for w in content_words(doc.title))
            index.ids[doc.id] = frozenset(stem(w) for w in content_words(_id_words(doc)))
            weighted = _names_of(doc, profile)
            for name, weight in weighted.items():
                names[name][doc.id] = max(weight, names[name].get(doc.id, 0.0))
            index.filters.add(doc.id, Facets.of(doc, profile))
            span = _span_of(doc, profile)
            if span:
                index.spans[doc.id] = span
        index.names = dict(names)
        index.filters.done()
        return index

    @property
    def facets(self) -> dict[str, Facets]:
        """doc id → what a filter is checked against"""
        return self.filters.facets

    def kept(self, where: DocumentFilter | None) -> frozenset[str] | None:
        """The persona's documents the filter keeps; None when nothing is restricted."""
        if where is None or where.empty:
            return None
        return self.filters.kept(where)

    def known_names(self) -> list[str]:
        return sorted(self.names)

    def search_titles(self, text: str, limit: int, within: frozenset[str] | None = None) -> list[DocumentHit]:
        """Documents whose title the text names: every word of the text is in the title ("the
        pricing page" → "Pricing and Plans"), or at least half the title's words, two or more,
        are in the text. Scored by the share of the title named; ties to the shorter title."""
        asked = {stem(w) for w in content_words(text)}
        scored = []
        for doc_id, title in self.titles.items():
            if not title or not asked or (within is not None and doc_id not in within):
                continue
            named = title & asked
            share = len(named) / len(title)
            if asked <= title or (share >= 0.5 and len(named) >= min(2, len(title))):
                scored.append((-share, len(title), doc_id))
            elif asked <= self.ids.get(doc_id, frozenset()):  # "the FAQ" → lumen-faq.md
                scored.append((-len(asked) / len(self.ids[doc_id]), len(title), doc_id))
        return [DocumentHit(doc_id, -share) for share, _, doc_id in sorted(scored)[:limit]]

    def search_keywords(self, text: str, limit: int) -> list[tuple[str, float]]:
        """Chunks whose profile keywords or topics the text names (whole words), each keyword
        weighted by its rarity (1 / chunks it describes): (chunk id, score), best first."""
        spoken = f" {' '.join(words(text))} "
        totals: dict[str, float] = defaultdict(float)
        for term, chunk_ids in self.keywords.items():
            if f" {' '.join(words(term))} " in spoken:
                for chunk_id in chunk_ids:
                    totals[chunk_id] += 1.0 / len(chunk_ids)
        return sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))[:limit]

    def selectivity(self, matched: int) -> float:
        """How much matching `matched` of the persona's documents tells apart, like IDF scaled to
        [0, 1]: one document → 1, every document → 0 (a feature every document shares filters
        nothing)."""
        total = len(self.titles)
        if matched <= 0 or total <= 1:
            return 0.0
        return max(0.0, min(1.0, math.log(total / matched) / math.log(total)))

    def name_selectivity(self, name: str) -> float:
        """1 for a name no document carries (nothing says it is common), else `selectivity`."""
        holders = self.names.get(name.casefold())
        return self.selectivity(len(holders)) if holders else 1.0

    def search_names(
        self, names: list[str], limit: int, within: frozenset[str] | None = None
    ) -> tuple[list[DocumentHit], float]:
        """Documents naming these people or projects, each name weighted by the role it plays
        there times its selectivity; with the best selectivity among the names (the surface's
        weight: names every document carries say nothing)."""
        totals: dict[str, float] = defaultdict(float)
        best = 0.0
        for name in {n.casefold() for n in names}:
            holders = self.names.get(name, {})
            weight = self.selectivity(len(holders))
            best = max(best, weight)
            for doc_id, role in holders.items():
                if within is None or doc_id in within:
                    totals[doc_id] += role * weight
        ranked = sorted(((d, s) for d, s in totals.items() if s > 0), key=lambda pair: (-pair[1], pair[0]))
        return [DocumentHit(doc_id, score) for doc_id, score in ranked[:limit]], best

    def search_dates(
        self, start: str | None, end: str | None, limit: int, within: frozenset[str] | None = None
    ) -> tuple[list[DocumentHit], float]:
        """Documents whose span overlaps [start, end] (ISO prefixes: 2024, 2024-03, 2024-03-05),
        with the scope's selectivity (a scope covering every document filters nothing)."""
        if not start and not end:
            return [], 0.0
        low, high = (start or "0000"), _end_of(end or "9999")
        hits = [
            DocumentHit(doc_id, 1.0)
            for doc_id, (first, last) in sorted(self.spans.items())
            if first <= high and _end_of(last) >= low
        ]
        selectivity = self.selectivity(len(hits))
        if within is not None:  # the selectivity stays the persona's: what the dates tell apart
            hits = [h for h in hits if h.doc_id in within]
        return hits[:limit], selectivity


def _id_words(doc: Document) -> str:
    """The document's id and its file's name as words (`2026-q1-report.md` → 2026 q1 report)."""
    stem_of_file = doc.path.rsplit("/", 1)[-1].rsplit(".", 1)[0] if doc.path else ""
    return f"{doc.id} {stem_of_file}".replace("-", " ").replace("_", " ").replace(".", " ")


def _names_of(doc: Document, profile: DocumentProfile | None) -> dict[str, float]:
    found: dict[str, float] = {}

    def add(name: object, weight: float) -> None:
        key = str(name).strip().casefold()
        if len(key) >= 3:
            found[key] = max(weight, found.get(key, 0.0))

    for key, role in (("author", "author"), ("from", "author"), ("publisher", "author"), ("to", "recipient")):
        value = doc.meta.get(key)
        for name in value if isinstance(value, list) else [value] if value else []:
            add(name, ROLE_WEIGHTS[role])
    participants = doc.meta.get("participants")
    for name in participants if isinstance(participants, list) else []:
        add(name.get("name", "") if isinstance(name, dict) else name, ROLE_WEIGHTS["recipient"])
    if profile is not None:
        for entity in profile.entities:
            if entity.kind in _NAMED_KINDS:
                add(entity.name, ENTITY_WEIGHT)
        for participant in profile.participants:
            add(participant.name, ROLE_WEIGHTS.get(participant.role, ENTITY_WEIGHT))
            if participant.email:
                add(participant.email, ROLE_WEIGHTS.get(participant.role, ENTITY_WEIGHT))
        for project in profile.projects:
            add(project, ENTITY_WEIGHT)
    return found


def _span_of(doc: Document, profile: DocumentProfile | None) -> tuple[str, str] | None:
    scope = profile.temporal_scope if profile else None
    first = (scope.start if scope else None) or doc.date
    last = (scope.end if scope else None) or first
    return (first, last) if first and last else None


def _end_of(prefix: str) -> str:
    """The last instant a date prefix covers, as a comparable string: 2024 → 2024-99."""
    return prefix + "-99" if len(prefix) < 10 else prefix

"""A sentence the extractive reader may quote: where it stands (its section, its document, the
rank of its chunk), how it scored for the question, and the sentences before and after it."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from shu.analysis import content_words
from shu.types import Citation, ContextDocument, ContextSection


@dataclass(eq=False)
class Candidate:
    """Compared by identity: the same sentence twice in a section is two candidates (a value
    comparison would also compare their vectors, which numpy cannot answer as one truth value)."""

    text: str
    section: ContextSection
    document: ContextDocument
    rank: int
    score: float = 0.0
    meaning: float = 0.0
    overlap: float = 0.0
    about: float = 1.0
    """How much its document is about the question, against the document most about it."""
    vector: np.ndarray | None = None
    next: Candidate | None = None
    """The sentence after it in its section."""
    previous: Candidate | None = None


def linked(candidates: list[Candidate]) -> list[Candidate]:
    """A section's sentences, each knowing the one after it."""
    for candidate, after in itertools.pairwise(candidates):
        candidate.next, after.previous = after, candidate
    return candidates


def similar(a: str, b: str) -> bool:
    wa, wb = set(content_words(a)), set(content_words(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) > 0.7


def citations_of(chosen: list[Candidate]) -> list[Citation]:
    seen: dict[str, Citation] = {}
    for candidate in chosen:
        seen.setdefault(candidate.section.citation_key, candidate.document.citation(candidate.section))
    return list(seen.values())

"""What gets embedded for a document, in one batch across documents: its chunks' indexed text,
its synthesized questions, and its profile surfaces (synopsis, capability manifest). A text the
store already holds a vector for (an earlier version of the document) keeps it."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from shu.models.embed.base import Embedder
from shu.store.base import StoredDocument
from shu.types import Chunk, DocumentProfile, Enrichment


@dataclass
class DocumentVectors:
    chunks: np.ndarray
    questions: np.ndarray | None = None
    profile: dict[str, np.ndarray] = field(default_factory=dict)


def profile_texts(profile: DocumentProfile | None) -> dict[str, str]:
    """surface → the text embedded for it; empty surfaces are left out."""
    if profile is None:
        return {}
    manifest = profile.manifest
    claims = [
        *manifest.answers_questions_about,
        *manifest.question_domains,
        *manifest.provides_information_type,
    ]
    texts = {
        "synopsis": profile.synopsis.strip(),
        "manifest": "; ".join(dict.fromkeys(c for c in claims if c)),
    }
    return {surface: text for surface, text in texts.items() if text}


def kept_vectors(stored: StoredDocument | None, embedder: str) -> dict[str, np.ndarray]:
    """text → the vector the store holds for it, from a stored document embedded by `embedder`:
    what a new version of the document reuses for every text it did not change."""
    if stored is None or stored.embedder != embedder:
        return {}
    kept = dict(zip((c.index_text for c in stored.chunks), stored.vectors, strict=True))
    if stored.question_vectors is not None:
        questions = (q.text for q in stored.enrichment.questions)
        kept.update(zip(questions, stored.question_vectors, strict=True))
    surfaces = profile_texts(stored.enrichment.profile)
    kept.update(
        (text, stored.profile_vectors[s]) for s, text in surfaces.items() if s in stored.profile_vectors
    )
    return kept


@dataclass
class BatchItem:
    chunks: list[Chunk]
    enrichment: Enrichment
    kept: dict[str, np.ndarray] = field(default_factory=dict)
    """text → vector already stored for it (not embedded again)"""


@dataclass
class BatchVectors:
    documents: list[DocumentVectors]
    embedded: int
    """texts embedded by this call"""
    kept: int
    """texts whose stored vector was reused"""


def embed_batch(embedder: Embedder, items: list[BatchItem]) -> BatchVectors:
    """One `embed_documents` call for every text of every item that has no kept vector, split
    back per document."""
    layout: list[tuple[list[str], int, list[str]]] = []
    for item in items:
        surfaces = profile_texts(item.enrichment.profile)
        texts = [c.index_text for c in item.chunks] + [q.text for q in item.enrichment.questions]
        layout.append(([*texts, *surfaces.values()], len(item.chunks), list(surfaces)))
    wanted = (
        t for (texts, _, _), item in zip(layout, items, strict=True) for t in texts if t not in item.kept
    )
    missing = list(dict.fromkeys(wanted))
    made = dict(zip(missing, embedder.embed_documents(missing), strict=True)) if missing else {}
    found, kept = [], 0
    for (texts, count, names), item in zip(layout, items, strict=True):
        vectors = [item.kept[t] if t in item.kept else made[t] for t in texts]
        kept += sum(1 for t in texts if t in item.kept)
        asked = len(texts) - count - len(names)
        chunks = np.array(vectors[:count], dtype=np.float32)
        questions = np.array(vectors[count : count + asked], dtype=np.float32) if asked else None
        profile = {surface: vectors[count + asked + i] for i, surface in enumerate(names)}
        found.append(DocumentVectors(chunks, questions, profile))
    return BatchVectors(found, len(missing), kept)

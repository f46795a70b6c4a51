"""What gets embedded for a document, in one batch across documents: its chunks' indexed text,
its synthesized questions, and its profile surfaces (synopsis, capability manifest)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from shu.models.embed.base import Embedder
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


def embed_batch(embedder: Embedder, items: list[tuple[list[Chunk], Enrichment]]) -> list[DocumentVectors]:
    """One `embed_documents` call for every text of every item, split back per document."""
    texts: list[str] = []
    layout: list[tuple[int, int, list[str]]] = []
    for chunks, enrichment in items:
        surfaces = profile_texts(enrichment.profile)
        texts += [c.index_text for c in chunks]
        texts += [q.text for q in enrichment.questions]
        texts += list(surfaces.values())
        layout.append((len(chunks), len(enrichment.questions), list(surfaces)))
    vectors = embedder.embed_documents(texts) if texts else np.zeros((0, 0), dtype=np.float32)
    found: list[DocumentVectors] = []
    offset = 0
    for count, asked, names in layout:
        chunk_vectors = vectors[offset : offset + count]
        offset += count
        question_vectors = vectors[offset : offset + asked] if asked else None
        offset += asked
        profile = {surface: vectors[offset + i] for i, surface in enumerate(names)}
        offset += len(names)
        found.append(DocumentVectors(chunk_vectors, question_vectors, profile))
    return found

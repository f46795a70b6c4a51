"""The records the conformance suite writes: small, with 8-d unit vectors."""

from __future__ import annotations

import numpy as np

from shu.types import (
    Chunk,
    Document,
    Finding,
    Persona,
    PersonaConfig,
)

DIM = 8


def persona(slug: str, tags: list[str] | None = None) -> Persona:
    return Persona(
        slug=slug,
        display_name=slug.title(),
        config=PersonaConfig(slug=slug, display_name=slug.title(), tags=tags or []),
    )


def document(doc_id: str, personas: list[str], **fields: object) -> Document:
    values: dict[str, object] = {
        "title": f"Title {doc_id}",
        "content_hash": f"h-{doc_id}",
        "path": f"/kb/{doc_id}.md",
    }
    return Document(id=doc_id, personas=personas, **(values | fields))  # type: ignore[arg-type]


def chunks(doc_id: str, texts: list[str]) -> list[Chunk]:
    return [
        Chunk(
            id=f"{doc_id}#{i}",
            doc_id=doc_id,
            ord=i,
            section_path=f"S{i}",
            text=t,
            index_text=t,
            token_count=len(t.split()),
        )
        for i, t in enumerate(texts)
    ]


def unit(*values: float) -> np.ndarray:
    vector = np.zeros(DIM, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


def vectors(*rows: np.ndarray) -> np.ndarray:
    return np.vstack(rows).astype(np.float32)


def finding(
    kind: str = "relationship", doc_id: str = "p1", persona: str = "alpha", **fields: object
) -> Finding:
    values: dict[str, object] = {"evidence": f"words of {doc_id}", "question": "what links them?"}
    if kind == "relationship":
        values |= {"target": "p2", "value": "explains"}
    return Finding(kind=kind, doc_id=doc_id, persona=persona, **(values | fields))  # type: ignore[arg-type]

"""Reads that must find what they are asked for, failing with the error a user reads: a persona
that must exist (the error lists the ones that do), a document that must be in a persona (one of
another persona is "not found", never "forbidden": its existence is not told)."""

from __future__ import annotations

from shu.errors import NotFoundError, UnknownPersonaError
from shu.store.base import KnowledgeReader
from shu.types import Document, Persona


def known_persona(store: KnowledgeReader, slug: str) -> Persona:
    persona = store.get_persona(slug)
    if persona is None:
        raise UnknownPersonaError(slug, [p.slug for p in store.list_personas()])
    return persona


def known_document(store: KnowledgeReader, doc_id: str, persona: str | None = None) -> Document:
    """The document, which with `persona` must be one of that persona's (and the persona must exist)."""
    if persona is not None:
        known_persona(store, persona)
    found = store.get_document(doc_id)
    if found is None or (persona is not None and persona not in found.personas):
        where = f" in persona {persona!r}" if persona is not None else ""
        raise NotFoundError(f"no document {doc_id!r}{where}")
    return found

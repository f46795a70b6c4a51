"""What the reader may read of the knowledge base beyond the context, to answer a question about
the collection ("which documents mention rats", "what topics does the handbook cover"): the
documents, their chunks and profiles, and keyword search (the store, narrowed to that)."""

from __future__ import annotations

from datetime import date
from typing import Protocol

from shu.analysis import stem_words, words
from shu.relative_dates import day_text
from shu.store.base import ScoredChunk, Within
from shu.store.document_index import DocumentIndex
from shu.types import (
    AssembledContext,
    Chunk,
    ContextDocument,
    ContextSection,
    Document,
    DocumentProfile,
    KeywordFeedback,
    knowledge_base_path,
)


class Library(Protocol):
    def list_documents(self, persona: str | None = None) -> list[Document]: ...

    def get_documents(self, doc_ids: list[str]) -> dict[str, Document]: ...

    def get_profiles(self, doc_ids: list[str]) -> dict[str, DocumentProfile]: ...

    def list_chunks(self, doc_id: str) -> list[Chunk]: ...

    def chunk_documents(self, chunk_ids: list[str]) -> dict[str, str]: ...

    def search_keyword(
        self,
        query: str,
        persona: str,
        limit: int,
        feedback: KeywordFeedback | None = None,
        within: Within = None,
    ) -> list[ScoredChunk]: ...

    def document_index(self, persona: str) -> DocumentIndex: ...


def stems(text: str) -> set[str]:
    """The text's words as Porter stems (allergy, allergies → allergi), as keyword search has them."""
    return set(stem_words(words(text)))


def section_of(chunk: Chunk) -> ContextSection:
    return ContextSection(section_path=chunk.section_path, text=chunk.text, chunk_ids=[chunk.id])


def context_document(document: Document, score: float, sections: list[ContextSection]) -> ContextDocument:
    """A document as the context would hold it, with the sections an answer cites."""
    return ContextDocument(
        doc_id=document.id,
        title=document.title,
        date=document.date,
        source=document.source_url or knowledge_base_path(document.path),
        path=knowledge_base_path(document.path),
        license=document.license,
        score=score,
        sections=sections,
    )


def whole_document(library: Library, doc_id: str) -> AssembledContext | None:
    """A document given whole, every section under its own key, as the context of an answer about
    the document as a whole (a summary of it); None when the store has no such document."""
    document = library.get_documents([doc_id]).get(doc_id)
    if document is None:
        return None
    whole = context_document(document, 1.0, [section_of(c) for c in library.list_chunks(doc_id)])
    context = AssembledContext(documents=[whole.model_copy(update={"full": True})])
    context.number_parts()
    return context


def escalate(context: AssembledContext, whole: AssembledContext) -> None:
    """`context` holding the documents of `whole` whole, first, and saying it escalated to them
    (once: a document escalated already is not added again)."""
    ids = [d.doc_id for d in whole.documents]
    context.documents = [*whole.documents, *(d for d in context.documents if d.doc_id not in ids)]
    context.escalated = list(dict.fromkeys([*context.escalated, *ids]))
    context.number_parts()


def readable_day(day: str) -> str:
    """ "2026-05-04" → "4 May 2026" (a date that is not a day stays as written)."""
    try:
        return day_text(date.fromisoformat(day[:10]))
    except ValueError:
        return day


def described(document: Document, profile: DocumentProfile | None) -> str:
    """What a document is, in a few words: its type and day, and for a message who wrote to whom
    ("email, 4 May 2026, from Samuel Osei to Dana Whitfield, Amina Diallo")."""
    parts = [document.type.replace("_", " ")] if document.type else []
    if document.date:
        parts.append(readable_day(document.date))
    if profile is not None:
        authors = [p.name for p in profile.participants if p.role == "author"]
        others = [p.name for p in profile.participants if p.role != "author"]
        if authors:
            parts.append(f"from {', '.join(authors)}" + (f" to {', '.join(others[:4])}" if others else ""))
    return ", ".join(parts)

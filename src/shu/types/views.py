"""What a reader of the knowledge base gets back: one document with its sections, profile and
relationships, and the store's counts."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from shu.types.documents import Document
from shu.types.enrichment import DocumentProfile, Relationship


class DocumentSection(BaseModel):
    section_path: str
    text: str
    citation_key: str


class DocumentView(BaseModel):
    """One document as a reader sees it: its record, its text by section, what enrichment wrote
    about it, and its outgoing relationships."""

    document: Document
    sections: list[DocumentSection] = Field(default_factory=list)
    profile: DocumentProfile | None = None
    relationships: list[Relationship] = Field(default_factory=list)

    @property
    def text(self) -> str:
        return "\n\n".join(s.text for s in self.sections)


class KnowledgeBaseStats(BaseModel):
    """`kb.stats()`: the store's counts and size, what made the enrichment, LLM use, the answer
    cache and the agent's findings."""

    personas: int
    documents: int
    chunks: int
    vectors: int
    embedder: str | None
    size_bytes: int
    enrichment: dict[str, dict[str, int]] = Field(default_factory=dict)
    llm: dict[str, Any] = Field(default_factory=dict)
    answer_cache: dict[str, int] | None = None
    findings: dict[str, int] = Field(default_factory=dict)

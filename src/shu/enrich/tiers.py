"""How much the model does for a document, from what the document is worth (ingestion cost,
query-aware synthesis §6.1): `full` — a profile, questions and every passage's profile (and
context prefixes when on); `light` — the profile only (questions and passage profiles by the
non-LLM methods); `extractive` — nothing asked. A short document says nothing a model would add;
a message or a chat of a few passages that no other document links to, or a document years old
that nothing links to, gets its profile alone; a document others link to always gets everything."""

from __future__ import annotations

from datetime import date
from typing import Literal

from shu.text import iso_date
from shu.types import Chunk, Document

Tier = Literal["full", "light", "extractive"]

SHORT_WORDS = 60
"""Fewer words than this: nothing asked of the model."""
CONVERSATIONAL = frozenset({"email", "chat", "message", "conversation", "thread"})
SMALL_CHUNKS = 3
OLD_DAYS = 730


def tier(doc: Document, chunks: list[Chunk], linked_from: int, today: date) -> Tier:
    """The document's tier: what it is (type), how big (words, passages), how linked (documents
    linking to it) and how recent."""
    words = sum(len(c.text.split()) for c in chunks)
    if linked_from > 0:
        return "full" if words >= SHORT_WORDS else "light"
    if words < SHORT_WORDS:
        return "extractive"
    if (doc.type or "").lower() in CONVERSATIONAL and len(chunks) <= SMALL_CHUNKS:
        return "light"
    written = iso_date(doc.date)
    if written is not None and (today - written).days > OLD_DAYS:
        return "light"
    return "full"

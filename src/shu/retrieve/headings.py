"""Sections a question asks for by what they are. "What caused incident INC-2026-0317?" asks for
the postmortem's section headed "Root cause", which its words and meaning alone did not reach
(the section's text says "the scheduler", "workers", "timeout"). For the best few documents of the
fused list, a section whose own heading names what a cause question asks for (stemmed: "cause",
"reason", "why") joins the list just below that document's best chunk. Only such intent words
count: a question's other words name things ("the Team and Pro plans") that the surfaces find
already, and sections headed by them would push the passage that compares them out of the context.
"""

from __future__ import annotations

import re

from shu.retrieve.candidates import Candidates, StageContext
from shu.store.base import KnowledgeReader
from shu.text import content_words, stem

Fused = list[tuple[str, float]]

_WHY = re.compile(r"^\W*(?:why|how come)\b|\b(?:led to|reasons? for)\b", re.I)
_CAUSE_WORDS = frozenset(stem(w) for w in ("cause", "reason", "why"))
_DOCUMENTS = 3
"""How many of the best documents are read for a named section."""
_SECTIONS = 2
"""At most this many sections join."""
_SHARE = 0.98
"""A named section's score: this share of its document's best chunk."""


def asked_words(question: str) -> set[str]:
    """The stemmed words a heading may name: "cause", "reason", "why" when the question asks
    for a cause (why, how come, what caused, the reason for, what led to); else none."""
    words = {stem(w) for w in content_words(question)}
    return set(_CAUSE_WORDS) if _WHY.search(question) or words & _CAUSE_WORDS else set()


def with_named_sections(store: KnowledgeReader, fused: Fused, question: str) -> tuple[Fused, list[str]]:
    """`fused` with the chunks of the sections the question names by heading, and a note for
    each section that joined."""
    asked = asked_words(question)
    if not asked or not fused:
        return fused, []
    scores = dict(fused)
    documents = store.chunk_documents([chunk_id for chunk_id, _ in fused[:50]])
    best: dict[str, float] = {}
    for chunk_id, score in fused[:50]:
        doc_id = documents.get(chunk_id)
        if doc_id is not None and doc_id not in best:
            best[doc_id] = score
        if len(best) >= _DOCUMENTS:
            break
    joined: list[str] = []
    for doc_id, top in best.items():
        chunks = store.list_chunks(doc_id)
        title = (
            {stem(w) for w in content_words(chunks[0].section_path.split(" > ", 1)[0])} if chunks else set()
        )
        for path in dict.fromkeys(c.section_path for c in chunks if " > " in c.section_path):
            heading = {stem(w) for w in content_words(path.rsplit(" > ", 1)[-1])} - title
            if len(joined) >= _SECTIONS or not heading & asked:
                continue
            section = [c.id for c in chunks if c.section_path == path]
            if any(scores.get(c, 0.0) >= top * _SHARE for c in section):
                continue  # already among its document's best
            for chunk_id in section[:3]:
                scores[chunk_id] = max(scores.get(chunk_id, 0.0), top * _SHARE)
            joined.append(path)
    if not joined:
        return fused, []
    ranked = sorted(scores.items(), key=lambda pair: -pair[1])
    return ranked, [f"named by its heading: {path}" for path in joined]


class NamedSections:
    """The stage: a section the question names by heading joins the list."""

    name = "named_sections"

    def __init__(self, store: KnowledgeReader) -> None:
        self.store = store

    def applies(self, context: StageContext) -> bool:
        return True

    def __call__(self, candidates: Candidates, context: StageContext) -> Candidates:
        ranked, notes = with_named_sections(self.store, candidates.ranked, context.question)
        return candidates.but(ranked=ranked).noted(*notes)

"""The answer seam: every answerer reads what retrieval assembled (the context, with escalated
and whole documents, and the ranked hits) and returns a cited `Answer`."""

from __future__ import annotations

from typing import Protocol

from shu.types import Answer, Persona, RetrievalResult


class Answerer(Protocol):
    name: str

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        """Answer `result.question` (the asker's own words) from `result.context` only."""
        ...

"""The answer seam: every answerer reads what retrieval assembled (the context, with escalated
and whole documents, and the ranked hits) and returns a cited `Answer`. An answerer that can
also stream has `stream(result, persona)`, yielding text pieces, resets, and last the `Answer`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from shu.answer.stream import AskEvent
from shu.types import Answer, Persona, RetrievalResult


class Answerer(Protocol):
    name: str

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        """Answer `result.question` (the asker's own words) from `result.context` only."""
        ...


def answer_stream(answerer: Answerer, result: RetrievalResult, persona: Persona) -> Iterator[AskEvent]:
    """The answerer's stream when it has one; else its answer, whole."""
    streaming = getattr(answerer, "stream", None)
    if callable(streaming):
        yield from streaming(result, persona)
    else:
        yield answerer.answer(result, persona)

from __future__ import annotations

from typing import Protocol


class Reranker(Protocol):
    @property
    def name(self) -> str: ...

    def score(self, query: str, passages: list[str]) -> list[float]:
        """One relevance score per passage, in the passages' order (every passage is scored)."""
        ...

"""What an ingestion run did, file by file, and its summary."""

from __future__ import annotations

from collections import Counter
from typing import Literal

from pydantic import BaseModel, Field

Status = Literal["converted", "ingested", "unchanged", "skipped", "failed", "pruned"]


class FileOutcome(BaseModel):
    path: str
    status: Status
    message: str = ""
    doc_id: str | None = None
    chunks: int = 0
    warnings: list[str] = Field(default_factory=list)

    def line(self) -> str:
        detail = f": {self.message}" if self.message else ""
        return f"{self.status} {self.path}{detail}"


class IngestReport(BaseModel):
    personas: list[str] = Field(default_factory=list)
    outcomes: list[FileOutcome] = Field(default_factory=list)
    seconds: float = 0.0
    llm: dict[str, object] | None = None
    """LLM use during the run: artifacts made, fallbacks by kind, calls, tokens, cost."""
    texts_embedded: int = 0
    vectors_kept: int = 0
    """texts of changed documents that were as stored: their vectors were kept, not recomputed"""
    notes: list[str] = Field(default_factory=list)
    """what the run says about itself (settings that changed since the last run)"""

    def add(self, outcome: FileOutcome) -> FileOutcome:
        self.outcomes.append(outcome)
        return outcome

    def counts(self) -> dict[str, int]:
        counted = Counter(o.status for o in self.outcomes)
        return {
            status: counted.get(status, 0)
            for status in ("converted", "ingested", "unchanged", "skipped", "failed", "pruned")
        }

    @property
    def failed(self) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == "failed"]

    @property
    def chunks_written(self) -> int:
        return sum(o.chunks for o in self.outcomes if o.status == "ingested")

    def summary(self) -> str:
        parts = [f"{n} {status}" for status, n in self.counts().items() if n]
        return ", ".join(parts) or "nothing to do"

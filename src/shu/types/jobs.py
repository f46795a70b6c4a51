"""Background jobs (ingest, enrich, reindex) and their states."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

JobKind = Literal["ingest", "enrich", "reindex"]


JobStatus = Literal["queued", "running", "done", "failed", "cancelled"]


class Job(BaseModel):
    """A background run of ingestion (`ingest`), enrichment again (`enrich`: documents whose LLM
    artifacts fell back, or all with `force`) or re-indexing with context prefixes (`reindex`)."""

    id: str
    kind: JobKind
    path: str
    force: bool = False
    user: str = ""
    status: JobStatus = "queued"
    stage: str = ""
    processed: int = 0
    total: int = 0
    failed: int = 0
    created: str = ""
    started: str | None = None
    finished: str | None = None
    error: str | None = None
    report: dict[str, Any] | None = None
    cancel_requested: bool = False
    attempts: int = 0
    """Runs begun (a job interrupted by a restart runs again and resumes where it stopped)."""

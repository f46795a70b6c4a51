"""The job store's conformance (`JobStore`)."""

from __future__ import annotations

from shu.store.base import Store
from shu.types import (
    Job,
)


class JobsConformance:
    """The job store: jobs listed newest first, whose cancel request survives the worker's
    progress writes."""

    def test_a_cancel_request_survives_progress_writes(self, store: Store) -> None:
        job = Job(id="j1", kind="ingest", path="/data", created="2026-01-01T00:00:00")
        store.save_job(job)
        store.save_job(Job(id="j0", kind="reindex", path="/x", status="done", created="2025-01-01T00:00:00"))
        assert store.get_job("j1") == job and store.get_job("nope") is None
        assert store.request_cancel("j1")
        assert not store.request_cancel("j0") and not store.request_cancel("no")
        running = job.model_copy(update={"status": "running", "processed": 3, "total": 9})
        store.save_job(running)
        found = store.get_job("j1")
        assert found is not None and found.processed == 3 and found.cancel_requested
        assert [j.id for j in store.list_jobs()] == ["j1", "j0"]
        assert [j.id for j in store.list_jobs(["queued", "running"])] == ["j1"]
        assert [j.id for j in store.list_jobs(limit=1)] == ["j1"]

"""Background jobs: ingest, enrich again, re-index with context prefixes, run one at a time by a
worker thread and kept in the store with their progress, so a client can leave and come back,
ask for a cancel, and a job interrupted by a restart runs again (ingestion skips what is already
stored unchanged, so it resumes where it stopped).

Jobs of different folders (personas) take turns: a job that has run for its turn
(`server.job_turn_s`) while another folder's job waits stops after the file or document it is on
and waits at the back, resuming where it stopped when its turn comes again; the next job is the
oldest of a folder other than the last one's. So one writer's large upload never holds another
persona's one-line upload for longer than a turn and one document (whose size
`ingest.max_chunks_per_file` bounds)."""

from __future__ import annotations

import builtins
import logging
import math
import queue
import threading
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from shu.errors import ConflictError, InvalidRequestError, NotFoundError, ShuError
from shu.ingest.job import IngestJob, Progress, Redo
from shu.store.base import JobStore
from shu.store.rows import now
from shu.types import Job, JobKind

log = logging.getLogger(__name__)

_SAVE_EVERY_S = 0.25
ACTIVE = ["queued", "running"]


class JobCancelled(Exception):
    """Raised from the progress callback to stop a run between two documents."""


class TurnOver(Exception):
    """Raised from the progress callback: the job's turn is over and another folder's job waits."""


class StartIngest(Protocol):
    """Starts an ingestion run reporting to a progress callback; `True` asks for context prefixes
    (a reindex), `None` leaves the setting as configured; `deferring`: without the model."""

    def __call__(self, progress: Progress, context: bool | None, deferring: bool = False) -> IngestJob: ...


class JobRunner:
    """Runs the jobs kept in `store`, one at a time, each an ingestion run `start_ingest` makes."""

    def __init__(
        self, store: JobStore, start_ingest: StartIngest, turn_s: float = 10.0, defer: bool = False
    ) -> None:
        """`defer`: an ingest job indexes without the model, then queues an `enrich` job of the
        same folder that fills the model's artifacts in (`enrich.defer`)."""
        self.defer = defer
        self.store = store
        self.start_ingest = start_ingest
        self.turn_s = turn_s
        self._queue: queue.Queue[str | None] = queue.Queue()
        """One entry per job made runnable (which job runs next is `_next`'s choice); None stops."""
        self._worker: threading.Thread | None = None
        self._lock = threading.Lock()
        self.current: str | None = None
        self._last_path: str | None = None

    def submit(self, kind: JobKind, path: str, force: bool = False, user: str = "") -> Job:
        """Queue a job over a persona folder (or a folder of them) on this machine."""
        try:
            folder = Path(path).expanduser()
            is_folder = folder.is_dir()
        except (ValueError, OSError, RuntimeError) as exc:  # a NUL byte, a name too long, no home
            raise InvalidRequestError(f"{path!r}: not a usable path ({exc})") from exc
        if not is_folder:
            raise InvalidRequestError(f"{path}: not a folder on the server")
        job = Job(id=uuid.uuid4().hex[:12], kind=kind, path=str(folder.resolve()), force=force, user=user)
        job.created = now()
        self.store.save_job(job)
        self._enqueue(job.id)
        return job

    def get(self, job_id: str) -> Job:
        found = self.store.get_job(job_id)
        if found is None:
            raise NotFoundError(f"no job {job_id!r}")
        return found

    def list(self, active_only: bool = False, limit: int = 50) -> list[Job]:
        return self.store.list_jobs(ACTIVE if active_only else None, limit)

    def cancel(self, job_id: str) -> Job:
        """Ask a job to stop (a running one stops after the document it is on)."""
        job = self.get(job_id)
        if not self.store.request_cancel(job_id):
            raise ConflictError(f"job {job_id} is already {job.status}")
        return self.get(job_id)

    def resume(self) -> builtins.list[Job]:  # `list` here is the method above
        """Queue again the jobs a previous server left queued or running."""
        left = sorted(self.store.list_jobs(ACTIVE, limit=1000), key=lambda j: j.created)
        for job in left:
            if job.status == "running":
                log.info("job %s was interrupted; it runs again and resumes", job.id)
            self.store.save_job(job.model_copy(update={"status": "queued"}))
            self._enqueue(job.id)
        return left

    def wait(self, job_id: str, timeout: float = 60.0) -> Job:
        """The job once it has finished (or as it is when `timeout` runs out)."""
        deadline = time.monotonic() + timeout
        job = self.get(job_id)
        while job.status in ACTIVE and time.monotonic() < deadline:
            time.sleep(0.05)
            job = self.get(job_id)
        return job

    def close(self, timeout: float = 30.0) -> None:
        """Stop the worker after its current job (cancelled: it runs again on the next start)."""
        with self._lock:
            worker, self._worker = self._worker, None
        if worker is not None:
            self._queue.put(None)
            worker.join(timeout)

    def _enqueue(self, job_id: str) -> None:
        with self._lock:
            if self._worker is None:
                self._worker = threading.Thread(target=self._work, name="shu-jobs", daemon=True)
                self._worker.start()
        self._queue.put(job_id)

    def _work(self) -> None:
        while self._queue.get() is not None:
            job = self._next()
            if job is None:
                continue
            self.current, self._last_path = job.id, job.path
            try:
                self._run(job)
            except Exception:  # the worker goes on to the next job whatever happens
                log.exception("job %s failed unexpectedly", job.id)
            finally:
                self.current = None

    def _next(self) -> Job | None:
        """The oldest queued job of a folder other than the last job's, else the oldest."""
        waiting = sorted(self.store.list_jobs(["queued"], limit=1000), key=lambda j: j.created)
        other = next((j for j in waiting if j.path != self._last_path), None)
        return other or next(iter(waiting), None)

    def _run(self, job: Job) -> None:
        if job.cancel_requested:
            self._finish(job, "cancelled")
            return
        job = job.model_copy(
            update={"status": "running", "started": now(), "attempts": job.attempts + 1, "stage": "preparing"}
        )
        self.store.save_job(job)
        tracker = _Tracker(self.store, job, self.turn_s)
        deferring = self.defer and job.kind == "ingest"
        run = self.start_ingest(tracker, True if job.kind == "reindex" else None, deferring)
        tracker.run = run
        try:
            report = run.run(Path(job.path), redo=_redo(job))
        except JobCancelled:
            self._finish(tracker.job, "cancelled")
        except TurnOver:
            log.info("job %s waits: another folder's job takes its turn", job.id)
            self.store.save_job(
                tracker.job.model_copy(update={"status": "queued", "stage": "waiting its turn"})
            )
            self._queue.put(job.id)
        except Exception as exc:
            log.warning("job %s failed: %s", job.id, exc)
            self._finish(tracker.job, "failed", error=str(exc) or type(exc).__name__)
        else:
            done = tracker.job.model_copy(
                update={
                    "failed": len(report.failed),
                    "processed": max(tracker.job.processed, tracker.job.total),
                }
            )
            self._finish(done, "done", report=report.model_dump(mode="json"))
            if deferring and (report.counts()["ingested"] or report.counts()["converted"]):
                try:
                    self.submit("enrich", job.path, user=job.user)  # the model's artifacts fill in
                except ShuError as exc:  # the folder went away meanwhile: the documents stay indexed
                    log.warning("the deferred enrichment of %s was not queued: %s", job.path, exc)

    def _finish(
        self, job: Job, status: str, error: str | None = None, report: dict[str, Any] | None = None
    ) -> None:
        self.store.save_job(
            job.model_copy(update={"status": status, "finished": now(), "error": error, "report": report})
        )


def _redo(job: Job) -> Redo:
    """A reindex does the documents not yet indexed with context prefixes (so a resumed one goes
    on where it stopped); `force` redoes every document."""
    if job.force:
        return "all"
    return "fallbacks" if job.kind == "enrich" else "changed"


class _Tracker:
    """The progress callback of one job's run: progress kept in the store at most every
    `_SAVE_EVERY_S`, the cancel request read as often."""

    def __init__(self, store: JobStore, job: Job, turn_s: float = math.inf) -> None:
        self.store = store
        self.job = job
        self.run: IngestJob | None = None
        self._saved = 0.0
        self._turn_ends = time.monotonic() + turn_s

    def __call__(self, stage: str, done: int, total: int) -> None:
        found = self.run.report.failed if self.run is not None else []
        failed = sum(1 for outcome in found if outcome.message)  # one with no message is not read yet
        self.job = self.job.model_copy(
            update={"stage": stage, "processed": done, "total": total, "failed": failed}
        )
        moment = time.monotonic()
        if done and moment - self._saved < _SAVE_EVERY_S and (done < total or not total):
            return
        if done:  # a stage's start is saved too, without holding back the report of its first item
            self._saved = moment
        self.store.save_job(self.job)
        stored = self.store.get_job(self.job.id)
        if stored is not None and stored.cancel_requested:
            raise JobCancelled(self.job.id)
        if moment >= self._turn_ends and (done < total or not total) and self._others_wait():
            raise TurnOver(self.job.id)

    def _others_wait(self) -> bool:
        return any(j.path != self.job.path for j in self.store.list_jobs(["queued"], limit=1000))


def progress_view(job: Job) -> dict[str, Any]:
    """The job with its percentage, elapsed seconds and estimated seconds left."""
    percent = 100.0 if job.status == "done" else (100.0 * job.processed / job.total if job.total else 0.0)
    elapsed = eta = None
    if job.started:
        end = datetime.fromisoformat(job.finished) if job.finished else datetime.now(UTC)
        elapsed = max(0.0, (end - datetime.fromisoformat(job.started)).total_seconds())
        if job.status == "running" and 0 < job.processed < job.total:
            eta = elapsed * (job.total - job.processed) / job.processed
    return job.model_dump() | {"percent": round(percent, 1), "elapsed_s": elapsed, "eta_s": eta}

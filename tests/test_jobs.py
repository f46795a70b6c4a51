"""Background jobs: run by a worker with their progress kept in the store, cancelled between two
documents, re-enrich and reindex-with-context, and resumed after a restart."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from shu.config.settings import load_settings
from shu.errors import ConflictError, InvalidRequestError, NotFoundError
from shu.jobs import progress_view
from shu.kb import KnowledgeBase
from shu.store.rows import now
from shu.types import Job
from tests.conftest import CountingEmbedder, PersonaMaker, doc


class GatedEmbedder(CountingEmbedder):
    """Embeds only while the gate is open (a job can be caught in the middle of its run)."""

    def __init__(self, inner: CountingEmbedder) -> None:
        super().__init__(inner.inner)
        self.gate = threading.Event()
        self.gate.set()
        self.waiting = threading.Event()

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        self.waiting.set()
        assert self.gate.wait(30), "the test never opened the gate"
        return super().embed_documents(texts)


def many_documents(make_persona: PersonaMaker, count: int) -> Path:
    rag = {
        f"d{i}.md": doc(f"d{i}", f"Note {i}", f"# Note {i}\n\nFact number {i} is {i * 7}.")
        for i in range(count)
    }
    return make_persona("notes", rag=rag).parent


def open_kb(home: Path, embedder: CountingEmbedder) -> KnowledgeBase:
    settings = load_settings(home, ["ingest.embed_batch_chunks=1", "enrich.questions=false"])
    return KnowledgeBase(settings, embedder=embedder)


def test_an_ingest_job_runs_in_the_background_with_its_progress(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 6)
    with open_kb(tmp_path / "home", embedder) as kb:
        job = kb.jobs.submit("ingest", str(root), user="ana")
        assert job.status == "queued" and job.user == "ana"
        done = kb.jobs.wait(job.id)
        assert done.status == "done" and (done.processed, done.total, done.failed) == (6, 6, 0)
        assert done.report is not None and done.report["personas"] == ["notes"]
        assert len(kb.documents("notes")) == 6
        view = progress_view(done)
        assert view["percent"] == 100.0 and view["elapsed_s"] >= 0 and view["eta_s"] is None
        with pytest.raises(ConflictError, match="already done"):
            kb.jobs.cancel(job.id)
        with pytest.raises(NotFoundError):
            kb.jobs.get("nope")
        with pytest.raises(InvalidRequestError, match="not a folder"):
            kb.jobs.submit("ingest", str(tmp_path / "missing"))


def test_a_running_job_stops_after_the_document_it_is_on(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 8)
    gated = GatedEmbedder(embedder)
    with open_kb(tmp_path / "home", gated) as kb:
        gated.gate.clear()
        job = kb.jobs.submit("ingest", str(root))
        assert gated.waiting.wait(30)
        running = kb.jobs.get(job.id)
        assert running.status == "running" and running.attempts == 1
        assert kb.jobs.cancel(job.id).cancel_requested
        gated.gate.set()
        stopped = kb.jobs.wait(job.id)
        assert stopped.status == "cancelled" and stopped.finished
        assert 0 < len(kb.documents("notes")) < 8, "what was stored stays; the rest is not done"
        rerun = kb.jobs.wait(kb.jobs.submit("ingest", str(root)).id)
        assert rerun.status == "done" and len(kb.documents("notes")) == 8


def test_another_personas_job_runs_when_a_long_jobs_turn_is_over_and_the_long_one_resumes(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    """One writer's large upload once held everyone's jobs until it ended (a one-line upload sent
    2 s after a 22,000-chunk one finished after 93 s)."""
    alpha = many_documents(make_persona, 8) / "notes"
    beta = make_persona("beta", rag={"b.md": doc("b", "B", "# B\n\nBeta opens at ten.")})
    gated = GatedEmbedder(embedder)
    settings = load_settings(
        tmp_path / "home", ["ingest.embed_batch_chunks=1", "enrich.questions=false", "server.job_turn_s=0.2"]
    )
    with KnowledgeBase(settings, embedder=gated) as kb:
        gated.gate.clear()
        long = kb.jobs.submit("ingest", str(alpha))
        assert gated.waiting.wait(30)
        short = kb.jobs.submit("ingest", str(beta))
        time.sleep(0.3)  # the long job's turn is over while it embeds its first document
        gated.gate.set()
        first = kb.jobs.wait(short.id)
        assert first.status == "done" and [d.id for d in kb.documents("beta")] == ["b"]
        assert kb.jobs.get(long.id).status in ("queued", "running"), "the short job did not wait for the long"
        last = kb.jobs.wait(long.id)
        assert last.status == "done" and last.attempts == 2 and last.failed == 0
        assert len(kb.documents("notes")) == 8, "the long job resumed where it stopped: nothing lost"
        assert last.finished is not None and first.finished is not None and first.finished <= last.finished


def test_a_job_takes_no_turns_while_only_its_own_folder_waits(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 4) / "notes"
    gated = GatedEmbedder(embedder)
    settings = load_settings(tmp_path / "home", ["ingest.embed_batch_chunks=1", "server.job_turn_s=0.01"])
    with KnowledgeBase(settings, embedder=gated) as kb:
        gated.gate.clear()
        first = kb.jobs.submit("ingest", str(root))
        assert gated.waiting.wait(30)
        again = kb.jobs.submit("ingest", str(root))
        time.sleep(0.05)
        gated.gate.set()
        assert kb.jobs.wait(first.id).attempts == 1 and kb.jobs.wait(again.id).attempts == 1
        assert len(kb.documents("notes")) == 4


def test_a_job_left_running_by_a_stopped_server_resumes(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 4)
    home = tmp_path / "home"
    with open_kb(home, embedder) as kb:
        kb.ingest(root)
        (root / "notes" / "RAG" / "d9.md").write_text(doc("d9", "Note 9", "# Note 9\n\nA late fact."))
        interrupted = Job(
            id="left", kind="ingest", path=str(root), status="running", created=now(), attempts=1
        )
        kb.store.save_job(interrupted)
    with open_kb(home, embedder) as kb:
        assert [j.id for j in kb.jobs.resume()] == ["left"]
        done = kb.jobs.wait("left")
        assert done.status == "done" and done.attempts == 2
        assert done.report is not None and "1 ingested" in _summary(done) and "4 unchanged" in _summary(done)


def test_reindex_puts_context_prefixes_on_every_chunk_and_enrich_redoes_fallbacks(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 3)
    with open_kb(tmp_path / "home", embedder) as kb:
        kb.ingest(root)
        assert kb.stats().enrichment["context_prefixes"]["chunks with"] == 0
        reindexed = kb.jobs.wait(kb.jobs.submit("reindex", str(root)).id)
        assert reindexed.status == "done" and reindexed.processed == 3
        assert kb.stats().enrichment["context_prefixes"]["chunks with"] == 3
        chunk = kb.document("d1", persona="notes")
        assert chunk.sections[0].text.startswith("Fact number 1")
        enriched = kb.jobs.wait(kb.jobs.submit("enrich", str(root)).id)
        assert enriched.status == "done" and enriched.report is not None


def _summary(job: Job) -> str:
    counts = {}
    for outcome in job.report["outcomes"] if job.report else []:
        counts[outcome["status"]] = counts.get(outcome["status"], 0) + 1
    return ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))


# -- enrich.defer: searchable at once, the model's artifacts fill in after ----------------------


def deferring_kb(home: Path, embedder: CountingEmbedder) -> tuple[KnowledgeBase, Any]:
    from shu.models.llm.client import LLMClient
    from tests.enrich.test_llm_enrichment import GOOD, scripted

    model = scripted(GOOD)
    settings = load_settings(
        home, ["enrich.defer=true", "enrich.tiers=false", "enrich.llm_relationships=false"]
    )
    return KnowledgeBase(settings, embedder=embedder, llm=LLMClient(model)), model


def test_a_deferred_ingest_job_is_searchable_first_then_an_enrich_job_fills_the_model_in(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 3)
    kb, _ = deferring_kb(tmp_path / "home", embedder)
    with kb:
        job = kb.jobs.submit("ingest", str(root), user="ana")
        done = kb.jobs.wait(job.id)
        assert done.status == "done" and done.report is not None
        assert not (done.report["llm"] or {}).get("calls"), "the ingest job indexed without the model"
        assert kb.search("notes", persona="notes"), "searchable at once"
        follow = next(j for j in kb.jobs.list() if j.kind == "enrich")
        assert follow.path == done.path and follow.user == "ana"
        filled = kb.jobs.wait(follow.id)
        assert filled.status == "done" and filled.report is not None and filled.report["llm"]["calls"] > 0
        assert len([j for j in kb.jobs.list() if j.kind == "enrich"]) == 1, "an enrich job queues none"


def test_a_deferred_ingest_on_the_command_line_indexes_first_then_fills_in(
    tmp_path: Path, embedder: CountingEmbedder, make_persona: PersonaMaker
) -> None:
    root = many_documents(make_persona, 3)
    kb, model = deferring_kb(tmp_path / "home", embedder)
    with kb:
        report = kb.ingest(root)
        assert report.counts()["ingested"] == 3
        assert any(n.startswith("searchable after ") and "enrich.defer" in n for n in report.notes), (
            report.notes
        )
        assert report.llm["calls"] > 0 and model.calls
        again = kb.ingest(root)
        assert not any("searchable after" in n for n in again.notes), "nothing new: no second pass"

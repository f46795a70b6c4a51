"""The folder watcher: a real watchdog observer over real persona folders, ingesting into a real
store with the real embedder, debounced (a short quiet time keeps the tests quick)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from shu.ingest.report import IngestReport
from shu.ingest.watch import FolderWatcher, WatchRun, ignored_name, persona_folders_of
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker, doc

DEBOUNCE = 0.4


def texts(kb: KnowledgeBase, query: str, persona: str = "alpha") -> str:
    return "\n".join(hit.chunk.text for hit in kb.search(query, persona=persona))


def settle(watcher: FolderWatcher, runs: int, timeout: float = 30.0) -> None:
    """Wait until `runs` runs are done and nothing is waiting or running."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if watcher.run_count >= runs and watcher.idle():
            return
        time.sleep(0.05)
    raise AssertionError(f"{watcher.run_count} runs, not {runs}: {[r.line() for r in watcher.runs]}")


@pytest.fixture
def watching(kb: KnowledgeBase) -> Iterator[Callable[..., FolderWatcher]]:
    started: list[FolderWatcher] = []

    def start(*folders: Path, ingest: Callable[[Path], IngestReport] | None = None) -> FolderWatcher:
        watcher = FolderWatcher(
            list(folders), ingest or (lambda folder: kb.ingest(folder, prune=True)), debounce_s=DEBOUNCE
        )
        started.append(watcher.start())
        return watcher

    yield start
    for watcher in started:
        watcher.stop()


def test_a_file_that_appears_changes_and_goes_is_followed(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    watcher = watching(folder.parent)
    raw = folder / "RAW-DOCS" / "greenhouse.txt"
    raw.write_text("The greenhouse opens at nine on Saturdays.\n", encoding="utf-8")
    settle(watcher, 1)
    assert "opens at nine" in texts(kb, "When does the greenhouse open?")
    assert [d.id for d in kb.documents("alpha")] == ["greenhouse"]

    raw.write_text("The greenhouse opens at eleven on Sundays.\n", encoding="utf-8")
    settle(watcher, 2)
    found = texts(kb, "When does the greenhouse open?")
    assert "eleven on Sundays" in found and "nine" not in found

    raw.unlink()
    settle(watcher, 3)
    assert kb.documents("alpha") == []
    assert not (folder / "RAG" / "greenhouse.md").exists()
    assert watcher.runs[-1].report is not None and watcher.runs[-1].report.counts()["pruned"] == 1


def test_a_rag_file_written_by_hand_is_indexed_and_its_removal_prunes_it(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    watcher = watching(folder)  # one persona folder, watched on its own
    rag = folder / "RAG" / "orchard.md"
    rag.write_text(
        doc("orchard", "Orchard", "# Orchard\n\nThe orchard has forty apple trees."), encoding="utf-8"
    )
    settle(watcher, 1)
    assert "forty apple trees" in texts(kb, "How many apple trees?")
    rag.unlink()
    settle(watcher, 2)
    assert kb.documents("alpha") == []


def test_a_burst_of_writes_is_one_run_and_its_own_rag_writes_start_no_other(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    watcher = watching(folder.parent)
    for n in range(20):  # 20 writes, well inside the quiet time: ten files, each written twice
        (folder / "RAW-DOCS" / f"note-{n % 10}.txt").write_text(f"Note {n} about compost bin {n}.\n")
    settle(watcher, 1)
    time.sleep(DEBOUNCE * 4)  # the run wrote ten RAG files: their events came and went
    assert watcher.run_count == 1 and watcher.idle()
    report = watcher.runs[0].report
    assert report is not None and report.counts()["converted"] == 10 and report.counts()["ingested"] == 10
    assert len(watcher.runs[0].changed) == 10
    assert len(list((folder / "RAG").glob("*.md"))) == 10

    generated = folder / "RAG" / "note-3.md"
    os.utime(generated)  # touched, the same bytes: not a change
    time.sleep(DEBOUNCE * 3)
    assert watcher.run_count == 1

    curated = generated.read_text(encoding="utf-8").replace("summary:", "summary: Curated.\nx_old:", 1)
    generated.write_text(curated, encoding="utf-8")  # a hand edit of a generated file is a change
    settle(watcher, 2)
    time.sleep(DEBOUNCE * 3)
    assert watcher.run_count == 2


def test_a_corrupt_file_is_reported_and_the_watcher_goes_on(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    watcher = watching(folder.parent)
    (folder / "RAW-DOCS" / "broken.pdf").write_bytes(b"%PDF-1.4\nthis is not a PDF at all\n")
    settle(watcher, 1)
    run = watcher.runs[0]
    assert run.report is not None and [o.path for o in run.report.failed] == [
        str(folder.resolve() / "RAW-DOCS" / "broken.pdf")
    ]
    assert "1 failed" in run.line()
    (folder / "RAW-DOCS" / "pond.txt").write_text("The pond holds twelve koi.\n", encoding="utf-8")
    settle(watcher, 2)
    assert "twelve koi" in texts(kb, "How many koi are in the pond?")


def test_an_ingest_that_raises_is_reported_and_the_next_change_runs(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    calls: list[Path] = []

    def flaky(target: Path) -> IngestReport:
        calls.append(target)
        if len(calls) == 1:
            raise OSError("disk went away")
        return kb.ingest(target, prune=True)

    watcher = watching(folder.parent, ingest=flaky)
    (folder / "RAW-DOCS" / "a.txt").write_text("Alpha text about hedges.\n", encoding="utf-8")
    settle(watcher, 1)
    assert watcher.runs[0].error == "disk went away" and "failed: disk went away" in watcher.runs[0].line()
    (folder / "RAW-DOCS" / "b.txt").write_text("Beta text about fences.\n", encoding="utf-8")
    settle(watcher, 2)
    assert {d.id for d in kb.documents("alpha")} == {"a", "b"}


def test_temporaries_hidden_files_and_other_files_start_no_run(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    watcher = watching(folder.parent)
    raw = folder / "RAW-DOCS"
    for name in (
        ".notes.txt.swp",
        "notes.txt~",
        ".#notes.txt",
        "film.mp4.part",
        "a.pdf.crdownload",
        "~$a.docx",
    ):
        (raw / name).write_text("temporary\n", encoding="utf-8")
    (raw / ".git").mkdir()
    (raw / ".git" / "index.txt").write_text("hidden\n", encoding="utf-8")
    (folder / "notes-beside.txt").write_text("not in RAW-DOCS or RAG\n", encoding="utf-8")
    (folder.parent / "README.txt").write_text("not in a persona folder\n", encoding="utf-8")
    time.sleep(DEBOUNCE * 4)
    assert watcher.run_count == 0 and watcher.idle()


def test_ignored_names() -> None:
    ignored = [".x.md.tmp", "a.swp", "a.SWO", "a~", ".#a", "a.part", "a.crdownload", "~$a.docx", "4913"]
    assert all(ignored_name(name) for name in ignored)
    assert not any(ignored_name(name) for name in ["a.md", "notes.txt", "report.pdf", "a-b~c.txt"])


def test_the_folders_a_knowledge_base_was_ingested_from(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    alpha = make_persona("alpha", rag={"a.md": doc("a", "A", "# A\n\nAlpha.")})
    beta = make_persona("beta", rag={"b.md": doc("b", "B", "# B\n\nBeta.")})
    kb.ingest(alpha.parent)
    assert persona_folders_of(d.path for d in kb.documents()) == [alpha.resolve(), beta.resolve()]
    assert persona_folders_of(["/nowhere/x/RAG/a.md", "/no/rag/here.md"]) == []


def test_a_run_line_names_what_changed_and_the_counts(tmp_path: Path) -> None:
    report = IngestReport()
    run = WatchRun(
        folder=tmp_path / "alpha", changed=[tmp_path / f"f{n}.txt" for n in range(5)], report=report
    )
    assert run.line() == (
        "alpha: 5 changed (f0.txt, f1.txt, f2.txt (+2)) — 0 converted, 0 ingested, 0 pruned, 0 failed (0.0 s)"
    )


def test_a_curated_rag_file_edited_while_a_run_goes_on_is_ingested_by_another_run(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    rag = folder / "RAG" / "barn.md"
    edits = [doc("barn", "Barn", "# Barn\n\nThe barn roof was replaced in spring.")]

    def ingest_then_edit(target: Path) -> IngestReport:
        report = kb.ingest(target, prune=True)
        if edits:  # the user saves the curated file after the run has read it, before it ends
            rag.write_text(edits.pop(), encoding="utf-8")
            time.sleep(0.3)  # its events arrive while the run is still under way
        return report

    watcher = watching(folder.parent, ingest=ingest_then_edit)
    rag.write_text(doc("barn", "Barn", "# Barn\n\nThe barn door is red."), encoding="utf-8")
    settle(watcher, 2)
    time.sleep(DEBOUNCE * 3)
    assert watcher.run_count == 2
    found = texts(kb, "What happened to the barn roof?")
    assert "replaced in spring" in found and "door is red" not in found


def test_a_run_waits_for_the_writer_lock_a_manual_ingest_holds(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    folder = make_persona("alpha")
    watcher = watching(folder.parent)
    with kb.store.writer():  # what `shu ingest` holds while it writes (another process: the same file lock)
        (folder / "RAW-DOCS" / "lock.txt").write_text("The shed lock is brass.\n", encoding="utf-8")
        time.sleep(DEBOUNCE * 4)
        assert watcher.run_count == 0 and not watcher.idle()  # the run is under way, waiting
        assert kb.documents() == []
    settle(watcher, 1)
    assert [d.id for d in kb.documents("alpha")] == ["lock"]


def test_a_new_persona_folder_in_a_watched_folder_is_ingested(
    kb: KnowledgeBase, make_persona: PersonaMaker, watching: Callable[..., FolderWatcher]
) -> None:
    alpha = make_persona("alpha")
    watcher = watching(alpha.parent)
    beta = alpha.parent / "beta"
    (beta / "RAW-DOCS").mkdir(parents=True)
    (beta / "RAW-DOCS" / "bees.txt").write_text("Beta keeps three beehives.\n", encoding="utf-8")
    (beta / "persona.md").write_text("# Beta\n\nBees.\n", encoding="utf-8")
    settle(watcher, 1)
    assert "three beehives" in texts(kb, "How many beehives?", persona="beta")

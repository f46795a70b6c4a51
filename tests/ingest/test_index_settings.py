"""What the index is built with lasts between runs: a reindex's context-prefix choice, vectors of
texts that did not change, and a note when settings change (real store, real embedder)."""

from __future__ import annotations

from pathlib import Path

import pytest

from shu.config.settings import load_settings
from shu.ingest.index_settings import changes, chosen, context_choice
from shu.kb import KnowledgeBase, open_kb
from tests.conftest import CountingEmbedder, PersonaMaker, doc


def notes_persona(make_persona: PersonaMaker, count: int = 4) -> Path:
    docs = {
        f"d{i}.md": doc(
            f"d{i}", f"Runbook {i}", f"# Runbook {i}\n\n## Steps\n\nRestart worker {i} after the deploy."
        )
        for i in range(count)
    }
    return make_persona("ops", rag=docs)


def prefixed(kb: KnowledgeBase) -> int:
    return sum(1 for d in kb.documents() for c in kb.store.list_chunks(d.id) if c.context)


def test_a_plain_ingest_after_a_reindex_keeps_the_prefixes_and_embeds_nothing(
    kb: KnowledgeBase, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = notes_persona(make_persona)
    kb.ingest(folder)
    kb.ingest(folder, context=True)
    assert prefixed(kb) == 4
    before = embedder.embedded
    report = kb.ingest(folder)
    assert report.counts()["unchanged"] == 4 and report.counts()["ingested"] == 0
    assert embedder.embedded == before and prefixed(kb) == 4
    (folder / "RAG" / "d5.md").write_text(doc("d5", "Runbook 5", "# Runbook 5\n\nDrain the queue first."))
    kb.ingest(folder)
    assert prefixed(kb) == 5, "a document added later gets its prefix too"


def test_switching_prefixes_re_embeds_only_the_chunk_texts_and_says_so(
    kb: KnowledgeBase, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = notes_persona(make_persona)
    kb.ingest(folder)
    chunks = sum(len(kb.store.list_chunks(d.id)) for d in kb.documents())
    before = embedder.embedded
    report = kb.ingest(folder, context=True)
    assert report.counts()["ingested"] == 4
    assert embedder.embedded - before == report.texts_embedded == chunks, "questions and profiles kept theirs"
    assert report.vectors_kept > 0
    assert any("enrich.context: false → true" in note for note in report.notes), report.notes
    exported = kb.store.export_document("d1")
    assert exported is not None and exported.chunks[0].index_text.startswith(exported.chunks[0].context)
    assert "Restart worker 1" in exported.chunks[0].index_text


def test_a_stopped_reindex_resumes_where_it_stopped(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = notes_persona(make_persona, 6)
    home, overrides = tmp_path / "home", ["ingest.embed_batch_chunks=1"]
    with open_kb(home, overrides, embedder=embedder) as kb:
        kb.ingest(folder)

    def stop_after_three(stage: str, done: int, total: int) -> None:
        if stage == "ingest" and done == 3:
            raise KeyboardInterrupt("stopped")

    with open_kb(home, overrides, embedder=embedder) as kb:
        with pytest.raises(KeyboardInterrupt):
            kb.ingest(folder, progress=stop_after_three, context=True)
        assert prefixed(kb) == 3
    with open_kb(home, overrides, embedder=embedder) as kb:
        report = kb.ingest(folder, context=True)
        assert report.counts()["unchanged"] == 3 and report.counts()["ingested"] == 3
        assert prefixed(kb) == 6


def test_a_changed_configuration_wins_over_an_earlier_reindex(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    folder = notes_persona(make_persona, 2)
    home = tmp_path / "home"
    with open_kb(home, embedder=embedder) as kb:
        kb.ingest(folder, context=True)
        kb.ingest(folder, context=False)
        assert prefixed(kb) == 0, "reindex --no-context is a choice too"
    with open_kb(home, ["enrich.context=true"], embedder=embedder) as kb:
        kb.ingest(folder)
        assert prefixed(kb) == 2, "the configuration changed after the choice: it wins"


def test_context_choice_follows_the_newest_decision(tmp_path: Path) -> None:
    off = load_settings(tmp_path, [])
    on = load_settings(tmp_path, ["enrich.context=true"])
    kept = chosen({}, configured=False, asked=True)
    assert context_choice(off, {}, None) is False
    assert context_choice(off, kept, None) is True
    assert context_choice(on, kept, None) is True
    assert context_choice(on, chosen({}, configured=False, asked=False), None) is True
    assert context_choice(off, kept, False) is False


def test_changes_name_each_setting_that_differs() -> None:
    before = {"chunking": {"max_tokens": 180, "overlap_tokens": 30}, "llm": None}
    after = {"chunking": {"max_tokens": 200, "overlap_tokens": 30}, "llm": "qwen", "new": True}
    assert changes(before, after) == [
        "chunking.max_tokens: 180 → 200",
        "llm: unset → qwen",
        "new: unset → true",
    ]
    assert changes(after, after) == []

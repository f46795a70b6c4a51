"""Stage 5: grouping, overlap, budget, whole documents."""

from __future__ import annotations

from pathlib import Path
from typing import cast

from shu.ingest.chunking import chunk_document
from shu.kb import KnowledgeBase
from shu.retrieve.assemble import AssemblyRequest, _without_overlap, assemble
from shu.store.base import KnowledgeReader
from shu.text import count_tokens
from shu.types import AssembledContext, Chunk, Document, SearchHit
from tests.conftest import PersonaMaker, doc

LONG = "# Handbook\n\n" + "\n\n".join(
    f"## Part {i}\n\n" + " ".join(f"Rule {i}.{j} says the team keeps item {j} tidy." for j in range(30))
    for i in range(4)
)


def test_overlapping_chunk_text_is_merged_once() -> None:
    assert _without_overlap("a b c d e", "d e f g") == "f g"
    assert _without_overlap("a b c", "x y") == "x y"


def test_hits_are_grouped_by_document_in_reading_order_within_a_budget(
    kb: KnowledgeBase, make_persona: PersonaMaker, tmp_path: Path
) -> None:
    folder = make_persona(
        "alpha",
        rag={
            "handbook.md": doc("handbook", "Handbook", LONG),
            "short.md": doc("short", "Short", "# Short\n\nOne line."),
        },
    )
    assert not kb.ingest(folder).failed
    chunks = kb.store.list_chunks("handbook")
    assert len(chunks) > 4, "the handbook spans several chunks"
    hits = [h for h in kb.search("item tidy rule", persona="alpha", limit=20) if h.chunk.doc_id == "handbook"]
    context = assemble(kb.store, AssemblyRequest(hits=hits, budget=16_000))
    assert [d.doc_id for d in context.documents] == ["handbook"]
    ords = [int(c.split("#")[0] == "handbook") for s in context.documents[0].sections for c in s.chunk_ids]
    assert ords and context.tokens > 0
    whole = assemble(kb.store, AssemblyRequest(hits=hits[:1], budget=16_000, lookup="handbook"))
    assert whole.documents[0].full and whole.lookup == "handbook" and whole.mode == "full_document"
    text = "\n".join(s.text for s in whole.documents[0].sections)
    assert text.count("Rule 2.15 says") == 1, "overlap between chunks appears once"
    assert all(f"Rule {i}.29 says" in text for i in range(4))
    tight = assemble(kb.store, AssemblyRequest(hits=hits[:1], budget=200, lookup="handbook"))
    assert tight.tokens <= 200 and not tight.documents[0].full
    assert "## Handbook [handbook]" in whole.render() and "[^handbook:Handbook > Part 0]" in whole.render()


def test_a_lookup_too_big_for_the_budget_is_cut_not_lost_and_escalations_must_fit_whole(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    flat = "# Notes\n\n" + " ".join(f"Line {i} of the long notes says something plain." for i in range(400))
    folder = make_persona(
        "alpha",
        rag={
            "notes.md": doc("notes", "Notes", flat),
            "faq.md": doc("faq", "FAQ", "# FAQ\n\nShort answer here."),
        },
    )
    assert not kb.ingest(folder).failed
    faq_hits = [h for h in kb.search("short answer", persona="alpha", limit=5) if h.chunk.doc_id == "faq"]
    lookup = assemble(kb.store, AssemblyRequest(hits=faq_hits, budget=300, lookup="notes"))
    assert lookup.lookup == "notes" and lookup.documents[0].doc_id == "notes"
    assert not lookup.documents[0].full and 250 <= lookup.tokens <= 300, "cut to the budget, still there"
    escalated = assemble(kb.store, AssemblyRequest(hits=faq_hits, budget=300, escalated=("notes",)))
    assert [d.doc_id for d in escalated.documents] == ["faq"], "an escalation that does not fit is left out"
    roomy = assemble(kb.store, AssemblyRequest(hits=faq_hits, budget=16_000, escalated=("notes",)))
    assert [d.doc_id for d in roomy.documents] == ["faq", "notes"] and roomy.documents[1].full


def test_the_rendered_context_names_files_within_the_knowledge_base_never_the_machine(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    """`kb.retrieve(...).context.render()` (and the trace the API returns) says where a document
    without a source URL lives as its file in the knowledge base, never as the machine's path."""
    folder = make_persona("alpha", rag={"short.md": doc("short", "Short", "# Short\n\nOne line about tea.")})
    linked = doc(
        "linked", "Linked", "# Linked\n\nAnother line about tea.", source_url="https://example.org/tea"
    )
    (folder / "RAG" / "linked.md").write_text(linked, encoding="utf-8")
    assert not kb.ingest(folder).failed
    context = kb.retrieve("tea", persona="alpha").context
    rendered = context.render()
    machine = str(folder.resolve().parent)
    assert machine not in rendered and machine not in context.model_dump_json()
    assert "source: alpha/RAG/short.md" in rendered
    assert "source: https://example.org/tea" in rendered
    by_id = {d.doc_id: d for d in context.documents}
    assert by_id["short"].citation(by_id["short"].sections[0]).source_url is None
    assert by_id["linked"].citation(by_id["linked"].sections[0]).source_url == "https://example.org/tea"


class _Store:
    """The two reads `assemble` makes, over chunks made in the test."""

    def __init__(self, title: str, chunks: list[Chunk]) -> None:
        self.chunks = chunks
        self.document = Document(id=chunks[0].doc_id, title=title, personas=["alpha"], content_hash="x")

    def get_documents(self, ids: list[str]) -> dict[str, Document]:
        return {self.document.id: self.document} if self.document.id in ids else {}

    def list_chunks(self, doc_id: str) -> list[Chunk]:
        return list(self.chunks)


def assembled(title: str, chunks: list[Chunk], ords: list[int], budget: int = 16_000) -> AssembledContext:
    hits = [SearchHit(chunk=chunks[o], doc_title=title, score=1.0 - o / 100) for o in ords]
    return assemble(cast(KnowledgeReader, _Store(title, chunks)), AssemblyRequest(hits=hits, budget=budget))


PAYLOAD = '```json\n{\n  "alert_id": "alt_4821",\n  "state": "firing",\n  "value": 312\n}\n```'


def test_merging_overlapping_chunks_keeps_a_code_blocks_lines() -> None:
    """Issue 41.5: the words after the overlap were joined with spaces, and the model read the
    JSON payload on one line."""
    assert _without_overlap("Sends a body. Example payload:", f"Example payload:\n\n{PAYLOAD}") == PAYLOAD
    prose = " ".join(f"Sentence {i} explains the webhook." for i in range(14))
    body = f"# Webhook\n\n{prose}\n\nIt looks like this.\n\n{PAYLOAD}\n"
    chunks = chunk_document("alerts", "Alerts", body, max_tokens=100, overlap=10)
    assert len(chunks) == 2 and chunks[1].text.startswith("It looks like this."), "the overlap repeats it"
    (section,) = assembled("Alerts", chunks, [0, 1]).documents[0].sections
    assert section.text.count("It looks like this.") == 1
    assert f"It looks like this.\n{PAYLOAD}" in section.text, section.text[-200:]


def test_a_section_cut_to_the_budget_keeps_its_lines_and_closes_its_code_block() -> None:
    body = "# Webhook\n\nExample payload:\n\n" + PAYLOAD.replace("}", '  "more": "' + "word " * 40 + '"\n}')
    chunks = chunk_document("alerts", "Alerts", body, max_tokens=400, overlap=0)
    (section,) = assembled("Alerts", chunks, [0], budget=40).documents[0].sections
    assert section.text.startswith('Example payload:\n\n```json\n{\n  "alert_id": "alt_4821",\n')
    assert section.text.endswith("\n```") and count_tokens(section.text) <= 40


TIMELINE = "# Postmortem\n\n## Timeline (UTC)\n\n" + "\n".join(
    f"- **{9 + i // 4:02d}:{i % 4 * 15:02d}** Step {i}: the on-call engineer checked queue {i}."
    for i in range(24)
)


def test_two_chunks_of_one_section_apart_get_a_key_each() -> None:
    """Issue 41.5: the first and last chunks of "Timeline (UTC)" both read
    `[^pm:Postmortem > Timeline (UTC)]`: a citation could not say which one."""
    chunks = chunk_document("pm", "Postmortem", TIMELINE, max_tokens=80, overlap=0)
    timeline = [c for c in chunks if c.section_path.endswith("Timeline (UTC)")]
    assert len(timeline) >= 3
    context = assembled("Postmortem", chunks, [timeline[0].ord, timeline[-1].ord])
    first, second = context.documents[0].sections
    assert first.chunk_ids == [timeline[0].id] and second.chunk_ids == [timeline[-1].id]
    assert first.citation_key == "[^pm:Postmortem > Timeline (UTC)]", "the first keeps the plain key"
    assert second.citation_key == "[^pm:Postmortem > Timeline (UTC) (part 2)]"
    rendered = context.render()
    assert f"### Postmortem > Timeline (UTC) {second.citation_key}\n{second.text}" in rendered
    citation = context.documents[0].citation(second)
    assert citation.key == second.citation_key and citation.chunk_id == timeline[-1].id
    assert citation.anchor == "timeline-utc", "the link goes to the heading"
    adjacent = assembled("Postmortem", chunks, [timeline[0].ord, timeline[1].ord])
    assert len(adjacent.documents[0].sections) == 1, "adjacent chunks are one section, one key"


def test_a_table_over_two_chunks_is_one_table_in_the_context_its_header_and_rows_once() -> None:
    """Issue 41.5: the next chunk of a table repeats its header and a few rows; merging took a
    lone `|` for the overlap and joined the rest with spaces, so the model read the table
    flattened, some rows twice."""
    rows = "\n".join(f"| Plan {i} | ${10 * i} per seat | {100 * i} dashboards |" for i in range(1, 25))
    body = f"# Pricing\n\n## Plans\n\n| Plan | Price | Dashboards |\n|---|---|---|\n{rows}\n"
    chunks = chunk_document("pricing", "Pricing", body, max_tokens=120, overlap=30)
    assert len(chunks) >= 2 and chunks[1].text.startswith("| Plan | Price |"), (
        "the next chunk repeats the header"
    )
    (section,) = assembled("Pricing", chunks, list(range(len(chunks)))).documents[0].sections
    lines = section.text.split("\n")
    assert lines.count("| Plan | Price | Dashboards |") == 1 and lines.count("|---|---|---|") == 1
    for i in range(1, 25):
        assert lines.count(f"| Plan {i} | ${10 * i} per seat | {100 * i} dashboards |") == 1, section.text
    assert all(line.startswith("|") for line in lines), "every line is a row of the table"


def test_a_lone_shared_word_is_no_overlap() -> None:
    assert _without_overlap("The end of it.\n| a | b |", "| c | d |") == "| c | d |"


def test_the_next_section_of_a_sheet_keeps_its_header() -> None:
    before = "| Date | Cost (GBP) |\n|---|---|\n| 2026-01-02 | 40 |"
    after = "| Date | Cost (GBP) |\n|---|---|\n| 2026-04-22 | 1,240 |"
    assert _without_overlap(before, after, same_section=False) == after
    assert _without_overlap(before, after) == "| 2026-04-22 | 1,240 |"

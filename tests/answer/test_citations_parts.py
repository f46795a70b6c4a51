"""Issue 41.5: two chunks of one section that are apart in a context are two sections with a key
each (`… > Timeline (UTC)` and `… > Timeline (UTC) (part 2)`): a citation of the second resolves
to the second's chunk and the verifier reads the second's text, in every way a key is written,
shown or checked."""

from __future__ import annotations

import pytest

from shu.answer.citations import ContextKeys, check_citations
from shu.answer.extractive.evidence import evidence_context
from shu.answer.generate import NumberFilter, prompt_context
from shu.answer.stream import KeyFilter
from shu.answer.verify.base import Claim, cited_text
from shu.answer.verify.rules import RulesVerifier
from shu.ingest.chunking import chunk_document
from shu.types import Answer, AnswerSentence, AssembledContext, Chunk, ContextDocument, ContextSection
from tests.conftest import CountingEmbedder
from tests.retrieve.test_assemble import TIMELINE, assembled

FIRST = "[^pm:Postmortem > Timeline (UTC)]"
SECOND = "[^pm:Postmortem > Timeline (UTC) (part 2)]"


@pytest.fixture
def timeline() -> tuple[AssembledContext, Chunk, Chunk]:
    chunks = chunk_document("pm", "Postmortem", TIMELINE, max_tokens=80, overlap=0)
    parts = [c for c in chunks if c.section_path.endswith("Timeline (UTC)")]
    return assembled("Postmortem", chunks, [parts[0].ord, parts[-1].ord]), parts[0], parts[-1]


def test_a_citation_of_the_second_part_resolves_to_its_chunk(
    timeline: tuple[AssembledContext, Chunk, Chunk],
) -> None:
    context, first, last = timeline
    keys = ContextKeys(context)
    assert list(keys.sources) == [FIRST, SECOND]
    checked = check_citations(
        f"At 14:45 the engineer checked queue 23 {SECOND}. It began at 09:00 {FIRST}.", keys
    )
    assert checked.check.kept == 2 and not checked.check.repaired and not checked.check.removed
    assert [(c.key, c.chunk_id) for c in checked.citations] == [(SECOND, last.id), (FIRST, first.id)]
    assert keys.sources[SECOND].section.text == last.text and keys.sources[FIRST].section.text == first.text


@pytest.mark.parametrize(
    ("written", "meant"),
    [
        ("[^PM:Postmortem > timeline (utc) (Part 2)]", SECOND),
        ("[^pm:Timeline (UTC) (part 2)]", SECOND),
        ("[^pm:Timeline (UTC) part 2]", SECOND),
        ("[pm:Postmortem > Timeline (UTC) (part 2)]", SECOND),
        ("[^pm:Timeline (UTC)]", FIRST),
        ("[^pm:Timline (UTC)]", FIRST),
    ],
)
def test_a_near_miss_of_a_part_resolves_to_that_part(
    timeline: tuple[AssembledContext, Chunk, Chunk], written: str, meant: str
) -> None:
    source = ContextKeys(timeline[0]).resolve(written)
    assert source is not None and source.key == meant


def test_the_prompt_the_stream_and_the_numbers_keep_each_part(
    timeline: tuple[AssembledContext, Chunk, Chunk],
) -> None:
    context = timeline[0]
    shown: list[str] = []
    prompt = prompt_context(context, 4000, shown=shown)
    assert shown == [FIRST, SECOND] and f'<source key="{SECOND}"' in prompt
    keys = ContextKeys(context)
    streamed = KeyFilter(keys, detect_abstention=False)
    text = "".join([*streamed.feed(f"Queue 23 was checked last {SECOND}."), *streamed.flush()])
    assert text == f"Queue 23 was checked last {SECOND}."
    numbered: list[str] = []
    prompt_context(context, 4000, numbered=True, shown=numbered)
    by_number = ContextKeys(context, numbered=numbered)
    assert check_citations("Queue 23 was checked last [2].", by_number).citations[0].key == SECOND
    filtered = NumberFilter(by_number, detect_abstention=False)
    assert "".join([*filtered.feed("Last [2]."), *filtered.flush()]) == f"Last {SECOND}."


def test_the_verifier_reads_the_part_cited(
    timeline: tuple[AssembledContext, Chunk, Chunk], embedder: CountingEmbedder
) -> None:
    context, first, last = timeline
    claim = Claim("Step 23: the on-call engineer checked queue 23.", [SECOND], 0)
    read = cited_text(claim, ContextKeys(context))
    assert last.text in read and first.text not in read
    (verdict,) = RulesVerifier(embedder).verify([claim], context).verdicts
    assert verdict.verdict == "supported", verdict


def test_the_evidence_context_keeps_the_parts_key(timeline: tuple[AssembledContext, Chunk, Chunk]) -> None:
    context, _, last = timeline
    answer = Answer(
        question="q",
        persona="p",
        text="t",
        method="extractive",
        sentences=[AnswerSentence(text="Step 23: queue 23 was checked.", citations=[SECOND])],
    )
    (section,) = evidence_context(answer, context).documents[0].sections
    assert section.citation_key == SECOND and section.chunk_ids == [last.id]


def test_a_heading_that_says_part_is_still_resolved_by_its_words() -> None:
    context = AssembledContext(
        documents=[
            ContextDocument(
                doc_id="r",
                title="Report",
                score=1.0,
                sections=[
                    ContextSection(section_path="Report > Results (Part 1)", text="One.", chunk_ids=["r#1"]),
                    ContextSection(section_path="Report > Results (Part 2)", text="Two.", chunk_ids=["r#2"]),
                ],
            )
        ]
    )
    context.number_parts()
    assert [s.part for s in context.documents[0].sections] == [1, 1], "different paths: no parts"
    source = ContextKeys(context).resolve("[^r:results (part 2)]")
    assert source is not None and source.section.chunk_ids == ["r#2"]

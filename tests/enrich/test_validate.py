"""Validation rejects what tiny local models produce: invented entities, echoed prompts,
duplicate or off-topic questions, other languages, bad lengths."""

from shu.checks import english, grounded, no_prompt_echo
from shu.enrich.validate import (
    check_chunk_profile,
    check_context,
    check_profile,
    check_questions,
    check_relationships,
)
from shu.types import ChunkProfile, DocumentProfile, Entity, Provenance, Relationship, SynthesizedQuestion

SOURCE = (
    "The Pro plan of Lumen Analytics allows 1,200 API requests per minute per workspace. "
    "Requests over the limit receive HTTP 429 with a Retry-After header. Enterprise customers "
    "can ask their Customer Success Manager to raise the limit."
)
LLM = Provenance(method="llm:scripted")


def q(text: str) -> SynthesizedQuestion:
    return SynthesizedQuestion(id=text, doc_id="d", text=text, provenance=LLM)


def test_grounding_and_echo_and_language() -> None:
    assert grounded("How many API requests per minute does the Pro plan allow?", SOURCE, 0.5) == []
    assert grounded("What is the capital of Mongolia and its population?", SOURCE, 0.5) != []
    assert no_prompt_echo("Here is the JSON you asked for") != []
    assert no_prompt_echo("Limits are counted per workspace.") == []
    assert english("Die Anfragen werden pro Arbeitsbereich gezählt und begrenzt, sagte er.") != []
    assert english("Requests are limited for every workspace of the plan.") == []


def test_a_profile_with_invented_entities_is_refused() -> None:
    good = DocumentProfile(
        doc_id="d",
        synopsis="The Pro plan allows 1,200 API requests per minute per workspace.",
        document_type="technical",
        entities=[Entity(name="Lumen Analytics", kind="organization")],
        provenance=LLM,
    )
    assert check_profile(good, SOURCE) == []
    bad = good.model_copy(update={"entities": [Entity(name="Acme Corp", kind="organization")]})
    assert check_profile(bad, SOURCE) == ["entities not in the text: Acme Corp"]


def test_a_synopsis_may_use_the_words_that_describe_a_document() -> None:
    """What Qwen2.5-Coder-1.5B writes: grounded facts in describing words ("The document provides
    information about …") — those words are not the document's, and must not sink it; invented
    facts in the same frame still do."""
    profile = DocumentProfile(
        doc_id="d",
        synopsis=(
            "The document provides information about API limits, including the 1,200 requests per "
            "minute of the Pro plan. It also mentions HTTP 429 with a Retry-After header."
        ),
        document_type="technical",
        provenance=LLM,
    )
    assert check_profile(profile, SOURCE) == []
    invented = profile.model_copy(
        update={
            "synopsis": "The document provides information about quarterly revenue, hiring goals and "
            "office relocation plans of the marketing department."
        }
    )
    assert check_profile(invented, SOURCE) != []
    prefix = (
        "This passage describes the limits section of the document, which covers API requests per minute."
    )
    assert check_context(prefix, SOURCE) == []


def test_questions_must_be_5_to_20_unique_grounded_questions() -> None:
    good = [
        q("How many API requests per minute does the Pro plan allow?"),
        q("What happens to requests over the limit?"),
        q("Which header tells you when to retry?"),
        q("Who can raise the API limit for Enterprise customers?"),
        q("Are API limits counted per workspace?"),
    ]
    assert check_questions(good, SOURCE) == []
    problems = check_questions(
        [
            *good[:4],
            q("How many API requests per minute does the Pro plan allow?"),
            q("Pro plan limit"),
            q("What is the meaning of life?"),
        ],
        SOURCE,
    )
    assert any(p.startswith("duplicate question") for p in problems)
    assert "not a question: 'Pro plan limit'" in problems
    assert any("meaning of life" in p for p in problems)
    assert check_questions(good[:2], SOURCE) == ["2 questions (need 5–20)"]


def test_chunk_profile_keywords_must_occur_in_the_chunk() -> None:
    profile = ChunkProfile(
        chunk_id="c",
        summary="Requests over the limit receive HTTP 429.",
        keywords=["HTTP 429", "Retry-After", "quantum"],
        provenance=LLM,
    )
    assert check_chunk_profile(profile, SOURCE) == ["keywords not in the chunk: quantum"]


def test_context_prefix_bounds() -> None:
    assert check_context("Limits.", SOURCE)[0].startswith("context prefix has 1 words")
    prefix = (
        "This passage from the Lumen Analytics API limits page explains how many requests per minute "
        "the Pro plan allows per workspace and what happens over the limit."
    )
    assert check_context(prefix, SOURCE) == []


def test_relationship_proposals_must_quote_the_document_and_name_a_candidate() -> None:
    source = "The migration plan replaces the legacy billing service.\nIt follows the March decision."
    ok = Relationship(
        source="a",
        target="b",
        type="derived_from",
        origin="llm",
        confidence=0.5,
        evidence="follows the  March decision",
    )
    assert check_relationships([ok], source, {"b"}) == []
    bad = [
        ok.model_copy(update={"target": "zzz"}),
        ok.model_copy(update={"evidence": "the board approved it"}),
        ok.model_copy(update={"type": "replies_to"}),
        ok.model_copy(update={"evidence": "March"}),
    ]
    problems = [check_relationships([r], source, {"b"}) for r in bad]
    assert all(len(p) == 1 for p in problems), problems
    assert check_relationships([ok, ok], source, {"b"})[0].startswith("duplicate")

"""Checks that an LLM-written artifact is about its source and well formed, so garbage never
reaches the index (docs/design/enrichment.md#validation). Each check returns the problems it found; an empty
list means the artifact may be kept."""

from __future__ import annotations

from shu.checks import english, grounded, length, no_prompt_echo
from shu.enrich.relational import dates_mentioned
from shu.roles import family
from shu.text import content_words, stem
from shu.types import (
    RELATIONSHIP_TYPES,
    ChunkProfile,
    DocumentProfile,
    Entity,
    RelationalContext,
    Relationship,
    SynthesizedQuestion,
)


def check_profile(profile: DocumentProfile, source: str) -> list[str]:
    problems = length(profile.synopsis, 8, 120, "synopsis")
    problems += (
        grounded(profile.synopsis, source, 0.5, describing=True)
        + no_prompt_echo(profile.synopsis)
        + english(profile.synopsis)
    )
    usable = usable_entities(profile.entities, source)
    invented = [e.name for e in profile.entities if e not in usable]
    if invented:
        problems.append(f"entities not in the text: {', '.join(invented[:5])}")
    return problems


def grounded_topics(topics: list[str], source: str) -> list[str]:
    """The topics a document names (half their words in it), in order: what a profile may claim
    it answers questions about."""
    return [t.strip() for t in topics if t.strip() and not grounded(t, source, 0.5, describing=True)]


def usable_entities(entities: list[Entity], source: str) -> list[Entity]:
    """The entities spelled as the source spells them."""
    lowered = source.casefold()
    return [e for e in entities if e.name.strip() and e.name.casefold() in lowered]


def usable_relational(relational: RelationalContext, source: str, written: str | None) -> RelationalContext:
    """The roles from the known families whose reasons rest on the text, and the deadlines on
    dates the text mentions (a model's profile keeps its valid parts instead of being refused for
    one invented deadline)."""
    roles = [
        r
        for r in relational.roles
        if family(r.role) is not None and not grounded(r.reason, source, 0.5) and not no_prompt_echo(r.reason)
    ]
    mentioned = set(dates_mentioned(source, written))
    deadlines = [d for d in relational.temporal.deadlines if d in mentioned]
    temporal = relational.temporal.model_copy(update={"deadlines": deadlines})
    return relational.model_copy(update={"roles": roles, "temporal": temporal})


def usable_questions(questions: list[str], source: str) -> list[str]:
    """The questions worth keeping, in order: distinct, ending with a question mark, grounded in
    the source, not echoing the prompt (a list that starts well and then repeats keeps its start)."""
    kept: list[str] = []
    seen: set[frozenset[str]] = set()
    for text in questions:
        key = frozenset(stem(w) for w in content_words(text))
        if not key or key in seen or not text.endswith("?"):
            continue
        seen.add(key)
        if not grounded(text, source, 0.5) and not no_prompt_echo(text):
            kept.append(text)
    return kept


def check_questions(
    questions: list[SynthesizedQuestion], source: str, low: int = 5, high: int = 20
) -> list[str]:
    problems: list[str] = []
    if not low <= len(questions) <= high:
        problems.append(f"{len(questions)} questions (need {low}–{high})")
    seen: set[frozenset[str]] = set()
    for question in questions:
        text = question.text.strip()
        key = frozenset(stem(w) for w in content_words(text))
        if not text or not key:
            problems.append("an empty question")
        elif key in seen:
            problems.append(f"duplicate question {text!r}")
        elif not text.endswith("?"):
            problems.append(f"not a question: {text!r}")
        else:
            problems += [f"{text!r}: {p}" for p in grounded(text, source, 0.5) + no_prompt_echo(text)]
        seen.add(key)
    return problems


def check_chunk_profile(profile: ChunkProfile, chunk_text: str) -> list[str]:
    problems = length(profile.summary, 3, 40, "summary") + grounded(profile.summary, chunk_text, 0.5)
    lowered = chunk_text.casefold()
    missing = [k for k in profile.keywords if k.casefold() not in lowered]
    if missing:
        problems.append(f"keywords not in the chunk: {', '.join(missing[:5])}")
    return problems + no_prompt_echo(profile.summary)


def check_context(prefix: str, document_text: str) -> list[str]:
    problems = length(prefix, 15, 120, "context prefix") + grounded(
        prefix, document_text, 0.6, describing=True
    )
    return problems + no_prompt_echo(prefix) + english(prefix)


def check_relationships(relationships: list[Relationship], source: str, candidates: set[str]) -> list[str]:
    """Each target is a listed candidate, each type known, each quote copied from the source."""
    problems: list[str] = []
    flat = " ".join(source.split()).casefold()
    seen: set[tuple[str, str]] = set()
    for r in relationships:
        if r.target not in candidates:
            problems.append(f"target {r.target!r} is not one of the listed documents")
        if r.type not in RELATIONSHIP_TYPES or r.type in ("replies_to", "attached_to"):
            problems.append(f"unknown relationship type {r.type!r}")
        quote = " ".join(r.evidence.split()).casefold().strip(" .\"'")
        if len(quote.split()) < 2 or quote not in flat:
            problems.append(f"quote {r.evidence!r} is not copied from the document")
        if (r.target, r.type) in seen:
            problems.append(f"duplicate relationship {r.type} → {r.target}")
        seen.add((r.target, r.type))
    return problems

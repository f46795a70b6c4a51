"""Checks that an LLM-written artifact is about its source and well formed, so garbage never
reaches the index (spec 003 FR-4 and more). Each check returns the problems it found; an empty
list means the artifact may be kept."""

from __future__ import annotations

import re

from shu.text import STOPWORDS, content_words, stem
from shu.types import RELATIONSHIP_TYPES, ChunkProfile, DocumentProfile, Relationship, SynthesizedQuestion

_PROMPT_ECHO = re.compile(
    r"(you are an? |as an ai|language model|here is the|here's the"
    r"|the (?:following )?document (?:above|below)|return (?:only )?json|<document>|</document>|\{\{|\}\})",
    re.I,
)


def grounded(text: str, source: str, min_overlap: float) -> list[str]:
    """Enough of the text's content words (stemmed) occur in the source."""
    words = {stem(w) for w in content_words(text) if not w.isdigit()}
    if not words:
        return ["no content words"]
    known = {stem(w) for w in content_words(source)}
    share = len(words & known) / len(words)
    return (
        []
        if share >= min_overlap
        else [f"only {share:.0%} of its terms occur in the source (need {min_overlap:.0%})"]
    )


def no_prompt_echo(text: str) -> list[str]:
    match = _PROMPT_ECHO.search(text)
    return [f"echoes the prompt ({match.group(0)!r})"] if match else []


def english(text: str) -> list[str]:
    """Most words are Latin-script and a fair share are common English words."""
    tokens = re.findall(r"\w+", text.lower())
    if not tokens:
        return ["empty"]
    latin = sum(bool(re.fullmatch(r"[a-z0-9'-]+", t)) for t in tokens) / len(tokens)
    common = sum(t in STOPWORDS for t in tokens) / len(tokens)
    if latin < 0.8 or (len(tokens) >= 6 and common < 0.08):
        return ["not in the expected language (English)"]
    return []


def length(text: str, low: int, high: int, what: str) -> list[str]:
    count = len(text.split())
    return [] if low <= count <= high else [f"{what} has {count} words (allowed {low}–{high})"]


def check_profile(profile: DocumentProfile, source: str) -> list[str]:
    problems = length(profile.synopsis, 8, 120, "synopsis")
    problems += (
        grounded(profile.synopsis, source, 0.6) + no_prompt_echo(profile.synopsis) + english(profile.synopsis)
    )
    lowered = source.casefold()
    invented = [e.name for e in profile.entities if e.name.casefold() not in lowered]
    if invented:
        problems.append(f"entities not in the text: {', '.join(invented[:5])}")
    return problems


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
    problems = length(prefix, 15, 120, "context prefix") + grounded(prefix, document_text, 0.6)
    return problems + no_prompt_echo(prefix) + english(prefix)


def check_relationships(relationships: list[Relationship], source: str, candidates: set[str]) -> list[str]:
    """Each target is a listed candidate, each type known, each quote copied from the source."""
    problems: list[str] = []
    flat = " ".join(source.split()).casefold()
    seen: set[tuple[str, str]] = set()
    for r in relationships:
        if r.target not in candidates:
            problems.append(f"target {r.target!r} is not one of the listed documents")
        if r.type not in RELATIONSHIP_TYPES or r.type == "replies_to":
            problems.append(f"unknown relationship type {r.type!r}")
        quote = " ".join(r.evidence.split()).casefold().strip(" .\"'")
        if len(quote.split()) < 2 or quote not in flat:
            problems.append(f"quote {r.evidence!r} is not copied from the document")
        if (r.target, r.type) in seen:
            problems.append(f"duplicate relationship {r.type} → {r.target}")
        seen.add((r.target, r.type))
    return problems

"""Checks any LLM output must pass before Shu keeps it, whichever part asked (enrichment, the
planner and rewriter, the answer): grounded in its source, no echo of the prompt, the expected
language and length. Each returns the problems it found; an empty list means keep it."""

from __future__ import annotations

import re

from shu.text import STOPWORDS, content_words, stem

_PROMPT_ECHO = re.compile(
    r"(you are an? |as an ai|language model|here is the|here's the"
    r"|the (?:following )?document (?:above|below)|return (?:only )?json|<document>|</document>|\{\{|\}\})",
    re.I,
)


DESCRIBING_WORDS = frozenset(
    stem(word)
    for word in (
        "document documents passage text provides information describes describing description details "
        "detailing covers covering includes including mentions mentioned discusses discussing outlines "
        "outlining summarizes summary overview explains explaining contains containing aspects various "
        "regarding concerning also section sections"
    ).split()
)
"""Words a synopsis or a context prefix uses to describe a document ("The document provides
information about …"): not the document's own, and never counted against its grounding."""


def grounded(text: str, source: str, min_overlap: float, describing: bool = False) -> list[str]:
    """Enough of the text's content words (stemmed) occur in the source; with `describing`, the
    words that describe a document (`DESCRIBING_WORDS`) are left out of the count."""
    words = {stem(w) for w in content_words(text) if not w.isdigit()}
    if describing:
        words -= DESCRIBING_WORDS
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

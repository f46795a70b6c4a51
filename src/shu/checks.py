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

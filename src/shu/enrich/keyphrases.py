"""Keyphrases with YAKE (unsupervised, statistical, no model download)."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from shu.text import content_words

if TYPE_CHECKING:
    from yake import KeywordExtractor


@cache
def _extractor(top: int) -> KeywordExtractor:
    import yake

    return yake.KeywordExtractor(lan="en", n=3, top=top * 2, dedupLim=0.7)


def keyphrases(text: str, top: int = 8) -> list[str]:
    """Most characteristic phrases first, near-duplicates and stopword-only phrases dropped."""
    if len(text.split()) < 5:
        return []
    chosen: list[str] = []
    seen: set[str] = set()
    for phrase, _score in _extractor(top).extract_keywords(text):
        words = frozenset(content_words(phrase))
        if not words or words <= seen or any(ch in phrase for ch in "#|*`[]"):
            continue
        chosen.append(phrase)
        seen |= words
        if len(chosen) == top:
            break
    return chosen

"""The two things a comparison asks about ("Compare the uptime SLA on Pro with Enterprise",
"Were more members present at the January AGM or at the April meeting?", "the difference in
sync interval between Team and Enterprise"), and the words that tell them apart, so the reader
answers each side with the sentence about it, side by side."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.text import content_words

_ARTICLES = re.compile(r"^(?:(?:at|on|in|for|of|to|with|from|the|a|an|our|my|its|their)\s+)+", re.I)
_PATTERNS = [
    re.compile(r"\bbetween\s+(?P<x>.+?)\s+and\s+(?P<y>.+?)\s*(?:[?.!,]|$)", re.I),
    re.compile(
        r"\bcompare\s+(?P<x>.+?)\s+(?:with|to|and|against|vs\.?|versus)\s+(?P<y>.+?)\s*(?:[?.!,]|$)", re.I
    ),
    re.compile(
        r"(?P<x>.+?)\s+(?:different from|differ from|compared? (?:with|to)|vs\.?|versus)\s+"
        r"(?P<y>.+?)\s*(?:[?.!,]|$)",
        re.I,
    ),
    re.compile(r"(?P<x>.+?),?\s+or\s+(?P<y>.+?)\s*(?:[?.!,]|$)", re.I),
]
_SPLIT = re.compile(r"\s+(?:on|at|in|for|of|between|compare|are|is|were|was|,)\s+|,\s*", re.I)


@dataclass(frozen=True)
class Side:
    name: str
    """How the question names it ("January AGM")."""
    words: frozenset[str]
    """Its words the other side does not have ("january", "agm")."""

    def named_in(self, text: str) -> int:
        """How many of its words `text` has."""
        return len(self.words & set(content_words(text)))


def compared(question: str) -> tuple[Side, Side] | None:
    """The two sides of a comparison, or None when the question compares nothing."""
    for pattern in _PATTERNS:
        match = pattern.search(question)
        if match is None:
            continue
        x, y = _tail(match.group("x")), _ARTICLES.sub("", match.group("y").strip())
        x_words, y_words = set(content_words(x)), set(content_words(y))
        if not x or not y or not (x_words - y_words) or not (y_words - x_words):
            continue
        return Side(x, frozenset(x_words - y_words)), Side(y, frozenset(y_words - x_words))
    return None


def _tail(text: str) -> str:
    """The thing named last before "or"/"with"/"different from": after its preposition or
    comma ("present at the January AGM" → "January AGM")."""
    last = _SPLIT.split(text.strip())[-1]
    return _ARTICLES.sub("", last.strip())

"""A follow-up made to stand alone before retrieval, without an LLM: "and the Team plan?" after
"What does the Pro plan cost?" is searched as "What does the Team plan cost?"; "who approved it?"
after "When was the Q3 repair budget set?" as "who approved the Q3 repair budget?".

The rules read the previous turn: its question (as it was searched), and the titles of the
documents its answer cited. A question that names what it asks about is left as it is."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.analysis import STOPWORDS, stem

_LEAD = re.compile(r"^\s*(?:(?:and|but|also|so|then|ok|okay)\b[,\s]*|(?:what|how)\s+about\s+)", re.IGNORECASE)
"""How an elliptical follow-up opens ("and the Team plan?", "what about last year?")."""
_PRONOUN = re.compile(r"\b(it|its|they|them|their|this|that|these|those|he|she|him|his|her)\b", re.IGNORECASE)
_WH = re.compile(
    r"^\s*(?:what|which|who|whom|whose|when|where|why|how(?:\s+(?:much|many|long|often))?)\s+"
    r"(?:is|are|was|were|does|do|did|can|could|will|would|should|has|have|had)?\s*",
    re.IGNORECASE,
)
_TIME = re.compile(
    r"\b(?:(?:last|next|this|previous|coming)\s+(?:year|month|week|quarter|day)|yesterday|today|tomorrow"
    r"|(?:in\s+)?(?:19|20)\d\d|q[1-4](?:\s+(?:19|20)\d\d)?)\b",
    re.IGNORECASE,
)
_BOUNDARY = STOPWORDS | {
    "cost",
    "costs",
    "include",
    "includes",
    "mean",
    "means",
    "work",
    "works",
    "say",
    "says",
}
"""Words a noun phrase does not run across when the rules look for the phrase to swap."""
_DETERMINERS = frozenset({"the", "a", "an", "our", "your", "my"})
_MAX_ELLIPSIS_WORDS = 6
_MAX_PRONOUN_CONTENT_WORDS = 3


@dataclass(frozen=True)
class Previous:
    """What the rules read of the turn before: its question as searched, the titles it cited."""

    question: str
    cited_titles: tuple[str, ...] = ()


def standalone(question: str, previous: Previous | None) -> str | None:
    """The follow-up rewritten to stand alone, or None when it stands alone already (or nothing
    came before it)."""
    if previous is None or not previous.question.strip():
        return None
    lead = _LEAD.match(question)
    if lead is not None:
        rest = question[lead.end() :].strip().rstrip("?").strip()
        if rest and len(rest.split()) <= _MAX_ELLIPSIS_WORDS:
            return _swapped(previous.question, rest)
    if _PRONOUN.search(question) and len(_content(question)) <= _MAX_PRONOUN_CONTENT_WORDS:
        return _resolved(question, previous)
    return None


def _swapped(prior: str, rest: str) -> str:
    """`prior` with its phrase of the same kind as `rest` replaced by it (a time by a time, "the
    Pro plan" by "the Team plan"), or `rest` added when no phrase matches."""
    body = prior.strip().rstrip("?").strip()
    if _TIME.fullmatch(rest):
        found = _TIME.search(body)
        return f"{body[: found.start()]}{rest}{body[found.end() :]}?" if found else f"{body} {rest}?"
    span = _same_head(body, rest)
    if span is None:
        return f"{body} {rest}?"
    start, end = span
    return f"{body[:start]}{_without_determiner(rest)}{body[end:]}?"


def _same_head(body: str, rest: str) -> tuple[int, int] | None:
    """Where in `body` the last noun phrase ending in `rest`'s last word sits (its modifiers,
    not its determiner), as character offsets."""
    head = stem(rest.split()[-1].lower())
    tokens = list(re.finditer(r"[\w'-]+", body))
    for i in range(len(tokens) - 1, -1, -1):
        if stem(tokens[i].group().lower()) == head:
            j = i
            while j > 0 and tokens[j - 1].group().lower() not in _BOUNDARY:
                j -= 1
            return tokens[j].start(), tokens[i].end()
    return None


def _resolved(question: str, previous: Previous) -> str:
    """The first pronoun replaced by what the previous question asked about ("its" by "the Q3
    budget's"); the cited title added when no phrase can be read from it."""
    topic = _topic(previous.question)
    if not topic:
        about = previous.cited_titles[0] if previous.cited_titles else previous.question.strip().rstrip("?")
        return f"{question.strip().rstrip('?')} ({about})?"

    def replaced(match: re.Match[str]) -> str:
        return f"{topic}'s" if match.group(1).lower() in _POSSESSIVE else topic

    return _PRONOUN.sub(replaced, question, count=1)


_POSSESSIVE = {"its", "their", "his", "her"}


def _topic(prior: str) -> str:
    """The noun phrase a question asks about: from its first determiner ("the Q3 repair budget")
    or, without one, what follows its question word, up to a boundary word."""
    body = _WH.sub("", prior.strip().rstrip("?").strip(), count=1)
    words = body.split()
    start = next((i for i, w in enumerate(words) if w.lower() in _DETERMINERS), 0)
    if not words:
        return ""
    phrase = [words[start]]
    for word in words[start + 1 :]:
        if word.lower() in _BOUNDARY and word.lower() not in {"of", "for"}:
            break
        phrase.append(word)
    while phrase and phrase[-1].lower() in _BOUNDARY:
        phrase.pop()
    return " ".join(phrase)


def _content(text: str) -> list[str]:
    return [
        w for w in re.findall(r"[\w'-]+", text.lower()) if w not in STOPWORDS and not _PRONOUN.fullmatch(w)
    ]


def _without_determiner(phrase: str) -> str:
    words = phrase.split()
    return " ".join(words[1:]) if len(words) > 1 and words[0].lower() in _DETERMINERS else phrase

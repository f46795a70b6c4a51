"""How many documents ("how many articles talk about Diablo 4", "in how many chats does Joanna's
allergy come up", "how many conversations did Jon and Gina have in June 2023"): a count over
the documents, by deterministic filters — the documents that hold the subject's words
(`covering`), dated within the span the question names — answered with the number and the
documents counted, one line each."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.answer.extractive.covering import Covering, covering_documents
from shu.answer.extractive.documents_asked import DOCUMENT_NOUNS, types_named
from shu.answer.extractive.library import Library
from shu.answer.quote import quoted_line
from shu.months import MONTHS_RE
from shu.retrieve.classify import temporal_scope

_HOW_MANY = re.compile(
    rf"^(?:in\s+)?how\s+many\s+(?:of\s+(?:the|our|their|those|these|my|your)\s+)?(?P<kind>\w+\s+)??"
    rf"(?P<noun>{DOCUMENT_NOUNS})\b\s*(?P<rest>.*)$",
    re.I,
)
_ASKING = re.compile(
    r"\b(?:do|does|did|is|are|was|were|have|has|had|there|we|i|you|they|in total|altogether|all|so far|"
    r"explicitly|actually|bring(?:s)? up|brought up|come(?:s)? up|came up|mention(?:s|ed)?|"
    r"talk(?:s|ed)? about|"
    r"(?:is|are|was|were) about|about|cover(?:s|ed)?|discuss(?:es|ed)?|deal(?:s|t)? with|refer(?:s|red)? to|"
    r"in the collection|in the knowledge base|of them|from|by|write|wrote|written|for|different|separate|"
    r"distinct|other|individual|dated|came|come|arrived|send|sends|sent|received|get|gets|got)\b",
    re.I,
)
_DATES = re.compile(
    r"\b(?:in|on|during|from|since|before|after|between)?\s*"
    rf"(?:(?:\d{{1,2}}\s+)?(?:{MONTHS_RE})(?:\s+\d{{1,2}})?,?\s*)?(?:19|20)\d{{2}}\b|\b(?:in|during)\s+(?:{MONTHS_RE})\b",
    re.I,
)
MAX_LISTED = 60
"""Documents counted listed at most (the count is of them all)."""


@dataclass(frozen=True)
class CountAsked:
    noun: str
    """what the question calls the documents ("chats")"""
    subject: str
    """what they must hold ("Joanna's allergy"; empty: every document)"""
    within: tuple[str, str] | None
    """the dates named (ISO prefixes)"""


def asks_how_many_documents(question: str) -> CountAsked | None:
    """What a question counting documents counts, else None ("how many motions were put to a
    vote" counts no documents)."""
    text = " ".join(question.replace("\u2019", "'").split()).rstrip(" ?.!")
    match = _HOW_MANY.match(text)
    if match is None:
        return None
    scope = temporal_scope(text)
    within = (scope.start, scope.end) if scope.start and scope.end else None
    if within is None and re.search(rf"\b(?:{MONTHS_RE})\b", match.group("rest"), re.I):
        return None  # "how many emails came in May": which May is not said
    rest = _DATES.sub(" ", f"{match.group('kind') or ''} {match.group('rest')}")
    subject = " ".join(_ASKING.sub(" ", rest).split())
    return CountAsked(noun=match.group("noun").lower(), subject=subject, within=within)


def counted_documents(
    asked: CountAsked,
    persona: str,
    ranked: list[str],
    library: Library,
    kept: frozenset[str] | None = None,
) -> list[Covering]:
    """The documents counted: those that hold the subject, dated within the span named, of the
    type the question calls them by ("emails"), among those a filter `kept`. A persona of more
    documents than the filter reads (`covering`) is counted among those it reads: retrieval's
    and keyword search's."""
    return covering_documents(
        asked.subject,
        persona,
        ranked,
        library,
        limit=None,
        within=asked.within,
        types=types_named(asked.noun),
        kept=kept,
    )


def count_head(asked: CountAsked, count: int) -> str:
    """ "6 chats mention Joanna's allergy:", "4 conversations dated 2023-06:", "29 conversations:"."""
    subject = quoted_line(asked.subject)  # the asker's words: a key-like string in them is no citation
    what = [f"{'mentions' if count == 1 else 'mention'} {subject}"] if subject else []
    if asked.within is not None:
        start, end = asked.within
        what.append(f"dated {start}" if start == end else f"dated {start} to {end}")
    if count > MAX_LISTED:
        what.append(f"the first {MAX_LISTED} listed")
    noun = _singular(asked.noun) if count == 1 else asked.noun
    return f"{count} {noun}{' ' + ', '.join(what) if what else ''}:"


def _singular(noun: str) -> str:
    if noun.endswith("ies"):
        return noun[:-3] + "y"
    return noun[:-1] if noun.endswith("s") and not noun.endswith(("ss", "notes", "minutes")) else noun

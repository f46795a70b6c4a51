"""Which of the scored sentences the extractive reader quotes, and in what order: the best
within reach of the best score, a stated answer first ("Root cause", "Decision: …") with what it
follows or what follows it; for a yes/no question, the sentence that decides it first; for a
question whose answer is a whole list under its heading, that list."""

from __future__ import annotations

import re

from shu.answer.extractive.asked import Asked
from shu.answer.extractive.candidate import Candidate, similar
from shu.answer.extractive.lists import Listing, listings
from shu.answer.extractive.polarity import Verdict, affirms, verdict
from shu.answer.extractive.rows import fields
from shu.answer.extractive.scoring import asks
from shu.types import ContextDocument


def choose(
    candidates: list[Candidate],
    limit: int,
    min_meaning: float,
    kind: Asked | None = None,
    every: bool = False,
    within: float = 0.75,
) -> list[Candidate]:
    """The best sentences, each within `within` (0.75) of the best score; when sections whose heading
    answers the question's kind are among the best-ranked documents' ("Root cause"), their
    sentences come first, judged against the best of them."""
    ranked = sorted(candidates, key=lambda c: c.score, reverse=True)
    if kind is not None and kind.kind in _TOLD_NEXT:  # a question asked in a thread gives no cause
        ranked = [c for c in ranked if not asks(c.text)] or ranked
    closest = max(ranked, key=lambda c: 0.55 * c.meaning + 0.3 * c.overlap, default=None)
    if closest is None or (closest.meaning < min_meaning and closest.overlap == 0.0):
        return []  # nothing in the context is about the question, whatever its shape
    stated = [
        c
        for c in ranked
        if kind
        and kind.first
        and c.rank <= 2
        and c.about >= 0.5  # another incident's "Root cause" answers nothing here
        and (kind.in_heading(c.section.section_path) or kind.in_field(c.text))
    ]
    if not every:  # the one decision about something: a stated one that shares its words
        stated = [c for c in stated if c.overlap > 0]
    chosen: list[Candidate] = []
    for group in (stated, ranked):
        best = group[0].score if group else 0.0
        whole = group is stated and every  # every decision, every attendee
        for candidate in group:
            if len(chosen) == limit or (candidate.score < within * best and not whole):
                break
            if candidate in chosen or any(similar(candidate.text, c.text) for c in chosen):
                continue
            told_before = kind is not None and kind.kind in _TOLD_NEXT and _bare_verdict(kind, candidate)
            if told_before:  # "A pilot on 10 plots, budget $1,200." before "DECISION: Pilot approved."
                chosen += [motion for motion in _before(candidate, _MOTION_SENTENCES) if motion not in chosen]
            chosen.append(candidate)
            if kind and kind.kind in _TOLD_NEXT and not _CAUSAL.search(candidate.text):
                # "The alarm could not be heard." → "An extra sounder is to be fitted."
                told = _told_after(candidate) or _next_if_restated(candidate)
                chosen += [sentence for sentence in told if sentence not in chosen]
    return chosen[: limit + 1]


_TOLD_NEXT = frozenset({"cause", "resolution", "decision"})
"""Kinds whose answer usually follows the sentence that names the problem."""


_MOTION_SENTENCES = 3
"""How many sentences before a bare verdict say what it decides (a motion is a few sentences)."""


def _told_after(candidate: Candidate) -> list[Candidate]:
    """The sentences after one that names the problem, up to the one that states its cause or
    fix within the next few ("The 429 errors from your script." → "Your plan allows 1,200 a
    minute." → "That limit is shared …, so …"); none when none of them does."""
    following: list[Candidate] = []
    told = candidate.next
    while told is not None and len(following) < _TOLD_WITHIN:
        following.append(told)
        if _CAUSAL.search(told.text) or _CONSEQUENCE.search(told.text):
            return following
        told = told.next
    return []


def _next_if_restated(candidate: Candidate) -> list[Candidate]:
    return [candidate.next] if _restates(candidate) and candidate.next is not None else []


_CONSEQUENCE = re.compile(r",\s+(?:so|which means|meaning that)\s", re.I)
"""A clause that says what follows from what the sentence states ("…, so the script and your BI
integration count against the same budget")."""

_TOLD_WITHIN = 3
"""How many sentences after a restated problem its cause or fix may be stated."""


def _before(candidate: Candidate, count: int) -> list[Candidate]:
    """Up to `count` sentences before `candidate` in its section, in their order."""
    found: list[Candidate] = []
    previous = candidate.previous
    while previous is not None and len(found) < count:
        found.insert(0, previous)
        previous = previous.previous
    return found


def _bare_verdict(kind: Asked, candidate: Candidate) -> bool:
    """A short field stating only the verdict ("DECISION: Pilot approved. Vote: 30 in favour"):
    what was approved is said before it."""
    return kind.in_field(candidate.text) and len(candidate.text.split(".")[0].split()) <= 4


def _restates(candidate: Candidate) -> bool:
    """The sentence mostly repeats the question (the problem it asks about), so what it asks
    for (why, how it was fixed, what was decided) is said next."""
    return candidate.overlap >= 0.4 and not _CAUSAL.search(candidate.text)


_CAUSAL = re.compile(
    r"\b(?:because|due to|cause|caused|causes|since|as a result|led to|leads to|reason|so that|therefore"
    r"|fixed|replaced|repaired|fitted|installed|approved|decided|agreed|resolved|will be|is to be"
    r"|are to be)\b",
    re.I,
)


def yes_or_no(
    question: str, chosen: list[Candidate], candidates: list[Candidate]
) -> tuple[list[Candidate], Verdict | None]:
    """A yes/no question's answer starts with yes or no when one of the chosen sentences, or of
    the best few others, decides it: that sentence comes first."""
    others = sorted((c for c in candidates if c not in chosen), key=lambda c: c.score, reverse=True)
    tables = {id(c.section) for c in chosen if fields(c.text)}
    rows = [c for c in others[3:] if id(c.section) in tables and fields(c.text)]  # the row the question names
    for candidate in [*chosen, *others[:3], *rows]:
        siblings = [c.text for c in candidates if c.section is candidate.section and c is not candidate]
        said = verdict(question, candidate.text, candidate.document.title, siblings)
        if said is not None:
            rest = [c for c in chosen if c is not candidate]
            return [candidate, *rest][: len(chosen)], said
    if chosen and affirms(question, chosen[0].text, chosen[0].document.title):
        return chosen, "yes"  # the best answer states it, and nothing said no
    return chosen, None


def answering_list(kind: Asked, best: Candidate) -> tuple[Listing, ContextDocument] | None:
    """The best sentence stands in a list under a heading that answers the question's kind
    ("Root cause": "Two issues combined: 1. … 2. …"): the whole list answers it."""
    if kind.kind not in _TOLD_NEXT or not kind.in_heading(best.section.section_path):
        return None
    for listing in listings([best.section]):
        if (
            not listing.header
            and 2 <= len(listing.items) <= 8
            and any(similar(best.text, item) or best.text in item for item in listing.items)
        ):
            return listing, best.document
    return None

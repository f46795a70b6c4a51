"""What an answer to a question must hold: the shape of the answer to a cost, when, how many or
why question ("$40", "3 May", "because …"), the amount or time of day it asks for, which none of
the best sentences may state, and whether it asks for today's information, which no document
written before today holds."""

from __future__ import annotations

import re
from datetime import date

from lemminflect import getAllLemmas

from shu.answer.extractive.asked import asked
from shu.answer.extractive.candidate import Candidate
from shu.months import MONTH_ABBREVIATIONS_RE
from shu.types import AssembledContext


def expected_answer(question: str) -> re.Pattern[str] | None:
    """What a sentence that answers the question must contain, for the kinds of question whose
    answer has a shape: a price (cost questions), a date or time (when), a number (how many),
    the role asked for ("engineer" for which support engineer handled it: the signature or the
    line that names someone with that role)."""
    for asks, shape in _ANSWER_KINDS:
        if asks.search(question):
            return shape
    role = _WHICH_ROLE.match(question)
    kind = asked(question)
    if role is None or (kind is not None and kind.kind != "who"):
        return None
    word = role.group("role")
    if word.lower() in _ANYONE or "NOUN" not in getAllLemmas(word.lower()):
        return None
    name, title = r"[A-Z][\w'’-]+\s+[A-Z][\w'’-]+", rf"(?i:{re.escape(word)})\b"
    named_then_title = rf"{name}[\s,(]+(?:[\w&-]+\s+){{0,3}}{title}"  # "Tomas Ferreira, Support Engineer"
    title_then_named = rf"\b{title}[\s,:]+(?:[\w-]+[\s,:]+){{0,2}}{name}"  # "Treasurer: Kenji Morales"
    return re.compile(f"{named_then_title}|{title_then_named}")


_ANSWER_KINDS = [
    (
        re.compile(r"\b(?:cost|costs|price|prices|priced|fee|fees|charge|charged|pay|paid|how much)\b", re.I),
        re.compile(r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur|gbp)\b", re.I),
    ),
    (
        re.compile(r"^\s*(?:when|what (?:date|time|day|year))\b", re.I),
        re.compile(
            rf"\b(?:\d{{4}}-\d{{2}}|\d{{1,2}}:\d{{2}}|(?:{MONTH_ABBREVIATIONS_RE})[a-z]*"
            r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{4}|yesterday|today|tonight"
            r"|tomorrow|ago|(?:last|next|this past) (?:night|week|weekend|month|year|[a-z]+day))\b",
            re.I,
        ),
    ),
    (re.compile(r"^\s*how (?:many|much|long|often|old)\b", re.I), re.compile(r"\d")),
    (
        re.compile(r"^\s*why\b|\bhow come\b|\bwhat caused\b|\breasons? (?:for|why)\b", re.I),
        re.compile(
            r"\b(?:because|due to|caused by|(?:the|root) cause (?:was|is)|as a result of|led to|reason"
            r"|too \w+|owing to)\b",
            re.I,
        ),
    ),
]

_WHICH_ROLE = re.compile(
    r"^\s*which\s+(?:[\w&'’-]+\s+){0,3}?(?P<role>[a-z][\w-]*)\s+"
    r"(?:did|does|is|was|has|had|will|can|could|should|would|\w+ed)\b",
    re.I,
)
"""Which one of a kind: "Which Lumen support engineer handled …" asks for an engineer, and a
line naming someone with that title answers ("Tomas Ferreira, Senior Support Engineer")."""
_ANYONE = frozenset("person one member staff".split())


def unstated_attribute(question: str, candidates: list[Candidate]) -> str | None:
    """What the question asks for that none of the best sentences states: an amount of money
    ("how much are the agency operators costing us?"), a time of day ("what time does the
    festival start?"). Named as said in the decline; None when one of them states it."""
    best = sorted(candidates, key=lambda c: c.score, reverse=True)[:_ATTRIBUTE_READ]
    closest = max((c.overlap for c in best), default=0.0)
    about = [c for c in best if c.overlap >= 0.5 * closest]  # another price on the page is no answer
    for attribute, asks, states in _ATTRIBUTES:
        if asks.search(question) and not any(states.search(c.text) for c in about):
            return attribute
    return None


_ATTRIBUTE_READ = 6
"""The best sentences read for the asked amount or time (an answer further down is no answer)."""
_ATTRIBUTES = [
    (
        "an amount",
        re.compile(
            r"\b(?:how much (?:does|do|did|is|are|was|were|will)\b(?!.*\b(?:time|long)\b)"
            r"|what(?:'s| is| was| are)? (?:the )?(?:price|cost|fee|rate|salary|wage)s?\b)",
            re.I,
        ),
        re.compile(
            r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur|gbp|%|per ?cent)|\b(?:free|no charge"
            r"|no cost|at cost|included|half|double|time and a half|nothing)\b",
            re.I,
        ),
    ),
    (
        "a time of day",
        re.compile(r"\b(?:what|which) time\b|\bat what time\b", re.I),
        re.compile(
            r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midday|midnight)\b", re.I
        ),
    ),
]


_LIVE = re.compile(
    r"\b(?:tomorrow|tonight|today's|right now|forecast|this (?:morning|afternoon|evening))\b"
    r"|\btoday\s*[?.!]*\s*$",
    re.I,
)
"""Asking for today's state ("the forecast for tomorrow", "the price today?"); "if we delete it
today, how long …" is not."""


def asks_for_live_information(question: str) -> bool:
    """The question wants what is true today or tomorrow (a forecast, today's figures)."""
    return bool(_LIVE.search(question))


def dated_from_today(context: AssembledContext) -> bool:
    today = date.today().isoformat()
    return any(d.date and d.date[:10] >= today for d in context.documents)

"""A month the question is about that nothing in the knowledge base covers: "What was decided
at the October 2026 general meeting?" of a co-op whose minutes stop in April 2026. A month is
covered when a retrieved section names it with its year ("October 2026", "1 Oct 2026",
"2026-10"), or a document of the knowledge base is about a span of time that reaches into it
(its date, or the first and last dates it states) among the documents retrieved for it (a
stand-up of 5 January is no fire drill of January, nor does a sponsorship running a year hold a
meeting in one of its months). The question's month names an event the documents do not hold;
no quoted sentence answers it, whatever it shares with the question.

Only a month with its year counts: "in 2026" alone is a condition most documents meet, and a
month alone ("in October") is read against years the documents do not say."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from shu.months import MONTH_NAMES, MONTH_WORDS_RE, MONTHS

_MONTH = rf"(?P<month>{MONTH_WORDS_RE})"
_ASKED = re.compile(
    rf"\b{_MONTH}\.?\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?(?:of\s+)?(?P<year>(?:19|20)\d\d)\b", re.I
)
""""October 2026", "Oct 2026", "October 12, 2026", "May of 2025"."""
_DAY_FIRST = re.compile(
    rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}\.?,?\s+(?P<year>(?:19|20)\d\d)\b", re.I
)
""""12 October 2026", "1st of May, 2025"."""


@dataclass(frozen=True)
class Month:
    year: int
    month: int

    @property
    def iso(self) -> str:
        return f"{self.year:04d}-{self.month:02d}"

    def __str__(self) -> str:
        return f"{MONTH_NAMES[self.month - 1]} {self.year}"


def asked_months(question: str) -> list[Month]:
    """The months, with their years, that `question` names."""
    return list(dict.fromkeys(_named_months(question)))


def uncovered_months(
    question: str, sections: Iterable[str], spans: dict[str, tuple[str, str]], retrieved: Iterable[str]
) -> list[Month]:
    """The months of `question` that no text of `sections` names with its year and no span of
    time (doc id → first and last ISO dates) of a `retrieved` document, or the month after it
    (which a message may call "last month"), reaches into."""
    asked = asked_months(question)
    if not asked:
        return []
    named = {month for text in sections for month in _named_months(text)}
    ranges = [(spans[d][0][:7], _month_after(spans[d][1])) for d in retrieved if d in spans and all(spans[d])]
    return [
        month
        for month in asked
        if month not in named and not any(first <= month.iso <= last for first, last in ranges)
    ]


def _named_months(text: str) -> list[Month]:
    """Months with their years in `text`: written out ("October 2026", "12 Oct 2026") or ISO
    ("2026-10")."""
    found = [_month(m) for pattern in (_ASKED, _DAY_FIRST) for m in pattern.finditer(text)]
    iso = re.findall(r"\b((?:19|20)\d\d)-(\d\d)\b", text)
    return found + [Month(int(y), int(m)) for y, m in iso if 1 <= int(m) <= 12]


def _month_after(day: str) -> str:
    """The month after the one `day` falls in: a message of early June tells of "last month"."""
    try:
        year, month = int(day[:4]), int(day[5:7])
    except ValueError:
        return day[:7]
    return f"{year + month // 12:04d}-{month % 12 + 1:02d}"


def _month(match: re.Match[str]) -> Month:
    name = match.group("month").lower()[:3]
    return Month(int(match.group("year")), [m[:3] for m in MONTHS].index(name) + 1)

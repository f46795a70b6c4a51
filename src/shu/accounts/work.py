"""When a user works, learned from their own documents: the hours and weekdays their messages
were sent and their meetings start (timestamps as written, in their own offset), and the days
they were away — an out-of-office, leave, vacation or travel event in their calendar, or an
automatic reply they sent ("I am out of the office until 5 December")."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import date, datetime

from shu.enrich.entities import find_dates
from shu.text import iso_date
from shu.types import Absence, Document, WorkPattern

MIN_TIMED = 5
"""Timed messages or meetings of the user needed before working hours are said."""
_AWAY = re.compile(
    r"\b(out of (the )?office|ooo|annual leave|on leave|parental leave|sick leave|vacation|day off|"
    r"days off)\b",
    re.IGNORECASE,
)
"""Titles that say the person is away, whatever the event."""
_AWAY_ALL_DAY = re.compile(r"\b(holiday|away|travel(l?ing)?|business trip|off[- ]site)\b", re.IGNORECASE)
"""Titles that say so only for an all-day or several-day event ("Holiday party" at 17:00 is not)."""
_AUTO_REPLY = re.compile(r"^\s*(automatic reply|auto[- ]?reply|out of (the )?office)\b", re.IGNORECASE)
_MEETINGS = ("meeting", "meeting_notes", "event")
_LONGEST_ABSENCE_DAYS = 120


def work_pattern(own: list[Document], addresses: set[str], text_of: Callable[[Document], str]) -> WorkPattern:
    """The user's working hours and days and absences from the documents they take part in
    (`text_of`: a document's text, read for automatic replies only)."""
    moments = [m for doc in own if (m := _moment(doc, addresses)) is not None]
    hours = _hours([m.hour for m in moments]) if len(moments) >= MIN_TIMED else None
    days = Counter(m.weekday() for m in moments)
    weekdays = (
        sorted(d for d, n in days.items() if n >= max(2, len(moments) // 10))
        if len(moments) >= MIN_TIMED
        else []
    )
    absences = sorted(
        (a for doc in own if (a := _absence(doc, addresses, text_of)) is not None),
        key=lambda a: (a.start, a.end),
    )
    return WorkPattern(hours=hours, weekdays=weekdays, absences=absences)


def _moment(doc: Document, addresses: set[str]) -> datetime | None:
    """When the user acted in the document: a message they sent, a meeting they organise."""
    if not _authored(doc, addresses):
        return None
    stamp = doc.meta.get("sent") or (doc.meta.get("start") if doc.type in _MEETINGS else None)
    if not isinstance(stamp, str) or "T" not in stamp:
        return None  # a day without a time says nothing of the hours
    try:
        return datetime.fromisoformat(stamp)
    except ValueError:
        return None


def _hours(hours: list[int]) -> tuple[int, int]:
    """The hours holding the middle 80 % of the user's messages: their working day."""
    ordered = sorted(hours)
    low = ordered[int(0.1 * (len(ordered) - 1))]
    high = ordered[round(0.9 * (len(ordered) - 1))]
    return low, high


def _absence(doc: Document, addresses: set[str], text_of: Callable[[Document], str]) -> Absence | None:
    if not _authored(doc, addresses) or not doc.date:
        return None
    title = doc.title or ""
    if doc.type in _MEETINGS and (_AWAY.search(title) or (_AWAY_ALL_DAY.search(title) and _whole_days(doc))):
        start = _day(doc.meta.get("start")) or _day(doc.date)
        end = _day(doc.meta.get("end")) or start
        reason = title
    elif doc.type == "email" and _AUTO_REPLY.search(title):
        start = _day(doc.date)
        text = text_of(doc)
        later = [d for d in find_dates(text) if start and d[:10] >= start.isoformat()]
        end = _day(later[0]) if later else start
        reason = "automatic reply"
    else:
        return None
    if start is None or end is None or end < start or (end - start).days > _LONGEST_ABSENCE_DAYS:
        return None
    return Absence(start=start.isoformat(), end=end.isoformat(), reason=reason, doc_id=doc.id)


def _whole_days(doc: Document) -> bool:
    """An all-day event, or one over several days."""
    if doc.meta.get("all_day"):
        return True
    start, end = _day(doc.meta.get("start")), _day(doc.meta.get("end"))
    return start is not None and end is not None and end > start


def _authored(doc: Document, addresses: set[str]) -> bool:
    people = doc.meta.get("participants")
    if not isinstance(people, list):
        return False
    return any(
        isinstance(p, dict)
        and str(p.get("email", "")).lower() in addresses
        and p.get("role") in ("author", "organizer")
        for p in people
    )


def _day(value: object) -> date | None:
    return iso_date(value) if isinstance(value, str) else None

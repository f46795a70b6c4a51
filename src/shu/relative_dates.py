"""A sentence's relative dates ("yesterday", "last Friday", "next month", "two days ago") read
against the day its document was written: "yesterday (7 May 2023)". A quoted sentence that says
"last week" tells the reader nothing on its own; the document's date makes it a date.

A day that is certain is given as a date ("yesterday" → 7 May 2023); one that is not is given as
exactly as much as is known ("last Friday" → the Friday before 15 July 2023: said on a Saturday
it may be the day before or eight days before), never guessed."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date, timedelta

from shu.months import MONTH_ABBREVIATIONS_RE, MONTH_NAMES_RE, MONTHS

_WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WEEKDAY = r"(?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?"
_COUNTS = {
    "a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "a couple of": 2, "a couple": 2,
}  # fmt: skip
_COUNT = r"(?:\d{1,2}|a\ couple\ of|a\ couple|an?|" + "|".join(list(_COUNTS)[2:14]) + ")"

_PATTERN = re.compile(
    rf"""\b(?:
      (?P<day_before>the\ day\ before\ yesterday)
    | (?P<day_after>the\ day\ after\ tomorrow)
    | (?P<yesterday>yesterday|last\ night)
    | (?P<tomorrow>tomorrow)
    | (?P<today>today|tonight|this\ (?:morning|afternoon|evening))
    | (?:last|this\ past)\ (?P<last_day>{_WEEKDAY})(?![a-z])
    | (?:next|this\ coming)\ (?P<next_day>{_WEEKDAY})(?![a-z])
    | (?P<period>last|this|next|this\ past)\ (?P<unit>week(?:end)?|month|year)
    | (?P<count>{_COUNT})\ (?P<ago_unit>day|week|month|year)s?\ ago
    )\b(?!['’])""",
    re.I | re.X,
)


RESOLVED = re.compile(
    rf"\((?:written |the \w+ (?:before|after|of) |[\w ]{{1,20}} (?:day|week|month|year)s? before )?"
    rf"(?:\d{{1,2}} (?:{MONTH_NAMES_RE}) \d{{4}}|(?:{MONTH_NAMES_RE}) \d{{4}}|\d{{4}})\)"
)
"""A date this module wrote into a sentence: "(7 May 2023)", "(the Friday before 15 July 2023)",
"(August 2023)", "(2022)", "(written 16 March 2023)"."""


def day_text(day: date) -> str:
    """ "7 May 2023"."""
    return f"{day.day} {day:%B %Y}"


def with_dates(text: str, written: date) -> str:
    """`text` with each relative date followed by the date it means, given the day it was written:
    "I went yesterday" → "I went yesterday (7 May 2023)". An expression already followed by a
    parenthesis is left alone."""

    def annotate(match: re.Match[str]) -> str:
        meant = _meaning(match, written)
        following = text[match.end() : match.end() + 2].lstrip()
        if meant is None or following.startswith("("):
            return match.group(0)
        return f"{match.group(0)} ({meant})"

    return _PATTERN.sub(annotate, text)


def spans(text: str, today: date) -> list[tuple[str, str]]:
    """The days each relative date in `text` may mean when said on `today`, as ISO prefixes
    (first, last): "yesterday" → a day, "last month" → 2026-10, "last week" → from the Monday of
    the week before to yesterday, "last Friday" → the week up to the latest Friday. What a
    question asks about ("What did we decide last week?"), read against the day it is asked."""
    return [span for match in _PATTERN.finditer(text) if (span := _span(match, today))]


def has_relative_date(text: str) -> bool:
    return _PATTERN.search(text) is not None


_NOT_MAY = "|".join(month for month in MONTHS if month != "may")
"""Every month's name but May's, which is mostly the verb."""
_A_TIME = re.compile(
    rf"""\b(?:(?:{MONTH_ABBREVIATIONS_RE})[a-z]*\.?\ \d|\d{{1,2}}\ (?:{MONTH_ABBREVIATIONS_RE})|{_NOT_MAY}
    |{_WEEKDAY}|(?:19|20)\d\d|\d{{1,2}}[:.]\d\d|\d{{1,2}}\s?[ap]\.?m\b|noon|midnight
    |spring|summer|autumn|fall|winter|weekend|season|ago|since|until|before|after|during|when)\b""",
    re.I | re.X,
)


def states_a_time(text: str) -> bool:
    """Whether `text` says when on its own: a date, month, weekday, year, clock time, season or
    a relative date."""
    return has_relative_date(text) or _A_TIME.search(text) is not None


def _meaning(match: re.Match[str], written: date) -> str | None:
    found = {name: value for name, value in match.groupdict().items() if value}
    for name, read in _READERS.items():
        if name in found:
            return read(found, written)
    return None


def _weekday(word: str) -> str:
    stem = word.lower().rstrip(".")[:3]
    return next(day for day in _WEEKDAYS if day.startswith(stem)).capitalize()


def _period(found: dict[str, str], written: date) -> str | None:
    period, unit = found["period"].lower(), found["unit"].lower()
    if unit == "year":
        shift = {"last": -1, "this past": -1, "this": 0, "next": 1}[period]
        return str(written.year + shift)
    if unit == "month":
        shift = {"last": -1, "this past": -1, "this": 0, "next": 1}[period]
        month = _month_shift(written, shift)
        return f"{month:%B %Y}"
    if period in ("last", "this past"):
        return f"the {unit} before {day_text(written)}"
    if period == "next":
        return f"the {unit} after {day_text(written)}"
    return f"the {unit} of {day_text(written)}"


def _ago(found: dict[str, str], written: date) -> str | None:
    raw, unit = found["count"].lower(), found["ago_unit"].lower()
    count = int(raw) if raw.isdigit() else _COUNTS[raw]
    if unit == "day":
        return day_text(written - timedelta(days=count))
    if unit == "year":
        return str(written.year - count)
    if unit == "month":
        return f"{_month_shift(written, -count):%B %Y}"
    return f"{raw} {unit}{'s' if count > 1 else ''} before {day_text(written)}"


def _month_shift(day: date, months: int) -> date:
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, 1)


_READERS: dict[str, Callable[[dict[str, str], date], str | None]] = {
    "day_before": lambda _, written: day_text(written - timedelta(days=2)),
    "day_after": lambda _, written: day_text(written + timedelta(days=2)),
    "yesterday": lambda _, written: day_text(written - timedelta(days=1)),
    "tomorrow": lambda _, written: day_text(written + timedelta(days=1)),
    "today": lambda _, written: day_text(written),
    "last_day": lambda found, written: f"the {_weekday(found['last_day'])} before {day_text(written)}",
    "next_day": lambda found, written: f"the {_weekday(found['next_day'])} after {day_text(written)}",
    "period": _period,
    "count": _ago,
}


def _span(match: re.Match[str], today: date) -> tuple[str, str] | None:
    found = {name: value for name, value in match.groupdict().items() if value}
    shifts = {"day_before": -2, "day_after": 2, "yesterday": -1, "tomorrow": 1, "today": 0}
    for name, shift in shifts.items():
        if name in found:
            day = (today + timedelta(days=shift)).isoformat()
            return day, day
    if "last_day" in found or "next_day" in found:
        weekday = _WEEKDAYS.index(_weekday(found.get("last_day") or found["next_day"]).lower())
        if "last_day" in found:
            latest = today - timedelta(days=(today.weekday() - weekday) % 7 or 7)
            return (latest - timedelta(days=7)).isoformat(), latest.isoformat()
        soonest = today + timedelta(days=(weekday - today.weekday()) % 7 or 7)
        return soonest.isoformat(), (soonest + timedelta(days=7)).isoformat()
    if "period" in found:
        return _period_span(found["period"].lower(), found["unit"].lower(), today)
    if "count" in found:
        return _ago_span(found, today)
    return None


def _period_span(period: str, unit: str, today: date) -> tuple[str, str]:
    shift = {"last": -1, "this past": -1, "this": 0, "next": 1}[period]
    if unit == "year":
        return str(today.year + shift), str(today.year + shift)
    if unit == "month":
        month = f"{_month_shift(today, shift):%Y-%m}"
        return month, month
    monday = today - timedelta(days=today.weekday()) + timedelta(weeks=shift)
    if shift < 0:  # last week: its Monday up to yesterday (this week's first days may be meant)
        return monday.isoformat(), (today - timedelta(days=1)).isoformat()
    return monday.isoformat(), (monday + timedelta(days=6)).isoformat()


def _ago_span(found: dict[str, str], today: date) -> tuple[str, str]:
    raw, unit = found["count"].lower(), found["ago_unit"].lower()
    count = int(raw) if raw.isdigit() else _COUNTS[raw]
    if unit == "day":
        day = (today - timedelta(days=count)).isoformat()
        return day, day
    if unit == "year":
        return str(today.year - count), str(today.year - count)
    if unit == "month":
        month = f"{_month_shift(today, -count):%Y-%m}"
        return month, month
    middle = today - timedelta(weeks=count)
    return (middle - timedelta(days=3)).isoformat(), (middle + timedelta(days=3)).isoformat()

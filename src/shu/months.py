"""The names of the months, and the regular-expression fragments made from them, for every part
of Shu that reads or writes a date in words ("3 May 2023", "Oct 2026", "before March")."""

from __future__ import annotations

MONTHS = (
    "january", "february", "march", "april", "may", "june",
    "july", "august", "september", "october", "november", "december",
)  # fmt: skip
"""Lower case, in the calendar's order."""


def _written(name: str) -> str:
    """`jan(?:uary)?`: the first three letters, then the rest if written out (`june?`, `may`);
    September is also "Sept"."""
    if name == "september":
        return "sep(?:t(?:ember)?)?"
    rest = name[3:]
    if len(rest) <= 1:
        return f"{name}?" if rest else name
    return f"{name[:3]}(?:{rest})?"


MONTH_NUMBERS = {name: number for number, name in enumerate(MONTHS, start=1)}
"""`"january"` → 1 … `"december"` → 12."""
MONTH_NAMES = tuple(name.capitalize() for name in MONTHS)
"""As written in a sentence: "January" … "December"."""

MONTHS_RE = "|".join(MONTHS)
"""`january|february|…|december` (for a pattern read without case)."""
MONTH_NAMES_RE = "|".join(MONTH_NAMES)
"""`January|February|…|December`: the names as written, for a pattern read with case."""
MONTH_ABBREVIATIONS_RE = "|".join(name[:3] for name in MONTHS)
"""`jan|feb|…|dec`: the first three letters, which begin every way of writing a month."""
MONTH_WORDS_RE = "|".join(_written(name) for name in MONTHS)
"""A month written out or abbreviated: `jan(?:uary)?|feb(?:ruary)?|…|may|june?|july?|…|
sep(?:t(?:ember)?)?|…|dec(?:ember)?` ("Oct", "October", "Sept")."""

"""Rule-based entities: e-mail addresses, dates, amounts, and capitalised names."""

from __future__ import annotations

import re
from datetime import date

from shu.months import MONTH_NAMES_RE, MONTH_NUMBERS
from shu.types import Entity, EntityKind, TemporalScope

_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTHS = MONTH_NUMBERS
_MONTH = rf"({MONTH_NAMES_RE})"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}) {_MONTH},? (\d{{4}})\b")
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH} (\d{{1,2}}),? (\d{{4}})\b")
_CURRENCY = r"(?:euros?|dollars?|pounds?|francs?|yen|EUR|USD|GBP|CHF|JPY)"
_AMOUNT = re.compile(
    r"(?:[$€£]\s?\d[\d,]*(?:\.\d+)?(?:\s?(?:k|m|million|billion))?|\b\d[\d,]*(?:\.\d+)?\s?%"
    rf"|\b\d[\d,]*(?:\.\d+)?(?:\s?(?:million|billion))?\s?{_CURRENCY}(?![-\w])"
    rf"|\b{_CURRENCY}\s?\d[\d,]*(?:\.\d+)?\b)"
)
_NAME = re.compile(r"\b([A-Z][a-z]+(?:[ -](?:[A-Z][a-z]+|&|of|de|van|von)){1,3})\b")
_ORG_HINT = re.compile(
    r"\b(Inc|Ltd|LLC|GmbH|Co-op|Corp|Corporation|Company|Analytics|Logistics|University|Institute)\b"
)
# Capitalised words that start a sentence or a greeting, not a name.
_NOT_NAMES = frozenset(
    "The This That These Those When What Where Which If For In On Hi Hello Dear Thanks Regards Best "
    "List Step See Open Click Go Use Select Add Create Set Enter Change".split()
)


def find_dates(text: str) -> list[str]:
    """ISO dates (YYYY-MM-DD) mentioned in the text, in order of appearance, valid ones only."""
    found: list[tuple[int, str]] = []
    for match in _ISO_DATE.finditer(text):
        found.append((match.start(), _iso(int(match[1]), int(match[2]), int(match[3]))))
    for match in _DAY_MONTH_YEAR.finditer(text):
        found.append((match.start(), _iso(int(match[3]), _MONTHS[match[2].lower()], int(match[1]))))
    for match in _MONTH_DAY_YEAR.finditer(text):
        found.append((match.start(), _iso(int(match[3]), _MONTHS[match[1].lower()], int(match[2]))))
    return [d for _, d in sorted(found) if d]


def temporal_scope(text: str, known_date: str | None = None) -> TemporalScope:
    dates = sorted(set(find_dates(text)) | ({known_date[:10]} if known_date else set()))
    return TemporalScope(start=dates[0], end=dates[-1]) if dates else TemporalScope()


def find_entities(text: str, limit: int = 30) -> list[Entity]:
    entities: dict[tuple[str, str], Entity] = {}

    def add(name: str, kind: EntityKind) -> None:
        key = (name.casefold(), kind)
        if key not in entities and len(entities) < limit:
            entities[key] = Entity(name=name, kind=kind)

    for email in _EMAIL.findall(text):
        add(email, "email")
    for found in find_dates(text):
        add(found, "date")
    for amount in _AMOUNT.findall(text):
        add(amount.strip().rstrip(",."), "amount")
    for name in _NAME.findall(text):
        words = name.split()
        if words[0] in _NOT_NAMES or words[-1] in ("of", "de", "van", "von", "&"):
            continue
        add(name, "organization" if _ORG_HINT.search(name) else "person" if len(words) <= 3 else "other")
    return list(entities.values())


def _iso(year: int, month: int, day: int) -> str:
    try:
        return date(year, month, day).isoformat()
    except ValueError:
        return ""

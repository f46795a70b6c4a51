"""Yes or no from a table row the reader quotes ("Plan: Team; Channels: E-mail, Slack, webhook").

A row answers a yes/no question only when it is the row the question names: "Can I send alerts
to PagerDuty on the Team plan?" is not answered by the Pro row, whatever its words; "Can a
customer order just 100 flyers?" is not answered by the brochures' row. The row the question
names decides by its fields:
- a limit field against the question's amount ("Minimum order: 500" for 100 flyers → no);
- the field the question names against the reference it names ("Did press uptime meet its
  target in May?" with "Target: 92%; May: 78.5%" → no);
- a list the question's thing is missing from, when another row of the same table lists it
  ("Channels: E-mail, Slack, Microsoft Teams, webhook" for PagerDuty on Team, where the Pro row
  names PagerDuty → no).

`reading` says "other" for a row about something else: nothing in it may decide the answer."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from shu.analysis import STOPWORDS, stem
from shu.answer.extractive.names import CONDITION, has_name, names

Reading = Literal["yes", "no", "other"]

_FIELD = re.compile(r"^([A-Za-z][^:;]{0,40}):\s+(\S.*)$")
_WORD = re.compile(r"[A-Za-z]+")
_TOKEN = re.compile(r"[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*")
_NUMBER = re.compile(r"(?<![\w.,-])(\d[\d,]*(?:\.\d+)?)(?![\w.-]*\d)(?!,\d)")
_MINIMUM = re.compile(r"^\s*(?:minimum|min\.?|at least|lowest)\b", re.I)
_MAXIMUM = re.compile(r"^\s*(?:maximum|max\.?|up to|at most|limit|cap)\b", re.I)
_REFERENCE = re.compile(
    r"\b(?:target|goal|budget|limit|quota|threshold|reorder point|minimum|maximum|cap|plan(?:ned)?)\b", re.I
)
_UP = re.compile(r"\b(?:meet|met|meets|reach\w*|hit|hits|achiev\w*|make|made|makes)\b", re.I)
_STRICTLY_UP = re.compile(r"\b(?:exceed\w*|beat|beats|above|over|more than|higher than|greater than)\b", re.I)
_DOWN = re.compile(r"\b(?:miss|missed|misses|below|under|short of|less than|lower than|fewer than)\b", re.I)
_WITHIN = re.compile(r"\b(?:within|stay\w*|kept|keep)\b", re.I)


def fields(sentence: str) -> list[tuple[str, str]]:
    """The `Label: value` fields of a quoted table row, or none when the sentence is not one."""
    parts = [part.strip() for part in sentence.strip().rstrip(".").split(";")]
    found = [(m.group(1).strip(), m.group(2).strip()) for part in parts if (m := _FIELD.match(part))]
    return found if len(found) == len(parts) >= 2 else []


def reading(question: str, sentence: str, siblings: Sequence[str] = ()) -> Reading | None:
    """What the row `sentence` says to the yes/no `question` ("other": it is another thing's row),
    or None when it is not a row or does not decide; `siblings` are the other rows of its table
    the reader has."""
    row = fields(sentence)
    if not row:
        return None
    if not _about(question, row):
        return "other"
    for decide in (_by_column, _by_limit, _by_reference):
        said = decide(question, row)
        if said is not None:
            return said
    return _by_listing(question, row, siblings)


def _about(question: str, row: list[tuple[str, str]]) -> bool:
    """The row is the one the question names: its first cell is the question's condition when
    that is a name ("on the Team plan"), and some value of it shares a word with the question."""
    key = row[0][1]
    conditions = CONDITION.findall(question)
    if conditions and _is_name(key) and not any(has_name(key, name) for name in conditions):
        return False
    asked = _stems(question)
    return any(asked & _stems(value) for _, value in row)


def _by_column(question: str, row: list[tuple[str, str]]) -> Reading | None:
    """The thing asked about stands in a column that says whether it may be ("Prohibited:
    Glyphosate and all other herbicides" for "Can I use glyphosate?" → no; "Allowed: Neem oil"
    → yes)."""
    asked = _stems(question)
    said: set[Reading] = set()
    for label, value in row:
        if not asked & _stems(value):
            continue
        if _FORBIDDEN.search(label):
            said.add("no")
        elif _PERMITTED.search(label):
            said.add("yes")
    return said.pop() if len(said) == 1 else None


_FORBIDDEN = re.compile(
    r"\b(?:prohibited|forbidden|banned|not allowed|not permitted|disallowed|excluded|not included"
    r"|not supported|never)\b",
    re.I,
)
_PERMITTED = re.compile(r"\b(?:allowed|permitted|included|supported|approved)\b", re.I)


def _by_limit(question: str, row: list[tuple[str, str]]) -> Reading | None:
    """The question's one amount against a minimum or maximum field ("Minimum order: 500")."""
    amounts = [_number(m.group(1)) for m in _NUMBER.finditer(question)]
    if len(amounts) != 1:
        return None
    for label, value in row:
        limit = _leading_number(value)
        if limit is None:
            continue
        if _MINIMUM.match(label):
            return "yes" if amounts[0] >= limit else "no"
        if _MAXIMUM.match(label):
            return "yes" if amounts[0] <= limit else "no"
    return None


def _by_reference(question: str, row: list[tuple[str, str]]) -> Reading | None:
    """The field the question names against the reference field it names: "Did press uptime
    meet its target in May?" with "Target: 92%; May: 78.5%"."""
    asked = _words(question)
    named = [
        (label, number)
        for label, value in row
        if (number := _leading_number(value)) is not None and _words(label) <= asked
    ]
    references = [number for label, number in named if _REFERENCE.search(label)]
    measured = [number for label, number in named if not _REFERENCE.search(label)]
    if len(references) != 1 or len(measured) != 1:
        return None
    value, reference = measured[0], references[0]
    if _STRICTLY_UP.search(question):
        return "yes" if value > reference else "no"
    if _DOWN.search(question):
        return "yes" if value < reference else "no"
    if _WITHIN.search(question):
        return "yes" if value <= reference else "no"
    if _UP.search(question):
        return "yes" if value >= reference else "no"
    return None


def _by_listing(question: str, row: list[tuple[str, str]], siblings: Sequence[str]) -> Reading | None:
    """The row of the question's condition lists what it asks about, or another row of the same
    table lists it where this one does not."""
    conditions = CONDITION.findall(question)
    if not conditions:
        return None
    asked = [n for n in names(question) if not any(has_name(n, c) or has_name(c, n) for c in conditions)]
    if not asked:
        return None
    text = " ".join(value for _, value in row)
    if all(has_name(text, name) for name in asked):
        return "yes"
    listed_elsewhere = any(
        fields(other) and all(has_name(other, name) for name in asked) for other in siblings if other != text
    )
    return "no" if listed_elsewhere else None


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _stems(text: str) -> set[str]:
    """Its words and codes ("MS-300"), stemmed, without stopwords or bare numbers."""
    tokens = (t.lower() for t in _TOKEN.findall(text))
    return {stem(t) for t in tokens if t not in STOPWORDS and not t.isdigit() and (len(t) > 2 or "-" in t)}


def _is_name(value: str) -> bool:
    return bool(re.fullmatch(r"[A-Z][\w-]*(?:\s+[A-Z][\w-]*){0,2}", value.strip()))


def _leading_number(value: str) -> float | None:
    m = re.match(r"\s*[$€£]?\s*(\d[\d,]*(?:\.\d+)?)", value)
    return _number(m.group(1)) if m else None


def _number(text: str) -> float:
    return float(text.replace(",", ""))

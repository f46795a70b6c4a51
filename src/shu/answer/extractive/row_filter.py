"""The rows of a table a list question's condition keeps: "Which jobs in the maintenance log cost
more than 1,000 GBP?" keeps the rows whose `Cost (GBP)` is over 1,000; "Which papers do we buy
from Nordic Fibre?" keeps the rows whose `Supplier` is Nordic Fibre. A question that sets no
condition on the table keeps nothing here (its whole column answers it)."""

from __future__ import annotations

import re
from collections.abc import Callable

from shu.answer.extractive.lists import Row, Table
from shu.months import MONTHS
from shu.text import content_words, stem

_COMPARED = re.compile(
    r"\b(more than|over|above|greater than|higher than|exceeding|at least|less than|under|below|fewer than"
    r"|lower than|at most|up to)\s+[$€£]?\s*(\d[\d,]*(?:\.\d+)?)",
    re.I,
)
_NAME = re.compile(r"\b[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*")
_NUMBER = re.compile(r"^\s*[$€£]?\s*(-?\d[\d,]*(?:\.\d+)?)\s*%?\s*$")
_Keep = Callable[[Row], bool]
_DATES = frozenset(MONTHS) | frozenset(
    "monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday".split()
)


def kept_rows(question: str, table: Table, about: str = "") -> list[Row] | None:
    """The rows the question's condition keeps (in the table's order), or None when it sets no
    condition this table can check, or the condition keeps every row or none; `about`: what the
    table is about (its document's title and heading)."""
    keep = _by_amount(question, table)
    if keep is None:
        keep = _by_name(question, table, about)
    if keep is None:
        return None
    kept = [row for row in table.rows if keep(row)]
    return kept if 0 < len(kept) < len(table.rows) else None


def _by_amount(question: str, table: Table) -> _Keep | None:
    """ "cost more than 1,000 GBP": the one numeric column the question's words name."""
    compared = _COMPARED.search(question)
    if compared is None:
        return None
    word, limit = compared.group(1).lower(), float(compared.group(2).replace(",", ""))
    asked = {stem(w) for w in content_words(question)}
    columns = [
        i
        for i, name in enumerate(table.header)
        if asked & {stem(w) for w in content_words(name)} and _numeric(table, i)
    ]
    if len(columns) != 1:
        return None
    column = columns[0]

    def keep(row: Row) -> bool:
        value = _value(row, column)
        return value is not None and _holds(word, value, limit)

    return keep


def _by_name(question: str, table: Table, about: str) -> _Keep | None:
    """ "from Nordic Fibre": a name of the question that one column holds in some rows (when
    several mention it, the one column where it is a whole cell: the rows' key); never a
    month or a day ("the 20 May meeting" names the meeting, not the rows due in May), nor a name
    of what the table is about (its document's title, its heading)."""
    first = re.match(r"\s*\S+", question)
    names = [m.group(0) for m in _NAME.finditer(question, first.end() if first else 0)]
    for name in (n for n in names if n.lower() not in _DATES and not _names(about, n)):
        columns = {i for row in table.rows for i, cell in enumerate(row.cells) if _names(cell, name)}
        if len(columns) > 1:  # "Team" keys a row in Plan and is mentioned in Channels ("All Team channels")
            columns = {
                i
                for row in table.rows
                for i, cell in enumerate(row.cells)
                if cell.strip().casefold() == name.casefold()
            }
        if len(columns) == 1:
            return _holding(columns.pop(), name)
    return None


def _holding(column: int, name: str) -> _Keep:
    return lambda row: column < len(row.cells) and _names(row.cells[column], name)


def _names(cell: str, name: str) -> bool:
    return bool(re.search(rf"(?<!\w){re.escape(name)}(?!\w)", cell, re.I))


def _numeric(table: Table, column: int) -> bool:
    values = [_value(row, column) for row in table.rows]
    return sum(v is not None for v in values) >= max(2, len(values) // 2)


def _value(row: Row, column: int) -> float | None:
    if column >= len(row.cells):
        return None
    found = _NUMBER.match(row.cells[column])
    return float(found.group(1).replace(",", "")) if found else None


def _holds(word: str, value: float, limit: float) -> bool:
    if word in ("more than", "over", "above", "greater than", "higher than", "exceeding"):
        return value > limit
    if word == "at least":
        return value >= limit
    if word in ("less than", "under", "below", "fewer than", "lower than"):
        return value < limit
    return value <= limit  # at most, up to

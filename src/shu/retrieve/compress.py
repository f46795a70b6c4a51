"""A section longer than the context has room for is summarised extractively, not cut: the
sentences (a table's, a list's lines) that share most words with the question are kept, in the
order they were written, up to the budget, and each gap is marked "…". The first sentence keeps a
small head start (it often says what the section is about); a table keeps its header. A section
with a code block is cut at a word as before (a code block cut short is closed by the caller):
its lines mean nothing apart."""

from __future__ import annotations

import math
from dataclasses import dataclass

from shu.text import content_words, count_tokens, split_sentences, stem

GAP = "…"
_FIRST_BONUS = 0.15


@dataclass(frozen=True)
class _Unit:
    text: str
    line: int
    """the line of the text it is on (units of one line are joined with a space)"""
    header: bool = False
    """a table's header or rule line: kept whenever a row of the table is"""
    table: int = -1
    """which table it belongs to (-1: none)"""


def compressed(text: str, tokens: int, question: str) -> str | None:
    """The text summarised to at most `tokens` tokens for the question; None when it cannot be
    (a code block, or not one sentence fits): the caller cuts it at a word instead."""
    if "```" in text or "~~~" in text:
        return None
    units = _units(text)
    if len(units) < 2:
        return None
    asked = {stem(w) for w in content_words(question)}
    headed = [_with_header(units, unit) for unit in units]
    order = sorted(range(len(units)), key=lambda i: (-_score(units[i], headed[i], asked, i), i))
    kept: set[int] = set()
    used = 0
    for i in order:
        unit = units[i]
        if unit.header:
            continue  # kept with a row of its table, never alone
        wanted = {i} | _headers(units, unit)
        extra = [j for j in sorted(wanted) if j not in kept]
        cost = sum(count_tokens(units[j].text) + 1 for j in extra)
        if used + cost + 2 > tokens:
            continue
        kept.update(extra)
        used += cost
    if not kept:
        return None
    summary = _joined(units, kept)
    return summary if count_tokens(summary) <= tokens else None


def _units(text: str) -> list[_Unit]:
    units: list[_Unit] = []
    table = -1
    in_table = False
    for number, line in enumerate(text.split("\n")):
        stripped = line.strip()
        if not stripped:
            in_table = False
            continue
        if stripped.startswith("|"):
            if not in_table:
                table, in_table = table + 1, True
                units.append(_Unit(stripped, number, header=True, table=table))
                continue
            rule = set(stripped) <= set("|:- ")
            units.append(_Unit(stripped, number, header=rule, table=table))
            continue
        in_table = False
        if stripped.startswith(("#", "-", "*", "+")) or (stripped[:1].isdigit() and ". " in stripped[:5]):
            units.append(_Unit(stripped, number))
            continue
        units += [_Unit(sentence, number) for sentence in split_sentences(stripped)]
    return units


def _with_header(units: list[_Unit], unit: _Unit) -> str:
    """A unit's words as a reader takes them: a table row with its header's."""
    header = " ".join(units[i].text for i in sorted(_headers(units, unit)))
    return f"{header} {unit.text}" if header else unit.text


def _score(unit: _Unit, words: str, asked: set[str], index: int) -> float:
    if unit.header:
        return -1.0  # kept with its rows, never for itself
    held = {stem(w) for w in content_words(words)}
    shared = len(held & asked) / math.sqrt(len(held)) if held else 0.0
    return shared + (_FIRST_BONUS if index == 0 else 0.0)


def _headers(units: list[_Unit], unit: _Unit) -> set[int]:
    if unit.table < 0:
        return set()
    return {i for i, u in enumerate(units) if u.table == unit.table and u.header}


def _joined(units: list[_Unit], kept: set[int]) -> str:
    """The kept units as written: units of one line on one line, each run of left-out units a
    "…" (inside the line when it was inside one, else on its own line)."""
    lines: list[str] = []
    line_of = -2
    gap_line: int | None = None
    for i, unit in enumerate(units):
        if i not in kept:
            gap_line = unit.line if gap_line is None else gap_line
            continue
        inline = gap_line is not None and gap_line == unit.line
        if gap_line is not None:
            if lines and line_of == unit.line:
                lines[-1] += f" {GAP}"
            else:
                lines.append(GAP)
        if lines and (line_of == unit.line or (inline and lines[-1] == GAP)):
            lines[-1] += f" {unit.text}"
        else:
            lines.append(unit.text)
        line_of = unit.line
        gap_line = None
    if gap_line is not None:
        if lines and gap_line == line_of:
            lines[-1] += f" {GAP}"
        else:
            lines.append(GAP)
    return "\n".join(lines)

"""The lists a document holds, each with the words that say what its items are: the items
under a label ("Problems found:" then 1., 2., 3.), a table's column under its header and the
section's heading ("Power tools (sign-out required)" › "Tool"), and the headings under a
heading ("Alert types" › "Threshold alert", "Change alert", …).

A question asking for several things ("Which power tools need signing out?", "What kinds of
alerts can I set up?") is answered with every item of the list whose label shares most of its
words, not with the few sentences that resemble it most."""

from __future__ import annotations

import re
from dataclasses import dataclass

from shu.text import content_words, stem
from shu.types import ContextSection

_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?(.+)$")
_LABEL = re.compile(r"^\s*(?:\*\*)?([^|:]{2,60}?)(?:\*\*)?:\s*(?:\*\*)?\s*$")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_MARKUP = re.compile(r"\*\*|__|`|\*(?=\w)|(?<=\w)\*")
_SYNONYMS = {"kind": "type", "sort": "type", "typ": "type", "categori": "type", "category": "type"}
"""Words a question and a heading use for the same thing ("kinds of alerts", "Alert types")."""
_GENERIC = frozenset({"which", "what", "list", "name", "all", "everi", "there"})
MAX_ITEMS = 15


@dataclass(frozen=True)
class Row:
    cells: tuple[str, ...]
    section: ContextSection
    """The section the row stands in (a long table's `Rows 5–8`)."""


@dataclass(frozen=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[Row, ...]


@dataclass(frozen=True)
class Listing:
    heading: str
    """The section heading (or label) the items stand under."""
    header: str
    """A table column's header ("" for items and headings)."""
    items: tuple[str, ...]
    section: ContextSection
    more: tuple[ContextSection, ...] = ()
    """The sections the rest of the items stand in (a long table's `Rows 5–8`, …)."""
    table: Table | None = None
    """For a table's column: the whole table it stands in."""

    @property
    def sections(self) -> tuple[ContextSection, ...]:
        return (self.section, *self.more)


def listings(chunks: list[ContextSection]) -> list[Listing]:
    """Every list in `chunks` (a document's sections, in order): item runs, table columns and
    the headings under each heading."""
    found: list[Listing] = []
    for chunk in chunks:
        found += _item_runs(chunk) + _table_columns(chunk)
    return _whole_tables(found) + _child_headings(chunks)


def _whole_tables(found: list[Listing]) -> list[Listing]:
    """A long table is split into `Rows 1–4`, `Rows 5–8`, … sections, each repeating the header:
    each column is one list over all of them, under the heading the table stands under, each
    value once ("Which machines appear in the maintenance log?")."""
    joined: dict[tuple[str, str], list[Listing]] = {}
    kept: list[Listing | tuple[str, str]] = []
    for listing in found:
        parent, _, last = listing.section.section_path.rpartition(" > ")
        if listing.header and parent and _ROWS.match(last):
            key = (parent, listing.header)
            if key not in joined:
                kept.append(key)
            joined.setdefault(key, []).append(listing)
        else:
            kept.append(listing)
    whole: list[Listing] = []
    for item in kept:
        if isinstance(item, Listing):
            whole.append(item)
            continue
        parts = joined[item]
        items = tuple(dict.fromkeys(cell for part in parts for cell in part.items))
        more: list[ContextSection] = []
        for part in parts[1:]:
            if all(part.section is not seen for seen in (parts[0].section, *more)):
                more.append(part.section)
        tables = [part.table for part in parts if part.table is not None]
        rows = tuple(row for table in tables for row in table.rows)
        table = Table(tables[0].header, rows) if tables else None
        whole.append(Listing(_heading(item[0]), item[1], items, parts[0].section, tuple(more), table))
    return whole


_ROWS = re.compile(r"^Rows \d+(?:[–-]\d+)?$")


def best_listing(question: str, found: list[Listing]) -> Listing | None:
    """The list whose heading and column header share most of the question's words (a
    header's word counts twice: "allowed" picks the Allowed column); None when no list's label
    shares any, or every such list has fewer than two items."""
    best: tuple[float, Listing] | None = None
    for listing in found:
        score = label_score(question, listing)
        if score > 0 and (best is None or score > best[0]):
            best = (score, listing)
    return best[1] if best else None


def label_score(question: str, listing: Listing) -> float:
    """The question's words in the list's heading and column header, and half a point for each
    in the header (which column of a table: "allowed" picks "Allowed (organic)"); 0 for a list
    of fewer than two items."""
    if len(listing.items) < 2:
        return 0.0
    asked = _stems(question) - _GENERIC
    header = asked & _stems(listing.header)
    return len(asked & (_stems(listing.heading) | header)) + 0.5 * len(header)


def _stems(text: str) -> set[str]:
    found = {stem(w) for w in content_words(text)}
    return {_SYNONYMS.get(s, s) for s in found}


def _item_runs(chunk: ContextSection) -> list[Listing]:
    """Runs of list items (blank lines between them allowed), under the label line before
    them ("Problems found:") or else the section's heading."""
    found: list[Listing] = []
    heading = _heading(chunk.section_path)
    label, items = heading, []
    for line in chunk.text.splitlines():
        item = _ITEM.match(line)
        if item:
            items.append(_clean(item.group(1)))
            continue
        if not line.strip():
            continue
        if items:
            found.append(Listing(label, "", tuple(items), chunk))
            items = []
        named = _LABEL.match(line)
        label = f"{heading} {named.group(1)}" if named else heading
    if items:
        found.append(Listing(label, "", tuple(items), chunk))
    return found


def _table_columns(chunk: ContextSection) -> list[Listing]:
    """Each column of each table, under the section's heading and the column's header."""
    found: list[Listing] = []
    heading = _heading(chunk.section_path)
    for block in re.split(r"\n\s*\n", chunk.text):
        lines = [line for line in block.splitlines() if line.strip()]
        if len(lines) < 3 or not all(line.lstrip().startswith("|") for line in lines):
            continue
        rows = [_cells(line) for line in lines if not _TABLE_RULE.match(line.strip())]
        header, body = rows[0], rows[1:]
        table = Table(tuple(header), tuple(Row(tuple(_clean(c) for c in row), chunk) for row in body))
        for column, name in enumerate(header):
            cells = tuple(_clean(row[column]) for row in body if column < len(row) and row[column].strip())
            found.append(Listing(heading, name, cells, chunk, table=table))
    return found


def _child_headings(chunks: list[ContextSection]) -> list[Listing]:
    """The headings directly under each heading ("Alert types" › "Threshold alert", …)."""
    children: dict[str, list[str]] = {}
    first: dict[str, ContextSection] = {}
    for chunk in chunks:
        parts = chunk.section_path.split(" > ")
        if len(parts) < 3:  # under the title: the document's sections are no list
            continue
        parent = " > ".join(parts[:-1])
        if parts[-1] not in children.setdefault(parent, []):
            children[parent].append(parts[-1])
            first.setdefault(parent, chunk)
    return [Listing(_heading(parent), "", tuple(names), first[parent]) for parent, names in children.items()]


def _heading(section_path: str) -> str:
    parts = section_path.split(" > ")
    return parts[-1] if len(parts) > 1 else ""


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())

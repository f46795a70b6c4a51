"""Page furniture of a paged document (a PDF, read from its text layer or by OCR): the running
headers and footers and the page numbers printed on every page. Read as text they land inside
sentences ("…called for that Page 2 of 3 City Garden Co-op - Bylaws purpose…"), so they are found
and left out before the pages are joined.

A line is furniture when, with its digits normalised ("Page 2 of 3" → "page # of #"), it stands
among the first or last `EDGE_LINES` lines of at least `MIN_SHARE` of the pages, and of at least
two, in a document of at least `MIN_PAGES` pages: a line that repeats elsewhere (a table header
on each page, a refrain) is kept, and so is any line of a one- or two-page document but an
explicit "Page N" naming its own page. The first page's top lines are kept even when they repeat
(they open the document: a title, a table's header), as they can never fall inside a sentence."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence

EDGE_LINES = 3
MAX_CHARS = 120
"""A longer line is text, not a header or a footer."""
MIN_PAGES = 3
MIN_SHARE = 0.6
_DIGITS = re.compile(r"\d+")
_PAGE_NUMBER = re.compile(
    r"^(?:page|p\.)\s*(?P<a>\d+)(?:\s*(?:of|/)\s*\d+)?$|^(?P<b>\d+)\s*(?:of|/)\s*\d+$|^[-–—]\s*(?P<c>\d+)\s*[-–—]$",
    re.IGNORECASE,
)


def furniture(pages: Sequence[Sequence[str]]) -> list[set[int]]:
    """For each page (its lines of text, blank ones included), the indexes of its furniture lines."""
    edges = [_edges(lines) for lines in pages]
    counts: Counter[tuple[str, str]] = Counter()
    for top, bottom in edges:
        counts.update({("top", key) for key in top.values()} | {("bottom", key) for key in bottom.values()})
    needed = max(2.0, MIN_SHARE * len(pages))
    repeated = {edge_key for edge_key, count in counts.items() if count >= needed}
    if len(pages) < MIN_PAGES:
        repeated = set()
    dropped: list[set[int]] = []
    for number, (lines, (top, bottom)) in enumerate(zip(pages, edges, strict=True), start=1):
        drop = {i for i, key in top.items() if ("top", key) in repeated}
        drop |= {i for i, key in bottom.items() if ("bottom", key) in repeated}
        if number == 1:
            drop -= set(top)
        drop |= {i for i in (*top, *bottom) if _names_page(lines[i], number)}
        dropped.append(drop)
    return dropped


def _edges(lines: Sequence[str]) -> tuple[dict[int, str], dict[int, str]]:
    """index → normalised text of the page's first and of its last `EDGE_LINES` non-blank lines."""
    filled = [i for i, line in enumerate(lines) if line.strip() and len(line.strip()) <= MAX_CHARS]
    return (
        {i: _key(lines[i]) for i in filled[:EDGE_LINES]},
        {i: _key(lines[i]) for i in filled[-EDGE_LINES:]},
    )


def _key(line: str) -> str:
    return _DIGITS.sub("#", " ".join(line.split())).casefold()


def _names_page(line: str, number: int) -> bool:
    found = _PAGE_NUMBER.match(" ".join(line.split()))
    return found is not None and int(found.group("a") or found.group("b") or found.group("c")) == number

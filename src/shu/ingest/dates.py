"""The date a converted document is cited with (docs/design/personas-and-storage.md#document-date).

A citation reads "Falcon Roadmap 2026 (2026-05-04)": the date tells a reader how current the
words are, so it must be the date of the words, not of the software that saved them. The first
of these that gives one wins:

1. what the content states: a date the format carries as content (frontmatter `date`, an
   e-mail's Date, an event's start, an e-book's publication date, a date on a deck's title
   slide), then a labelled line near the top of the body (`Date: 2026-05-04`,
   `**Last updated:** 4 May 2026`, `Published 28 April 2026`, a `| Date | … |` table row; of
   several, the latest, so an updated document is cited with its update), then a full date in
   the title ("Minutes, 18 April 2026");
2. a date in the file's name (`2026-05-20-operations-minutes.docx`): a person wrote it;
3. what the file says about itself: an office file's last save (`modified`), its `created`
   only when it has no `modified` (a file made from a template keeps the template's creation
   date, years old, while every save updates `modified`), and never a date that an office
   library's blank template carries (`shu.ingest.convert.office`);
4. none: a document with no date says nothing rather than something false.

The file system's modification time is not used: copying a folder, checking it out of git or
uploading a file sets it to the day of the copy, so it would date every undated document to the
day it was ingested, differently on every machine, and a re-conversion would change it.

Year-only dates ("Roadmap 2026") and dates without a year ("4 April") are not dates here, and
neither are day/month orders a reader cannot tell apart (03/04/2026)."""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from shu.ingest.convert.base import Converted

TOP_LINES = 15
"""Non-blank lines at the top of a body that may state its date."""
_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sept", "sep"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATES = (
    re.compile(r"(?<![\d.])(?P<y>\d{4})(?P<sep>[-/])(?P<m>\d{1,2})(?P=sep)(?P<d>\d{1,2})(?![\d/])"),
    re.compile(
        rf"(?<!\d)(?P<d>\d{{1,2}})(?:st|nd|rd|th)?\.?\s+(?P<m>{_MONTH})\.?,?\s+(?P<y>\d{{4}})(?!\d)", re.I
    ),
    re.compile(rf"\b(?P<m>{_MONTH})\.?\s+(?P<d>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<y>\d{{4}})(?!\d)", re.I),
)
"""2026-05-04 (or 2026/05/04), 4 May 2026, May 4th, 2026: the forms whose order is unambiguous."""
_WEEKDAY = re.compile(r"^(?:mon|tue|wed|thu|fri|sat|sun)[a-z]*\.?,?\s+", re.I)
_LABEL = re.compile(
    r"^(?:date|dated|updated|last[ -]updated|last[ -]update|last[ -]modified|last[ -]revised|revised"
    r"|published|posted)(?:\s+on)?\s*[:\-–—]?\s*",
    re.I,
)
"""A line that states its document's date: `Date:`, `Updated:`, `Published …`."""
_DECORATION = re.compile(r"^(?:[-*+>]\s+|\d+\.\s+)?[*_]{0,2}")
_DATE_IN_NAME = re.compile(r"(?<!\d)(\d{4}-\d{2}(?:-\d{2})?)(?!\d)")


def settle_date(converted: Converted, path: Path) -> None:
    """Set `converted.meta["date"]` by the rule above, unless the format already gave one."""
    if converted.meta.get("date"):
        return
    title = converted.title or _first_heading(converted.markdown)
    chosen = (
        stated_date(converted.markdown)
        or (date_in_text(title) if title else None)
        or name_date(path)
        or converted.file_date
    )
    if chosen:
        converted.meta["date"] = chosen


def stated_date(markdown: str) -> str | None:
    """The latest date that a labelled line near the top of `markdown` states, as ISO."""
    found = [d for d in (_labelled(line) for line in _top_lines(markdown)) if d is not None]
    return max(found).isoformat() if found else None


def date_in_text(text: str) -> str | None:
    """The first full date (day, month and year) written in `text`, as ISO."""
    found = find_date(text)
    return found[0].isoformat() if found else None


def find_date(text: str, at_start: bool = False) -> tuple[date, int] | None:
    """The full date written first in `text` (only one that opens it, if `at_start`), and
    where its writing ends."""
    found: list[tuple[int, int, date]] = []
    for pattern in _DATES:
        for match in pattern.finditer(text):
            if at_start and match.start() > 0:
                break
            valid = _valid(match)
            if valid is not None:
                found.append((match.start(), match.end(), valid))
                break
    if not found:
        return None
    _, end, first = min(found)
    return first, end


def name_date(path: Path) -> str | None:
    """`2026-05-20` or `2026-05` in a file's name."""
    match = _DATE_IN_NAME.search(path.stem)
    return match.group(1) if match else None


def _top_lines(markdown: str) -> list[str]:
    lines = (line.strip() for line in markdown.split("\n"))
    return [line for line in lines if line][:TOP_LINES]


def _labelled(line: str) -> date | None:
    """The date of `Date: 2026-05-04`, `- **Updated:** 4 May 2026`, `| Date | Tuesday, 17 March
    2026 |`: the date must open what follows the label (after a weekday), so `Date: TBD, not
    before 4 May 2026` states none."""
    if line.startswith("|"):
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        if len(cells) != 2:
            return None
        line = f"{cells[0]}: {cells[1]}"
    line = _DECORATION.sub("", line)
    label = _LABEL.match(line)
    if label is None:
        return None
    rest = _WEEKDAY.sub("", line[label.end() :].lstrip("*_ :"))
    found = find_date(rest, at_start=True)
    return found[0] if found else None


def _valid(match: re.Match[str]) -> date | None:
    month = match.group("m")
    number = int(month) if month.isdigit() else _MONTHS[month.lower()]
    try:
        found = date(int(match.group("y")), number, int(match.group("d")))
    except ValueError:  # 2026-02-30, month 13
        return None
    return found if 1900 <= found.year <= 2200 else None


def _first_heading(markdown: str) -> str | None:
    found = re.search(r"^# (.+)$", markdown, re.M)
    return found.group(1).strip() if found else None

"""What the extractive reader reads as sentences: the sentences of prose, the items of lists,
and table rows spelled out as `Header: cell; …`, never quoted text nor the header lines of a
message quoted in a thread."""

from __future__ import annotations

import re
from collections.abc import Iterable

from shu.text import split_sentences

_FIELD = re.compile(r"^[A-Z][\w ]{0,29}:\s+\S+\s+\S")
"""`Where: Tool shed`: a labelled value, kept however short."""
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_HEADING = re.compile(r"^#{1,6}(?:\s|$)")
_POINTER = re.compile(
    r"^(?:(?:for|read)\s+(?:more|further|the)?\s*(?:details|information|more)\b[^,.]{0,40},\s*)?"
    r"(?:please\s+)?(?:see(?!\s+you\b)|refer to)\s+[^.;:]{1,80}\.?$",
    re.I,
)
"""A sentence that only points elsewhere ("See API Rate Limits and Error Codes."): it answers
nothing, whatever words of the question its title shares."""
_MARKUP = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+|\*\*|__|`")

_QUOTED = re.compile(
    r"^\s*(?:>(?!\s*(?:\*\*|\[!)?\s*(?:note|tip|important|warning|caution)\b)|on .{4,80} wrote:\s*$)", re.I
)
"""Quoted text (a message or an example someone wrote, not what the document says; a `> Note:`
callout is the document's own) and the "On … wrote:" line before it."""
_MAIL_HEADER = re.compile(
    r"^\s*(?:-{3,}\s*(?:original|forwarded) message|(?:from|sent|to|cc|bcc|date|subject|reply-to)\s*:\s)",
    re.I,
)
_MAIL_START = re.compile(r"^\s*(?:-{3,}\s*(?:original|forwarded) message|from\s*:\s.*@)", re.I)


def candidate_sentences(text: str) -> list[str]:
    """Sentences of prose, items of lists, and table rows spelled out as `Header: cell; …`;
    never quoted text, "On … wrote:", nor the header lines of a message quoted in a thread (where
    a message came from, not what it says)."""
    found: list[str] = []
    for block in _blocks(text):
        lines = [line for line in block.split("\n") if line.strip() and not _QUOTED.match(line)]
        if any(_MAIL_START.match(line) for line in lines):
            lines = [line for line in lines if not _MAIL_HEADER.match(line)]
        if lines and all(line.lstrip().startswith("|") for line in lines):
            found.extend(row for row in _table_rows(lines) if len(row.split()) >= 2)
        elif len(lines) > 1 and all(_MARKUP.match(line) for line in lines[1:]):
            items = [_clean(line) for line in lines]  # an item ("Lena Park, support") is kept short
            found.extend(item for item in items if len(item.split()) >= 2)
        else:
            sentences = _with_short_fields(_clean(s) for s in split_sentences("\n".join(lines)))
            found.extend(s for s in sentences if len(s.split()) >= 4 or _FIELD.match(s))
    # a table's "#: 5; Action: …" is a row, not a heading
    return [s for s in found if not _HEADING.match(s) and not _POINTER.match(s)]


def _blocks(text: str) -> list[str]:
    """Paragraphs, and within one the run of a table's lines apart from the prose around it (a
    table with a sentence right under it is rows, then a sentence: never one long line of pipes)."""
    blocks: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        run: list[str] = []
        for line in paragraph.split("\n"):
            if run and line.lstrip().startswith("|") != run[-1].lstrip().startswith("|"):
                blocks.append("\n".join(run))
                run = []
            run.append(line)
        blocks.append("\n".join(run))
    return blocks


_SHORT_FIELD = re.compile(r"^[A-Z][\w ]{0,29}:\s*(?:\S+\s*){1,2}$")


def _with_short_fields(sentences: Iterable[str]) -> list[str]:
    """A field whose value is a word or two ("Decision: approved.") read with the sentence
    after it, which says what it was."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and _SHORT_FIELD.match(joined[-1]):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


def _table_rows(lines: list[str]) -> list[str]:
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
    header, rows = (
        cells[0],
        [row for row, line in zip(cells[1:], lines[1:], strict=True) if not _TABLE_RULE.match(line.strip())],
    )
    return [
        "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False) if c) for row in rows
    ]


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())

"""Heading-aware chunking: sections by Markdown heading, packed by token budget with overlap."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date

from shu.ingest.budget import OverBudget
from shu.markdown import FENCE, split_sections
from shu.relative_dates import with_dates
from shu.text import count_tokens, split_sentences
from shu.types import Chunk

_WORDS = re.compile(r"\S+")


@dataclass
class _Unit:
    text: str
    tokens: int
    new_paragraph: bool
    table_header: str | None = None
    """A table row's header and rule lines: a chunk that starts inside the table repeats them
    (a row without its header says nothing: "| Audit log retention | 90 days | 1 year |")."""


def chunk_document(
    doc_id: str,
    title: str,
    markdown: str,
    max_tokens: int,
    overlap: int,
    written: str | None = None,
    max_chunks: float = float("inf"),
) -> list[Chunk]:
    """`written`: the document's date (ISO); its chunks' relative dates are indexed as dates.
    A document making more than `max_chunks` (`ingest.max_chunks_per_file`) raises OverBudget
    as soon as it does: thousands of one-line sections would each be a chunk to embed."""
    day = written_day(written)
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for section in split_sections(markdown, root=title):
        for text in _pack(_units(section.text, max_tokens), max_tokens, overlap):
            if len(chunks) >= max_chunks:
                raise OverBudget(
                    f"over the budget: the document makes over {max_chunks:,.0f} chunks, "
                    "raise ingest.max_chunks_per_file to allow"
                )
            chunk_id = _chunk_id(doc_id, section.path, text, seen)
            chunks.append(
                Chunk(
                    id=chunk_id,
                    doc_id=doc_id,
                    ord=len(chunks),
                    section_path=section.path,
                    text=text,
                    index_text=index_text(title, section.path, text, day),
                    token_count=count_tokens(text),
                )
            )
    return chunks


def index_text(title: str, section_path: str, text: str, written: date | None = None) -> str:
    """What is embedded and keyword-indexed: where the chunk sits, then the chunk, with each
    relative date followed by the date it means when the document's day is known ("I went
    yesterday (7 May 2023)": a question about 7 May, or May 2023, finds it)."""
    header = section_path if section_path.startswith(title) else f"{title} > {section_path}"
    return f"{header}\n{with_dates(text, written) if written else text}"


def written_day(value: str | None) -> date | None:
    """The day an ISO date names (None for a month, a year or anything else)."""
    try:
        return date.fromisoformat(value[:10]) if value and len(value) >= 10 else None
    except ValueError:
        return None


def _units(text: str, max_tokens: int) -> list[_Unit]:
    """Sentences of prose paragraphs; lines of lists, tables and code; words if still too long."""
    units: list[_Unit] = []
    for paragraph in _paragraphs(text):
        first = True
        header = _table_header(paragraph)
        for index, piece in enumerate(_paragraph_pieces(paragraph, max_tokens)):
            for part in _split_words(piece, max_tokens):
                row_header = header if header and index >= 2 and part.lstrip().startswith("|") else None
                units.append(_Unit(part, count_tokens(part), first, row_header))
                first = False
    return units


def _table_header(paragraph: str) -> str | None:
    """The header and rule lines of a paragraph that is a pipe table."""
    lines = paragraph.split("\n")
    if len(lines) > 2 and lines[0].lstrip().startswith("|") and re.match(r"^\s*\|?\s*:?-{2,}", lines[1]):
        return "\n".join(lines[:2])
    return None


def _paragraphs(text: str) -> list[str]:
    paragraphs: list[str] = []
    current: list[str] = []
    in_fence = False
    for line in text.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        if not line.strip() and not in_fence:
            if current:
                paragraphs.append("\n".join(current))
                current = []
        else:
            current.append(line)
    if current:
        paragraphs.append("\n".join(current))
    return paragraphs


def _paragraph_pieces(paragraph: str, max_tokens: int) -> list[str]:
    if count_tokens(paragraph) <= max_tokens:
        return [paragraph]
    lines = paragraph.split("\n")
    if len(lines) > 1 and any(_is_structured(line) for line in lines):
        return lines
    return split_sentences(paragraph)


def _is_structured(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("-", "*", "|", "+", ">", "```", "~~~")) or bool(
        re.match(r"\d+[.)]", stripped)
    )


def _split_words(piece: str, max_tokens: int) -> list[str]:
    if count_tokens(piece) <= max_tokens:
        return [piece]
    parts: list[str] = []
    current: list[str] = []
    size = 0
    for word in _WORDS.findall(piece):
        tokens = count_tokens(word)
        if current and size + tokens > max_tokens:
            parts.append(" ".join(current))
            current, size = [], 0
        current.append(word)
        size += tokens
    if current:
        parts.append(" ".join(current))
    return parts


def _pack(units: list[_Unit], max_tokens: int, overlap: int) -> list[str]:
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    size = 0
    for unit in units:
        if current and size + unit.tokens > max_tokens:
            chunks.append(current)
            current = _overlap_tail(current, overlap, max_tokens - unit.tokens)
            if unit.table_header is not None:  # the rows go on under their header
                current = [u for u in current if u.table_header == unit.table_header]
                current.insert(0, _Unit(unit.table_header, count_tokens(unit.table_header), True))
            size = sum(u.tokens for u in current)
        current.append(unit)
        size += unit.tokens
    if current:
        chunks.append(current)
    return [_join(chunk) for chunk in chunks]


def _overlap_tail(units: list[_Unit], overlap: int, room: int) -> list[_Unit]:
    tail: list[_Unit] = []
    size = 0
    for unit in reversed(units):
        if size + unit.tokens > min(overlap, room):
            break
        tail.insert(0, unit)
        size += unit.tokens
    return tail


def _join(units: list[_Unit]) -> str:
    text = ""
    for index, unit in enumerate(units):
        if index == 0:
            text = unit.text
        elif unit.new_paragraph:
            text += "\n\n" + unit.text
        elif "\n" in unit.text or _is_structured(unit.text):
            text += "\n" + unit.text
        else:
            text += " " + unit.text
    return text.strip()


def _chunk_id(doc_id: str, path: str, text: str, seen: dict[str, int]) -> str:
    digest = hashlib.sha1(f"{path}\n{text}".encode()).hexdigest()[:12]
    count = seen.get(digest, 0)
    seen[digest] = count + 1
    return f"{doc_id}#{digest}" + (f"-{count + 1}" if count else "")

"""Heading-aware chunking: sections by Markdown heading, packed by token budget with overlap."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from datetime import date

from shu.fences import blocks, fenced_parts
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
    own_line: bool = False
    """Starts a line of its paragraph (a code block, or the line after one): never run on."""

    @property
    def lead_in(self) -> bool:
        """Introduces what follows ("Example payload:", "The steps are:")."""
        return self.text.rstrip().endswith(":") and self.table_header is None


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
    """Sentences of prose paragraphs; lines of lists and tables; words if still too long. A fenced
    code block is one unit with its newlines, or fenced parts of whole lines when over budget."""
    units: list[_Unit] = []
    for paragraph in _paragraphs(text):
        runs = blocks(paragraph) if count_tokens(paragraph) > max_tokens else [(paragraph, False)]
        for number, (run, fenced) in enumerate(runs):
            made = _code_units(run, max_tokens) if fenced else _prose_units(run, max_tokens)
            if made:
                made[0].new_paragraph = number == 0
                made[0].own_line = True
            units += made
    return units


def _code_units(block: str, max_tokens: int) -> list[_Unit]:
    return [_Unit(part, count_tokens(part), False, own_line=True) for part in fenced_parts(block, max_tokens)]


def _prose_units(text: str, max_tokens: int) -> list[_Unit]:
    units: list[_Unit] = []
    header = _table_header(text)
    for index, piece in enumerate(_paragraph_pieces(text, max_tokens)):
        for part in _split_words(piece, max_tokens):
            row_header = header if header and index >= 2 and part.lstrip().startswith("|") else None
            units.append(_Unit(part, count_tokens(part), False, row_header))
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
    carried = 0
    # how many of the first units of `current` repeat the chunk before (overlap, a table header)
    for unit in units:
        if current and size + unit.tokens > max_tokens:
            lead = _lead_in(current, carried, unit, max_tokens)
            done = current[: len(current) - len(lead)]
            chunks.append(done)
            room = max_tokens - unit.tokens - sum(u.tokens for u in lead)
            current = _overlap_tail(done, overlap, room)
            if unit.table_header is not None:  # the rows go on under their header
                current = [u for u in current if u.table_header == unit.table_header]
                current.insert(0, _Unit(unit.table_header, count_tokens(unit.table_header), True))
            carried = len(current)
            current += lead
            size = sum(u.tokens for u in current)
        current.append(unit)
        size += unit.tokens
    if current:
        chunks.append(current)
    return [_join(chunk) for chunk in chunks]


def _lead_in(current: list[_Unit], carried: int, following: _Unit, max_tokens: int) -> list[_Unit]:
    """The last unit of a full chunk when it introduces the unit that starts the next chunk
    ("Example payload:" before its code block): it goes to the next chunk with what it introduces,
    when the two fit together and something of the chunk stays."""
    last = current[-1]
    if (
        len(current) - carried > 1
        and last.lead_in
        and following.table_header is None
        and last.tokens + following.tokens <= max_tokens
    ):
        return [last]
    return []


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
        elif unit.own_line or "\n" in unit.text or _is_structured(unit.text):
            text += "\n" + unit.text
        else:
            text += " " + unit.text
    return text.strip()


def _chunk_id(doc_id: str, path: str, text: str, seen: dict[str, int]) -> str:
    digest = hashlib.sha1(f"{path}\n{text}".encode()).hexdigest()[:12]
    count = seen.get(digest, 0)
    seen[digest] = count + 1
    return f"{doc_id}#{digest}" + (f"-{count + 1}" if count else "")

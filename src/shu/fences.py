"""Fenced code blocks, kept whole in chunks and in the context: a block is one chunking unit,
its newlines kept; a block over the token budget is cut by lines into parts that are each a
fenced block of their own (the opening line, language and all, and the closing marker repeated),
never into words joined by spaces; a section cut short inside a block has the block closed."""

from __future__ import annotations

import re

from shu.markdown import FENCE
from shu.text import count_tokens, token_pieces

_MARKER = re.compile(r"^\s*(`{3,}|~{3,})")


def blocks(paragraph: str) -> list[tuple[str, bool]]:
    """The paragraph's runs of lines, each with whether it is a fenced code block (from its
    opening fence line to its closing one, or to the paragraph's end when it is not closed)."""
    found: list[tuple[str, bool]] = []
    current: list[str] = []
    marker: str | None = None
    for line in paragraph.split("\n"):
        opening = _MARKER.match(line)
        if marker is None and opening is not None:
            if current:
                found.append(("\n".join(current), False))
            current, marker = [line], opening.group(1)
        elif marker is not None:
            current.append(line)
            if _closes(line, marker):
                found.append(("\n".join(current), True))
                current, marker = [], None
        else:
            current.append(line)
    if current:
        found.append(("\n".join(current), marker is not None))
    return found


def _closes(line: str, marker: str) -> bool:
    stripped = line.strip()
    return bool(FENCE.match(line)) and set(stripped) == {marker[0]} and len(stripped) >= len(marker)


def fenced_parts(block: str, max_tokens: int) -> list[str]:
    """A fenced block whole when it fits `max_tokens`; else parts of whole lines (a line longer
    than a part can hold is cut at a space, or between tokens), each fenced as the block was."""
    if count_tokens(block) <= max_tokens:
        return [block]
    lines = block.split("\n")
    opening = lines[0]
    marker = _MARKER.match(opening)
    closed = len(lines) > 1 and marker is not None and _closes(lines[-1], marker.group(1))
    closing = lines[-1] if closed else (marker.group(1) if marker else "```")
    body = lines[1:-1] if closed else lines[1:]
    room = max(1, max_tokens - count_tokens(opening) - count_tokens(closing))
    parts: list[list[str]] = []
    current: list[str] = []
    size = 0
    for line in body:
        for piece in token_pieces(line, room) if count_tokens(line) > room else [line]:
            tokens = count_tokens(piece)
            if current and size + tokens > room:
                parts.append(current)
                current, size = [], 0
            current.append(piece.rstrip() if tokens else piece)
            size += tokens
    if current:
        parts.append(current)
    return ["\n".join([opening, *part, closing]) for part in parts]


def closed(text: str) -> str:
    """`text` with a fence it leaves open closed (a section cut short inside a code block)."""
    marker: str | None = None
    for line in text.split("\n"):
        opening = _MARKER.match(line)
        if marker is None and opening is not None:
            marker = opening.group(1)
        elif marker is not None and _closes(line, marker):
            marker = None
    return text if marker is None else f"{text}\n{marker}"

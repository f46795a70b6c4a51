"""Markdown structure every part reads the same way: sections by ATX heading, outside code
fences. Ingestion chunks them; enrichment profiles them."""

from __future__ import annotations

import re
from dataclasses import dataclass

_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Section:
    path: str
    text: str


def split_sections(markdown: str, root: str) -> list[Section]:
    """Split on ATX headings (not inside code fences). Text before any heading sits under `root`."""
    stack: list[tuple[int, str]] = []
    sections: list[Section] = []
    buffer: list[str] = []
    in_fence = False

    def flush() -> None:
        text = "\n".join(buffer).strip()
        if text:
            path = " > ".join(title for _, title in stack) or root
            sections.append(Section(path=path, text=text))
        buffer.clear()

    for line in markdown.split("\n"):
        if FENCE.match(line):
            in_fence = not in_fence
        heading = None if in_fence else _HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1))
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, _clean_heading(heading.group(2))))
        else:
            buffer.append(line)
    flush()
    return sections


def _clean_heading(text: str) -> str:
    text = re.sub(r"[*_`]+", "", text)
    return " ".join(text.split())

"""Markdown stays Markdown; frontmatter already in the file is kept as metadata."""

from __future__ import annotations

from pathlib import Path

from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text
from shu.ingest.frontmatter import split_frontmatter


def convert(data: bytes, path: Path) -> Converted:
    text, encoding = decode_text(data)
    meta, body = split_frontmatter(text)
    warnings = [] if encoding.startswith("utf") else [f"decoded as {encoding}"]
    title = meta.pop("title", None)
    return Converted(markdown=body, title=str(title) if title else None, meta=meta, warnings=warnings)

"""Dispatch a raw file to its converter by suffix; every converter returns `Converted`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, SkipDocument


@dataclass
class Converted:
    """Markdown body plus whatever metadata the format made evident."""

    markdown: str
    title: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)


def _converters() -> dict[str, Callable[[bytes, Path], Converted]]:
    from shu.ingest.convert import docx, html, markdown, pdf, text

    return {
        ".md": markdown.convert,
        ".markdown": markdown.convert,
        ".txt": text.convert,
        ".text": text.convert,
        ".html": html.convert,
        ".htm": html.convert,
        ".pdf": pdf.convert,
        ".docx": docx.convert,
    }


SUPPORTED_SUFFIXES = frozenset({".md", ".markdown", ".txt", ".text", ".html", ".htm", ".pdf", ".docx"})


def convert_file(path: Path, data: bytes) -> Converted:
    """Convert one raw file's bytes. Raises DocumentError (bad file) or SkipDocument."""
    suffix = path.suffix.lower()
    converter = _converters().get(suffix)
    if converter is None:
        raise SkipDocument(f"unsupported file type {suffix or '(none)'}")
    if not data.strip():
        raise SkipDocument("empty file")
    try:
        converted = converter(data, path)
    except RecursionError as exc:  # deeply nested markup exhausts a recursive parser
        raise DocumentError(f"{suffix[1:].upper()} is nested too deeply to convert") from exc
    if not converted.markdown.strip():
        raise SkipDocument("no text could be extracted")
    return converted

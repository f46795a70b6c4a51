"""Dispatch a raw file to its converter by suffix; every converter returns `Converted`."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, SkipDocument
from shu.ingest.budget import current
from shu.ingest.dates import settle_date


@dataclass
class Converted:
    """Markdown body plus whatever metadata the format made evident. A file that holds several
    documents (a mailbox, a message with attachments) converts to several, each with its own
    `doc_id`; one with no `doc_id` is named after its file."""

    markdown: str
    title: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    doc_id: str | None = None
    skipped: list[str] = field(default_factory=list)
    """Parts of the file left out while the rest converts (a mailbox's message with no text),
    each with its reason."""
    file_date: str | None = None
    """The date the file says about itself (an office file's last save): the document's date
    only when its content and its file name state none (`shu.ingest.dates`)."""


Converter = Callable[[bytes, Path], "Converted | list[Converted]"]


CONVERTERS: dict[str, str] = {
    ".md": "markdown:convert",
    ".markdown": "markdown:convert",
    ".txt": "thread:convert",
    ".text": "thread:convert",
    ".html": "html:convert",
    ".htm": "html:convert",
    ".pdf": "pdf:convert",
    ".docx": "docx:convert",
    ".eml": "mail:convert_eml",
    ".mbox": "mail:convert_mbox",
    ".msg": "mail:convert_msg",
    ".ics": "ics:convert",
    ".pptx": "slides:convert",
    ".xlsx": "sheets:convert_xlsx",
    ".csv": "sheets:convert_csv",
    ".epub": "epub:convert",
    ".json": "chat:convert_json",
    ".jsonl": "chat:convert_jsonl",
    ".png": "image:convert",
    ".jpg": "image:convert",
    ".jpeg": "image:convert",
    ".tif": "image:convert",
    ".tiff": "image:convert",
}
"""suffix → `module:function` in `shu.ingest.convert`, imported only when a file needs it."""

SUPPORTED_SUFFIXES = frozenset(CONVERTERS)


def _converter(suffix: str) -> Converter | None:
    named = CONVERTERS.get(suffix)
    if named is None:
        return None
    module, function = named.split(":")
    converter: Converter = getattr(importlib.import_module(f"shu.ingest.convert.{module}"), function)
    return converter


def convert_file(path: Path, data: bytes) -> Converted:
    """Convert one raw file's bytes to its (first) document."""
    return convert_documents(path, data)[0]


def convert_documents(path: Path, data: bytes) -> list[Converted]:
    """Convert one raw file's bytes to its documents (one, or several for a file that holds
    several). Raises DocumentError (bad file) or SkipDocument."""
    suffix = path.suffix.lower()
    converter = _converter(suffix)
    if converter is None:
        raise SkipDocument(f"unsupported file type {suffix or '(none)'}")
    if not data.strip():
        raise SkipDocument("empty file")
    try:
        made = converter(data, path)
    except RecursionError as exc:  # deeply nested markup exhausts a recursive parser
        raise DocumentError(f"{suffix[1:].upper()} is nested too deeply to convert") from exc
    parts = [p for p in (made if isinstance(made, list) else [made]) if p.markdown.strip()]
    if not parts:
        raise SkipDocument("no text could be extracted")
    for part in parts:
        settle_date(part, path)
    current().settle(len(parts), sum(len(p.markdown.encode()) for p in parts))
    return parts

"""A RAG Markdown file → a `Document` (frontmatter) and its body."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert.decode import decode_text
from shu.ingest.files import sha256
from shu.ingest.frontmatter import as_str_list, split_frontmatter
from shu.ingest.personas import SLUG
from shu.text import slugify
from shu.types import Document

_KNOWN = {"id", "title", "date", "source_url", "type", "personas", "tags", "summary", "license"}


@dataclass
class ParsedDocument:
    doc: Document
    body: str
    raw: bytes
    warnings: list[str]


def parse_rag_file(path: Path, data: bytes, persona: str, fingerprint: str) -> ParsedDocument:
    """`fingerprint` names everything else that shapes the stored chunks (chunking, embedder)."""
    text, encoding = decode_text(data)
    meta, body = split_frontmatter(text)
    if not body.strip():
        raise SkipDocument("empty document (no text after the frontmatter)")
    warnings = [] if encoding.startswith("utf") else [f"decoded as {encoding}"]
    doc_id = _doc_id(meta, path)
    personas = list(dict.fromkeys([*as_str_list(meta.get("personas"), "personas"), persona]))
    bad = [p for p in personas if not SLUG.match(p)]
    if bad:
        raise DocumentError(f"frontmatter personas has invalid slug(s): {', '.join(map(repr, bad))}")
    doc = Document(
        id=doc_id,
        title=_text(meta.get("title")) or _first_h1(body) or path.stem.replace("-", " ").capitalize(),
        personas=personas,
        content_hash=sha256(data + b"\0" + json.dumps([sorted(personas), fingerprint]).encode()),
        path=str(path.resolve()),
        date=_text(meta.get("date")),
        source_url=_text(meta.get("source_url")),
        type=_text(meta.get("type")),
        tags=as_str_list(meta.get("tags"), "tags"),
        summary=_text(meta.get("summary")),
        license=_text(meta.get("license")),
        meta={k: v for k, v in meta.items() if k not in _KNOWN},
    )
    return ParsedDocument(doc=doc, body=body, raw=data, warnings=warnings)


def _doc_id(meta: dict[str, Any], path: Path) -> str:
    given = meta.get("id")
    if given is None:
        doc_id = slugify(path.stem)
    else:
        doc_id = str(given).strip()
        if not SLUG.match(doc_id) and len(doc_id) <= 200 and slugify(doc_id) != doc_id:
            raise DocumentError(
                f"frontmatter id {doc_id!r} is not a kebab-case slug (try {slugify(doc_id)!r})"
            )
    if not doc_id:
        raise DocumentError("no usable document id (set `id:` in the frontmatter)")
    return doc_id


def _text(value: Any) -> str | None:
    if value is None or value == "":
        return None
    return str(value).strip() or None


def _first_h1(body: str) -> str | None:
    for line in body.splitlines():
        if line.startswith("# "):
            return line[2:].strip() or None
    return None

"""A RAG Markdown file → a `Document` (frontmatter) and its body."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert.decode import decode_text
from shu.ingest.files import resolved, sha256
from shu.ingest.frontmatter import as_str_list, split_frontmatter
from shu.ingest.key_terms import KeyTerms, read_block
from shu.ingest.personas import SLUG
from shu.text import name_id, slugify
from shu.types import Document

_KNOWN = {"id", "title", "date", "source_url", "type", "personas", "tags", "summary", "license"}


@dataclass
class ParsedDocument:
    doc: Document
    body: str
    raw: bytes
    warnings: list[str]
    key_terms: KeyTerms = field(default_factory=KeyTerms)
    """the Key Terms / Also Known As block, taken out of the body"""


DOC_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,199}$")


def parse_rag_file(path: Path, data: bytes, persona: str) -> ParsedDocument:
    """Parse one RAG file for the persona whose folder holds it. `content_hash` is left for
    `content_hash()` once every persona that holds the same file is known."""
    text, encoding = decode_text(data)
    meta, body = split_frontmatter(text)
    body, terms = read_block(body)
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
        content_hash="",
        path=str(resolved(path)),
        date=_text(meta.get("date")),
        source_url=_text(meta.get("source_url")),
        type=_text(meta.get("type")),
        tags=as_str_list(meta.get("tags"), "tags"),
        summary=_text(meta.get("summary")),
        license=_text(meta.get("license")),
        meta={k: v for k, v in meta.items() if k not in _KNOWN}
        | ({"key_terms": terms.terms} if terms.terms else {})
        | ({"also_known_as": terms.aliases} if terms.aliases else {}),
    )
    return ParsedDocument(doc=doc, body=body, raw=data, warnings=warnings, key_terms=terms)


def content_hash(parsed: ParsedDocument, fingerprint: str) -> str:
    """Everything that shapes what is stored: the file's bytes, where it is, the personas it
    belongs to, and `fingerprint` (chunking and embedder settings)."""
    context = json.dumps([parsed.doc.path, sorted(parsed.doc.personas), fingerprint])
    return sha256(parsed.raw + b"\0" + context.encode())


def _doc_id(meta: dict[str, Any], path: Path) -> str:
    given = meta.get("id")
    doc_id = name_id(path.stem) if given is None else str(given).strip()
    if not DOC_ID.match(doc_id):
        hint = f" (try {slugify(doc_id)[:200]!r})" if slugify(doc_id) else ""
        raise DocumentError(
            f"document id {doc_id[:80]!r} is not a lowercase slug of a-z, 0-9, '.', '_', '-'{hint}"
        )
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

"""RAW-DOCS → RAG: convert each raw file to Markdown and write it with generated frontmatter
(docs/design/personas-and-storage.md). Conversion is skipped when the RAG file already records
the raw file's hash."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from shu.errors import DocumentError, ShuError, SkipDocument
from shu.ingest import key_terms
from shu.ingest.budget import Limits, spending
from shu.ingest.convert import convert_documents
from shu.ingest.convert.base import Converted
from shu.ingest.dates import name_date
from shu.ingest.files import list_files, read_inside, sha256, write_atomic
from shu.ingest.frontmatter import as_str_list, render_frontmatter, split_frontmatter
from shu.ingest.personas import PersonaFolder
from shu.ingest.report import FileOutcome
from shu.text import name_id, split_sentences

URL_LIST_SUFFIXES = frozenset({".urls", ".links"})
CURATED_FIELDS = ("summary", "tags", "license")
RESERVED_FIELDS = frozenset({"id", "source_file", "source_sha256", "generated"})
CONVERTER_VERSION = 6  # 6: the Key Terms / Also Known As block
"""Raise when conversion output changes, so that generated RAG files are written again."""
_FIELD_LINE = re.compile(r"^\*\*[\w -]+:\*\*")
_TYPE_HINTS = (
    ("faq", "faq"),
    ("press", "press"),
    ("postmortem", "tech_memo"),
    ("post-mortem", "tech_memo"),
    ("memo", "tech_memo"),
    ("minutes", "meeting_notes"),
    ("release-notes", "release_notes"),
    ("release notes", "release_notes"),
    ("newsletter", "newsletter"),
    ("policy", "policy"),
    ("guide", "guide"),
    ("handbook", "guide"),
    ("spec", "spec"),
    ("slides", "slides"),
    ("blog", "blog"),
)


def rag_path_for(folder: PersonaFolder, doc_id: str) -> Path:
    return folder.rag_dir / f"{doc_id}.md"


def convert_raw_folder(
    folder: PersonaFolder, max_bytes: int, limits: Limits | None = None
) -> list[FileOutcome]:
    """Convert every raw file of a persona, each within `limits` (time, output; see
    `shu.ingest.budget`); URL lists are handled by `shu.ingest.urls`."""
    outcomes: list[FileOutcome] = []
    produced: dict[str, Path] = {}
    generated = _generated_files(folder)
    for path in list_files(folder.raw_dir):
        if path.suffix.lower() in URL_LIST_SUFFIXES:
            continue
        outcome = _convert_one(folder, path, max_bytes, produced, generated, limits or Limits())
        if outcome.status != "unchanged":  # the RAG file's own outcome reports it
            outcomes.append(outcome)
    return outcomes


def _generated_files(folder: PersonaFolder) -> dict[str, list[tuple[Path, dict[str, Any]]]]:
    """source file → the RAG files generated from it, with their frontmatter."""
    found: dict[str, list[tuple[Path, dict[str, Any]]]] = {}
    for target in list_files(folder.rag_dir):
        meta = _existing_frontmatter(target)
        source = meta.get("source_file")
        if meta.get("source_sha256") and isinstance(source, str):
            found.setdefault(source, []).append((target, meta))
    return found


def _convert_one(
    folder: PersonaFolder,
    path: Path,
    max_bytes: int,
    produced: dict[str, Path],
    generated: dict[str, list[tuple[Path, dict[str, Any]]]],
    limits: Limits,
) -> FileOutcome:
    shown = str(path)
    try:
        data = read_inside(path, folder.path, max_bytes)
        stem_id = name_id(path.stem)
        if not stem_id:
            raise DocumentError("file name gives an empty document id; rename the file")
        digest = sha256(data)
        source_file = path.relative_to(folder.path).as_posix()
        before = generated.get(source_file, [])
        if before and all(
            meta.get("source_sha256") == digest and _generated(meta).get("converter") == CONVERTER_VERSION
            for _, meta in before
        ):
            for target, _ in before:
                produced.setdefault(target.stem, path)
            return FileOutcome(path=shown, status="unchanged", doc_id=before[0][0].stem)
        with spending(limits, len(data)):
            parts = convert_documents(path, data)
        written: list[Path] = []
        for part in parts:
            doc_id = part.doc_id or stem_id
            _claim(folder, doc_id, path, source_file, produced)
            target = rag_path_for(folder, doc_id)
            previous = _existing_frontmatter(target)
            meta = build_frontmatter(folder, path, doc_id, part, digest, previous)
            made = key_terms.block(key_terms.suggested(part.markdown, meta["tags"]))
            meta["generated"]["key_terms"] = _digest(made)
            terms = _key_terms(target, previous, made)
            write_atomic(target, render_frontmatter(meta, terms + part.markdown))
            written.append(target)
        for old, _ in before:  # a message gone from a mailbox, an attachment removed
            if old not in written:
                old.unlink(missing_ok=True)
        shown_targets = ", ".join(t.name for t in written[:3]) + (
            f" (+{len(written) - 3})" if len(written) > 3 else ""
        )
        return FileOutcome(
            path=shown,
            status="converted",
            doc_id=written[0].stem,
            message=f"→ {shown_targets}{_skipped_parts([s for part in parts for s in part.skipped])}",
            warnings=[w for part in parts for w in part.warnings],
        )
    except SkipDocument as exc:
        _release(produced, path)  # a skipped file produces nothing: its ids stay free
        return FileOutcome(path=shown, status="skipped", message=str(exc))
    except ShuError as exc:
        return FileOutcome(path=shown, status="failed", message=str(exc))
    except Exception as exc:  # a converter bug must not stop the run: report it and go on
        return FileOutcome(path=shown, status="failed", message=f"unexpected {exc.__class__.__name__}: {exc}")


def _skipped_parts(skipped: list[str]) -> str:
    """`; 2 skipped (message 3: the message has no text; …)`: the parts of a file (a mailbox's
    messages) that were left out, while the others were converted."""
    if not skipped:
        return ""
    shown = "; ".join(skipped[:2]) + (f"; +{len(skipped) - 2} more" if len(skipped) > 2 else "")
    return f"; {len(skipped)} skipped ({shown})"


def _claim(
    folder: PersonaFolder, doc_id: str, path: Path, source_file: str, produced: dict[str, Path]
) -> None:
    """Take `doc_id` for `path`, or fail: another raw file of this run, or a RAG file not
    generated from this one (curated by hand), already has it."""
    if produced.get(doc_id, path) != path:
        raise DocumentError(
            f"document id {doc_id!r} is already produced by {produced[doc_id].name}; rename one"
        )
    target = rag_path_for(folder, doc_id)
    previous = _existing_frontmatter(target)
    if target.exists() and previous.get("source_file") != source_file:
        raise DocumentError(
            f"{target.relative_to(folder.path)} already exists and was not generated from this file; "
            "rename one of them"
        )
    produced[doc_id] = path


def _release(produced: dict[str, Path], path: Path) -> None:
    for doc_id, owner in list(produced.items()):
        if owner == path:
            del produced[doc_id]


def prune_orphans(folder: PersonaFolder) -> list[FileOutcome]:
    """Remove generated RAG files whose raw source file is gone (curated files are never touched)."""
    outcomes: list[FileOutcome] = []
    for path in list_files(folder.rag_dir):
        meta = _existing_frontmatter(path)
        source = meta.get("source_file")
        if not meta.get("source_sha256") or not isinstance(source, str):
            continue
        if not (folder.path / source).exists():
            path.unlink()
            outcomes.append(
                FileOutcome(path=str(path), status="pruned", message=f"its source {source} is gone")
            )
    return outcomes


def build_frontmatter(
    folder: PersonaFolder,
    path: Path,
    doc_id: str,
    converted: Converted,
    digest: str,
    previous: dict[str, Any],
) -> dict[str, Any]:
    found = converted.meta
    title = (
        converted.title
        or _first_h1(converted.markdown)
        or path.stem.replace("-", " ").replace("_", " ").strip().capitalize()
    )
    meta: dict[str, Any] = {
        "id": doc_id,
        "title": title,
        "date": _date(found, path),
        "source_url": found.get("source_url"),
        "type": found.get("type") or _guess_type(path.stem, title),
        "personas": list(dict.fromkeys([*as_str_list(found.get("personas"), "personas"), folder.slug])),
        "tags": _tags(found, converted.markdown, folder.persona.config.tags),
        "summary": found.get("summary") or lead_sentence(converted.markdown),
        "license": found.get("license"),
        "source_file": path.relative_to(folder.path).as_posix(),
        "source_sha256": digest,
    }
    for key, value in found.items():  # what the format told: sender, attendees, sheets, thread…
        if key not in meta and key not in RESERVED_FIELDS and value not in (None, "", [], {}):
            meta[key] = value
    generated_before = _generated(previous)
    made = {key: _digest(meta[key]) for key in CURATED_FIELDS if meta.get(key)}
    # before converter 6 the digest recorded was of the value kept, a person's edit included:
    # for those files a value that differs from what conversion makes now is taken as theirs
    recorded_kept = isinstance(generated_before.get("converter"), int) and generated_before["converter"] < 6
    for key in CURATED_FIELDS:  # a value a person edited after a conversion survives
        if not previous.get(key):
            continue
        edited = _digest(previous[key]) != generated_before.get(key)
        if edited or (recorded_kept and _digest(previous[key]) != made.get(key)):
            meta[key] = previous[key]
    # what conversion made, not what was kept: a person's edit survives every later conversion
    meta["generated"] = {"converter": CONVERTER_VERSION} | made
    return meta


def _key_terms(target: Path, previous: dict[str, Any], made: str) -> str:
    """The Key Terms block to write: the one a person edited in the generated file (it differs
    from what the last conversion made), else `made`, from the text and its tags."""
    try:
        _, body = split_frontmatter(read_inside(target, target.parent, _MAX_RAG_BYTES).decode("utf-8"))
    except Exception:  # no earlier file, or not one Shu can read: a new block
        return made
    rest, _ = key_terms.read_block(body)
    kept = body[: len(body) - len(rest)].strip()
    before = _generated(previous).get("key_terms")
    if not kept:  # none in the file: a person deleted the one written (one was), else none yet
        return "" if before not in (None, _digest("")) else made
    return f"{kept}\n\n" if _digest(f"{kept}\n\n") != before else made


def _generated(meta: dict[str, Any]) -> dict[str, Any]:
    value = meta.get("generated")
    return value if isinstance(value, dict) else {}


def _digest(value: Any) -> str:
    return sha256(json.dumps(value, sort_keys=True, ensure_ascii=False).encode())[:12]


def lead_sentence(markdown: str, limit: int = 300) -> str | None:
    for block in re.split(r"\n\s*\n", markdown):
        block = block.strip()
        if _FIELD_LINE.match(block):
            continue  # e-mail style header lines (**From:** …) are not a summary
        if block.startswith("**"):
            block = block.replace("**", "")
        if not block or block.startswith(("#", "|", "```", "-", "*", ">")) or len(block.split()) < 6:
            continue
        sentences = split_sentences(block)
        if sentences:
            first = sentences[0].replace("**", "")
            return first if len(first) <= limit else first[: limit - 1].rsplit(" ", 1)[0] + "…"
    return None


def _existing_frontmatter(target: Path) -> dict[str, Any]:
    """The frontmatter of a RAG file Shu may have written: a file in its own folder, never read
    through a link (what it keeps, a hand-curated summary, is indexed)."""
    try:
        meta, _ = split_frontmatter(read_inside(target, target.parent, _MAX_RAG_BYTES).decode("utf-8"))
    except Exception:  # any RAG file, even a hostile one, is read here: unreadable means "not ours"
        return {}
    return meta


_MAX_RAG_BYTES = 64 * 1024 * 1024


def _first_h1(markdown: str) -> str | None:
    for line in markdown.splitlines():
        if line.startswith("# "):
            return line[2:].strip().strip("#").strip() or None
    return None


def _date(found: dict[str, Any], path: Path) -> str | None:
    """The date `shu.ingest.dates` settled in conversion; else one in the file's name (a page of
    a URL list is converted under its own name: the list's may date it)."""
    return str(found["date"])[:10] if found.get("date") else name_date(path)


def _guess_type(stem: str, title: str) -> str | None:
    haystack = f"{stem} {title}".lower()
    for hint, kind in _TYPE_HINTS:
        if hint in haystack:
            return kind
    return None


def _tags(found: dict[str, Any], markdown: str, persona_tags: list[str]) -> list[str]:
    tags = as_str_list(found.get("tags"), "tags")
    lowered = markdown.casefold()
    for tag in persona_tags:
        if re.search(rf"(?<!\w){re.escape(tag.casefold())}(?!\w)", lowered):
            tags.append(tag)
    return list(dict.fromkeys(tags))

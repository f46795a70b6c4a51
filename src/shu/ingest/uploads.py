"""Files brought to a persona from outside (the HTTP API, the web page): checked before anything
is written, stored in the persona's `RAW-DOCS/` under a safe name that never replaces a file,
and a document's own files found again to delete or download.

A persona's folder is known from its indexed documents (`<folder>/RAG/<id>.md`): a persona
with no document yet has no folder the server knows of."""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from shu.errors import ConflictError, ForbiddenError, InvalidRequestError
from shu.ingest.convert.base import SUPPORTED_SUFFIXES
from shu.ingest.frontmatter import split_frontmatter
from shu.ingest.personas import is_persona_folder
from shu.types import Document

MAX_NAME_BYTES = 150
"""A stored name's stem at most this many UTF-8 bytes (file systems allow 255 for the whole)."""
MAX_CLASHES = 1000
_UNSAFE = re.compile(r"[^\w.() +,=@&'-]+")
_ZIP = b"PK\x03\x04"
_MAGIC: dict[str, tuple[bytes, ...]] = {
    ".pdf": (b"%PDF",),
    ".docx": (_ZIP,),
    ".pptx": (_ZIP,),
    ".xlsx": (_ZIP,),
    ".epub": (_ZIP,),
    ".msg": (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",),
    ".png": (b"\x89PNG\r\n\x1a\n",),
    ".jpg": (b"\xff\xd8\xff",),
    ".jpeg": (b"\xff\xd8\xff",),
    ".tif": (b"II*\x00", b"MM\x00*"),
    ".tiff": (b"II*\x00", b"MM\x00*"),
}
"""How a binary format's file begins; every other format Shu reads is text (no NUL byte)."""
_UTF16 = (b"\xff\xfe", b"\xfe\xff")


class UploadRefused(InvalidRequestError):
    """A file refused before anything is written, with its one-line reason."""


class TooLarge(UploadRefused):
    """A file over the size a server accepts (413)."""


def safe_name(name: str) -> str:
    """A file name a client sent, made safe to store: its last path part only (no folders, no
    `..`), NFC, without control characters or leading dots, unsafe characters as `-`, the stem
    cut to `MAX_NAME_BYTES`, the suffix in lower case. Refused when no suffix Shu reads is left."""
    base = re.split(r"[/\\]", name)[-1]
    base = unicodedata.normalize("NFC", base)
    base = "".join(c for c in base if unicodedata.category(c)[0] != "C")
    base = _UNSAFE.sub("-", base).strip(" ")
    stem, dot, suffix = base.rpartition(".")
    if not dot:
        stem, suffix = base, ""
    suffix = "." + suffix.lower() if suffix else ""
    if suffix not in SUPPORTED_SUFFIXES:
        known = " ".join(sorted(SUPPORTED_SUFFIXES))
        raise UploadRefused(f"{suffix or 'no suffix'}: not a format Shu reads ({known})")
    stem = stem.strip(" .-")
    while len(stem.encode()) > MAX_NAME_BYTES:
        stem = stem[:-1]
    return (stem.rstrip(" .-") or "upload") + suffix


def check_content(name: str, head: bytes, size: int, max_bytes: int) -> None:
    """Refuse a file by its size and its first bytes (`name` already safe): empty, over
    `max_bytes`, or not looking like its suffix says."""
    if size > max_bytes:
        raise TooLarge(f"{size:,} bytes: over the {max_bytes:,} a file may have here")
    if size == 0:
        raise UploadRefused("the file is empty")
    suffix = Path(name).suffix
    magic = _MAGIC.get(suffix)
    if magic is not None:
        if not head.startswith(magic):
            raise UploadRefused(f"does not look like a {suffix} file (it begins with {head[:8]!r})")
    elif b"\x00" in head[:8192] and not head.startswith(_UTF16):
        raise UploadRefused(f"a {suffix} file is text, and this one holds binary data")


def store_file(raw_dir: Path, name: str, source: BinaryIO) -> Path:
    """Write the readable binary `source` into `raw_dir` as `name` (safe), or `name-2`, `name-3`…
    when it is taken: a file there is never replaced. Written under a hidden name first (the
    ingest leaves hidden files alone) and linked into place, so a half-written file is never
    read."""
    raw_dir.mkdir(parents=True, exist_ok=True)
    temporary = raw_dir / f".upload-{secrets.token_hex(8)}"
    try:
        with temporary.open("xb") as out:
            while chunk := source.read(1 << 20):
                out.write(chunk)
        stem, suffix = Path(name).stem, Path(name).suffix
        for n in range(1, MAX_CLASHES + 1):
            target = raw_dir / (name if n == 1 else f"{stem}-{n}{suffix}")
            try:
                os.link(temporary, target)
            except FileExistsError:
                continue
            return target
        raise ConflictError(f"{name}: {MAX_CLASHES} files of that name already; rename it")
    finally:
        temporary.unlink(missing_ok=True)


def persona_folder(slug: str, documents: list[Document]) -> Path:
    """The folder of persona `slug`, from where its indexed documents are (`<folder>/RAG/…`)."""
    for document in documents:
        rag = Path(document.path).parent
        folder = rag.parent
        if rag.name == "RAG" and folder.name == slug and is_persona_folder(folder):
            return folder.resolve()
    raise InvalidRequestError(
        f"the server does not know the folder of persona {slug!r} (it has no document yet): "
        "ingest its folder once (`shu ingest <folder>`)"
    )


def own_folder(document: Document, persona: str) -> Path:
    """The persona folder holding `document`'s file, which must be `persona`'s own: a document
    another persona's folder holds (and this one accepts) is changed there, not here."""
    rag = Path(document.path).parent
    folder = rag.parent
    if rag.name != "RAG" or folder.name != persona or not is_persona_folder(folder):
        raise ForbiddenError(
            f"document {document.id!r} is not a file of persona {persona!r}'s folder: change it there"
        )
    return folder.resolve()


@dataclass
class DocumentFiles:
    rag: Path
    raw: Path | None
    shared_with: list[str]
    """Other documents made from the same raw file (a mailbox's messages)."""


def document_files(folder: Path, document: Document) -> DocumentFiles:
    """A document's RAG file and the raw file it was made from, both inside `folder` (a path
    that leads outside is left out)."""
    rag = _inside(Path(document.path), folder)
    if rag is None:
        raise InvalidRequestError(f"document {document.id!r} is not a file of its persona's folder")
    raw: Path | None = None
    shared: list[str] = []
    source = _source_file(rag)
    if source is not None:
        raw = _inside(folder / source, folder)
        for other in (folder / "RAG").glob("*.md"):
            if other != rag and _source_file(other) == source:
                shared.append(other.stem)
    return DocumentFiles(rag=rag, raw=raw if raw is not None and raw.is_file() else None, shared_with=shared)


def remove_files(files: DocumentFiles) -> list[Path]:
    """Delete a document's RAG file and its raw file (kept when it made other documents too)."""
    removed = []
    for path in (files.rag, None if files.shared_with else files.raw):
        if path is not None:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
    return removed


def _source_file(rag: Path) -> str | None:
    try:
        with rag.open("rb") as handle:
            head = handle.read(1 << 16).decode("utf-8", errors="replace")
        meta, _ = split_frontmatter(head)
    except Exception:  # any RAG file, even a hostile one: unreadable means "made from no file"
        return None
    source = meta.get("source_file")
    return source if isinstance(source, str) and source else None


def _inside(path: Path, folder: Path) -> Path | None:
    try:
        found = path.resolve()
    except (OSError, RuntimeError):
        return None
    return found if found.is_relative_to(folder.resolve()) else None

"""URL lists (`*.urls`, `*.links` in RAW-DOCS, one URL a line): each page is fetched once and
kept as a RAG document. With no network each URL fails with its own message; the run goes on."""

from __future__ import annotations

from pathlib import Path

import httpx

from shu.config.settings import IngestSettings
from shu.errors import DocumentError, ShuError, SkipDocument
from shu.ingest.budget import Limits, spending
from shu.ingest.convert import convert_file
from shu.ingest.fetch import download
from shu.ingest.files import list_files, read_inside, sha256, write_atomic
from shu.ingest.frontmatter import render_frontmatter, split_frontmatter
from shu.ingest.personas import PersonaFolder
from shu.ingest.raw import URL_LIST_SUFFIXES, build_frontmatter, rag_path_for
from shu.ingest.report import FileOutcome
from shu.text import slugify

_SUFFIX_BY_TYPE = {
    "text/html": ".html",
    "application/pdf": ".pdf",
    "text/plain": ".txt",
    "text/markdown": ".md",
}


def read_url_list(data: bytes) -> list[str]:
    urls: list[str] = []
    for line in data.decode("utf-8", errors="replace").splitlines():
        line = line.strip().lstrip("-*").strip()
        if line and not line.startswith("#"):
            urls.append(line)
    return urls


def fetch_url_lists(folder: PersonaFolder, settings: IngestSettings) -> list[FileOutcome]:
    """Fetch every listed URL not fetched before (bounds and address checks: `shu.ingest.fetch`)."""
    outcomes: list[FileOutcome] = []
    max_bytes = int(settings.max_file_mb * 1_000_000)
    for list_path in [p for p in list_files(folder.raw_dir) if p.suffix.lower() in URL_LIST_SUFFIXES]:
        try:
            urls = read_url_list(read_inside(list_path, folder.path, max_bytes))
        except ShuError as exc:
            outcomes.append(FileOutcome(path=str(list_path), status="failed", message=str(exc)))
            continue
        for url in urls:
            outcome = _fetch_one(folder, list_path, url, settings, max_bytes)
            if outcome is not None:
                outcomes.append(outcome)
    return outcomes


def _fetch_one(
    folder: PersonaFolder, list_path: Path, url: str, settings: IngestSettings, max_bytes: int
) -> FileOutcome | None:
    doc_id = url_doc_id(url)
    shown = f"{list_path.name}: {url}"
    target = rag_path_for(folder, doc_id)
    if target.is_file():
        return None  # fetched before; the RAG file's own outcome reports it
    try:
        if not url.startswith(("http://", "https://")):
            raise DocumentError("not an http(s) URL")
        try:
            httpx.URL(url)
        except (httpx.InvalidURL, ValueError) as exc:
            raise DocumentError(f"malformed URL ({exc})") from exc
        data, content_type = download(url, settings, max_bytes)
        suffix = _SUFFIX_BY_TYPE.get(content_type, ".html")
        with spending(Limits.from_settings(settings), len(data)):  # the budget of a raw file
            converted = convert_file(Path(doc_id + suffix), data)
        converted.meta.setdefault("source_url", url)
        meta = build_frontmatter(folder, list_path, doc_id, converted, sha256(data), {})
        meta["source_file"] = list_path.relative_to(folder.path).as_posix()
        write_atomic(target, render_frontmatter(meta, converted.markdown))
        return FileOutcome(path=shown, status="converted", doc_id=doc_id, message=f"→ {target.name}")
    except SkipDocument as exc:
        return FileOutcome(path=shown, status="skipped", message=str(exc))
    except ShuError as exc:
        return FileOutcome(path=shown, status="failed", message=str(exc))
    except Exception as exc:  # a malformed URL or a converter bug must not stop the run
        return FileOutcome(path=shown, status="failed", message=f"unexpected {exc.__class__.__name__}: {exc}")


def url_doc_id(url: str) -> str:
    """Readable and unique: a slug of the URL (shortened) and a hash of all of it."""
    return f"{slugify(url.split('://', 1)[-1])[:60].strip('-')}-{sha256(url.encode())[:8]}"


def prune_unlisted(folder: PersonaFolder) -> list[FileOutcome]:
    """Remove RAG files fetched from a URL that no list names any more."""
    listed: set[str] = set()
    for list_path in list_files(folder.raw_dir):
        if list_path.suffix.lower() in URL_LIST_SUFFIXES:
            try:
                listed |= {url_doc_id(u) for u in read_url_list(list_path.read_bytes())}
            except OSError:
                return []  # an unreadable list: keep everything rather than guess
    outcomes: list[FileOutcome] = []
    for path in list_files(folder.rag_dir):
        source = _source_file(path)
        if (
            source is not None
            and Path(source).suffix.lower() in URL_LIST_SUFFIXES
            and path.stem not in listed
        ):
            path.unlink()
            outcomes.append(
                FileOutcome(path=str(path), status="pruned", message="its URL is no longer listed")
            )
    return outcomes


def _source_file(path: Path) -> str | None:
    try:
        meta, _ = split_frontmatter(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ShuError):
        return None
    source = meta.get("source_file")
    return source if isinstance(source, str) else None

"""URL lists (`*.urls`, `*.links` in RAW-DOCS, one URL a line): each page is fetched once and
kept as a RAG document. With no network each URL fails with its own message; the run goes on."""

from __future__ import annotations

import ipaddress
import socket
import time
from pathlib import Path

import httpx

from shu.config.settings import IngestSettings
from shu.errors import DocumentError, ShuError, SkipDocument
from shu.ingest.convert import convert_file
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


def fetch_url_lists(
    folder: PersonaFolder, settings: IngestSettings, client: httpx.Client | None = None
) -> list[FileOutcome]:
    """Fetch every listed URL not fetched before. Each read waits at most `url_timeout_s`, a
    whole download `url_total_s`; loopback and private addresses (also after a redirect) are
    refused unless `allow_private_urls`."""
    outcomes: list[FileOutcome] = []
    lists = [p for p in list_files(folder.raw_dir) if p.suffix.lower() in URL_LIST_SUFFIXES]
    if not lists:
        return outcomes
    max_bytes = int(settings.max_file_mb * 1_000_000)
    own_client = client is None
    hooks = {} if settings.allow_private_urls else {"request": [_refuse_private]}
    client = client or httpx.Client(
        timeout=settings.url_timeout_s,
        follow_redirects=True,
        headers={"User-Agent": "shu-ingest"},
        event_hooks=hooks,
    )
    try:
        for list_path in lists:
            try:
                urls = read_url_list(read_inside(list_path, folder.path, max_bytes))
            except ShuError as exc:
                outcomes.append(FileOutcome(path=str(list_path), status="failed", message=str(exc)))
                continue
            for url in urls:
                outcome = _fetch_one(folder, list_path, url, max_bytes, settings.url_total_s, client)
                if outcome is not None:
                    outcomes.append(outcome)
    finally:
        if own_client:
            client.close()
    return outcomes


def _fetch_one(
    folder: PersonaFolder, list_path: Path, url: str, max_bytes: int, total_s: float, client: httpx.Client
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
        data, content_type = _download(client, url, max_bytes, total_s)
        suffix = _SUFFIX_BY_TYPE.get(content_type, ".html")
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


def _refuse_private(request: httpx.Request) -> None:
    """A URL list is input: it may not make Shu read this machine or its private network."""
    host = request.url.host
    try:
        addresses = {info[4][0] for info in socket.getaddrinfo(host, request.url.port or 80)}
    except (socket.gaierror, UnicodeError):
        return  # the request itself fails with a clear "cannot fetch"
    for address in addresses:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
        if not ip.is_global:
            raise DocumentError(
                f"{host} is a private or local address ({ip}); set ingest.allow_private_urls=true to fetch it"
            )


def _download(client: httpx.Client, url: str, max_bytes: int, total_s: float) -> tuple[bytes, str]:
    deadline = time.monotonic() + total_s
    try:
        with client.stream("GET", url) as response:
            response.raise_for_status()
            chunks: list[bytes] = []
            size = 0
            for part in response.iter_bytes():
                size += len(part)
                if size > max_bytes:
                    raise DocumentError(f"page larger than {max_bytes / 1e6:.1f} MB")
                if time.monotonic() > deadline:
                    raise DocumentError(f"download took longer than {total_s:g} s (ingest.url_total_s)")
                chunks.append(part)
            content_type = response.headers.get("content-type", "text/html").split(";")[0].strip().lower()
            return b"".join(chunks), content_type
    except httpx.HTTPStatusError as exc:
        raise DocumentError(f"HTTP {exc.response.status_code} from server") from exc
    except httpx.HTTPError as exc:
        raise DocumentError(f"cannot fetch ({exc.__class__.__name__}: {exc or 'no network'})") from exc

"""EPUB → Markdown: `# <book title>`, then each chapter of the spine (in reading order) as a `##`
section, its own headings demoted beneath. The chapter title is its first heading, else its
label in the table of contents (EPUB 3 nav or EPUB 2 NCX), else "Chapter N". DRM-locked books
are refused; font obfuscation (which `encryption.xml` also lists) is not DRM."""

from __future__ import annotations

import io
import posixpath
import re
import zipfile
import zlib
from pathlib import Path
from typing import Any
from urllib.parse import unquote
from xml.etree import ElementTree

from shu.errors import DocumentError, ShuError
from shu.ingest.budget import current
from shu.ingest.convert.archive import check_archive
from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text
from shu.ingest.convert.html import html_to_markdown

_CONTAINER = "META-INF/container.xml"
_ENCRYPTION = "META-INF/encryption.xml"
_DC = "{http://purl.org/dc/elements/1.1/}"
_OPF_NS = "{http://www.idpf.org/2007/opf}"
_NCX_NS = "{http://www.daisy.org/z3986/2005/ncx/}"
_XHTML_NS = "{http://www.w3.org/1999/xhtml}"
_EPUB_TYPE = "{http://www.idpf.org/2007/ops}type"
_FONT_OBFUSCATION = {"http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC"}
_CHAPTER_TYPES = {"application/xhtml+xml", "text/html", "application/xml", "text/xml"}
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADER_TAG = re.compile(r"<(/?)header\b", re.IGNORECASE)
_FULL_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def convert(data: bytes, path: Path) -> Converted:
    check_archive(data, "EPUB", counted=False)  # each read is counted instead
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as book:
            return _convert(book, path)
    except ShuError:
        raise
    except (zipfile.BadZipFile, zlib.error, NotImplementedError, OSError, EOFError, ValueError) as exc:
        # a damaged member: bad CRC, broken deflate stream, nonsense compression method
        raise DocumentError(
            f"not a readable EPUB file ({exc.__class__.__name__}: {_one_line(str(exc))})"
        ) from exc


def _convert(book: zipfile.ZipFile, path: Path) -> Converted:
    names = set(book.namelist())
    _refuse_drm(book, names)
    if _CONTAINER not in names:
        raise DocumentError(f"not a readable EPUB file: it has no {_CONTAINER}")
    container = _xml(book, _CONTAINER)
    rootfile = next((e.get("full-path") for e in container.iter() if _local(e.tag) == "rootfile"), None)
    if not rootfile:
        raise DocumentError(f"not a readable EPUB file: {_CONTAINER} names no package (rootfile)")
    opf_path = rootfile.lstrip("/")
    if opf_path not in names:
        raise DocumentError(f"not a readable EPUB file: its package {opf_path!r} is missing")
    opf = _xml(book, opf_path)
    base = posixpath.dirname(opf_path)
    manifest = _manifest(opf, base)
    spine = _first(opf, "spine")
    if spine is None:
        raise DocumentError(f"not a readable EPUB file: {opf_path} has no spine (reading order)")
    meta = _metadata(opf)
    labels = _toc_labels(book, names, manifest, spine)
    warnings: list[str] = []
    chapters: list[str] = []
    reading = _reading_order(spine, manifest)
    budget = current()
    budget.inflate(  # every read counts: a chapter listed 160 times is read 160 times
        sum(book.getinfo(href).file_size for href in reading if href in names),
        f"its spine's {len(reading):,} chapters",
    )
    for href in reading:
        if href not in names:
            warnings.append(f"chapter {href!r} is listed in the spine but missing; skipped")
            continue
        try:
            text, _ = decode_text(book.read(href))
        except DocumentError as exc:
            warnings.append(f"chapter {href!r} is unreadable ({exc}); skipped")
            continue
        body = html_to_markdown(_HEADER_TAG.sub(r"<\1div", text)).markdown.strip()
        budget.write(len(body.encode()))
        if body:
            chapters.append(_chapter(body, labels.get(href), len(chapters) + 1))
    if not chapters and warnings:
        raise DocumentError(f"not a readable EPUB file: {warnings[0]}")
    title = meta.pop("title", None) or path.stem
    markdown = f"# {title}\n\n" + "\n\n".join(chapters) + "\n"
    return Converted(markdown=markdown, title=title, meta={"type": "ebook", **meta}, warnings=warnings)


def _reading_order(spine: ElementTree.Element, manifest: dict[str, dict[str, str]]) -> list[str]:
    """The chapter files the spine lists, in its order (a file listed twice is read twice)."""
    order = []
    for itemref in spine:
        item = manifest.get(itemref.get("idref") or "") if _local(itemref.tag) == "itemref" else None
        if item is not None and item["media-type"] in _CHAPTER_TYPES:
            order.append(item["href"])
    return order


def _read(book: zipfile.ZipFile, name: str) -> bytes:
    """A member's bytes, counted against the file's budget before they are inflated."""
    current().inflate(book.getinfo(name).file_size)
    return book.read(name)


def _refuse_drm(book: zipfile.ZipFile, names: set[str]) -> None:
    if "META-INF/rights.xml" in names:  # Adobe ADEPT and its kin
        raise DocumentError("EPUB is encrypted (DRM): its content cannot be read; use a DRM-free copy")
    if _ENCRYPTION not in names:
        return
    locked = []
    for data in _xml(book, _ENCRYPTION).iter():
        if _local(data.tag) != "EncryptedData":
            continue
        method = next((e.get("Algorithm") for e in data.iter() if _local(e.tag) == "EncryptionMethod"), "")
        if method not in _FONT_OBFUSCATION:
            locked += [e.get("URI") for e in data.iter() if _local(e.tag) == "CipherReference"]
    if locked:
        raise DocumentError(
            f"EPUB is encrypted (DRM): {len(locked)} part(s) such as {locked[0]!r} cannot be read; "
            "use a DRM-free copy"
        )


def _xml(book: zipfile.ZipFile, name: str) -> ElementTree.Element:
    """Parse a part (expat refuses entity expansion bombs; no external entities are fetched)."""
    try:
        return ElementTree.fromstring(_read(book, name))
    except ElementTree.ParseError as exc:
        raise DocumentError(
            f"not a readable EPUB file: {name} is broken XML ({_one_line(str(exc))})"
        ) from exc


def _manifest(opf: ElementTree.Element, base: str) -> dict[str, dict[str, str]]:
    items: dict[str, dict[str, str]] = {}
    manifest = _first(opf, "manifest")
    for item in manifest if manifest is not None else []:
        if _local(item.tag) != "item" or not item.get("id") or not item.get("href"):
            continue
        items[item.get("id", "")] = {
            "href": _resolve(base, item.get("href", "")),
            "media-type": (item.get("media-type") or "").lower(),
            "properties": item.get("properties") or "",
        }
    return items


def _metadata(opf: ElementTree.Element) -> dict[str, Any]:
    block = _first(opf, "metadata")
    if block is None:
        return {}

    def texts(name: str) -> list[str]:
        return [" ".join("".join(e.itertext()).split()) for e in block.iter(f"{_DC}{name}")]

    meta: dict[str, Any] = {}
    titles = [t for t in texts("title") if t]
    if titles:
        meta["title"] = titles[0]
    creators = [c for c in texts("creator") if c]
    if creators:
        meta["author"] = ", ".join(dict.fromkeys(creators))
    dates = [e for e in block.iter(f"{_DC}date") if "".join(e.itertext()).strip()]
    dates.sort(key=lambda e: e.get(f"{_OPF_NS}event") not in (None, "publication"))
    for element in dates:
        found = _FULL_DATE.match("".join(element.itertext()).strip())
        if found:
            meta["date"] = "-".join(found.groups())
            break
    languages = [lang for lang in texts("language") if lang]
    if languages:
        meta["language"] = languages[0]
    return meta


def _toc_labels(
    book: zipfile.ZipFile, names: set[str], manifest: dict[str, dict[str, str]], spine: ElementTree.Element
) -> dict[str, str]:
    """chapter file → its first label in the EPUB 3 nav (else the EPUB 2 NCX). A broken table of
    contents only costs the labels."""
    labels: dict[str, str] = {}
    nav = next((i for i in manifest.values() if "nav" in i["properties"].split()), None)
    ncx = manifest.get(spine.get("toc") or "") or next(
        (i for i in manifest.values() if i["media-type"] == "application/x-dtbncx+xml"), None
    )
    try:
        if nav is not None and nav["href"] in names:
            base = posixpath.dirname(nav["href"])
            root = ElementTree.fromstring(_read(book, nav["href"]))
            navs = [e for e in root.iter(f"{_XHTML_NS}nav")]
            toc = next((e for e in navs if e.get(_EPUB_TYPE) == "toc"), navs[0] if navs else None)
            for link in toc.iter(f"{_XHTML_NS}a") if toc is not None else []:
                _label(labels, base, link.get("href"), "".join(link.itertext()))
        if not labels and ncx is not None and ncx["href"] in names:
            base = posixpath.dirname(ncx["href"])
            for point in ElementTree.fromstring(_read(book, ncx["href"])).iter(f"{_NCX_NS}navPoint"):
                text = point.find(f"{_NCX_NS}navLabel/{_NCX_NS}text")
                content = point.find(f"{_NCX_NS}content")
                if text is not None and content is not None:
                    _label(labels, base, content.get("src"), "".join(text.itertext()))
    except ElementTree.ParseError:
        pass
    return labels


def _label(labels: dict[str, str], base: str, href: str | None, text: str) -> None:
    text = " ".join(text.split())
    if href and text:
        labels.setdefault(_resolve(base, href), text)


def _chapter(body: str, label: str | None, number: int) -> str:
    """The chapter's Markdown with its headings demoted so that its title is a `##` heading. Text
    before a leading title heading (an epigraph, a chapter number) moves below it."""
    lines = body.split("\n")
    found = _headings(lines)
    if found:
        top = min(len(m.group(1)) for _, m in found)
        index, first = found[0]
        if len(first.group(1)) == top:
            shifted = _shift(lines, 2 - top)
            before = "\n".join(shifted[:index]).strip()
            after = "\n".join(shifted[index + 1 :]).strip()
            return "\n\n".join(part for part in (shifted[index], before, after) if part)
        lines = _shift(lines, 3 - top)
    return f"## {label or f'Chapter {number}'}\n\n" + "\n".join(lines)


def _headings(lines: list[str]) -> list[tuple[int, re.Match[str]]]:
    """(line index, match) of each heading outside code fences."""
    found = []
    in_fence = False
    for index, line in enumerate(lines):
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(line)):
            found.append((index, match))
    return found


def _shift(lines: list[str], by: int) -> list[str]:
    out = []
    in_fence = False
    for line in lines:
        if _FENCE.match(line):
            in_fence = not in_fence
        elif not in_fence and (match := _HEADING.match(line)):
            level = min(6, max(1, len(match.group(1)) + by))
            line = f"{'#' * level} {match.group(2)}"
        out.append(line)
    return out


def _first(parent: ElementTree.Element, name: str) -> ElementTree.Element | None:
    return next((e for e in parent if _local(e.tag) == name), None)


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _resolve(base: str, href: str) -> str:
    return posixpath.normpath(posixpath.join(base, unquote(href.split("#", 1)[0])))


def _one_line(text: str) -> str:
    return " ".join(text.split())

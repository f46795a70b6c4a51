"""HTML → Markdown: page chrome (nav, footer, scripts) is dropped, headings and tables kept; a
table goes out as one Markdown pipe table under its header: its empty rows are dropped and, when
it marks no header (`<th>`, as a DOCX table through mammoth), its first row is the header."""

from __future__ import annotations

import re
from pathlib import Path
from typing import cast

from bs4 import BeautifulSoup, Tag
from markdownify import markdownify

from shu.ingest.budget import current
from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text

_CELL = re.compile(r"<t[dh][\s/>]", re.IGNORECASE)
_CHROME = [
    "script",
    "style",
    "noscript",
    "nav",
    "footer",
    "header",
    "aside",
    "form",
    "svg",
    "iframe",
    "template",
    "button",
]


def convert(data: bytes, path: Path) -> Converted:
    text, encoding = decode_text(data)
    return html_to_markdown(text, warnings=[] if encoding.startswith("utf") else [f"decoded as {encoding}"])


def html_to_markdown(html: str, warnings: list[str] | None = None) -> Converted:
    current().cells(len(_CELL.findall(html)))  # counted before the parse: a cell costs ~1 KB of memory
    soup = BeautifulSoup(html, "html.parser")
    meta = _page_meta(soup)
    title_tag = soup.find("title")
    page_title = title_tag.get_text(" ", strip=True) if title_tag else None
    for tag in soup.find_all(_CHROME):
        tag.decompose()
    for tag in soup.find_all(_is_hidden):
        tag.decompose()
    for table in soup.find_all("table"):
        _settle_header(table)
    root = soup.find("main") or soup.find("article") or soup.find("body") or soup
    markdown = markdownify(str(root), heading_style="ATX", bullets="-", strip=["img", "a"])
    markdown = re.sub(r"\n{3,}", "\n\n", markdown).strip() + "\n"
    h1 = root.find("h1") if hasattr(root, "find") else None
    title = h1.get_text(" ", strip=True) if h1 else page_title
    return Converted(markdown=markdown, title=title or None, meta=meta, warnings=warnings or [])


def _settle_header(table: Tag) -> None:
    """Drop the table's rows with no text; when its first row is not a header row (no `<th>`,
    not alone in a `<thead>`), make it one. Left as they were, markdownify would put an empty
    header above the table and its real header among the data rows."""
    rows = [row for row in table.find_all("tr") if row.find_parent("table") is table]
    for row in rows:
        if not row.get_text(strip=True) and row.find("img") is None:
            row.decompose()
    rows = [row for row in rows if not row.decomposed]
    if not rows:
        return
    first = rows[0]
    cells = first.find_all(["td", "th"], recursive=False)
    if not cells or all(cell.name == "th" for cell in cells):
        return
    if first.parent is not None and first.parent.name == "thead" and len(first.parent.find_all("tr")) == 1:
        return
    for cell in cells:
        cell.name = "th"
        for emphasis in cell.find_all(["strong", "b"]):
            emphasis.unwrap()  # a header needs no bold


def _is_hidden(tag: Tag) -> bool:
    """Elements a browser never shows: `hidden`, `aria-hidden="true"`, `display:none`."""
    if tag.attrs is None:
        return False
    style = (_single(tag, "style") or "").replace(" ", "").lower()
    return tag.has_attr("hidden") or tag.get("aria-hidden") == "true" or "display:none" in style


def _single(tag: Tag, key: str) -> str | None:
    """A single-valued attribute: bs4 gives a list (AttributeValueList) only for the multi-valued
    ones (class, rel, headers, ...), never for style, name, property or content."""
    return cast("str | None", tag.get(key))


def _page_meta(soup: BeautifulSoup) -> dict[str, object]:
    meta: dict[str, object] = {}
    for tag in soup.find_all("meta"):
        key = (_single(tag, "name") or _single(tag, "property") or "").lower()
        value = (_single(tag, "content") or "").strip()
        if not value:
            continue
        if key in {"date", "article:published_time", "dc.date", "publication_date"}:
            meta["date"] = value[:10]
        elif key in {"description", "og:description"}:
            meta.setdefault("summary", value)
        elif key in {"keywords"}:
            meta["tags"] = [k.strip() for k in value.split(",") if k.strip()]
        elif key == "og:url":
            meta.setdefault("source_url", value)
    canonical = soup.find("link", rel="canonical")
    if canonical and canonical.get("href"):
        meta["source_url"] = canonical["href"]
    return meta

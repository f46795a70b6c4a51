"""PDF → Markdown with pypdf. Lines set in a larger font than the body become headings."""

from __future__ import annotations

import contextlib
import io
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pypdf import PdfReader
from pypdf.errors import DependencyError, PdfReadError, PyPdfError

from shu.errors import DocumentError
from shu.ingest.convert import ocr
from shu.ingest.convert.base import Converted

logging.getLogger("pypdf").setLevel(logging.ERROR)


@dataclass
class _Line:
    text: str
    size: float


def convert(data: bytes, path: Path) -> Converted:
    reader = _open(data)
    lines: list[_Line] = []
    for number, page in enumerate(reader.pages, start=1):
        try:
            lines.extend(_page_lines(page))
        except (PyPdfError, ValueError, KeyError, TypeError) as exc:
            raise DocumentError(f"page {number} cannot be read ({exc.__class__.__name__})") from exc
        lines.append(_Line("", 0.0))  # page break = paragraph break
    markdown = _to_markdown(lines)
    info_title = None
    with contextlib.suppress(PyPdfError):
        info_title = (reader.metadata or {}).get("/Title")
    title = str(info_title).strip() if info_title else None
    if not markdown.strip():
        return _scanned(data, path, title)
    return Converted(markdown=markdown, title=title)


def _scanned(data: bytes, path: Path, title: str | None) -> Converted:
    """A PDF with no text layer: each page rendered and read by OCR, one section per page."""
    if not ocr.available():
        raise DocumentError(f"PDF has no text layer (a scan?); {ocr.INSTALL_HINT}")
    title = title or ocr.title_from(path)
    sections = [f"# {title}"]
    for number, image in enumerate(ocr.pdf_page_images(data), start=1):
        text = ocr.image_text(image, f"page {number}")
        if text.strip():
            sections.append(f"## Page {number}\n\n{text}")
    if len(sections) == 1:
        raise DocumentError("PDF has no text layer and OCR found no text in its pages")
    return Converted(
        markdown="\n\n".join(sections) + "\n",
        title=title,
        meta={"type": "scan", "ocr": ocr.version()},
        warnings=["text read by OCR: check it before trusting exact figures"],
    )


def _open(data: bytes) -> PdfReader:
    if not data.lstrip().startswith(b"%PDF"):
        raise DocumentError("not a PDF file (no %PDF header)")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not _try_empty_password(reader):
            raise DocumentError("encrypted PDF: it needs a password; save an unprotected copy")
        _ = len(reader.pages)
    except DependencyError as exc:  # AES encryption is checked while opening: it needs a password
        raise DocumentError("encrypted PDF (AES): it needs a password; save an unprotected copy") from exc
    except (PdfReadError, PyPdfError, ValueError, KeyError, TypeError, OSError) as exc:
        raise DocumentError(f"corrupt PDF ({exc.__class__.__name__}: {exc})") from exc
    return reader


def _try_empty_password(reader: PdfReader) -> bool:
    """Many PDFs are encrypted with an empty user password; any other is refused as encrypted
    (AES ones without the optional `cryptography` package too: they need a password anyway)."""
    try:
        return bool(reader.decrypt(""))
    except (PyPdfError, DependencyError, NotImplementedError, ValueError, ImportError):
        return False


def _page_lines(page) -> list[_Line]:  # type: ignore[no-untyped-def]
    """Text of one page as lines, each with the largest font size seen on it."""
    pieces: list[tuple[str, float]] = []

    def visit(text: str, cm, tm, font_dict, font_size: float) -> None:  # type: ignore[no-untyped-def]
        scale = abs(tm[3]) if tm and tm[3] else 1.0
        pieces.append((text, float(font_size or 0.0) * scale))

    page.extract_text(visitor_text=visit)
    lines: list[_Line] = []
    current = ""
    size = 0.0
    for text, piece_size in pieces:
        parts = text.split("\n")
        for index, part in enumerate(parts):
            if index > 0:
                lines.append(_Line(current.strip(), size))
                current, size = "", 0.0
            if part.strip():
                size = max(size, piece_size)
            current += part
    if current.strip():
        lines.append(_Line(current.strip(), size))
    return lines


def _to_markdown(lines: list[_Line]) -> str:
    sizes = Counter()
    for line in lines:
        if line.text:
            sizes[round(line.size, 1)] += len(line.text)
    body_size = sizes.most_common(1)[0][0] if sizes else 0.0
    heading_sizes = sorted({round(ln.size, 1) for ln in lines if _is_heading(ln, body_size)}, reverse=True)
    levels = {size: min(index + 1, 4) for index, size in enumerate(heading_sizes)}
    out: list[str] = []
    paragraph: list[str] = []

    def flush() -> None:
        if paragraph:
            out.append(_join_wrapped(paragraph))
            paragraph.clear()

    for line in lines:
        if not line.text:
            flush()
        elif _is_heading(line, body_size):
            flush()
            out.append("#" * levels[round(line.size, 1)] + " " + line.text)
        else:
            paragraph.append(line.text)
    flush()
    return "\n\n".join(out).strip() + "\n"


def _is_heading(line: _Line, body_size: float) -> bool:
    return bool(line.text) and body_size > 0 and line.size >= body_size * 1.15 and len(line.text) <= 120


def _join_wrapped(lines: list[str]) -> str:
    """Re-join lines wrapped by the PDF layout, mending hyphenation; keep list items apart."""
    text = ""
    for line in lines:
        if not text:
            text = line
        elif line.lstrip().startswith(("- ", "* ", "• ")) or line[:3].rstrip(".").isdigit():
            text += "\n" + line
        elif text.endswith("-") and not text.endswith(" -"):
            text = text[:-1] + line
        else:
            text += " " + line
    return text

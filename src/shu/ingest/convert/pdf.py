"""PDF → Markdown with pypdf. Lines set in a larger font than the body become headings; ruled
tables (found by pdfplumber) become Markdown tables where they stand, instead of their cells run
together as a paragraph; running headers, footers and page numbers are left out
(`shu.ingest.convert.furniture`) and a sentence a page break cuts is joined again; a PDF with no
text layer goes to OCR."""

from __future__ import annotations

import contextlib
import io
import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from pypdf import PageObject, PdfReader
from pypdf.errors import DependencyError, PdfReadError, PyPdfError

from shu.errors import DocumentError
from shu.ingest.budget import OverBudget, current
from shu.ingest.convert import ocr
from shu.ingest.convert.base import Converted
from shu.ingest.convert.furniture import furniture

logging.getLogger("pypdf").setLevel(logging.ERROR)
logging.getLogger("pdfminer").setLevel(logging.ERROR)
log = logging.getLogger(__name__)
MAX_TABLE_PAGES = 300
_SENTENCE_ENDS = (".", "!", "?", ":", ";", '."', '?"', '!"', ".)", "”")
_LIST_MARKS = ("- ", "* ", "• ")


@dataclass
class _Line:
    text: str
    size: float
    top: float = -1.0
    """Distance from the top of the page (PDF points); -1 when unknown."""
    table: str | None = None
    """A Markdown table that stands here (the line is then only its placeholder)."""
    page_break: bool = False
    """The end of a page: a paragraph break, unless a sentence runs on over it."""


def convert(data: bytes, path: Path) -> Converted:
    reader = _open(data)
    warnings: list[str] = []
    tables = page_tables(data, len(reader.pages), warnings)
    pages: list[list[_Line]] = []
    budget = current()
    for number, page in enumerate(reader.pages, start=1):
        budget.tick()
        try:
            pages.append(_page_lines(page))
        except (PyPdfError, ValueError, KeyError, TypeError) as exc:
            raise DocumentError(f"page {number} cannot be read ({exc.__class__.__name__})") from exc
    lines: list[_Line] = []
    dropped = furniture([[line.text for line in page] for page in pages])
    for index, (page_lines, drop) in enumerate(zip(pages, dropped, strict=True)):
        kept = [line for i, line in enumerate(page_lines) if i not in drop]
        lines.extend(_with_tables(kept, tables.get(index, [])))
        lines.append(_Line("", 0.0, page_break=True))
    markdown = _to_markdown(lines)
    info_title = None
    with contextlib.suppress(PyPdfError):
        metadata = reader.metadata
        info_title = metadata.get("/Title") if metadata else None
    title = str(info_title).strip() if info_title else None
    if not markdown.strip():
        return _scanned(data, path, title)
    return Converted(markdown=markdown, title=title, warnings=warnings)


def _scanned(data: bytes, path: Path, title: str | None) -> Converted:
    """A PDF with no text layer: each page rendered and read by OCR, one section per page, its
    running header and footer left out."""
    if not ocr.available():
        raise DocumentError(f"PDF has no text layer (a scan?); {ocr.INSTALL_HINT}")
    title = title or ocr.title_from(path)
    sections = [f"# {title}"]
    pages = [
        ocr.image_text(image, f"page {number}", counted=True).split("\n")
        for number, image in enumerate(ocr.pdf_page_images(data), start=1)
    ]
    for number, (lines, drop) in enumerate(zip(pages, furniture(pages), strict=True), start=1):
        text = "\n".join(line for i, line in enumerate(lines) if i not in drop).strip()
        if text:
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


def _page_lines(page: PageObject) -> list[_Line]:
    """Text of one page as lines, each with the largest font size seen on it and how far from
    the top of the page it starts."""
    pieces: list[tuple[str, float, float]] = []
    height = float(page.mediabox.height)

    def visit(text: str, cm: list[float], tm: list[float], font_dict: object, font_size: float) -> None:
        scale = abs(tm[3]) if tm and tm[3] else 1.0
        top = -1.0
        if tm and cm:
            top = height - (cm[1] * tm[4] + cm[3] * tm[5] + cm[5])
        pieces.append((text, float(font_size or 0.0) * scale, top))

    page.extract_text(visitor_text=visit)
    lines: list[_Line] = []
    current = ""
    size = 0.0
    top = -1.0
    for text, piece_size, piece_top in pieces:
        parts = text.split("\n")
        for index, part in enumerate(parts):
            if index > 0:
                lines.append(_Line(current.strip(), size, top))
                current, size, top = "", 0.0, -1.0
            if part.strip():
                size = max(size, piece_size)
                top = piece_top if top < 0 else top
            current += part
    if current.strip():
        lines.append(_Line(current.strip(), size, top))
    return lines


def page_tables(data: bytes, pages: int, warnings: list[str]) -> dict[int, list[tuple[float, float, str]]]:
    """page index → its ruled tables as (top, bottom, Markdown), for PDFs of at most
    `MAX_TABLE_PAGES` pages (finding tables parses every page again). Tables that cannot be
    read cost a line in `warnings` (the trace is logged at debug level: `shu --verbose`)."""
    if pages > MAX_TABLE_PAGES:
        return {}
    import pdfplumber

    found: dict[int, list[tuple[float, float, str]]] = {}
    try:
        with pdfplumber.open(io.BytesIO(data)) as pdf:
            for index, page in enumerate(pdf.pages):
                current().tick()
                for table in page.find_tables():
                    rows = [[" ".join((cell or "").split()) for cell in row] for row in table.extract()]
                    rows = [row for row in rows if any(row)]  # the header is the first row with text
                    if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
                        found.setdefault(index, []).append(
                            (table.bbox[1], table.bbox[3], _markdown_table(rows))
                        )
    except OverBudget:
        raise
    except Exception as exc:  # tables are an extra: the text is read without them
        log.debug("tables of a PDF could not be read", exc_info=True)
        reason = " ".join(str(exc).split())[:120]
        warnings.append(
            f"its tables could not be read ({exc.__class__.__name__}{': ' + reason if reason else ''}); "
            "the text is kept without them"
        )
        return {}
    return found


def _with_tables(lines: list[_Line], tables: list[tuple[float, float, str]]) -> list[_Line]:
    """The page's lines with each table's text replaced by the table, where it stood."""
    if not tables:
        return lines
    out: list[_Line] = []
    placed: set[int] = set()
    for line in lines:
        inside = next(
            (i for i, (top, bottom, _) in enumerate(tables) if top - 2 <= line.top <= bottom + 2), None
        )
        if inside is None:
            out.append(line)
        elif inside not in placed:
            placed.add(inside)
            out += [_Line("", 0.0), _Line("", 0.0, table=tables[inside][2]), _Line("", 0.0)]
    out += [_Line("", 0.0, table=t[2]) for i, t in enumerate(tables) if i not in placed]
    return out


def _markdown_table(rows: list[list[str]]) -> str:
    width = max(len(r) for r in rows)
    cells = [[c.replace("|", "\\|") for c in r] + [""] * (width - len(r)) for r in rows]
    lines = ["| " + " | ".join(cells[0]) + " |", "|" + "---|" * width]
    lines += ["| " + " | ".join(r) + " |" for r in cells[1:]]
    return "\n".join(lines)


def _to_markdown(lines: list[_Line]) -> str:
    sizes: Counter[float] = Counter()
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

    for index, line in enumerate(lines):
        if line.table is not None:
            flush()
            out.append(line.table)
        elif line.page_break:
            following = (ln for ln in lines[index + 1 :] if ln.text or ln.table is not None or ln.page_break)
            if not _runs_on(paragraph, next(following, None), body_size):
                flush()
        elif not line.text:
            flush()
        elif _is_heading(line, body_size):
            flush()
            out.append("#" * levels[round(line.size, 1)] + " " + line.text)
        else:
            paragraph.append(line.text)
    flush()
    return "\n\n".join(out).strip() + "\n"


def _runs_on(paragraph: list[str], after: _Line | None, body_size: float) -> bool:
    """Whether the paragraph a page ends goes on at the top of the next page: it stops without
    closing its sentence, and the next page goes on with body text (not a heading, a table or a
    list item)."""
    if not paragraph or after is None or paragraph[-1].rstrip().endswith(_SENTENCE_ENDS):
        return False
    return (
        bool(after.text)
        and after.table is None
        and not _is_heading(after, body_size)
        and not after.text.lstrip().startswith(_LIST_MARKS)
    )


def _is_heading(line: _Line, body_size: float) -> bool:
    return bool(line.text) and body_size > 0 and line.size >= body_size * 1.15 and len(line.text) <= 120


def _join_wrapped(lines: list[str]) -> str:
    """Re-join lines wrapped by the PDF layout, mending hyphenation; keep list items apart."""
    text = ""
    for line in lines:
        if not text:
            text = line
        elif line.lstrip().startswith(_LIST_MARKS) or line[:3].rstrip(".").isdigit():
            text += "\n" + line
        elif text.endswith("-") and not text.endswith(" -"):
            text = text[:-1] + line
        else:
            text += " " + line
    return text

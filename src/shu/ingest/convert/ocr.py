"""Text from images through Tesseract (Debian's `tesseract-ocr`, an optional system package):
scans, photos of pages, PDF pages with no text layer (rendered with pdfium first). When
Tesseract is missing, a bad file gets a one-line reason saying how to install it, never a crash."""

from __future__ import annotations

import re
import shutil
import struct
import subprocess
from pathlib import Path

from shu.errors import DocumentError

TIMEOUT_S = 120
MAX_PIXELS = 60_000_000
"""A page at 300 dpi is ~9 million pixels; more is a decompression bomb, not a scan."""
MAX_PAGES = 300
RENDER_DPI = 200
INSTALL_HINT = "install Tesseract for OCR (Debian: apt install tesseract-ocr)"


def available() -> bool:
    return shutil.which("tesseract") is not None


def version() -> str:
    found = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, timeout=30)
    first = (found.stdout or found.stderr).splitlines()
    return first[0].strip() if first else "tesseract"


def image_text(data: bytes, what: str = "image") -> str:
    """The text Tesseract reads in an image (PNG, JPEG, TIFF, PNM), as paragraphs."""
    if not available():
        raise DocumentError(f"{what} holds no text layer; {INSTALL_HINT}")
    _check_size(data)
    try:
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", "-l", "eng", "--psm", "3"],
            input=data,
            capture_output=True,
            timeout=TIMEOUT_S,
        )
    except subprocess.TimeoutExpired as exc:
        raise DocumentError(f"OCR of the {what} took over {TIMEOUT_S} s; refused") from exc
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        raise DocumentError(f"OCR could not read the {what} ({reason[-1] if reason else 'tesseract failed'})")
    return _paragraphs(done.stdout.decode("utf-8", errors="replace"))


def pdf_page_images(data: bytes) -> list[bytes]:
    """Each page of a PDF rendered to a grey PGM image at `RENDER_DPI`, for OCR."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise DocumentError(f"the PDF cannot be rendered for OCR ({exc})") from exc
    try:
        if len(document) > MAX_PAGES:
            raise DocumentError(f"a scanned PDF of {len(document)} pages (OCR reads at most {MAX_PAGES})")
        images = []
        for index in range(len(document)):
            bitmap = document[index].render(scale=RENDER_DPI / 72, grayscale=True)
            pixels = bitmap.to_numpy()
            height, width = pixels.shape[:2]
            images.append(
                f"P5 {width} {height} 255\n".encode() + pixels.reshape(height, -1)[:, :width].tobytes()
            )
        return images
    finally:
        document.close()


def _check_size(data: bytes) -> None:
    """Refuse a PNG whose header declares more pixels than a page could hold."""
    if data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) >= 24:
        width, height = struct.unpack(">II", data[16:24])
        if width * height > MAX_PIXELS:
            raise DocumentError(f"image of {width}×{height} pixels (at most {MAX_PIXELS:,}); refused")


def _paragraphs(text: str) -> str:
    """OCR lines joined into paragraphs (blank lines kept), hyphenation at line ends mended."""
    blocks = []
    for block in re.split(r"\n\s*\n", text.replace("\f", "\n\n")):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        joined = ""
        for line in lines:
            if joined.endswith("-") and not joined.endswith(" -"):
                joined = joined[:-1] + line
            else:
                joined = f"{joined} {line}".strip()
        if joined:
            blocks.append(joined)
    return "\n\n".join(blocks)


def title_from(path: Path) -> str:
    return path.stem.replace("-", " ").replace("_", " ").strip().capitalize() or "Scan"

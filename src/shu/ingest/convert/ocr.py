"""Text from images through Tesseract (Debian's `tesseract-ocr`, an optional system package):
scans, photos of pages, PDF pages with no text layer (rendered with pdfium first). When
Tesseract is missing, a bad file gets a one-line reason saying how to install it, never a crash.

OCR spends from the file's budget: each page's pixels are counted before it is rendered or
decoded (`ingest.max_ocr_page_pixels`, `ingest.max_ocr_file_pixels`; a few KB of PDF or G4 TIFF
can declare gigapixels), and each Tesseract run may take only what is left of the file's time
(`ingest.max_file_seconds`)."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path

from shu.errors import DocumentError
from shu.ingest.budget import current

TIMEOUT_S = 120
"""The longest one Tesseract run may take, whatever is left of the file's time."""
MAX_PAGES = 300
RENDER_DPI = 200
INSTALL_HINT = "install Tesseract for OCR (Debian: apt install tesseract-ocr)"


def available() -> bool:
    return shutil.which("tesseract") is not None


def version() -> str:
    found = subprocess.run(["tesseract", "--version"], capture_output=True, text=True, timeout=30)
    first = (found.stdout or found.stderr).splitlines()
    return first[0].strip() if first else "tesseract"


def image_text(data: bytes, what: str = "image", counted: bool = False) -> str:
    """The text Tesseract reads in an image (PNG, JPEG, TIFF, PNM), as paragraphs. Its pages'
    pixels are counted against the budget first, unless they were (`counted`: a rendered page)."""
    if not available():
        raise DocumentError(f"{what} holds no text layer; {INSTALL_HINT}")
    budget = current()
    if not counted:
        for number, (width, height) in enumerate(image_sizes(data), start=1):
            budget.pixels(width * height, f"{what} {number}" if number > 1 else what)
    timeout = min(TIMEOUT_S, budget.seconds_left())
    if timeout <= 0:
        raise budget.out_of_time()
    try:
        done = subprocess.run(
            ["tesseract", "stdin", "stdout", "-l", "eng", "--psm", "3"],
            input=data,
            capture_output=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        if timeout < TIMEOUT_S:
            raise budget.out_of_time() from exc
        raise DocumentError(f"OCR of the {what} took over {TIMEOUT_S} s; refused") from exc
    if done.returncode != 0:
        reason = done.stderr.decode(errors="replace").strip().splitlines()
        raise DocumentError(f"OCR could not read the {what} ({reason[-1] if reason else 'tesseract failed'})")
    return _paragraphs(done.stdout.decode("utf-8", errors="replace"))


def image_sizes(data: bytes) -> list[tuple[int, int]]:
    """(width, height) of each page of an image (a TIFF may hold several), from its headers: no
    pixel is decoded."""
    from PIL import Image, UnidentifiedImageError

    budget = current()
    sizes: list[tuple[int, int]] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as image:
                for frame in range(getattr(image, "n_frames", 1)):
                    image.seek(frame)
                    sizes.append(image.size)
                    budget.tick()
    except Image.DecompressionBombError as exc:  # Pillow refuses to open past 2 × its own limit
        bound = 2 * (Image.MAX_IMAGE_PIXELS or 0)
        budget.pixels(bound, "the image", at_least=True)
        raise DocumentError(f"the image is over {bound / 1e6:,.0f} million pixels; refused") from exc
    except (UnidentifiedImageError, OSError, ValueError, EOFError, SyntaxError) as exc:
        raise DocumentError(f"not a readable image ({exc.__class__.__name__})") from exc
    return sizes


def pdf_page_images(data: bytes) -> Iterator[bytes]:
    """Each page of a PDF rendered to a grey PGM image at `RENDER_DPI`, for OCR, one at a time.
    Every page's pixels are counted against the budget before the first is rendered."""
    import pypdfium2

    try:
        document = pypdfium2.PdfDocument(data)
    except pypdfium2.PdfiumError as exc:
        raise DocumentError(f"the PDF cannot be rendered for OCR ({exc})") from exc
    try:
        if len(document) > MAX_PAGES:
            raise DocumentError(f"a scanned PDF of {len(document)} pages (OCR reads at most {MAX_PAGES})")
        budget = current()
        scale = RENDER_DPI / 72
        for index in range(len(document)):
            width, height = document.get_page_size(index)
            pixels = round(abs(width) * scale) * round(abs(height) * scale)
            budget.pixels(pixels, f"page {index + 1} ({width:,.0f} × {height:,.0f} pt at {RENDER_DPI} dpi)")
        for index in range(len(document)):
            budget.tick()
            bitmap = document[index].render(scale=scale, grayscale=True)
            pixels_array = bitmap.to_numpy()
            height_px, width_px = pixels_array.shape[:2]
            yield (
                f"P5 {width_px} {height_px} 255\n".encode()
                + pixels_array.reshape(height_px, -1)[:, :width_px].tobytes()
            )
    finally:
        document.close()


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

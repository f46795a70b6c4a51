"""Images (`.png`, `.jpg`, `.tiff`): a scanned or photographed page read by OCR."""

from __future__ import annotations

from pathlib import Path

from shu.errors import DocumentError, SkipDocument
from shu.ingest.convert import ocr
from shu.ingest.convert.base import Converted

_SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff", b"II*\x00", b"MM\x00*")


def convert(data: bytes, path: Path) -> Converted:
    if not data.startswith(_SIGNATURES):
        raise DocumentError(f"not a PNG, JPEG or TIFF image ({path.suffix} with other contents)")
    text = ocr.image_text(data, "image")
    if not text.strip():
        raise SkipDocument("OCR found no text in the image")
    title = ocr.title_from(path)
    return Converted(
        markdown=f"# {title}\n\n{text}\n",
        title=title,
        meta={"type": "scan", "ocr": ocr.version()},
        warnings=["text read by OCR: check it before trusting exact figures"],
    )

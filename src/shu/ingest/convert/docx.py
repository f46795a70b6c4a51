"""DOCX → HTML (mammoth keeps Heading styles as <h1>…) → Markdown; the date of its last save
(`shu.ingest.convert.office`) dates it when its text does not."""

from __future__ import annotations

import io
import zipfile
from pathlib import Path

import mammoth

from shu.errors import DocumentError
from shu.ingest.convert.archive import check_archive, check_not_ole
from shu.ingest.convert.base import Converted
from shu.ingest.convert.html import html_to_markdown
from shu.ingest.convert.office import core_dates, office_date

_NO_IMAGES = mammoth.images.img_element(lambda image: {})
"""Images are not text: they are neither read nor inlined as base64."""
_STYLE_MAP = "p[style-name='Title'] => h1:fresh\np[style-name='Subtitle'] => h2:fresh"


def convert(data: bytes, path: Path) -> Converted:
    check_not_ole(data, "DOCX", "a .doc document")
    check_archive(data, "DOCX")
    try:
        result = mammoth.convert_to_html(io.BytesIO(data), style_map=_STYLE_MAP, convert_image=_NO_IMAGES)
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"not a readable DOCX file ({exc.__class__.__name__}: {exc})") from exc
    except Exception as exc:  # mammoth raises bare parser errors on damaged XML parts
        raise DocumentError(f"not a readable DOCX file ({exc.__class__.__name__})") from exc
    converted = html_to_markdown(f"<html><body>{result.value}</body></html>")
    converted.file_date = office_date(*core_dates(data))
    return converted

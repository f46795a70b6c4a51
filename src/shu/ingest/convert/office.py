"""What an office file (DOCX, PPTX, XLSX) says about itself: the date of its last save, for a
document that states none (docs/design/personas-and-storage.md#document-date).

`modified` is preferred to `created`: a file made from a template, or copied from last year's,
keeps the template's creation date (a roadmap for 2026 "created" in 2013), while every save
updates `modified`. `created` counts only for a file that has no `modified`. A date that an
office library's blank template carries is no date at all: a deck made by python-pptx that
never sets its dates says 2013-01-27 in both."""

from __future__ import annotations

import io
import zipfile
from datetime import datetime
from xml.etree import ElementTree

_TEMPLATE_STAMPS = frozenset(
    {
        datetime(2013, 1, 27, 9, 14, 16),  # python-pptx's default.pptx, created
        datetime(2013, 1, 27, 9, 15, 58),  # python-pptx's default.pptx, modified
        datetime(2013, 12, 23, 23, 15, 0),  # python-docx's default.docx, both
    }
)
"""Core-property dates of the blank templates office libraries build files from."""
_CORE = "docProps/core.xml"
_DCTERMS = "{http://purl.org/dc/terms/}"
_MAX_CORE_BYTES = 1_000_000


def office_date(created: object, modified: object) -> str | None:
    """The ISO day an office file was last saved: `modified`, else `created`, leaving out what
    is no date (missing, unreadable, or a library template's)."""
    for when in (modified, created):
        if isinstance(when, datetime) and _naive_utc(when) not in _TEMPLATE_STAMPS:
            return when.date().isoformat()
    return None


def core_dates(data: bytes) -> tuple[datetime | None, datetime | None]:
    """(created, modified) from an OOXML package's `docProps/core.xml`; (None, None) when the
    package has no readable core properties (they are optional)."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as package:
            info = package.getinfo(_CORE)
            if info.file_size > _MAX_CORE_BYTES:
                return None, None
            root = ElementTree.fromstring(package.read(info))
    except (KeyError, zipfile.BadZipFile, ElementTree.ParseError, ValueError, OSError):
        return None, None
    return _w3c(root.findtext(f"{_DCTERMS}created")), _w3c(root.findtext(f"{_DCTERMS}modified"))


def _w3c(value: str | None) -> datetime | None:
    """`2026-05-04T16:30:00Z` (W3CDTF, as core.xml writes it) → a datetime."""
    if not value or not value.strip():
        return None
    try:
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None


def _naive_utc(when: datetime) -> datetime:
    if when.tzinfo is None:
        return when.replace(microsecond=0)
    offset = when.utcoffset()
    return (when - offset if offset else when).replace(tzinfo=None, microsecond=0)

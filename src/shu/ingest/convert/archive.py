"""Zip-based formats (DOCX today; slides, spreadsheets and e-books next) are opened only after
every member's declared size is checked: a 1 MB file that inflates to gigabytes is refused
before a byte of it is inflated. A member that inflates past its declared size fails its CRC
check in `zipfile`, so the declared sizes are the ones that count."""

from __future__ import annotations

import io
import zipfile

from shu.errors import DocumentError
from shu.ingest.budget import current

MAX_MEMBER_BYTES = 100_000_000
MAX_TOTAL_BYTES = 250_000_000
MAX_XML_BYTES = 20_000_000
"""Text parts are what the converters hold in memory, many times over (mammoth needs ~60 MB of
memory per MB of document.xml): 20 MB of XML is thousands of pages, and about a gigabyte."""
MAX_RATIO = 200
"""Office XML compresses 5–20×; a member inflating more than this is a bomb, not a document."""
_SMALL = 1_000_000
MAX_MEMBERS = 10_000
_OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_ENCRYPTED_STREAMS = ("EncryptionInfo".encode("utf-16-le"), "EncryptedPackage".encode("utf-16-le"))


def check_archive(data: bytes, kind: str, counted: bool = True) -> None:
    """Raise DocumentError when the archive is not a zip, or would inflate beyond the bounds.
    Its inflated size is `counted` against the file's budget (a reader of the whole package
    inflates each part once; one that reads parts itself counts each read)."""
    try:
        members = zipfile.ZipFile(io.BytesIO(data)).infolist()
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError) as exc:
        raise DocumentError(f"not a readable {kind} file ({exc.__class__.__name__}: {exc})") from exc
    if len(members) > MAX_MEMBERS:
        raise DocumentError(f"{kind} archive has {len(members):,} parts (at most {MAX_MEMBERS:,})")
    total = 0
    for member in members:
        total += member.file_size
        if member.filename.endswith((".xml", ".rels")) and member.file_size > MAX_XML_BYTES:
            raise DocumentError(
                f"{kind} part {member.filename!r} is {member.file_size / 1e6:,.0f} MB of text "
                f"(at most {MAX_XML_BYTES / 1e6:,.0f} MB); refused"
            )
        ratio = member.file_size / max(member.compress_size, 1)
        if member.file_size > MAX_MEMBER_BYTES or (member.file_size > _SMALL and ratio > MAX_RATIO):
            raise DocumentError(
                f"{kind} part {member.filename!r} inflates to {member.file_size / 1e6:,.0f} MB "
                f"from {member.compress_size / 1e6:,.1f} MB (a zip bomb?); refused"
            )
    if total > MAX_TOTAL_BYTES:
        raise DocumentError(
            f"{kind} inflates to {total / 1e6:,.0f} MB in all (at most {MAX_TOTAL_BYTES / 1e6:,.0f})"
        )
    if counted:
        current().inflate(total, f"the {kind}'s parts")


def check_not_ole(data: bytes, kind: str, legacy: str) -> None:
    """An OOXML file is a zip; a password-protected one is an OLE (CFB) container holding the
    encrypted zip. An OLE file without encryption streams is the older binary format, renamed."""
    if not data.startswith(_OLE_MAGIC):
        return
    if any(stream in data for stream in _ENCRYPTED_STREAMS):
        raise DocumentError(
            f"{kind} is encrypted (password-protected); save a copy without a password and add that"
        )
    raise DocumentError(f"not a {kind} file: it is {legacy} in the older binary format; save it as {kind}")

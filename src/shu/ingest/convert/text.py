"""Plain text → Markdown: e-mail headers become metadata, underlined headings become `#` headings."""

from __future__ import annotations

import contextlib
import re
from email.utils import parsedate_to_datetime
from pathlib import Path

from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text

_HEADER = re.compile(r"^(From|To|Cc|Date|Subject|Sent|In-Reply-To|Message-ID):\s*(.*)$", re.I)
_UNDERLINE = re.compile(r"^(=+|-+)\s*$")


def convert(data: bytes, path: Path) -> Converted:
    text, encoding = decode_text(data)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    meta, body = _email_headers(text)
    warnings = [] if encoding.startswith("utf") else [f"decoded as {encoding}"]
    title = meta.pop("subject", None)
    body = _underlined_headings(body)
    if title:
        header_lines = [f"**{key.title()}:** {value}  " for key, value in meta.items() if key != "date"]
        body = f"# {title}\n\n" + "\n".join(header_lines) + "\n\n" + body
    return Converted(markdown=body.strip() + "\n", title=title, meta=_normalise(meta), warnings=warnings)


def _email_headers(text: str) -> tuple[dict[str, str], str]:
    """Leading `Key: value` header lines (as in a saved e-mail) → dict and the remaining body."""
    lines = text.split("\n")
    headers: dict[str, str] = {}
    index = 0
    while index < len(lines):
        match = _HEADER.match(lines[index].strip())
        if not match:
            break
        headers[match.group(1).lower()] = match.group(2).strip()
        index += 1
    if len(headers) < 2 or ("subject" not in headers and "from" not in headers):
        return {}, text
    return headers, "\n".join(lines[index:])


def _normalise(headers: dict[str, str]) -> dict[str, object]:
    meta: dict[str, object] = {}
    if headers:
        meta["type"] = "email"
    if "date" in headers:
        with contextlib.suppress(TypeError, ValueError):
            meta["date"] = parsedate_to_datetime(headers["date"]).date().isoformat()
    for key in ("from", "to", "cc"):
        if key in headers:
            meta[key] = headers[key]
    return meta


def _underlined_headings(text: str) -> str:
    """`Title\\n=====` → `# Title`, `Section\\n-------` → `## Section`."""
    lines = text.split("\n")
    out: list[str] = []
    for line in lines:
        if out and _UNDERLINE.match(line) and out[-1].strip() and len(line.strip()) >= 3:
            level = "#" if line.strip().startswith("=") else "##"
            out[-1] = f"{level} {out[-1].strip()}"
            continue
        out.append(line)
    return "\n".join(out)

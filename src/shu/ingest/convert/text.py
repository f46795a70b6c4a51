"""Plain text → Markdown: e-mail headers become metadata, underlined headings become `#` headings."""

from __future__ import annotations

import contextlib
import re
from email.utils import parsedate_to_datetime
from pathlib import Path

from shu.ingest.convert.base import Converted
from shu.ingest.convert.decode import decode_text

_KNOWN = frozenset({"from", "to", "cc", "date", "subject", "sent", "in-reply-to", "message-id"})
_MAIL_ONLY = re.compile(
    r"^(?:x-[\w-]+|mime-version|content-[\w-]+|received|return-path|reply-to|bcc|references|importance"
    r"|priority|thread-[\w-]+|delivered-to|dkim-signature|arc-[\w-]+|authentication-results|list-[\w-]+"
    r"|precedence|user-agent|organization|sender|envelope-to|errors-to)$",
    re.I,
)
"""Headers a mail program writes that say nothing a reader wants: dropped from the text."""
_HEADER = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)$")
_SHOWN = ("from", "to", "cc")
_UNDERLINE = re.compile(r"^(=+|-+)\s*$")


def convert(data: bytes, path: Path) -> Converted:
    """One text file → one document (`shu.ingest.convert.thread` splits a saved mail thread)."""
    return from_text(*decode_text(data))


def from_text(text: str, encoding: str) -> Converted:
    """Decoded text (`encoding` as `decode_text` names it) → its document."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    meta, body = email_headers(text)
    warnings = [] if encoding.startswith("utf") else [f"decoded as {encoding}"]
    title = meta.pop("subject", None) or None
    body = _underlined_headings(body)
    if meta:
        header_lines = [f"**{key.title()}:** {_shown(meta, key)}  " for key in _SHOWN if _shown(meta, key)]
        heading = f"# {title}\n\n" if title else ""
        body = heading + "\n".join(header_lines) + "\n\n" + body
    return Converted(markdown=body.strip() + "\n", title=title, meta=_normalise(meta), warnings=warnings)


def _shown(headers: dict[str, str], key: str) -> str:
    """A From/To/Cc line as shown: the addresses, and the names an `X-` header gives them."""
    value, names = headers.get(key, ""), headers.get(f"x-{key}", "")
    return f"{value} ({names})" if value and names else value or names


def email_headers(text: str) -> tuple[dict[str, str], str]:
    """Leading mail header lines (as in a saved e-mail, continuation lines folded in) → the known
    headers and the remaining body; mail-program headers (MIME, X-…) are dropped, and any other
    `Key: value` line is text."""
    lines = text.split("\n")
    headers: dict[str, str] = {}
    last = ""
    index = 0
    while index < len(lines):
        line = lines[index]
        match = _HEADER.match(line.strip())
        if last and line[:1] in (" ", "\t") and line.strip():
            headers[last] = f"{headers[last]} {line.strip()}".strip()
        elif match and (match.group(1).lower() in _KNOWN or _MAIL_ONLY.match(match.group(1))):
            last = match.group(1).lower()
            headers[last] = match.group(2).strip()
        else:
            break  # the first line that is not a mail header starts the body: "Decision: …" stays
        index += 1
    known = {key: value for key, value in headers.items() if key in _KNOWN}
    if len(known) < 2 or ("subject" not in known and "from" not in known):
        return {}, text
    for key in _SHOWN:  # "X-To: Brad McSherry" beside "To: brad.mcsherry@enron.com"
        names = _display_names(headers.get(f"x-{key}", ""))
        if names and names.casefold() != known.get(key, "").casefold():
            known[f"x-{key}"] = names
    return known, "\n".join(lines[index:])


_DIRECTORY_PATH = re.compile(r"<(?![^<>@]+@)[^<>]*>|\(e-?mail\)", re.I)
"""An Exchange directory path (`</O=ENRON/OU=NA/CN=RECIPIENTS/CN=Lbolt>`) or "(E-mail)": not a name."""


def _display_names(value: str) -> str:
    """The people an `X-To`/`X-From`/`X-cc` header names (Exchange and Outlook exports write the
    names there and only the addresses in `To:`), without directory paths."""
    return re.sub(r"\s+,", ",", " ".join(_DIRECTORY_PATH.sub(" ", value).split())).strip(" ,")


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

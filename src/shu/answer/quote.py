"""Text quoted from a document is data. Only Shu writes citation keys: a key-like string inside
a document (`[^other-doc:Secret]`) is neutralised before it reaches an answer, so no reader,
renderer or verifier can take it for a citation Shu made; nor does a `javascript:` link quoted
from a document become a live link when the answer is rendered as Markdown."""

from __future__ import annotations

import re

_KEY_LIKE = re.compile(r"\[\^([^\]\n]*)\]")
_UNSAFE_LINK = re.compile(r"\]\((?!\s*<?\s*https?://)", re.I)
"""A Markdown link to anything but http(s) (`[click](javascript:…)`, `(<javascript:…>)`)."""
_DEFINITION = re.compile(r"\]:")
"""A reference definition (`[r]: javascript:…`) that a `[x][r]` elsewhere would follow."""
_UNSAFE_AUTOLINK = re.compile(r"<(?=\s*[a-z][a-z0-9+.-]*:)(?!\s*https?://)", re.I)


def quoted(text: str) -> str:
    """`text` with every `[^…]` written as `(^…)`, and no Markdown link to a non-http scheme."""
    return safe_links(_KEY_LIKE.sub(lambda m: f"(^{m.group(1)})", text))


def quoted_line(text: str) -> str:
    """`quoted(text)` on one line: a line break inside a title or heading cannot start a line
    of its own in an answer made of lines (a forged list item)."""
    return quoted(" ".join(text.split()))


def safe_links(text: str) -> str:
    """`text` with no Markdown link, reference definition or autolink to anything but http(s):
    `[x](javascript:…)` → `[x] (javascript:…)`, `[r]: …` → `[r] : …`, `<data:…>` → `< data:…>`.
    For generated text too, which a document's instructions may have steered."""
    text = _UNSAFE_LINK.sub("] (", text)
    text = _DEFINITION.sub("] :", text)
    return _UNSAFE_AUTOLINK.sub("< ", text)

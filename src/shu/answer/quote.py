"""Text quoted from a document is data. Only Shu writes citation keys: a key-like string inside
a document (`[^other-doc:Secret]`) is neutralised before it reaches an answer, so no reader,
renderer or verifier can take it for a citation Shu made; nor does a `javascript:` link quoted
from a document become a live link when the answer is rendered as Markdown."""

from __future__ import annotations

import re

_KEY_LIKE = re.compile(r"\[\^([^\]\n]*)\]")
_SCHEME_LINK = re.compile(r"\]\(\s*(?!https?://)(?=[a-z][a-z0-9+.-]*:)", re.I)
"""A Markdown link to anything but http(s) (`[click](javascript:…)`): its `](` is broken."""


def quoted(text: str) -> str:
    """`text` with every `[^…]` written as `(^…)`, and no Markdown link to a non-http scheme."""
    return safe_links(_KEY_LIKE.sub(lambda m: f"(^{m.group(1)})", text))


def safe_links(text: str) -> str:
    """`text` with no Markdown link to a non-http scheme (`[x](javascript:…)` → `[x] (javascript:…)`):
    for generated text too, which a document's instructions may have steered."""
    return _SCHEME_LINK.sub("] (", text)

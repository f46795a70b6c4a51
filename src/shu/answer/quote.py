"""Text quoted from a document is data. Only Shu writes citation keys: a key-like string inside
a document (`[^other-doc:Secret]`) is neutralised before it reaches an answer, so no reader,
renderer or verifier can take it for a citation Shu made."""

from __future__ import annotations

import re

_KEY_LIKE = re.compile(r"\[\^([^\]\n]*)\]")


def quoted(text: str) -> str:
    """`text` with every `[^…]` written as `(^…)`."""
    return _KEY_LIKE.sub(lambda m: f"(^{m.group(1)})", text)

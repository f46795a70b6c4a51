"""The names a question gives, as yes/no answers read them: capitalised words past its first word
("PagerDuty", "Team"), the one it puts as its condition ("on the Team plan"), and whether a text
holds a name ("Teams" holds "Team")."""

from __future__ import annotations

import re

CONDITION = re.compile(
    r"\b(?:on|in|for|at|with|under)\s+(?:the\s+|our\s+|a\s+|an\s+|my\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)"
)
"""A name the question puts as its condition: "on the Pro plan", "on Starter"."""
_NAME = re.compile(r"\b[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*")


def has_name(text: str, name: str) -> bool:
    """`name` is a word of `text` ("Teams" is there as "Team" too)."""
    stem = name[:-1] if name.endswith("s") and len(name) > 3 else name
    return bool(re.search(rf"(?<!\w){re.escape(stem)}s?(?!\w)", text, re.I))


def names(text: str) -> list[str]:
    """Capitalised words past the first word: the names a yes/no question's condition is."""
    first = re.match(r"\s*\S+", text)
    found = [m.group(0) for m in _NAME.finditer(text, first.end() if first else 0)]
    return [n for n in found if n not in ("I", "I'm")]

"""Abbreviations a text defines itself: "single sign-on (SSO)" or "SSO (single sign-on)". The
short form's letters must be the initials of the long form's words, in order (the idea of
Schwartz & Hearst, 2003, kept to whole-word initials): "Service Level Agreement (SLA)" is one,
"the plan (Pro)" is not."""

from __future__ import annotations

import re

_SHORT = r"[A-Z][A-Za-z0-9&]{1,9}"
_LONG_THEN_SHORT = re.compile(rf"((?:[\w'’-]+[ ]){{1,10}})\(({_SHORT})s?\)")
_SHORT_THEN_LONG = re.compile(rf"\b({_SHORT})s?\s+\(([A-Za-z][\w'’ -]{{2,80}})\)")
_SMALL_WORDS = frozenset("of and for the to in on a an with by".split())


def defined_abbreviations(text: str, limit: int = 20) -> dict[str, str]:
    """short form → long form, as the text defines them, first definition kept."""
    found: dict[str, str] = {}
    for match in _LONG_THEN_SHORT.finditer(text):
        short = match.group(2)
        long = _long_form(short, match.group(1).split())
        if long and short not in found:
            found[short] = long
    for match in _SHORT_THEN_LONG.finditer(text):
        short, long = match.group(1), " ".join(match.group(2).split())
        if short not in found and _long_form(short, long.split()) == long:
            found[short] = long
    return dict(list(found.items())[:limit])


def _long_form(short: str, words: list[str]) -> str | None:
    """The shortest tail of `words` whose initials spell `short` (each part of a hyphenated word
    counted; a small word — of, and, to… — may give its initial or not), or None."""
    letters = "".join(c.lower() for c in short if c.isalpha())
    if len(letters) < 2 or not any(c.isupper() for c in short):
        return None
    for start in range(len(words) - 1, max(-1, len(words) - 2 * len(letters) - 1), -1):
        tail = words[start:]
        parts = [p for w in tail for p in re.split(r"[-’']", w) if p]
        if parts and parts[0].lower() not in _SMALL_WORDS and _spells(letters, [p.lower() for p in parts]):
            return " ".join(tail)
    return None


def _spells(letters: str, parts: list[str]) -> bool:
    """Whether the parts' initials spell the letters, every part but a small word used."""
    if not parts:
        return not letters
    first, rest = parts[0], parts[1:]
    if letters and first[0] == letters[0] and _spells(letters[1:], rest):
        return True
    return first in _SMALL_WORDS and _spells(letters, rest)

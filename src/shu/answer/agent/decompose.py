"""A question split into the parts that need their own search, by rules: several questions in
one, clauses joined by "while", "whereas", "compared to", ";" or ", and …", and comparisons of
two named things ("Did Acme or Globex …" → one question about each)."""

from __future__ import annotations

import re

from shu.text import content_words

_CLAUSES = re.compile(
    r"\?\s+(?=\S)|;\s+|,?\s+(?:while|whereas|as compared to|compared to|compared with|in contrast to)\s+"
    r"|,\s+(?:and|but)\s+(?=(?:the|a|an|did|does|do|is|was|were|what|which|who|how|when|where|why)\b)"
    r"|\s+and\s+(?=(?:did|does|do|is|was|were|what|which|who|how|when|where|why)\b)"
    r"|,?\s+and\s+(?=(?:the|a|an|another)\s+(?:\w+\s+)?(?:report|article|story|piece|post|paper|email|message)s?\b)",
    re.I,
)
_NAME = r"['\"‘“]?[A-Z][\w.&'-]*(?:\s+(?:of\s+|the\s+|&\s+)?[A-Z][\w.&'-]*)*['\"’”]?"
_PAIR = re.compile(
    rf"(?<![\w'\"‘“])(?:both\s+|between\s+|either\s+)?({_NAME})(\s+[a-z]+)?"
    rf"\s*(?:,|\s)\s*(?:and|or|vs\.?|versus)\s+(?:the\s+)?({_NAME})"
)
_MIN_WORDS = 2
_LEADING = re.compile(
    r"^(?:(?:did|does|do|is|was|were|are|has|have|had|can|could|will|would|should|which|what|who|whom|how|"
    r"when|where|why|compare|between|both|either|neither|the)\s+)+",
    re.I,
)
_MAX_PARTS = 4


def sub_questions(question: str) -> list[str]:
    """The parts of `question`, each searchable alone; the question itself when it has none."""
    parts = [p.strip(" ,.") for p in _CLAUSES.split(question)]
    parts = [p for p in parts if len(content_words(p)) >= _MIN_WORDS]
    if len(parts) < 2:
        parts = _compared(question)
    if len(parts) < 2:
        return [question]
    return list(dict.fromkeys(parts))[:_MAX_PARTS]


def _compared(question: str) -> list[str]:
    """ "Did Acme or Globex raise prices?" → "Did Acme raise prices?", "Did Globex raise prices?"."""
    match = _PAIR.search(question)
    if match is None:
        return []
    lead = _LEADING.match(match.group(1))
    start = match.start(1) + (lead.end() if lead else 0)
    first, noun, second = question[start : match.end(1)], match.group(2) or "", match.group(3)
    if not first or first.casefold() == second.casefold():
        return []
    before, after = question[:start], question[match.end() :]
    if noun and not after.startswith(noun):
        after = noun + after
    return [f"{before}{name}{after}".strip() for name in (first, second)]

"""Plain-text helpers shared by chunking, search and answering: tokens, sentences, slugs, and the
reading of loose metadata values (dates, lists of names). Words and their stems are defined in
`shu.analysis` (what a word is, for matching and for the keyword index) and given here too."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from datetime import date

from shu.analysis import STOPWORDS as STOPWORDS
from shu.analysis import content_words as content_words
from shu.analysis import stem as stem
from shu.analysis import words as words
from shu.months import MONTHS

_TOKEN = re.compile(r"\w+|[^\w\s]", re.UNICODE)
_ABBREVIATIONS = {
    "e.g",
    "i.e",
    "etc",
    "vs",
    "dr",
    "mr",
    "mrs",
    "ms",
    "prof",
    "inc",
    "ltd",
    "jr",
    "sr",
    "st",
    "no",
    "fig",
    "approx",
    "dept",
    "est",
    "u.s",
    "a.m",
    "p.m",
    *(month[:3] for month in MONTHS if month != "may"),  # "Jan." ends no sentence; "May." does
    "sept",
}
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def count_tokens(text: str) -> int:
    """Word-level tokens (words and punctuation marks): the unit of chunk sizes."""
    return len(_TOKEN.findall(text))


def token_pieces(text: str, max_tokens: int) -> list[str]:
    """`text` cut into consecutive pieces of at most `max_tokens` tokens, every character kept
    (the pieces joined are `text`): each cut at the last space before the limit, else between two
    tokens (a minified JSON line has no space to cut at)."""
    pieces: list[str] = []
    start, count, gap = 0, 0, -1
    for match in _TOKEN.finditer(text):
        if count and text[match.start() - 1].isspace():
            gap = match.start()
        if count >= max(1, max_tokens):
            cut = gap if gap > start else match.start()
            pieces.append(text[start:cut])
            start, count, gap = cut, count_tokens(text[cut : match.start()]), -1
        count += 1
    return [*pieces, text[start:]]


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences; keeps common abbreviations (e.g., Dr., Jan.) intact."""
    text = " ".join(text.split())
    if not text:
        return []
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        candidate = text[start : match.start()].rstrip()
        last_word = candidate.rsplit(" ", 1)[-1].rstrip(".!?").lower()
        if last_word in _ABBREVIATIONS or (len(last_word) == 1 and last_word.isalpha()):
            continue
        sentences.append(text[start : match.end()].strip())
        start = match.end()
    tail = text[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


def slugify(value: str) -> str:
    """A stable kebab-case id: `2026 Q1 Report (final).pdf` → `2026-q1-report-final-pdf`."""
    ascii_text = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def name_id(name: str) -> str:
    """A document id from a file name: its slug, or for a name with no Latin letters or digits
    (`日本語`, `Ελληνικά`) `doc-` and a hash of the name, the same on every run."""
    slug = slugify(name)
    if slug:
        return slug
    digest = hashlib.sha256(unicodedata.normalize("NFC", name).encode("utf-8")).hexdigest()
    return f"doc-{digest[:12]}" if name.strip() else ""


def joined_without_overlap(previous: str, text: str, longest: int = 4000, shortest: int = 5) -> str:
    """`previous` followed by `text`, less the part of `text`'s start that repeats `previous`'s
    end (consecutive chunks of a section overlap): the longest repeat that begins at a word
    boundary of `previous`, between `shortest` and `longest` characters."""
    for start in range(max(0, len(previous) - longest), len(previous) - shortest + 1):
        if start > 0 and not previous[start - 1].isspace():
            continue
        tail = previous[start:]
        if text.startswith(tail):
            return previous + text[len(tail) :]
    return previous + "\n" + text


def iso_date(value: str | None) -> date | None:
    """The day of an ISO date or timestamp (`2025-11-06`, `2025-11-06T09:00`); None when absent
    or not a date."""
    try:
        return date.fromisoformat(value[:10]) if value else None
    except ValueError:
        return None


def as_strings(value: object) -> list[str]:
    """A frontmatter value that may be one name or a list of them, as a list of non-empty strings."""
    if isinstance(value, list):
        return [str(v) for v in value if v]
    return [str(value)] if value else []

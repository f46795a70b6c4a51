"""A document's Key Terms and Also Known As block (the persona PRD's document format):

    **Key Terms**: single sign-on, SAML, Okta
    **Also Known As**: SSO = single sign-on; IdP = identity provider

written by conversion under the frontmatter, read at ingestion — out of the text (never quoted
as a sentence) into what keyword and vector search index: the first chunk carries the terms, and
a chunk naming one form of an alias carries the other too ("SSO" is found by "single sign-on").
A document without the block still gets the aliases it defines itself ("single sign-on (SSO)")."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shu.enrich.abbreviations import defined_abbreviations
from shu.types import Chunk

_LINE = re.compile(r"^\*\*(Key Terms|Also Known As)\*\*\s*:\s*(.*)$", re.IGNORECASE)
_PAIR = re.compile(r"^(.+?)\s*(?:=|\((.+)\)$)\s*(.*)$")
_WORD = re.compile(r"[\w-]+")
_MAX_TERMS = 24
_MAX_TERM_CHARS = 80


@dataclass
class KeyTerms:
    terms: list[str] = field(default_factory=list)
    """Key Terms, and the bare names of Also Known As"""
    aliases: dict[str, str] = field(default_factory=dict)
    """short form → long form (Also Known As pairs, then what the text defines)"""

    def __bool__(self) -> bool:
        return bool(self.terms or self.aliases)


def read_block(body: str) -> tuple[str, KeyTerms]:
    """The body without its block (at the top, before any other text), and what the block says."""
    lines = body.splitlines(keepends=True)
    found = KeyTerms()
    at = 0
    while at < len(lines) and not lines[at].strip():
        at += 1
    taken = at
    while taken < len(lines) and (match := _LINE.match(lines[taken].strip())):
        items = [i.strip() for i in re.split(r"[;,]", match.group(2)) if i.strip()]
        for item in items[:_MAX_TERMS]:
            _take(item[:_MAX_TERM_CHARS], match.group(1).lower() == "also known as", found)
        taken += 1
    if taken == at:
        return body, found
    return "".join(lines[:at] + lines[taken:]).lstrip("\n"), found


def suggested(body: str, tags: list[str]) -> KeyTerms:
    """What conversion writes for a new document: the persona's tags the text names (whole
    words), and the abbreviations it defines."""
    spoken = _spoken(body)
    named = [t for t in tags if _spoken(t) in spoken]
    return KeyTerms(terms=named[:_MAX_TERMS], aliases=defined_abbreviations(body))


def block(terms: KeyTerms) -> str:
    """The block as conversion writes it (empty when there is nothing to say)."""
    lines = []
    if terms.terms:
        lines.append(f"**Key Terms**: {', '.join(_clean(t) for t in terms.terms)}")
    if terms.aliases:
        pairs = "; ".join(f"{_clean(short)} = {_clean(long)}" for short, long in terms.aliases.items())
        lines.append(f"**Also Known As**: {pairs}")
    return "\n".join(lines) + "\n\n" if lines else ""


def indexed(chunks: list[Chunk], body: str, declared: KeyTerms) -> list[Chunk]:
    """The chunks with the terms in what is indexed: the first chunk carries the Key Terms; a
    chunk naming one form of an alias the block declares or the text defines carries the other."""
    aliases = {**defined_abbreviations(body), **declared.aliases}
    made = []
    for number, chunk in enumerate(chunks):
        extra = []
        if number == 0 and declared.terms:
            extra.append(f"Key terms: {', '.join(declared.terms)}")
        other = [_other(short, long, chunk.text) for short, long in aliases.items()]
        named = [o for o in other if o]
        if named:
            extra.append(f"Also known as: {', '.join(named)}")
        made.append(
            chunk.model_copy(update={"index_text": "\n".join([chunk.index_text, *extra])}) if extra else chunk
        )
    return made


def _take(item: str, also_known_as: bool, found: KeyTerms) -> None:
    pair = _PAIR.match(item) if also_known_as else None
    if pair is not None:
        first, second = pair.group(1).strip(), (pair.group(2) or pair.group(3) or "").strip()
        if first and second:  # "SSO = single sign-on" or "single sign-on (SSO)": the short one first
            short, long = (first, second) if len(first) <= len(second) else (second, first)
            found.aliases.setdefault(short, long)
            return
    if item not in found.terms:
        found.terms.append(item)


def _other(short: str, long: str, text: str) -> str:
    """The form of the alias the text lacks when it names the other, or ''."""
    has_short = re.search(rf"(?<!\w){re.escape(short)}(?!\w)", text) is not None
    has_long = re.search(rf"(?<!\w){re.escape(long)}(?!\w)", text, re.IGNORECASE) is not None
    if has_short and not has_long:
        return long
    if has_long and not has_short:
        return short
    return ""


def _clean(value: str) -> str:
    """A term on one line, without the characters the block uses to separate."""
    return " ".join(re.sub(r"[;,=*\n]", " ", value).split())


def _spoken(text: str) -> str:
    """The text's words, casefolded, between spaces: a phrase is in it as whole words."""
    return f" {' '.join(_WORD.findall(text.casefold()))} "

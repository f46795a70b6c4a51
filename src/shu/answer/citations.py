"""The citation check after generation: a generated answer may show only
citations the context contained.

- a key written exactly as a context section's key is kept;
- a near miss (the right document, its section misspelled, or the id's case or a character off)
  resolves to that document's closest section;
- a key that resolves to nothing is removed from the text and counted;
- a factual sentence that cites nothing is flagged; a sentence without any bracket, followed in
  its paragraph by one that cites, takes that citation (small models cite once, at the end of the
  paragraph the passage supports; the verifier still checks each sentence against it);
- a key whose section path holds a full stop (`> 3. Retention periods`) is never split as if the
  sentence ended inside it;
- in a numbered context (small models cite `[1]`, not keys), `[n]`, `[1, 3]` and `[2-4]` are the
  context's n-th sections' keys; a number past the last section is removed and counted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher, get_close_matches

from shu.answer.quote import safe_links
from shu.text import split_sentences
from shu.types import (
    AnswerSentence,
    AssembledContext,
    Citation,
    CitationCheck,
    ContextDocument,
    ContextSection,
)

KEY = re.compile(r"\[\^?([^\[\]\n]{1,300})\]")
"""A citation as a model writes it: `[^doc:Section]`, or without the caret (small models drop it)."""
REASONING = re.compile(r"^\s*(?:\*\*|__)?reasoning(?:\*\*|__)?\s*:", re.I | re.M)
_CARET_KEY = re.compile(r"\[\^[^\[\]\n]{1,300}\]")
_LEADING_KEYS = re.compile(r"^\s*(?:\[\^[^\[\]\n]{1,300}\]\s*)+")
_KEYS_AFTER_STOP = re.compile(r"([.!?])\s*((?:\[\^[^\[\]\n]{1,300}\]\s*)+)")
"""`stop. [^key] Next` is read as `stop [^key]. Next` (so the sentence splitter sees the stop)."""
NUMBERS = re.compile(r"\[\^?\s*(\d{1,3}(?:\s*(?:[,;]|-|–|and)\s*\d{1,3}){0,9})\s*\]")
"""Numbers a model writes for numbered sections: `[2]`, `[1, 3]`, `[1][2]`, `[2-4]`, `[^2]`."""
_MAX_RANGE = 10
_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:!?])")
_REMOVED = "\ue000"
"""Where a citation that resolved to nothing was taken out, until the sentences are split: that
sentence cited something (wrongly), so it does not take the next sentence's citation."""
_MASK = re.compile("\ue001(\\d+)\ue002")
_DOUBLE_SPACE = re.compile(r"[ \t]{2,}")


MIN_RESEMBLANCE = 0.6
"""How close a misspelled section must be to a real one to be taken for it."""
_PART = re.compile(r"(?:^|[\s(])part\s*(\d{1,3})\s*\)?\s*$", re.I)
"""`(part 2)` (or `part 2`) ending a written section: the context's second section of that path,
when two sections resemble what is written as much (the resemblance decides first)."""


def _resemblance(written: str, path: str) -> float:
    """Similarity of a written section to a section path: the whole path or its last heading."""
    leaf = path.rsplit(" > ", 1)[-1]
    if written in (path, leaf) or (len(written) >= 4 and (written in path or leaf in written)):
        return 1.0
    return max(SequenceMatcher(None, written, path).ratio(), SequenceMatcher(None, written, leaf).ratio())


def _part_resemblance(wanted: str, section: ContextSection) -> tuple[float, bool]:
    """How close a written section (casefolded) is to a context section as its key writes it
    (`Timeline (UTC) (part 2)` for a second part), or, when it names that part, how close the rest
    is to the section's path; and whether it names that part (`(part n)`, or none for part 1)."""
    keyed = section.section_path + (f" (part {section.part})" if section.part > 1 else "")
    closeness = _resemblance(wanted, keyed.casefold())
    part = _PART.search(wanted)
    if part is None:
        return closeness, section.part == 1
    if int(part.group(1)) != section.part:
        return closeness, False
    rest = wanted[: part.start()].strip(" (")
    return max(closeness, _resemblance(rest, section.section_path.casefold())), True


@dataclass(frozen=True)
class Source:
    document: ContextDocument
    section: ContextSection

    @property
    def key(self) -> str:
        return self.section.citation_key

    def citation(self) -> Citation:
        return self.document.citation(self.section)


class ContextKeys:
    """The citation keys a context offers, and how a written key resolves to one of them."""

    def __init__(self, context: AssembledContext, numbered: list[str] | None = None) -> None:
        """`numbered`: the keys of the sections the model was shown as [1]…[n], in that order."""
        self.sources: dict[str, Source] = {}
        self._by_document: dict[str, list[Source]] = {}
        for document in context.documents:
            for section in document.sections:
                if section.chunk_ids:
                    source = Source(document, section)
                    self.sources.setdefault(source.key, source)
                    self._by_document.setdefault(document.doc_id.casefold(), []).append(source)
        self.numbered = [self.sources[key] for key in numbered or [] if key in self.sources]

    def numbers(self, written: str) -> list[tuple[int, Source | None]] | None:
        """In a numbered context, each number `[2]`, `[1, 3]` or `[2-4]` names with its section
        (None for a number past the last section); None when `written` is not numbers or the
        context is not numbered."""
        match = NUMBERS.fullmatch(written.strip())
        if not self.numbered or match is None:
            return None
        return [
            (n, self.numbered[n - 1] if 1 <= n <= len(self.numbered) else None)
            for n in _numbers(match.group(1))
        ]

    def claims_citation(self, written: str) -> bool:
        """Whether a bracket the model wrote is meant as a citation (a caret key, a `doc:Section`,
        or numbers in a numbered context): one that resolves to nothing is then removed."""
        inner = written[1:-1] if written.startswith("[") else written
        return written.startswith("[^") or ":" in inner or self.numbers(written) is not None

    def resolve(self, written: str) -> Source | None:
        """The section a written key (`[^doc:Section]` or its inside, or `[n]` in a numbered
        context) names, or None."""
        inner = written[1:-1] if written.startswith("[") else written
        inner = inner.removeprefix("^").strip()
        if (exact := self.sources.get(f"[^{inner}]")) is not None:
            return exact
        if (numbered := self.numbers(written)) is not None:
            return numbered[0][1] if len(numbered) == 1 else None
        doc_id, section = self._split(inner)
        candidates = self._by_document.get(doc_id)
        if candidates is None:
            return None
        wanted = section.strip().casefold()
        if not wanted:
            return candidates[0]  # `[^doc]`: the document's best section
        scored = [(*_part_resemblance(wanted, s.section), -i) for i, s in enumerate(candidates)]
        best = max(range(len(candidates)), key=lambda i: scored[i])
        return candidates[best] if scored[best][0] >= MIN_RESEMBLANCE else None

    def _split(self, inner: str) -> tuple[str, str]:
        """(known document id, section) of `doc:Section`: the id may itself be off by case or a
        character or two; a key with no `:` names a document alone."""
        doc_id, _, section = inner.partition(":")
        folded = doc_id.strip().casefold()
        if folded in self._by_document:
            return folded, section
        close = get_close_matches(folded, list(self._by_document), n=1, cutoff=0.85)
        return (close[0], section) if close else ("", section)


@dataclass
class CheckedAnswer:
    text: str
    sentences: list[AnswerSentence]
    citations: list[Citation]
    check: CitationCheck


def check_citations(text: str, keys: ContextKeys) -> CheckedAnswer:
    """`text` with every key resolved or removed, split into sentences with their citations,
    the citations in order of first use, and what the check found."""
    check = CitationCheck()
    used: dict[str, Source] = {}

    passes = 0

    def replace(match: re.Match[str]) -> str:
        written = match.group(0)
        if passes and written in used:
            return written  # kept by an earlier pass
        if (numbered := keys.numbers(written)) is not None:
            return _numbered(numbered)
        source = keys.resolve(written)
        if source is None:
            if keys.claims_citation(written):
                check.removed.append(written)
                return _REMOVED
            return written  # `[1]`, `[sic]`: brackets, not a citation
        if written == source.key:
            check.kept += 1
        else:
            check.repaired.append(f"{written} → {source.key}")
        used.setdefault(source.key, source)
        return source.key

    def _numbered(numbered: list[tuple[int, Source | None]]) -> str:
        """`[1, 3]` → `[^a:X][^b:Y]`; a number past the last section is removed and counted."""
        shown: list[str] = []
        for n, source in numbered:
            if source is None:
                check.removed.append(f"[{n}]")
                shown.append(_REMOVED)
                continue
            check.kept += 1
            used.setdefault(source.key, source)
            if source.key not in shown:
                shown.append(source.key)
        return "".join(key for key in shown if key != _REMOVED) or (_REMOVED if shown else "")

    resolved = text
    for passes in range(5):  # noqa: B007 - `[^a:B[^x:y]]`: the inner key goes, then the outer is checked
        before, resolved = resolved, KEY.sub(replace, resolved)
        if resolved == before:
            break
    marked = safe_links(tidy(_neutralise(resolved, set(used))))
    resolved = safe_links(tidy(_neutralise(resolved.replace(_REMOVED, ""), set(used))))
    facts = REASONING.split(marked, maxsplit=1)[0]  # reasoning is the model's own: not flagged
    sentences = attach_citations(facts)
    check.uncited = [s.text for s in sentences if not s.citations and is_factual(s.text)]
    return CheckedAnswer(resolved, sentences, [s.citation() for s in used.values()], check)


def _neutralise(text: str, kept: set[str]) -> str:
    """Every `[^` that does not open a key the check kept is written `(^`: nothing that looks
    like a citation is shown unless it is one."""
    out: list[str] = []
    at = 0
    for match in re.finditer(r"\[\^", text):
        out.append(text[at : match.start()])
        rest = text[match.start() :]
        out.append("[^" if any(rest.startswith(key) for key in kept) else "(^")
        at = match.end()
    return "".join(out) + text[at:]


def attach_citations(text: str) -> list[AnswerSentence]:
    """Sentences with the keys they carry; keys written after a sentence's full stop
    (`… $65. [^pricing:Plans] Next sentence`) belong to that sentence, not the next; a sentence
    with no bracket at all takes the citations of the next sentence of its paragraph that has some
    (`A. B. C [^x:y].`: the model cited the paragraph once)."""
    sentences: list[AnswerSentence] = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*(?:[-*+]|\d+[.)])\s)", text):
        masked, hidden = _masked(_KEYS_AFTER_STOP.sub(r" \2\1 ", paragraph))
        uncited: list[AnswerSentence] = []
        for part in (_unmasked(p, hidden) for p in split_sentences(masked)):
            leading = _LEADING_KEYS.match(part)
            if leading and sentences:
                sentences[-1].citations.extend(
                    k for k in _keys(leading.group(0)) if k not in sentences[-1].citations
                )
                if uncited and uncited[-1] is sentences[-1]:
                    for waiting in uncited[:-1]:
                        waiting.citations = list(sentences[-1].citations)
                    uncited = []
                part = part[leading.end() :]
            words = tidy(" ".join(_CARET_KEY.sub("", part.replace(_REMOVED, "")).split()))
            if not words.strip(" .,;:-*"):
                continue
            sentence = AnswerSentence(text=words, citations=_keys(part))
            if sentence.citations:
                for waiting in uncited:
                    waiting.citations = list(sentence.citations)
                uncited = []
            elif _REMOVED not in part:
                uncited.append(sentence)
            else:
                uncited = []
            sentences.append(sentence)
    return sentences


def _masked(text: str) -> tuple[str, list[str]]:
    """`text` with each key replaced by a placeholder without spaces or stops (a section path
    like `> 3. Retention periods` must not end a sentence), and the keys it stands for."""
    hidden: list[str] = []

    def hide(match: re.Match[str]) -> str:
        hidden.append(match.group(0))
        return f"\ue001{len(hidden) - 1}\ue002"

    return _CARET_KEY.sub(hide, text), hidden


def _unmasked(text: str, hidden: list[str]) -> str:
    return _MASK.sub(lambda m: hidden[int(m.group(1))], text)


def _keys(text: str) -> list[str]:
    return [m.group(0) for m in _CARET_KEY.finditer(text)]


def is_factual(sentence: str) -> bool:
    """A statement of some length: not a question, not a heading, not a one-word courtesy."""
    stripped = sentence.strip()
    return len(stripped.split()) >= 4 and not stripped.endswith("?") and not stripped.startswith("#")


def tidy(text: str) -> str:
    """No space left before punctuation or doubled where a key was taken out."""
    lines = [
        _DOUBLE_SPACE.sub(" ", _SPACE_BEFORE_PUNCT.sub(r"\1", line)).rstrip() for line in text.split("\n")
    ]
    return "\n".join(lines).strip()


def _numbers(written: str) -> list[int]:
    """`1, 3` → [1, 3]; `2-4` → [2, 3, 4] (a range of at most ten; a longer one is its two ends)."""
    found: list[int] = []
    for item in re.split(r"\s*(?:[,;]|\band\b)\s*", written.strip()):
        bounds = re.fullmatch(r"(\d{1,3})\s*[-–]\s*(\d{1,3})", item)
        if bounds is not None:
            low, high = int(bounds[1]), int(bounds[2])
            found.extend(range(low, high + 1) if 0 <= high - low < _MAX_RANGE else (low, high))
        elif item.isdigit():
            found.append(int(item))
    return found

"""The verifier protocol, how an answer splits into claims, and what is done with the verdicts."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, Protocol

from shu.answer.citations import ContextKeys, Source
from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, AssembledContext, ClaimVerdict, Verification

_SUBJECT = r"(?:it|they|we|you|he|she|this|that|these|those|there)\b"
_CLAUSE = re.compile(
    rf";\s+(?=(?:the|a|an|each|every)\b|{_SUBJECT}|[A-Z])"
    rf"|,?\s+and\s+(?={_SUBJECT}|(?!(?:The|A|An)\b)[A-Z])"
)
"""Clause boundaries inside a sentence: `;` before what can start a clause, or `and` before a
subject (a pronoun, a name). Not before a noun phrase that continues a list ("…, and a tiller
safety rule") nor a fragment ("; second Sunday of the month"): a claim split mid-thought cannot be
verified alone."""
_VERDICT_WORD = re.compile(r"^\s*(?:yes|no)[.,!;:]\s+(?=\S)", re.I)
"""A yes or a no opening an answer: the question's verdict, which no cited text states; the rest
of the sentence is the claim."""
_CARET_KEY = re.compile(r"\[\^[^\[\]\n]*\]")
_TRAILING_KEYS = re.compile(r"(?:\s*\[\^[^\[\]\n]*\])*")
"""The citation keys right after a sentence."""
_NOTE_CHARS = 240


@dataclass(frozen=True)
class Claim:
    text: str
    citations: list[str]
    sentence: int
    """Index of the answer sentence it came from."""


class Verifier(Protocol):
    name: str

    def verify(self, claims: list[Claim], context: AssembledContext, background: str = "") -> Verification:
        """`background`: what the writer was told besides the context (the persona's name, its
        description and abbreviations): a name from it is no invented name."""
        ...


def split_claims(answer: Answer) -> list[Claim]:
    """Each sentence, and its clauses joined by `;` or a clause-starting `and`, when each part is
    a statement of its own (four words or more); a clause inherits its sentence's citations. A
    lead-in ("The causes were:") that introduces the sentences after it is not a claim: they are."""
    claims: list[Claim] = []
    for index, sentence in enumerate(answer.sentences):
        if lead_in(sentence.text) and index + 1 < len(answer.sentences):
            continue
        said = _VERDICT_WORD.sub("", sentence.text) or sentence.text
        parts = [p.strip(" .") for p in _CLAUSE.split(said)]
        if len(parts) > 1 and all(len(p.split()) >= 4 for p in parts):
            claims += [Claim(p, list(sentence.citations), index) for p in parts]
        else:
            claims.append(Claim(said, list(sentence.citations), index))
    return claims


def lead_in(text: str) -> bool:
    """A line that ends with a colon: it introduces what follows it."""
    return text.rstrip().endswith(":")


def cited_text(claim: Claim, keys: ContextKeys) -> str:
    """What the writer saw of each context section the claim cites: its document's title and
    date, its section path (a claim may rest on a heading: "CONN-106 means *BigQuery bytes cap
    exceeded*") and its text; empty when it cites none of them."""
    return "\n\n".join(passage(keys.sources[k]) for k in dict.fromkeys(claim.citations) if k in keys.sources)


def passage(source: Source) -> str:
    document, section = source.document, source.section
    dated = f"\nDate: {document.date}" if document.date else ""
    return f"Document: {document.title}{dated}\nSection: {section.section_path}\n\n{section.text}"


def apply_verification(
    answer: Answer, verification: Verification, claims: list[Claim], on_unsupported: Literal["mark", "remove"]
) -> Answer:
    """The answer with its verification; a sentence holding a flagged claim is marked
    `[unsupported]` / `[contradicted]` (or removed, with its citations if nothing else uses them).
    In the text, the mark is a note on its own line after the sentence and its citations: what
    the cited section says instead when it contradicts the claim."""
    flagged: dict[int, ClaimVerdict] = {}
    for claim, given in zip(claims, verification.verdicts, strict=True):
        if given.verdict != "supported":
            worst = flagged.get(claim.sentence)
            if worst is None or (given.verdict == "contradicted" and worst.verdict != "contradicted"):
                flagged[claim.sentence] = given
    spent = {
        "llm_calls": answer.llm_calls + verification.llm_calls,
        "llm_tokens": answer.llm_tokens + verification.llm_tokens,
    }
    if not flagged:
        return answer.model_copy(update={"verification": verification, **spent})
    sentences: list[AnswerSentence] = []
    text = answer.text
    for index, sentence in enumerate(answer.sentences):
        verdict = flagged.get(index)
        if verdict is None:
            sentences.append(sentence)
        elif on_unsupported == "remove":
            text = _without(text, sentence.text)
        else:
            sentences.append(sentence.model_copy(update={"text": f"{sentence.text} [{verdict.verdict}]"}))
            text = _marked(text, sentence.text, note(verdict))
    used = {c for s in sentences for c in s.citations}
    citations = (
        [c for c in answer.citations if c.key in used] if on_unsupported == "remove" else answer.citations
    )
    return answer.model_copy(
        update={
            "verification": verification,
            "sentences": sentences,
            "text": text,
            "citations": citations,
            **spent,
        }
    )


def note(verdict: ClaimVerdict) -> str:
    """The line an answer's reader sees under a flagged sentence: `[contradicted]` with what the
    cited section says instead, or `[unsupported]` with what it does say, when the verifier
    quoted it."""
    said = " ".join(quoted(verdict.quote or "").split())
    if len(said) > _NOTE_CHARS:
        said = said[: _NOTE_CHARS - 1].rstrip() + "…"
    if verdict.verdict == "contradicted":
        return f"[contradicted] the cited section says: “{said}”" if said else "[contradicted]"
    if not verdict.citations:
        return "[unsupported] it cites nothing"
    if said:
        return f"[unsupported] not stated in what it cites, which says: “{said}”"
    return "[unsupported] not stated in what it cites"


def _marked(text: str, sentence: str, line: str) -> str:
    """`line` on a line of its own after `sentence` and the citation keys that follow it."""
    span = _located(text, sentence)
    if span is None:
        return text
    end = span[1]
    tail = _TRAILING_KEYS.match(text, end)
    end = tail.end() if tail else end
    rest = text[end:].lstrip(" \t")
    after = "" if not rest or rest.startswith("\n") else "\n"
    return f"{text[:end]}\n{line}{after}{rest}"


def _without(text: str, sentence: str) -> str:
    span = _located(text, sentence)
    if span is None:
        return text
    at, end = span
    tail = _TRAILING_KEYS.match(text, end)
    end = tail.end() if tail else end
    return " ".join((text[:at] + text[end:]).split(" ")).replace("  ", " ").strip()


def _located(text: str, sentence: str) -> tuple[int, int] | None:
    """Where `sentence` (a checked answer's sentence: its citation keys taken out, its spacing
    tidied) is in `text`, keys and spacing aside: (start, end) in `text`."""
    at = text.find(sentence)
    if at >= 0:
        return at, at + len(sentence)
    kept: list[int] = []  # the index in `text` of each character that is neither space nor in a key
    keys = [(m.start(), m.end()) for m in _CARET_KEY.finditer(text)]
    position, k = 0, 0
    while position < len(text):
        if k < len(keys) and position == keys[k][0]:
            position = keys[k][1]
            k += 1
            continue
        if not text[position].isspace():
            kept.append(position)
        position += 1
    squeezed = "".join(text[i] for i in kept)
    wanted = "".join(sentence.split())
    found = squeezed.find(wanted) if wanted else -1
    if found < 0:
        return None
    return kept[found], kept[found + len(wanted) - 1] + 1

"""Verification without an LLM. A claim is checked against the text of the sections it cites:

- contradicted: it states a number or date the cited text does not, and the cited sentence most
  like it states another in its place (the claim says 1,500, the source says 1,200);
- unsupported: it cites nothing in the context, or states a number, date or name the cited text
  does not hold, or neither its words (stemmed) nor its meaning (cosine with the best cited
  sentence) reach the thresholds;
- supported otherwise.
"""

from __future__ import annotations

import re

import numpy as np

from shu.answer.citations import ContextKeys
from shu.answer.extractive import candidate_sentences
from shu.answer.verify.base import Claim, cited_text
from shu.models.embed.base import Embedder
from shu.text import STOPWORDS, content_words, stem
from shu.types import AssembledContext, ClaimVerdict, Verification

_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+(?:[-'][A-Za-z]+)?|[A-Z]{2,}\d*)\b")
_MONTHS = {
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december", "monday", "tuesday", "wednesday", "thursday", "friday",
    "saturday", "sunday",
}  # fmt: skip


def numbers_in(text: str) -> set[str]:
    """Numbers as values: `1,200` and `1200` are one; `$65.00` is `65`."""
    found = set()
    for raw in _NUMBER.findall(text):
        value = raw.replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".") if re.fullmatch(r"\d+\.\d+", value) else value
        found.add(value)
    return found


def names_in(text: str) -> set[str]:
    """Capitalised words that are not a sentence's first word, a common word or a month."""
    return {n for n in _NAME.findall(text) if n.casefold() not in STOPWORDS and n.casefold() not in _MONTHS}


class RulesVerifier:
    name = "rules"

    def __init__(self, embedder: Embedder, min_similarity: float = 0.62, min_coverage: float = 0.6) -> None:
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.min_coverage = min_coverage

    def verify(self, claims: list[Claim], context: AssembledContext) -> Verification:
        keys = ContextKeys(context)
        sources = [cited_text(claim, keys) for claim in claims]
        sentences = [candidate_sentences(text) or [text] if text else [] for text in sources]
        flat = [s for group in sentences for s in group]
        vectors = self.embedder.embed_documents([c.text for c in claims] + flat) if claims else None
        verdicts: list[ClaimVerdict] = []
        offset = len(claims)
        for index, (claim, source, group) in enumerate(zip(claims, sources, sentences, strict=True)):
            if not source:
                verdicts.append(_verdict(claim, "unsupported", "it cites nothing in the context"))
                continue
            assert vectors is not None
            scores = vectors[offset : offset + len(group)] @ vectors[index]
            offset += len(group)
            best = int(np.argmax(scores))
            verdicts.append(self._judge(claim, source, group[best], float(scores[best])))
        return Verification(method=self.name, verdicts=verdicts)

    def _judge(self, claim: Claim, source: str, closest: str, similarity: float) -> ClaimVerdict:
        said = numbers_in(claim.text)
        missing = sorted(said - numbers_in(source))
        instead = sorted(numbers_in(closest) - said)
        if missing and instead and similarity >= 0.5:
            reason = f"the claim says {', '.join(missing)}; the source says {', '.join(instead)}"
            return _verdict(claim, "contradicted", reason, closest, similarity)
        if missing:
            return _verdict(
                claim, "unsupported", f"{', '.join(missing)} is not in the cited text", closest, similarity
            )
        lowered = source.casefold()
        unknown = sorted(n for n in names_in(claim.text) if n.casefold() not in lowered)
        if unknown:
            return _verdict(
                claim, "unsupported", f"{', '.join(unknown)} is not in the cited text", closest, similarity
            )
        words = {stem(w) for w in content_words(claim.text)}
        known = {stem(w) for w in content_words(source)}
        coverage = len(words & known) / len(words) if words else 1.0
        if coverage >= self.min_coverage or similarity >= self.min_similarity:
            reason = f"{coverage:.0%} of its words are in the cited text; closest sentence {similarity:.2f}"
            return _verdict(claim, "supported", reason, closest, similarity)
        reason = f"only {coverage:.0%} of its words are in the cited text; closest sentence {similarity:.2f}"
        return _verdict(claim, "unsupported", reason, closest, similarity)


def _verdict(
    claim: Claim, verdict: str, reason: str, quote: str | None = None, similarity: float | None = None
) -> ClaimVerdict:
    return ClaimVerdict(
        claim=claim.text,
        citations=claim.citations,
        verdict=verdict,  # type: ignore[arg-type]
        reason=reason,
        quote=quote,
        similarity=None if similarity is None else round(similarity, 4),
        method="rules",
    )

"""Verification without an LLM. A claim is checked against the text of the sections it cites:

- contradicted: it states a number, or a month or weekday, the cited text does not, and the
  cited sentence that shares most of its other words (half of them at least), or the one
  closest in meaning, states another of the same kind in its place (the claim says 1,500, the
  source says 1,200; the claim says May, the source says April); or that sentence says all of
  the claim's words with the opposite polarity ("is" / "is not", "includes" / "does not
  include", "with" / "without");
- unsupported: it cites nothing in the context, or states a number, date or name the cited text
  does not hold, or neither its words (stemmed) nor its meaning (cosine with the best cited
  sentence) reach the thresholds;
  a name is held when the cited text has it, or spells out its acronym ("AGM", Annual General
  Meeting), or it is an acronym naming a number the text has ("HTTP 410"), or the writer knew it
  from elsewhere: a title in the context, the persona's name and description (`background`);
- supported otherwise.
"""

from __future__ import annotations

import re

import numpy as np

from shu.answer.citations import ContextKeys
from shu.answer.verify.base import Claim, cited_text
from shu.answer.verify.units import verifiable
from shu.models.embed.base import Embedder
from shu.months import MONTHS
from shu.text import STOPWORDS, content_words, stem
from shu.types import AssembledContext, ClaimVerdict, VerdictKind, Verification

_NUMBER = re.compile(r"\d[\d,.]*\d|\d")
_CODE = re.compile(r"(?<![\w-])[A-Za-z][\w-]*\d[\w-]*")
"""A name with digits, a letter first (S3, Q3, MS-300, INC-2026-0402): not a value (200gsm is)."""
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-zA-Z]+(?:[-'][A-Za-z]+)?|[A-Z]{2,}\d*)\b")
_NEGATION = re.compile(
    r"\b(?:not|no|never|none|nobody|nothing|neither|nor|cannot|without)\b|\w+n['’]t\b", re.I
)
_NOT_ONLY = re.compile(r"\bnot\s+(?:only|just|merely)\b", re.I)
"""“not only … but also” affirms."""
_SHARED_FOR_VALUES = 0.5
"""Share of a claim's other words a cited sentence must hold for its number or date to be the
one the claim got wrong."""
_SHARED_FOR_POLARITY = 0.8
"""Share of a claim's words a cited sentence must hold for the opposite polarity to contradict it."""
_CLOSE_IN_MEANING = 0.5
_MONTHS = {*MONTHS, "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"}


def numbers_in(text: str) -> set[str]:
    """Numbers as values: `1,200` and `1200` are one; `$65.00` is `65`."""
    found = set()
    for raw in _NUMBER.findall(_CODE.sub(" ", text)):
        value = raw.replace(",", "")
        if "." in value:
            value = value.rstrip("0").rstrip(".") if re.fullmatch(r"\d+\.\d+", value) else value
        found.add(value)
    return found


_ISO_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")


def with_spelled_dates(text: str) -> str:
    """`text` with each ISO date also spelled out (2026-03-17 → 17 March 2026): a claim that
    restates a document's or a message's date in words says what the text says."""
    spelled = []
    for match in _ISO_DATE.finditer(text):
        year, month, day = (int(part) for part in match.groups())
        if 1 <= month <= 12 and 1 <= day <= 31:
            spelled.append(f"{day} {MONTHS[month - 1].title()} {year}")
    return f"{text}\n\n(Dates: {'; '.join(dict.fromkeys(spelled))}.)" if spelled else text


def dates_in(text: str) -> set[str]:
    """Month and weekday names as written with a capital (`May` only next to a number: it is
    also a verb)."""
    return {m.group(0) for m in _DATE_NAME.finditer(text)}


_DATE_NAME = re.compile(
    r"\b(?:" + "|".join(sorted(m.title() for m in _MONTHS if m != "may")) + r")\b"
    r"|\bMay\b(?=,?\s+\d)|(?<=\d\s)May\b"
)


def negated(text: str) -> bool:
    """Whether the text says no: `not`, `never`, `without`, `n't`… (`not only` aside)."""
    return _NEGATION.search(_NOT_ONLY.sub(" ", text)) is not None


def other_words(text: str) -> set[str]:
    """A text's content words, stemmed, without its numbers, dates and negations: what a claim
    and a sentence must share to be about the same thing."""
    said = _NEGATION.sub(" ", text)
    return {stem(w) for w in content_words(said) if not w.isdigit() and w not in _MONTHS}


def names_in(text: str) -> set[str]:
    """Capitalised words that are not a sentence's first word, a common word or a month (a
    possessive's `'s` left out: "Pressline's" names Pressline)."""
    found = {_POSSESSIVE.sub("", n) for n in _NAME.findall(text)}
    return {n for n in found if n.casefold() not in STOPWORDS and n.casefold() not in _MONTHS}


_POSSESSIVE = re.compile(r"['’]s$")


class RulesVerifier:
    name = "rules"

    def __init__(self, embedder: Embedder, min_similarity: float = 0.62, min_coverage: float = 0.6) -> None:
        self.embedder = embedder
        self.min_similarity = min_similarity
        self.min_coverage = min_coverage

    def verify(self, claims: list[Claim], context: AssembledContext, background: str = "") -> Verification:
        keys = ContextKeys(context)
        sources = [with_spelled_dates(cited_text(claim, keys)) for claim in claims]
        sentences = [verifiable(text) or [text] if text else [] for text in sources]
        known = "\n".join([background, *(d.title for d in context.documents)])
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
            verdicts.append(self._judge(claim, source, group, [float(x) for x in scores], known))
        return Verification(method=self.name, verdicts=verdicts)

    def _judge(
        self, claim: Claim, source: str, group: list[str], scores: list[float], known: str
    ) -> ClaimVerdict:
        best = int(np.argmax(scores))
        closest, similarity = group[best], scores[best]
        mine = other_words(claim.text)
        shares = [len(mine & other_words(s)) / len(mine) if mine else 0.0 for s in group]
        nearest = max(range(len(group)), key=lambda i: (shares[i], scores[i]))
        about = [group[nearest]] if shares[nearest] >= _SHARED_FOR_VALUES else []
        about += [closest] if similarity >= _CLOSE_IN_MEANING else []
        if contradicted := _other_value(claim.text, source, about):
            reason, quote = contradicted
            return _verdict(claim, "contradicted", reason, quote, scores[group.index(quote)])
        missing = sorted(_values(claim.text) - _values(source))
        if missing:
            return _verdict(
                claim, "unsupported", f"{', '.join(missing)} is not in the cited text", closest, similarity
            )
        if flipped := _opposite(claim.text, group, shares):
            reason, quote = flipped
            return _verdict(claim, "contradicted", reason, quote, scores[group.index(quote)])
        unknown = sorted(n for n in names_in(claim.text) if not held_name(n, claim.text, source, known))
        if unknown:
            return _verdict(
                claim, "unsupported", f"{', '.join(unknown)} is not in the cited text", closest, similarity
            )
        words = {stem(w) for w in content_words(claim.text)}
        held = {stem(w) for w in content_words(source)}
        coverage = len(words & held) / len(words) if words else 1.0
        if coverage >= self.min_coverage or similarity >= self.min_similarity:
            reason = f"{coverage:.0%} of its words are in the cited text; closest sentence {similarity:.2f}"
            return _verdict(claim, "supported", reason, closest, similarity)
        reason = f"only {coverage:.0%} of its words are in the cited text; closest sentence {similarity:.2f}"
        return _verdict(claim, "unsupported", reason, closest, similarity)


def held_name(name: str, claim: str, source: str, known: str = "") -> bool:
    """Whether the cited text holds a name of the claim: as written, as the words its acronym
    stands for, as an acronym naming one of its numbers ("HTTP 410"); or whether the writer knew
    the name from `known` (the context's titles, the persona's description)."""
    folded = name.casefold()
    if folded in source.casefold() or folded in known.casefold():
        return True
    if not _ACRONYM.fullmatch(name):
        return False
    naming = re.search(rf"\b{re.escape(name)}\s+(\d[\d,.]*\d|\d)\b", claim)
    return bool(naming and numbers_in(naming.group(1)) <= numbers_in(source)) or spelled_out(name, source)


_ACRONYM = re.compile(r"[A-Z]{2,6}")
_JOINING = frozenset({"of", "and", "the", "for", "&"})


def spelled_out(acronym: str, text: str) -> bool:
    """Whether `text` has words whose initials are the acronym, in order (Annual General Meeting
    for AGM; "of", "and", "the" between them are skipped). Two letters need capitalised words."""
    words = [w for w in re.findall(r"[A-Za-z]+|&", text) if w.casefold() not in _JOINING]
    size, wanted = len(acronym), acronym.casefold()
    for start in range(len(words) - size + 1):
        window = words[start : start + size]
        if "".join(w[0] for w in window).casefold() == wanted and (
            size > 2 or all(w[0].isupper() for w in window)
        ):
            return True
    return False


def _values(text: str) -> set[str]:
    return numbers_in(text) | dates_in(text)


def _other_value(claim: str, source: str, about: list[str]) -> tuple[str, str] | None:
    """(why, the sentence) when the claim states a number or date the cited text does not, and a
    sentence about the same thing (`about`: the one sharing most of its other words, the one
    closest in meaning) states another of the same kind."""
    for kind in (numbers_in, dates_in):
        said = kind(claim)
        missing = sorted(said - kind(source))
        for sentence in about if missing else []:
            instead = sorted(kind(sentence) - said)
            if instead:
                return f"the claim says {', '.join(missing)}; the source says {', '.join(instead)}", sentence
    return None


def _opposite(claim: str, group: list[str], shares: list[float]) -> tuple[str, str] | None:
    """(why, the sentence) when the cited sentences that hold (almost) all of the claim's words
    all say the opposite: one says no where the claim says yes, or the other way round."""
    top = max(shares, default=0.0)
    if top < _SHARED_FOR_POLARITY:
        return None
    about = [sentence for sentence, share in zip(group, shares, strict=True) if share == top]
    claim_says_no = negated(claim)
    if any(claim_says_no == negated(s) or _agrees(_holding(s, claim), claim_says_no) for s in about):
        return None
    if claim_says_no:
        return "the claim says no; the cited sentence says yes", about[0]
    return "the claim says yes; the cited sentence says no", about[0]


_CLAUSES = re.compile(
    r"([,;:()]|(?<=[a-z0-9)])\.\s+(?=[A-Z])|\s[–—-]\s|\b(?:if|unless|when|whereas|but|or|and)\b)", re.I
)
_CONDITIONS = {"if", "unless", "when"}


def _holding(sentence: str, claim: str) -> str | None:
    """The clause of `sentence` that holds most of the claim's words, whose polarity is the
    sentence's as far as the claim goes ("if you do nothing" does not deny "you choose a plan");
    None when that clause is a condition ("if it does not answer within 10 seconds" neither
    affirms nor denies "it has 10 seconds to answer")."""
    mine = other_words(claim)
    pieces = _CLAUSES.split(sentence)
    clauses = [(pieces[i - 1].strip().casefold() if i else "", pieces[i]) for i in range(0, len(pieces), 2)]
    clauses = [(before, clause) for before, clause in clauses if clause.strip()]
    if len(clauses) < 2 or not mine:
        return sentence
    before, clause = max(clauses, key=lambda pair: len(mine & other_words(pair[1])))
    return None if before in _CONDITIONS else clause


def _agrees(clause: str | None, says_no: bool) -> bool:
    return clause is None or negated(clause) == says_no


def _verdict(
    claim: Claim, verdict: VerdictKind, reason: str, quote: str | None = None, similarity: float | None = None
) -> ClaimVerdict:
    return ClaimVerdict(
        claim=claim.text,
        citations=claim.citations,
        verdict=verdict,
        reason=reason,
        quote=quote,
        similarity=None if similarity is None else round(similarity, 4),
        method="rules",
    )

"""The no-LLM answer: the sentences of the retrieved chunks that best answer the question,
each cited `[^doc_id:section]` to the chunk it was taken from (spec 004 §7.3, §8).

Sentences are scored by meaning (cosine to the question), by the question's words they contain
(IDF-weighted over the candidates), and by the rank of the chunk they come from. Text from a
document is only ever quoted, never followed.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date

import numpy as np
from lemminflect import getAllLemmas

from shu.answer.asked import Asked, asked
from shu.answer.compare import Side, compared
from shu.answer.document import document_answer
from shu.answer.lists import MAX_ITEMS, Listing, label_score, listings
from shu.answer.polarity import Verdict, affirms, is_yes_no, verdict
from shu.answer.quote import quoted
from shu.answer.relative_dates import day_text, has_relative_date, states_a_time, with_dates
from shu.models.embed.base import Embedder
from shu.text import content_words, split_sentences, stem
from shu.types import (
    Answer,
    AnswerSentence,
    AssembledContext,
    Chunk,
    Citation,
    ContextDocument,
    ContextSection,
    Persona,
    RetrievalResult,
    SearchHit,
)

_FIELD = re.compile(r"^[A-Z][\w ]{0,29}:\s+\S+\s+\S")
"""`Where: Tool shed`: a labelled value, kept however short."""
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")
_MAX_CANDIDATES = 120
"""Sentences embedded per question at most (a whole document can be long)."""
_MARKUP = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+|\*\*|__|`")


@dataclass
class _Candidate:
    text: str
    section: ContextSection
    document: ContextDocument
    rank: int
    score: float = 0.0
    meaning: float = 0.0
    overlap: float = 0.0
    about: float = 1.0
    """How much its document is about the question, against the document most about it."""
    vector: np.ndarray | None = None
    next: _Candidate | None = None
    """The sentence after it in its section."""
    previous: _Candidate | None = None


class ExtractiveAnswerer:
    name = "extractive"

    def __init__(
        self,
        embedder: Embedder,
        max_sentences: int = 3,
        chunks_considered: int = 6,
        min_meaning: float = 0.3,
        min_evidence: float = 0.0,
        sections: Callable[[str], list[Chunk]] | None = None,
    ) -> None:
        self.embedder = embedder
        self.sections = sections
        """A document's chunks (the store's `list_chunks`): where a section whose heading answers
        the question is found when retrieval did not bring it."""
        self.max_sentences = max_sentences
        self.chunks_considered = chunks_considered
        self.min_meaning = min_meaning
        self.min_evidence = min_evidence

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        """The best sentences of the assembled context: the sections of the best-ranked chunks,
        and every section of a document retrieval returned whole (a lookup answers with it)."""
        context = result.context
        if context.lookup and context.documents and context.documents[0].doc_id == context.lookup:
            return document_answer(result.question, persona.slug, context.documents[0])
        if result.plan.query_type == "document_lookup" and result.plan.title_hints:
            # "show me my biography" where no document is one: say so, never quote something else
            return _insufficient(result.question, persona, result.hits, wanted=result.plan.title_hints[0])
        if asks_for_live_information(result.question) and not _dated_from_today(result.context):
            # "the weather forecast for tomorrow": no document written before today holds it
            return _insufficient(result.question, persona, result.hits, live=True)
        candidates = self.scored(result)
        evidence = round(max((c.score for c in candidates), default=0.0), 4)
        kind = asked(result.question)
        limit = self.max_sentences + (3 if kind is not None and kind.many else 0)
        every = kind is not None and kind.every(result.question)
        chosen = _select(candidates, limit, self.min_meaning, kind, every)
        if chosen and len(result.sub_questions) > 1:
            chosen = self._per_part(result.sub_questions, candidates, chosen)
        if not chosen or max(c.score for c in chosen) < self.min_evidence:
            declined = _insufficient(result.question, persona, result.hits)
            return declined.model_copy(update={"evidence": evidence})
        unstated = unstated_attribute(result.question, candidates)
        if unstated is not None:  # "the hourly rate for a press operator": no sentence gives an amount
            declined = _insufficient(result.question, persona, result.hits, attribute=unstated)
            return declined.model_copy(update={"evidence": evidence})
        listed = self._listed(result, candidates) if kind is not None and kind.kind == "list" else None
        if listed is None and kind is not None and chosen:
            listed = _answering_list(kind, chosen[0])
        if listed is not None:
            return self._list_answer(result, persona, listed, chosen, evidence)
        sides = compared(result.question)
        row = _row_of_both(sides, candidates) if sides is not None else None
        if sides is not None and row is not None:
            return _row_answer(result, persona, sides, row, evidence)
        if sides is not None:
            both = _side_by_side(sides, candidates)
            if both is not None:
                return _comparison_answer(result, persona, sides, both, evidence)
        said = None
        if is_yes_no(result.question):
            chosen, said = _yes_or_no(result.question, chosen, candidates)
        sentences = [
            AnswerSentence(
                text=quoted(_dated(c, _asks_when_it_happened(result.question, kind))),
                citations=[c.section.citation_key],
            )
            for c in chosen
        ]
        if said is not None:  # "No: SCIM provisioning is Enterprise only."
            sentences[0].text = f"{said.capitalize()}: {sentences[0].text}"
        text = " ".join(f"{s.text} {s.citation}" for s in sentences)
        return _quoted_answer(result, persona, text, sentences, _citations(chosen), evidence)

    def _listed(
        self, result: RetrievalResult, candidates: list[_Candidate]
    ) -> tuple[Listing, ContextDocument] | None:
        """The list of the best-ranked documents whose label shares most of the question's
        words ("Power tools (sign-out required)" for which power tools need signing out)."""
        ranked = sorted({c.document.doc_id: c for c in reversed(candidates)}.values(), key=lambda c: c.rank)
        best: tuple[float, Listing, ContextDocument] | None = None
        for top in ranked[:3]:
            document = top.document
            sections = document.sections
            if self.sections is not None:
                sections = [
                    ContextSection(section_path=c.section_path, text=c.text, chunk_ids=[c.id])
                    for c in self.sections(document.doc_id)
                ]
            for listing in listings(sections):
                score = label_score(result.question, listing)
                if score > 0 and (best is None or score > best[0]):
                    best = (score, listing, document)
        return (best[1], best[2]) if best else None

    def _list_answer(
        self,
        result: RetrievalResult,
        persona: Persona,
        listed: tuple[Listing, ContextDocument],
        chosen: list[_Candidate],
        evidence: float,
    ) -> Answer:
        """Every item of the list, under its label, then the best sentence about it."""
        listing, document = listed
        label = " › ".join(part for part in (listing.heading.strip(), listing.header) if part)
        shown = [quoted(item) for item in listing.items[:MAX_ITEMS]]
        more = f" (and {len(listing.items) - MAX_ITEMS} more)" if len(listing.items) > MAX_ITEMS else ""
        items = (f"{quoted(label)}:" if label else "") + "".join(f"\n- {item}" for item in shown) + more
        first = AnswerSentence(text=items.strip(), citations=[listing.section.citation_key])
        others = [c for c in chosen if not any(_similar(c.text, item) for item in listing.items)][:1]
        sentences = [first] + [
            AnswerSentence(text=quoted(c.text), citations=[c.section.citation_key]) for c in others
        ]
        citations = [document.citation(listing.section), *_citations(others)]
        text = "\n\n".join(f"{s.text} {s.citation}" for s in sentences)
        unique = list({c.key: c for c in citations}.values())
        return _quoted_answer(result, persona, text, sentences, unique, evidence)

    def evidence(self, result: RetrievalResult) -> float:
        """How well the best sentence of the context answers the question (what `min_evidence`
        is compared with): 0.55 meaning + 0.3 word overlap + 0.15 rank prior + 0.2 answer shape."""
        return max((c.score for c in self.scored(result)), default=0.0)

    def scored(self, result: RetrievalResult) -> list[_Candidate]:
        candidates = self._candidates(result)
        if candidates:
            self._score(result.question, candidates)
        return candidates

    def _candidates(self, result: RetrievalResult) -> list[_Candidate]:
        """Sections whose chunks ranked among the first `chunks_considered` hits (their best rank
        is their prior), and the sections of whole documents (after them)."""
        rank_of = {hit.chunk.id: rank for rank, hit in enumerate(result.hits)}
        found: list[_Candidate] = []
        for document in result.context.documents:
            for section in document.sections:
                ranks = [rank_of[c] for c in section.chunk_ids if c in rank_of]
                rank = min(ranks) if ranks else self.chunks_considered
                if rank < self.chunks_considered or (document.full and not ranks):
                    texts = candidate_sentences(section.text)
                    found += _linked([_Candidate(t, section, document, rank) for t in texts])
        return [*found[:_MAX_CANDIDATES], *self._answering_sections(result, found)]

    def _answering_sections(self, result: RetrievalResult, found: list[_Candidate]) -> list[_Candidate]:
        """The sections of the best-ranked documents whose heading answers the question's kind
        ("Root cause" for what caused it), or holding a field that states it ("Decision: …"),
        that retrieval did not bring: read too, at their document's rank. For a comparison,
        the sections naming both sides (a table with a column for each)."""
        kind, sides = asked(result.question), compared(result.question)
        if self.sections is None or (kind is None and sides is None):
            return []
        ranked = sorted({c.document.doc_id: c for c in reversed(found)}.values(), key=lambda c: c.rank)
        added: list[_Candidate] = []
        for best in ranked[:2]:
            have = {s.section_path for s in best.document.sections}
            for chunk in self.sections(best.document.doc_id):
                if kind is not None:
                    answers = kind.in_heading(chunk.section_path) or kind.states(chunk.text)
                else:
                    answers = sides is not None and all(side.named_in(chunk.text) for side in sides)
                if chunk.section_path in have or not answers:
                    continue
                section = ContextSection(
                    section_path=chunk.section_path, text=chunk.text, chunk_ids=[chunk.id]
                )
                texts = candidate_sentences(chunk.text)
                added += _linked([_Candidate(t, section, best.document, best.rank) for t in texts])
        return added

    def _score(self, question: str, candidates: list[_Candidate]) -> None:
        vectors = self.embedder.embed_documents([c.text for c in candidates])
        for candidate, (meaning, overlap, score, about) in zip(
            candidates, self._scores(question, candidates, vectors), strict=True
        ):
            candidate.meaning, candidate.overlap, candidate.score = meaning, overlap, score
            candidate.about = about
        for candidate, vector in zip(candidates, vectors, strict=True):
            candidate.vector = vector

    def _scores(
        self, question: str, candidates: list[_Candidate], vectors: np.ndarray
    ) -> list[tuple[float, float, float, float]]:
        """(meaning, overlap, score, about) of each candidate for `question`."""
        meaning = vectors @ self.embedder.embed_query(question)
        query_terms = {stem(w) for w in content_words(question)}
        stems = [{stem(w) for w in content_words(f"{c.text} {_heading(c)}")} for c in candidates]
        idf = {t: math.log(1 + len(candidates) / (1 + sum(t in s for s in stems))) for t in query_terms}
        total = sum(idf.values()) or 1.0
        wanted = expected_answer(question)
        kind = asked(question)
        about_one = kind is not None and kind.many and not kind.every(question)
        about = _document_overlap(candidates, stems, query_terms, idf)
        found = []
        for candidate, cosine, terms in zip(candidates, meaning, stems, strict=True):
            overlap = sum(idf[t] for t in query_terms & terms) / total
            prior = 1.0 / (1.0 + candidate.rank)
            shape = 0.2 if wanted is not None and wanted.search(candidate.text) else 0.0
            if overlap > 0 or not about_one:  # "decide about drip irrigation": not the fee decision
                shape += _where_it_is_stated(kind, candidate) * about[candidate.document.doc_id]
            score = 0.55 * float(cosine) + 0.3 * overlap + 0.15 * prior + shape
            if _ASKS.search(candidate.text):  # "What pet do you have?" asks; it does not answer
                score -= 0.15
            found.append((float(cosine), overlap, score, about[candidate.document.doc_id]))
        return found

    def _per_part(
        self, parts: list[str], candidates: list[_Candidate], chosen: list[_Candidate]
    ) -> list[_Candidate]:
        """A question in parts (the agent decomposed it): the best sentence for each part first,
        then the best overall, up to one sentence a part or `max_sentences`."""
        vectors = np.stack([c.vector for c in candidates])
        picked: list[_Candidate] = []
        for part in parts:
            scored = self._scores(part, candidates, vectors)
            order = sorted(range(len(candidates)), key=lambda i: -scored[i][2])
            for i in order:
                if scored[i][0] < self.min_meaning and scored[i][1] == 0.0:
                    break
                if not any(_similar(candidates[i].text, c.text) for c in picked):
                    picked.append(candidates[i])
                    break
        for candidate in chosen:
            if len(picked) >= max(self.max_sentences, len(parts)):
                break
            if not any(_similar(candidate.text, c.text) for c in picked):
                picked.append(candidate)
        return picked[: max(self.max_sentences, len(parts))]


def _document_overlap(
    candidates: list[_Candidate], stems: list[set[str]], query_terms: set[str], idf: dict[str, float]
) -> dict[str, float]:
    """How much each document is about the question, against the one most about it (1.0): the
    question's words its sentences and title hold, weighted as in the sentence overlap. A "Root
    cause" heading answers "what caused the slow previews on 2 August" only in the document
    about those previews, not in another incident's postmortem."""
    held: dict[str, set[str]] = {}
    for candidate, terms in zip(candidates, stems, strict=True):
        doc = candidate.document
        held.setdefault(doc.doc_id, {stem(w) for w in content_words(doc.title or "")}).update(terms)
    weight = {doc: sum(idf[t] for t in query_terms & terms) for doc, terms in held.items()}
    best = max(weight.values(), default=0.0)
    return {doc: value / best if best else 1.0 for doc, value in weight.items()}


_ASKS = re.compile(r"\?[\s\"'’)\]]*$")
"""A sentence that ends in a question mark."""


def _row_of_both(sides: tuple[Side, Side], candidates: list[_Candidate]) -> _Candidate | None:
    """The best table row with a column for each side ("Uptime SLA; Pro: 99.9%; Enterprise:
    99.95%" for Pro against Enterprise)."""
    rows = [c for c in candidates if all(_field_of(side, c.text) is not None for side in sides)]
    return max(rows, key=lambda c: c.score, default=None)


def _field_of(side: Side, row: str) -> str | None:
    """The value of the row's column that names `side`, if the row is a table row."""
    for field in row.split("; "):
        label, colon, value = field.partition(": ")
        if colon and value and side.named_in(label) and not side.named_in(value):
            return value
    return None


def _row_answer(
    result: RetrievalResult, persona: Persona, sides: tuple[Side, Side], row: _Candidate, evidence: float
) -> Answer:
    """Each side's value from one row, as a small table under the row's subject."""
    subject = _cell(row.text.split("; ")[0].partition(": ")[2] or row.text.split("; ")[0])
    values = [_cell(_field_of(side, row.text) or "") for side in sides]
    key = row.section.citation_key
    lines = [f"| {subject} | {_cell(sides[0].name)} | {_cell(sides[1].name)} |", "|---|---|---|"]
    lines.append(f"| {key} | {values[0]} | {values[1]} |")
    sentence = AnswerSentence(
        text=f"{subject}: {quoted(sides[0].name)} {values[0]}, {quoted(sides[1].name)} {values[1]}.",
        citations=[key],
    )
    return _quoted_answer(result, persona, "\n".join(lines), [sentence], _citations([row]), evidence)


def _side_by_side(sides: tuple[Side, Side], candidates: list[_Candidate]) -> list[_Candidate] | None:
    """The best sentence about each side (naming most of its words, in the sentence, its
    heading or its document's title), when both are found and differ."""
    picked: list[_Candidate] = []
    for side in sides:
        where = [(c, f"{c.text} {c.section.section_path} {c.document.title}") for c in candidates]
        named = [(side.named_in(text), c) for c, text in where]
        best = max(((n, c.score, c) for n, c in named if n > 0), key=lambda t: t[1], default=None)
        if best is None:
            return None
        picked.append(best[2])
    return picked if picked[0] is not picked[1] else None


def _comparison_answer(
    result: RetrievalResult,
    persona: Persona,
    sides: tuple[Side, Side],
    both: list[_Candidate],
    evidence: float,
) -> Answer:
    """A small table: each side, and what the documents say of it."""
    sentences = [
        AnswerSentence(text=f"{quoted(side.name)}: {quoted(c.text)}", citations=[c.section.citation_key])
        for side, c in zip(sides, both, strict=True)
    ]
    rows = [
        f"| {_cell(side.name)} | {_cell(c.text)} {c.section.citation_key} |"
        for side, c in zip(sides, both, strict=True)
    ]
    text = "\n".join(["| | What the documents say |", "|---|---|", *rows])
    return _quoted_answer(result, persona, text, sentences, _citations(both), evidence)


def _cell(text: str) -> str:
    return quoted(text).replace("|", "\\|")


def _answering_list(kind: Asked, best: _Candidate) -> tuple[Listing, ContextDocument] | None:
    """The best sentence stands in a list under a heading that answers the question's kind
    ("Root cause": "Two issues combined: 1. … 2. …"): the whole list answers it."""
    if kind.kind not in _TOLD_NEXT or not kind.in_heading(best.section.section_path):
        return None
    for listing in listings([best.section]):
        if (
            not listing.header
            and 2 <= len(listing.items) <= 8
            and any(_similar(best.text, item) or best.text in item for item in listing.items)
        ):
            return listing, best.document
    return None


def _dated(candidate: _Candidate, by_document: bool) -> str:
    """The sentence with its relative dates read against its document's date ("yesterday
    (7 May 2023)"), without which the reader cannot know the day it means; `by_document` (asked
    when something happened), a sentence that says no time at all ("My store is open!") is dated
    by its document."""
    try:
        written = date.fromisoformat((candidate.document.date or "")[:10])
    except ValueError:
        return candidate.text
    if has_relative_date(candidate.text):
        return with_dates(candidate.text, written)
    if by_document and not states_a_time(candidate.text):
        return f"{candidate.text} (written {day_text(written)})"
    return candidate.text


_AHEAD = re.compile(r"\b(?:will|going to|plann?\w*|scheduled|due|next|upcoming|expected)\b", re.I)


def _asks_when_it_happened(question: str, kind: Asked | None) -> bool:
    """A when question about the past: the day a message says something happened is the day it
    was written; "when will the migration finish" is not answered by the day of the plan."""
    return kind is not None and kind.kind == "when" and not _AHEAD.search(question)


def _linked(candidates: list[_Candidate]) -> list[_Candidate]:
    """A section's sentences, each knowing the one after it."""
    for candidate, after in itertools.pairwise(candidates):
        candidate.next, after.previous = after, candidate
    return candidates


def _heading(candidate: _Candidate) -> str:
    """The heading a sentence stands under (not the document's title): its words are the
    sentence's too ("Priorities for Q3" over a list of priorities)."""
    parts = candidate.section.section_path.split(" > ")
    return parts[-1] if len(parts) > 1 else ""


def _where_it_is_stated(kind: Asked | None, candidate: _Candidate) -> float:
    """A sentence in a section whose heading answers the question's kind ("Root cause" for a
    why, "Decisions" for what was decided) is read first (0.2), and a field that states exactly
    what is asked ("Where: …" for a where) before anything else (0.4)."""
    if kind is None:
        return 0.0
    field = 0.4 if kind.first else 0.2
    return 0.2 * kind.in_heading(candidate.section.section_path) + field * kind.in_field(candidate.text)


_ANSWER_KINDS = [
    (
        re.compile(r"\b(?:cost|costs|price|prices|priced|fee|fees|charge|charged|pay|paid|how much)\b", re.I),
        re.compile(r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur|gbp)\b", re.I),
    ),
    (
        re.compile(r"^\s*(?:when|what (?:date|time|day|year))\b", re.I),
        re.compile(
            r"\b(?:\d{4}-\d{2}|\d{1,2}:\d{2}|(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*"
            r"|monday|tuesday|wednesday|thursday|friday|saturday|sunday|\d{4}|yesterday|today|tonight"
            r"|tomorrow|ago|(?:last|next|this past) (?:night|week|weekend|month|year|[a-z]+day))\b",
            re.I,
        ),
    ),
    (re.compile(r"^\s*how (?:many|much|long|often|old)\b", re.I), re.compile(r"\d")),
    (
        re.compile(r"^\s*why\b|\bhow come\b|\bwhat caused\b|\breasons? (?:for|why)\b", re.I),
        re.compile(
            r"\b(?:because|due to|caused by|(?:the|root) cause (?:was|is)|as a result of|led to|reason"
            r"|too \w+|owing to)\b",
            re.I,
        ),
    ),
]


_LIVE = re.compile(
    r"\b(?:tomorrow|tonight|today's|right now|forecast|this (?:morning|afternoon|evening))\b"
    r"|\btoday\s*[?.!]*\s*$",
    re.I,
)
"""Asking for today's state ("the forecast for tomorrow", "the price today?"); "if we delete it
today, how long …" is not."""


def asks_for_live_information(question: str) -> bool:
    """The question wants what is true today or tomorrow (a forecast, today's figures)."""
    return bool(_LIVE.search(question))


def _dated_from_today(context: AssembledContext) -> bool:
    today = date.today().isoformat()
    return any(d.date and d.date[:10] >= today for d in context.documents)


def expected_answer(question: str) -> re.Pattern[str] | None:
    """What a sentence that answers the question must contain, for the kinds of question whose
    answer has a shape: a price (cost questions), a date or time (when), a number (how many),
    the role asked for ("engineer" for which support engineer handled it: the signature or the
    line that names someone with that role)."""
    for asks, shape in _ANSWER_KINDS:
        if asks.search(question):
            return shape
    role = _WHICH_ROLE.match(question)
    kind = asked(question)
    if role is None or (kind is not None and kind.kind != "who"):
        return None
    word = role.group("role")
    if word.lower() in _ANYONE or "NOUN" not in getAllLemmas(word.lower()):
        return None
    name, title = r"[A-Z][\w'’-]+\s+[A-Z][\w'’-]+", rf"(?i:{re.escape(word)})\b"
    named_then_title = rf"{name}[\s,(]+(?:[\w&-]+\s+){{0,3}}{title}"  # "Tomas Ferreira, Support Engineer"
    title_then_named = rf"\b{title}[\s,:]+(?:[\w-]+[\s,:]+){{0,2}}{name}"  # "Treasurer: Kenji Morales"
    return re.compile(f"{named_then_title}|{title_then_named}")


_WHICH_ROLE = re.compile(
    r"^\s*which\s+(?:[\w&'’-]+\s+){0,3}?(?P<role>[a-z][\w-]*)\s+"
    r"(?:did|does|is|was|has|had|will|can|could|should|would|\w+ed)\b",
    re.I,
)
"""Which one of a kind: "Which Lumen support engineer handled …" asks for an engineer, and a
line naming someone with that title answers ("Tomas Ferreira, Senior Support Engineer")."""
_ANYONE = frozenset("person one member staff".split())


_QUOTED = re.compile(
    r"^\s*(?:>(?!\s*(?:\*\*|\[!)?\s*(?:note|tip|important|warning|caution)\b)|on .{4,80} wrote:\s*$)", re.I
)
"""Quoted text (a message or an example someone wrote, not what the document says; a `> Note:`
callout is the document's own) and the "On … wrote:" line before it."""
_MAIL_HEADER = re.compile(
    r"^\s*(?:-{3,}\s*(?:original|forwarded) message|(?:from|sent|to|cc|bcc|date|subject|reply-to)\s*:\s)",
    re.I,
)
_MAIL_START = re.compile(r"^\s*(?:-{3,}\s*(?:original|forwarded) message|from\s*:\s.*@)", re.I)


def candidate_sentences(text: str) -> list[str]:
    """Sentences of prose, items of lists, and table rows spelled out as `Header: cell; …`;
    never quoted text, "On … wrote:", nor the header lines of a message quoted in a thread (where
    a message came from, not what it says)."""
    found: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        lines = [line for line in block.split("\n") if line.strip() and not _QUOTED.match(line)]
        if any(_MAIL_START.match(line) for line in lines):
            lines = [line for line in lines if not _MAIL_HEADER.match(line)]
        if lines and all(line.lstrip().startswith("|") for line in lines):
            found.extend(row for row in _table_rows(lines) if len(row.split()) >= 2)
        elif len(lines) > 1 and all(_MARKUP.match(line) for line in lines[1:]):
            items = [_clean(line) for line in lines]  # an item ("Lena Park, support") is kept short
            found.extend(item for item in items if len(item.split()) >= 2)
        else:
            sentences = _with_short_fields(_clean(s) for s in split_sentences("\n".join(lines)))
            found.extend(s for s in sentences if len(s.split()) >= 4 or _FIELD.match(s))
    return [s for s in found if not s.startswith("#")]


_SHORT_FIELD = re.compile(r"^[A-Z][\w ]{0,29}:\s*(?:\S+\s*){1,2}$")


def _with_short_fields(sentences: Iterable[str]) -> list[str]:
    """A field whose value is a word or two ("Decision: approved.") read with the sentence
    after it, which says what it was."""
    joined: list[str] = []
    for sentence in sentences:
        if joined and _SHORT_FIELD.match(joined[-1]):
            joined[-1] = f"{joined[-1]} {sentence}"
        else:
            joined.append(sentence)
    return joined


def _table_rows(lines: list[str]) -> list[str]:
    cells = [[cell.strip() for cell in line.strip().strip("|").split("|")] for line in lines]
    header, rows = (
        cells[0],
        [row for row, line in zip(cells[1:], lines[1:], strict=True) if not _TABLE_RULE.match(line.strip())],
    )
    return [
        "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, row, strict=False) if c) for row in rows
    ]


def _clean(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).split())


def _select(
    candidates: list[_Candidate],
    limit: int,
    min_meaning: float,
    kind: Asked | None = None,
    every: bool = False,
) -> list[_Candidate]:
    """The best sentences, each within 0.75 of the best score; when sections whose heading
    answers the question's kind are among the best-ranked documents' ("Root cause"), their
    sentences come first, judged against the best of them."""
    ranked = sorted(candidates, key=lambda c: c.score, reverse=True)
    closest = max(ranked, key=lambda c: 0.55 * c.meaning + 0.3 * c.overlap, default=None)
    if closest is None or (closest.meaning < min_meaning and closest.overlap == 0.0):
        return []  # nothing in the context is about the question, whatever its shape
    stated = [
        c
        for c in ranked
        if kind
        and kind.first
        and c.rank <= 2
        and c.about >= 0.5  # another incident's "Root cause" answers nothing here
        and (kind.in_heading(c.section.section_path) or kind.in_field(c.text))
    ]
    if not every:  # the one decision about something: a stated one that shares its words
        stated = [c for c in stated if c.overlap > 0]
    chosen: list[_Candidate] = []
    for group in (stated, ranked):
        best = group[0].score if group else 0.0
        whole = group is stated and every  # every decision, every attendee
        for candidate in group:
            if len(chosen) == limit or (candidate.score < 0.75 * best and not whole):
                break
            if candidate in chosen or any(_similar(candidate.text, c.text) for c in chosen):
                continue
            told_before = kind is not None and kind.kind in _TOLD_NEXT and _bare_verdict(kind, candidate)
            if told_before:  # "A pilot on 10 plots, budget $1,200." before "DECISION: Pilot approved."
                chosen += [motion for motion in _before(candidate, _MOTION_SENTENCES) if motion not in chosen]
            chosen.append(candidate)
            told = candidate.next
            if kind and kind.kind in _TOLD_NEXT and _restates(candidate) and told and told not in chosen:
                chosen.append(told)  # "The alarm could not be heard." → "An extra sounder is to be fitted."
    return chosen[: limit + 1]


_TOLD_NEXT = frozenset({"cause", "resolution", "decision"})
"""Kinds whose answer usually follows the sentence that names the problem."""


_MOTION_SENTENCES = 3
"""How many sentences before a bare verdict say what it decides (a motion is a few sentences)."""


def _before(candidate: _Candidate, count: int) -> list[_Candidate]:
    """Up to `count` sentences before `candidate` in its section, in their order."""
    found: list[_Candidate] = []
    previous = candidate.previous
    while previous is not None and len(found) < count:
        found.insert(0, previous)
        previous = previous.previous
    return found


def _bare_verdict(kind: Asked, candidate: _Candidate) -> bool:
    """A short field stating only the verdict ("DECISION: Pilot approved. Vote: 30 in favour"):
    what was approved is said before it."""
    return kind.in_field(candidate.text) and len(candidate.text.split(".")[0].split()) <= 4


def _restates(candidate: _Candidate) -> bool:
    """The sentence mostly repeats the question (the problem it asks about), so what it asks
    for (why, how it was fixed, what was decided) is said next."""
    return candidate.overlap >= 0.4 and not _CAUSAL.search(candidate.text)


_CAUSAL = re.compile(
    r"\b(?:because|due to|caused|causes|since|as a result|led to|leads to|reason|so that|therefore"
    r"|fixed|replaced|repaired|fitted|installed|approved|decided|agreed|resolved|will be|is to be"
    r"|are to be)\b",
    re.I,
)


def _yes_or_no(
    question: str, chosen: list[_Candidate], candidates: list[_Candidate]
) -> tuple[list[_Candidate], Verdict | None]:
    """A yes/no question's answer starts with yes or no when one of the chosen sentences, or of
    the best few others, decides it: that sentence comes first."""
    others = sorted((c for c in candidates if c not in chosen), key=lambda c: c.score, reverse=True)
    for candidate in [*chosen, *others[:3]]:
        said = verdict(question, candidate.text, candidate.document.title)
        if said is not None:
            rest = [c for c in chosen if c is not candidate]
            return [candidate, *rest][: len(chosen)], said
    if chosen and affirms(question, chosen[0].text, chosen[0].document.title):
        return chosen, "yes"  # the best answer states it, and nothing said no
    return chosen, None


def _quoted_answer(
    result: RetrievalResult,
    persona: Persona,
    text: str,
    sentences: list[AnswerSentence],
    citations: list[Citation],
    evidence: float,
) -> Answer:
    return Answer(
        question=result.question,
        persona=persona.slug,
        text=text,
        method="extractive",
        sentences=sentences,
        citations=citations,
        hits=result.hits,
        evidence=evidence,
    )


def _similar(a: str, b: str) -> bool:
    wa, wb = set(content_words(a)), set(content_words(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) > 0.7


def _citations(chosen: list[_Candidate]) -> list[Citation]:
    seen: dict[str, Citation] = {}
    for candidate in chosen:
        seen.setdefault(candidate.section.citation_key, candidate.document.citation(candidate.section))
    return list(seen.values())


def unstated_attribute(question: str, candidates: list[_Candidate]) -> str | None:
    """What the question asks for that none of the best sentences states: an amount of money
    ("how much are the agency operators costing us?"), a time of day ("what time does the
    festival start?"). Named as said in the decline; None when one of them states it."""
    best = sorted(candidates, key=lambda c: c.score, reverse=True)[:_ATTRIBUTE_READ]
    closest = max((c.overlap for c in best), default=0.0)
    about = [c for c in best if c.overlap >= 0.5 * closest]  # another price on the page is no answer
    for attribute, asks, states in _ATTRIBUTES:
        if asks.search(question) and not any(states.search(c.text) for c in about):
            return attribute
    return None


_ATTRIBUTE_READ = 6
"""The best sentences read for the asked amount or time (an answer further down is no answer)."""
_ATTRIBUTES = [
    (
        "an amount",
        re.compile(
            r"\b(?:how much (?:does|do|did|is|are|was|were|will)\b(?!.*\b(?:time|long)\b)"
            r"|what(?:'s| is| was| are)? (?:the )?(?:price|cost|fee|rate|salary|wage)s?\b)",
            re.I,
        ),
        re.compile(
            r"[$€£¥]\s?\d|\b\d[\d,.]*\s?(?:dollars|euros|pounds|usd|eur|gbp|%|per ?cent)|\b(?:free|no charge"
            r"|no cost|at cost|included|half|double|time and a half|nothing)\b",
            re.I,
        ),
    ),
    (
        "a time of day",
        re.compile(r"\b(?:what|which) time\b|\bat what time\b", re.I),
        re.compile(
            r"\b\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s?(?:am|pm|a\.m\.|p\.m\.)|\b(?:noon|midday|midnight)\b", re.I
        ),
    ),
]


def _insufficient(
    question: str,
    persona: Persona,
    hits: list[SearchHit],
    wanted: str | None = None,
    live: bool = False,
    attribute: str | None = None,
) -> Answer:
    if attribute:
        missing = (
            f"{persona.display_name}'s documents found for this question do not state {attribute} for it. "
        )
    elif wanted:
        missing = f"{persona.display_name}'s knowledge base has no document that matches “{wanted}”. "
    elif live:
        missing = (
            f"This asks for today's information (a forecast, a live figure), and none of "
            f"{persona.display_name}'s documents is dated today or later. "
        )
    else:
        missing = f"{persona.display_name}'s knowledge base has nothing that answers this question. "
    return Answer(
        question=question,
        persona=persona.slug,
        text=missing + "Add a document that covers it and ingest again.",
        method="extractive",
        hits=hits,
        insufficient=True,
    )

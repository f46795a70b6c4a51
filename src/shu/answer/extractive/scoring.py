"""How well a sentence answers a question: its meaning (cosine to the question), the question's
words it holds (IDF-weighted over the candidates), the rank of its chunk, and whether it has the
shape of the answer or stands where the answer is stated ("Root cause", "Decision: …")."""

from __future__ import annotations

import math
import re

import numpy as np

from shu.analysis import content_words, stem
from shu.answer.extractive.asked import Asked
from shu.answer.extractive.candidate import Candidate
from shu.answer.extractive.reading import QuestionReading
from shu.models.embed.base import Embedder


def sentence_scores(
    embedder: Embedder, reading: QuestionReading, candidates: list[Candidate], vectors: np.ndarray
) -> list[tuple[float, float, float, float]]:
    """(meaning, overlap, score, about) of each candidate for the question read."""
    question = reading.question
    meaning = vectors @ embedder.embed_query(question)
    query_terms = {stem(w) for w in content_words(question)}
    stems = [{stem(w) for w in content_words(f"{c.text} {_heading(c)}")} for c in candidates]
    idf = {t: math.log(1 + len(candidates) / (1 + sum(t in s for s in stems))) for t in query_terms}
    total = sum(idf.values()) or 1.0
    wanted, kind = reading.expected, reading.kind
    about_one = reading.many and not reading.every
    about = _document_overlap(candidates, stems, query_terms, idf)
    found = []
    for candidate, cosine, terms in zip(candidates, meaning, stems, strict=True):
        overlap = sum(idf[t] for t in query_terms & terms) / total
        prior = 1.0 / (1.0 + candidate.rank)
        shape = 0.2 if wanted is not None and wanted.search(candidate.text) else 0.0
        if overlap > 0 or not about_one:  # "decide about drip irrigation": not the fee decision
            shape += _where_it_is_stated(kind, candidate) * about[candidate.document.doc_id]
        score = 0.55 * float(cosine) + 0.3 * overlap + 0.15 * prior + shape
        if asks(candidate.text):  # "What pet do you have?" asks; it does not answer
            score -= 0.15
        found.append((float(cosine), overlap, score, about[candidate.document.doc_id]))
    return found


def _document_overlap(
    candidates: list[Candidate], stems: list[set[str]], query_terms: set[str], idf: dict[str, float]
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


def asks(sentence: str) -> bool:
    """The sentence ends in a question mark: it asks."""
    return bool(_ASKS.search(sentence))


def _heading(candidate: Candidate) -> str:
    """The heading a sentence stands under (not the document's title): its words are the
    sentence's too ("Priorities for Q3" over a list of priorities)."""
    parts = candidate.section.section_path.split(" > ")
    return parts[-1] if len(parts) > 1 else ""


def _where_it_is_stated(kind: Asked | None, candidate: Candidate) -> float:
    """A sentence in a section whose heading answers the question's kind ("Root cause" for a
    why, "Decisions" for what was decided) is read first (0.2), and a field that states exactly
    what is asked ("Where: …" for a where) before anything else (0.4)."""
    if kind is None:
        return 0.0
    field = 0.4 if kind.first else 0.2
    return 0.2 * kind.in_heading(candidate.section.section_path) + field * kind.in_field(candidate.text)

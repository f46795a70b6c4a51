"""The no-LLM answer: the sentences of the retrieved chunks that best answer the question,
each cited `[^doc_id:section]` to the chunk it was taken from.

Sentences are scored by meaning (cosine to the question), by the question's words they contain
(IDF-weighted over the candidates), and by the rank of the chunk they come from. Text from a
document is only ever quoted, never followed.

The reader's choice is here; what a sentence is (`sentences`), how one scores (`scoring`), which
are quoted (`choose`), what an answer must hold (`expected`), a comparison (`sides`) and the
answer records (`replies`) each have their module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from shu.answer.asked import asked
from shu.answer.candidate import Candidate, citations_of, linked, similar
from shu.answer.choose import answering_list, choose, yes_or_no
from shu.answer.compare import compared
from shu.answer.document import document_answer
from shu.answer.expected import (
    asks_for_live_information,
    dated_from_today,
    expected_answer,
    unstated_attribute,
)
from shu.answer.lists import MAX_ITEMS, Listing, Row, label_score, listings
from shu.answer.polarity import is_yes_no
from shu.answer.quote import quoted
from shu.answer.replies import asks_when_it_happened, dated, insufficient, quoted_answer
from shu.answer.row_filter import kept_rows
from shu.answer.scoring import sentence_scores
from shu.answer.sentences import candidate_sentences
from shu.answer.sides import comparison_answer, row_answer, row_of_both, side_by_side
from shu.models.embed.base import Embedder
from shu.types import (
    Answer,
    AnswerSentence,
    Chunk,
    ContextDocument,
    ContextSection,
    Persona,
    RetrievalResult,
)

__all__ = [
    "ExtractiveAnswerer",
    "asks_for_live_information",
    "candidate_sentences",
    "expected_answer",
    "unstated_attribute",
]

_MAX_CANDIDATES = 120
"""Sentences embedded per question at most (a whole document can be long)."""


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
            return insufficient(result.question, persona, result.hits, wanted=result.plan.title_hints[0])
        if asks_for_live_information(result.question) and not dated_from_today(result.context):
            # "the weather forecast for tomorrow": no document written before today holds it
            return insufficient(result.question, persona, result.hits, live=True)
        candidates = self.scored(result)
        evidence = round(max((c.score for c in candidates), default=0.0), 4)
        kind = asked(result.question)
        limit = self.max_sentences + (3 if kind is not None and kind.many else 0)
        every = kind is not None and kind.every(result.question)
        chosen = choose(candidates, limit, self.min_meaning, kind, every)
        if chosen and len(result.sub_questions) > 1:
            chosen = self._per_part(result.sub_questions, candidates, chosen)
        if not chosen or max(c.score for c in chosen) < self.min_evidence:
            declined = insufficient(result.question, persona, result.hits)
            return declined.model_copy(update={"evidence": evidence})
        unstated = unstated_attribute(result.question, candidates)
        if unstated is not None:  # "the hourly rate for a press operator": no sentence gives an amount
            declined = insufficient(result.question, persona, result.hits, attribute=unstated)
            return declined.model_copy(update={"evidence": evidence})
        listed = self._listed(result, candidates) if kind is not None and kind.kind == "list" else None
        if listed is None and kind is not None and chosen:
            listed = answering_list(kind, chosen[0])
        if listed is not None:
            return self._list_answer(result, persona, listed, chosen, evidence)
        sides = compared(result.question)
        row = row_of_both(sides, candidates) if sides is not None else None
        if sides is not None and row is not None:
            return row_answer(result, persona, sides, row, evidence)
        if sides is not None:
            both = side_by_side(sides, candidates)
            if both is not None:
                return comparison_answer(result, persona, sides, both, evidence)
        said = None
        if is_yes_no(result.question):
            chosen, said = yes_or_no(result.question, chosen, candidates)
        sentences = [
            AnswerSentence(
                text=quoted(dated(c, asks_when_it_happened(result.question, kind))),
                citations=[c.section.citation_key],
            )
            for c in chosen
        ]
        if said is not None:  # "No: SCIM provisioning is Enterprise only."
            sentences[0].text = f"{said.capitalize()}: {sentences[0].text}"
        text = " ".join(f"{s.text} {s.citation}" for s in sentences)
        return quoted_answer(result, persona, text, sentences, citations_of(chosen), evidence)

    def _listed(
        self, result: RetrievalResult, candidates: list[Candidate]
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
        chosen: list[Candidate],
        evidence: float,
    ) -> Answer:
        """Every item of the list, under its label, then the best sentence about it; for a
        table's column, the rows the question's condition keeps when it sets one ("cost more than
        1,000 GBP", "from Nordic Fibre")."""
        listing, document = listed
        about = f"{document.title} {listing.heading}"
        rows = kept_rows(result.question, listing.table, about) if listing.table is not None else None
        if listing.table is not None and rows:
            return self._rows_answer(result, persona, listing.table.header, rows, document, evidence)
        label = " › ".join(part for part in (listing.heading.strip(), listing.header) if part)
        shown = [quoted(item) for item in listing.items[:MAX_ITEMS]]
        more = f" (and {len(listing.items) - MAX_ITEMS} more)" if len(listing.items) > MAX_ITEMS else ""
        items = (f"{quoted(label)}:" if label else "") + "".join(f"\n- {item}" for item in shown) + more
        keys = list(dict.fromkeys(section.citation_key for section in listing.sections))
        first = AnswerSentence(text=items.strip(), citations=keys)
        others = [c for c in chosen if not any(similar(c.text, item) for item in listing.items)][:1]
        sentences = [first] + [
            AnswerSentence(text=quoted(c.text), citations=[c.section.citation_key]) for c in others
        ]
        citations = [*(document.citation(section) for section in listing.sections), *citations_of(others)]
        text = "\n\n".join(f"{s.text} {' '.join(s.citations)}" for s in sentences)
        unique = list({c.key: c for c in citations}.values())
        return quoted_answer(result, persona, text, sentences, unique, evidence)

    def _rows_answer(
        self,
        result: RetrievalResult,
        persona: Persona,
        header: tuple[str, ...],
        rows: list[Row],
        document: ContextDocument,
        evidence: float,
    ) -> Answer:
        """The kept rows, each spelled out as `Header: cell; …` and cited to its section."""
        shown = rows[:MAX_ITEMS]
        sentences = [
            AnswerSentence(text=quoted(_spelled(header, row.cells)), citations=[row.section.citation_key])
            for row in shown
        ]
        text = " ".join(f"{s.text} {s.citation}" for s in sentences)
        cited = (document.citation(row.section) for row in shown)
        citations = list({c.key: c for c in cited}.values())
        return quoted_answer(result, persona, text, sentences, citations, evidence)

    def evidence(self, result: RetrievalResult) -> float:
        """How well the best sentence of the context answers the question (what `min_evidence`
        is compared with): 0.55 meaning + 0.3 word overlap + 0.15 rank prior + 0.2 answer shape."""
        return max((c.score for c in self.scored(result)), default=0.0)

    def scored(self, result: RetrievalResult) -> list[Candidate]:
        candidates = self._candidates(result)
        if candidates:
            self._score(result.question, candidates)
        return candidates

    def _candidates(self, result: RetrievalResult) -> list[Candidate]:
        """Sections whose chunks ranked among the first `chunks_considered` hits (their best rank
        is their prior), and the sections of whole documents (after them)."""
        rank_of = {hit.chunk.id: rank for rank, hit in enumerate(result.hits)}
        found: list[Candidate] = []
        for document in result.context.documents:
            for section in document.sections:
                ranks = [rank_of[c] for c in section.chunk_ids if c in rank_of]
                rank = min(ranks) if ranks else self.chunks_considered
                if rank < self.chunks_considered or (document.full and not ranks):
                    texts = candidate_sentences(section.text)
                    found += linked([Candidate(t, section, document, rank) for t in texts])
        kept = found[:_MAX_CANDIDATES]
        return [*kept, *self._answering_sections(result, kept)]

    def _answering_sections(self, result: RetrievalResult, found: list[Candidate]) -> list[Candidate]:
        """The sections of the best-ranked documents whose heading answers the question's kind
        ("Root cause" for what caused it), or holding a field that states it ("Decision: …"),
        that retrieval did not bring: read too, at their document's rank. For a comparison,
        the sections naming both sides (a table with a column for each)."""
        kind, sides = asked(result.question), compared(result.question)
        if self.sections is None or (kind is None and sides is None):
            return []
        ranked = sorted({c.document.doc_id: c for c in reversed(found)}.values(), key=lambda c: c.rank)
        added: list[Candidate] = []
        for best in ranked[:2]:
            # read already: a section the context holds but whose chunks ranked too low is not
            have = {c.section.section_path for c in found if c.document.doc_id == best.document.doc_id}
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
                added += linked([Candidate(t, section, best.document, best.rank) for t in texts])
        return added

    def _score(self, question: str, candidates: list[Candidate]) -> None:
        vectors = self.embedder.embed_documents([c.text for c in candidates])
        for candidate, (meaning, overlap, score, about) in zip(
            candidates, sentence_scores(self.embedder, question, candidates, vectors), strict=True
        ):
            candidate.meaning, candidate.overlap, candidate.score = meaning, overlap, score
            candidate.about = about
        for candidate, vector in zip(candidates, vectors, strict=True):
            candidate.vector = vector

    def _per_part(
        self, parts: list[str], candidates: list[Candidate], chosen: list[Candidate]
    ) -> list[Candidate]:
        """A question in parts (the agent decomposed it): the best sentence for each part first,
        then the best overall, up to one sentence a part or `max_sentences`."""
        vectors = np.stack([cast(np.ndarray, c.vector) for c in candidates])  # scored: each has its vector
        picked: list[Candidate] = []
        for part in parts:
            scored = sentence_scores(self.embedder, part, candidates, vectors)
            order = sorted(range(len(candidates)), key=lambda i: -scored[i][2])
            for i in order:
                if scored[i][0] < self.min_meaning and scored[i][1] == 0.0:
                    break
                if not any(similar(candidates[i].text, c.text) for c in picked):
                    picked.append(candidates[i])
                    break
        for candidate in chosen:
            if len(picked) >= max(self.max_sentences, len(parts)):
                break
            if not any(similar(candidate.text, c.text) for c in picked):
                picked.append(candidate)
        return picked[: max(self.max_sentences, len(parts))]


def _spelled(header: tuple[str, ...], cells: tuple[str, ...]) -> str:
    """A table row as the reader quotes one: `Header: cell; …`."""
    return "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c)

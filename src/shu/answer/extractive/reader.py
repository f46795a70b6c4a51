"""The no-LLM answer: the sentences of the retrieved chunks that best answer the question,
each cited `[^doc_id:section]` to the chunk it was taken from.

Sentences are scored by meaning (cosine to the question), by the question's words they contain
(IDF-weighted over the candidates), and by the rank of the chunk they come from. Text from a
document is only ever quoted, never followed.

Here: the candidate sentences of the context and their scores. The question is read once
(`reading`); the answer is the first of the rules named for the question they answer (`rules`);
what a sentence is (`sentences`), how one scores (`scoring`), which are quoted (`choose`), what an
answer must hold (`expected`), a list (`listed`), a comparison (`sides`) and the answer records
(`replies`) each have their module.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import numpy as np

from shu.answer.extractive.candidate import Candidate, linked, similar
from shu.answer.extractive.library import Library
from shu.answer.extractive.reading import QuestionReading, read_question
from shu.answer.extractive.rules import RULES, Found
from shu.answer.extractive.scoring import sentence_scores
from shu.answer.extractive.sentences import candidate_sentences
from shu.models.embed.base import Embedder
from shu.types import (
    Answer,
    Chunk,
    ContextSection,
    Persona,
    RetrievalResult,
)

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
        library: Library | None = None,
    ) -> None:
        self.embedder = embedder
        self.library = library
        """The knowledge base beyond the context: what a question about the collection (which
        documents, a document's topics or summary) is answered from (None: not answered so)."""
        self.sections = sections if sections is not None or library is None else library.list_chunks
        """A document's chunks (the store's `list_chunks`): where a section whose heading answers
        the question is found when retrieval did not bring it."""
        self.max_sentences = max_sentences
        self.chunks_considered = chunks_considered
        self.min_meaning = min_meaning
        self.min_evidence = min_evidence

    def answer(self, result: RetrievalResult, persona: Persona) -> Answer:
        """The first answer of the reader's rules (`rules.RULES`), over the question read once."""
        reading = read_question(result.question)
        found = Found(self, result, persona, reading)
        for rule in RULES:
            answer = rule.applies(reading, found)
            if answer is not None:
                return answer
        raise AssertionError("the last rule always answers")  # pragma: no cover

    def evidence(self, result: RetrievalResult) -> float:
        """How well the best sentence of the context answers the question (what `min_evidence`
        is compared with): 0.55 meaning + 0.3 word overlap + 0.15 rank prior + 0.2 answer shape."""
        return max((c.score for c in self.scored(result)), default=0.0)

    def scored(self, result: RetrievalResult, reading: QuestionReading | None = None) -> list[Candidate]:
        """The context's candidate sentences, each scored for the question."""
        reading = reading or read_question(result.question)
        candidates = self._candidates(result, reading)
        if candidates:
            self._score(reading, candidates)
        return candidates

    def _candidates(self, result: RetrievalResult, reading: QuestionReading) -> list[Candidate]:
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
        return [*kept, *self._answering_sections(reading, kept)]

    def _answering_sections(self, reading: QuestionReading, found: list[Candidate]) -> list[Candidate]:
        """The sections of the best-ranked documents whose heading answers the question's kind
        ("Root cause" for what caused it), or holding a field that states it ("Decision: …"),
        that retrieval did not bring: read too, at their document's rank. For a comparison,
        the sections naming both sides (a table with a column for each)."""
        kind, sides = reading.kind, reading.sides
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

    def _score(self, reading: QuestionReading, candidates: list[Candidate]) -> None:
        vectors = self.embedder.embed_documents([c.text for c in candidates])
        for candidate, (meaning, overlap, score, about) in zip(
            candidates, sentence_scores(self.embedder, reading, candidates, vectors), strict=True
        ):
            candidate.meaning, candidate.overlap, candidate.score = meaning, overlap, score
            candidate.about = about
        for candidate, vector in zip(candidates, vectors, strict=True):
            candidate.vector = vector

    def per_part(
        self, parts: list[str], candidates: list[Candidate], chosen: list[Candidate]
    ) -> list[Candidate]:
        """A question in parts (the agent decomposed it): the best sentence for each part first,
        then the best overall, up to one sentence a part or `max_sentences`."""
        vectors = np.stack([cast(np.ndarray, c.vector) for c in candidates])  # scored: each has its vector
        picked: list[Candidate] = []
        for part in parts:
            scored = sentence_scores(self.embedder, read_question(part), candidates, vectors)
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

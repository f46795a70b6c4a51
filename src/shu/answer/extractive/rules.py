"""The reader's rules, in the order they are tried (`RULES`): each is named for the question it
answers, reads the question once read (`QuestionReading`) and what the reader found (`Found`),
and gives an answer or None; the first answer wins. The last, `QuotedSentences`, always answers.

A rule that needs the scored sentences asks `found` for them: they are scored on first use, so
the rules before (a whole document, a document that is not there, live information) never embed
a sentence."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property
from typing import Protocol

from shu.answer.extractive.candidate import Candidate, citations_of
from shu.answer.extractive.choose import answering_list, choose, yes_or_no
from shu.answer.extractive.counting import MAX_LISTED, count_head, counted_documents
from shu.answer.extractive.covering import covering_answer, covering_documents
from shu.answer.extractive.document import document_answer
from shu.answer.extractive.expected import dated_from_today, unstated_attribute
from shu.answer.extractive.library import Library
from shu.answer.extractive.listed import best_listing, list_answer
from shu.answer.extractive.outline import named_document, outline_answer, summary_answer
from shu.answer.extractive.reading import QuestionReading
from shu.answer.extractive.replies import dated, insufficient, quoted_answer
from shu.answer.extractive.sides import comparison_answer, row_answer, row_of_both, side_by_side
from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, Chunk, Detail, Persona, RetrievalResult

_MORE_DETAIL = 2
"""sentences a detail-preferring asker gets beyond `answer.max_sentences`"""
_DETAIL_WITHIN = 0.6
"""…each within this share of the best sentence's score (0.75 otherwise)"""


class Reader(Protocol):
    """What the rules use of the reader (`ExtractiveAnswerer`)."""

    max_sentences: int
    min_meaning: float
    min_evidence: float
    sections: Callable[[str], list[Chunk]] | None
    library: Library | None

    def scored(self, result: RetrievalResult, reading: QuestionReading | None = None) -> list[Candidate]: ...

    def per_part(
        self, parts: list[str], candidates: list[Candidate], chosen: list[Candidate]
    ) -> list[Candidate]: ...


class Found:
    """What the reader found for one question: the context's candidate sentences (scored on first
    use), the evidence, and the sentences chosen to quote."""

    def __init__(self, reader: Reader, result: RetrievalResult, persona: Persona, reading: QuestionReading):
        self.reader = reader
        self.result = result
        self.persona = persona
        self.reading = reading

    @cached_property
    def candidates(self) -> list[Candidate]:
        return self.reader.scored(self.result, self.reading)

    @cached_property
    def kept(self) -> frozenset[str] | None:
        """The documents the question's filter keeps (None: not filtered): a list or a count is
        taken among them alone."""
        library = self.reader.library
        if library is None or self.result.filter is None:
            return None
        return library.document_index(self.persona.slug).kept(self.result.filter)

    @cached_property
    def evidence(self) -> float:
        return round(max((c.score for c in self.candidates), default=0.0), 4)

    @cached_property
    def chosen(self) -> list[Candidate]:
        """The best sentences (more when several answers are asked for); a question in parts,
        the best for each part first."""
        reading, reader = self.reading, self.reader
        sentences, within = _length(reader.max_sentences, self.result.detail)
        limit = sentences + (3 if reading.many else 0)
        chosen = choose(self.candidates, limit, reader.min_meaning, reading.kind, reading.every, within)
        if chosen and len(self.result.sub_questions) > 1:
            chosen = reader.per_part(self.result.sub_questions, self.candidates, chosen)
        return chosen

    @cached_property
    def ranked(self) -> list[str]:
        """The documents retrieval ranked, best first."""
        return list(dict.fromkeys(hit.chunk.doc_id for hit in self.result.hits))

    def declined(self, wanted: str | None = None, live: bool = False, attribute: str | None = None) -> Answer:
        return insufficient(
            self.result.question,
            self.persona,
            self.result.hits,
            wanted=wanted,
            live=live,
            attribute=attribute,
        )


def _length(max_sentences: int, detail: Detail | None) -> tuple[int, float]:
    """How many sentences to quote and how close to the best each must score, for the asker's
    preference: the main point (one sentence) for a summary; two more, less close, for detail."""
    if detail == "summary":
        return 1, 0.75
    if detail == "detail":
        return max_sentences + _MORE_DETAIL, _DETAIL_WITHIN
    return max_sentences, 0.75


class Rule(Protocol):
    def applies(self, reading: QuestionReading, found: Found) -> Answer | None: ...


class WholeDocument:
    """A document retrieval returned whole because the question asked for it ("show me the
    retention policy"): it answers with the document."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        context = found.result.context
        if context.lookup and context.documents and context.documents[0].doc_id == context.lookup:
            return document_answer(reading.question, found.persona.slug, context.documents[0])
        return None


class MissingDocument:
    """ "Show me my biography" where no document is one: say so, never quote something else."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        plan = found.result.plan
        if plan.query_type == "document_lookup" and plan.title_hints:
            return found.declined(wanted=plan.title_hints[0])
        return None


class LiveInformation:
    """ "The weather forecast for tomorrow": no document written before today holds it."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        if reading.live and not dated_from_today(found.result.context):
            return found.declined(live=True)
        return None


class CountOfDocuments:
    """ "How many chats mention Joanna's allergy?": the number, and the documents counted."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        library, asked = found.reader.library, reading.count_of
        if asked is None or library is None:
            return None
        counted = counted_documents(asked, found.persona.slug, found.ranked, library, found.kept)
        if not counted:
            return None
        head = count_head(asked, len(counted))
        listed = counted[:MAX_LISTED]
        return covering_answer(found.result, found.persona, asked.subject, listed, library, head)


class WhichDocuments:
    """ "Which documents mention rats?": the documents that hold the subject, one line each."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        library = found.reader.library
        if reading.documents_about is None or library is None or found.result.context.lookup:
            return None  # "show me the guides on X" that retrieval answered with one document whole
        asked = reading.documents_about
        persona, ranked = found.persona.slug, found.ranked
        covering = covering_documents(
            asked.subject,
            persona,
            ranked,
            library,
            types=asked.types,
            described=asked.described,
            kept=found.kept,
        )
        if not covering:
            return None
        return covering_answer(found.result, found.persona, asked.subject, covering, library)


class DocumentOutline:
    """ "What topics does the volunteer handbook cover?": the document's headings."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        library = found.reader.library
        if reading.outline_of is None or library is None:
            return None
        document = named_document(reading.outline_of, found.ranked, library)
        return outline_answer(found.result, found.persona, document, library) if document else None


class DocumentSummary:
    """ "What came out of the May operations meeting?": each section of the document, its
    heading and the sentence of it closest to what is asked."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        library = found.reader.library
        if reading.summary_of is None or library is None:
            return None
        document = named_document(reading.summary_of, found.ranked, library)
        if document is None:
            return None
        return summary_answer(found.result, found.persona, document, library, reading.question)


class TooLittleEvidence:
    """No sentence answers well enough (`answer.min_evidence`): declined, with the evidence."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        chosen = found.chosen
        if not chosen or max(c.score for c in chosen) < found.reader.min_evidence:
            return found.declined().model_copy(update={"evidence": found.evidence})
        return None


class UnstatedAttribute:
    """ "The hourly rate for a press operator" where no sentence gives an amount: declined, naming
    what is not stated."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        unstated = unstated_attribute(reading.question, found.candidates)
        if unstated is None:
            return None
        return found.declined(attribute=unstated).model_copy(update={"evidence": found.evidence})


class WholeList:
    """A list question ("which power tools need signing out"), or a best sentence that stands in
    a list under a heading that answers ("Root cause: 1. … 2. …"): every item."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        kind, chosen = reading.kind, found.chosen
        listed = None
        if kind is not None and kind.kind == "list":
            listed = best_listing(reading.question, found.candidates, found.reader.sections)
        if listed is None and kind is not None and chosen:
            listed = answering_list(kind, chosen[0])
        if listed is None:
            return None
        return list_answer(found.result, found.persona, listed, chosen, found.evidence)


class RowOfBoth:
    """A comparison one table row answers for both sides."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        if reading.sides is None:
            return None
        row = row_of_both(reading.sides, found.candidates)
        if row is None:
            return None
        return row_answer(found.result, found.persona, reading.sides, row, found.evidence)


class SideBySide:
    """A comparison: the best sentence about each side, side by side."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        if reading.sides is None:
            return None
        both = side_by_side(reading.sides, found.candidates)
        if both is None:
            return None
        return comparison_answer(found.result, found.persona, reading.sides, both, found.evidence)


class QuotedSentences:
    """The best sentences, quoted and cited; a yes/no question's answer starts with the verdict
    one of them decides ("No: SCIM provisioning is Enterprise only."); a when question about the
    past dates a message's sentence by its day."""

    def applies(self, reading: QuestionReading, found: Found) -> Answer | None:
        chosen, said = found.chosen, None
        if reading.yes_no:
            chosen, said = yes_or_no(reading.question, chosen, found.candidates)
        sentences = [
            AnswerSentence(text=quoted(dated(c, reading.when)), citations=[c.section.citation_key])
            for c in chosen
        ]
        if said is not None:
            sentences[0].text = f"{said.capitalize()}: {sentences[0].text}"
        text = " ".join(f"{s.text} {s.citation}" for s in sentences)
        return quoted_answer(
            found.result, found.persona, text, sentences, citations_of(chosen), found.evidence
        )


RULES: tuple[Rule, ...] = (
    CountOfDocuments(),
    WhichDocuments(),
    DocumentOutline(),
    DocumentSummary(),
    WholeDocument(),
    MissingDocument(),
    LiveInformation(),
    TooLittleEvidence(),
    UnstatedAttribute(),
    WholeList(),
    RowOfBoth(),
    SideBySide(),
    QuotedSentences(),
)
"""Tried in this order; the first answer wins. A question about the collection or about a document
as a whole goes first: "what's in the newsletter, in a nutshell" reads like a lookup too."""

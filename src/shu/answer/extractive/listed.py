"""A list as the reader answers one: every item of a list under its label (then the best other
sentence about it), or the rows of a table the question's condition keeps, each spelled out."""

from __future__ import annotations

from collections.abc import Callable

from shu.answer.extractive.candidate import Candidate, citations_of, similar
from shu.answer.extractive.lists import MAX_ITEMS, Listing, Row, label_score, listings
from shu.answer.extractive.replies import quoted_answer
from shu.answer.extractive.row_filter import kept_rows
from shu.answer.quote import quoted
from shu.types import Answer, AnswerSentence, Chunk, ContextDocument, ContextSection, Persona, RetrievalResult

Listed = tuple[Listing, ContextDocument]


def best_listing(
    question: str, candidates: list[Candidate], sections: Callable[[str], list[Chunk]] | None
) -> Listed | None:
    """The list of the best-ranked documents whose label shares most of the question's words
    ("Power tools (sign-out required)" for which power tools need signing out); with `sections`
    (a document's chunks), every section of those documents is read, not only the context's."""
    ranked = sorted({c.document.doc_id: c for c in reversed(candidates)}.values(), key=lambda c: c.rank)
    best: tuple[float, Listing, ContextDocument] | None = None
    for top in ranked[:3]:
        document = top.document
        read = document.sections
        if sections is not None:
            read = [
                ContextSection(section_path=c.section_path, text=c.text, chunk_ids=[c.id])
                for c in sections(document.doc_id)
            ]
        for listing in listings(read):
            score = label_score(question, listing)
            if score > 0 and (best is None or score > best[0]):
                best = (score, listing, document)
    return (best[1], best[2]) if best else None


def list_answer(
    result: RetrievalResult, persona: Persona, listed: Listed, chosen: list[Candidate], evidence: float
) -> Answer:
    """Every item of the list, under its label, then the best sentence about it; for a table's
    column, the rows the question's condition keeps when it sets one ("cost more than 1,000
    GBP", "from Nordic Fibre")."""
    listing, document = listed
    about = f"{document.title} {listing.heading}"
    rows = kept_rows(result.question, listing.table, about) if listing.table is not None else None
    if listing.table is not None and rows:
        return _rows_answer(result, persona, listing.table.header, rows, document, evidence)
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


def _spelled(header: tuple[str, ...], cells: tuple[str, ...]) -> str:
    """A table row as the reader quotes one: `Header: cell; …`."""
    return "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells, strict=False) if c)

"""Pseudo-relevance feedback (RM3): the relevance model's arithmetic, and the in-memory index
searching with the words of its first search's best chunks."""

from __future__ import annotations

import pytest

from shu.store.feedback import mixed, relevance_model
from shu.store.keyword_index import build
from shu.types import KeywordFeedback, RetrievalParams


def test_relevance_model_weighs_words_by_their_share_of_each_chunk_and_the_chunks_score() -> None:
    chunks = [([1, 1, 2, 3], 3.0), ([2, 4], 1.0)]
    model = relevance_model(chunks, lambda term: True, terms=10)
    # P(t|R) ∝ Σ score_d/Σscore · tf/|d|: term 1 = .75·2/4, term 2 = .75/4 + .25/2, 3 = .75/4, 4 = .25/2
    raw = {1: 0.375, 2: 0.3125, 3: 0.1875, 4: 0.125}
    assert model == pytest.approx({t: w / sum(raw.values()) for t, w in raw.items()})
    assert list(model) == [1, 2, 3, 4], "best first"


def test_relevance_model_keeps_the_best_allowed_terms_only() -> None:
    chunks = [([1, 1, 1, 2, 2, 3], 1.0)]
    model = relevance_model(chunks, lambda term: term != 1, terms=1)
    assert model == {2: 1.0}


def test_relevance_model_of_nothing_adds_nothing() -> None:
    assert relevance_model([], lambda term: True, terms=5) == {}
    assert relevance_model([([1, 2], 0.0)], lambda term: True, terms=5) == {}
    assert relevance_model([([], 2.0)], lambda term: True, terms=5) == {}


def test_mixed_keeps_each_query_term_at_weight_one() -> None:
    mix = mixed({1: 1.0, 2: 1.0}, {2: 0.5, 3: 0.5}, query_weight=0.5)
    # half the mass stays with the query (0.25 a term), half to the expansion, then scaled by 2/0.5
    assert mix == pytest.approx({1: 1.0, 2: 2.0, 3: 1.0})
    assert mixed({1: 1.0}, {}, query_weight=0.5) == {1: 1.0}
    only = mixed({1: 1.0}, {3: 1.0}, query_weight=0.0)
    assert only == pytest.approx({3: 1.0}), "all the weight to the expansion"


ROWS = [
    ("apple-1", "d1", "The apple orchard harvest: orchard pickers bring in every apple crate."),
    ("apple-2", "d2", "Apple blossom in the orchard means a harvest in autumn."),
    ("orchard", "d3", "Orchard harvest crews start at dawn and finish at dusk."),
    *[
        (f"filler-{n}", f"f{n}", f"Invoices for office chairs number {n} were paid by the team.")
        for n in range(40)
    ],
]
TEXTS = {chunk_id: text for chunk_id, _, text in ROWS}


def read_texts(chunk_ids: list[str]) -> dict[str, str]:
    return {chunk_id: TEXTS[chunk_id] for chunk_id in chunk_ids if chunk_id in TEXTS}


def test_feedback_finds_a_chunk_that_shares_only_the_best_chunks_words() -> None:
    index = build(ROWS)
    plain = [chunk_id for chunk_id, _ in index.search("apple", 5)]
    assert "orchard" not in plain, "the orchard chunk never says apple"
    fed = index.search("apple", 5, KeywordFeedback(docs=2, terms=3), read_texts)
    assert [chunk_id for chunk_id, _ in fed][:2] == ["apple-1", "apple-2"], (
        "the question's own chunks stay first"
    )
    assert "orchard" in [chunk_id for chunk_id, _ in fed]


def test_feedback_never_adds_stopwords_or_words_most_chunks_hold() -> None:
    rows = [(f"c{n}", f"d{n}", f"the team paid the invoice number {n}") for n in range(10)]
    rows += [("target", "dt", "the invoice reminder went to the team"), ("other", "do", "reminder only")]
    index = build(rows)
    texts = {chunk_id: text for chunk_id, _, text in rows}

    def reader(ids: list[str]) -> dict[str, str]:
        return {i: texts[i] for i in ids}

    # "the", "team", "invoice" are in most chunks: nothing is left to add, the plain search is kept
    wide = KeywordFeedback(docs=3, terms=5, max_share=0.5)
    assert index.search("invoice number 3", 5, wide, reader) == index.search("invoice number 3", 5)
    found = index._relevance_model(index.search("invoice reminder", 2), wide, reader)
    added = {index._terms()[term] for term in found}
    assert "remind" in added and not added & {"the", "team", "invoic"}


def test_feedback_with_texts_gone_searches_the_question_alone() -> None:
    index = build(ROWS)
    fed = index.search("apple", 5, KeywordFeedback(docs=2, terms=3), lambda ids: {})
    assert fed == index.search("apple", 5)


def test_parameters_turn_feedback_on_and_off() -> None:
    assert RetrievalParams().keyword_feedback() is None
    assert RetrievalParams(
        feedback_docs=5, feedback_terms=7, feedback_query_weight=0.8
    ).keyword_feedback() == (KeywordFeedback(docs=5, terms=7, query_weight=0.8))

"""Numbered citations for small models (`answer.numbered_citations`, on for llm.provider=local):
the context's sections are shown as [1]…[n], and the numbers a (scripted) model writes become the
sections' keys before the citation check and as they stream; a number past the last section is
never shown and is counted as removed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from shu.answer.citations import ContextKeys, check_citations
from shu.answer.extractive import ExtractiveAnswerer
from shu.answer.extractive.evidence import evidence_context, reader_decided
from shu.answer.factory import create_answerer
from shu.answer.generate import LLMAnswerer, NumberFilter, prompt_context
from shu.answer.stream import StreamReset, filtered, final_answer
from shu.config.settings import AnswerSettings
from shu.kb import KnowledgeBase
from shu.models.llm.client import LLMClient
from shu.models.llm.scripted import ScriptedLLM
from shu.types import (
    Answer,
    AnswerSentence,
    AssembledContext,
    Citation,
    ContextDocument,
    ContextSection,
)
from tests.answer.test_generate import PRO, QUESTION, support  # noqa: F401 - the fixture
from tests.answer.test_stream import CONTEXT

TEAM = "[^pricing:Plans > Team]"
PRICING_PRO = "[^pricing:Plans > Pro]"


def numbered_keys() -> ContextKeys:
    return ContextKeys(CONTEXT, numbered=[TEAM, PRICING_PRO])


def test_a_number_is_the_key_of_that_section_in_the_order_shown() -> None:
    checked = check_citations("Pro costs $65 [2]. Team costs $35 [1].", numbered_keys())
    assert checked.text == f"Pro costs $65 {PRICING_PRO}. Team costs $35 {TEAM}."
    assert [c.key for c in checked.citations] == [PRICING_PRO, TEAM]
    assert [s.citations for s in checked.sentences] == [[PRICING_PRO], [TEAM]]
    assert checked.check.kept == 2 and not checked.check.removed and not checked.check.uncited


@pytest.mark.parametrize(
    ("written", "keys"),
    [
        ("[1, 2]", [TEAM, PRICING_PRO]),
        ("[1][2]", [TEAM, PRICING_PRO]),
        ("[1-2]", [TEAM, PRICING_PRO]),
        ("[^2]", [PRICING_PRO]),
        ("[2 and 1]", [PRICING_PRO, TEAM]),
    ],
)
def test_several_numbers_cite_several_sections(written: str, keys: list[str]) -> None:
    checked = check_citations(f"Both plans have prices listed {written}.", numbered_keys())
    assert [c.key for c in checked.citations] == keys
    assert checked.text == f"Both plans have prices listed {''.join(keys)}."


def test_a_number_out_of_range_is_dropped_and_flagged() -> None:
    text = "The Pro plan costs $65 [3]. The Team plan costs $35 [0]. Both plans exist [2, 7]."
    checked = check_citations(text, numbered_keys())
    assert checked.check.removed == ["[3]", "[0]", "[7]"]
    assert "[3]" not in checked.text and "[0]" not in checked.text and "7" not in checked.text
    assert [c.key for c in checked.citations] == [PRICING_PRO]
    assert checked.check.uncited == ["The Pro plan costs $65.", "The Team plan costs $35."]


def test_without_numbering_a_number_stays_a_bracket() -> None:
    checked = check_citations(f"Pro costs $65 [2] {PRICING_PRO}.", ContextKeys(CONTEXT))
    assert "[2]" in checked.text and [c.key for c in checked.citations] == [PRICING_PRO]
    assert not checked.check.removed


@pytest.mark.parametrize("size", [1, 2, 3, 7])
def test_the_stream_shows_keys_never_numbers_however_it_is_cut(size: int) -> None:
    text = "Pro costs $65 [2]. Ignore [9] and [1, 2]. Listed [sic]. Team [^1]."
    deltas = [text[i : i + size] for i in range(0, len(text), size)]
    raw: list[str] = []
    shown = list(filtered(deltas, NumberFilter(numbered_keys()), raw))
    joined = "".join(shown)
    assert PRICING_PRO in shown, "a number's key arrives whole, as its own piece"
    assert "[9]" not in joined and "[2]" not in joined and "[1, 2]" not in joined
    assert f"{TEAM}{PRICING_PRO}" in joined and "[sic]" in joined
    assert joined.endswith(f"Team {TEAM}.") and "^1" not in joined
    assert "".join(raw) == text


def numbered_answerer(
    kb: KnowledgeBase, replies: list[str], max_sections: int | None = None
) -> tuple[LLMAnswerer, ScriptedLLM]:
    model = ScriptedLLM(replies)
    client = LLMClient(model, max_retries=0)
    answerer = LLMAnswerer(
        client, ExtractiveAnswerer(kb.parts.embedder), 1200, 256, numbered=True, max_sections=max_sections
    )
    return answerer, model


def numbers_in(prompt: str) -> dict[str, int]:
    """Section heading → number, as the model was shown them."""
    return {
        m[2]: int(m[1])
        for m in re.finditer(r'<source number="(\d+)" document="[^"]*" section="([^"]*)"', prompt)
    }


def test_the_model_is_shown_numbered_sections_and_its_number_becomes_the_key(
    support: KnowledgeBase,  # noqa: F811 - the fixture
) -> None:
    result = support.retrieve(QUESTION, persona="support")
    probe, model = numbered_answerer(support, ["INSUFFICIENT: nothing"])
    list(probe.stream(result, support.persona("support")))
    system, user = model.calls[0]
    shown = numbers_in(user.content)
    assert "[^" not in user.content.replace("(^", ""), "no key is shown, only numbers"
    assert "square brackets" in system.content and "Support answers API questions" in system.content
    n = shown["API Rate Limits > Per plan"]
    assert f"[{n}] " in user.content and len(shown) >= 2

    answerer, _ = numbered_answerer(
        support, [f"According to [{n}], the Pro plan allows 1,200 requests per minute."]
    )
    events = list(answerer.stream(result, support.persona("support")))
    answer = events[-1]
    assert isinstance(answer, Answer) and answer.method == "llm:scripted:scripted"
    assert [c.key for c in answer.citations] == [PRO] and answer.check is not None and answer.check.kept == 1
    assert PRO in events and f"[{n}]" not in "".join(e for e in events if isinstance(e, str))
    assert answer.prompt_version == "answer_numbered.v2"


def test_a_number_past_the_last_section_is_never_shown_and_the_answer_is_asked_again(
    support: KnowledgeBase,  # noqa: F811 - the fixture
) -> None:
    result = support.retrieve(QUESTION, persona="support")
    answerer, model = numbered_answerer(
        support,
        ["The Pro plan allows 1,200 requests per minute [7].", "The Pro plan allows 1,200 a minute [1]."],
        max_sections=1,
    )
    events = list(answerer.stream(result, support.persona("support")))
    assert numbers_in(model.calls[0][1].content).keys() == {"API Rate Limits > Per plan"}, "one section"
    assert any(isinstance(e, StreamReset) and "passage number" in e.reason for e in events)
    assert "[7]" not in "".join(e for e in events if isinstance(e, str))
    assert "e.g. [1]" in model.calls[1][-1].content
    answer = events[-1]
    assert isinstance(answer, Answer) and [c.key for c in answer.citations] == [PRO]


def test_settings_turn_numbering_on(support: KnowledgeBase) -> None:  # noqa: F811 - the fixture
    client = LLMClient(ScriptedLLM(["x"]))
    settings = AnswerSettings(numbered_citations=True, max_sections=3, scope=False)
    inner: Any = create_answerer(settings, support.parts.embedder, llm=client).inner
    assert isinstance(inner, LLMAnswerer) and inner.numbered and inner.max_sections == 3
    plain: Any = create_answerer(AnswerSettings(scope=False), support.parts.embedder, llm=client).inner
    assert not plain.numbered and plain.max_sections is None


def test_the_best_ranked_sections_go_first_and_no_more_than_max_sections() -> None:
    shown: list[str] = []
    text = prompt_context(CONTEXT, 1000, numbered=True, shown=shown, ranking=["pricing#2", "pricing#1"])
    assert shown == [TEAM, PRICING_PRO] and text.index("[1] Team costs") < text.index("[2] Pro costs")
    shown = []
    text = prompt_context(CONTEXT, 1000, max_sections=1, numbered=True, shown=shown, ranking=["pricing#2"])
    assert shown == [TEAM] and "Pro costs" not in text and 'section="Plans > Team"' in text
    shown = []
    prompt_context(CONTEXT, 1000, shown=shown)
    assert shown == [PRICING_PRO, TEAM], "without a ranking: the context's own order"


def test_a_key_whose_section_holds_a_full_stop_is_not_split_as_a_sentence_end() -> None:
    context = AssembledContext(
        documents=[
            ContextDocument(
                doc_id="policy",
                title="Policy",
                score=1.0,
                sections=[
                    ContextSection(
                        section_path="Policy > 3. Retention periods",
                        text="Backups are kept for 35 days.",
                        chunk_ids=["policy#3"],
                    )
                ],
            )
        ]
    )
    key = "[^policy:Policy > 3. Retention periods]"
    checked = check_citations(
        "Backups are kept for 35 days [1]. They are encrypted [1].", ContextKeys(context, [key])
    )
    assert [(s.text, s.citations) for s in checked.sentences] == [
        ("Backups are kept for 35 days.", [key]),
        ("They are encrypted.", [key]),
    ]
    assert checked.check.uncited == []


def test_sentences_before_the_paragraph_s_one_citation_take_it() -> None:
    text = "No: the region is fixed. It cannot be changed by you. Only Enterprise may ask [2].\n\nThanks."
    checked = check_citations(text, numbered_keys())
    assert [s.citations for s in checked.sentences] == [[PRICING_PRO]] * 3 + [[]]
    assert checked.check.uncited == []
    later = check_citations("Pro costs $65 [2]. Trials last fourteen days for everyone.", numbered_keys())
    assert later.check.uncited == ["Trials last fourteen days for everyone."], (
        "a citation covers what comes before"
    )


def test_evidence_context_is_the_reader_s_sentences_a_passage_per_section() -> None:
    reader = Answer(
        question="q",
        persona="p",
        text="",
        method="extractive",
        sentences=[
            AnswerSentence(text="No: Team costs $35.", citations=[TEAM]),
            AnswerSentence(text="Pro costs $65.", citations=[PRICING_PRO]),
            AnswerSentence(text="Both are billed monthly.", citations=[TEAM]),
            AnswerSentence(text="From another document.", citations=["[^faq:Billing]"]),
        ],
        citations=[
            Citation(
                key="[^faq:Billing]", doc_id="faq", section_path="Billing", chunk_id="faq#4", title="FAQ"
            )
        ],
    )
    found = evidence_context(reader, CONTEXT)
    sections = [(d.doc_id, s.section_path, s.text) for d in found.documents for s in d.sections]
    assert sections == [
        ("pricing", "Plans > Team", "No: Team costs $35.\nBoth are billed monthly."),
        ("pricing", "Plans > Pro", "Pro costs $65."),
        ("faq", "Billing", "From another document."),
    ], "in the reader's order; a section retrieval missed keeps its citation's document"
    assert [s.citation_key for d in found.documents for s in d.sections] == [
        TEAM,
        PRICING_PRO,
        "[^faq:Billing]",
    ]
    assert evidence_context(reader.model_copy(update={"sentences": []}), CONTEXT).documents == []


class _Reader:
    """The extractive reader's answer, given."""

    def __init__(self, answer: Answer) -> None:
        self.given = answer

    def answer(self, result: Any, persona: Any) -> Answer:
        return self.given.model_copy(update={"question": result.question})


def _evidence_answerer(reader: Answer, replies: list[str]) -> tuple[LLMAnswerer, ScriptedLLM]:
    model = ScriptedLLM(replies)
    answerer = LLMAnswerer(
        LLMClient(model, max_retries=0),
        _Reader(reader),  # type: ignore[arg-type]
        1200,
        256,
        numbered=True,
        max_sections=4,
        model_context="evidence",
        keep_decisions=True,
    )
    return answerer, model


def _reader_answer(text: str, key: str = PRO) -> Answer:
    return Answer(
        question="q",
        persona="support",
        text=f"{text} {key}",
        method="extractive",
        sentences=[AnswerSentence(text=text, citations=[key])],
        citations=[
            Citation(
                key=key,
                doc_id="limits",
                section_path="API Rate Limits > Per plan",
                chunk_id="limits#1",
                title="API Rate Limits",
            )
        ],
        evidence=0.8,
    )


def test_the_model_writes_from_the_reader_s_sentences_not_whole_sections(
    support: KnowledgeBase,  # noqa: F811 - the fixture
) -> None:
    result = support.retrieve(QUESTION, persona="support")
    reader = _reader_answer("The Pro plan allows 1,200 requests per minute per workspace.")
    answerer, model = _evidence_answerer(reader, ["Pro allows 1,200 requests a minute [1]."])
    answer = final_answer(answerer.stream(result, support.persona("support")))
    user = model.calls[0][1].content
    assert "[1] The Pro plan allows 1,200 requests per minute per workspace.\n</source>" in user
    assert "Starter plan" not in user and "[2]" not in user, "only the reader's sentence is read"
    assert answer.method == "llm:scripted:scripted" and [c.key for c in answer.citations] == [PRO]


def test_a_reader_s_verdict_is_kept_and_the_model_only_judges_whether_it_answers(
    support: KnowledgeBase,  # noqa: F811 - the fixture
) -> None:
    result = support.retrieve("Does the Pro plan allow 2,000 requests per minute?", persona="support")
    verdict = _reader_answer("No: The Pro plan allows 1,200 requests per minute per workspace.")
    answerer, model = _evidence_answerer(verdict, ["Yes, it does [1]."])
    answer = final_answer(answerer.stream(result, support.persona("support")))
    assert answer.method == "extractive" and answer.text.startswith("No: The Pro plan"), "the verdict stays"
    assert answer.llm_calls == 1 and len(model.calls) == 1
    answerer, _ = _evidence_answerer(verdict, ["INSUFFICIENT: nothing about 2,000 requests"])
    declined = final_answer(answerer.stream(result, support.persona("support")))
    assert declined.insufficient and "2,000 requests" in declined.text and declined.llm_calls == 1


def test_what_counts_as_the_reader_s_own_decision() -> None:
    plain = _reader_answer("The Pro plan allows 1,200 requests per minute per workspace.")
    assert not reader_decided("How many requests does Pro allow?", plain)
    assert reader_decided("Does Pro allow 2,000 requests?", _reader_answer("No: Pro allows 1,200."))
    assert reader_decided("Which plans have SSO?", _reader_answer("Plans:\n- Pro\n- Enterprise"))
    assert reader_decided("Is Pro or Team cheaper?", plain), "a comparison"
    assert reader_decided("What was decided at the May meeting?", plain), "every decision"
    assert not reader_decided("What did the May meeting decide about pricing?", plain), "one decision"
    assert not reader_decided("Does Pro allow 2,000?", plain.model_copy(update={"insufficient": True}))
    dated = _reader_answer("Last Fri (the Friday before 15 July 2023) I took my kids to a pottery workshop.")
    assert reader_decided("When did Melanie go to the pottery workshop?", dated), "a date the reader read"
    assert not reader_decided("What did Melanie make at the workshop?", dated)
    written = _reader_answer("I went in May.")
    assert not reader_decided("When did Melanie go to the pottery workshop?", written)

"""The question's key terms (names, acronyms, codes) that nothing in the context mentions: the
answer declines naming them instead of quoting a sentence that shares other words."""

from __future__ import annotations

import pytest

from shu.answer.absent import absent_terms, key_terms
from shu.types import AssembledContext, ContextDocument, ContextSection, Persona, PersonaConfig

LUMEN = Persona(
    slug="lumen-support",
    display_name="Lumen Support",
    config=PersonaConfig(slug="lumen-support", display_name="Lumen Support"),
)


def context(*texts: str) -> AssembledContext:
    sections = [ContextSection(section_path="S", text=t, chunk_ids=[f"d#{i}"]) for i, t in enumerate(texts)]
    document = ContextDocument(doc_id="d", title="Lumen FAQ", score=1.0, sections=sections)
    return AssembledContext(documents=[document])


@pytest.mark.parametrize(
    ("question", "terms"),
    [
        ("What's the address of Lumen's Tokyo office?", ["Lumen", "Tokyo"]),
        ("What is the phone number of Lumen's CEO?", ["Lumen", "CEO"]),
        ("Who was incident commander for INC-2026-0402?", ["INC-2026-0402"]),
        ("How much did the repair on forklift FL-3 cost?", ["FL-3"]),
        ("What does Mallory Silk 200gsm cost per thousand sheets?", ["Mallory Silk", "200gsm"]),
        ("Is delivery free for a 100 GBP order going to a customer in Ashby?", ["GBP", "Ashby"]),
        ("When is the 3rd meeting on 12 May at 10:30?", []),
        ("Which Harbor & Pine engineer handled it?", ["Harbor Pine"]),
        ("How do the July-August hours differ from the spring ones?", []),
        ("Can my 10-year-old use the 24-hour shed?", []),
        ("What was fixed in maintenance release 4.7.2?", ["4.7.2"]),
    ],
)
def test_key_terms_are_names_acronyms_and_codes_never_plain_numbers(question: str, terms: list[str]) -> None:
    assert key_terms(question) == terms


def test_a_term_nothing_mentions_is_absent_and_the_rest_are_found() -> None:
    found = context("Lumen Analytics has offices in Berlin and Austin.", "The CEO signs off pricing.")
    assert absent_terms("What's the address of Lumen's Tokyo office?", found, LUMEN) == ["Tokyo"]
    assert absent_terms("Where is Lumen's Berlin office?", found, LUMEN) == []
    assert absent_terms("Who is the CEO?", found, LUMEN) == []
    assert absent_terms("What do the SLAs say?", context("Each SLA is 99.9%."), LUMEN) == []
    harbor = context("Harbor & Pine wrote in.")
    assert absent_terms("Who handled the Harbor & Pine ticket?", harbor, LUMEN) == []
    assert absent_terms("Anything about Tokyo?", AssembledContext(), LUMEN) == [], "nothing found: said so"


def test_an_absent_term_declines_the_answer_naming_it(kb, make_persona) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import doc

    body = "# Offices\n\n## Berlin\n\nThe Berlin office is at Torstrasse 1 and opens at nine."
    folder = make_persona("lumen", rag={"offices.md": doc("offices", "Offices", body)})
    assert not kb.ingest(folder.parent).failed
    kb.settings.answer.absent_terms = True  # off by default (docs/benchmarks.md: MultiHop-RAG)
    declined = kb.ask("What is the address of the Tokyo office?", persona="lumen")
    assert declined.insufficient and "“Tokyo”" in declined.text and declined.citations == []
    answered = kb.ask("What is the address of the Berlin office?", persona="lumen")
    assert not answered.insufficient and "Torstrasse 1" in answered.text


def test_things_are_key_terms_only_as_nouns_and_only_when_the_whole_knowledge_base_lacks_them() -> None:
    from shu.answer.absent import key_nouns

    assert key_nouns("Is there a night shift allowance for working after 22:00?") == ["night", "allowance"]
    assert key_nouns("What kinds of alerts can I set up, and how many?") == []
    assert key_nouns("What new rule came out of it?") == [], "rule is a verb too"
    assert key_nouns("What did the general meeting decide?") == [], "general is an adjective too"
    assert key_nouns("What temporary job did Jon take?") == [], "a quality of the thing, not the thing"
    found = context("Overtime is paid at time and a half.")
    vocabulary = {"overtime", "paid", "time", "shift"}
    missing = absent_terms(
        "Is there a night shift allowance?", found, LUMEN, known=lambda w: w.lower() in vocabulary
    )
    assert missing == ["night", "allowance"]
    assert absent_terms("Is there a night shift allowance?", found, LUMEN) == [], "without the knowledge base"


def test_a_term_kept_in_a_document_s_metadata_or_elsewhere_in_the_knowledge_base_is_not_absent() -> None:
    found = context("Apple unveiled a new phone.")
    nowhere: dict[str, bool] = {}
    question = "What did The Verge report about Apple?"
    assert absent_terms(question, found, LUMEN, known=lambda w: nowhere.get(w, False)) == ["Verge"]
    assert absent_terms(question, found, LUMEN, known=lambda w: False, metadata=["The Verge"]) == []
    assert absent_terms(question, found, LUMEN, known=lambda w: w.lower() == "verge") == []


def test_a_long_question_with_one_unusual_word_among_many_known_ones_is_not_declined() -> None:
    found = context("Google pays Apple to be the default search engine; rivals call it anticompetitive.")
    vocabulary = {"google", "apple", "companies", "alternatives", "rivals", "incident", "commander"}
    question = "Does the article say Google's deals with companies like Apple beat a plethora of rivals?"
    assert absent_terms(question, found, LUMEN, known=lambda w: w.lower() in vocabulary) == []
    coded = "Who was incident commander for INC-2026-0402 at Google?"
    assert absent_terms(coded, found, LUMEN, known=lambda w: w.lower() in vocabulary) == ["INC-2026-0402"]


def test_a_name_written_only_inside_an_e_mail_address_is_mentioned() -> None:
    mail = context("From: bolson@enron.com\nTo: kate.symes@enron.com\nPlease send the gas schedule.")
    assert absent_terms("What is the email address of Bill Olson?", mail, LUMEN) == []
    assert absent_terms("What did Kate Symes ask for?", mail, LUMEN) == []
    assert absent_terms("What is the email address of Bill Tokyo?", mail, LUMEN) == ["Bill Tokyo"]
    assert absent_terms("Where does Enron keep its Olsonville archive?", mail, LUMEN) == ["Olsonville"]


def test_a_timestamp_is_a_condition_and_words_about_reports_are_not_key_terms() -> None:
    assert key_terms("What did the article published at 2023-12-12T22:38:05+00:00 say?") == []
    found = context("The Verge said OpenAI's board removed Sam Altman on 17 November.")
    question = "Was there a discrepancy in the portrayal of Sam Altman between The Verge and its report?"
    assert absent_terms(question, found, LUMEN, known=lambda word: False) == []


def test_a_thing_asked_about_after_naming_things_the_documents_have_is_absent_alone() -> None:
    found = context("Guillotine: blade change, 210 GBP.", "Folder: feed roller replaced, 385 GBP.")
    vocabulary = {"maintenance", "folder", "guillotine", "service", "cost"}
    question = (
        "The maintenance log has the guillotine and the folder in it - "
        "what did the laminator's last service cost?"
    )
    assert absent_terms(question, found, LUMEN, known=lambda w: w.lower() in vocabulary) == ["laminator"]
    alone = "What did the laminator's last service cost?"  # no premise: one absent word may be a paraphrase
    assert absent_terms(alone, found, LUMEN, known=lambda w: w.lower() in vocabulary) == []
    unknown_premise = "The register has the shredder in it - what did the laminator's last service cost?"
    assert absent_terms(unknown_premise, found, LUMEN, known=lambda w: w.lower() in vocabulary) == []

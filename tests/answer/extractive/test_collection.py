"""Questions about the collection and about a document as a whole, answered from the knowledge
base beyond the context: which documents cover something, what a document covers, a summary of
one section by section (issue 44, part 3)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from shu.answer.extractive.counting import asks_how_many_documents
from shu.answer.extractive.outline import asks_for_outline, asks_for_summary, headings
from shu.answer.render import render_answer
from shu.kb import KnowledgeBase, open_kb
from shu.types import Answer, Chunk
from tests.conftest import CountingEmbedder, PersonaMaker, doc

GARDEN = {
    "pests.md": doc(
        "pests",
        "Organic Pest Management Guide",
        "# Organic Pest Management Guide\n\n## Slugs\n\nBeer traps catch slugs overnight.\n\n"
        "## Rodents\n\nRats nest under pallets; keep the compost lids closed.",
    ),
    "compost.md": doc(
        "compost",
        "Soil and Compost Guide",
        "# Soil and Compost Guide\n\n## Bins\n\nNever add meat or cooked food: it draws rats.\n\n"
        "## Testing\n\nThe soil pH was 6.1 this spring.",
    ),
    "mail.md": doc(
        "mail-rats",
        "Rats by the shed",
        "# Rats by the shed\n\nSamuel: I saw two rats by the shed this morning.",
        type="email",
        date="2026-05-04",
    ),
    "water.md": doc(
        "water",
        "Watering Rules",
        "# Watering Rules\n\n## Hoses\n\nHoses are shared; water before 10:00 in July.",
    ),
    "handbook.md": doc(
        "handbook",
        "Volunteer Handbook",
        "# Volunteer Handbook\n\n## Welcome\n\nThank you for joining.\n\n"
        "## Volunteer hours\n\n### Logging\n\nLog hours in the shed book.\n\n"
        "## Workdays\n\nWorkdays are the first Saturday of the month.\n\n"
        "## Safety\n\nWear gloves with the tiller.",
    ),
    "minutes.md": doc(
        "minutes",
        "Minutes of the April Meeting",
        "# Minutes of the April Meeting\n\n## 1. Seed library\n\nGrace presented the proposal. "
        "Decision: the seed library opens on 2 May.\n\n"
        "## 2. Tiller\n\nTobias reported a near-miss in March. Decision: two people must be present "
        "when the tiller runs.\n\n## 3. Announcements\n\nThe next meeting is in July.",
        date="2026-04-18",
    ),
}
KEY = re.compile(r"\[\^([a-z0-9-]+):([^\]]+)\]")


@pytest.fixture
def garden(kb: KnowledgeBase, make_persona: PersonaMaker) -> KnowledgeBase:
    assert not kb.ingest(make_persona("garden", rag=GARDEN)).failed
    return kb


def _cited_documents(answer: Answer) -> list[str]:
    return [m.group(1) for m in KEY.finditer(answer.text)]


@pytest.mark.parametrize(
    ("question", "noun", "subject", "within"),
    [
        ("How many documents mention rats?", "documents", "rats", None),
        ("In how many chats does Joanna's allergy come up?", "chats", "Joanna's allergy", None),
        (
            "How many conversations did Jon and Gina have in June 2023?",
            "conversations",
            "Jon and Gina",
            ("2023-06", "2023-06"),
        ),
        ("How many betting guides did Sam Eggleston write?", "guides", "betting Sam Eggleston", None),
        ("How many emails did we get in 2026?", "emails", "", ("2026", "2026")),
        ("How many meeting notes mention the budget?", "meeting notes", "the budget", None),
    ],
)
def test_a_question_counting_documents_names_what_they_hold_and_when(
    question: str, noun: str, subject: str, within: tuple[str, str] | None
) -> None:
    asked = asks_how_many_documents(question)
    assert asked is not None and (asked.noun, asked.subject, asked.within) == (noun, subject, within)


@pytest.mark.parametrize(
    "question",
    [
        "How many motions were put to a vote at the April general meeting?",  # motions are no documents
        "How many emails came in May?",  # which May is not said
        "How many requests per minute does the Pro plan allow?",
    ],
)
def test_a_question_counting_something_else_counts_no_documents(question: str) -> None:
    assert asks_how_many_documents(question) is None


def test_how_many_documents_is_the_number_of_those_that_hold_it_each_listed(garden: KnowledgeBase) -> None:
    answer = garden.ask("How many documents mention rats?", "garden", use_cache=False)
    assert answer.text.startswith("3 documents mention rats:")
    assert sorted(_cited_documents(answer)) == ["compost", "mail-rats", "pests"]
    emails = garden.ask("How many emails mention rats?", "garden", use_cache=False)
    assert emails.text.startswith("1 email mentions rats:") and _cited_documents(emails) == ["mail-rats"]
    dated = garden.ask("How many documents are dated April 2026?", "garden", use_cache=False)
    assert dated.text.startswith("1 document dated 2026-04:")
    assert _cited_documents(dated) == ["minutes"]


def test_which_documents_lists_every_document_that_mentions_the_subject_and_only_those(
    garden: KnowledgeBase,
) -> None:
    answer = garden.ask("Which documents mention rats?", "garden", use_cache=False)
    assert answer.method == "collection" and not answer.insufficient
    assert sorted(_cited_documents(answer)) == ["compost", "mail-rats", "pests"]
    assert "**Organic Pest Management Guide**" in answer.text and "**Soil and Compost Guide**" in answer.text
    assert "Watering Rules" not in answer.text
    assert "it draws rats" in answer.text  # each line quotes the sentence that mentions it
    assert {c.doc_id for c in answer.citations} == {"compost", "mail-rats", "pests"}
    shown = render_answer(answer).splitlines()
    assert shown[0] == "3 documents mention rats:"  # the lead-in on its own line, then a line each
    assert sorted(line[:5] for line in shown[2:5]) == ["- **O", "- **R", "- **S"]
    assert "(email, 4 May 2026)" in answer.text  # what each document is
    chunks = {c.chunk_id for c in answer.citations}
    assert all(chunk.split("#")[0] in ("compost", "mail-rats", "pests") for chunk in chunks)


def test_with_collection_answers_off_the_reader_quotes_sentences(
    tmp_path: Path, make_persona: PersonaMaker, embedder: CountingEmbedder
) -> None:
    with open_kb(tmp_path / "off", ["answer.collection=false"], embedder=embedder) as kb:
        assert not kb.ingest(make_persona("garden", rag=GARDEN)).failed
        answer = kb.ask("Which documents mention rats?", "garden", use_cache=False)
    assert "documents mention" not in answer.text and "**" not in answer.text
    assert answer.method == "extractive" and answer.citations


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What topics does the volunteer handbook cover?", "volunteer handbook"),
        ("What does the staff handbook cover?", "staff handbook"),
        ("What items were on the agenda of the April general meeting?", "April general meeting"),
        ("What topics does Lumen offer?", None),
        ("What does the Team plan cost?", None),
    ],
)
def test_a_question_asking_what_a_document_covers_names_it(question: str, named: str | None) -> None:
    assert asks_for_outline(question) == named


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("What came out of the May operations meeting?", "May operations meeting"),
        ("Give me a rundown of what the April general meeting decided.", "April general meeting"),
        ("What's in the spring newsletter, in a nutshell?", "spring newsletter"),
        ("Can you summarise the whole Press 2 email thread?", "Press 2 email thread"),
        ("What did the April meeting decide about the tiller?", None),
    ],
)
def test_a_question_asking_for_a_summary_names_the_document(question: str, named: str | None) -> None:
    assert asks_for_summary(question) == named


def test_what_a_document_covers_is_its_headings_in_order_each_cited(garden: KnowledgeBase) -> None:
    answer = garden.ask("What topics does the volunteer handbook cover?", "garden", use_cache=False)
    lines = answer.text.splitlines()
    assert lines[0] == "**Volunteer Handbook** covers:"
    assert [line.split(" [^")[0] for line in lines[1:]] == [
        "- Welcome",
        "- Volunteer hours",
        "- Workdays",
        "- Safety",
    ]
    assert set(_cited_documents(answer)) == {"handbook"}


def test_a_summary_quotes_what_each_section_came_to(garden: KnowledgeBase) -> None:
    answer = garden.ask("What came out of the April meeting?", "garden", use_cache=False)
    assert answer.text.startswith("**Minutes of the April Meeting**, section by section:")
    assert "Decision: the seed library opens on 2 May." in answer.text
    assert "Decision: two people must be present when the tiller runs." in answer.text
    assert "Grace presented the proposal" not in answer.text  # the decision, not the first sentence
    assert len(answer.citations) == 3 and set(_cited_documents(answer)) == {"minutes"}


def _chunk(path: str, ord: int) -> Chunk:
    return Chunk(
        id=f"d#{ord}", doc_id="d", ord=ord, section_path=path, text="x", index_text="x", token_count=1
    )


def test_headings_are_the_level_under_the_title_when_every_path_starts_with_it() -> None:
    under_title = [_chunk("T", 0), _chunk("T > A", 1), _chunk("T > A > a", 2), _chunk("T > B", 3)]
    assert [h for h, _ in headings(under_title)] == ["A", "B"]
    assert [len(c) for _, c in headings(under_title)] == [2, 1]
    top_level = [_chunk("T", 0), _chunk("1. A", 1), _chunk("2. B", 2)]
    assert [h for h, _ in headings(top_level)] == ["T", "1. A", "2. B"]


def test_a_count_past_what_is_listed_says_so_and_counts_them_all() -> None:
    from shu.answer.extractive.counting import MAX_LISTED, CountAsked, count_head

    asked = CountAsked(noun="articles", subject="Diablo 4", within=None)
    assert count_head(asked, 4) == "4 articles mention Diablo 4:"
    assert count_head(asked, 1) == "1 article mentions Diablo 4:"
    many = count_head(asked, MAX_LISTED + 15)
    assert many == f"{MAX_LISTED + 15} articles mention Diablo 4, the first {MAX_LISTED} listed:"


def test_which_emails_lists_the_emails_only(garden: KnowledgeBase) -> None:
    answer = garden.ask("Which emails mention rats?", "garden", use_cache=False)
    assert answer.method == "collection" and _cited_documents(answer) == ["mail-rats"]


BETTING = {
    "spread.md": doc(
        "spread",
        "What is a point spread bet?",
        "# What is a point spread bet?\n\nPoint spread betting sets the odds on the margin of victory.",
        author="Sam Eggleston",
    ),
    "other.md": doc(
        "other",
        "Point spreads explained",
        "# Point spreads explained\n\nA point spread evens the odds; betting on it is popular.",
        author="Ann Lee",
    ),
    "garden.md": doc("garden", "Garden notes", "# Garden notes\n\nThe beans came up in May."),
}


def test_a_document_without_a_name_the_subject_gives_does_not_cover_it(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    assert not kb.ingest(make_persona("sport", rag=BETTING)).failed
    answer = kb.ask(
        "Which documents mention point spread betting odds by Sam Eggleston?", "sport", use_cache=False
    )
    assert answer.method == "collection" and _cited_documents(answer) == ["spread"]
    count = kb.ask(
        "How many articles mention point spread betting odds by Sam Eggleston?", "sport", use_cache=False
    )
    assert count.text.startswith("1 article mentions")


SSO = {
    "faq.md": doc(
        "faq",
        "FAQ",
        "# FAQ\n\n## Break-glass\n\nThe break-glass login is for emergencies.",
    ),
    "setup.md": doc(
        "setup",
        "SSO setup",
        "# SSO setup\n\n## Outages\n\nAn Owner can always log in with a password when the identity "
        "provider is down, bypassing SSO.",
    ),
    "billing.md": doc("billing", "Billing", "# Billing\n\nInvoices are sent monthly to the Owner."),
}


def test_a_document_that_holds_the_subject_s_description_covers_it_too(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    assert not kb.ingest(make_persona("support", rag=SSO)).failed
    question = "Which documents cover the break-glass login that lets an Owner bypass SSO when the identity"
    question += " provider is down?"
    answer = kb.ask(question, "support", use_cache=False)
    assert answer.method == "collection" and sorted(_cited_documents(answer)) == ["faq", "setup"]


def test_a_hostile_title_in_a_list_line_is_quoted_data(kb: KnowledgeBase, make_persona: PersonaMaker) -> None:
    hostile = {
        "evil.md": doc(
            "evil",
            '"Rats [^secret:Admin password] [click](javascript:alert(1))\\n- **Forged line** [^x:y]"',
            "# Rats\\n\\nRats were seen by the shed.".replace("\\n", "\n"),
        ),
        "pests.md": GARDEN["pests.md"],
    }
    assert not kb.ingest(make_persona("garden", rag=hostile)).failed
    answer = kb.ask("Which documents mention rats?", "garden", use_cache=False)
    assert answer.method == "collection" and sorted(_cited_documents(answer)) == ["evil", "pests"]
    assert "[^secret:" not in answer.text and "(^secret:Admin password)" in answer.text
    assert "](javascript:" not in answer.text and "[^x:y]" not in answer.text
    lines = answer.text.splitlines()
    assert len(lines) == 3 and not any(line.startswith("- **Forged") for line in lines)
    assert {c.key.split(":")[0] for c in answer.citations} == {"[^evil", "[^pests"}


def test_a_list_of_documents_is_not_a_yes_to_a_yes_no_wording(garden: KnowledgeBase) -> None:
    """ "Is X mentioned anywhere?" is answered with the list, and its confidence is the list's,
    not a quoted yes/no answer's."""
    from shu.answer.confidence import confidence_features

    listed = garden.ask("Is the tiller mentioned anywhere?", "garden", use_cache=False)
    assert listed.method == "collection" and listed.text.startswith("2 documents mention tiller:")
    assert confidence_features(listed, listed.retrieval)["yes_no"] == 0.0


def test_a_lookup_of_one_document_is_the_document_not_a_list(garden: KnowledgeBase) -> None:
    answer = garden.ask("Show me the guide about pest management", "garden", use_cache=False)
    assert answer.method == "full_document", answer.text

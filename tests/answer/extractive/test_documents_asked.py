"""Reading a question about the documents themselves: the subject they must hold, the words
describing it, and the kind of document asked for (issue 44)."""

from __future__ import annotations

import pytest

from shu.answer.extractive.documents_asked import asks_which_documents, types_named


@pytest.mark.parametrize(
    ("question", "subject", "noun"),
    [
        ("Which documents mention rats?", "rats", "documents"),
        ("Which docs mention getting alerts in Microsoft Teams?", "alerts in Microsoft Teams", "docs"),
        ("Where can I read about the drip irrigation pilot?", "drip irrigation pilot", ""),
        ("Where can I find advice on slugs?", "slugs", ""),
        ("Where is the refund process documented?", "refund process", ""),
        ("Is there a guide about composting?", "composting", "guide"),
        ("Which of the chats talk about a pride parade?", "pride parade", "chats"),
        ("Which articles are about Britney Spears?", "Britney Spears", "articles"),
        ("Where does Jon talk about looking for investors?", "investors", ""),
        ("Is the hose ban covered anywhere?", "hose ban", ""),
        ("Any docs on the pond pump?", "pond pump", "docs"),
        ("Do we have anything on plot fees?", "plot fees", ""),
        ("What do we have on the bee hotel?", "bee hotel", ""),
        ("Find me everything about the harvest fair.", "harvest fair", ""),
        ("Show me all the emails about the broken gate", "broken gate", "emails"),
        ("Which release notes mention Snowflake?", "Snowflake", "release notes"),
        ("Which meeting minutes record the vote on fees?", "vote on fees", "meeting minutes"),
        ("Which calendar invites is Sofia Lindqvist on?", "Sofia Lindqvist", "calendar invites"),
        ("Where does it say how late the gate is open?", "how late the gate is open", ""),
        ("Where's the idea of a second shed discussed?", "second shed", ""),
        ("Which docs mention that the alarm can't be heard?", "alarm can't be heard", "docs"),
        ("Which documents talk about testing the soil?", "testing the soil", "documents"),
        ("Which emails mention Sofia, Jon and Grace?", "Sofia, Jon and Grace", "emails"),
        ("Where\u2019s the folder-gluer discussed?", "folder-gluer", ""),
        ("Which calendar invites is Sofia cc\u2019d on?", "Sofia", "calendar invites"),
        ("Show me the emails about the gate", "gate", "emails"),
    ],
)
def test_a_question_asking_which_documents_names_its_subject_and_the_documents(
    question: str, subject: str, noun: str
) -> None:
    asked = asks_which_documents(question)
    assert asked is not None and (asked.subject, asked.noun) == (subject, noun)


@pytest.mark.parametrize(
    "question",
    [
        "What is the refund process?",
        "Which plan includes SSO?",
        "Where is the tool shed?",
        "Is the shed open on Sundays?",
        "What do the bylaws say about quorum?",
        "Is flood damage covered at all?",  # insurance cover, not documents
        "Is flood damage covered in the policy?",
        "Show me the guide on soil and compost",  # one document, looked up
        "What do we have on Friday?",  # an agenda
    ],
)
def test_a_question_about_something_else_asks_for_no_documents(question: str) -> None:
    assert asks_which_documents(question) is None


def test_the_clause_describing_the_subject_is_kept_apart() -> None:
    asked = asks_which_documents("Which documents cover the break-glass login that lets an Owner bypass SSO?")
    assert asked is not None and asked.subject == "break-glass login"
    assert asked.described == "break-glass login that lets an Owner bypass SSO"
    listed = asks_which_documents("Any docs on muting an alert for a while, i.e. snoozing it?")
    assert listed is not None and listed.subject == "muting an alert for a while"
    plain = asks_which_documents("Which documents mention rats?")
    assert plain is not None and plain.described == ""


@pytest.mark.parametrize(
    ("noun", "types"),
    [
        ("emails", {"email"}),
        ("meeting minutes", {"meeting_notes"}),
        ("minutes", {"meeting_notes"}),
        ("release notes", {"release_notes"}),
        ("calendar invites", {"meeting"}),
        ("policies", {"policy"}),
        ("meeting notes", {"meeting_notes"}),
        ("email messages", {"email"}),
        ("docs", None),
        ("notes", None),
        ("", None),
    ],
)
def test_the_noun_names_the_types_of_document(noun: str, types: set[str] | None) -> None:
    assert types_named(noun) == (frozenset(types) if types is not None else None)


def test_a_long_run_of_question_marks_is_read_at_once() -> None:
    import time

    started = time.perf_counter()
    for _ in range(10):
        asks_which_documents("Which docs mention " + "?" * 4000 + "a")
    assert time.perf_counter() - started < 0.5, "no backtracking over the closing marks"

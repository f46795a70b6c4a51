"""A mail thread saved as text (`shu.ingest.convert.thread`): one document per message, exactly as
an `.eml` gives it, linked as replies; a text that is not plainly a thread stays one document with
every line kept."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from shu.ingest.budget import Limits, OverBudget, spending
from shu.ingest.convert.base import Converted, convert_documents
from shu.ingest.convert.mail import mail_id
from shu.kb import KnowledgeBase
from tests.conftest import PersonaMaker

EXAMPLE = (
    Path(__file__).resolve().parents[2]
    / "examples/personas/lumen-support/RAW-DOCS/support-email-thread-saml-audience-error.txt"
)
STEM = "support-email-thread-saml-audience-error"
_HEADER_LINE = re.compile(r"^(?:From|To|Cc|Date|Sent|Subject):", re.M)


def words(documents: list[Converted]) -> str:
    return "\n".join(d.markdown for d in documents)


def test_the_shipped_thread_is_four_messages_each_with_its_sender_date_and_parent() -> None:
    documents = convert_documents(EXAMPLE.with_suffix(".txt"), EXAMPLE.read_bytes())
    assert [d.doc_id for d in documents] == [f"{STEM}-{n}" for n in (1, 2, 3, 4)], "oldest first"
    assert [(d.meta["from"].split(" <")[0], d.meta["date"]) for d in documents] == [
        ("Priya Raman", "2026-03-03"),
        ("Tomas Ferreira", "2026-03-04"),
        ("Priya Raman", "2026-03-04"),
        ("Tomas Ferreira", "2026-03-05"),
    ]
    assert [d.meta["in_reply_to"] for d in documents] == [None, f"{STEM}-1", f"{STEM}-2", f"{STEM}-3"]
    assert [d.meta["thread"] for d in documents] == [None, *[f"{STEM}-1"] * 3]
    assert documents[0].title == "[Ticket #48213] SAML login fails with SAML-002 after Azure AD setup"
    assert documents[3].meta["cc"] == ["support@lumenanalytics.example"]
    assert all(d.meta["type"] == "email" and not d.warnings for d in documents)
    assert "-----Original Message-----" not in words(documents)
    assert all(not _HEADER_LINE.search(d.markdown) for d in documents), "no other message's headers"


def test_every_line_of_the_shipped_thread_is_kept_once() -> None:
    source = EXAMPLE.read_text()
    text = words(convert_documents(EXAMPLE, EXAMPLE.read_bytes()))
    for line in source.splitlines():
        if line.strip() and not _HEADER_LINE.match(line) and "Original Message" not in line:
            assert text.count(line) == source.count(line), line


def test_a_text_message_reads_exactly_as_the_same_eml() -> None:
    headers = (
        "From: Tomas Ferreira <tomas@lumen.example>\nTo: Priya Raman <priya@harbor.example>\n"
        "Date: Wed, 4 Mar 2026 09:15:40 +0100\nSubject: Re: SAML-002\n"
    )
    reply = "Hi Priya,\n\nSet the Identifier to the Entity ID.\n\n-- \nTomas\n"
    quoted = (
        "\n-----Original Message-----\nFrom: Priya Raman <priya@harbor.example>\n"
        "Sent: Tuesday, March 3, 2026 3:27 PM\nTo: support@lumen.example\nSubject: SAML-002\n\n"
        "Login fails with SAML-002.\n"
    )
    _, answer = convert_documents(Path("thread.txt"), (headers + "\n" + reply + quoted).encode())
    (eml,) = convert_documents(Path("thread.eml"), (headers + "\n" + reply).encode())
    assert answer.markdown == eml.markdown and answer.title == eml.title
    assert {k: v for k, v in answer.meta.items() if k not in ("in_reply_to", "thread")} == {
        k: v for k, v in eml.meta.items() if k not in ("in_reply_to", "thread")
    }
    assert "Tomas\n" not in answer.markdown.split("Entity ID.")[1], "the signature is left out, as in .eml"


GMAIL = """From: Ana Ruiz <ana@garden.example>
To: Bo Lind <bo@garden.example>
Date: Thu, 5 Mar 2026 08:00:00 +0000
Subject: Re: Re: Compost bins

Thanks, ordering them today.

On Wed, Mar 4, 2026 at 5:03 PM Bo Lind <bo@garden.example> wrote:
> The grant covers $300 of the $420.
>
> On Tue, 3 Mar 2026 at 09:12, Ana Ruiz <ana@garden.example> wrote:
>> How much do the new bins cost, and what does the grant cover?
"""


def test_a_gmail_thread_of_nested_quotes_is_split_and_not_repeated() -> None:
    first, second, third = convert_documents(Path("bins.txt"), GMAIL.encode())
    assert [d.meta["date"] for d in (first, second, third)] == ["2026-03-03", "2026-03-04", "2026-03-05"]
    assert "**Date:** 2026-03-04 17:03" in second.markdown, "5:03 PM"
    assert second.meta["from"] == "Bo Lind <bo@garden.example>"
    assert first.title == second.title == "Compost bins", "a quoted message takes the subject, without Re:"
    assert third.title == "Re: Re: Compost bins"
    assert words([first, second, third]).count("$300 of the $420") == 1
    assert "How much do the new bins cost" in first.markdown and "\n>" not in first.markdown
    assert (second.meta["in_reply_to"], third.meta["in_reply_to"]) == (first.doc_id, second.doc_id)


OUTLOOK = """From: Ferreira, Tomas
Sent: Thursday, March 5, 2026 10:42 AM
To: Raman, Priya; support@lumen.example
Subject: RE: Export limits

Exports are capped at 1,000,000 rows.

________________________________
From: Raman, Priya [mailto:priya@harbor.example]
Sent: Wednesday, March 4, 2026 11:03 PM
To: Ferreira, Tomas
Subject: Export limits

How many rows can one export return?
"""


def test_an_outlook_thread_names_people_written_last_name_first() -> None:
    question, answer = convert_documents(Path("export.txt"), OUTLOOK.encode())
    assert question.meta["from"] == "Priya Raman <priya@harbor.example>"
    assert question.meta["date"] == "2026-03-04" and "**Date:** 2026-03-04 23:03" in question.markdown
    assert answer.meta["from"] == "Tomas Ferreira"
    assert answer.meta["to"] == ["Priya Raman", "support@lumen.example"]
    assert answer.meta["in_reply_to"] == question.doc_id
    assert "________" not in answer.markdown and "How many rows" not in answer.markdown


def test_a_forwarded_message_is_referenced_not_answered() -> None:
    text = (
        "From: Ana Ruiz <ana@garden.example>\nDate: Fri, 6 Mar 2026 10:00:00 +0000\nSubject: Fwd: Bins\n\n"
        "FYI, see the supplier's quote below.\n\n---------- Forwarded message ---------\n"
        "From: Sales <sales@bins.example>\nDate: Thu, 5 Mar 2026 16:00:00 +0000\nSubject: Bins\n"
        "To: Ana Ruiz <ana@garden.example>\n\nThree bins cost $420 delivered.\n"
    )
    quote, forward = convert_documents(Path("fwd.txt"), text.encode())
    assert "$420" in quote.markdown and "$420" not in forward.markdown
    assert forward.meta["relations"] == {"references": [quote.doc_id]} and not forward.meta["in_reply_to"]


def test_message_ids_in_the_text_name_the_documents_as_in_a_mailbox() -> None:
    text = (
        "Message-ID: <b@garden.example>\nIn-Reply-To: <a@garden.example>\nFrom: Bo <bo@garden.example>\n"
        "Date: Wed, 4 Mar 2026 17:03:00 +0000\nSubject: Re: Bins\n\nYes.\n\n"
        "-----Original Message-----\nFrom: Ana <ana@garden.example>\nSent: 3 March 2026 09:12\n"
        "Subject: Bins\n\nShall we buy them?\n"
    )
    first, reply = convert_documents(Path("bins.txt"), text.encode())
    assert (first.doc_id, reply.doc_id) == ("bins-1", mail_id("b@garden.example"))
    assert reply.meta["in_reply_to"] == mail_id("a@garden.example"), "its own In-Reply-To wins"


# -- not a thread, or not plainly one: one document, every line kept ---------------------------


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (  # a separator with no headers under it
            "From: Ana <ana@x.example>\nDate: Thu, 5 Mar 2026 08:00:00 +0000\nSubject: Bins\n\n"
            "Ordered.\n\n-----Original Message-----\nCan we order the bins?\n",
            "kept as one document: message 2 (after '-----Original Message-----') has no header lines",
        ),
        (  # the quoted message names no date
            "From: Ana <ana@x.example>\nDate: Thu, 5 Mar 2026 08:00:00 +0000\nSubject: Bins\n\n"
            "Ordered.\n\n-----Original Message-----\nFrom: Bo <bo@x.example>\nTo: Ana <ana@x.example>\n"
            "Subject: Bins\n\nCan we order the bins?\n",
            "kept as one document: message 2 of the thread names no sender (From) or no date",
        ),
        (  # a reply written below the quote
            "From: Ana <ana@x.example>\nDate: Thu, 5 Mar 2026 08:00:00 +0000\nSubject: Bins\n\n"
            "On Wed, 4 Mar 2026 at 17:03, Bo <bo@x.example> wrote:\n> Can we order the bins?\n\n"
            "Yes, ordered.\n",
            "is followed by text below the quote",
        ),
        (  # an attribution with no date
            "From: Ana <ana@x.example>\nDate: Thu, 5 Mar 2026 08:00:00 +0000\nSubject: Bins\n\n"
            "Ordered.\n\nOn Monday, Bo wrote:\n> Can we order the bins?\n",
            "names no date or no sender",
        ),
    ],
)
def test_a_text_that_is_not_plainly_a_thread_stays_one_document_and_says_why(text: str, problem: str) -> None:
    (single,) = convert_documents(Path("bins.txt"), text.encode())
    assert any(problem in w for w in single.warnings), single.warnings
    assert single.meta["type"] == "email" and single.title == "Bins"
    for line in text.split("\n\n", 1)[1].splitlines():
        assert line in single.markdown, "every line kept"


def test_plain_text_with_reply_words_is_one_document_without_a_warning() -> None:
    text = b"Garden notes\n\nOn Monday, Bo wrote: we need more compost.\n\n-----Original Message-----\nold\n"
    (single,) = convert_documents(Path("notes.txt"), text)
    assert single.warnings == [] and "-----Original Message-----" in single.markdown


def test_an_unreadable_date_leaves_its_message_undated_with_a_warning() -> None:
    text = (
        "From: Ana <ana@x.example>\nDate: Thu, 5 Mar 2026 08:00:00 +0000\nSubject: Re: Bins\n\nOrdered.\n\n"
        "-----Original Message-----\nFrom: Bo <bo@x.example>\nSent: yesterday after lunch\n"
        "Subject: Bins\n\nCan we order the bins?\n"
    )
    question, answer = convert_documents(Path("bins.txt"), text.encode())
    assert question.meta.get("date") is None and "**Date:**" not in question.markdown
    assert "Can we order the bins?" in question.markdown
    assert answer.meta["date"] == "2026-03-05"
    assert question.warnings == ["message 1 (Bo): date 'yesterday after lunch' not understood; left undated"]


def test_a_thread_in_a_legacy_encoding_is_split_and_decoded() -> None:
    text = (
        "From: Jörg Müller <joerg@x.example>\nDate: Thu, 5 Mar 2026 08:00:00 +0000\nSubject: Re: Kompost\n\n"
        "Bestellt – danke, Zoë.\n\n-----Original Message-----\nFrom: Zoë Ferré <zoe@x.example>\n"
        "Sent: 4 March 2026 17:03\nSubject: Kompost\n\nKönnen wir die Behälter bestellen?\n"
    )
    question, answer = convert_documents(Path("kompost.txt"), text.encode("cp1252"))
    assert question.meta["from"] == "Zoë Ferré <zoe@x.example>" and "Behälter" in question.markdown
    assert "Bestellt – danke, Zoë." in answer.markdown
    assert question.warnings and question.warnings[0].startswith("decoded as")


def _long_thread(messages: int) -> bytes:
    blocks = [
        f"From: Person {n} <p{n}@x.example>\nSent: {1 + n % 28} March 2026 09:{n % 60:02d}\n"
        f"Subject: Re: Rota\n\nShift {n} is covered by person {n}.\n"
        for n in range(messages, 0, -1)
    ]
    return ("\n-----Original Message-----\n".join(blocks)).encode()


def test_a_long_thread_within_the_limits_is_split_in_reasonable_time() -> None:
    started = time.monotonic()
    with spending(Limits(), 0):
        documents = convert_documents(Path("rota.txt"), _long_thread(1_500))
    assert time.monotonic() - started < 20
    assert len(documents) == 1_500 and documents[-1].doc_id == "rota-1500"
    assert "Shift 1 is covered" in documents[0].markdown and documents[1].meta["in_reply_to"] == "rota-1"


def test_a_thread_of_more_messages_than_allowed_is_over_the_budget() -> None:
    with spending(Limits(documents=100), 0), pytest.raises(OverBudget, match=r"raise ingest\.max_documents"):
        convert_documents(Path("rota.txt"), _long_thread(101))


# -- end to end --------------------------------------------------------------------------------


def test_a_thread_saved_again_with_a_new_reply_keeps_its_messages_and_links_them(
    kb: KnowledgeBase, make_persona: PersonaMaker
) -> None:
    folder = make_persona("support", raw={f"{STEM}.txt": EXAMPLE.read_bytes()})
    report = kb.ingest(folder.parent)
    assert not report.failed, [o.line() for o in report.failed]
    assert sorted(p.stem for p in (folder / "RAG").glob("*.md")) == [f"{STEM}-{n}" for n in (1, 2, 3, 4)]
    links = kb.document(f"{STEM}-4", persona="support").relationships
    assert [(r.target, r.type) for r in links] == [(f"{STEM}-3", "replies_to")]
    newer = (
        "From: Priya Raman <priya.raman@harborpine.example>\nTo: Tomas Ferreira "
        "<tomas.ferreira@lumenanalytics.example>\nDate: Thu, 5 Mar 2026 12:00:00 -0500\n"
        "Subject: Re: [Ticket #48213] SAML login fails with SAML-002 after Azure AD setup\n\n"
        "Thank you, Tomas. We will look at Enterprise next quarter.\n\n-----Original Message-----\n"
    )
    (folder / "RAW-DOCS" / f"{STEM}.txt").write_text(newer + EXAMPLE.read_text())
    report = kb.ingest(folder.parent)
    assert not report.failed, [o.line() for o in report.failed]
    assert sorted(p.stem for p in (folder / "RAG").glob("*.md")) == [f"{STEM}-{n}" for n in (1, 2, 3, 4, 5)]
    assert kb.document(f"{STEM}-5", persona="support").document.meta["in_reply_to"] == f"{STEM}-4"
